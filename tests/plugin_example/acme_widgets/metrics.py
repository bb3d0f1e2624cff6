"""Metric plugin: ``acme_color_acc``, the share of answers that name the button's colour."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import pluggy

from gui_metrics import MetricSpec

hookimpl = pluggy.HookimplMarker("gui_metrics")


def accuracy(records: Sequence[Mapping[str, Any]]) -> float:
    """Correct answers over all answers (every record counts; an unparsable answer is wrong)."""
    return sum(bool(r["correct"]) for r in records) / len(records) if records else float("nan")


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    return [MetricSpec("acme_color_acc", accuracy, True, frozenset({"acme_color"}),
                       "share of answers naming the colour of the button")]
