"""The shared floor of the action parsers (``gui_core.action_parsers``): the parser registry, ``ParsedAction``, number
and point readers, thought/action separation and the one-pass JSON object scan every parser reads with.

A parser registers itself with ``register_parser`` (its scroll semantics, the readings it has, its place in the
generic parser's order); ``gui_core.action_parsers`` imports the family parsers and holds ``parse_action``.
"""

from __future__ import annotations

import bisect
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
# parser -> the readings other than "schema" it has (declared where it is registered): "official", its own published
# evaluation's reading where it differs from its format; "star_official", StaR's evaluator's reading of it
READINGS_OF: dict[str, tuple[str, ...]] = {}
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
GENERIC_ORDER: dict[str, int] = {}  # parser -> its rank in the generic parser's order


def register_parser(name: str, *, scroll: str, readings: tuple[str, ...] = (),
                    generic_rank: int | None = None) -> Callable[[Parser], Parser]:
    """Decorator: make ``fn(text, *, gesture_to_scroll, reading) -> ParsedAction`` the parser of family ``name``, whose
    scroll word names ``scroll`` ("scroll": the scroll direction, "finger": the finger's movement). ``readings``: the
    readings other than "schema" it has; ``generic_rank``: its place in the ``generic`` parser's order (lowest first;
    None: the generic parser does not try it)."""
    if scroll not in SCROLL_WORDS:
        raise ValueError(f"scroll semantics {scroll!r} unknown; known: {', '.join(SCROLL_WORDS)}")
    unknown = [r for r in readings if r not in READINGS or r == "schema"]
    if unknown:
        raise ValueError(f"readings {unknown} unknown; known: {', '.join(READINGS[1:])}")

    def deco(fn: Parser) -> Parser:
        if name in PARSERS and PARSERS[name] is not fn:
            raise ValueError(f"an action parser for {name!r} is already registered")
        PARSERS[name] = fn
        SCROLL_SEMANTICS[name] = scroll
        READINGS_OF[name] = tuple(readings)
        if generic_rank is not None:
            GENERIC_ORDER[name] = generic_rank
        return fn

    return deco


def readers_of(reading: str) -> frozenset[str]:
    """The parsers that have ``reading`` (``register_parser(readings=...)``)."""
    return frozenset(n for n, rs in READINGS_OF.items() if reading in rs)


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
