"""Data parallelism: two CPU processes under accelerate give the single process's answers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gui_tasks.cli import find_results, lmms_eval_command

pytestmark = pytest.mark.slow
TASK = "mpr_gui_synth_en"


def _run(cmd, env, out):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    files = find_results(out)
    assert files, (proc.stdout + proc.stderr)[-4000:]
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"][TASK]
    samples_file = sorted(out.rglob(f"*_samples_{TASK}.jsonl"))[-1]
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    preds = {s["doc_id"]: (s["filtered_resps"], s["mcq_acc"]) for s in samples}
    return {k: v for k, v in results.items() if not k.endswith("_stderr,none") and k != "alias"}, preds


def test_two_processes_match_one(tmp_path, tiny_checkpoint, subprocess_env):
    args = f"pretrained={tiny_checkpoint},device=cpu"
    single = lmms_eval_command(args, [TASK], tmp_path / "one", limit=6)
    launcher = [sys.executable, "-m", "accelerate.commands.launch", "--cpu", "--num_processes", "2", "--num_machines", "1",
                "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "lmms_eval"]
    multi = launcher + lmms_eval_command(args, [TASK], tmp_path / "two", limit=6)[3:]
    metrics_one, preds_one = _run(single, subprocess_env, tmp_path / "one")
    metrics_two, preds_two = _run(multi, subprocess_env, tmp_path / "two")
    assert len(preds_one) == 6
    assert preds_two == preds_one
    assert json.dumps(metrics_two, sort_keys=True) == json.dumps(metrics_one, sort_keys=True)
