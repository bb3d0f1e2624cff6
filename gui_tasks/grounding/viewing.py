"""How ``gui-eval view`` shows a grounding sample and run: the viewer's ``gui_viewer`` hooks for the grounding
benchmarks (their records name this module as ``viewing``; ``gui_tasks.viewer.hookspecs``).

A sample: its response type (PSS paper, Algorithm 1) beside the outcome; the screenshot with the target (and other
known) boxes, the final point and, for crop runs, the window and the first-pass point. A run: the PSS report.

Points are taken from the logged records, which already mapped the answer from the frame the model answered in
(``record["frame"]``, ``frame_source``, ``model_size``) back to the screenshot (``gui_tasks.grounding.score`` through
``gui_core.geometry.answer_geometry`` / ``map_back``); here they only change unit (relative -> original pixels) with
``gui_core.coords.convert``.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.coords import Geometry, convert
from gui_core.viewing import Figure, Report, RunView, SampleFacts, SampleView, Shape, finite, hookimpl


def grounding_shapes(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[Shape]:
    """Target (and other known) boxes, the final point, and for crop runs the window and the first-pass point."""
    w, h = int(doc["width"]), int(doc["height"])
    geo = Geometry.identity(w, h)
    out = [Shape("other", "rect", tuple(map(float, b))) for b in (doc.get("other_boxes") or []) if finite(b)]
    out.append(Shape("target", "rect", tuple(map(float, doc["target_box"])), "target"))
    crop = record.get("crop") or {}
    if crop.get("window") and finite(crop["window"]):
        out.append(Shape("crop_window", "rect", tuple(map(float, crop["window"])), "crop window"))
    first = record.get("first") or {}
    if first.get("point") and finite(first["point"]):
        out.append(Shape("first_pred", "point", convert(tuple(first["point"]), "relative", "original_px", geo), "first pass"))
    if record.get("point") and finite(record["point"]):
        label = "second pass" if crop.get("window") else "prediction"
        out.append(Shape("pred", "point", convert(tuple(record["point"]), "relative", "original_px", geo), label))
    return out


@hookimpl
def gui_viewer_sample_facts(record: Mapping[str, Any], doc: Mapping[str, Any] | None) -> SampleFacts:
    """The response type as the kind; the document's declared size as the overlays' size."""
    size = None
    if doc is not None:
        try:
            size = (int(doc["width"]), int(doc["height"]))
        except (KeyError, TypeError, ValueError):
            size = None
    return SampleFacts(kind=str(record.get("response_type") or ""), image_size=size)


@hookimpl
def gui_viewer_sample_media(sample: SampleView) -> list[Figure] | None:
    doc = sample.doc
    if doc is None:
        return None
    crop = "; blue: crop window, orange: first pass" if sample.record.get("crop") else ""
    return [Figure(doc["image"], "green: target box; red: predicted point" + crop, (int(doc["width"]), int(doc["height"])))]


@hookimpl
def gui_viewer_overlays(sample: SampleView) -> list[Shape] | None:
    return grounding_shapes(sample.doc, sample.record) if sample.doc is not None else None


@hookimpl
def gui_viewer_run_reports(run: RunView) -> list[Report]:
    from gui_tasks.grounding import report as grounding

    return [Report("Grounding: PSS, Algorithm-1 response types, cropping",
                   lambda: grounding.markdown([grounding.summarise(x) for x in grounding.collect([r.path for r in run.runs])]))]
