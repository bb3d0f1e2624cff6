"""MPR-GUI's submission rule (its record's ``submission.completeness``): ranked per language set, so every
(source, protocol) family of whole-language tasks needs all six languages (docs/submissions.md)."""

from __future__ import annotations

from typing import Any, Sequence

from gui_core.benchmark import task_stem
from gui_core.languages import LANGS
from gui_metrics.mpr import DIMENSIONS

# What every MPR-GUI task must report (gui_metrics.mpr), whatever its metric_list says.
REQUIRED_METRICS = ("mcq_acc", "fpr_acc", "format_error_rate", *(f"mpr_acc_{d.lower()}" for d in DIMENSIONS))


def completeness_gaps(entries: Sequence[dict[str, Any]]) -> list[str]:
    """What the MPR-GUI tasks of a submission lack, each saying which tasks to add."""
    sets: dict[tuple[str, str, str], set[str]] = {}
    for t in entries:
        meta = t.get("metadata") or {}
        lang = str(meta.get("lang"))
        sets.setdefault((str(meta.get("source")), t["protocol"], task_stem(t["task"], lang)), set()).add(lang)
    gaps = []
    for (source, protocol, stem), langs in sorted(sets.items()):
        missing = [lang for lang in LANGS if lang not in langs]
        if missing:
            gaps.append(f"MPR-GUI {source} tasks under protocol {protocol}: language(s) {missing} missing; a submission "
                        f"needs all six: add --tasks {','.join(f'{stem}_{lang}' for lang in missing)} (or run the group {stem})")
    return gaps


def task_problem(meta: dict[str, Any], docs: Sequence[Any] | None = None) -> str | None:
    """A per-dimension task is not submitted (the whole-language task is); the data must hold every dimension."""
    dims = meta.get("dimensions")
    if dims and list(dims) != list(DIMENSIONS):
        return "a per-dimension task; submit the whole-language task (all eight dimensions)"
    if docs is not None:
        missing = [d for d in DIMENSIONS if not any(doc.get("dimension") == d for doc in docs)]
        if missing:
            return f"the data have no documents of dimension(s) {missing}; a submission needs all eight"
    return None
