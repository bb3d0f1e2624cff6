"""Context-aware cropping (PSS seed section 5) as an intervention: predict, crop around the prediction, predict again.

``interventions=crop`` (``crop.alpha=0.8``, ``crop.family=relative``): the response stage
parses the first answer, crops an alpha*W x alpha*H window centred on it and clamped to the
image (section 5.1):

    x_start = min(max(x W - alpha W / 2, 0), W - alpha W)
    y_start = min(max(y H - alpha H / 2, 0), H - alpha H)

re-runs the model on the crop (same prompt) and returns the second answer. The window is in
whole pixels (what an image crop can be), mapping back exact for that window: the geometry lives in
``gui_core.geometry`` (shared with grounding scoring). The answer returned is the second
answer as the model wrote it, i.e. in the crop's frame; its ``extras["crop"]`` holds the
window, the first answer and its capture, and ``gui_core.geometry.map_back`` turns a point in the crop into one
in the original image (the grounding tasks do this when they score).
"""

from __future__ import annotations

from typing import Any

from gui_interventions import hookimpl
from gui_interventions.params import number
from gui_interventions.payloads import ResponseContext
from gui_core.geometry import DEFAULT_ALPHA, crop_window, to_relative


def _kept(response: Any) -> dict[str, Any]:
    """A response's extras other than ``crop`` (e.g. the backend's ``model_image_sizes``), kept on the answer."""
    from gui_core.logit_capture import extras_of

    return {k: v for k, v in extras_of(response).items() if k != "crop"}


class Crop:
    """``interventions=crop``: the second pass of context-aware cropping on the first image of each request."""

    def __init__(self, alpha: float | str = DEFAULT_ALPHA, family: str = "relative", min_pixels: int | str | None = None,
                 max_pixels: int | str | None = None) -> None:
        from gui_core.family import FAMILIES

        self.alpha = number("crop.alpha", alpha, low=0, low_open=True, high=1)
        if family not in FAMILIES or not FAMILIES.get(family).grounds:
            known = [f.name for f in FAMILIES.values() if f.grounds]
            raise ValueError(f"crop.family: {FAMILIES.unknown_message(family)}" if family not in FAMILIES
                             else f"crop.family {family!r} has no grounding reading; known: {', '.join(known)}")
        self.family = FAMILIES.canonical(family)
        self.min_pixels = number("crop.min_pixels", min_pixels, low=1, integer=True) if min_pixels is not None else None
        self.max_pixels = number("crop.max_pixels", max_pixels, low=1, integer=True) if max_pixels is not None else None

    @hookimpl
    def gui_intervention_response(self, response: ResponseContext) -> str | None:
        from gui_core.grounding import parse_point
        from gui_core.logit_capture import CapturedResponse, capture_of, extras_of
        from gui_core.reasoning import note_from_extras

        first = response.text
        first_capture = capture_of(first)
        info: dict[str, Any] = {"alpha": self.alpha, "family": self.family, "first_text": str(first),
                                "first_capture": first_capture.to_json() if first_capture else None, "window": None}
        req = response.request
        if not req.images:
            return CapturedResponse(str(first), first_capture, {**_kept(first), "crop": {**info, "skipped": "no image"}})
        image = req.images[0]
        width, height = image.size
        text = str(first)
        note = note_from_extras(extras_of(first))
        if note is not None:  # the backend's reading (its reasoning_tags): the answer after the reasoning, or none
            cut = note.truncated or (not note.closed and note.reasoning_chars > 0)
            text = "" if cut else text[note.answer_start:]
        for tag in ("</think>", "</thinking>", "</analysis>"):  # answer after a reasoning block, as the tasks read it
            if tag in text:
                text = text.rsplit(tag, 1)[-1]
        answer = parse_point(text, self.family)
        if answer.status != "parsed" or answer.point is None:
            return CapturedResponse(str(first), first_capture,
                                    {**_kept(first), "crop": {**info, "skipped": f"first answer {answer.status}"}})
        from gui_core.coords import reported_size

        first_sizes = extras_of(first).get("model_image_sizes")
        x, y = to_relative(answer, width, height, min_pixels=self.min_pixels, max_pixels=self.max_pixels,
                           model_size=reported_size(first_sizes, 0))
        window = crop_window((min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)), width, height, self.alpha)
        cropped = image.crop(window)
        second = response.rerun(req.with_(images=(cropped,) + tuple(req.images[1:]),
                                          metadata={**req.metadata, "crop_window": window}))
        info.update(window=list(window), first_point=[x, y], first_model_image_sizes=first_sizes)
        return CapturedResponse(str(second), capture_of(second), {**_kept(second), "crop": info})
