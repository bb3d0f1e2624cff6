"""SPHINX end-to-end metrics (seed section 3.2.1, 3.2.5) as metric plugins.

Trajectory records (kind ``"trajectory"``) carry ``satisfied`` (one bool per evaluator),
``n_actions``, ``repeated`` (actions identical to the previous one) and ``format_errors``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]


def success_rate(records: Sequence[Record]) -> float:
    """SR: fraction of trajectories satisfying all their evaluators."""
    return sum(all(r["satisfied"]) for r in records) / len(records) if records else math.nan


def average_completion(records: Sequence[Record]) -> float:
    """ACP: mean over trajectories of the fraction of evaluators satisfied."""
    if not records:
        return math.nan
    return sum(sum(r["satisfied"]) / len(r["satisfied"]) for r in records) / len(records)


def _ratio(records: Sequence[Record], key: str) -> float:
    n = sum(r.get("n_actions", 0) for r in records)
    return sum(r.get(key, 0) for r in records) / n if n else math.nan


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    kinds = frozenset({"trajectory"})
    return [
        MetricSpec("sphinx_sr", success_rate, True, kinds, "SPHINX 3.2.1 success rate: all evaluators satisfied"),
        MetricSpec("sphinx_acp", average_completion, True, kinds, "SPHINX 3.2.1 average completion proportion"),
        MetricSpec("sphinx_repetition_rate", lambda rs: _ratio(rs, "repeated"), False, kinds,
                   "SPHINX 3.2.5 invariant: actions repeating the previous action"),
        MetricSpec("sphinx_format_error_rate", lambda rs: _ratio(rs, "format_errors"), False, kinds,
                   "SPHINX 3.2.5 invariant: outputs not in the action format"),
    ]
