"""The grounding families' own answer parsers, reproduced: the ``official`` reading (issue 35, item 3).

Each reader does what the authors' evaluation code does with the raw answer (no reasoning is stripped unless the
authors strip it), including where that departs from the benchmark's rule: an unreadable answer that the authors'
code turns into the click (0, 0) is that click here (status ``malformed``, point (0, 0)); an answer the authors'
script leaves out of its results is ``dropped`` (not in the accuracy's denominator). Python ``eval`` readers
(UI-Venus-Ground-7B, UGround-V1) are reproduced on a safe subset: literals, containers, arithmetic; a name or a call
is never run and reads as an answer ``eval`` could not use. ``tests/test_grounding_differential.py`` checks every
reader against the authors' code on a hostile corpus (sources: repository, path and commit per corpus). Never
raises on model output; linear time in the answer's length except where noted.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from gui_core.python_literal import _Refused, python_eval  # noqa: F401  (python_eval: the tests' entry)

Frame = str
OfficialStatus = Literal["parsed", "malformed", "empty", "dropped"]


@dataclass(frozen=True)
class Official:
    """One official reading: a point (or None), whether the answer was read, and how the authors treat it."""

    point: tuple[float, float] | None
    status: OfficialStatus
    detail: str
    literal: tuple[float, float] | None = None
    truncate: bool = False
    """The authors truncate the point to whole pixels of the original screenshot (``int(...)``)."""


_ORIGIN = (0.0, 0.0)


def _num(v: Any) -> float | None:
    """``v`` as a float where Python arithmetic takes it as a real number (bool, int, float), else None."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    return None


def _finite(p: tuple[float, float] | None) -> bool:
    return p is not None and all(math.isfinite(v) for v in p)


# --- the readers ----------------------------------------------------------------------------------------------------


def _is_digit(c: str) -> bool:
    """What ``\\d`` matches in a str pattern: a Unicode decimal digit (category Nd)."""
    return c.isdecimal()


def _gta_number(s: str) -> bool:
    """Whether ``s`` matches ``-?\\d*\\.?\\d+`` whole (checked without backtracking)."""
    if s.startswith("-"):
        s = s[1:]
    return bool(s) and s.count(".") <= 1 and _is_digit(s[-1]) and all(c == "." or _is_digit(c) for c in s)


def _gta1_pairs(text: str) -> list[tuple[str, str]]:
    """Every match of GTA1's ``\\((-?\\d*\\.?\\d+),\\s*(-?\\d*\\.?\\d+)\\)`` (``re.findall``), found in linear time.

    A group is followed by ``,`` or ``)``, neither of which it can hold, so each group is the whole run of digits,
    dots and minus signs after its opening character, and must match the number pattern whole.
    """
    out: list[tuple[str, str]] = []
    n, at = len(text), text.find("(")
    while at >= 0:
        i = j = at + 1
        while j < n and (text[j] in ".-" or _is_digit(text[j])):
            j += 1
        nxt = at + 1
        if j < n and text[j] == "," and _gta_number(text[i:j]):
            k = j + 1
            while k < n and text[k].isspace():
                k += 1
            m = k
            while m < n and (text[m] in ".-" or _is_digit(text[m])):
                m += 1
            if m < n and text[m] == ")" and _gta_number(text[k:m]):
                out.append((text[i:j], text[k:m]))
                nxt = m + 1
        at = text.find("(", nxt)
    return out


def read_gta1(text: str) -> Official:
    """Yan98/GTA1 README ``extract_coordinates``: every ``(x,y)`` as ``int``s, the first one answers; any failure (no
    match, or ``int()`` failing on any match, a decimal) is the point (0, 0)."""
    pairs = _gta1_pairs(text)
    if not pairs:
        return Official(_ORIGIN, "malformed", "no (x,y): GTA1's extract_coordinates answers (0, 0)")
    try:
        ints = [(int(a), int(b)) for a, b in pairs]
    except ValueError:
        return Official(_ORIGIN, "malformed", "int() fails on a decimal: GTA1's extract_coordinates answers (0, 0)")
    p = (_num(ints[0][0]), _num(ints[0][1]))
    return Official(p, "parsed", "(x,y)", p)  # type: ignore[arg-type]


