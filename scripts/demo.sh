#!/usr/bin/env bash
# Sets up the main environment only (scripts/setup.sh demo), then runs the offline demo: tiny Qwen2-VL checkpoint, synthetic
# MPR-GUI set, lmms-eval with gui_hf on mpr_gui_synth_zh and _en, Table 2-style report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/gui-eval demo "$@"
