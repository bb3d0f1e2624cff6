"""Visual prompts drawn on the first screenshot: the red box of augmented questions (seed section 3.3) and
the action "as drawn in the initial screenshot" (appendix A.3): a circle at a point, an arrow for a drag
or a scroll, a letter beside each candidate of an action-parameter question.

Marks are in pixels of the original screenshot (``image_size`` of the document).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from PIL import Image, ImageDraw, ImageFont

from gui_models.actions import Action

RED = (230, 30, 30)
SCROLL_ARROW = 0.12  # scroll arrows are this fraction of the image height long


def marks_for_action(action: Action, size: tuple[int, int], label: str | None = None) -> list[dict[str, Any]]:
    """Marks that show ``action`` (point in original pixels): point actions a circle, drag/scroll an arrow."""
    lab = {"label": label} if label else {}
    if action.type == "DRAG":
        return [{"kind": "arrow", "from": list(action.point), "to": list(action.end_point), **lab}]
    if action.type == "SCROLL" and action.point is not None:
        # the finger moves against the scroll direction: content below comes up when scrolling down
        dx, dy = {"UP": (0, 1), "DOWN": (0, -1), "LEFT": (1, 0), "RIGHT": (-1, 0)}[action.direction]
        length = SCROLL_ARROW * size[1]
        x, y = action.point
        return [{"kind": "arrow", "from": [x, y], "to": [x + dx * length, y + dy * length], **lab}]
    if action.point is not None:
        return [{"kind": "point", "xy": list(action.point), **lab}]
    return []


def draw_marks(image: Image.Image, marks: Sequence[Mapping[str, Any]]) -> Image.Image:
    """A copy of ``image`` with ``marks`` drawn in red (line width scaled to the image)."""
    if not marks:
        return image
    out = image.convert("RGB").copy()
    d = ImageDraw.Draw(out)
    w = max(2, round(min(out.size) / 180))
    r = max(8, round(min(out.size) / 40))
    for m in marks:
        kind = m.get("kind")
        if kind == "box":
            x1, y1, x2, y2 = (float(v) for v in m["box"])
            d.rectangle([min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)], outline=RED, width=w)
            anchor = (max(x1, x2) + 2, min(y1, y2))
        elif kind == "point":
            x, y = (float(v) for v in m["xy"])
            d.ellipse([x - r, y - r, x + r, y + r], outline=RED, width=w)
            d.ellipse([x - w, y - w, x + w, y + w], fill=RED)
            anchor = (x + r + 2, y - r)
        elif kind == "arrow":
            (x1, y1), (x2, y2) = ((float(a), float(b)) for a, b in (m["from"], m["to"]))
            d.line([(x1, y1), (x2, y2)], fill=RED, width=w)
            ang = math.atan2(y2 - y1, x2 - x1)
            for side in (-0.5, 0.5):
                d.line([(x2, y2), (x2 - r * math.cos(ang + side), y2 - r * math.sin(ang + side))], fill=RED, width=w)
            d.ellipse([x1 - w * 2, y1 - w * 2, x1 + w * 2, y1 + w * 2], fill=RED)
            anchor = (x1 + r, y1 - r)
        else:
            continue
        if m.get("label"):
            d.text(anchor, str(m["label"]), fill=RED, font=ImageFont.load_default(size=2 * r))
    return out
