"""The canonical MPR-GUI document (docs/CONVENTIONS.md): languages, dimensions, FPR-ACC weights, validation.

One place for these constants, so loaders, the synthetic world and the metrics agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

# The dimensions (seed section 3.2) and FPR-ACC weights (appendix A.7) live with the metric
# that uses them: gui_metrics may not import gui_tasks, so the dependency points this way.
from gui_core.languages import LANGS
from gui_metrics.mpr import DIMENSIONS, FPR_WEIGHTS
from gui_core.errors import DataError

WEIGHTS: Mapping[str, float] = FPR_WEIGHTS
LETTERS = "ABCD"
SOURCES: tuple[str, ...] = ("synthetic", "official")

__all__ = ["DIMENSIONS", "FPR_WEIGHTS", "LANGS", "LETTERS", "SOURCES", "WEIGHTS", "MPRDoc", "validate_row"]


@dataclass(frozen=True)
class MPRDoc:
    """One canonical MPR question in one language; ``to_row()`` gives the JSON-ready row of CONVENTIONS.md."""

    id: str
    lang: str
    dimension: str
    question: str
    options: tuple[str, ...]
    answer: str
    images: tuple[str, ...]
    source: str = "synthetic"
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        """The row with list-valued options/images and ``meta`` JSON-encoded (sorted keys: stable bytes)."""
        return {"id": self.id, "lang": self.lang, "dimension": self.dimension, "question": self.question,
                "options": list(self.options), "answer": self.answer, "images": list(self.images),
                "source": self.source, "meta": json.dumps(dict(self.meta), ensure_ascii=False, sort_keys=True)}


def validate_row(row: Mapping[str, Any], *, file: str, row_index: int) -> None:
    """Raise DataError naming file, row and field unless ``row`` is a canonical MPR document."""

    def bad(name: str, why: str) -> DataError:
        return DataError(why, file=file, row=row_index, field=name)

    if not isinstance(row, Mapping):
        raise bad("<row>", f"must be a JSON object, got {type(row).__name__}")
    for key in ("id", "question"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise bad(key, "must be a non-empty string")
    if row.get("lang") not in LANGS:
        raise bad("lang", f"must be one of {LANGS}, got {row.get('lang')!r}")
    if row.get("dimension") not in DIMENSIONS:
        raise bad("dimension", f"must be one of {DIMENSIONS}, got {row.get('dimension')!r}")
    options = row.get("options")
    if not isinstance(options, list) or len(options) != 4 or not all(isinstance(o, str) and o.strip() for o in options):
        raise bad("options", "must be a list of four non-empty strings")
    if row.get("answer") not in tuple(LETTERS):
        raise bad("answer", f"must be one of A-D, got {row.get('answer')!r}")
    images = row.get("images")
    if not isinstance(images, list) or not images or not all(isinstance(p, str) and p for p in images):
        raise bad("images", "must be a non-empty list of paths")
    if row.get("source") not in SOURCES:
        raise bad("source", f"must be one of {SOURCES}, got {row.get('source')!r}")
    meta = row.get("meta", "{}")
    try:
        decoded = json.loads(meta)
    except (TypeError, json.JSONDecodeError):
        raise bad("meta", "must be a JSON-encoded object") from None
    if not isinstance(decoded, dict):
        raise bad("meta", f"must encode a JSON object, got {type(decoded).__name__}")
