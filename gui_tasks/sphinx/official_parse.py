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

from gui_core.action_parsers import plausible_index

OFFICIAL_PARSER_PROTOCOL = "sphinx-official-parse-v2"  # v2: number literals bounded (MAX_NUMBER_CHARS), implausible ids and points are format errors
# Knowledge probing as knowledge_probing.py scores it (PKU-ASE-RISE/Sphinx @ 20f84094386942d59f8d1a3c33b78c160e4ead9c;
# the repository states no license: the rule is a fact reproduced, no code copied). ``evaluate_mcqa``: the answer is
# right when ``ground_truth.upper() == answer.upper()`` (the whole text, nothing stripped: "a" is right, " A" is
# not); ``evaluate_binary_questions``: a probe answer means True when ``answer.upper() == 'T'``, anything else False.
OFFICIAL_KNOWLEDGE_PROTOCOL = "sphinx-official-mcqa-v1"
OFFICIAL_REACT_PARSER_PROTOCOL = "sphinx-official-react-parse-v1"  # AgentBase.parse_action + the environment's patterns
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


def official_mcq_answer(text: str) -> str | None:
    """The letter ``evaluate_mcqa`` would accept for ``text`` (its upper case when that is one of A-D), else None."""
    up = text.upper()
    return up if up in ("A", "B", "C", "D") else None


def official_tf_answer(text: str) -> str:
    """``evaluate_binary_questions``' reading of a probe answer: ``"T"`` when ``text.upper() == 'T'``, else ``"F"``."""
    return "T" if text.upper() == "T" else "F"


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
    # digit runs beyond the plausible range (gui_core.coords.MAX_COORD) are format errors, never int() unbounded
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


def react_block(text: str, answer_phrase: str = "In summary, the next action I will perform is",
                splitter: str = "```") -> str | None:
    """The official agents' answer reading (``Agents/Base.py`` ``AgentBase.parse_action``): the text after the last
    answer phrase (the whole text when there is none), stripped, then the first ``splitter``-delimited span
    (``re.search`` non-greedy), stripped; None where the agent raises ActionParsingError (the episode ends)."""
    tail = text.split(answer_phrase)[-1].strip()
    start = tail.find(splitter)
    if start < 0:
        return None
    end = tail.find(splitter, start + len(splitter))
    return tail[start + len(splitter):end].strip() if end >= 0 else None


def parse_react_action(text: str | None, *, by_point: bool = False) -> tuple[str, dict[str, Any] | None]:
    """``(status, action)`` of the official ReAct agent: :func:`react_block`, then the environment's action patterns
    (``infra/android_env.py`` ``parse_action_by_id`` / ``parse_action_by_coords``, as for grounding)."""
    if text is None or not str(text).strip():
        return "empty", None
    block = react_block(str(text))
    act = _read(block, by_point) if block is not None else None
    return ("parsed", act) if act is not None else ("malformed", None)


def parse_plan(text: str | None, phrase: str = "High-level Plan:\n") -> list[str] | None:
    """LLM-Planner's high-level plan (``AgentLLMPlanner_Text.parse_high_level_plan``, as meant: the published pattern
    is a character class): the leading plan phrase removed, then from every line the first ``[...]`` span,
    stripped. None when no line holds one (the agent would index an empty plan: the episode ends)."""
    body = str(text or "").strip()
    body = body[len(phrase):] if body.startswith(phrase) else body
    plans = []
    for line in body.strip().split("\n"):
        start = line.find("[")
        end = line.find("]", start + 1) if start >= 0 else -1
        if end >= 0:
            plans.append(line[start + 1:end].strip())
    return plans or None


def judge_completion_official(text: str | None) -> tuple[str, bool]:
    """``(status, finished)``: run_complete.py's YES/NO reading (substrings, case-insensitive, the later wins)."""
    s = str(text or "").lower()
    if not s.strip():
        return "empty", False
    yes, no = s.rfind("yes"), s.rfind("no")
    if yes < 0 and no < 0:
        return "malformed", False
    return "parsed", yes > no
