"""``interventions=blind``: the model answers without seeing the screenshots (issue 22).

The request stage replaces every image of a request by a blank image of the same size (``blind.mode=blank``,
the default: the prompt, the image tokens and the model's resize are unchanged, only the pixels go) or removes
the images (``blind.mode=remove``: a text-only prompt). Run a task with and without it to measure how much of a
benchmark a model answers from the text alone; the MPR and GUI-KB reports put the two side by side
(``+blind`` in the protocol label, ``gui_tasks.reports.vision_gain``). Being a request-stage plugin, it runs in every
backend built on ``gui_models.generation_core`` (gui_hf, gui_wrap and the served backend alike).
"""

from __future__ import annotations

from typing import Any

from gui_interventions import hookimpl
from gui_interventions.payloads import RequestContext

MODES = ("blank", "remove")
COLORS = {"white": (255, 255, 255), "black": (0, 0, 0), "gray": (128, 128, 128)}


def blank_like(image: Any, color: str = "white") -> Any:
    """A blank RGB image of ``image``'s size (a PIL image, or anything with ``size`` = (width, height))."""
    from PIL import Image

    size = getattr(image, "size", None)
    if not (isinstance(size, tuple) and len(size) == 2):
        raise TypeError(f"blind: cannot blank a request image of type {type(image).__name__} (no (width, height) size)")
    return Image.new("RGB", (int(size[0]), int(size[1])), COLORS[color])


class Blind:
    """Blank (``mode=blank``, ``color=white|black|gray``) or remove (``mode=remove``) every image of every request."""

    def __init__(self, mode: str = "blank", color: str = "white") -> None:
        if mode not in MODES:
            raise ValueError(f"blind.mode={mode!r}: choose one of {', '.join(MODES)}")
        if color not in COLORS:
            raise ValueError(f"blind.color={color!r}: choose one of {', '.join(COLORS)}")
        self.mode, self.color = mode, color

    @hookimpl
    def gui_intervention_request(self, request: RequestContext) -> RequestContext:
        images = () if self.mode == "remove" else tuple(blank_like(im, self.color) for im in request.images)
        note = {"mode": self.mode, "images": len(request.images), **({"color": self.color} if self.mode == "blank" else {})}
        return request.with_(images=images, metadata={**request.metadata, "blind": note})
