"""ScreenSpot / -v2 / -Pro as the other public harnesses score them: selectable readings (issue 52, item 3).

Task metadata ``reading`` (one key, as for OSWorld-G) selects whose code reads and scores each answer; ``official``
(the default) is the benchmark's own script (SeeClick's, eval_screenspot_pro.py) with the family's reading. The
others, each equal to its harness's code on tests/fixtures/grounding_agreement (tests/test_grounding_agreement.py):

- ``lmms_eval`` (ScreenSpot-v2, ScreenSpot-Pro): lmms-eval 0.7.3's own ``process_results`` **called**
  (``lmms_eval/tasks/screenspot_v2/utils.py`` ``screenspot_v2_process_results``, ``screenspot_pro/utils.py``
  ``screenspot_pro_process_results``) on the row in the shape of its dataset: v2 ``bbox`` as published (SeeClick's
  [x, y, w, h]; [x1, y1, x2, y2] in the Pro layout), ``image_width/height``; Pro ``bbox`` [x1, y1, x2, y2] and
  ``img_size``. Its reader takes pixel points, fractions, percentages, ``x=/y=`` and box centres, divides a point by
  the image size when either coordinate exceeds 1, and reads v2's [x, y, w, h] as [x1, y1, x2, y2] when w > x and
  h > y (``_normalize_bbox_to_xyxy``). It sees the answer after lmms-eval's default ``--reasoning_tags`` strip.
- ``vlmevalkit`` (all three): open-compass/VLMEvalKit @ e8e78f05f3080fe28154f2130321f17951c3be94
  ``vlmeval/dataset/GUI/screenspot.py`` ``ScreenSpot.evaluate_point`` (ScreenSpotV2 inherits it) and
  ``screenspot_pro.py`` ``ScreenSpotPro.evaluate_point``, re-stated (it needs VLMEvalKit's runtime): the answer read by
  ``parse_bbox_aguvis`` (``x=<num>, y=<num>``, else the click (0, 0)), a point divided by the image size when either
  coordinate exceeds 1, ScreenSpot's [x, y, w, h] made (x, y, x + w - 1, y + h - 1), a box outside [0, 1] after dividing
  by the image size raising before the try (the whole evaluation stops: verdict ``error``).

A verdict is ``correct``, ``wrong``, ``wrong_format`` (VLMEvalKit's try caught an error) or ``error`` (the harness
stops on the row).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

VLMEVALKIT = ("open-compass/VLMEvalKit", "e8e78f05f3080fe28154f2130321f17951c3be94")
SOURCES = {
    "lmms_eval": "lmms-eval 0.7.3 lmms_eval/tasks/{lmms_task}/utils.py {lmms_task}_process_results (called)",
    "vlmevalkit": "open-compass/VLMEvalKit @ e8e78f0 vlmeval/dataset/GUI/{vlmevalkit_file} evaluate_point (re-stated)",
}
_AGUVIS = re.compile(r"x=([\d.]+), y=([\d.]+)")
REASONING_TAGS = (("<think>", "</think>"), ("<analysis>", "</analysis>"))  # lmms-eval 0.7.3's --reasoning_tags default


@dataclass(frozen=True)
class Row:
    """A ScreenSpot row as the harnesses get it: the box as published (``xywh``: SeeClick's [x, y, w, h], else
    [x1, y1, x2, y2]), the image size, the UI type; ``harness``: the benchmark record's ``harness`` entry
    (``lmms_task``: lmms-eval's task folder, ``pro`` for its Pro scorer; ``vlmevalkit_box``: ``xywh_minus_one`` for
    ScreenSpot.evaluate_point's box, ``xyxy`` for ScreenSpotPro's)."""

    harness: Mapping[str, Any]
    box: Sequence[float]
    xywh: bool
    width: int
    height: int
    ui_type: str = ""


def lmms_eval(text: str, row: Row) -> str:
    """lmms-eval 0.7.3's own task scorer on ``text`` (after its reasoning-tag strip): correct | wrong."""
    from lmms_eval.api.reasoning import strip_reasoning_tags

    seen = strip_reasoning_tags(text, [list(p) for p in REASONING_TAGS])
    task = str(row.harness["lmms_task"])
    mod = importlib.import_module(f"lmms_eval.tasks.{task}.utils")
    if row.harness.get("lmms_img_size"):  # the Pro scorer: bbox [x1, y1, x2, y2] and img_size
        box = list(row.box)
        if row.xywh:  # lmms-eval's Pro dataset publishes [x1, y1, x2, y2]
            box = [box[0], box[1], box[0] + box[2], box[1] + box[3]]
        doc = {"bbox": box, "img_size": [row.width, row.height], "ui_type": row.ui_type}
    else:  # the v2 scorer: bbox as published, image_width / image_height
        doc = {"bbox": list(row.box), "image_width": row.width, "image_height": row.height, "data_type": row.ui_type}
    out = getattr(mod, f"{task}_process_results")(doc, [seen])[f"{task}_action_acc"]
    return "correct" if out["correct"] else "wrong"


