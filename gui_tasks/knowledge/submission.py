"""GUI Knowledge Bench's submission rule (its record's ``submission.completeness``): ranked per set of sub-tasks, so
every task set (``<set>_<sub-task>``) under one protocol needs all its sub-tasks (docs/submissions.md)."""

from __future__ import annotations

from typing import Any, Sequence

from gui_core.benchmark import task_stem
from gui_metrics.knowledge import KNOWLEDGE_TYPES, SUBTASKS


def completeness_gaps(entries: Sequence[dict[str, Any]]) -> list[str]:
    """What the per-sub-task GUI Knowledge Bench tasks of a submission lack, each saying which tasks to add."""
    sets: dict[tuple[str, str, str], set[str]] = {}
    for t in entries:
        meta = t.get("metadata") or {}
        if len(meta.get("subtasks") or []) != 1:
            continue  # a task over several sub-tasks is complete on its own
        sub = str(meta["subtasks"][0])
        sets.setdefault((str(meta.get("variant")), t["protocol"], task_stem(t["task"], sub)), set()).add(sub)
    gaps = []
    for (variant, protocol, stem), subs in sorted(sets.items()):
        wanted = KNOWLEDGE_TYPES["interface_perception"] if variant in ("plain", "official_tip") else SUBTASKS
        missing = [sub for sub in wanted if sub not in subs]
        if missing:
            gaps.append(f"GUI Knowledge Bench {stem}_* under protocol {protocol}: sub-task(s) {missing} missing; a "
                        f"submission needs all {len(wanted)}: add --tasks {','.join(f'{stem}_{sub}' for sub in missing)}")
    return gaps
