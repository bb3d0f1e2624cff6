"""Grounding answers (one point for one instruction) per output family, with the frame each family uses.

The PSS paper's prompt (appendix A) asks for relative ``[x, y]``; agent families answer in their own syntax
and frame (``gui_core.coords``): Qwen2.5-VL its grounding JSON (``{"bbox_2d": [x1, y1, x2, y2]}`` or
``{"point_2d": [x, y]}``, pixels of the image it saw), UI-TARS-1.5 ``click(point='<point>x y</point>')`` (same
frame), OS-Atlas / UI-TARS / AgentCPM-GUI their action syntax on the 0-1000 grid. Action-style answers reuse the
family's parser (``gui_core.action_parsers``); a bare point or box is read in the family's frame. A family
answering in resized pixels names the resize budget of its released checkpoints (its record's ``budget``), used only
when the backend does not report the size it fed the model. Never raises on model output; nothing is inferred
from magnitudes; non-finite or absurd numbers are format errors. Linear time in the length of the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from gui_core.action_parsers import PARSERS, Status, after_reasoning, finite_number, json_objects, parse_action
from gui_core.coords import Frame
from gui_core.grounding_authors import PHI_GROUND_CANVAS

# How strictly an answer is read: ``official`` runs the family's authors' own answer parser on the whole answer (its
# record's ``official_reader``, gui_core.grounding_authors: their (0, 0) fallbacks and dropped answers included;
# families without one read as ``benchmark``), the default; where the benchmark's repository ships its own wrapper for
# the family, a benchmark task's ``official`` reading is that wrapper's (gui_core.grounding_wrappers, applied by the
# scorer, which knows the benchmark); ``authors`` keeps the family authors' reading there too; ``benchmark`` reads the family's syntax by the benchmark's
# rule (after reasoning, an unreadable answer is a format error that counts as a miss); ``lenient`` also reads a bare
# point or box anywhere.
STRICTNESS = ("official", "authors", "benchmark", "lenient")

# Numbers start only where no digit precedes (a search cannot restart inside a run of digits: linear time).
_NUM = r"(?<![\d.])[-+]?\d+(?:\.\d+)?"
_OPEN, _CLOSE = r"[\[\(]", r"[\]\)]"
_PAIR_IN = rf"{_OPEN}\s*({_NUM})\s*,\s*({_NUM})\s*{_CLOSE}"
_BOX = re.compile(rf"{_PAIR_IN}\s*(?:,\s*)?{_PAIR_IN}")
_QUAD = re.compile(rf"{_OPEN}\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*{_CLOSE}")
_PAIR = re.compile(_PAIR_IN)
_POINT_TAG = re.compile(rf"<point>\s*({_NUM})[\s,]+({_NUM})\s*</point>")


@dataclass(frozen=True)
class PointAnswer:
    point: tuple[float, float] | None
    frame: Frame
    status: Status | Literal["dropped"]
    family: str
    detail: str = ""
    literal: tuple[float, float] | None = None
    """The two numbers as written (equal to ``point`` except for box answers, whose centre is used)."""
    truncate: bool = False
    """The authors' code truncates the point to whole pixels of the original screenshot (JEDI, UGround-V1)."""


def _numbers(values: Any, n: int) -> list[float] | None:
    if not isinstance(values, (list, tuple)) or len(values) != n:
        return None
    out = [finite_number(v) for v in values]
    return None if any(v is None for v in out) else out  # type: ignore[return-value]


def _qwen_json(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Qwen2.5-VL's grounding JSON: the first object with ``point_2d`` or ``bbox_2d``."""
    for obj in json_objects(body):
        if "point_2d" in obj:
            p = _numbers(obj["point_2d"], 2)
            if p is None:
                return PointAnswer(None, frame, "malformed", family, "point_2d is not [x, y] of finite numbers")
            return PointAnswer((p[0], p[1]), frame, "parsed", family, "point_2d", (p[0], p[1]))
        if "bbox_2d" in obj:
            b = _numbers(obj["bbox_2d"], 4)
            if b is None:
                return PointAnswer(None, frame, "malformed", family, "bbox_2d is not [x1, y1, x2, y2] of finite numbers")
            return PointAnswer(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), frame, "parsed", family, "bbox_2d centre")
    return None


