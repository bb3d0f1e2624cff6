"""OSWorld-G as each harness that publishes its numbers reads an answer: ``official``, ``vlmevalkit``, ``lmms_eval``.

One task metadata key, ``reading``, selects everything (the reader of the answer, the frame test, the polygon rule,
the refusal form, the category an item counts in); it travels on the score parameters (``ScoreParams.reading``) and
is recorded in every sample record. Each reading is a function ``(answer text, row) -> Verdict``, the form the
cross-harness agreement table calls (``READERS[name](text, row)``):

- ``row`` is a release row as ``OSWorld-G.json`` holds it: ``box_type`` (bbox | polygon | refusal),
  ``box_coordinates`` (bbox ``[x, y, w, h]`` pixels; polygon a flat ``[x0, y0, x1, y1, ...]``; refusal anything),
  ``image_size = [w, h]``, and ``groups``: the categories of ``classification_result.json`` holding its id (empty or
  absent: in none).
- ``Verdict.correct`` is what the harness counts; ``status`` says how the answer was read (``parsed``, ``refusal``,
  ``unreadable``: the harness's fallback was scored, ``skipped``: the harness leaves it uncounted but in the
  denominator, ``error``: the harness itself stops on this row); ``point`` the pixel point tested; ``groups`` the
  categories it counts in, as that harness names them.

The differential corpus these are checked on (rows, answers, and each harness's own verdict: ``correct`` | ``wrong``
| ``error``) is ``tests/fixtures/differential/osworld_g/corpus.json``, written by
``tests/fixtures/make_osworld_g_corpus.py``; compare ``"error" if v.status == "error" else "correct" if v.correct
else "wrong"`` with ``entry["verdicts"][name]``, the ``lmms_eval`` reading on ``strip_reasoning(text)``.

**official** is ``GroundingEval._eval`` of the authors' repository ``xlang-ai/OSWorld-G`` ``evaluation/eval.py``, the
scorer behind the OSWorld-G / Jedi paper's tables. That repository is not in the stores we can read (docs/osworld_g.md
says what was searched); its ``_eval`` is read in the copy VLMEvalKit's pull request #1020 carries
(``vlmeval/dataset/GUI/osworld_g.py`` @ d47d6c727344c3c80f5589878ea50e8148416af9, ``OSWorldG._eval``, the signature
``Onifin/Holo3.1-OSWorld-G`` ``evaluation/holo_osworld_g.py`` @ 0fbdd89 calls, ``from eval import GroundingEval``).
The authors' scripts hand it ``[x1, y1, x2, y2]`` from their per-model readers (a point twice; a refusal as
``[-1, -1, -1, -1]``; an unreadable answer as ``[0, 0, 0, 0]``); ``_eval`` scales them by the image size when all four
lie in [0, 1] (else reads them as pixels), takes the centre, and tests it: a bbox ``[x, y, w, h]`` inclusive, a
polygon by the even-odd crossing test over ``len // 2`` vertices, a refusal item correct when both centre
coordinates are negative. Categories as the scripts' ``accuracy_dict_group``: an item in none counts as
``unclassified``. Here the per-model reader is the task family's (its authors' own, ``gui_core.grounding``); a family
answering fractions (``relative``) hands its numbers as written, any other family its point in original pixels.

**vlmevalkit** is the whole of that pull request's ``OSWorldG.evaluate`` @ d47d6c7 with its reader
``parse_aguvis_coordinates``: only the answer's first line is read; ``pyautogui.click`` / ``pyautogui.moveTo`` with
``x=`` and ``y=`` parts gives the point (a part that ``float`` cannot read raises: the row is ``continue``-d, counted
in the total and never correct), without both parts ``[0, 0, 0, 0]``; else ``wait`` anywhere in the line is a refusal
``[-1, -1, -1, -1]``; anything else ``[0, 0, 0, 0]`` (a click at the image's origin). Scored by the same ``_eval``.
The row's ``bbox`` and ``image_size`` are read from the TSV's list strings (``get_float_list``: ``[]`` raises
``ValueError``, which stops the whole evaluation: that row's verdict is ``error``); the categories from the TSV's
``classification_list`` string (``get_classification_list``: an empty list reads as one category named ``""``).
(VLMEvalKit's main branch carries another class, ``OSWorld_G`` @ b50c3e9 / 401916c, a ScreenSpot-style bbox scorer
over a different TSV: not this reading.)

**lmms_eval** is lmms-eval 0.7.3's own task ``lmms_eval/tasks/osworld_g/utils.py`` (``osworld_g_process_results``):
its reader ``_parse_point`` (a ``<bbox>`` tag's four numbers, a bracketed pair, ``x: .. y: ..``, four numbers beside
"box"-like words, else the first two numbers; ``%`` divides by 100); both coordinates in [0, 1] scale by the image
size, else pixels; bbox inclusive; a polygon of four numbers is a rectangle, of an odd count or fewer than three
vertices never hit; refusal: both negative; an unreadable answer is wrong. lmms-eval strips reasoning blocks before
scoring with its default ``--reasoning_tags`` (``REASONING_TAGS``); the function takes the text as its scorer sees it.
It has no categories (accuracy per box type); an item keeps the release's categories here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

READINGS = ("official", "vlmevalkit", "lmms_eval")
# the polygon rule each reading applies (the old task key ``polygon_rule`` named these two)
POLYGON_RULE = {"official": "official", "vlmevalkit": "official", "lmms_eval": "lmms_eval"}
SOURCES = {
    "official": "xlang-ai/OSWorld-G evaluation/eval.py GroundingEval._eval (not fetchable here), read in "
                "open-compass/VLMEvalKit PR #1020 vlmeval/dataset/GUI/osworld_g.py @ d47d6c7 OSWorldG._eval",
    "vlmevalkit": "open-compass/VLMEvalKit PR #1020 vlmeval/dataset/GUI/osworld_g.py @ d47d6c7 "
                  "(OSWorldG.evaluate, parse_aguvis_coordinates, _eval)",
    "lmms_eval": "lmms-eval 0.7.3 lmms_eval/tasks/osworld_g/utils.py (osworld_g_process_results, _parse_point)",
}
# lmms-eval 0.7.3 __main__.py --reasoning_tags default: what its own osworld_g task's scorer sees
REASONING_TAGS = (("<think>", "</think>"), ("<analysis>", "</analysis>"))
UNCLASSIFIED = "unclassified"


@dataclass(frozen=True)
class Verdict:
    """One answer as a harness counts it (module docstring)."""

    correct: bool
    status: str  # parsed | refusal | unreadable | skipped | error
    point: tuple[float, float] | None  # the pixel point tested (None: nothing tested)
    groups: tuple[str, ...]
    detail: str = ""


# --- geometry ----------------------------------------------------------------------------------------------------


def point_in_polygon(x: float, y: float, flat: Sequence[float], rule: str = "official") -> bool:
    """Even-odd crossing test over the flat vertex list: ``GroundingEval._eval`` (``official``: ``len // 2``
    vertices) or lmms-eval's ``_point_in_polygon`` (``lmms_eval``: four numbers are a rectangle, an odd count or fewer
    than three vertices never hit)."""
    if rule == "lmms_eval":
        if len(flat) == 4:
            x1, y1, x2, y2 = flat
            return min(x1, x2) <= x <= max(x1, x2) and min(y1, y2) <= y <= max(y1, y2)
        if len(flat) % 2 or len(flat) < 6:
            return False
    n = len(flat) // 2
    inside = False
    for i in range(n):
        j = (i - 1) % n
        xi, yi, xj, yj = flat[2 * i], flat[2 * i + 1], flat[2 * j], flat[2 * j + 1]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
    return inside


def hit(x: float, y: float, box_type: str, coords: Sequence[float], rule: str = "official") -> bool:
    """Whether the pixel point is correct for the item: bbox ``[x, y, w, h]`` edges inside, polygon by ``rule``,
    refusal when both coordinates are negative (any other box type: never)."""
    if box_type == "bbox":
        left, top, w, h = coords[0], coords[1], coords[2], coords[3]
        return left <= x <= left + w and top <= y <= top + h
    if box_type == "polygon":
        return point_in_polygon(x, y, coords, rule)
    if box_type == "refusal":
        return x < 0 and y < 0
    return False


def grounding_eval(handed: Sequence[float], box_type: str, coords: Sequence[float],
                   size: Sequence[float]) -> tuple[bool, tuple[float, float]]:
    """``GroundingEval._eval``: ``[x1, y1, x2, y2]`` scaled by the image size when all four lie in [0, 1], its centre
    tested against the item. Returns (correct, centre in pixels)."""
    c = list(handed)
    if all(0 <= v <= 1 for v in c):
        c = [v * size[i % 2] for i, v in enumerate(c)]
    cx, cy = (c[0] + c[2]) / 2, (c[1] + c[3]) / 2
    return hit(cx, cy, box_type, coords, "official"), (cx, cy)


# --- rows --------------------------------------------------------------------------------------------------------


def _size(row: Mapping[str, Any]) -> tuple[float, float]:
    size = row.get("image_size") or ()
    return float(size[0]), float(size[1])


def _groups(row: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(g) for g in row.get("groups") or ())


def _official_groups(row: Mapping[str, Any]) -> tuple[str, ...]:
    return _groups(row) or (UNCLASSIFIED,)


# --- official ----------------------------------------------------------------------------------------------------


def official_verdict(handed: Sequence[float] | None, row: Mapping[str, Any], *, refused: bool = False) -> Verdict:
    """``GroundingEval._eval`` on what an authors' reader hands it: the two numbers of a point (as written for a
    fraction-answering family, else original pixels), ``refused`` for the reader's refusal ``[-1, -1, -1, -1]``, or
    ``None`` for an unreadable answer (the readers' ``[0, 0, 0, 0]``)."""
    if row["box_type"] == "bbox" and len(row["box_coordinates"]) < 4:
        return Verdict(False, "error", None, _official_groups(row), "bbox [x, y] without [w, h]: _eval raises IndexError")
    if refused:
        four, status = [-1.0, -1.0, -1.0, -1.0], "refusal"
    elif handed is None:
        four, status = [0.0, 0.0, 0.0, 0.0], "unreadable"
    else:
        four, status = [handed[0], handed[1], handed[0], handed[1]], "parsed"
    correct, centre = grounding_eval(four, str(row["box_type"]), list(row["box_coordinates"]), _size(row))
    return Verdict(bool(correct), status, centre, _official_groups(row))


def handed_numbers(answer: Any, width: int, height: int) -> tuple[float, float] | None:
    """The two numbers an authors' reader hands ``_eval`` for a parsed ``gui_core.grounding.PointAnswer``: a fraction
    family's numbers as written, any other family's point in original pixels (None when there is no finite point)."""
    from gui_core.geometry import answer_geometry

    if answer.point is None or not all(math.isfinite(v) for v in answer.point):
        return None
    if answer.frame == "relative":
        return float(answer.point[0]), float(answer.point[1])
    rel, _ = answer_geometry(answer, width, height)
    if answer.truncate:  # JEDI's and UGround-V1's code click whole original pixels (int)
        return float(int(rel[0] * width)), float(int(rel[1] * height))
    return rel[0] * width, rel[1] * height


def official(text: str, row: Mapping[str, Any], family: str = "relative", refusal_phrase: bool = False) -> Verdict:
    """The ``official`` reading of an answer in ``family``'s syntax (the PSS prompt's ``relative`` by default)."""
    from gui_core.grounding import parse_point

    size = _size(row)
    answer = parse_point(text, family, strictness="official")
    refused = (answer.point is None and refusal_phrase
               and "target does not exist" in str(text).lower())
    return official_verdict(handed_numbers(answer, int(size[0]), int(size[1])), row, refused=refused)


# --- VLMEvalKit --------------------------------------------------------------------------------------------------


class _Unreadable(ValueError):
    """``float()`` of a part raised inside ``parse_aguvis_coordinates``: ``evaluate`` skips the row (``continue``)."""


def aguvis_coordinates(prediction: str) -> tuple[list[float], str]:
    """``parse_aguvis_coordinates`` (VLMEvalKit PR #1020 @ d47d6c7): ``[x, y, x, y]`` (``parsed``), ``[-1] * 4`` for
    ``wait`` (``refusal``), ``[0] * 4`` for anything else (``unreadable``); raises ``_Unreadable`` where it raises."""
    first = prediction.strip().split("\n")[0]
    if "pyautogui.click" not in first and "pyautogui.moveTo" not in first:
        return ([-1.0] * 4, "refusal") if "wait" in first else ([0.0] * 4, "unreadable")
    got: dict[str, float] = {}
    for part in first.split(","):
        key = "x" if "x=" in part else "y" if "y=" in part else None
        if key is None:
            continue
        raw = part.split("=")[1].strip()
        try:
            got[key] = float(raw if key == "x" else raw.rstrip(")"))
        except ValueError as exc:
            raise _Unreadable(str(exc)) from None
    if "x" in got and "y" in got:
        return [got["x"], got["y"], got["x"], got["y"]], "parsed"
    return [0.0] * 4, "unreadable"


def _tsv_floats(values: Sequence[Any]) -> list[float]:
    """``get_float_list`` on the TSV's list string: ``"[]"`` gives ``float('')``, which raises."""
    if len(values) == 0:
        raise ValueError("could not convert string to float: ''")
    return [float(v) for v in values]


def _tsv_groups(groups: tuple[str, ...]) -> tuple[str, ...]:
    """``get_classification_list`` on the TSV's ``classification_list`` string: ``"[]"`` is one category ``""``."""
    return groups if groups else ("",)


def vlmevalkit(text: str, row: Mapping[str, Any]) -> Verdict:
    """VLMEvalKit PR #1020 ``OSWorldG.evaluate`` @ d47d6c7 on one row (module docstring)."""
    groups = _tsv_groups(_groups(row))
    try:
        four, status = aguvis_coordinates(str(text))
    except _Unreadable as exc:
        return Verdict(False, "skipped", None, groups, f"parse_aguvis_coordinates raised ({exc}): continue")
    try:
        coords, size = _tsv_floats(row["box_coordinates"]), _tsv_floats(row["image_size"])
    except ValueError as exc:
        return Verdict(False, "error", None, groups,
                       f"get_float_list raised ({exc}): osworld_g.py OSWorldG.evaluate stops on this row")
    if row["box_type"] not in ("bbox", "polygon", "refusal"):  # evaluate's if / elif chain binds no boxes_type
        return Verdict(False, "error", None, groups, f"box_type {row['box_type']!r}: evaluate leaves boxes_type unbound "
                                                     "(on a first row it raises; later rows reuse the previous box)")
    if row["box_type"] == "bbox" and len(coords) < 4:
        return Verdict(False, "error", None, groups, "bbox[2:] has fewer than two sizes: _eval raises IndexError")
    correct, centre = grounding_eval(four, str(row["box_type"]), coords, size)
    return Verdict(bool(correct), status, centre, groups)


# --- lmms-eval ---------------------------------------------------------------------------------------------------

_NUM = r"-?\d+(?:\.\d+)?%?"
_BBOX_TAG = re.compile(r"<\s*bbox[^>]*>(.*?)<\s*/\s*bbox\s*>", re.IGNORECASE | re.DOTALL)
_PAIR = re.compile(rf"[\[(]\s*({_NUM})\s*(?:,|\s)\s*({_NUM})\s*[\])]")
_XY = re.compile(rf"['\"]?x['\"]?\s*[:=]\s*({_NUM}).*?['\"]?y['\"]?\s*[:=]\s*({_NUM})", re.IGNORECASE | re.DOTALL)
_BOX_WORDS = ("bbox", "box", "rect", "rectangle")


def _number(token: str) -> float:
    token = token.strip()
    return float(token[:-1]) / 100.0 if token.endswith("%") else float(token)


def lmms_eval_point(prediction: str) -> tuple[float, float] | None:
    """lmms-eval 0.7.3 ``tasks/osworld_g/utils.py`` ``_parse_point``: the answer's point as written, or None."""
    tag = _BBOX_TAG.search(prediction)
    if tag:
        inner = re.findall(_NUM, tag.group(1))
        if len(inner) >= 4:
            a, b, c, d = (_number(v) for v in inner[:4])
            return (a + c) / 2.0, (b + d) / 2.0
    for pattern in (_PAIR, _XY):
        m = pattern.search(prediction)
        if m:
            return _number(m.group(1)), _number(m.group(2))
    numbers = re.findall(_NUM, prediction)
    if len(numbers) >= 4 and any(w in prediction.lower() for w in _BOX_WORDS):
        a, b, c, d = (_number(v) for v in numbers[:4])
        return (a + c) / 2.0, (b + d) / 2.0
    if len(numbers) >= 2:
        return _number(numbers[0]), _number(numbers[1])
    return None


def lmms_eval(text: str, row: Mapping[str, Any]) -> Verdict:
    """lmms-eval 0.7.3 ``osworld_g_process_results`` on one row (module docstring); ``text`` as its scorer sees it."""
    point = lmms_eval_point(str(text))
    groups = _groups(row)
    if point is None:
        return Verdict(False, "unreadable", None, groups)
    w, h = _size(row)
    x, y = point
    if 0 <= x <= 1 and 0 <= y <= 1:
        x, y = x * w, y * h
    box_type = str(row["box_type"]).lower()
    coords = list(row["box_coordinates"])
    if box_type == "bbox" and len(coords) != 4:  # _point_in_bbox unpacks four numbers: process_results raises
        return Verdict(False, "error", (x, y), groups, f"bbox of {len(coords)} numbers: _point_in_bbox raises ValueError")
    correct = hit(x, y, box_type, coords, "lmms_eval")
    return Verdict(bool(correct), "parsed", (x, y), groups)


def strip_reasoning(text: str) -> str:
    """The answer as lmms-eval 0.7.3's scorer sees it with its default ``--reasoning_tags`` (``api/reasoning.py``
    ``strip_reasoning_tags``, called here so the two cannot drift)."""
    from lmms_eval.api.reasoning import strip_reasoning_tags

    return strip_reasoning_tags(text, [list(p) for p in REASONING_TAGS])


READERS: dict[str, Callable[[str, Mapping[str, Any]], Verdict]] = {
    "official": official, "vlmevalkit": vlmevalkit, "lmms_eval": lmms_eval}


def check_reading(reading: str, polygon_rule: Any = None) -> str:
    """``reading`` if known; the old key ``polygon_rule`` is accepted only where it names the reading's own rule."""
    if reading not in READINGS:
        raise ValueError(f"reading {reading!r} unknown for OSWorld-G; known: {', '.join(READINGS)}")
    if polygon_rule is not None and polygon_rule != POLYGON_RULE[reading]:
        raise ValueError(f"polygon_rule {polygon_rule!r} is folded into 'reading' (one key selects the reader, the "
                         f"frame test, the polygon rule and the categories): with reading {reading!r} the polygon rule "
                         f"is {POLYGON_RULE[reading]!r}; for lmms-eval's rule set 'reading: lmms_eval' and drop polygon_rule")
    return reading
