"""MPR-GUI's submission rule (its record's ``submission.completeness``): ranked per language set, so every
(source, protocol) family of whole-language tasks needs all six languages (docs/submissions.md)."""

from __future__ import annotations

from typing import Any, Sequence

from gui_core.benchmark import task_stem
from gui_core.languages import LANGS


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