def _finite(*groups: str) -> list[float] | None:
    vals = [finite_number(g) for g in groups]
    return None if any(v is None for v in vals) else vals  # type: ignore[return-value]


_PYAUTOGUI = re.compile(rf"pyautogui\.(?:click|doubleClick|rightClick|moveTo|tripleClick)\(\s*x\s*=\s*({_NUM})\s*,"
                        rf"\s*y\s*=\s*({_NUM})")
_PAREN_PAIR = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)")
_SQUARE_QUAD = re.compile(rf"\[\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\]")
_FLOATS = re.compile(r"(?<![\d.])-?\d+\.?\d*")  # SeeClick / UGround pred_2_point: re.findall(r'-?\d+\.?\d*', s)
_SHOWUI_NUMS = re.compile(r"(?<![\d.])\d*\.\d+|(?<![\d.])\d+")  # ShowUI extract_point: r"\d*\.\d+|\d+"
_TOOL_CALL = "<tool_call>\n"
_CLICK_CALL = re.compile(rf"Click\(\s*({_NUM})\s*,\s*({_NUM})\s*\)")


def _point(v: list[float] | None, frame: Frame, family: str, detail: str) -> PointAnswer:
    if v is None:
        return PointAnswer(None, frame, "malformed", family, "non-finite or out-of-range coordinates")
    return PointAnswer((v[0], v[1]), frame, "parsed", family, detail, (v[0], v[1]))


def _centre(v: list[float] | None, frame: Frame, family: str, detail: str) -> PointAnswer:
    if v is None:
        return PointAnswer(None, frame, "malformed", family, "non-finite or out-of-range coordinates")
    return PointAnswer(((v[0] + v[2]) / 2, (v[1] + v[3]) / 2), frame, "parsed", family, detail)