def vlmevalkit_point(text: str) -> tuple[float, float]:
    """``parse_bbox_aguvis``: ``x=<digits and dots>, y=<...>`` (first match), else the click (0, 0); a number with two
    dots makes ``float`` raise (VLMEvalKit's try: wrong_format)."""
    m = _AGUVIS.search(text)
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def vlmevalkit(text: str, row: Row) -> str:
    """VLMEvalKit's ``evaluate_point`` verdict for one answer: correct | wrong | wrong_format | error."""
    b = list(row.box)
    if row.harness["vlmevalkit_box"] == "xywh_minus_one":  # ScreenSpot.evaluate_point: (x1, y1, x1 + w - 1, y1 + h - 1)
        x, y, w, h = (b[0], b[1], b[2] - b[0], b[3] - b[1]) if not row.xywh else b
        b = [x, y, x + w - 1, y + h - 1]
    elif row.xywh:
        b = [b[0], b[1], b[0] + b[2], b[1] + b[3]]
    safe = [0 if v == -1 else v for v in b]
    rel = [safe[0] / row.width, safe[1] / row.height, safe[2] / row.width, safe[3] / row.height]
    if any(v < 0 or v > 1 for v in rel):
        return "error"  # raise ValueError(f"bbox out of range ...") before the try: the evaluation stops
    try:
        x, y = vlmevalkit_point(text)
    except ValueError:
        return "wrong_format"
    if x > 1 or y > 1:
        x, y = x / row.width, y / row.height
    return "correct" if rel[0] <= x <= rel[2] and rel[1] <= y <= rel[3] else "wrong"


READERS = {"lmms_eval": lmms_eval, "vlmevalkit": vlmevalkit}


def row_of(doc: Mapping[str, Any], meta: Mapping[str, Any], harness: Mapping[str, Any]) -> Row:
    """The harness row behind one of our ScreenSpot documents (the box as published, unclipped)."""
    box = list(meta.get("bbox_published") or doc["target_box"])  # [x1, y1, x2, y2] pixels as the loader read it
    xywh = meta.get("bbox_format") == "xywh_px"
    if xywh:
        box = [box[0], box[1], box[2] - box[0], box[3] - box[1]]
    ui = str((meta.get("report") or {}).get("ui_type") or str(doc.get("split", "")).rsplit("_", 1)[-1])
    return Row(harness, box, xywh, int(doc["width"]), int(doc["height"]), ui.lower())


def judge(record: dict[str, Any], doc: Mapping[str, Any], meta: Mapping[str, Any], text: str, reading: str,
          harness: Mapping[str, Any]) -> None:
    """Re-judge one sample as ``reading``'s harness (``official`` leaves the record as it is); ``harness``: the
    benchmark record's ``harness`` entry (``Row``)."""
    if reading == "official":
        return
    verdict = READERS[reading](text, row_of(doc, meta, harness))
    source = SOURCES[reading].format(**harness)
    rtype = record["response_type"]
    record.update(correct=verdict == "correct", harness_correctness=verdict, harness_reading=f"{reading}: {source}",
                  response_type="correct" if verdict == "correct" else ("other" if rtype == "correct" else rtype))
