"""Visual prompts drawn on the first screenshot: the red box of augmented questions (seed section 3.3) and
the action "as drawn in the initial screenshot" (appendix A.3): a circle at a point, an arrow for a drag
or a scroll, a letter beside each candidate of an action-parameter question.

Marks are in pixels of the original screenshot (``image_size`` of the document). A box mark with
``"style": "runner"`` is drawn as the official GUI Knowledge Bench runner draws its red box
(``Inference/tools/draw_picture.py`` ``draw_annotation`` at commit 378add4: ``cv2.rectangle`` in BGR
(0, 0, 255), thickness 1, ``LINE_AA``, corners truncated to ints and clamped, a zero-size side widened by one
pixel); OpenCV is an lmms-eval dependency, so the same library call draws the same pixels.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from PIL import Image, ImageDraw, ImageFont

from gui_core.actions import Action

RED = (230, 30, 30)
RUNNER_RED_BGR = (0, 0, 255)  # draw_annotation's default colour (OpenCV's BGR order): pure red
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
    runner = [m for m in marks if m.get("kind") == "box" and m.get("style") == "runner"]
    if runner:
        out = draw_runner_boxes(out, [m["box"] for m in runner])
        marks = [m for m in marks if not (m.get("kind") == "box" and m.get("style") == "runner")]
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


def draw_runner_boxes(image: Image.Image, boxes: Sequence[Sequence[float]]) -> Image.Image:
    """``image`` (RGB) with each box drawn as the official runner's ``draw_annotation`` draws its bbox."""
    import cv2
    import numpy as np

    canvas = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])  # BGR, as cv2.imread gives it
    h, w = canvas.shape[:2]
    for box in boxes:
        x1, y1, x2, y2 = (int(v) for v in box)
        x1, x2 = sorted((max(0, min(w - 1, x1)), max(0, min(w - 1, x2))))
        y1, y2 = sorted((max(0, min(h - 1, y1)), max(0, min(h - 1, y2))))
        x2 = min(w - 1, x2 + 1) if x1 == x2 else x2
        y2 = min(h - 1, y2 + 1) if y1 == y2 else y2
        cv2.rectangle(canvas, (x1, y1), (x2, y2), RUNNER_RED_BGR, 1, lineType=cv2.LINE_AA)
    return Image.fromarray(np.ascontiguousarray(canvas[:, :, ::-1]))