def _official_tool_call(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """The ScreenSpot-Pro repository's reading of a Qwen2.5-VL ``computer_use`` tool call (models/qwen2_5vl.py).

    The response is cut after its last ``}``; the text after the first ``<tool_call>\\n`` must decode as JSON whose
    ``arguments`` is an object with a ``coordinate`` of 2 numbers (a point) or 4 (a box: its centre). Anything else
    (``arguments`` a bare list, no ``coordinate``, another length) is ``wrong_format`` there: malformed here.
    None when the answer holds no tool call.
    """
    import json

    at = body.find(_TOOL_CALL)
    if at < 0:
        return None
    rest = body[at + len(_TOOL_CALL):]
    cut = rest.rfind("}")
    bad = PointAnswer(None, frame, "malformed", family, "tool call not read by the official parser")
    if cut < 0:
        return bad
    try:
        call = json.loads(rest[: cut + 1])
        coords = call["arguments"]["coordinate"]
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return bad
    if isinstance(coords, list) and len(coords) == 2:
        return _point(_numbers(coords, 2), frame, family, "tool call coordinate")
    if isinstance(coords, list) and len(coords) == 4:
        return _centre(_numbers(coords, 4), frame, family, "tool call box centre")
    return bad


def _tool_call_coordinate(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """A ``computer_use`` tool call's ``arguments.coordinate`` (Qwen2.5-VL / Qwen3-VL / JEDI), first one found."""
    for obj in json_objects(body):
        args = obj.get("arguments")
        if isinstance(args, dict) and "coordinate" in args:
            return _point(_numbers(args["coordinate"], 2), frame, family, "tool call coordinate")
    return None


def _read_qwen3_vl(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Qwen3-VL: grounding JSON ``point_2d`` / ``bbox_2d`` (also inside a list) or a tool call, on the 0-1000 grid."""
    if "point_2d" in body or "bbox_2d" in body:
        found = _qwen_json(body, frame, family)
        if found is not None:
            return found
    return _tool_call_coordinate(body, frame, family)


def _read_answer_coordinate(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """MAI-UI: ``<answer>{"coordinate": [x, y]}</answer>`` after its ``<grounding_think>`` reasoning: the first JSON
    object with a ``coordinate`` in the last answer block (no block: the text after the reasoning)."""
    end = body.rfind("</answer>")
    start = body.rfind("<answer>", 0, end) if end != -1 else -1
    if start != -1:
        text = body[start + len("<answer>"):end]
    else:
        think = body.rfind("</grounding_think>")
        text = body[think + len("</grounding_think>"):] if think != -1 else body
    for obj in json_objects(text):
        if "coordinate" in obj:
            return _point(_numbers(obj["coordinate"], 2), frame, family, "answer coordinate")
    return None


def _read_pyautogui(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Aguvis / OpenCUA: the first ``pyautogui.click(x=..., y=...)`` (or doubleClick, rightClick, moveTo, tripleClick)."""
    m = _PYAUTOGUI.search(body)
    return _point(_finite(*m.groups()), frame, family, "pyautogui call") if m else None


def _read_paren_pair(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """GTA1 / UGround-V1: the first ``(x, y)``."""
    m = _PAREN_PAIR.search(body)
    return _point(_finite(*m.groups()), frame, family, "(x, y)") if m else None


def _read_infigui(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """InfiGUI-G1 (eval/prompts.py ``extract_coordinates``): the text from the first ``[`` to the last ``]`` decodes as a
    JSON list; its first item's ``point_2d`` is the answer (the evaluation scores the first prediction)."""
    import json

    start, end = body.find("["), body.rfind("]")
    if start < 0 or end <= start:
        return None
    bad = PointAnswer(None, frame, "malformed", family, "not a JSON list of {point_2d: [x, y]}")
    try:
        preds = json.loads(body[start:end + 1])
        first = preds[0]["point_2d"]
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return bad
    return _point(_numbers(first, 2), frame, family, "point_2d")


def _read_square_point(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """UI-Venus-1.5: the first ``[x,y]`` (else a ``[x1,y1,x2,y2]`` box's centre)."""
    m = _SQUARE_PAIR.search(body)
    if m:
        return _point(_finite(*m.groups()), frame, family, "[x,y]")
    return _read_box(body, frame, family)


_SQUARE_PAIR = re.compile(rf"\[\s*({_NUM})\s*,\s*({_NUM})\s*\]")


def _read_box(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """UI-Venus-Ground: ``[x1,y1,x2,y2]``, read as its centre."""
    m = _SQUARE_QUAD.search(body)
    return _centre(_finite(*m.groups()), frame, family, "box centre") if m else None


def _read_holo(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Holo1.5: the JSON action ``{"action": "click_absolute", "x": int, "y": int}`` (the ScreenSpot-Pro runner's schema,
    decoded under that JSON schema), else the ``Click(x, y)`` its prompt asks for."""
    for obj in json_objects(body):
        if "x" in obj and "y" in obj:
            return _point(_numbers([obj["x"], obj["y"]], 2), frame, family, "click_absolute")
    m = _CLICK_CALL.search(body)
    return _point(_finite(*m.groups()), frame, family, "Click(x, y)") if m else None


def _first_numbers(pattern: re.Pattern, body: str, limit: int = 5) -> list[str]:
    out = []
    for m in pattern.finditer(body):
        out.append(m.group(0))
        if len(out) >= limit:
            break
    return out


def _read_seeclick(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """SeeClick ``pred_2_point``: all numbers of the answer; two -> the point, four -> the box centre, else nothing."""
    nums = _first_numbers(_FLOATS, body)
    if len(nums) == 2:
        return _point(_finite(*nums), frame, family, "point")
    if len(nums) == 4:
        return _centre(_finite(*nums), frame, family, "box centre")
    return None


_QWEN2_BOX = re.compile(r"<\|box_start\|>\((\d+),(\d+)\),\((\d+),(\d+)\)<\|box_end\|>")


def _read_qwen2_vl(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Qwen2-VL as the ScreenSpot-Pro runner reads it (models/qwen2vl.py): with both box tags, the centre of the LAST
    ``<|box_start|>(x1,y1),(x2,y2)<|box_end|>`` (none: wrong_format); else ``pred_2_point`` (two numbers a point, four a
    box's centre)."""
    if "<|box_start|>" in body and "<|box_end|>" in body:
        last = None
        for last in _QWEN2_BOX.finditer(body):
            pass
        if last is None:
            return PointAnswer(None, frame, "malformed", family, "box tags without (x1,y1),(x2,y2)")
        return _centre(_finite(*last.groups()), frame, family, "box centre")
    return _read_seeclick(body, frame, family)


def _read_showui(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """ShowUI ``extract_point``: the first two numbers of the answer (its ``[x, y]``)."""
    nums = _first_numbers(_SHOWUI_NUMS, body, 2)
    return _point(_finite(*nums), frame, family, "point") if len(nums) == 2 else None


def _read_qwen2_5_vl_official(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Qwen2.5-VL: a ``computer_use`` tool call as the ScreenSpot-Pro repository reads it, else its grounding JSON."""
    found = _official_tool_call(body, frame, family)
    if found is not None:
        return found
    if "point_2d" in body or "bbox_2d" in body:
        return _qwen_json(body, frame, family)
    return None


def _read_jedi(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """JEDI as OSWorld's ``parse_jedi_response`` reads it (mm_agents/jedi_7b_agent.py): a start tag (``<tool_call>``,
    else ``⚗``) and an end tag (``</tool_call>``, else ``⚗``) must both occur; the text after the first start tag up
    to the next end tag decodes as JSON whose ``arguments.coordinate`` gives x, y. Anything else is its ``[-1, -1]``
    (no point): malformed here. None when neither tag occurs."""
    import json

    start = next((t for t in ("<tool_call>", "\u2697") if t in body), None)
    end = next((t for t in ("</tool_call>", "\u2697") if t in body), None)
    if start is None and end is None:
        return None
    bad = PointAnswer(None, frame, "malformed", family, "tool call not read by JEDI's parser")
    if start is None or end is None:
        return bad
    inner = body.split(start, 2)[1].split(end, 1)[0].strip()
    try:
        coords = json.loads(inner)["arguments"]["coordinate"]
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return bad
    if not isinstance(coords, list) or len(coords) < 2:
        return bad
    return _point(_numbers(coords[:2], 2), frame, family, "tool call coordinate")


_SE_GUI_NUM = re.compile(r"\d+(?:\.\d+)?")  # SE-GUI extract_point_answer: re.findall(r'\d+(?:\.\d+)?', ...)


def _read_se_gui(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """SE-GUI ``extract_point_answer``: inside the first ``<tool_call>...</tool_call>``, the LAST two unsigned numbers.
    Its own parser turns anything else into the point (0, 0); here that is a format error (as for GTA1)."""
    at = body.find("<tool_call>")
    if at < 0:
        return None
    close = body.find("</tool_call>", at + len("<tool_call>"))
    if close < 0:
        return PointAnswer(None, frame, "malformed", family, "<tool_call> without </tool_call>")
    nums = [m.group(0) for m in _SE_GUI_NUM.finditer(body, at + len("<tool_call>"), close)]
    if len(nums) < 2:
        return PointAnswer(None, frame, "malformed", family, "tool call without two numbers")
    return _point(_finite(nums[-2], nums[-1]), frame, family, "tool call, last two numbers")


def _phi_ground_numbers(body: str, tag: str, n: int) -> list[float] | None | str:
    """``pred.split("<tag>")[1].split("</tag>")[0]`` split on ", " into ``n`` floats; "" when the tag is absent."""
    at = body.find(f"<{tag}>")
    if at < 0:
        return ""
    inner = body[at + len(tag) + 2:].split(f"</{tag}>", 1)[0]
    parts = inner.split(", ")
    if len(parts) != n:
        return None
    return _finite(*(p.strip() for p in parts))


def _read_phi_ground(body: str, frame: Frame, family: str) -> PointAnswer | None:
    """Phi-Ground as its ScreenSpot-Pro script reads it (benchmark/test_screenspot_pro.py ``get_results``):
    ``<point>x, y</point>`` (``--output_format point``, the reproduction's setting), else ``<box>x1, y1, x2, y2</box>``
    (``xyxy``: its centre), numbers on the 0-1000 grid of the 1008x672 canvas; returned in pixels of that canvas, which
    are pixels of the scaled screenshot pasted at its top left (``resized_px`` with the ``phi_ground`` budget)."""
    cw, ch = PHI_GROUND_CANVAS
    for tag, n in (("point", 2), ("box", 4)):
        nums = _phi_ground_numbers(body, tag, n)
        if nums == "":
            continue
        if nums is None:
            return PointAnswer(None, frame, "malformed", family, f"<{tag}> without {n} numbers separated by ', '")
        x, y = (nums[0], nums[1]) if n == 2 else ((nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2)
        return PointAnswer((x * cw / 1000, y * ch / 1000), frame, "parsed", family, f"{tag} on the canvas grid",
                           (nums[0], nums[1]) if n == 2 else None)
    return None


def _official(reader: Any, text: str, frame: Frame, family: str) -> PointAnswer | None:
    """The authors' reading (``gui_core.grounding_authors``) as a PointAnswer; None where it does not apply."""
    found = reader(text)
    if found is None:
        return None
    status = found.status
    if status == "malformed" and not text.strip():
        status = "empty"
    if found.point is not None and not all(finite_number(v) is not None for v in found.point):
        # beyond MAX_COORD or not finite: outside every box, a miss there too; a format error here (issue 21)
        return PointAnswer(None, frame, "malformed", family, "non-finite or out-of-range coordinates")
    return PointAnswer(found.point, frame, status, family, found.detail, found.literal, found.truncate)


def parse_point(text: Any, family: str, strictness: str = "official") -> PointAnswer:
    """The point of a grounding answer in ``family``'s frame, read by its authors' parser (``official``), by the
    benchmark's rule (``benchmark``) or leniently (``STRICTNESS``). ``text`` is the whole answer: the authors' parsers
    see the reasoning too (as their code does); the other readings read after it."""
    from gui_core.family import FAMILIES

    fam = FAMILIES.get(family)
    if not fam.grounds:
        known = [f.name for f in FAMILIES.values() if f.grounds]
        raise ValueError(f"family {family!r} has no grounding reading; families with one: {', '.join(known)}")
    family = fam.name
    if strictness not in STRICTNESS:
        raise ValueError(f"unknown strictness {strictness!r}; known: {', '.join(STRICTNESS)}")
    frame, action_family = fam.frame, fam.action_parser
    if strictness in ("official", "authors") and fam.official_reader is not None:
        found = _official(fam.official_reader, text if isinstance(text, str) else "", frame, family)
        if found is not None:
            return found
    if not isinstance(text, str) or not text.strip():
        return PointAnswer(None, frame, "empty", family, "empty output")
    body = after_reasoning(text)
    if strictness != "lenient" and fam.tool_call_reader is not None and _TOOL_CALL in body:
        found = fam.tool_call_reader(body, frame, family)
        if found is not None:
            return found
    if fam.reader is not None:
        found = fam.reader(body, frame, family)
        if found is not None:
            return found
        if strictness != "lenient":
            return PointAnswer(None, frame, "malformed", family, f"no {fam.syntax}")
    if fam.reads_qwen_json and ("point_2d" in body or "bbox_2d" in body):
        found = _qwen_json(body, frame, family)
        if found is not None:
            return found
    if action_family is not None and action_family in PARSERS:
        parsed = parse_action(body, action_family)
        if parsed.status == "parsed" and parsed.action is not None and parsed.action.point is not None:
            p = parsed.action.point
            return PointAnswer(p, parsed.action.frame or frame, "parsed", family, "action", p)
    bad = PointAnswer(None, frame, "malformed", family, "non-finite or out-of-range coordinates")
    m = _POINT_TAG.search(body)
    if m and family != "relative":
        v = _finite(*m.groups())
        return PointAnswer((v[0], v[1]), frame, "parsed", family, "point tag", (v[0], v[1])) if v else bad
    if family != "relative":
        m = _BOX.search(body) or _QUAD.search(body)
        if m:
            v = _finite(*m.groups())
            if v is None:
                return bad
            return PointAnswer(((v[0] + v[2]) / 2, (v[1] + v[3]) / 2), frame, "parsed", family, "box centre")
    m = _PAIR.search(body)
    if m:
        v = _finite(*m.groups())
        return PointAnswer((v[0], v[1]), frame, "parsed", family, "point", (v[0], v[1])) if v else bad
    return PointAnswer(None, frame, "malformed", family, "no point")
