"""SPHINX action space (Table 2) as text: a parser that never raises, and the writer for the same syntax.

    click [elem]            longclick [elem]          text [elem] [string]     swipe [elem] [dir]
    click [x,y]             longclick [x,y]           text [x,y] [string]      swipe [x1,y1] [x2,y2]
    press [back] / [home] / [restart] / [wait] / [enter] / [stop]

``input`` is accepted for ``text`` (section 3.3.5's example "input [123] [some text]"); ``press`` and its
brackets may be left out of the navigation actions. Parsed actions are dicts: ``type`` plus ``index``
(element id ``[i]``) or ``point`` (screen pixels), ``text``, ``direction`` or ``to``.

Strict parsing (``parse_action``) reads one line that is exactly an action, after an optional ``Action:``
label, backticks or quotes: the last such line counts (a ReAct answer reasons first, section 4.2).
``repair_action`` is the lenient reading used for the "Repaired" columns (Tables 6 and 8): the last
action written anywhere in the text. The paper repaired outputs with DeepSeek-V2; this harness uses this
rule-based stand-in, recorded as ``REPAIR_PROTOCOL``.
"""

from __future__ import annotations

import re
from typing import Any

from gui_core.action_parsers import finite_number, plausible_index

PARSER_PROTOCOL = "sphinx-table2-v2"  # v2: number literals bounded (MAX_NUMBER_CHARS), implausible ids and points are format errors
REPAIR_PROTOCOL = "sphinx-rule-repair-v1"
PRESS = ("back", "home", "restart", "wait", "enter", "stop")
DIRECTIONS = ("up", "down", "left", "right")

_NUM = r"-?\d+(?:\.\d+)?"
_PT = rf"\[\s*({_NUM})\s*,\s*({_NUM})\s*\]"
_EL = r"\[\s*(\d+)\s*\]"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("point", re.compile(rf"(click|longclick|long_click|long click)\s*{_PT}", re.I)),
    ("elem", re.compile(rf"(click|longclick|long_click|long click)\s*{_EL}", re.I)),
    ("text_elem", re.compile(rf"(?:text|input)\s*{_EL}\s*\[(.*)\]", re.I | re.S)),
    ("text_point", re.compile(rf"(?:text|input)\s*{_PT}\s*\[(.*)\]", re.I | re.S)),
    ("swipe_dir", re.compile(rf"swipe\s*{_EL}\s*\[\s*({'|'.join(DIRECTIONS)})\s*\]", re.I)),
    ("swipe_pts", re.compile(rf"swipe\s*{_PT}\s*{_PT}", re.I)),
    ("press", re.compile(rf"(?:press\s*)?\[?\s*({'|'.join(PRESS)})\s*\]?", re.I)),
]
_LINES = re.compile(r"\r?\n")
_LABEL = re.compile(r"^\s*(?:action|answer|next action)\s*[:：]\s*", re.I)


def _num(s: str) -> float | int:
    v = float(s)
    return int(v) if v.is_integer() else v


class _Implausible(Exception):
    """A number of an action that is unreadable or out of the plausible range: the action is a format error."""


def _coord(s: str) -> float | int:
    v = finite_number(s)  # bounded literal, finite, |v| <= MAX_COORD (gui_core.coords)
    if v is None:
        raise _Implausible(s)
    return int(v) if v.is_integer() else v


def _index(s: str) -> int:
    v = plausible_index(s)
    if v is None:
        raise _Implausible(s)
    return v


def _build(kind: str, m: re.Match[str]) -> dict[str, Any] | None:
    """The action of a pattern match; None when one of its numbers is implausible (a format error)."""
    try:
        return _build_checked(kind, m.groups())
    except _Implausible:
        return None


def _build_checked(kind: str, g: tuple[Any, ...]) -> dict[str, Any]:
    if kind in ("point", "elem"):
        t = "longclick" if g[0].lower().replace("_", "").replace(" ", "") == "longclick" else "click"
        return {"type": t, "point": (_coord(g[1]), _coord(g[2]))} if kind == "point" else {"type": t, "index": _index(g[1])}
    if kind == "text_elem":
        return {"type": "text", "index": _index(g[0]), "text": g[1]}
    if kind == "text_point":
        return {"type": "text", "point": (_coord(g[0]), _coord(g[1])), "text": g[2]}
    if kind == "swipe_dir":
        return {"type": "swipe", "index": _index(g[0]), "direction": g[1].lower()}
    if kind == "swipe_pts":
        return {"type": "swipe", "point": (_coord(g[0]), _coord(g[1])), "to": (_coord(g[2]), _coord(g[3]))}
    return {"type": g[0].lower()}


def _clean(line: str) -> str:
    line = _LABEL.sub("", line.strip())
    return line.strip().strip("`'\"").strip().rstrip(".").strip()


def parse_exact(line: str) -> dict[str, Any] | None:
    """The action when ``line`` (label, quotes and backticks aside) is exactly one action, else None."""
    s = _clean(line)
    for kind, pat in _PATTERNS:
        m = pat.fullmatch(s)
        if m:
            return _build(kind, m)  # None: an implausible number makes the line a format error
    return None


def parse_action(text: str | None) -> tuple[str, dict[str, Any] | None]:
    """``(status, action)`` with status parsed / malformed / empty; the last line that is an action counts."""
    if text is None or not str(text).strip():
        return "empty", None
    for line in reversed(_LINES.split(str(text).strip())):  # only \n breaks lines: \x85 or \u2028 may sit in a typed string
        if line.strip():
            act = parse_exact(line)
            if act is not None:
                return "parsed", act
    return "malformed", None


def repair_action(text: str | None) -> tuple[str, dict[str, Any] | None]:
    """Lenient reading: the strict one, else the last action written anywhere (never raises)."""
    status, act = parse_action(text)
    if status != "malformed":
        return status, act
    s = str(text)
    best: tuple[int, dict[str, Any]] | None = None
    for kind, pat in _PATTERNS[:-1]:  # a bare word like "back" inside prose is not an action
        for m in pat.finditer(s):
            if best is None or m.start() > best[0]:
                act = _build(kind, m)
                if act is not None:  # an action with an implausible number is not one
                    best = (m.start(), act)
    m = None
    for m in re.finditer(rf"press\s*\[\s*({'|'.join(PRESS)})\s*\]", s, re.I):
        pass
    if m is not None and (best is None or m.start() > best[0]):
        best = (m.start(), {"type": m.group(1).lower()})
    return ("parsed", best[1]) if best else ("malformed", None)


def is_exact(text: str | None) -> bool:
    """The whole response is one action and nothing else (the focused-context format check, 3.3.5)."""
    return text is not None and "\n" not in str(text).strip() and parse_exact(str(text)) is not None


def format_action(action: dict[str, Any]) -> str:
    """The Table 2 text of an action (the inverse of ``parse_action``)."""
    t = action["type"]

    def pt(p) -> str:
        return f"[{_num(str(p[0]))},{_num(str(p[1]))}]"

    if t in PRESS:
        return f"press [{t}]"
    where = f"[{action['index']}]" if "index" in action else pt(action["point"])
    if t in ("click", "longclick"):
        return f"{t} {where}"
    if t == "text":
        return f"text {where} [{action['text']}]"
    if t == "swipe":
        return f"swipe {where} [{action['direction']}]" if "direction" in action else f"swipe {where} {pt(action['to'])}"
    raise ValueError(f"not a SPHINX action type: {t!r}")
