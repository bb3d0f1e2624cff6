"""Grounding answers (one point for one instruction) per output family, with the frame each family uses.

The PSS paper's prompt (appendix A) asks for relative ``[x, y]``; agent families answer in
their own action syntax and frame (``gui_models.coords``). Action-style answers reuse the
family's parser from ``gui_models.action_parsers``; a bare point pair is read in the
family's frame. Never raises on model output; nothing is inferred from magnitudes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gui_models.action_parsers import PARSERS, Status, parse_action
from gui_models.coords import Frame

# family -> (frame of its numbers, action parser tried first or None)
FAMILIES: dict[str, tuple[Frame, str | None]] = {
    "relative": ("relative", None),  # PSS appendix A: "[x, y]" in [0, 1]
    "os_atlas": ("grid1000", "os_atlas"),
    "ui_tars": ("grid1000", "ui_tars"),
    "ui_tars_1_5": ("resized_px", "ui_tars_1_5"),
    "qwen2_5_vl": ("resized_px", "qwen2_5_vl"),
    "agentcpm_gui": ("grid1000", "agentcpm_gui"),
}

_NUM = r"-?\d+(?:\.\d+)?"
_BOX = re.compile(rf"[\[\(]\s*({_NUM})\s*,\s*({_NUM})\s*[\]\)]\s*,?\s*[\[\(]\s*({_NUM})\s*,\s*({_NUM})\s*[\]\)]")
_PAIR = re.compile(rf"[\[\(]\s*({_NUM})\s*,\s*({_NUM})\s*[\]\)]")


@dataclass(frozen=True)
class PointAnswer:
    point: tuple[float, float] | None
    frame: Frame
    status: Status
    family: str
    detail: str = ""
    literal: tuple[float, float] | None = None
    """The two numbers as written (equal to ``point`` except for box answers, whose centre is used)."""


def parse_point(text: Any, family: str) -> PointAnswer:
    """The point of a grounding answer in ``family``'s frame."""
    if family not in FAMILIES:
        raise ValueError(f"unknown grounding family {family!r}; known: {', '.join(FAMILIES)}")
    frame, action_family = FAMILIES[family]
    if not isinstance(text, str) or not text.strip():
        return PointAnswer(None, frame, "empty", family, "empty output")
    body = text[:20000]
    if action_family is not None and action_family in PARSERS:
        parsed = parse_action(body, action_family)
        if parsed.status == "parsed" and parsed.action is not None and parsed.action.point is not None:
            p = parsed.action.point
            return PointAnswer(p, parsed.action.frame or frame, "parsed", family, "action", p)
    m = _BOX.search(body)
    if m and family != "relative":
        x1, y1, x2, y2 = (float(g) for g in m.groups())
        return PointAnswer(((x1 + x2) / 2, (y1 + y2) / 2), frame, "parsed", family, "box centre")
    m = _PAIR.search(body)
    if m:
        p = (float(m.group(1)), float(m.group(2)))
        return PointAnswer(p, frame, "parsed", family, "point", p)
    return PointAnswer(None, frame, "malformed", family, "no point")
