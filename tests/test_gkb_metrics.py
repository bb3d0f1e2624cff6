"""GUI Knowledge Bench metrics on constructed records: Table 2 accuracies, calibration, confusion matrices."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_metrics import all_metrics
from gui_metrics.knowledge import (SUBTASK_TYPE, SUBTASKS, UNPARSED, click_bias, confusion_matrix, knowledge_type_accuracy,
                                   subtask_accuracy, unknown_calibration)
from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS


def rec(subtask, correct, *, answer="A", pred="A", qtype="multiple_choice", platform="mobile", gold=None, predicted=None,
        status="parsed"):
    return {"subtask": subtask, "knowledge_type": SUBTASK_TYPE[subtask], "question_type": qtype, "platform": platform,
            "answer": answer, "pred": pred, "status": status, "correct": correct, "gold_action": gold, "pred_action": predicted}


def test_subtask_and_knowledge_type_accuracy_hand_counted():
    records = ([rec("state", True)] * 3 + [rec("state", False)] + [rec("widget", True)] + [rec("layout", False)] * 3
               + [rec("goal", True)] * 2)
    assert subtask_accuracy(records) == {"state": 0.75, "widget": 1.0, "layout": 0.0, "goal": 1.0}
    # micro: 4 of 8 perception questions right; macro: mean of 0.75, 1.0, 0.0
    assert knowledge_type_accuracy(records) == {"interface_perception": 0.5, "instruction_understanding": 1.0}
    assert knowledge_type_accuracy(records, "macro")["interface_perception"] == pytest.approx(1.75 / 3)


def test_unknown_calibration_hand_counted():
    yn = dict(qtype="yes_or_no")
    records = [rec("goal", True, answer="unknown", pred="unknown", **yn), rec("goal", False, answer="no", pred="unknown", **yn),
               rec("goal", False, answer="unknown", pred="yes", **yn), rec("goal", True, answer="yes", pred="yes", **yn),
               rec("goal", False, answer="no", pred=None, status="malformed", **yn), rec("state", True)]  # the MC record is ignored
    cal = unknown_calibration(records)
    assert cal == {"pred_rate": 2 / 5, "gold_rate": 2 / 5, "precision": 1 / 2, "recall": 1 / 2}
    assert all(math.isnan(v) for v in unknown_calibration([rec("state", True)]).values())


def test_desktop_confusion_matrix_counts_click_confusions():
    def t(gold, pred):
        return rec("type", gold == pred, platform="desktop", gold=gold, predicted=pred)

    records = [t("click", "click"), t("left_double", "click"), t("left_double", "click"), t("right_single", "left_double"),
               t("scroll", None), rec("type", True, platform="mobile", gold="long_press", predicted="long_press"), rec("state", True)]
    labels, cols, m = confusion_matrix(records, DESKTOP_CALLS, "desktop")
    assert labels == list(DESKTOP_CALLS) and cols == list(DESKTOP_CALLS) + [UNPARSED]
    assert m[labels.index("left_double")][cols.index("click")] == 2
    assert m[labels.index("right_single")][cols.index("left_double")] == 1
    assert m[labels.index("scroll")][cols.index(UNPARSED)] == 1
    assert sum(map(sum, m)) == 5  # the mobile and non-type records are not counted
    assert click_bias(records) == pytest.approx(2 / 5)  # of the 5 non-click questions (both platforms), 2 answered click


def test_mobile_confusion_rejects_a_desktop_name():
    with pytest.raises(ValueError, match="left_double"):
        confusion_matrix([rec("type", False, gold="click", predicted="left_double")], MOBILE_CALLS, "mobile")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(MOBILE_CALLS), st.one_of(st.none(), st.sampled_from(MOBILE_CALLS))), max_size=40))
def test_confusion_diagonal_equals_correct_answers(pairs):
    records = [rec("type", g == p, gold=g, predicted=p) for g, p in pairs]
    labels, cols, m = confusion_matrix(records, MOBILE_CALLS)
    assert sum(m[i][i] for i in range(len(labels))) == sum(r["correct"] for r in records)
    assert [sum(row) for row in m] == [sum(g == lab for g, _ in pairs) for lab in labels]


def test_metrics_are_registered_through_the_entry_point():
    names = set(all_metrics())
    assert {"gkb_acc", "gkb_format_error_rate", "gkb_click_bias", "gkb_unknown_pred_rate"} <= names
    assert {f"gkb_{s}_acc" for s in SUBTASKS} <= names
    assert {"gkb_interface_perception_acc", "gkb_interaction_prediction_acc", "gkb_instruction_understanding_acc"} <= names
    assert not [n for n in names if n != "gkb_acc" and "gkb_acc" in n]  # lmms-eval pools group metrics by substring
