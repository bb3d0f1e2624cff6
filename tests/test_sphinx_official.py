"""Static SPHINX tasks on official-schema fixtures: loading, prompts, Original/Repaired scoring and the metrics."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from gui_metrics.manager import get_metric
from gui_tasks.errors import DataError
from gui_tasks.sphinx import official
from gui_tasks.sphinx import static_tasks as stt

FIX = Path(__file__).parent / "fixtures" / "sphinx"


def rows(kind: str, mode: str = "full_text", root: Path = FIX) -> list[dict]:
    return stt.SphinxStaticTask.rows({"kind": kind, "source": "official", "data_dir": str(root), "observation": mode})


def values(doc: dict, text: str) -> dict:
    return next(iter(stt.process_results(doc, [text]).values()))


def test_questions_expand_to_the_mcq_and_four_true_false_probes():
    docs = rows("knowledge")
    assert len(docs) == 10 and [d["probe"] for d in docs[:5]] == ["mcq", "bq", "bq", "bq", "bq"]
    assert [d["capability"] for d in docs[::5]] == ["app", "goal"]  # app_level / intention_level
    assert [d["answer"] for d in docs[1:5]] == ["T", "F", "F", "F"]
    assert stt.doc_to_text(docs[0]) == (
        "Given the app name Money Manager in the category 'Finance', answer the following multiple-choice question:\n\n"
        "Which feature lets you record what you spent on groceries?\n\nOptions:\nA. Add expense\nB. Backup\nC. Currency converter\n"
        "D. Themes\n\nPlease answer with only the option character (A, B, C, or D).")
    assert stt.doc_to_text(docs[6]).endswith("Statement: Ring at 10:00\nPlease answer with only 'T' for yes or 'F' for no.")
    assert stt.doc_to_visual(docs[0]) == []


def test_table6_accuracy_counts_the_mcq_and_its_probes_alike():
    docs = rows("knowledge")
    # app question: MCQ right but chatty (wrong as written, right repaired); probes T, F, T, "no" -> 2 of 4 as written
    app = [values(docs[0], "The answer is A."), values(docs[1], "T"), values(docs[2], "F"), values(docs[3], "T"), values(docs[4], "no")]
    goal = [values(d, d["answer"]) for d in docs[5:]]
    recs = app + goal
    assert get_metric("sphinx_app_acc_original").aggregate(recs) == pytest.approx(2 / 5)
    assert get_metric("sphinx_app_acc_repaired").aggregate(recs) == pytest.approx(4 / 5)
    assert get_metric("sphinx_goal_acc_original").aggregate(recs) == 1.0
    assert get_metric("sphinx_probe_format_error_rate").aggregate(recs) == pytest.approx(2 / 10)
    assert values(docs[0], "")["status"] == "empty"


def test_completion_rows_label_the_last_step_stop_and_keep_the_history():
    docs = rows("completion")
    assert [d["id"] for d in docs] == ["101/money/0", "101/money/1", "101/money/2", "101/money/3"]  # testing task 1201 left out
    assert [d["answer"] for d in docs] == ["continue", "continue", "continue", "stop"]
    assert docs[0]["group"] == "user" and official.task_group(1201) == "testing"
    text = stt.doc_to_text(docs[2])
    assert 'Actions performed so far: click [TextView "Food/Groceries"]; input [EditText "amount"] [10]' in text
    assert "[1] Button \"Save\" id=save clickable" in text and "status_bar" not in text
    assert len(stt.doc_to_visual(rows("completion", "set_of_mark")[0])) == 1


def test_table7_continue_stop_and_perfect():
    docs = rows("completion")
    recs = [values(d, a) for d, a in zip(docs, ["Continue.", "I would continue", "stop", "stop"])]
    assert get_metric("sphinx_continue_acc").aggregate(recs) == pytest.approx(1 / 3)  # only one word (any case) counts as written
    assert get_metric("sphinx_stop_acc").aggregate(recs) == 1.0
    assert get_metric("sphinx_perfect").aggregate(recs) == 0.0
    assert get_metric("sphinx_perfect").aggregate([values(d, d["answer"]) for d in docs]) == 1.0
    assert values(docs[0], "I think we should continue")["correct_repaired"] is True


def test_grounding_by_element_id_and_by_point_with_message():
    docs = rows("grounding")
    assert [d["gold_type"] for d in docs] == ["click", "text", "click"]
    assert docs[2]["gold_box"] == [600, 1000, 760, 1100]  # element id [1] of screen 2 is the Save button
    assert values(docs[0], "click [0]")["correct"] is False  # [0] is "Restaurant/Fast food"
    assert values(docs[0], "click [1]")["correct"] is True  # the Food/Groceries row: its centre is in the gold box
    assert values(docs[0], "click [300,330]")["correct"] is True
    assert values(docs[0], "longclick [300,330]")["correct"] is False
    assert values(docs[1], "text [0] [10]")["correct"] is True and values(docs[1], "input [0] [20]")["correct"] is False
    r = values(docs[2], "I will save it: click [1] now")
    assert (r["correct"], r["correct_repaired"], r["status"]) == (False, True, "malformed")
    recs = [values(docs[0], "click [1]"), r]
    assert get_metric("sphinx_grounding_acc_original").aggregate(recs) == 0.5
    assert get_metric("sphinx_grounding_acc_repaired").aggregate(recs) == 1.0


def test_focused_context_asks_for_every_action_form_and_counts_violations():
    docs = stt.SphinxStaticTask.rows({"kind": "focused", "seed": 0})
    assert len(docs) == 141 and len({d["expected"] for d in docs}) > 100
    kinds = {re.sub(r"\[.*", "", d["expected"]).strip() for d in docs}
    assert {"click", "longclick", "text", "input", "swipe", "press"} <= kinds
    d = docs[4]
    assert stt.doc_to_text(d) == f"Respond with '{d['expected']}'."
    assert values(d, d["expected"])["violation"] is False
    assert values(d, f"Sure! {d['expected']}")["violation"] is True
    assert values(d, "press [stop]")["violation"] is True


def test_missing_screen_and_bad_rows_name_file_row_and_field(tmp_path):
    root = tmp_path / "sphinx"
    shutil.copytree(FIX, root)
    (root / "groundtruth/101/money/2.png").unlink()
    rows("completion", root=root)  # text modes need no screenshot
    with pytest.raises(DataError, match=r"2.png, row 2, field 'png'"):
        rows("completion", "screenshot", root)
    q = json.loads((FIX / "questions.json").read_text())
    del q[1]["app_cateory"]
    (root / "questions.json").write_text(json.dumps(q))
    with pytest.raises(DataError, match=r"questions.json, row 1, field 'app_cateory'"):
        rows("knowledge", root=root)
    low = json.loads((FIX / "low_level.json").read_text())
    low[0]["id"] = "no-screen"
    (root / "low_level.json").write_text(json.dumps(low))
    with pytest.raises(DataError, match=r"low_level.json, row 0, field 'screen'"):
        rows("grounding", root=root)
    with pytest.raises(DataError, match="SPHINX_DATA_DIR"):
        official.data_root({})


@given(st.text(max_size=80))
def test_static_scorers_never_raise(text):
    for doc in rows("knowledge")[:2] + rows("completion")[:1] + rows("grounding") + stt.SphinxStaticTask.rows({"kind": "focused"})[:9]:
        rec = values(doc, text)
        assert rec["status"] in ("parsed", "malformed", "empty")
