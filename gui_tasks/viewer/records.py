"""What one logged sample says: its per-sample record, its outcome and its facets (language, group).

The record is the dict our tasks' ``process_results`` returned (lmms-eval logs it under every metric
name of the task, see ``gui_metrics.lmms_bridge.sample_values``); the viewer reads it as logged, because
re-scoring the logged text would lose what only the live response carried (digit captures,
``extras["model_image_sizes"]``, crop windows).
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_tasks.grounding.report import BENCHMARKS as REPORT_BENCHMARKS
from gui_tasks.runs.results_io import LOG_KEYS  # noqa: F401 (lmms-eval's own keys of a samples line; re-exported)

OUTCOMES = ("correct", "wrong", "format_error", "unscored")
# the grounding benchmarks whose samples get the box / point overlays: those the grounding report reads
GROUNDING = frozenset(REPORT_BENCHMARKS)


def sample_record(sample: Mapping[str, Any]) -> dict[str, Any]:
    """The per-sample record of a logged sample (the first metric value that is a dict), else {}."""
    for key, value in sample.items():
        if key not in LOG_KEYS and isinstance(value, dict):
            return value
    return {}


def responses(sample: Mapping[str, Any], *, multi_round: bool = False) -> list[str]:
    """The model's output(s) as logged, as text; ``multi_round``: one per round, read as the task reads them
    (``gui_tasks.harness.lmms_layout.rounds_of``: a list, or lmms-eval's ``str(tuple)`` of the rounds)."""
    value = sample.get("filtered_resps", sample.get("resps"))
    if multi_round:
        from gui_tasks.harness.lmms_layout import rounds_of

        return rounds_of(value if isinstance(value, list) else [value])
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    if isinstance(value, list):
        return ["" if v is None else str(v) for v in value]
    return ["" if value is None else str(value)]


def outcome(benchmark: str, record: Mapping[str, Any]) -> tuple[str, str]:
    """``(outcome, kind)``: outcome in OUTCOMES; kind a finer label (Algorithm-1 response type, polarity...)."""
    if not record:
        return "unscored", ""
    if benchmark == "sphinx_sim" or "satisfied" in record and "n_actions" in record:
        if record.get("not_run"):  # a device episode that could not run (device dropped, app missing)
            return "unscored", f"not run: {record['not_run']}"
        sat = list(record.get("satisfied") or [])
        ok = bool(sat) and all(sat)
        if not ok and record.get("format_errors"):
            return "format_error", "format error"
        return ("correct" if ok else "wrong"), f"{sum(map(bool, sat))}/{len(sat)} evaluators"
    steps = record.get("steps")
    if isinstance(steps, list) and steps and all(isinstance(x, Mapping) for x in steps):  # an episode (StaR own history)
        exact = sum(bool(x.get("exact")) for x in steps)
        errors = sum(x.get("status", "parsed") != "parsed" for x in steps)
        kind = f"{exact}/{len(steps)} steps exact" + (f", {errors} format errors" if errors else "")
        return ("correct" if exact == len(steps) else "wrong"), kind
    status = record.get("status")
    kind = ""
    if benchmark in GROUNDING:
        kind = str(record.get("response_type") or "")  # PSS paper Algorithm 1
    elif benchmark == "star_state_control":
        kind = str(record.get("polarity") or "")
    if status is not None and status != "parsed":
        return "format_error", kind or str(status)
    for key in ("correct", "exact", "success"):
        if key in record:
            return ("correct" if record[key] else "wrong"), kind
    return "unscored", kind


def facets(benchmark: str, doc: Mapping[str, Any] | None, record: Mapping[str, Any], meta: Mapping[str, Any]) -> tuple[str, str]:
    """``(language, group)``: group is the MPR dimension, GUI-KB sub-task, grounding split, StaR polarity or SPHINX subset."""
    doc = doc or {}
    lang = str(record.get("lang") or doc.get("lang") or meta.get("lang") or "")
    for key in ("dimension", "subtask", "split", "polarity"):
        value = record.get(key) or doc.get(key)
        if value:
            return lang, str(value)
    if benchmark in ("sphinx_sim",):
        return lang, str(doc.get("id", "")).partition("/")[0]
    return lang, str(meta.get("kind") or meta.get("subset") or "")
