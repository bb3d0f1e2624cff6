#!/usr/bin/env bash
# Fonts for the synthetic GUI world (gui_tasks/synth/fonts.py): DejaVu Sans (Latin, Cyrillic),
# Garuda (Thai), Droid Sans Fallback (Chinese, Japanese); about 3 MB from Debian.
# Idempotent: exits at once when all three files are present.
set -euo pipefail
need=()
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ -f /usr/share/fonts/truetype/tlwg/Garuda.ttf ] || need+=(fonts-tlwg-garuda-ttf)
[ -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] || need+=(fonts-droid-fallback)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "[fonts] need Debian packages ${need[*]} (run as root or install them yourself)" >&2; exit 1
fi
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
echo "[fonts] installing ${need[*]}" >&2
# Try without refreshing the package lists first (fast when they are current), then with.
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
