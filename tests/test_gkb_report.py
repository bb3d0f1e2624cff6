"""The GUI Knowledge Bench report on constructed lmms-eval output: Table 2 cells, pooled types, calibration, PNGs."""

from __future__ import annotations

import json
import math

import pytest

from gui_tasks.knowledge import report


def _task(sub, acc, n, fmt=0.0):
    return {"gkb_acc,none": acc, f"gkb_{sub}_acc,none": acc, "gkb_format_error_rate,none": fmt, "alias": sub}


def _rec(sub, answer, pred, platform="desktop", gold=None, predicted=None, qtype="multiple_choice"):
    return {"gkb_acc": {"subtask": sub, "knowledge_type": "x", "question_type": qtype, "platform": platform, "answer": answer,
                        "pred": pred, "status": "parsed" if pred else "malformed", "correct": answer == pred,
                        "gold_action": gold, "pred_action": predicted}}


@pytest.fixture()
def run_dir(tmp_path):
    tasks = {"gkb_state": ("state", 0.5, 4, 0.25), "gkb_widget": ("widget", 1.0, 2, 0.0), "gkb_layout": ("layout", 0.0, 2, 0.0),
             "gkb_type": ("type", 0.25, 4, 0.5)}
    raw = {
        "results": {t: _task(sub, acc, n, fmt) for t, (sub, acc, n, fmt) in tasks.items()},
        "configs": {t: {"metadata": {"benchmark": "gui_knowledge", "source": "official", "variant": "plain", "lang": "en",
                                     "subtasks": [sub]}} for t, (sub, *_rest) in tasks.items()},
        "n-samples": {t: {"original": n, "effective": n} for t, (_, _, n, _) in tasks.items()},
        "config": {"model": "gui_hf", "model_args": "pretrained=/models/Qwen2.5-VL-7B"},
        "model_name": "/models/Qwen2.5-VL-7B",
    }
    folder = tmp_path / "run" / "m"
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")
    state = [_rec("state", "yes", "unknown", qtype="yes_or_no"), _rec("state", "unknown", "unknown", qtype="yes_or_no"),
             _rec("state", "no", None, qtype="yes_or_no"), _rec("state", "yes", "no", qtype="yes_or_no")]
    typ = [_rec("type", "B", "A", gold="left_double", predicted="click"), _rec("type", "C", "A", gold="right_single", predicted="click"),
           _rec("type", "A", "A", gold="click", predicted="click"), _rec("type", "G", None, gold="scroll")]
    for task, recs in (("gkb_state", state), ("gkb_type", typ)):
        (folder / f"20260101_000000_samples_{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return tmp_path / "run"


def test_table_row_pools_subtasks_into_knowledge_types(run_dir):
    built = report.build_report(report.find_result_files(run_dir))
    (row,) = built.rows
    assert (row.model, row.source, row.variant, row.lang) == ("Qwen2.5-VL-7B", "official", "plain", "en")
    assert row.values["state"] == 50.0 and row.values["widget"] == 100.0 and row.values["type"] == 25.0
    assert row.values["interface_perception"] == pytest.approx(50.0)  # (2 + 2 + 0) of 8 questions
    assert row.values["interaction_prediction"] == pytest.approx(25.0) and math.isnan(row.values["instruction_understanding"])
    assert row.values["overall"] == pytest.approx(100 * 5 / 12)
    assert row.format_error == pytest.approx(100 * (0.25 * 4 + 0.5 * 4) / 12)
    # 2 of 4 yes/no answers say unknown; 1 of 4 questions is unknown; 1 of the 2 unknown answers is right
    assert row.calibration == {"pred_rate": 0.5, "gold_rate": 0.25, "precision": 0.5, "recall": 1.0}
    text = report.render_text(built)
    assert "Interface Perception: state, widget, layout" in text and "50.0" in text


def test_confusion_pngs_only_for_platforms_with_action_type_records(run_dir, tmp_path):
    assert report.main([str(run_dir), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "confusion_desktop.png").stat().st_size > 0
    assert not (tmp_path / "out" / "confusion_mobile.png").exists()
    csv_text = (tmp_path / "out" / "table.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("model,source,variant,lang,state,widget,layout,effect,type,parameter,goal,plan")


def test_no_knowledge_results_is_exit_code_1(tmp_path, capsys):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "x_results.json").write_text(json.dumps({"results": {}}), encoding="utf-8")
    assert report.main([str(folder)]) == 1
    assert "no GUI Knowledge Bench result" in capsys.readouterr().err
