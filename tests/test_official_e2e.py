"""Official releases in their published layouts through the real lmms-eval CLI (one run, several benchmarks).

Fixtures: our own small files in the real layouts (tests/fixtures/{mpr_official,gui_knowledge,star_official}).
lmms-eval exits 0 even when a task fails, so the tests read the files it writes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gui_metrics.knowledge import SUBTASKS
from gui_tasks.commands.cli import find_results, lmms_eval_command
from gui_tasks.mpr.report import build_table
from lmms_helpers import results, run, samples

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parent / "fixtures"


def test_mpr_gkb_and_star_run_on_copies_in_the_published_layouts(tmp_path, tiny_checkpoint, subprocess_env):
    mpr = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", mpr)
    with (mpr / "qas" / "wi_zh.jsonl").open("a", encoding="utf-8") as fh:  # one bad row, skipped on request
        fh.write(json.dumps({"question": "没有选项的问题", "answer": "A", "image_path": "../images/4/zh/camera_zh_8.jpg"}) + "\n")
    env = {**subprocess_env, "MPR_GUI_DATA_DIR": str(mpr), "GUI_KNOWLEDGE_DATA_DIR": str(FIXTURES / "gui_knowledge"),
           "STAR_DATA_DIR": str(FIXTURES / "star_official"), "STAR_DATA_FILE": "state_control_benchmark_sample.json",
           "GUI_EVAL_SKIP_BAD_ROWS": "1"}
    out = tmp_path / "run"
    tasks = ["mpr_gui_zh", "gui_knowledge", "star_state_control"]
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", tasks, out, limit=None,
                                      extra=["--gen_kwargs", "max_new_tokens=12"]), env, timeout=1200)
    written = results(out)
    res = written["results"]

    mpr_rows = samples(out, "mpr_gui_zh")
    assert len(mpr_rows) == 14, log[-3000:]  # every good zh row: 6 single-image files x 2 + RI + SI
    assert {s["mcq_acc"]["dimension"] for s in mpr_rows} == {"AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"}
    assert 0.0 <= res["mpr_gui_zh"]["fpr_acc,none"] <= 1.0
    assert written["configs"]["mpr_gui_zh"]["metadata"]["bad_rows_skipped"] == 1  # the bad row is counted
    assert "skipped 1 bad row(s)" in log and "wi_zh.jsonl, row 2, field 'question'" in log
    table = build_table(find_results(out))  # ... and the report says so under the table
    assert any("ZH: 1 bad official row(s) skipped on request" in n for n in table.notes)

    for sub in SUBTASKS:  # every question present is scored, Interface Perception with the red-box question
        rows = samples(out, f"gui_knowledge_{sub}")
        assert len(rows) == (2 if sub == "type" else 1) and f"gkb_{sub}_acc,none" in res[f"gui_knowledge_{sub}"]
    widget = samples(out, "gui_knowledge_widget")[0]
    assert "What does the icon in the red box do? \nA. Opens settings" in widget["input"]  # augmented_question
    assert "Which of the above options are correct according to the screenshot?" in widget["input"]
    assert written["configs"]["gui_knowledge_widget"]["metadata"]["variant"] == "official"

    star = [s["star_o_amr"] for s in samples(out, "star_state_control")]
    assert [r["polarity"] for r in star] == ["positive", "negative"] * 2  # the sample split: 2 records x 2
    assert 0.0 <= res["star_state_control"]["star_o_amr,none"] <= 1.0


def test_bad_official_row_is_named_plainly_last_not_behind_retries(tmp_path, tiny_checkpoint, subprocess_env):
    mpr = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", mpr)
    (mpr / "qas" / "au_zh.jsonl").write_text(json.dumps({"question": "Q? A: x B: y C: z D: w", "answer": "E",
                                                         "image_path": "../images/1/zh/camera_zh_8.jpg"}) + "\n")
    env = {**subprocess_env, "MPR_GUI_DATA_DIR": str(mpr)}
    out = tmp_path / "run"
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["mpr_gui_zh_au"], out, limit=1), env)
    assert "RetryError" not in log, log[-3000:]
    tail = [line for line in proc.stderr.splitlines() if line.strip()][-3:]
    assert any("mpr_gui_zh_au: its rows could not be built" in line and "au_zh.jsonl, row 0, field 'answer'" in line for line in tail), tail
    # the task that met the bad row did not run, and says why in the results file the run still writes (issue 37)
    (results,) = out.rglob("*_results.json")
    why = json.loads(results.read_text())["configs"]["mpr_gui_zh_au"]["metadata"]["not_run"]
    assert "au_zh.jsonl, row 0, field 'answer'" in why, why
