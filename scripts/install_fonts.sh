#!/usr/bin/env bash
# Fonts for the synthetic GUI world: Latin and Cyrillic (DejaVu Sans), Thai (Noto Sans Thai),
# Chinese and Japanese (Droid Sans Fallback). Skips when all three are present.
set -euo pipefail
need=()
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
ls /usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf >/dev/null 2>&1 || need+=(fonts-noto-core)
[ -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] || need+=(fonts-droid-fallback)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "[fonts] need Debian packages ${need[*]} (run as root or install them yourself)" >&2; exit 1
fi
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
echo "[fonts] installing ${need[*]}" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
