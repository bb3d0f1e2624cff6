"""Parsers from each agent family's output format to the typed action space (StaR appendix C formats and each
family's own published action space; the conformance corpus ``gui_core/conformance/<family>.json`` cites them).

Model outputs are untrusted: a parser never raises, it returns a ``ParsedAction`` whose status is ``parsed``,
``malformed`` or ``empty``. Each family states the coordinate frame its numbers are in; nothing is guessed from
their size. Non-finite or absurd numbers (``nan``, ``inf``, beyond ``MAX_COORD``) are format errors. Every parser
runs in time linear in the length of the output (no regex with overlapping unbounded quantifiers; JSON objects
found in one pass), so a hostile output cannot hang an evaluation.

Thought and action are separated before the action is read: the part after the last ``Action:`` /
``actions:`` label (OS-Atlas, UI-TARS), after the last closing reasoning tag (``</think>``, ``</thinking>``),
inside ``<tool_call>`` blocks (GUI-Owl, Qwen2.5-VL), or the JSON object itself (AgentCPM-GUI's ``thought`` field).
Action words are read case-insensitively.

Scroll semantics are per family and named (``SCROLL_SEMANTICS``): OS-Atlas ``SCROLL [UP]`` and UI-TARS
``scroll(direction=)`` name the scroll direction (the side whose content is revealed, AndroidControl's
convention and the canonical SCROLL direction here); AgentCPM-GUI's ``to`` and the ``swipe`` of GUI-Owl /
Qwen2.5-VL's mobile_use name the finger's movement, the opposite. ``gesture_to_scroll`` overrides a family's
default ("inverse": a finger moving up is a scroll down; "same": the finger word is taken as the direction).

``reading="star_official"`` reproduces the official StaR evaluator (ZrW00/StaR ``evaluator/actions.py``,
``translateACG2Atlas``) where it differs from AgentCPM-GUI's schema: ``to`` read by ``gesture_to_scroll`` like the schema, any
``duration`` with a POINT is a long press, only ``STATUS: finish`` ends a task (``satisfied`` / ``impossible``
are no action). The default ``reading="schema"`` follows the family's own schema and evaluator.
``reading="official"`` is a family's own published evaluation's reading where it differs from its format
(``OFFICIAL_READINGS``: GUI-R1, whose regexes read single-quoted words only and a missing point as ``(0, 0)``).
"""

from __future__ import annotations

import ast
import bisect
import inspect
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Literal

from gui_core.actions import Action
from gui_core.coords import MAX_COORD, MAX_NUMBER_CHARS, Frame
from gui_core.prefilter import compile_prefiltered

Status = Literal["parsed", "malformed", "empty"]
GestureToScroll = Literal["same", "inverse"]
Reading = Literal["schema", "star_official", "official"]
READINGS: tuple[str, ...] = ("schema", "star_official", "official")
# families whose own published evaluation reads their text differently from their format: reading="official"
OFFICIAL_READINGS = frozenset({"gui_r1"})
# parsers with a reading="star_official" of their own (StaR's translateACG2Atlas differs from AgentCPM-GUI's schema)
STAR_OFFICIAL_READINGS = frozenset({"agentcpm_gui"})
_INVERSE = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}
# AgentCPM-GUI schema: ``duration`` defaults to 200 ms; its README and evaluator call a POINT held longer a long press.
AGENTCPM_DEFAULT_DURATION_MS = 200

# What each parser's scroll/swipe word names: "scroll" (the scroll direction) or "finger" (the finger's movement),
# declared where the parser is registered (``register_parser(name, scroll=...)``).
SCROLL_SEMANTICS: dict[str, str] = {}
SCROLL_WORDS = ("scroll", "finger")


def default_gesture_to_scroll(family: str) -> GestureToScroll:
    """The family's own reading: finger words are inverted into scroll directions."""
    return "inverse" if SCROLL_SEMANTICS.get(family) == "finger" else "same"


@dataclass(frozen=True)
class ParsedAction:
    action: Action | None
    status: Status
    family: str
    detail: str = ""


Parser = Callable[..., ParsedAction]
PARSERS: dict[str, Parser] = {}


def register_parser(name: str, *, scroll: str) -> Callable[[Parser], Parser]:
    """Decorator: make ``fn(text, *, gesture_to_scroll, reading) -> ParsedAction`` the parser of family ``name``, whose
    scroll word names ``scroll`` ("scroll": the scroll direction, "finger": the finger's movement)."""
    if scroll not in SCROLL_WORDS:
        raise ValueError(f"scroll semantics {scroll!r} unknown; known: {', '.join(SCROLL_WORDS)}")

    def deco(fn: Parser) -> Parser:
        if name in PARSERS and PARSERS[name] is not fn:
            raise ValueError(f"an action parser for {name!r} is already registered")
        PARSERS[name] = fn
        SCROLL_SEMANTICS[name] = scroll
        return fn

    return deco


