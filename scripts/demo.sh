#!/usr/bin/env bash
# Sets up the main environment only (scripts/setup.sh demo), then runs the offline demo (gui-eval demo): builds the tiny
# Qwen2-VL checkpoint and the synthetic MPR-GUI set (cached), runs lmms-eval with gui_hf on mpr_gui_synth_zh and _en
# (--limit 16), writes the Table 2-style report, runs a second small lmms-eval run (--limit 2, max_new_tokens=32) on
# icon_localization_synth, star_state_control_synth and sphinx_sim_toggle for the viewer, and builds the viewer
# (runs/demo/view/index.html).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/gui-eval demo "$@"
