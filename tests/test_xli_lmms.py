"""End to end: build a memory on synthetic data, then lmms-eval with interventions=gui_xli (two real ranks: test_accelerate)."""

from __future__ import annotations

import json
import subprocess

import pytest

from gui_tasks.commands.cli import find_results, lmms_eval_command
from gui_tasks.mpr.xli import cli as xli_cli
from gui_tasks.mpr.xli.report import build_xli_table
from gui_tasks.runs.results_io import find_result_files, load_results

pytestmark = pytest.mark.slow
TASK = "mpr_gui_synth_ja"
LIMIT = 8  # one document per dimension (documents are interleaved by dimension)


def _run(cmd, env, out):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    files = find_results(out)
    assert files, (proc.stdout + proc.stderr)[-4000:]
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"][TASK]
    samples_file = sorted(out.rglob(f"*_samples_{TASK}.jsonl"))[-1]
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return results, {s["doc_id"]: s["filtered_resps"] for s in samples}


@pytest.fixture(scope="module")
def memory(tiny_checkpoint, tmp_path_factory, session_cache):
    out = tmp_path_factory.mktemp("xli") / "mem-ja"
    assert xli_cli.main(["build", "--checkpoint", str(tiny_checkpoint), "--device", "cpu", "--lang", "ja", "--per-dimension", "2",
                         "--max-new-tokens", "4", "--memory-size", "2", "--out", str(out), "--no-require-correctness"]) == 0
    return out


def test_lmms_eval_with_gui_xli_changes_answers_and_the_report_pairs_runs(tmp_path, tiny_checkpoint, memory, subprocess_env):
    base = f"pretrained={tiny_checkpoint},device=cpu"
    steer = base + f",interventions=gui_xli,gui_xli.memory={memory},gui_xli.layer=2,gui_xli.alpha=50,gui_xli.k=2"
    _, plain = _run(lmms_eval_command(base, [TASK], tmp_path / "plain", limit=LIMIT), subprocess_env, tmp_path / "plain")
    res_one, one = _run(lmms_eval_command(steer, [TASK], tmp_path / "one", limit=LIMIT), subprocess_env, tmp_path / "one")
    # `accelerate launch --cpu --num_processes 2` runs ONE process with accelerate 1.x: the two-rank
    # parity of a steered run is tested with two real ranks in test_accelerate.py
    assert len(one) == LIMIT
    assert one != plain  # the steering ran inside the lmms-eval process
    # the with/without report pairs the two single-process runs
    runs = [load_results(p) for p in find_result_files([tmp_path / "plain", tmp_path / "one"])]
    table = build_xli_table(runs)
    assert [(p.without.lang, p.settings["layer"], p.settings["alpha"]) for p in table.pairs] == [("ja", "2", "50")]
