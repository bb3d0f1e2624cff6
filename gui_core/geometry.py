"""Geometry of grounding answers, one place for scoring and for the crop intervention.

A parsed answer's point in its named frame -> relative coordinates of the image the model saw
(``answer_geometry``), the context-aware crop window around a point (PSS seed section 5.1,
``crop_window``) and a point in that window -> the original image (``map_back``). Grounding
scoring (``gui_tasks.grounding.score``) and the ``crop`` intervention both use these, so the
frame a crop is cut in and the frame it is scored in cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from gui_core.coords import budget as named_budget
from gui_core.coords import convert, model_geometry
from gui_core.family import budget_of

# Section 5.1: "we set the crop ratio alpha = 0.8".
DEFAULT_ALPHA = 0.8

Window = tuple[int, int, int, int]  # x0, y0, x1, y1 in original pixels (x1, y1 exclusive)


def crop_window(point: tuple[float, float], width: int, height: int, alpha: float = DEFAULT_ALPHA) -> Window:
    """The crop window around a relative point (x, y) in [0, 1] of a ``width`` x ``height`` image.

    Section 5.1: ``x_start = min(max(x W - alpha W / 2, 0), W - alpha W)`` (same for y), in whole pixels:
    width ``round(alpha W)``, start rounded to the nearest pixel, then clamped.
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"crop alpha must be in (0, 1], got {alpha}")
    cw, ch = max(1, round(alpha * width)), max(1, round(alpha * height))
    x, y = float(point[0]), float(point[1])
    x0 = min(max(round(x * width - cw / 2), 0), width - cw)
    y0 = min(max(round(y * height - ch / 2), 0), height - ch)
    return int(x0), int(y0), int(x0 + cw), int(y0 + ch)


def map_back(point: tuple[float, float], window: Window, width: int, height: int) -> tuple[float, float]:
    """A relative point in the crop ``window`` -> the relative point in the ``width`` x ``height`` original (exact)."""
    x0, y0, x1, y1 = window
    return (x0 + float(point[0]) * (x1 - x0)) / width, (y0 + float(point[1]) * (y1 - y0)) / height


def answer_geometry(answer: Any, width: int, height: int, *, min_pixels: int | None = None, max_pixels: int | None = None,
                    model_size: Any = None, budget: str | None = None) -> tuple[tuple[float, float], dict[str, Any]]:
    """``(relative point, frame record)`` of a parsed grounding answer (``gui_core.grounding.PointAnswer``).

    A ``resized_px`` answer is read with the size the model saw (``model_size`` = the backend's
    ``extras["model_image_sizes"]`` entry), else with the family's resize budget (``budget`` name, default the
    family's own, ``min_pixels`` / ``max_pixels`` overriding it); ``gui_core.coords.model_geometry``.
    """
    fallback = None
    if answer.frame == "resized_px":
        fallback = named_budget(budget or budget_of(answer.family), min_pixels=min_pixels,
                                max_pixels=max_pixels)
    geometry, info = model_geometry(answer.frame, width, height, model_size=model_size, fallback=fallback)
    return convert(answer.point, answer.frame, "relative", geometry), info


def to_relative(answer: Any, width: int, height: int, **kw: Any) -> tuple[float, float]:
    """The relative point of a parsed grounding answer (``answer_geometry`` without the frame record)."""
    return answer_geometry(answer, width, height, **kw)[0]
