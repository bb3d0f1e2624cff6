#!/usr/bin/env bash
# Sets up ./.venv from a machine with only Python 3.10+, from the lock files in requirements/
# (the set of versions the whole test suite passed on; scripts/lock.sh refreshes them, docs/maintenance.md).
#   bash scripts/setup.sh demo   what `gui-eval` runs on: requirements/runtime.lock, this package, the fonts
#                                the synthetic GUI world renders with, the lmms-eval task hook
#   bash scripts/setup.sh test   (default) all of that with the test extra (requirements/test.lock), headless
#                                Chromium for the viewer tests and the served-engine venv .venv-vllm
# Re-running is cheap: pip is skipped while the lock, setup.cfg and this script are unchanged.
# The locks are for CPython 3.11 on x86_64 Linux (the tested interpreter); elsewhere setup.cfg's ranges are
# installed instead, with a warning (GUI_EVAL_TORCH_PINS picks the torch pair there, e.g. on aarch64
# "torch==2.9.1 torchvision==0.24.1").
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-test}"
case "$MODE" in
    demo) LOCK=requirements/runtime.lock; EXTRA="[backends]" ;;
    test) LOCK=requirements/test.lock; EXTRA="[backends,test]" ;;
    *) echo "usage: bash scripts/setup.sh [demo|test]" >&2; exit 2 ;;
esac
PY="${PYTHON:-python3}"
VENV="${GUI_EVAL_VENV:-.venv}"
source scripts/locked_platform.sh
quiet() { grep -v -e "^WARNING: Location" >&2 || true; }

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
stamp="$VENV/.gui-eval-installed-$MODE"
want="$(cat setup.cfg "$LOCK" scripts/setup.sh scripts/locked_platform.sh | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    start=$(date +%s)
    if on_locked_platform "$VENV/bin/python"; then
        echo "[setup] installing $LOCK into $VENV (first run: several minutes)" >&2
        # Every package pinned with its hashes: pip installs exactly the locked files, resolves nothing.
        "${pip[@]}" --require-hashes --no-deps -r "$LOCK" 2>&1 | quiet
    else
        echo "[setup] WARNING: $("$VENV/bin/python" -c 'import sys, platform; print(sys.version.split()[0], sys.platform, platform.machine())')" \
             "is not the locked platform ($LOCKED_PLATFORM): installing setup.cfg's ranges, an untested set" >&2
        # shellcheck disable=SC2086
        "${pip[@]}" ${GUI_EVAL_TORCH_PINS:-torch==2.14.1 torchvision==0.29.1} 2>&1 | quiet
        "${pip[@]}" -e ".$EXTRA" 2>&1 | quiet
    fi
    "${pip[@]}" --no-deps -e . 2>&1 | quiet
    "$VENV/bin/python" -c "import torch, torchvision, lmms_eval, lmms_eval.evaluator, gui_tasks, pluggy" \
        || { echo "[setup] installation failed (see pip output above)" >&2; exit 1; }
    echo "$want" > "$stamp"
    echo "[setup] $MODE environment ready in $(( $(date +%s) - start )) s ($(du -sh "$VENV" | cut -f1))" >&2
fi
bash scripts/install_fonts.sh
if [ "$MODE" = test ]; then
    bash scripts/install_chromium.sh
    bash scripts/setup_vllm.sh  # served-engine tests: a vLLM CPU build in .venv-vllm (docs/engines.md)
fi
"$VENV/bin/gui-eval" install-lmms-hook >/dev/null
