"""The metric definition a plugin contributes: a name, a per-sample scorer and an aggregation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence


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
    per_request: bool = False

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"metric name must be a non-empty identifier, got {self.name!r}")
        object.__setattr__(self, "applies_to", frozenset(self.applies_to))
