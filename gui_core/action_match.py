"""Step-wise action matching: StaR's rule (appendix A.2) and the AITW rule, as named choices.

Every result records the rule that produced it, so a reported AMR says how it was matched.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from gui_core.actions import Action
from gui_core.coords import Geometry, convert

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 on the 0-1000 grid


@dataclass(frozen=True)
class MatchRule:
    """How CLICK/LONG_PRESS points are compared; text and direction rules are StaR's for both."""

    name: str
    kind: str  # "star" | "aitw": whose rule it is (what it does is said by the fields below)
    threshold: float  # StaR: distance on the 0-1000 grid; AITW: distance in relative (y, x)
    box_scale: float = 1.0  # AITW: each box grows to this multiple of its size on both axes
    # StaR: a point hits inside the gold element's box, else within ``threshold`` on the grid; AITW (False): both points
    # in one grown box, else within ``threshold`` in relative (y, x)
    element_box: bool = True
    # AITW: an action without a point matches by type alone, a drag by its main axis
    by_type_and_axis: bool = False


# StaR appendix A.2: toggles are fine-grained, so d <= 40 on the 0-1000 grid (4% of the screen);
# agentic benchmarks keep the common 14% (d <= 140).
STAR_STATE_CONTROL = MatchRule("star-a2-d40", "star", 40.0)
STAR_AGENTIC = MatchRule("star-a2-d140", "star", 140.0)
# google-research android_in_the_wild/action_matching.py: ANNOTATION_{WIDTH,HEIGHT}_AUGMENT_FRACTION = 1.4, which
# its docstring spells out as "1.4 == 240% total increase" (_resize_annotation_bounding_boxes adds 1.4x the size,
# half on each side): boxes grow to 2.4x; taps match within 0.14 of the screen in relative (y, x).
AITW = MatchRule("aitw-2.4x-0.14", "aitw", 0.14, box_scale=2.4, element_box=False, by_type_and_axis=True)
# A touch that moves at most 4% of the screen is a tap (AITW); longer ones are drags.
AITW_TAP_DISTANCE = 0.04
RULES = {r.name: r for r in (STAR_STATE_CONTROL, STAR_AGENTIC, AITW)}


@dataclass(frozen=True)
class MatchResult:
    type_match: bool
    exact: bool
    rule: str


def _inside(p: tuple[float, float], box: Box) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def aitw_grown(box: Box, scale: float = 2.4) -> Box:
    """A grid box grown as AITW's ``_resize_annotation_bounding_boxes`` does, in relative (y, x, h, w): top/left move
    out by half the growth and stop at 0, height/width become ``scale`` times theirs capped at 1 (the cap is on the
    size, not the far edge, as in the official code)."""
    x, y, w, h = box[0] / 1000, box[1] / 1000, (box[2] - box[0]) / 1000, (box[3] - box[1]) / 1000
    grow = scale - 1
    top, left = max(0.0, y - grow * h / 2), max(0.0, x - grow * w / 2)
    height, width = min(1.0, h + grow * h), min(1.0, w + grow * w)
    return left * 1000, top * 1000, (left + width) * 1000, (top + height) * 1000


def _stem_words(name: str) -> str:
    from nltk.stem import PorterStemmer  # offline: the Porter stemmer needs no downloaded data

    stem = PorterStemmer().stem
    return " ".join(stem(w) for w in re.findall(r"\w+", name.lower()))


def app_names_match(pred: str, gold: str) -> bool:
    """StaR A.2 OPENAPP: lower-cased, stemmed names match if either is a substring of the other."""
    a, b = _stem_words(pred), _stem_words(gold)
    return bool(a and b) and (a in b or b in a)


def points_match(pred: tuple[float, float], gold: tuple[float, float], boxes: Sequence[Box], rule: MatchRule, *,
                 target_box: Box | None = None) -> bool:
    """Points on the 0-1000 grid. StaR: inside the gold element's box (``target_box`` where the dataset names it,
    GUI-Odyssey's ``sam2_bbox``; else the smallest box holding the gold point), else within the threshold."""
    if rule.element_box:
        if target_box is not None:
            return _inside(pred, target_box) or math.dist(pred, gold) <= rule.threshold
        # the element the gold point falls in: the smallest box holding it (rows contain their switches)
        hit = min((b for b in boxes if _inside(gold, b)), key=lambda b: (b[2] - b[0]) * (b[3] - b[1]), default=None)
        if hit is not None and _inside(pred, hit):
            return True
        return math.dist(pred, gold) <= rule.threshold
    # AITW: both points in the same enlarged annotation box, or close in relative (y, x) coordinates.
    if any(_inside(pred, g) and _inside(gold, g) for g in (aitw_grown(b, rule.box_scale) for b in boxes)):
        return True
    return math.dist((pred[1] / 1000, pred[0] / 1000), (gold[1] / 1000, gold[0] / 1000)) <= rule.threshold


_AXIS = {"UP": "vertical", "DOWN": "vertical", "LEFT": "horizontal", "RIGHT": "horizontal"}


def match(pred: Action | None, gold: Action, geometry: Geometry, *, rule: MatchRule = STAR_AGENTIC,
          boxes: Sequence[Box] = (), target_box: Box | None = None) -> MatchResult:
    """Type match and exact match of a predicted action (None: unparseable) against the ground truth.

    AITW (``check_actions_match``): an action that is not a dual point matches by type alone (typed text is never
    compared), drags match on their main axis alone (UP matches DOWN)."""
    if pred is None or pred.type != gold.type:
        return MatchResult(False, False, rule.name)
    if rule.by_type_and_axis and gold.point is None and gold.type != "SCROLL":
        return MatchResult(True, True, rule.name)
    if gold.type == "SCROLL" and rule.by_type_and_axis:
        ok = pred.direction is not None and _AXIS.get(pred.direction) == _AXIS.get(gold.direction or "")
    elif gold.type == "SCROLL":  # by direction, also when the scroll has a point (GUI Knowledge Bench)
        ok = pred.direction == gold.direction
    elif gold.type == "DRAG":
        ok = pred.end_point is not None and all(
            points_match(convert(p, pred.frame, "grid1000", geometry), convert(g, gold.frame, "grid1000", geometry), (), rule)
            for p, g in ((pred.point, gold.point), (pred.end_point, gold.end_point)))
    elif gold.point is not None:
        ok = points_match(pred.point_in("grid1000", geometry), gold.point_in("grid1000", geometry), boxes, rule,
                          target_box=target_box)
    elif gold.type == "HOTKEY":
        ok = sorted((pred.text or "").lower().split()) == sorted((gold.text or "").lower().split())
    elif gold.type == "TYPE":
        ok = (pred.text or "").strip().lower() == (gold.text or "").strip().lower()
    elif gold.type == "OPENAPP":
        ok = app_names_match(pred.text or "", gold.text or "")
    else:  # parameterless actions match by type
        ok = True
    return MatchResult(True, ok, rule.name)


def classify_touch(touch: tuple[float, float], lift: tuple[float, float]) -> tuple[str, str | None]:
    """AITW gestures in relative coordinates: ("tap", None) or ("drag", main-axis direction of the finger)."""
    dx, dy = lift[0] - touch[0], lift[1] - touch[1]
    if math.hypot(dx, dy) <= AITW_TAP_DISTANCE:
        return "tap", None
    if abs(dx) >= abs(dy):
        return "drag", "RIGHT" if dx > 0 else "LEFT"
    return "drag", "DOWN" if dy > 0 else "UP"
