"""The action parser of GUI-R1 (ritzz-ai/GUI-R1 ``guir1/inference/``): a Python-literal list holding one action inside
``<answer>``, and GUI-R1's own extractors (``reading="official"``, ``gui_r1_official_fields``).
"""

from __future__ import annotations

import ast
import bisect
import re

from gui_core.action_reading import (GestureToScroll, ParsedAction, Reading, _bad, _ok, _point, _xy, finite_number, register_parser, scroll_direction)
from gui_core.actions import Action
from gui_core.coords import MAX_NUMBER_CHARS


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


@register_parser("gui_r1", scroll="scroll", readings=("official",))  # its data conversion is not published: read as AndroidControl's scroll direction
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