_INT64 = 2 ** 63


def _eval_number(v: Any) -> float | None:
    """A value divided by a torch int64 tensor and passed to ``float()`` (UI-Venus-Ground-7B): bool, int, float."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, int):
        return float(v) if -_INT64 <= v < _INT64 else None  # a larger int does not convert to a tensor
    if isinstance(v, float):
        return v
    return None


def read_ui_venus(text: str) -> Official:
    """inclusionAI/UI-Venus ``ui_venus_ground_7b.py``: ``eval`` of the whole answer, items 0-3 over the resized size
    (their centre); any failure is the box [0, 0, 0, 0], whose centre is the point (0, 0)."""
    bad = Official(_ORIGIN, "malformed", "eval of the answer fails: UI-Venus-Ground-7B's box is [0, 0, 0, 0]")
    try:
        box = python_eval(text)
        vals = [_eval_number(box[i]) for i in (1, 0, 3, 2)]
    except Exception:  # noqa: BLE001 - any failure of eval or of indexing is the authors' bare except
        return bad
    if any(v is None for v in vals):
        return bad
    y1, x1, y2, x2 = vals  # type: ignore[misc]
    return Official(((x1 + x2) / 2, (y1 + y2) / 2), "parsed", "eval box centre")


_V15_BOX = re.compile(r"\[\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*\]")
_V15_POINT = re.compile(r"\[\s*-?\d+\s*,\s*-?\d+\s*\]")
_V15_TWO = re.compile(r"\[\s*-?\d+\s*,\s*-?\d+\s*\],\s*\[\s*-?\d+\s*,\s*-?\d+\s*\]")


def read_ui_venus_1_5(text: str) -> Official:
    """inclusionAI/UI-Venus ``ui_venus1_5_gd.py`` ``_parse_point``: ``[x,y]`` (or a box / two points: the centre) on the
    0-1000 grid; else the integers inside the first ``[...]``; ``[-1,-1]`` is its "infeasible" (a miss)."""
    bad = Official(None, "malformed", "not read by UI-Venus-1.5's _parse_point (wrong_format)")
    t = text.strip()
    try:
        if _V15_BOX.fullmatch(t):
            box = ast.literal_eval(t)
            point = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]
        elif _V15_POINT.fullmatch(t):
            point = ast.literal_eval(t)
        elif _V15_TWO.fullmatch(t.replace(" ", "")):
            b = ast.literal_eval("[" + t + "]")
            point = [(b[0][0] + b[1][0]) / 2, (b[0][1] + b[1][1]) / 2]
        else:
            point = list(map(int, t.split("]")[0].split("[")[1].split(",")))
        if point == [-1, -1]:
            return Official((-1.0, -1.0), "parsed", "[-1,-1]: infeasible")
        x, y = float(point[0] / 1000) * 1000, float(point[1] / 1000) * 1000
    except (ValueError, SyntaxError, IndexError, TypeError, OverflowError, MemoryError, RecursionError):
        return bad
    return Official((x, y), "parsed", "[x,y] on the 0-1000 grid", (x, y))


def _holo_schema():
    """ScreenSpot-Pro-GUI-Grounding models/holo1_5.py ``ClickAbsoluteAction`` (validated with pydantic as there)."""
    from pydantic import BaseModel

    class ClickAbsoluteAction(BaseModel):
        action: Literal["click_absolute"] = "click_absolute"
        x: int
        y: int

    return ClickAbsoluteAction


_HOLO = None


def read_holo1_5(text: str) -> Official:
    """Holo1.5 as the ScreenSpot-Pro runner reads it: the whole (stripped) answer validated as ``ClickAbsoluteAction``
    JSON; anything else is its ``point: None`` (wrong_format; the runner's sampled retries cannot be replayed)."""
    global _HOLO
    from pydantic import ValidationError

    if _HOLO is None:
        _HOLO = _holo_schema()
    try:
        action = _HOLO.model_validate_json(text.strip())
    except (ValidationError, ValueError, RecursionError):
        return Official(None, "malformed", "not a ClickAbsoluteAction JSON (wrong_format)")
    p = (_num(action.x), _num(action.y))
    return Official(p, "parsed", "click_absolute", p)  # type: ignore[arg-type]


def read_infigui_g1(text: str) -> Official:
    """InfiXAI/InfiGUI-G1 eval/prompts.py in think mode (``eval.py --think-mode 1``, the default): the text after the
    last ``</think>``, from its first ``[`` to its last ``]``, decoded as JSON; the first item's ``point_2d`` is scored."""
    bad = Official(None, "malformed", "no JSON list whose first item has a point_2d of two numbers")
    if "</think>" in text:
        text = text.split("</think>")[-1]
    start, end = text.find("["), text.rfind("]")
    if start == -1 or end == -1 or start >= end:
        return bad
    try:
        preds = json.loads(text[start:end + 1])
        first = preds[0]["point_2d"]
        x, y = first[0], first[1]
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return bad
    if not isinstance(first, list):
        return bad
    p = (_num(x), _num(y))
    if p[0] is None or p[1] is None:
        return bad
    return Official(p, "parsed", "point_2d", p)  # type: ignore[arg-type]


def read_jedi(text: str) -> Official:
    """xlang-ai/OSWorld mm_agents/jedi_7b_agent.py ``parse_jedi_response``: the JSON between the first start tag
    (``<tool_call>``, else ``⚗``) and the next end tag (``</tool_call>``, else ``⚗``); ``arguments.coordinate``'s first
    two numbers, truncated to whole original pixels. Anything else is its ``[-1, -1]``: no click."""
    none = Official(None, "malformed", "parse_jedi_response gives [-1, -1]: the click is skipped")
    start = next((t for t in ("<tool_call>", "\u2697") if t in text), None)
    end = next((t for t in ("</tool_call>", "\u2697") if t in text), None)
    if start is None or end is None:
        return none
    inner = text.split(start)[1].split(end)[0].strip()
    try:
        call = json.loads(inner)
    except ValueError:
        call = {}
    except RecursionError:
        return none
    if not isinstance(call, dict) or not isinstance(call.get("arguments", {}), dict):
        return none
    coords = call.get("arguments", {}).get("coordinate", [-1, -1])
    try:
        x, y = coords[0], coords[1]
    except (TypeError, KeyError, IndexError):
        return none
    if isinstance(coords, (str, bytes)):
        return none
    p = (_num(x), _num(y))
    if p[0] is None or p[1] is None or not _finite(p):  # type: ignore[arg-type]
        return none
    if int(p[0]) == -1 and int(p[1]) == -1:  # type: ignore[arg-type]
        return none
    return Official(p, "parsed", "tool call coordinate", p, truncate=True)  # type: ignore[arg-type]


# Phi-Ground-4B-7C's canvas (README process_image; benchmark/test_sspro.sh --num_crops 7): answers are 0-1000 of it.
PHI_GROUND_CANVAS = (1008, 672)


def read_phi_ground(text: str) -> Official:
    """microsoft/Phi-Ground benchmark/test_screenspot_pro.py ``get_results`` with ``--output_format point`` (its
    ScreenSpot-Pro script): ``<point>x, y</point>`` split on ``", "`` into two ``float``s, times canvas/1000; an answer
    it cannot parse is left out of the results (``continue``): dropped here."""
    parts = text.strip().split("<point>")
    if len(parts) < 2:
        return Official(None, "dropped", "no <point>: Phi-Ground's get_results leaves the answer out")
    try:
        nums = [float(o) for o in parts[1].split("</point>")[0].split(", ")]
    except ValueError:
        return Official(None, "dropped", "<point> without numbers float() reads: left out")
    if len(nums) != 2:
        return Official(None, "dropped", "<point> without two numbers separated by ', ': left out")
    cw, ch = PHI_GROUND_CANVAS
    p = (nums[0] * (cw / 1000), nums[1] * (ch / 1000))
    return Official(p, "parsed", "point on the canvas grid", (nums[0], nums[1]))


_SE_GUI_NUM = re.compile(r"\d+(?:\.\d+)?")


def read_se_gui(text: str) -> Official:
    """YXB-NKU/SE-GUI ``extract_point_answer``: the last two numbers of the first ``<tool_call>...</tool_call>``;
    anything else is the point (0, 0)."""
    # re.search(r'<tool_call>(.*?)</tool_call>', content, re.DOTALL) in linear time: the text between the first
    # <tool_call> and the first </tool_call> after it (none after the first: none after any later one either)
    start = text.find("<tool_call>")
    end = text.find("</tool_call>", start + len("<tool_call>")) if start >= 0 else -1
    if end < 0:
        return Official(_ORIGIN, "malformed", "no <tool_call>...</tool_call>: SE-GUI's extract_point_answer gives [0, 0]")
    nums = _SE_GUI_NUM.findall(text[start + len("<tool_call>"):end].strip())
    if len(nums) < 2:
        return Official(_ORIGIN, "malformed", "fewer than two numbers in the tool call: SE-GUI gives [0, 0]")
    p = (float(nums[-2]), float(nums[-1]))
    return Official(p, "parsed", "tool call, last two numbers", p)


def read_uground_v1(text: str) -> Official:
    """OSU-NLP-Group/UGround grounding/uground_qwen2vl_serve.py: ``eval`` of the stripped answer unpacked into
    ``x, y`` (0-1000), ``int(x / 1000 * width)``; on any exception no answer is written: dropped."""
    dropped = Official(None, "dropped", "eval / unpacking fails: UGround's runner writes no answer for it")
    try:
        value = python_eval(text.strip())
        x, y = value
    except Exception:  # noqa: BLE001 - the runner's bare except
        return dropped
    p = (_num(x), _num(y))
    if p[0] is None or p[1] is None:
        return dropped
    try:
        if not all(math.isfinite(v / 1000) for v in p):  # type: ignore[operator]
            return dropped  # int() of an infinite or NaN x / 1000 * width raises
    except OverflowError:
        return dropped
    return Official(p, "parsed", "(x, y) on the 0-1000 grid", p, truncate=True)  # type: ignore[arg-type]


_QWEN2_BOX = re.compile(r"<\|box_start\|\>\((\d+),(\d+)\),\((\d+),(\d+)\)<\|box_end\|\>")
_PRED_FLOATS = re.compile(r"-?\d+\.?\d*")


def _pred_2_point(text: str) -> list[float] | None:
    """ScreenSpot-Pro-GUI-Grounding ``pred_2_point``: every ``-?\\d+\\.?\\d*``; two a point, four a box's centre."""
    floats = []
    for m in _PRED_FLOATS.finditer(text):
        floats.append(float(m.group(0)))
        if len(floats) > 4:
            return None
    if len(floats) == 2:
        return floats
    if len(floats) == 4:
        return [(floats[0] + floats[2]) / 2, (floats[1] + floats[3]) / 2]
    return None


def read_qwen2_vl(text: str) -> Official:
    """ScreenSpot-Pro-GUI-Grounding models/qwen2vl.py: with both box tags, the centre of the LAST
    ``<|box_start|>(x1,y1),(x2,y2)<|box_end|>`` (none: no point); else ``pred_2_point``; on the 0-1000 grid."""
    if "<|box_start|>" in text and "<|box_end|>" in text:
        last = None
        for last in _QWEN2_BOX.finditer(text):
            pass
        if last is None:
            return Official(None, "malformed", "box tags without (x1,y1),(x2,y2)")
        x1, y1, x2, y2 = (int(g) for g in last.groups())
        p = ((x1 + x2) / 2, (y1 + y2) / 2)
        return Official(p, "parsed", "box centre")
    q = _pred_2_point(text)
    if q is None:
        return Official(None, "malformed", "neither two nor four numbers")
    return Official((q[0], q[1]), "parsed", "pred_2_point", (q[0], q[1]))


def _showui_numbers(text: str, limit: int = 2) -> list[float]:
    """The first ``limit`` matches of ShowUI's ``\\d*\\.\\d+|\\d+`` as floats, found in linear time."""
    out: list[float] = []
    i, n = 0, len(text)
    while i < n and len(out) < limit:
        c = text[i]
        if not (_is_digit(c) or c == "."):
            i += 1
            continue
        j = i
        while j < n and _is_digit(text[j]):
            j += 1
        if j + 1 < n and text[j] == "." and _is_digit(text[j + 1]):
            k = j + 1
            while k < n and _is_digit(text[k]):
                k += 1
            out.append(float(text[i:k]))
            i = k
        elif j > i:
            out.append(float(text[i:j]))
            i = j
        else:
            i += 1
    return out


def read_showui(text: str) -> Official:
    """ScreenSpot-Pro-GUI-Grounding models/showui.py ``extract_point``: the first two numbers (relative)."""
    nums = _showui_numbers(text.strip())
    if len(nums) < 2:
        return Official(None, "malformed", "fewer than two numbers")
    p = (nums[0], nums[1])
    return Official(p, "parsed", "first two numbers", p)


_SEECLICK_BOX = re.compile(r"<box>\((\d+,\d+)\),\((\d+,\d+)\)</box>")


def read_seeclick(text: str) -> Official:
    """ScreenSpot-Pro-GUI-Grounding models/seeclick.py: with ``<box>``, the centre of its one ``<box>(x1,y1),(x2,y2)</box>``;
    else ``pred_2_point`` (two numbers a point, four a box's centre). Anything else makes that runner raise (its
    evaluation stops); here it is a format error."""
    if "<box>" in text:
        pts = [tuple(int(v) for v in g.split(",")) for m in _SEECLICK_BOX.findall(text) for g in m]
        if len(pts) != 2:
            return Official(None, "malformed", "<box> without exactly one (x1,y1),(x2,y2): the runner raises")
        (x1, y1), (x2, y2) = pts
        return Official(((x1 + x2) / 2, (y1 + y2) / 2), "parsed", "box centre")
    q = _pred_2_point(text)
    if q is None:
        return Official(None, "malformed", "neither two nor four numbers: the runner raises")
    return Official((q[0], q[1]), "parsed", "pred_2_point", (q[0], q[1]))


def read_qwen2_5_vl(text: str) -> Official | None:
    """ScreenSpot-Pro-GUI-Grounding models/qwen2_5vl.py: the answer (its pre-filled tool call included) cut after its
    last ``}``; the JSON between the first ``<tool_call>\\n`` and the next ``\\n</tool_call>``; ``arguments.coordinate``
    of 2 numbers (a point) or 4 (a box: its centre). None when the answer holds no ``<tool_call>`` at all: the runner
    pre-fills one, so an answer without it is read by the cookbook's JSON format (``gui_core.grounding``)."""
    if "<tool_call>" not in text:
        return None
    bad = Official(None, "malformed", "tool call not read by the ScreenSpot-Pro runner (wrong_format)")
    cut = text.rfind("}")
    body = text[:cut + 1] if cut != -1 else text
    try:
        action = json.loads(body.split("<tool_call>\n")[1].split("\n</tool_call>")[0])
        coords = action["arguments"]["coordinate"]
        n = len(coords)
    except (IndexError, KeyError, TypeError, ValueError, RecursionError):
        return bad
    if n not in (2, 4) or isinstance(coords, (str, bytes, dict)):
        return bad
    try:
        vals = [_num(v) for v in coords]
    except TypeError:
        return bad
    if any(v is None for v in vals):
        return bad
    if n == 2:
        p = (vals[0], vals[1])
        return Official(p, "parsed", "tool call coordinate", p)  # type: ignore[arg-type]
    return Official(((vals[0] + vals[2]) / 2, (vals[1] + vals[3]) / 2), "parsed", "tool call box centre")  # type: ignore[operator]
