#!/usr/bin/env bash
# Headless Chromium for the viewer's page tests: Debian's chromium and chromium-driver (apt).
# Idempotent: does nothing when both are present. Needs root (CI) or sudo; otherwise it says what to run
# and the browser tests skip.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "[setup] no apt-get: install chromium and chromedriver yourself for the viewer's browser tests" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
        echo "[setup] not root: run 'apt-get install chromium chromium-driver' for the viewer's browser tests" >&2
        exit 0
    fi
fi
echo "[setup] installing chromium and chromium-driver (apt)" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
