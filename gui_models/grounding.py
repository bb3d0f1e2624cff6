"""Grounding answers (one point for one instruction) per output family, with the frame each family uses.

The PSS paper's prompt (appendix A) asks for relative ``[x, y]``; agent families answer in their own syntax
and frame (``gui_models.coords``): Qwen2.5-VL its grounding JSON (``{"bbox_2d": [x1, y1, x2, y2]}`` or
``{"point_2d": [x, y]}``, pixels of the image it saw), UI-TARS-1.5 ``click(point='<point>x y</point>')`` (same
frame), OS-Atlas / UI-TARS / AgentCPM-GUI their action syntax on the 0-1000 grid. Action-style answers reuse the
family's parser (``gui_models.action_parsers``); a bare point or box is read in the family's frame. A family
answering in resized pixels names the resize budget of its released checkpoints (``FAMILY_BUDGETS``), used only
when the backend does not report the size it fed the model. Never raises on model output; nothing is inferred
from magnitudes; non-finite or absurd numbers are format errors. Linear time in the length of the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gui_models.action_parsers import PARSERS, Status, after_reasoning, finite_number, json_objects, parse_action
from gui_models.coords import Frame

# family -> (frame of its numbers, action parser tried first or None)
FAMILIES: dict[str, tuple[Frame, str | None]] = {
    "relative": ("relative", None),  # PSS appendix A: "[x, y]" in [0, 1]
    "os_atlas": ("grid1000", "os_atlas"),
    "ui_tars": ("grid1000", "ui_tars"),
    "ui_tars_1_5": ("resized_px", "ui_tars_1_5"),
    "qwen2_5_vl": ("resized_px", "qwen2_5_vl"),
    "agentcpm_gui": ("grid1000", "agentcpm_gui"),
    "gui_owl": ("resized_px", "gui_owl"),
}
# The resize budget (gui_models.coords.BUDGETS) of each resized_px family's released checkpoints.
FAMILY_BUDGETS: dict[str, str] = {"ui_tars_1_5": "ui_tars_1_5", "qwen2_5_vl": "qwen2_5_vl", "gui_owl": "gui_owl"}

# Numbers start only where no digit precedes (a search cannot restart inside a run of digits: linear time).
_NUM = r"(?<![\d.])[-+]?\d+(?:\.\d+)?"
_OPEN, _CLOSE = r"[\[\(]", r"[\]\)]"
_PAIR_IN = rf"{_OPEN}\s*({_NUM})\s*,\s*({_NUM})\s*{_CLOSE}"
_BOX = re.compile(rf"{_PAIR_IN}\s*(?:,\s*)?{_PAIR_IN}")
_QUAD = re.compile(rf"{_OPEN}\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*{_CLOSE}")
_PAIR = re.compile(_PAIR_IN)
_POINT_TAG = re.compile(rf"<point>\s*({_NUM})[\s,]+({_NUM})\s*</point>")


@dataclass(frozen=True)
class PointAnswer:
    point: tuple[float, float] | None
    frame: Frame
    status: Status
    family: str
    detail: str = ""
    literal: tuple[float, float] | None = None
    """The two numbers as written (equal to ``point`` except for box answers, whose centre is used)."""


def _numbers(values: Any, n: int) -> list[float] | None:
    if not isinstance(values, (list, tuple)) or len(values) != n:
        return None
    out = [finite_number(v) for v in values]
    return None if any(v is None for v in out) else out  # type: ignore[return-value]


def _qwen_json(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Qwen2.5-VL's grounding JSON: the first object with ``point_2d`` or ``bbox_2d``."""
    for obj in json_objects(body):
        if "point_2d" in obj:
            p = _numbers(obj["point_2d"], 2)
            if p is None:
                return PointAnswer(None, frame, "malformed", family, "point_2d is not [x, y] of finite numbers")
            return PointAnswer((p[0], p[1]), frame, "parsed", family, "point_2d", (p[0], p[1]))
        if "bbox_2d" in obj:
            b = _numbers(obj["bbox_2d"], 4)
            if b is None:
                return PointAnswer(None, frame, "malformed", family, "bbox_2d is not [x1, y1, x2, y2] of finite numbers")
            return PointAnswer(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), frame, "parsed", family, "bbox_2d centre")
    return None


def _finite(*groups: str) -> list[float] | None:
    vals = [finite_number(g) for g in groups]
    return None if any(v is None for v in vals) else vals  # type: ignore[return-value]


def parse_point(text: Any, family: str) -> PointAnswer:
    """The point of a grounding answer in ``family``'s frame."""
    if family not in FAMILIES:
        raise ValueError(f"unknown grounding family {family!r}; known: {', '.join(FAMILIES)}")
    frame, action_family = FAMILIES[family]
    if not isinstance(text, str) or not text.strip():
        return PointAnswer(None, frame, "empty", family, "empty output")
    body = after_reasoning(text)
    if family in ("qwen2_5_vl", "gui_owl") and ("point_2d" in body or "bbox_2d" in body):
        found = _qwen_json(body, frame, family)
        if found is not None:
            return found
    if action_family is not None and action_family in PARSERS:
        parsed = parse_action(body, action_family)
        if parsed.status == "parsed" and parsed.action is not None and parsed.action.point is not None:
            p = parsed.action.point
            return PointAnswer(p, parsed.action.frame or frame, "parsed", family, "action", p)
    bad = PointAnswer(None, frame, "malformed", family, "non-finite or out-of-range coordinates")
    m = _POINT_TAG.search(body)
    if m and family != "relative":
        v = _finite(*m.groups())
        return PointAnswer((v[0], v[1]), frame, "parsed", family, "point tag", (v[0], v[1])) if v else bad
    if family != "relative":
        m = _BOX.search(body) or _QUAD.search(body)
        if m:
            v = _finite(*m.groups())
            if v is None:
                return bad
            return PointAnswer(((v[0] + v[2]) / 2, (v[1] + v[3]) / 2), frame, "parsed", family, "box centre")
    m = _PAIR.search(body)
    if m:
        v = _finite(*m.groups())
        return PointAnswer((v[0], v[1]), frame, "parsed", family, "point", (v[0], v[1])) if v else bad
    return PointAnswer(None, frame, "malformed", family, "no point")