def parse_action(text: Any, family: str, *, gesture_to_scroll: GestureToScroll | None = None,
                 reading: Reading = "schema") -> ParsedAction:
    """Parse ``text`` with the parser of ``family``; never raises on model output.

    ``gesture_to_scroll=None`` uses the family's own scroll semantics (``SCROLL_SEMANTICS``).
    """
    if family not in PARSERS:
        raise ValueError(f"no action parser for family {family!r}; known: {', '.join(sorted(PARSERS))}")
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; known: {', '.join(READINGS)}")
    if reading == "official" and family not in OFFICIAL_READINGS:
        raise ValueError(f"family {family!r} has no official reading; families with one: {', '.join(sorted(OFFICIAL_READINGS))}")
    if not isinstance(text, str) or not text.strip():
        return ParsedAction(None, "empty", family, "empty output")
    mode = gesture_to_scroll or default_gesture_to_scroll(family)
    try:
        fn = PARSERS[family]
        kwargs: dict[str, Any] = {"gesture_to_scroll": mode}
        if reading != "schema" and "reading" in inspect.signature(fn).parameters:
            kwargs["reading"] = reading  # AgentCPM-GUI (official StaR evaluator), GUI-R1 (its own evaluation)
        return fn(str(text), **kwargs)
    except Exception as exc:  # a parser bug counts as a format error, never a crash
        return ParsedAction(None, "malformed", family, f"parser error: {type(exc).__name__}")


def _bad(family: str, why: str) -> ParsedAction:
    return ParsedAction(None, "malformed", family, why)


def _ok(family: str, action: Action, detail: str = "") -> ParsedAction:
    return ParsedAction(action, "parsed", family, detail)


def scroll_direction(word: str, gesture: bool, mode: GestureToScroll) -> str | None:
    """A SCROLL direction from a word; a finger ``gesture`` word is inverted when ``mode == "inverse"``."""
    d = str(word).strip().strip("'\"[] ").upper()
    if d not in _INVERSE:
        return None
    return _INVERSE[d] if gesture and mode == "inverse" else d


