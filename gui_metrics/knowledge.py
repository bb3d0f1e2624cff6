"""GUI Knowledge Bench metrics: accuracy per sub-task and knowledge type (seed Table 2), format errors,
yes/no/unknown calibration, and the action-type confusion matrix (seed appendix A.5).

Per-sample records (kind ``"gkb"``) carry ``subtask`` (one of ``SUBTASKS``), ``knowledge_type``,
``question_type`` (``"multiple_choice"`` | ``"yes_or_no"``), ``platform`` (``"desktop"`` | ``"mobile"``),
``answer`` and ``pred`` (a letter or yes/no/unknown; ``pred`` None unless parsed), ``status``
(``"parsed"`` | ``"malformed"`` | ``"empty"``), ``correct`` (bool), and for action-type questions
``gold_action`` / ``pred_action`` (action call names such as ``"left_double"``; ``pred_action`` None
when no option was parsed).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.letter_bias import letter_bias_specs
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]

# Seed section 3 and Table 2: three knowledge types, eight sub-tasks, in the column order of Table 2.
KNOWLEDGE_TYPES: dict[str, tuple[str, ...]] = {
    "interface_perception": ("state", "widget", "layout"),
    "interaction_prediction": ("effect", "type", "parameter"),
    "instruction_understanding": ("goal", "plan"),
}
SUBTASKS: tuple[str, ...] = tuple(s for subs in KNOWLEDGE_TYPES.values() for s in subs)
SUBTASK_TYPE: dict[str, str] = {s: k for k, subs in KNOWLEDGE_TYPES.items() for s in subs}
YES_NO: tuple[str, ...] = ("yes", "no", "unknown")
UNPARSED = "(no answer)"  # the confusion-matrix column of responses with no parsed option
# How a knowledge-type accuracy pools its sub-tasks: every question counts once ("micro"),
# or every sub-task counts once ("macro"). The paper reports sub-tasks only (Table 2).
TYPE_POOLING = "micro"
# Answer labels of the letter-bias report (gui_metrics.letter_bias): up to seven option letters (seed section 3.4),
# and the yes/no/unknown answers; metric names gkb_pred_share_a, gkb_gold_share_unknown, ...
LETTERS: tuple[str, ...] = tuple("ABCDEFG")
LETTER_PREFIX = "gkb"


def accuracy(records: Sequence[Record]) -> float:
    """Fraction answered correctly; NaN for no records."""
    return sum(bool(r["correct"]) for r in records) / len(records) if records else math.nan


def format_error_rate(records: Sequence[Record]) -> float:
    """Fraction of responses from which no answer could be read."""
    return sum(r["status"] != "parsed" for r in records) / len(records) if records else math.nan


def subtask_accuracy(records: Sequence[Record]) -> dict[str, float]:
    """Accuracy of each sub-task that has records, in Table 2 order."""
    return {s: accuracy(rs) for s in SUBTASKS if (rs := [r for r in records if r["subtask"] == s])}


def knowledge_type_accuracy(records: Sequence[Record], pooling: str = TYPE_POOLING) -> dict[str, float]:
    """Accuracy of each knowledge type that has records: pooled questions ("micro") or mean of sub-tasks ("macro")."""
    if pooling not in ("micro", "macro"):
        raise ValueError(f"pooling must be 'micro' or 'macro', got {pooling!r}")
    out = {}
    per_sub = subtask_accuracy(records)
    for kind, subs in KNOWLEDGE_TYPES.items():
        rs = [r for r in records if r["subtask"] in subs]
        if not rs:
            continue
        present = [per_sub[s] for s in subs if s in per_sub]
        out[kind] = accuracy(rs) if pooling == "micro" else sum(present) / len(present)
    return out


def unknown_calibration(records: Sequence[Record]) -> dict[str, float]:
    """How "unknown" is used on yes/no/unknown questions: chosen vs. correct rates, precision and recall.

    ``pred_rate``: share of yes/no questions answered "unknown" (unparsed answers count in the
    denominator); ``gold_rate``: share whose answer is "unknown"; ``precision``: of the "unknown"
    answers, the share that were right; ``recall``: of the "unknown" questions, the share answered so.
    """
    yn = [r for r in records if r["question_type"] == "yes_or_no"]
    said = [r for r in yn if r["pred"] == "unknown"]
    gold = [r for r in yn if r["answer"] == "unknown"]
    nan = math.nan
    return {
        "pred_rate": len(said) / len(yn) if yn else nan,
        "gold_rate": len(gold) / len(yn) if yn else nan,
        "precision": sum(r["answer"] == "unknown" for r in said) / len(said) if said else nan,
        "recall": sum(r["pred"] == "unknown" for r in gold) / len(gold) if gold else nan,
    }


def confusion_matrix(records: Sequence[Record], labels: Sequence[str], platform: str | None = None
                     ) -> tuple[list[str], list[str], list[list[int]]]:
    """Counts of (gold action type, predicted action type) over action-type questions (seed appendix A.5).

    Rows are ``labels`` (gold), columns ``labels`` plus ``UNPARSED``. Records of another platform
    (when ``platform`` is given) and without ``gold_action`` are skipped; a gold or predicted name
    outside ``labels`` is an error, so a mislabelled run is not silently dropped.
    """
    labels = list(labels)
    cols = labels + [UNPARSED]
    matrix = [[0] * len(cols) for _ in labels]
    for r in records:
        if r.get("subtask") != "type" or not r.get("gold_action") or (platform and r.get("platform") != platform):
            continue
        gold, pred = r["gold_action"], r.get("pred_action") or UNPARSED
        if gold not in labels or pred not in cols:
            raise ValueError(f"action type {gold if gold not in labels else pred!r} is not one of {labels}")
        matrix[labels.index(gold)][cols.index(pred)] += 1
    return labels, cols, matrix


def click_bias(records: Sequence[Record]) -> float:
    """Share of action-type questions whose answer is not click but were answered click (seed appendix A.5)."""
    rs = [r for r in records if r.get("subtask") == "type" and r.get("gold_action") and r["gold_action"] != "click"]
    return sum(r.get("pred_action") == "click" for r in rs) / len(rs) if rs else math.nan


def _subtask_acc(sub: str):
    def agg(records: Sequence[Record]) -> float:
        return accuracy([r for r in records if r["subtask"] == sub])

    return agg


def _type_acc(kind: str):
    def agg(records: Sequence[Record]) -> float:
        return knowledge_type_accuracy(records).get(kind, math.nan)

    return agg


def _calibration(key: str):
    def agg(records: Sequence[Record]) -> float:
        return unknown_calibration(records)[key]

    return agg


_GKB = frozenset({"gkb"})


# Names: ``gkb_<subtask>_acc`` and ``gkb_<knowledge type>_acc``, never ``gkb_acc_<x>``: lmms-eval picks a group's
# metrics by substring (``"gkb_acc" in name``), so a name holding another metric's name would be pooled with it.
@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    specs = [
        MetricSpec("gkb_acc", accuracy, True, _GKB, "GUI Knowledge Bench accuracy over all questions (seed Table 2)."),
        MetricSpec("gkb_format_error_rate", format_error_rate, False, _GKB,
                   "Share of responses with no readable answer (JSON, letter or yes/no/unknown)."),
        MetricSpec("gkb_click_bias", click_bias, False, _GKB,
                   "Action type: share of non-click questions answered click (seed appendix A.5)."),
    ]
    specs += [MetricSpec(f"gkb_{s}_acc", _subtask_acc(s), True, _GKB, f"Accuracy on sub-task {s} (seed Table 2).")
              for s in SUBTASKS]
    specs += [MetricSpec(f"gkb_{k}_acc", _type_acc(k), True, _GKB, f"Accuracy on knowledge type {k}.",
                         params={"pooling": TYPE_POOLING}, composite=TYPE_POOLING == "macro") for k in KNOWLEDGE_TYPES]
    specs += [MetricSpec(f"gkb_unknown_{k}", _calibration(k), hib, _GKB, f"Yes/no/unknown calibration: {k} of 'unknown'.")
              for k, hib in (("pred_rate", False), ("gold_rate", False), ("precision", True), ("recall", True))]
    return specs + letter_bias_specs(LETTER_PREFIX, _GKB, LETTERS + YES_NO)
