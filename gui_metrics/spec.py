"""The metric definition a plugin contributes: a name, a per-sample scorer and an aggregation."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from gui_metrics.circular import per_question


def _identity(record: Mapping[str, Any]) -> Any:
    return record


@dataclass(frozen=True)
class MetricSpec:
    """One metric, usable by name in lmms-eval YAML and by the report tools.

    ``applies_to`` names the kinds of per-sample record the metric understands (a task
    family such as ``"mcq"``); a task emits a record of its kind for every metric that
    applies to it. ``score`` maps a record to the per-sample value lmms-eval stores;
    ``aggregate`` turns the list of those values into the reported number. On a circular task
    (``gui_metrics.circular``) the records of one question's rotations reach ``aggregate`` collapsed into one,
    unless ``per_request`` (the metric reads every request, e.g. the letter shares of ``gui_metrics.letter_bias``).
    """

    name: str
    aggregate: Callable[[Sequence[Any]], float]
    higher_is_better: bool
    applies_to: frozenset[str]
    description: str
    score: Callable[[Mapping[str, Any]], Any] = _identity
    params: Mapping[str, Any] = field(default_factory=dict)
    composite: bool = False
    """True when the metric is not the mean of one value per sample (FPR-ACC's weighted dimensions, a ratio pooled
    over runs, a per-task or per-episode rate): lmms-eval then gets no per-sample ``score`` for it (its CLT columns
    stay N/A) and its interval comes from the cluster bootstrap alone (docs/statistics.md)."""
    per_sample: Callable[[Mapping[str, Any]], Any] | None = None
    """The sample's own value, whose mean over the samples where it is not None is the metric; default
    ``aggregate([record])`` (NaN -> None: the sample is outside the metric's population). Ignored when composite."""
    per_request: bool = False
    """Reads every request of a circular task (letter shares), not one collapsed record per question."""

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"metric name must be a non-empty identifier, got {self.name!r}")
        object.__setattr__(self, "applies_to", frozenset(self.applies_to))

    def aggregate_items(self, items: Sequence[Any]) -> float:
        """The metric over lmms-eval's per-sample values: on a circular task the rotations of each question are first
        collapsed into one record (``gui_metrics.circular.per_question``), unless ``per_request``."""
        return self.aggregate(list(items) if self.per_request else per_question(items))

    def sample_score(self, record: Mapping[str, Any]) -> float | None:
        """The per-sample value lmms-eval reads as ``score`` (see ``per_sample``); None when there is none. A request
        of a circular task has none for a per-question metric: its score is the question's, over all rotations."""
        if self.composite or (not self.per_request and record.get("circular_id") is not None):
            return None
        try:
            value = self.per_sample(record) if self.per_sample is not None else self.aggregate([self.score(record)])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):  # a record this metric cannot read: no score
            return None
        if value is None or isinstance(value, str):
            return None
        value = float(value)
        return value if math.isfinite(value) else None
