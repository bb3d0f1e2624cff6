"""Overlay shapes in pixels of the screenshot as scored: targets, predicted points, crop windows, StaR boxes.

Points are taken from the logged records, which already mapped the answer from the frame the model answered
in (``record["frame"]``, ``frame_source``, ``model_size``) back to the screenshot (``gui_tasks.grounding.score``
through ``gui_core.geometry.answer_geometry`` / ``map_back``; StaR through ``gui_core.coords``); here
they only change unit (relative or 0-1000 grid -> original pixels) with ``gui_core.coords.convert``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from gui_core.coords import Geometry, convert, convert_box

SHAPES = ("rect", "point", "arrow", "text")


@dataclass(frozen=True)
class Shape:
    """One overlay element. ``xy``: (x1, y1, x2, y2) for rect/arrow, (x, y) for point/text; original pixels."""

    role: str  # target, other, pred, first_pred, crop_window, toggle_box, gold, action, swipe, typed
    shape: str
    xy: tuple[float, ...]
    label: str = ""


def _finite(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)


def grounding_shapes(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[Shape]:
    """Target (and other known) boxes, the final point, and for crop runs the window and the first-pass point."""
    w, h = int(doc["width"]), int(doc["height"])
    geo = Geometry.identity(w, h)
    out = [Shape("other", "rect", tuple(map(float, b))) for b in (doc.get("other_boxes") or []) if _finite(b)]
    out.append(Shape("target", "rect", tuple(map(float, doc["target_box"])), "target"))
    crop = record.get("crop") or {}
    if crop.get("window") and _finite(crop["window"]):
        out.append(Shape("crop_window", "rect", tuple(map(float, crop["window"])), "crop window"))
    first = record.get("first") or {}
    if first.get("point") and _finite(first["point"]):
        out.append(Shape("first_pred", "point", convert(tuple(first["point"]), "relative", "original_px", geo), "first pass"))
    if record.get("point") and _finite(record["point"]):
        label = "second pass" if crop.get("window") else "prediction"
        out.append(Shape("pred", "point", convert(tuple(record["point"]), "relative", "original_px", geo), label))
    return out


def star_shapes(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[Shape]:
    """StaR: the toggle's box and the gold point (0-1000 grid in the data) and the predicted point (grid1000 in the record)."""
    w, h = int(doc["image_width"]), int(doc["image_height"])
    geo = Geometry.identity(w, h)
    out = []
    if doc.get("toggle_box") and _finite(doc["toggle_box"]):
        out.append(Shape("toggle_box", "rect", convert_box(tuple(doc["toggle_box"]), "grid1000", "original_px", geo), "toggle"))
    gold = doc.get("gold") or {}
    if isinstance(gold, str):
        gold = json.loads(gold)
    if gold.get("point") and _finite(gold["point"]):
        out.append(Shape("gold", "point", convert(tuple(gold["point"]), gold.get("frame", "grid1000"), "original_px", geo), "gold"))
    if record.get("pred_point") and _finite(record["pred_point"]):
        out.append(Shape("pred", "point", convert(tuple(record["pred_point"]), "grid1000", "original_px", geo),
                         str(record.get("pred_type") or "prediction")))
    return out


SCROLL_VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def _action_shapes(action, geo: Geometry, role: str, width: int, height: int) -> list[Shape]:
    """A typed ``gui_core.actions.Action`` (its point in ``action.frame`` of ``geo``) drawn in original pixels:
    its point, drag end, scroll arrow, typed text."""
    out: list[Shape] = []
    p = None
    if action.point is not None and _finite(action.point):
        p = action.point_in("original_px", geo)
        out.append(Shape(role, "point", p, f"{role}: {action.type}"))
    if action.end_point is not None and p is not None and _finite(action.end_point):
        end = convert(action.end_point, action.frame, "original_px", geo)
        out.append(Shape(f"{role}_drag", "arrow", (*p, *end), f"{role}: drag"))
    direction = str(action.direction or "").lower()  # gui_core.actions.DIRECTIONS are upper case
    if action.type == "SCROLL" and direction in SCROLL_VECTORS:
        cx, cy = p or (width / 2, height / 2)
        dx, dy = SCROLL_VECTORS[direction]
        out.append(Shape(f"{role}_scroll", "arrow", (cx, cy, cx + dx * width / 4, cy + dy * height / 4),
                         f"{role}: scroll {direction} (canonical: the side content comes in from)"))
    if action.text is not None:
        x, y = p or (8.0, height / 20 if role == "gold" else height / 10)
        out.append(Shape(f"{role}_text", "text", (x, y), f"{action.type}: {action.text}"))
    return out


def agentic_shapes(doc: Mapping[str, Any], record: Mapping[str, Any], response: str) -> list[Shape]:
    """StaR agentic step (A.3): element boxes (0-1000 grid), the gold action and the predicted one.

    The response is parsed again with the task's own parser and options (``gui_core.agents.parse``); its
    frame is read in the geometry the record names (``model_size`` when the family answers in resized pixels)."""
    from gui_tasks.star.agentic_task import output_gesture
    from gui_core.agents import parse
    from gui_tasks.star.lmms_task import budget_meta
    from gui_tasks.star.schema import action_from_json

    w, h = int(doc["image_width"]), int(doc["image_height"])
    ident = Geometry.identity(w, h)
    size = record.get("model_size")
    geo = Geometry.seen(w, h, size) if isinstance(size, list) and len(size) == 2 else ident
    out = [Shape("other", "rect", convert_box(tuple(b), "grid1000", "original_px", ident))
           for b in doc.get("boxes") or [] if _finite(b)]
    gold = doc["gold"]
    out += _action_shapes(action_from_json(gold if isinstance(gold, str) else json.dumps(gold)), ident, "gold", w, h)
    # the scroll words read as scoring read them (the gold's space: agentic_task.output_gesture)
    parsed = parse(response, doc["agent_family"], gesture_to_scroll=output_gesture(doc),  # type: ignore[arg-type]
                   reading=doc.get("parser_reading") or "schema", meta=budget_meta(doc))
    if parsed.action is not None:
        out += _action_shapes(parsed.action, geo, "pred", w, h)
    return out
