#!/usr/bin/env bash
# Sets up everything the harness needs in ./.venv, from a machine with only Python 3.10+:
# torch (the CPU-runnable pair pinned below), lmms-eval, this package with its test extras,
# the fonts the synthetic GUI world renders with, headless Chromium for the viewer tests, and the lmms-eval task hook.
# Re-running is cheap: the install steps are skipped while setup.cfg is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV="${GUI_EVAL_VENV:-.venv}"
# torch/torchvision: a matching pair is required (a mismatched torchvision fails to import).
TORCH_PINS="${GUI_EVAL_TORCH_PINS:-torch==2.14.1 torchvision==0.29.1}"

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
stamp="$VENV/.gui-eval-installed"
want="$(cat setup.cfg scripts/setup.sh | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "[setup] installing into $VENV (first run: several minutes)" >&2
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check $TORCH_PINS 2>&1 | grep -v "^WARNING: Location" >&2 || true
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test]" 2>&1 | grep -v "^WARNING: Location" >&2 || true
    "$VENV/bin/python" -c "import torch, torchvision, lmms_eval, gui_tasks, pluggy" \
        || { echo "[setup] installation failed (see pip output above)" >&2; exit 1; }
    echo "$want" > "$stamp"
fi
bash scripts/install_fonts.sh
bash scripts/install_chromium.sh
bash scripts/setup_vllm.sh  # served-engine tests: a vLLM CPU build in .venv-vllm (docs/ENGINES.md)
"$VENV/bin/gui-eval" install-lmms-hook >/dev/null
