"""Action parsers of the text-call syntaxes: OS-Atlas's ``CLICK <point>[[x, y]]</point>`` (StaR appendix C Figure 8)
and UI-TARS's ``click(start_box='(x,y)')`` calls (Figure 7; UI-TARS-1.5 in pixels of its resized image).
"""

from __future__ import annotations

import re

from gui_core.action_reading import (_NONNUM_RE, _NUM, _NUM_RE, GestureToScroll, ParsedAction, _bad, _ok, _pick, _point,
                                     action_part, finite_number, register_parser, scroll_direction)
from gui_core.actions import Action
from gui_core.coords import Frame
from gui_core.prefilter import compile_prefiltered


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


@register_parser("os_atlas", scroll="scroll", generic_rank=4)
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


@register_parser("ui_tars", scroll="scroll", generic_rank=3)
def parse_ui_tars(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS(-1.0): ``click(start_box='<|box_start|>(x,y)<|box_end|>')``, coordinates on the 0-1000 grid."""
    return _ui_tars(text, "grid1000", "ui_tars", gesture_to_scroll)


@register_parser("ui_tars_1_5", scroll="scroll")
def parse_ui_tars_1_5(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS-1.5: ``click(point='<point>x y</point>')`` (and the 1.0 syntax), pixels of the smart-resized image."""
    return _ui_tars(text, "resized_px", "ui_tars_1_5", gesture_to_scroll)
