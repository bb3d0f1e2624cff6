"""MPR-GUI-Bench metrics: per-dimension accuracy, FPR-ACC and format-error rate.

Per-sample records (kinds ``"mcq"`` and ``"mpr"``) carry ``dimension``, ``correct`` (bool) and
``status`` (``"parsed"`` | ``"malformed"`` | ``"empty"``), as produced by the task's
``process_results``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.letter_bias import letter_bias_specs
from gui_metrics.spec import MetricSpec

# Seed section 3.2: four perception and four reasoning dimensions, in the column order of Table 2.
DIMENSIONS: tuple[str, ...] = ("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI")
# Seed appendix A.7: w = 1 for the six single-image dimensions, 1.5 for RI, 2 for SI.
FPR_WEIGHTS: Mapping[str, float] = {"AU": 1.0, "AP": 1.0, "WF": 1.0, "WI": 1.0, "AEL": 1.0, "REL": 1.0, "RI": 1.5, "SI": 2.0}


def fpr_acc(per_dimension: Mapping[str, float], *, allow_missing: bool = False) -> float:
    """FPR-ACC = sum(w_i * acc_i) / sum(w_i) (seed section 3.4, appendix A.7).

    With ``allow_missing`` the sum runs over the dimensions present (weights
    renormalised), which is what a ``--limit`` run can report; otherwise all eight are
    required. NaN accuracies count as missing.
    """
    present = {d: a for d, a in per_dimension.items() if a is not None and not math.isnan(a)}
    unknown = set(present) - set(FPR_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown MPR dimension(s): {sorted(unknown)}")
    missing = [d for d in DIMENSIONS if d not in present]
    if missing and not allow_missing:
        raise ValueError(f"FPR-ACC needs all eight dimensions; missing {missing}")
    if not present:
        return math.nan
    total_w = sum(FPR_WEIGHTS[d] for d in present)
    return sum(FPR_WEIGHTS[d] * a for d, a in present.items()) / total_w


def accuracy(records: Sequence[Mapping[str, Any]]) -> float:
    """Fraction of records answered correctly; NaN for no records."""
    return sum(bool(r["correct"]) for r in records) / len(records) if records else math.nan


def per_dimension_accuracy(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Accuracy of each dimension that has records."""
    groups: dict[str, list] = {}
    for r in records:
        groups.setdefault(r["dimension"], []).append(r)
    return {d: accuracy(rs) for d, rs in groups.items()}


def format_error_rate(records: Sequence[Mapping[str, Any]]) -> float:
    """Fraction of responses from which no option letter could be extracted."""
    return sum(r["status"] != "parsed" for r in records) / len(records) if records else math.nan


def _dimension_accuracy(dim: str):
    def agg(records: Sequence[Mapping[str, Any]]) -> float:
        return accuracy([r for r in records if r["dimension"] == dim])

    return agg


def _fpr(records: Sequence[Mapping[str, Any]]) -> float:
    return fpr_acc(per_dimension_accuracy(records), allow_missing=True)


_MCQ = frozenset({"mcq"})
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")  # four options (seed section 3.4)
LETTER_PREFIX = "mcq"  # letter-bias metric names: mcq_letter_tv, mcq_pred_share_a, ... (gui_metrics.letter_bias)
_MPR = frozenset({"mpr"})


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    specs = [
        MetricSpec("mcq_acc", accuracy, True, _MCQ, "Exact-match accuracy on the option letter over all samples (seed 3.4)."),
        MetricSpec(
            "fpr_acc",
            _fpr,
            True,
            _MPR,
            "FPR-ACC: dimension accuracies weighted 1 x6, 1.5 (RI), 2 (SI) (seed appendix A.7).",
            params={"weights": dict(FPR_WEIGHTS), "missing_dimensions": "renormalise over present"},
            composite=True,  # a weighted mean of dimension accuracies, not a mean over questions
        ),
        MetricSpec("format_error_rate", format_error_rate, False, _MCQ, "Share of responses with no extractable option letter."),
    ]
    specs += [
        MetricSpec(f"mpr_acc_{d.lower()}", _dimension_accuracy(d), True, _MPR, f"Accuracy on MPR-GUI dimension {d}.")
        for d in DIMENSIONS
    ]
    return specs + letter_bias_specs(LETTER_PREFIX, _MCQ, LETTERS)
