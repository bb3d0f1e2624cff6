"""How ``gui-eval view`` shows a StaR sample and run: the viewer's ``gui_viewer`` hooks for the StaR benchmarks (their
records name this module as ``viewing``; ``gui_tasks.viewer.hookspecs``).

State control (a document without an ``episode_id``): the polarity beside the outcome; the last screenshot with the
toggle's box, the gold point and the predicted one. A step-wise agentic step (a document with an ``episode_id``): the
element boxes, the gold action and the predicted one (the response parsed again as the task parsed it), then the
episode's steps. A run: the Table 7 layout and the step-wise accuracy, for the kinds of task it ran (the records' task
classes say which).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_core.benchmark import results_names_of
from gui_core.coords import Geometry, convert, convert_box
from gui_core.viewing import DIRECTION_VECTORS as SCROLL_VECTORS
from gui_core.viewing import (Cell, Figure, Report, Row, RunView, SampleFacts, SampleView, Shape, Table, finite,
                              hookimpl)


def _agentic(doc: Mapping[str, Any]) -> bool:
    return "episode_id" in doc


def star_shapes(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[Shape]:
    """StaR: the toggle's box and the gold point (0-1000 grid in the data) and the predicted point (grid1000 in the record)."""
    w, h = int(doc["image_width"]), int(doc["image_height"])
    geo = Geometry.identity(w, h)
    out = []
    if doc.get("toggle_box") and finite(doc["toggle_box"]):
        out.append(Shape("toggle_box", "rect", convert_box(tuple(doc["toggle_box"]), "grid1000", "original_px", geo), "toggle"))
    gold = doc.get("gold") or {}
    if isinstance(gold, str):
        gold = json.loads(gold)
    if gold.get("point") and finite(gold["point"]):
        out.append(Shape("gold", "point", convert(tuple(gold["point"]), gold.get("frame", "grid1000"), "original_px", geo), "gold"))
    if record.get("pred_point") and finite(record["pred_point"]):
        out.append(Shape("pred", "point", convert(tuple(record["pred_point"]), "grid1000", "original_px", geo),
                         str(record.get("pred_type") or "prediction")))
    return out


def _action_shapes(action, geo: Geometry, role: str, width: int, height: int) -> list[Shape]:
    """A typed ``gui_core.actions.Action`` (its point in ``action.frame`` of ``geo``) drawn in original pixels:
    its point, drag end, scroll arrow, typed text."""
    out: list[Shape] = []
    p = None
    if action.point is not None and finite(action.point):
        p = action.point_in("original_px", geo)
        out.append(Shape(role, "point", p, f"{role}: {action.type}"))
    if action.end_point is not None and p is not None and finite(action.end_point):
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
    from gui_core.agents import parse
    from gui_tasks.star.agentic_task import output_gesture
    from gui_tasks.star.lmms_task import budget_meta
    from gui_tasks.star.schema import action_from_json

    w, h = int(doc["image_width"]), int(doc["image_height"])
    ident = Geometry.identity(w, h)
    size = record.get("model_size")
    geo = Geometry.seen(w, h, size) if isinstance(size, list) and len(size) == 2 else ident
    out = [Shape("other", "rect", convert_box(tuple(b), "grid1000", "original_px", ident))
           for b in doc.get("boxes") or [] if finite(b)]
    gold = doc["gold"]
    out += _action_shapes(action_from_json(gold if isinstance(gold, str) else json.dumps(gold)), ident, "gold", w, h)
    # the scroll words read as scoring read them (the gold's space: agentic_task.output_gesture)
    parsed = parse(response, doc["agent_family"], gesture_to_scroll=output_gesture(doc),  # type: ignore[arg-type]
                   reading=doc.get("parser_reading") or "schema", meta=budget_meta(doc))
    if parsed.action is not None:
        out += _action_shapes(parsed.action, geo, "pred", w, h)
    return out


@hookimpl
def gui_viewer_sample_facts(record: Mapping[str, Any], doc: Mapping[str, Any] | None) -> SampleFacts:
    """The polarity as the kind; the screenshot's size; an agentic step's episode and its place in it."""
    size = episode = None
    if doc is not None:
        try:
            size = (int(doc["image_width"]), int(doc["image_height"]))
        except (KeyError, TypeError, ValueError):
            size = None
        if _agentic(doc):
            episode = (str(doc.get("episode_id")), int(doc.get("step") or 0))
    return SampleFacts(kind=str(record.get("polarity") or ""), image_size=size, episode=episode)


def _episode(sample: SampleView) -> Table:
    """The agentic episode this step belongs to: every logged step, its verdicts, a link to its page."""
    rows = []
    for x in sample.episode or (sample,):
        r, doc = x.record, x.doc or {}
        gold = json.loads(doc["gold"]) if isinstance(doc["gold"], str) else doc["gold"]
        rows.append(Row((Cell(f"step {'' if doc.get('step') is None else doc.get('step')}", link=x.number),
                         Cell(gold.get("type")), Cell(r.get("pred_type") or r.get("status")), Cell(r.get("type_match")),
                         Cell(r.get("exact"), cls=f"outcome {x.outcome}")), cls="here" if x is sample else ""))
    return Table(f"Episode {'' if sample.doc.get('episode_id') is None else sample.doc.get('episode_id')}: goal",
                 ("step", "gold", "predicted", "type match", "exact"), rows, cls="episode", text=sample.doc.get("goal", ""))


@hookimpl
def gui_viewer_sample_media(sample: SampleView) -> list[Figure | Table] | None:
    doc = sample.doc
    if doc is None:
        return None
    images = doc.get("images") or []
    size = (int(doc["image_width"]), int(doc["image_height"]))
    if not _agentic(doc):
        return [Figure(images[-1] if images else None, "purple: toggle box; green: gold point; red: predicted point", size)]
    return [Figure(images[-1] if images else None, "green: gold action; red: predicted action; grey: element boxes", size),
            _episode(sample)]


@hookimpl
def gui_viewer_overlays(sample: SampleView) -> list[Shape] | None:
    doc = sample.doc
    if doc is None:
        return None
    if not _agentic(doc):
        return star_shapes(doc, sample.record)
    return agentic_shapes(doc, sample.record, sample.responses[0])


def _ran(run: RunView, module: str) -> bool:
    """Whether the run has a task of a benchmark whose record's task class is defined in ``module``."""
    return any(name in run.benchmarks for name in results_names_of(f"{__package__}.{module}"))


@hookimpl
def gui_viewer_run_reports(run: RunView) -> list[Report]:
    from gui_tasks.star import report as star

    out = []
    if _ran(run, "lmms_task"):
        out.append(Report("StaR: Table 7 layout (state control)", lambda: star.render_text(star.build_table(run.runs))))
    if _ran(run, "agentic_task"):
        out.append(Report("StaR: step-wise agentic accuracy", lambda: star.render_step_text(star.build_step_table(run.runs))))
    return out
