"""The canonical MPR-GUI document (docs/CONVENTIONS.md) and its validation."""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_metrics.mpr import DIMENSIONS, FPR_WEIGHTS  # one place for the paper's dimensions and weights
from gui_tasks.errors import DataError

# Seed section 3.1: six strictly aligned languages.
LANGS: tuple[str, ...] = ("en", "zh", "fr", "ru", "ja", "th")
LETTERS = "ABCD"
SOURCES = ("synthetic", "official")

__all__ = ["DIMENSIONS", "FPR_WEIGHTS", "LANGS", "LETTERS", "SOURCES", "validate_row"]


def validate_row(row: Mapping[str, Any], *, file: str, row_index: int) -> None:
    """Raise DataError naming file, row and field unless ``row`` is a canonical MPR document."""

    def bad(field: str, why: str) -> DataError:
        return DataError(why, file=file, row=row_index, field=field)

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
        raise bad("source", f"must be one of {SOURCES}")
    meta = row.get("meta", "{}")
    try:
        json.loads(meta)
    except (TypeError, json.JSONDecodeError):
        raise bad("meta", "must be a JSON-encoded object") from None
