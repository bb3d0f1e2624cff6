"""Intervention plugin ``acme_grayscale``: the model sees every screenshot in grey levels (a colour ablation)."""

from __future__ import annotations

import pluggy

from gui_interventions.payloads import RequestContext

hookimpl = pluggy.HookimplMarker("gui_interventions")


class Grayscale:
    """Convert every request image to grey levels (``acme_grayscale.levels``: 256, or fewer for a coarser view)."""

    def __init__(self, levels: int = 256) -> None:
        if not 2 <= int(levels) <= 256:
            raise ValueError(f"acme_grayscale.levels={levels!r}: choose 2..256")
        self.levels = int(levels)

    @hookimpl
    def gui_intervention_request(self, request: RequestContext) -> RequestContext:
        step = 256 // self.levels
        images = tuple(im.convert("L").point(lambda v: v // step * step).convert("RGB") for im in request.images)
        return request.with_(images=images, metadata={**request.metadata, "acme_grayscale": {"levels": self.levels}})
