"""The canonical grounding document (one instruction, one screenshot, one target box) and its validation.

    id           str   stable id ("icon-synth-0003", "screenspot_v2-mobile-0012")
    source       str   the ``metadata.source`` of a grounding benchmark record (``gui_tasks.grounding.benchmark.sources()``:
                       "synthetic", "screenspot", "screenspot_v2", "screenspot_pro", "uivision", ...)
    instruction  str   what to locate
    image        str   absolute path of the screenshot
    width,height int   original image size in pixels
    target_box   [x1, y1, x2, y2] in original pixels
    other_boxes  list of boxes (original pixels) of every other known element, or None when
                 only the target is known (ScreenSpot: misleading and confusion merge into "other")
    split        str   "mobile_icon", "desktop_text", ... ; "common" | "uncommon" on icon boards
    meta         str   JSON-encoded dict with anything else
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.errors import DataError

FIELDS = ("id", "source", "instruction", "image", "width", "height", "target_box", "other_boxes", "split", "meta")


def _box(value: Any, *, file: str, row: int, field: str, width: int, height: int) -> list[float]:
    if not (isinstance(value, (list, tuple)) and len(value) == 4 and all(isinstance(v, (int, float)) for v in value)):
        raise DataError(f"expected [x1, y1, x2, y2], got {value!r}", file=file, row=row, field=field)
    x1, y1, x2, y2 = (float(v) for v in value)
    if not (0 <= x1 <= x2 <= width and 0 <= y1 <= y2 <= height):  # zero width / height: a line the scorers can hit
        raise DataError(f"box {value!r} is reversed or outside the {width}x{height} image", file=file, row=row, field=field)
    return [x1, y1, x2, y2]


def validate_doc(doc: Mapping[str, Any], *, file: str, row: int) -> dict[str, Any]:
    """A checked copy of one canonical document (DataError names file, row and field)."""
    missing = [f for f in FIELDS if f not in doc]
    if missing:
        raise DataError(f"missing fields {missing}", file=file, row=row, field=missing[0])
    w, h = doc["width"], doc["height"]
    if not (isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0):
        raise DataError(f"image size must be positive integers, got {w}x{h}", file=file, row=row, field="width")
    meta = doc.get("meta")
    kept = isinstance(meta, str) and '"target_relative"' in meta  # scored as the official scorer does (an empty prompt too)
    if not isinstance(doc["instruction"], str) or (not kept and not doc["instruction"].strip()):
        raise DataError("empty instruction", file=file, row=row, field="instruction")
    out = dict(doc)
    out["target_box"] = _box(doc["target_box"], file=file, row=row, field="target_box", width=w, height=h)
    if doc["other_boxes"] is not None:
        if not isinstance(doc["other_boxes"], (list, tuple)):
            raise DataError("other_boxes must be a list of boxes or null", file=file, row=row, field="other_boxes")
        out["other_boxes"] = [_box(b, file=file, row=row, field=f"other_boxes[{i}]", width=w, height=h)
                              for i, b in enumerate(doc["other_boxes"])]
    return out
