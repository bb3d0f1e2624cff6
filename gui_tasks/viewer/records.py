"""What one logged sample says: its per-sample record, its outcome and its facets (language, group).

The record is the dict our tasks' ``process_results`` returned (lmms-eval logs it under every metric
name of the task, see ``gui_metrics.lmms_bridge.sample_values``); the viewer reads it as logged, because
re-scoring the logged text would lose what only the live response carried (digit captures,
``extras["model_image_sizes"]``, crop windows). How a benchmark reads its own records (an outcome of its own, the
finer kind, the group, rounds) its viewing module says (hook ``gui_viewer_sample_facts``, ``gui_core.viewing``);
the rest is read the same way for every benchmark.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.viewing import OUTCOMES, SampleFacts  # noqa: F401 (OUTCOMES re-exported)
from gui_tasks.runs.results_io import LOG_KEYS  # noqa: F401 (lmms-eval's own keys of a samples line; re-exported)


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


def sample_facts(benchmark: str, record: Mapping[str, Any], doc: Mapping[str, Any] | None = None,
                 metadata: Mapping[str, Any] | None = None, plugins: Any = None) -> SampleFacts:
    """How the sample's benchmark reads it (``gui_viewer_sample_facts`` of its viewing module, then of the viewer
    plugins; ``plugins``: a ``gui_tasks.viewer.plugins.ViewerPlugins``, by default the benchmarks' own)."""
    from gui_tasks.viewer.plugins import builtin

    plugins = plugins or builtin()
    meta = dict(metadata or {})
    meta.setdefault("benchmark", benchmark)
    return plugins.sample_facts(plugins.viewing_of(meta), benchmark, record, doc, meta, f"benchmark {benchmark!r}")


def outcome(benchmark: str, record: Mapping[str, Any], facts: SampleFacts | None = None) -> tuple[str, str]:
    """``(outcome, kind)``: outcome in OUTCOMES; kind a finer label (Algorithm-1 response type, polarity...)."""
    if not record:
        return "unscored", ""
    facts = facts if facts is not None else sample_facts(benchmark, record)
    if facts.outcome is not None:
        return facts.outcome, facts.kind or ""
    steps = record.get("steps")
    if isinstance(steps, list) and steps and all(isinstance(x, Mapping) for x in steps):  # an episode (StaR own history)
        exact = sum(bool(x.get("exact")) for x in steps)
        errors = sum(x.get("status", "parsed") != "parsed" for x in steps)
        kind = f"{exact}/{len(steps)} steps exact" + (f", {errors} format errors" if errors else "")
        return ("correct" if exact == len(steps) else "wrong"), kind
    status = record.get("status")
    kind = facts.kind or ""
    if status is not None and status != "parsed":
        return "format_error", kind or str(status)
    for key in ("correct", "exact", "success"):
        if key in record:
            return ("correct" if record[key] else "wrong"), kind
    return "unscored", kind


def facets(doc: Mapping[str, Any] | None, record: Mapping[str, Any], meta: Mapping[str, Any],
           facts: SampleFacts = SampleFacts()) -> tuple[str, str]:
    """``(language, group)``: group is the MPR dimension, GUI-KB sub-task, grounding split, StaR polarity, the group
    the benchmark names (``facts.group``: SPHINX's app) or the task's kind or subset."""
    doc = doc or {}
    lang = str(record.get("lang") or doc.get("lang") or meta.get("lang") or "")
    for key in ("dimension", "subtask", "split", "polarity"):
        value = record.get(key) or doc.get(key)
        if value:
            return lang, str(value)
    if facts.group is not None:
        return lang, facts.group
    return lang, str(meta.get("kind") or meta.get("subset") or "")
