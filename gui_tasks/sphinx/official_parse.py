"""How the official SPHINX scripts read a model's answer (rendering ``official``), as parsers that never raise.

Grounding (``run_lowlevel.py``): the action is the text between the last pair of triple backticks
(``output.split('```')[-2]``), read by the official patterns anchored at its start (``re.match``, nothing
stripped): by element id (``infra/android_env.py`` ``parse_action_by_id``) or, for the screenshot-only
variant, by coordinates (``parse_action_by_coords``). ``press [home]`` is the official restart and
``press [none]`` its wait. Completion (``run_complete.py``): YES/NO by substring, the later one winning when
both occur; an answer with neither counts as NO ("continue"), as the official script counts it.
"""

from __future__ import annotations

import re
from typing import Any

from gui_models.action_parsers import plausible_index

OFFICIAL_PARSER_PROTOCOL = "sphinx-official-parse-v1"
_DIRECTIONS = ("up", "down", "left", "right")
_PRESS = {"back": "back", "restart": "restart", "home": "restart", "none": "wait", "stop": "stop", "enter": "enter"}
_BY_INDEX = {
    "click": re.compile(r"click \[(\d+)\]"),
    "longclick": re.compile(r"longclick \[(\d+)\]"),
    "text": re.compile(r"text \[(\d+)\] \[(.*)\]"),
    "swipe": re.compile(r"swipe \[(\d+)\] \[(.*)\]"),
}
_BY_POINT = {
    "click": re.compile(r"click \[(\d+),(\d+)\]"),
    "longclick": re.compile(r"longclick \[(\d+),(\d+)\]"),
    "text": re.compile(r"text \[(\d+),(\d+)\] \[(.*)\]"),
    "swipe": re.compile(r"swipe \[(\d+),(\d+)\] \[(\d+),(\d+)\]"),
}
_PRESS_RE = re.compile(r"press \[(.*)\]")


def extract_block(text: str) -> str | None:
    """``text.split('```')[-2]``: None when the answer has no triple backticks."""
    parts = text.split("```")
    return parts[-2] if len(parts) >= 2 else None


def _read(s: str, by_point: bool) -> dict[str, Any] | None:
    verb = s.split("[")[0].strip()
    if verb == "press":
        m = _PRESS_RE.match(s)
        return {"type": _PRESS[m.group(1)]} if m and m.group(1) in _PRESS else None
    pats = _BY_POINT if by_point else _BY_INDEX
    if verb not in pats:
        return None
    m = pats[verb].match(s)
    if m is None:
        return None
    g = m.groups()
    # digit runs beyond the plausible range (gui_models.coords.MAX_COORD) are format errors, never int() unbounded
    nums = [plausible_index(v) for v in g[:4 if verb == "swipe" else 2]] if by_point else [plausible_index(g[0])]
    if any(v is None for v in nums):
        return None
    if by_point:
        where: dict[str, Any] = {"point": (nums[0], nums[1])}
        if verb == "swipe":
            return {"type": "swipe", **where, "to": (nums[2], nums[3])}
    else:
        where = {"index": nums[0]}
    if verb == "text":
        return {"type": "text", **where, "text": g[-1]}
    if verb == "swipe":
        direction = g[1].split("=")[1] if g[1].startswith("direction=") else g[1]
        return {"type": "swipe", **where, "direction": direction} if direction in _DIRECTIONS else None
    return {"type": verb, **where}


def parse_official_action(text: str | None, *, by_point: bool = False) -> tuple[str, dict[str, Any] | None]:
    """``(status, action)``: status ``parsed`` / ``malformed`` / ``empty``; the action in the Table 2 dict form."""
    if text is None or not str(text).strip():
        return "empty", None
    block = extract_block(str(text))
    act = _read(block, by_point) if block is not None else None
    return ("parsed", act) if act is not None else ("malformed", None)


def judge_completion_official(text: str | None) -> tuple[str, bool]:
    """``(status, finished)``: run_complete.py's YES/NO reading (substrings, case-insensitive, the later wins)."""
    s = str(text or "").lower()
    if not s.strip():
        return "empty", False
    yes, no = s.rfind("yes"), s.rfind("no")
    if yes < 0 and no < 0:
        return "malformed", False
    return "parsed", yes > no