def finite_number(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (or a numeric string) within ``MAX_COORD``, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        s = value.strip()
        if len(s) > MAX_NUMBER_CHARS or not _NUM_FULL.fullmatch(s):
            return None
        value = s
    if not isinstance(value, (int, float, str)):
        return None
    try:
        v = float(value)
    except (ValueError, OverflowError):
        return None
    return v if math.isfinite(v) and abs(v) <= MAX_COORD else None


def plausible_index(value: str) -> int | None:
    """A digit string as an element index when it has at most ``MAX_NUMBER_CHARS`` digits and is <= ``MAX_COORD``."""
    s = value.strip()
    if not s or len(s) > MAX_NUMBER_CHARS or not s.isascii() or not s.isdigit():
        return None
    v = int(s)
    return v if v <= MAX_COORD else None


def _xy(value: Any) -> tuple[float, float] | None:
    """Two finite numbers from ``[x, y]``, ``["x", "y"]`` or a string ``"x, y"`` / ``"[x, y]"``; else None."""
    if isinstance(value, str):
        nums = _NUM_RE.findall(value)
        if len(nums) != 2 or _NONNUM_RE.search(value):
            return None
        value = nums
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    x, y = finite_number(value[0]), finite_number(value[1])
    return None if x is None or y is None else (x, y)


def _point(frame: Frame, x: float, y: float, kind: str = "CLICK") -> Action:
    return Action(kind, point=(float(x), float(y)), frame=frame)


# A number: the lookbehind keeps a search from restarting inside a run of digits (linear time).
_NUM = r"(?<![\d.])[-+]?\d+(?:\.\d+)?"
_NUM_RE = re.compile(_NUM)
_NUM_FULL = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NONNUM_RE = re.compile(r"[A-Za-z]")  # letters in a coordinate string ("nan", "inf", "x") make it unreadable
_LABEL = compile_prefiltered(r"\b(?:actions?|output)[ \t]*[:：]", re.I)
_REASONING_END = ("</think>", "</thinking>", "</analysis>", "</thought>")
_REASONING_END_RE = re.compile("|".join(re.escape(t) for t in _REASONING_END), re.I)  # the tags never overlap


def after_reasoning(text: str) -> str:
    """The text after the last closing reasoning tag (all of it when there is none)."""
    # Matched case-insensitively in the text itself: offsets taken in text.lower() drift where lower-casing changes the
    # length ("İ" -> "i̇"), which cut the action short after Turkish reasoning.
    last = None
    for last in _REASONING_END_RE.finditer(text):
        pass
    return text[last.end():] if last is not None else text


def action_part(text: str) -> str:
    """The part after the last ``Action:`` / ``Actions:`` / ``Output:`` label (the thought comes first)."""
    text = after_reasoning(text)
    last = None
    for last in _LABEL.finditer(text):
        pass
    return text[last.end():].strip() if last is not None else text.strip()


def _pick(matches: list[re.Match[str]], body: str) -> list[re.Match[str]]:
    """Candidate action words in the order to try: one at the very start, else those starting a line (last
    first), else the rest (last first). Actions follow the reasoning, so later words win over earlier ones."""
    if not matches:
        return []
    if not body[:matches[0].start()].strip():
        return [matches[0]]
    line_start, rest, prev_end, clean = [], [], 0, True
    for m in matches:  # each gap between words is looked at once: linear
        gap = body[prev_end:m.start()]
        nl = gap.rfind("\n")
        (line_start if (not gap[nl + 1:].strip() if nl >= 0 else clean and not gap.strip()) else rest).append(m)
        prev_end, clean = m.end(), False
    return line_start[::-1] + rest[::-1]


# --- OS-Atlas (and Qwen2-VL prompted with the OS-Atlas template): 0-1000 grid ------------------------------------

_ATLAS_WORD = compile_prefiltered(r"(?<![A-Za-z_])(LONG_CLICK|LONG_PRESS|CLICK|TYPE|SCROLL|OPEN_APP|OPENAPP|PRESS_BACK|"
                                  r"PRESS_HOME|PRESS_ENTER|PRESS_RECENT|ENTER|IMPOSSIBLE|COMPLETE|WAIT)(?![A-Za-z_])", re.I)
_ATLAS_POINT = re.compile(rf"\s*(?:<point>\s*)?\[\[\s*({_NUM})\s*,\s*({_NUM})\s*\]\]")
_ATLAS_DIR = re.compile(r"\s*(?:\[\s*)?([A-Za-z]+)")
_ATLAS_SIMPLE = {"PRESS_BACK": "PRESS_BACK", "PRESS_HOME": "PRESS_HOME", "PRESS_ENTER": "PRESS_ENTER", "ENTER": "PRESS_ENTER",
                 "PRESS_RECENT": "PRESS_RECENT",  # GUI-Odyssey's recent-apps key, in OS-Atlas's GUI-Odyssey test data
                 "IMPOSSIBLE": "IMPOSSIBLE", "COMPLETE": "COMPLETE", "WAIT": "WAIT"}


def _atlas_one(body: str, m: re.Match[str], fam: str, mode: GestureToScroll) -> ParsedAction:
    word, end = m.group(1).upper(), m.end()
    if word in ("CLICK", "LONG_CLICK", "LONG_PRESS"):
        pm = _ATLAS_POINT.match(body, end)
        if not pm:
            return _bad(fam, f"{word} without <point>[[x, y]]</point>")
        x, y = finite_number(pm.group(1)), finite_number(pm.group(2))
        if x is None or y is None:
            return _bad(fam, "non-finite or out-of-range point")
        return _ok(fam, _point("grid1000", x, y, "CLICK" if word == "CLICK" else "LONG_PRESS"))
    if word == "TYPE":
        start = body.find("[", end)
        stop = body.rfind("]")
        if start < 0 or body[end:start].strip() or stop < start:
            return _bad(fam, "TYPE without [text]")
        return _ok(fam, Action("TYPE", text=body[start + 1:stop].strip()))
    if word == "SCROLL":
        dm = _ATLAS_DIR.match(body, end)
        d = scroll_direction(dm.group(1), True, mode) if dm else None
        return _ok(fam, Action("SCROLL", direction=d), f"scroll word={dm.group(1).upper()}") if d else _bad(fam, "SCROLL without a direction")
    if word in ("OPENAPP", "OPEN_APP"):
        stop = body.find("\n", end)
        name = body[end:stop if stop >= 0 else len(body)].strip().strip("[]<>").strip()
        return _ok(fam, Action("OPENAPP", text=name)) if name else _bad(fam, "OPENAPP without an app name")
    if word in _ATLAS_SIMPLE:
        return _ok(fam, Action(_ATLAS_SIMPLE[word]))
    return _bad(fam, f"{word} is not in the action space")


@register_parser("os_atlas", scroll="scroll")
def parse_os_atlas(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """OS-Atlas: ``thoughts:``/``actions:`` (or ``Thought:``/``Action:``) blocks; the action is read after the label."""
    fam, body = "os_atlas", action_part(text)
    cands = _pick(list(_ATLAS_WORD.finditer(body)), body)
    if not cands:
        return _bad(fam, "no OS-Atlas action")
    # the SCROLL word is a scroll direction: "same" keeps it, "inverse" (an explicit override) flips it
    return _atlas_one(body, cands[0], fam, gesture_to_scroll)


# --- UI-TARS / UI-TARS-1.5: function calls ------------------------------------------------------------------------

_TARS_CALL = compile_prefiltered(r"(?<![A-Za-z_])(click|left_single|left_double|double_click|right_single|long_press|type|"
                                 r"scroll|open_app|drag|hotkey|press_back|press_home|press_enter|enter|wait|finished|"
                                 r"call_user)\s*\(", re.I)
_ARG = re.compile(r"\s*(?:,\s*)?([A-Za-z_]\w*)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|([^,)]*))", re.S)
_TARS_SIMPLE = {"press_back": "PRESS_BACK", "press_home": "PRESS_HOME", "press_enter": "PRESS_ENTER", "enter": "PRESS_ENTER",
                "wait": "WAIT", "finished": "COMPLETE"}


def _call_args(body: str, pos: int) -> dict[str, str]:
    """``key='value'`` arguments of a call whose '(' ends at ``pos``; stops at the first thing that is not one."""
    args: dict[str, str] = {}
    while True:
        m = _ARG.match(body, pos)
        if not m or m.end() == pos:
            return args
        value = next(g for g in (m.group(2), m.group(3), m.group(4)) if g is not None)
        args.setdefault(m.group(1).lower(), value)
        pos = m.end()


_CONTENT = re.compile(r"\s*content\s*=\s*(['\"])")


def _type_content(body: str, pos: int) -> str | None:
    """The content of ``type(content='...')``: up to the last closing quote-and-parenthesis, so an unescaped
    quote inside the text (``'it's'``) does not cut it (UI-TARS's own parser reads it the same way)."""
    m = _CONTENT.match(body, pos)
    if not m:
        return None
    q = m.group(1)
    end = body.rfind(q + ")")
    if end < m.end():
        end = body.rfind(q)
        if end < m.end():
            return None
    return body[m.end():end]


def _unescape(s: str) -> str:
    return s.replace("\\n", "\n").replace("\\'", "'").replace('\\"', '"').replace("\\\\", "\\")


def _box_point(value: str | None) -> tuple[float, float] | None | str:
    """A point from a UI-TARS box/point argument: 2 numbers a point, 4 a box (its centre); "bad" when unreadable."""
    if value is None:
        return None
    cleaned = value.replace("<|box_start|>", "").replace("<|box_end|>", "").replace("<point>", "").replace("</point>", "")
    cleaned = cleaned.replace("<bbox>", "").replace("</bbox>", "")
    if _NONNUM_RE.search(cleaned):
        return "bad"
    nums = [finite_number(n) for n in _NUM_RE.findall(cleaned)]
    if len(nums) not in (2, 4) or any(n is None for n in nums):
        return "bad"
    if len(nums) == 4:
        return (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2
    return nums[0], nums[1]


def _tars_one(body: str, m: re.Match[str], frame: Frame, fam: str, mode: GestureToScroll) -> ParsedAction:
    name = m.group(1).lower()
    args = _call_args(body, m.end())
    start = _box_point(args.get("start_box", args.get("point", args.get("start_point"))))
    if start == "bad":
        return _bad(fam, f"{name}: unreadable or non-finite point")
    if name in ("click", "left_single", "long_press", "left_double", "double_click", "right_single"):
        if start is None:
            return _bad(fam, f"{name} without a point")
        kind = {"long_press": "LONG_PRESS", "left_double": "DOUBLE_CLICK", "double_click": "DOUBLE_CLICK",
                "right_single": "RIGHT_CLICK"}.get(name, "CLICK")
        return _ok(fam, _point(frame, *start, kind))
    if name == "drag":
        end = _box_point(args.get("end_box", args.get("end_point")))
        if start is None or end is None or end == "bad":
            return _bad(fam, "drag needs a start and an end point")
        return _ok(fam, Action("DRAG", point=start, end_point=end, frame=frame))
    if name == "type":
        content = _type_content(body, m.end())
        if content is None:
            return _bad(fam, "type without content")
        return _ok(fam, Action("TYPE", text=_unescape(content)))
    if name == "scroll":
        d = scroll_direction(args.get("direction", ""), True, mode)
        if d is None:
            return _bad(fam, f"unknown scroll direction {args.get('direction')!r}")
        return _ok(fam, Action("SCROLL", direction=d, point=start, frame=frame if start else None))
    if name == "open_app":
        app = _unescape(args.get("app_name", "")).strip()
        return _ok(fam, Action("OPENAPP", text=app)) if app else _bad(fam, "open_app without app_name")
    if name == "hotkey":
        keys = " ".join(_unescape(args.get("key", args.get("hotkey", ""))).lower().split())
        return _ok(fam, Action("HOTKEY", text=keys)) if keys else _bad(fam, "hotkey without key")
    if name in _TARS_SIMPLE:
        return _ok(fam, Action(_TARS_SIMPLE[name]))
    return _bad(fam, f"{name}() is not in the action space")


def _ui_tars(text: str, frame: Frame, fam: str, mode: GestureToScroll) -> ParsedAction:
    body = action_part(text)
    cands = _pick(list(_TARS_CALL.finditer(body)), body)
    if not cands:
        return _bad(fam, "no UI-TARS action call")
    return _tars_one(body, cands[0], frame, fam, mode)


@register_parser("ui_tars", scroll="scroll")
def parse_ui_tars(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS(-1.0): ``click(start_box='<|box_start|>(x,y)<|box_end|>')``, coordinates on the 0-1000 grid."""
    return _ui_tars(text, "grid1000", "ui_tars", gesture_to_scroll)


@register_parser("ui_tars_1_5", scroll="scroll")
def parse_ui_tars_1_5(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS-1.5: ``click(point='<point>x y</point>')`` (and the 1.0 syntax), pixels of the smart-resized image."""
    return _ui_tars(text, "resized_px", "ui_tars_1_5", gesture_to_scroll)


# --- JSON objects in free text (one pass, linear time) -----------------------------------------------------------------


# Groups: 1 a run of '{' (2: the closing quote of a string right after it), 3 a run of '}', 4 the closing quote of a
# string. Only used inside braces, where a quote opens a JSON string.
_JSON_TOKEN = re.compile(r'(\{+)(?:\s*"(?:[^"\\]|\\.)*+(")?)?|(\}+)|"(?:[^"\\]|\\.)*+(")?', re.S)
JSON_DESCENT = 4  # how many levels below a span that is not JSON are searched for objects


@lru_cache(maxsize=4)
def _json_spans(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """The balanced ``{...}`` spans of ``text`` (JSON strings inside braces skipped) sorted, and their starts.

    Cached for the last few texts (immutable tuples): the generic parser reads the same answer as several families.
    """
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    pos = text.find("{")
    if pos < 0 or text.find("}", pos) < 0:  # no span can close
        return (), ()
    # Token by token, not character by character: a run of '{' or '}', or (inside braces) a whole JSON string with its
    # escapes. Outside braces nothing counts, so the scan jumps to the next '{'. An unterminated string ends the scan.
    search = _JSON_TOKEN.search
    while True:
        m = search(text, pos)
        if m is None:
            break
        kind = m.lastindex
        if kind == 3:  # a run of '}'; one with nothing open is ignored
            start = m.start()
            k = min(m.end() - start, len(stack))
            if k:
                closed = stack[-k:]
                del stack[-k:]
                spans.extend(zip(reversed(closed), range(start + 1, start + k + 1)))
        elif kind == 1 or kind == 2:  # a run of '{', with the key string that follows it, if any
            stack.extend(range(m.start(), m.end(1)))
            if kind == 1 and m.end() > m.end(1):  # that string never closes
                break
        elif kind is None:  # a string that never closes
            break
        pos = m.end()
        if not stack:
            pos = text.find("{", pos)
            if pos < 0:
                break
    spans.sort()
    return tuple(spans), tuple(s for s, _ in spans)


def json_objects(text: str, limit: int = 64) -> list[dict]:
    """The JSON objects (dicts) in ``text``, in order: balanced ``{...}`` spans that decode, outermost first.

    One scan records the balanced spans (tracking JSON strings inside braces); outermost spans are decoded,
    and inside one that does not decode its direct sub-spans are tried, at most ``JSON_DESCENT`` levels down.
    Each level decodes disjoint spans, so the cost is linear in ``len(text)`` (``"{" * 20000``: one scan).
    """
    spans, starts = _json_spans(text)
    out: list[dict] = []

    def visit(lo: int, hi: int, level: int) -> None:
        k = lo
        while k < hi and len(out) < limit:
            s, e = spans[k]
            inner = bisect.bisect_left(starts, e, k + 1, hi)  # the spans inside (s, e): balanced spans nest
            try:
                obj = json.loads(text[s:e])
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                out.append(obj)
            elif level < JSON_DESCENT:
                visit(k + 1, inner, level + 1)
            k = inner

    visit(0, len(spans), 0)
    return out


# --- AgentCPM-GUI: compact JSON on the 0-1000 grid -------------------------------------------------------------------

_CPM_KEYS = {"POINT", "PRESS", "TYPE", "STATUS", "duration", "to"}
_CPM_STOP = ("finish", "satisfied", "impossible", "interrupt", "need_feedback")


@register_parser("agentcpm_gui", scroll="finger")
def parse_agentcpm(text: str, *, gesture_to_scroll: GestureToScroll = "inverse", reading: Reading = "schema") -> ParsedAction:
    """AgentCPM-GUI (OpenBMB README action table, ``eval/utils/evaluator.py``): one JSON object per step."""
    fam = "agentcpm_gui"
    objs = [o for o in json_objects(after_reasoning(text)) if _CPM_KEYS & set(o)]
    if not objs:
        return _bad(fam, "no AgentCPM-GUI JSON object")
    o = objs[-1]
    official = reading == "star_official"
    status = str(o.get("STATUS", "continue")).strip().lower()
    has_point = "POINT" in o
    if official:  # translateACG2Atlas: POINT wins unless to/TYPE/PRESS; then to, TYPE, PRESS, STATUS finish, duration
        if has_point and not ({"to", "TYPE", "PRESS"} & set(o)):
            pt = _xy(o["POINT"])
            if pt is None:
                return _bad(fam, "POINT is not [x, y]")
            return _ok(fam, _point("grid1000", *pt, "LONG_PRESS" if "duration" in o else "CLICK"), "reading=star_official")
        if "to" in o:
            # translateACG2Atlas keeps the ``to`` word; the gold it is compared with is in the same space only where
            # the caller says so (AITZ / GUI-Odyssey finger gold: "same"; AndroidControl, whose gold StaR inverts
            # into finger words with translateAtlas2ACG: the family default "inverse")
            d = scroll_direction(o["to"], True, gesture_to_scroll) if isinstance(o["to"], str) else None
            return _ok(fam, Action("SCROLL", direction=d), "reading=star_official") if d else _bad(fam, f"unknown direction {o['to']!r}")
    else:
        # the schema's evaluator: a stop status ends the step whatever else the object holds
        if status in ("finish", "satisfied"):  # satisfied: "无需操作" - the goal already holds
            return _ok(fam, Action("COMPLETE"), f"STATUS={status}")
        if status in ("impossible", "interrupt", "need_feedback"):
            return _ok(fam, Action("IMPOSSIBLE"), f"STATUS={status}")
    if "TYPE" in o:  # TYPE and PRESS win over a POINT (the point only says where; StaR and AgentCPM read it so)
        return _ok(fam, Action("TYPE", text=str(o["TYPE"]))) if isinstance(o["TYPE"], (str, int, float)) else _bad(fam, "TYPE is not text")
    if "PRESS" in o:
        key = str(o["PRESS"]).strip().upper()
        return _ok(fam, Action(f"PRESS_{key}")) if key in ("HOME", "BACK", "ENTER") else _bad(fam, f"unknown key {key!r}")
    if has_point and not official:
        pt = _xy(o["POINT"])
        if pt is None:
            return _bad(fam, "POINT is not [x, y] of finite numbers")
        to = o.get("to")
        if to is not None:
            if isinstance(to, str):
                d = scroll_direction(to, True, gesture_to_scroll)
            else:
                end = _xy(to)
                if end is None:
                    return _bad(fam, "to is neither a direction nor [x, y]")
                dx, dy = end[0] - pt[0], end[1] - pt[1]
                if dx == dy == 0:
                    return _bad(fam, "swipe to the same point")
                word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) >= abs(dy) else ("DOWN" if dy > 0 else "UP")
                d = scroll_direction(word, True, gesture_to_scroll)
            return (_ok(fam, Action("SCROLL", direction=d), f"gesture_to_scroll={gesture_to_scroll}") if d
                    else _bad(fam, f"unknown direction {to!r}"))
        duration = finite_number(o.get("duration", AGENTCPM_DEFAULT_DURATION_MS))
        if duration is None:
            return _bad(fam, "duration is not a number")
        return _ok(fam, _point("grid1000", *pt, "LONG_PRESS" if duration > AGENTCPM_DEFAULT_DURATION_MS else "CLICK"))
    if official:
        if status == "finish":
            return _ok(fam, Action("COMPLETE"), "reading=star_official")
        if "STATUS" in o:
            return _bad(fam, f"STATUS={status} is no action in the official StaR reading")
    if "duration" in o:
        return _ok(fam, Action("WAIT"))
    return _bad(fam, f"no action in {sorted(o)}")


# --- GUI-Owl / Qwen2.5-VL mobile_use tool calls: pixels of the image the model saw -----------------------------------

_KEYS = {"back": "PRESS_BACK", "home": "PRESS_HOME", "enter": "PRESS_ENTER", "keycode_back": "PRESS_BACK",
         "keycode_home": "PRESS_HOME", "keycode_enter": "PRESS_ENTER", "4": "PRESS_BACK", "3": "PRESS_HOME", "66": "PRESS_ENTER"}


def _tool_blocks(text: str) -> list[str]:
    """Contents of ``<tool_call>...</tool_call>`` blocks (an unclosed last block runs to the end); [] if none."""
    out, pos, low = [], 0, text.lower()
    while True:
        i = low.find("<tool_call>", pos)
        if i < 0:
            return out
        j = low.find("</tool_call>", i)
        out.append(text[i + 11: j if j >= 0 else len(text)])
        if j < 0:
            return out
        pos = j + 12


def _arguments(obj: dict) -> dict | None:
    args = obj.get("arguments", obj.get("parameters"))
    if isinstance(args, str):  # GUI-Owl sometimes writes the arguments as a JSON string
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            return None
    if isinstance(args, dict):
        return args
    return obj if isinstance(obj.get("action"), str) else None


def _tool_call(text: str, fam: str, mode: GestureToScroll) -> ParsedAction:
    body = after_reasoning(text)
    blocks = _tool_blocks(body) or [body]
    calls = [a for b in blocks for o in json_objects(b) if (a := _arguments(o)) is not None]
    if not calls:
        return _bad(fam, "no tool call with arguments")
    args = calls[0]
    action = str(args.get("action", "")).strip().lower()
    if action in ("click", "long_press"):
        pt = _xy(args.get("coordinate"))
        if pt is None:
            return _bad(fam, f"{action} without a coordinate [x, y] of finite numbers")
        return _ok(fam, _point("resized_px", *pt, "CLICK" if action == "click" else "LONG_PRESS"))
    if action in ("swipe", "scroll"):
        if action == "scroll" and isinstance(args.get("direction"), str):
            d = scroll_direction(args["direction"], False, mode)
            return _ok(fam, Action("SCROLL", direction=d)) if d else _bad(fam, f"unknown direction {args['direction']!r}")
        a, b = _xy(args.get("coordinate")), _xy(args.get("coordinate2"))
        if a is None or b is None:
            return _bad(fam, "swipe needs coordinate and coordinate2 of finite numbers")
        dx, dy = b[0] - a[0], b[1] - a[1]
        if dx == dy == 0:
            return _bad(fam, "swipe to the same point")
        word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) >= abs(dy) else ("DOWN" if dy > 0 else "UP")
        return _ok(fam, Action("SCROLL", direction=scroll_direction(word, True, mode)), f"gesture_to_scroll={mode}")
    if action in ("type", "open", "open_app"):
        value = args.get("text")
        if not isinstance(value, str) or (action != "type" and not value.strip()):
            return _bad(fam, f"{action} without text")
        return _ok(fam, Action("TYPE", text=value) if action == "type" else Action("OPENAPP", text=value.strip()))
    if action == "system_button":
        button = str(args.get("button", "")).strip().upper()
        return _ok(fam, Action(f"PRESS_{button}")) if button in ("BACK", "HOME", "ENTER") else _bad(fam, f"button {button!r} is not in the action space")
    if action == "key":  # adb keyevent names; the three with an action here are read, others are outside the space
        key = str(args.get("text", "")).strip().lower()
        return _ok(fam, Action(_KEYS[key]), f"key={key}") if key in _KEYS else _bad(fam, f"key {key!r} is not in the action space")
    if action == "wait":
        return _ok(fam, Action("WAIT"))
    if action in ("terminate", "done"):
        status = str(args.get("status", "success")).strip().lower()
        return _ok(fam, Action("COMPLETE" if status == "success" else "IMPOSSIBLE"), f"status={status}")
    return _bad(fam, f"action {action!r} is not in the action space")


@register_parser("gui_owl", scroll="finger")
def parse_gui_owl(text: str, *, gesture_to_scroll: GestureToScroll = "inverse") -> ParsedAction:
    """GUI-Owl (Mobile-Agent-v3 mobile_use tool): ``<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>``."""
    return _tool_call(text, "gui_owl", gesture_to_scroll)


@register_parser("qwen2_5_vl", scroll="finger")
def parse_qwen2_5_vl(text: str, *, gesture_to_scroll: GestureToScroll = "inverse") -> ParsedAction:
    """Qwen2.5-VL's mobile_use function calls (the same tool schema as GUI-Owl)."""
    return _tool_call(text, "qwen2_5_vl", gesture_to_scroll)

# --- GUI-R1 (ritzz-ai/GUI-R1) ---------------------------------------------------------------------------------------
# Its prompt (guir1/inference/inference_vllm_android.py, ..._guiodyssey.py) asks for
# ``<think> ... </think> <answer>[{'action': 'click', 'point': [x, y], 'input_text': 'no input text'}]</answer>``:
# a Python-literal list holding one action; points are pixels, ``[-100, -100]`` when the action has none; ``input_text``
# is the typed text, the app name, or the scroll direction.
_R1_WORDS = {"click": "CLICK", "long_press": "LONG_PRESS", "type": "TYPE", "open_app": "OPENAPP", "scroll": "SCROLL",
             "press_back": "PRESS_BACK", "press_home": "PRESS_HOME", "press_enter": "PRESS_ENTER", "wait": "WAIT",
             "press_recent": "PRESS_RECENT",  # its GUI-Odyssey prompt's action list
             "complete": "COMPLETE", "impossible": "IMPOSSIBLE"}
_R1_ACTION = re.compile(r"'action':\s*'(\w+)'")  # extract_action (guir1/inference/*.py, verl/utils/reward_score/r1gui.py)
_R1_TEXT = re.compile(r"'input_text':\s*'")  # extract_input_text's r"'input_text':\s*'(.*?)'", its value found by hand
_R1_PAIR = re.compile(r"\[(\d+),\s*(\d+)]")  # the pair of extract_coord's r'\{.*\[(\d+),\s*(\d+)]\s*.*\}'
_R1_NONSPACE = re.compile(r"\S")
_LONG_DIGITS = re.compile(rf"\d{{{MAX_NUMBER_CHARS + 1}}}")


def _r1_answer(text: str) -> str | None:
    """The first ``<answer>(.*?)</answer>`` (DOTALL), stripped, found with ``str.find`` (linear)."""
    i = text.find("<answer>")
    j = text.find("</answer>", i + 8) if i >= 0 else -1
    return text[i + 8:j].strip() if j >= 0 else None


def _r1_input_text(answer: str) -> str:
    """``extract_input_text``: the first ``'input_text': '...'`` value closed on its own line, else "no input text"."""
    skip_to = 0
    for m in _R1_TEXT.finditer(answer):
        if m.start() < skip_to:
            continue
        nl = answer.find("\n", m.end())
        end = answer.find("'", m.end(), nl if nl >= 0 else len(answer))
        if end >= 0:
            return answer[m.end():end]
        skip_to = nl if nl >= 0 else len(answer)  # no quote left on this line: no later start on it matches either
    return "no input text"


def _r1_official_point(answer: str) -> tuple[str, str] | None:
    r"""``extract_coord``'s ``re.search(r'\{.*\[(\d+),\s*(\d+)]\s*.*\}', answer)`` in linear time: the first line whose
    ``[x, y]`` pair has a ``{`` before it on its line and, after optional whitespace, a ``}`` later on the line where the
    text resumes; greedy ``.*`` takes the last such pair of that line. Returns the two digit strings."""
    newlines = [i for i, c in enumerate(answer) if c == "\n"]
    closes = [i for i, c in enumerate(answer) if c == "}"]
    first_open: dict[int, int] = {}
    for i, c in enumerate(answer):
        if c == "{":
            first_open.setdefault(bisect.bisect_left(newlines, i), i)
    best, best_line = None, None
    for m in _R1_PAIR.finditer(answer):
        line = bisect.bisect_left(newlines, m.start())
        if best_line is not None and line != best_line:
            break
        if first_open.get(line, m.start()) >= m.start():
            continue
        k = _R1_NONSPACE.search(answer, m.end())
        if k is None:
            continue
        nl_at = bisect.bisect_left(newlines, k.start())
        line_end = newlines[nl_at] if nl_at < len(newlines) else len(answer)
        c = bisect.bisect_left(closes, k.start())
        if c < len(closes) and closes[c] < line_end:
            best, best_line = (m.group(1), m.group(2)), line
    return best


def _r1_action(fam: str, word: str, point: tuple[float, float] | None, text: str | None, mode: GestureToScroll,
               detail: str) -> ParsedAction:
    kind = _R1_WORDS.get(word)
    if kind is None:
        return _bad(fam, f"action {word!r} is not in GUI-R1's mobile action space")
    if kind in ("CLICK", "LONG_PRESS"):
        if point is None:
            return _bad(fam, f"{word} without a point [x, y]")
        return _ok(fam, _point("original_px", *point, kind), detail)
    if kind in ("TYPE", "OPENAPP"):
        return _ok(fam, Action(kind, text=text or ""), detail) if text not in (None, "no input text") else _bad(
            fam, f"{word} without input_text")
    if kind == "SCROLL":
        d = scroll_direction(text or "", False, mode) if (text or "").strip().lower() in ("up", "down", "left", "right") else None
        return _ok(fam, Action("SCROLL", direction=d), detail) if d else _bad(fam, f"scroll input_text {text!r} is no direction")
    return _ok(fam, Action(kind), detail)


def gui_r1_official_fields(text: str) -> tuple[str | None, tuple[float, float], str]:
    """What GUI-R1's inference scripts store for an answer (``inference_vllm_android.py``): ``extract_action``'s word
    (None without one), ``extract_coord``'s point ((0, 0) when it reads none; digit runs beyond ``MAX_NUMBER_CHARS``
    also (0, 0)) and ``extract_input_text``'s text. Its ``eval_omni.py`` scores these, whatever the word is."""
    answer = _r1_answer(text)
    if answer is None:
        return None, (0.0, 0.0), "no input text"
    m = _R1_ACTION.search(answer)
    pair = _r1_official_point(answer)
    point = (0.0, 0.0)
    if pair is not None and max(len(pair[0]), len(pair[1])) <= MAX_NUMBER_CHARS:
        point = (float(int(pair[0])), float(int(pair[1])))
    return (m.group(1) if m else None), point, _r1_input_text(answer)


@register_parser("gui_r1", scroll="scroll")  # its data conversion is not published: read as AndroidControl's scroll direction
def parse_gui_r1(text: str, *, gesture_to_scroll: GestureToScroll = "same", reading: Reading = "schema") -> ParsedAction:
    """GUI-R1: the ``<answer>[{'action': ..., 'point': [x, y], 'input_text': ...}]</answer>`` of its prompt.

    ``reading="schema"``: the answer is read as the literal its format reward (``r1gui_format_reward``) checks (single
    or double quotes, action words in any case). ``reading="official"``: GUI-R1's own evaluation, its regexes as
    written: the first ``'action': '<word>'`` (single quotes, exact lower-case word) of the first ``<answer>`` block; the
    point by ``extract_coord`` (non-negative integers only; ``(0, 0)`` when it reads none, and always without an
    ``<answer>`` block, where its second pattern does not compile); the text by ``extract_input_text``."""
    fam = "gui_r1"
    answer = _r1_answer(text)
    if reading == "official":
        if answer is None:
            return _bad(fam, "no <answer> block (the official reading finds no action)")
        m = _R1_ACTION.search(answer)
        if m is None:
            return _bad(fam, "no 'action': '<word>' in the answer (the official reading finds no action)")
        pair = _r1_official_point(answer)
        if pair is not None and max(len(pair[0]), len(pair[1])) > MAX_NUMBER_CHARS:
            return _bad(fam, "coordinate number too long")
        point = (finite_number(str(int(pair[0]))), finite_number(str(int(pair[1])))) if pair is not None else (0.0, 0.0)
        if point[0] is None or point[1] is None:
            return _bad(fam, "coordinate out of range")
        unread = pair is None and m.group(1) in ("click", "long_press")
        return _r1_action(fam, m.group(1), point, _r1_input_text(answer), gesture_to_scroll,
                          "reading=official" + ("; no point read: (0, 0)" if unread else ""))
    if answer is None:
        return _bad(fam, "no <answer> block")
    if _LONG_DIGITS.search(answer):
        return _bad(fam, "number literal too long")
    try:
        value = ast.literal_eval(answer)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _bad(fam, "the answer is not a list of action dicts")
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    if not isinstance(value, dict) or not isinstance(value.get("action"), str):
        return _bad(fam, "the answer is not a list of action dicts")
    word = value["action"].strip().lower()
    raw = value.get("point")
    point = _xy(list(raw)) if isinstance(raw, (list, tuple)) and len(raw) == 2 else None
    text_value = value.get("input_text")
    return _r1_action(fam, word, point, str(text_value) if isinstance(text_value, (str, int, float)) else None,
                      gesture_to_scroll, "")


@register_parser("generic", scroll="scroll")
def parse_generic(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """Fallback: the first family whose parser succeeds, tried from the most to the least structured."""
    for fam in ("gui_owl", "agentcpm_gui", "ui_tars", "os_atlas"):
        res = PARSERS[fam](text, gesture_to_scroll=default_gesture_to_scroll(fam))
        if res.status == "parsed":
            return ParsedAction(res.action, "parsed", "generic", f"as {fam}")
    return _bad("generic", "no known action format")
