"""StaR state-control metrics (appendix A.1, Equations 5-12) as metric plugins.

Per-sample records (kind ``"star"``) carry ``polarity`` (``"positive"``: the state must
change, the answer is CLICK on the toggle; ``"negative"``: it already matches, the answer
is COMPLETE), ``pred_type`` (None for an unparseable output), ``type_match``, ``exact``
(action match, appendix A.2) and ``hits_toggle`` (the predicted CLICK matches the record's
positive action, i.e. the inverse toggle action a^f).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]


def _rate(records: Sequence[Record], hit) -> float:
    return sum(bool(hit(r)) for r in records) / len(records) if records else math.nan


def _pos(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r["polarity"] == "positive"]


def _neg(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r["polarity"] == "negative"]


# name -> (aggregate over records, higher is better, equation)
STAR_METRICS: dict[str, tuple[Any, bool, str]] = {
    "star_o_tmr": (lambda rs: _rate(rs, lambda r: r["type_match"]), True, "Eq. 5: type match over all samples"),
    "star_o_amr": (lambda rs: _rate(rs, lambda r: r["exact"]), True, "Eq. 6: action match over all samples"),
    "star_p_tmr": (lambda rs: _rate(_pos(rs), lambda r: r["type_match"]), True, "Eq. 7: type match on positives"),
    "star_p_amr": (lambda rs: _rate(_pos(rs), lambda r: r["exact"]), True, "Eq. 8: action match on positives"),
    "star_p_fnr": (lambda rs: _rate(_pos(rs), lambda r: r["pred_type"] == "COMPLETE"), False, "Eq. 9: positives predicted COMPLETE"),
    "star_n_amr": (lambda rs: _rate(_neg(rs), lambda r: r["exact"]), True, "Eq. 10: action match on negatives"),
    "star_n_fptr": (lambda rs: _rate(_neg(rs), lambda r: r["pred_type"] == "CLICK"), False, "Eq. 11: negatives predicted CLICK"),
    "star_n_fpr": (lambda rs: _rate(_neg(rs), lambda r: r["pred_type"] == "CLICK" and r["hits_toggle"]), False,
                   "Eq. 12: negatives whose CLICK hits the toggle (equals the positive action)"),
    # not in the paper: how often the output was not an action at all (counted in every rate above as a miss)
    "star_format_error_rate": (lambda rs: _rate(rs, lambda r: r.get("status", "parsed") != "parsed"), False,
                               "outputs that are not an action of the agent's format (malformed or empty)"),
}


def star_rates(records: Sequence[Record]) -> dict[str, float]:
    """The eight rates of appendix A.1 and the format-error rate (fractions; NaN where a polarity has no samples)."""
    return {name: agg(records) for name, (agg, _, _) in STAR_METRICS.items()}


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    return [MetricSpec(name, agg, hib, frozenset({"star"}), f"StaR appendix A.1 {doc}")
            for name, (agg, hib, doc) in STAR_METRICS.items()]
