"""Step-wise action metrics for agentic benchmarks (StaR appendix A.2-A.3) as metric plugins.

Per-step records (kind ``"step"``) carry ``category`` (the gold action's Table 4 column:
CLICK, COMPLETE, SCROLL, TYPE, OPENAPP, PRESS, Others), ``type_match``, ``exact`` (the A.2
action match under the rule in ``rule``) and ``status`` of the parse. Overall rates and one
rate per category; a category with no steps aggregates to NaN (absent, not zero).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]
# gui_tasks.star.agentic.CATEGORIES (gui_metrics may not import gui_tasks; a test keeps them equal)
CATEGORIES = ("CLICK", "COMPLETE", "SCROLL", "TYPE", "OPENAPP", "PRESS", "Others")


def _rate(records: Sequence[Record], hit) -> float:
    return sum(bool(hit(r)) for r in records) / len(records) if records else math.nan


def _in(cat: str):
    return lambda rs: [r for r in rs if r["category"] == cat]


def _metrics() -> dict[str, tuple[Any, bool, str]]:
    out: dict[str, tuple[Any, bool, str]] = {
        "step_type_acc": (lambda rs: _rate(rs, lambda r: r["type_match"]), True, "type match rate over steps (TMR)"),
        "step_action_acc": (lambda rs: _rate(rs, lambda r: r["exact"]), True, "exact action match over steps (AMR, A.2)"),
        "step_format_error_rate": (lambda rs: _rate(rs, lambda r: r.get("status", "parsed") != "parsed"), False,
                                   "outputs that are not an action of the agent's format"),
    }
    for cat in CATEGORIES:
        sel = _in(cat)
        out[f"step_action_acc_{cat.lower()}"] = (lambda rs, sel=sel: _rate(sel(rs), lambda r: r["exact"]), True,
                                                 f"exact action match on {cat} steps (Table 4 column)")
        out[f"step_type_acc_{cat.lower()}"] = (lambda rs, sel=sel: _rate(sel(rs), lambda r: r["type_match"]), True,
                                               f"type match on {cat} steps (Table 4 column)")
    return out


STEP_METRICS = _metrics()


def step_rates(records: Sequence[Record]) -> dict[str, float]:
    return {name: agg(records) for name, (agg, _, _) in STEP_METRICS.items()}


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    return [MetricSpec(name, agg, hib, frozenset({"step"}), f"StaR appendix A.2-A.3 {doc}") for name, (agg, hib, doc) in STEP_METRICS.items()]
