"""Parsers from each agent family's output format to the typed action space (StaR appendix C formats).

Model outputs are untrusted: a parser never raises, it returns a ``ParsedAction`` whose
status is ``parsed``, ``malformed`` or ``empty``. Each family states the coordinate frame
its numbers are in; nothing is guessed from their size. Parsers are registered by family
name (``register_parser``), so a third party can add one.

Open choice, recorded in every result: AgentCPM-GUI's ``to`` and GUI-Owl's ``swipe`` describe
the finger's movement; ``gesture_to_scroll="same"`` keeps that word as the SCROLL direction,
``"inverse"`` turns a finger moving up into scrolling down.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal

from gui_models.actions import Action
from gui_models.coords import Frame

Status = Literal["parsed", "malformed", "empty"]
GestureToScroll = Literal["same", "inverse"]
_INVERSE = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}
# AgentCPM-GUI: a POINT held at least this long (ms) is a long press (its schema's default duration is 200).
LONG_PRESS_MS = 1000


@dataclass(frozen=True)
class ParsedAction:
    action: Action | None
    status: Status
    family: str
    detail: str = ""


Parser = Callable[..., ParsedAction]
PARSERS: dict[str, Parser] = {}


def register_parser(name: str) -> Callable[[Parser], Parser]:
    """Decorator: make ``fn(text, *, gesture_to_scroll) -> ParsedAction`` the parser of family ``name``."""

    def deco(fn: Parser) -> Parser:
        if name in PARSERS and PARSERS[name] is not fn:
            raise ValueError(f"an action parser for {name!r} is already registered")
        PARSERS[name] = fn
        return fn

    return deco


def parse_action(text: Any, family: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """Parse ``text`` with the parser of ``family``; never raises on model output."""
    if family not in PARSERS:
        raise ValueError(f"no action parser for family {family!r}; known: {', '.join(sorted(PARSERS))}")
    if not isinstance(text, str) or not text.strip():
        return ParsedAction(None, "empty", family, "empty output")
    try:
        return PARSERS[family](text[:20000], gesture_to_scroll=gesture_to_scroll)
    except Exception as exc:  # a parser bug counts as a format error, never a crash
        return ParsedAction(None, "malformed", family, f"parser error: {type(exc).__name__}")


def _bad(family: str, why: str) -> ParsedAction:
    return ParsedAction(None, "malformed", family, why)


def _ok(family: str, action: Action, detail: str = "") -> ParsedAction:
    return ParsedAction(action, "parsed", family, detail)


def scroll_direction(word: str, gesture: bool, mode: GestureToScroll) -> str | None:
    """A SCROLL direction from a word; a finger ``gesture`` word is inverted when ``mode == "inverse"``."""
    d = word.strip().strip("'\"[] ").upper()
    if d not in _INVERSE:
        return None
    return _INVERSE[d] if gesture and mode == "inverse" else d


def _finite(*values: float) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)


def _point(frame: Frame, x: float, y: float, kind: str = "CLICK") -> Action | None:
    return Action(kind, point=(float(x), float(y)), frame=frame) if _finite(x, y) else None


def _after_action_label(text: str) -> str:
    """The part after the last 'Action:' label, if any (Thought comes first in these formats)."""
    parts = re.split(r"(?im)^\s*action\s*:\s*", text)
    return parts[-1].strip() if len(parts) > 1 else text.strip()


# --- OS-Atlas (and Qwen2-VL prompted with the OS-Atlas template): 0-1000 grid -------------------------

_NUM = r"-?\d+(?:\.\d+)?"


@register_parser("os_atlas")
def parse_os_atlas(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    fam, body = "os_atlas", _after_action_label(text)
    m = re.search(rf"\b(CLICK|LONG_CLICK|LONG_PRESS)\s*<point>\s*\[\[\s*({_NUM})\s*,\s*({_NUM})\s*\]\]\s*</point>", body, re.I)
    if m:
        act = _point("grid1000", float(m.group(2)), float(m.group(3)), "CLICK" if m.group(1).upper() == "CLICK" else "LONG_PRESS")
        return _ok(fam, act) if act else _bad(fam, "non-finite point")
    m = re.search(r"\bTYPE\s*\[(.*)\]", body, re.I | re.S)
    if m:
        return _ok(fam, Action("TYPE", text=m.group(1).strip()))
    m = re.search(r"\bSCROLL\s*\[\s*(\w+)\s*\]", body, re.I)
    if m:
        d = scroll_direction(m.group(1), False, gesture_to_scroll)
        return _ok(fam, Action("SCROLL", direction=d)) if d else _bad(fam, f"unknown scroll direction {m.group(1)!r}")
    m = re.search(r"\bOPENAPP\s*\[?\s*([^\]\n]+?)\s*\]?\s*$", body, re.I | re.M)
    if m and m.group(1).strip():
        return _ok(fam, Action("OPENAPP", text=m.group(1).strip()))
    for word, kind in (("PRESS_BACK", "PRESS_BACK"), ("PRESS_HOME", "PRESS_HOME"), ("PRESS_ENTER", "PRESS_ENTER"),
                       ("IMPOSSIBLE", "IMPOSSIBLE"), ("COMPLETE", "COMPLETE"), ("WAIT", "WAIT")):
        if re.search(rf"\b{word}\b", body):
            return _ok(fam, Action(kind))
    return _bad(fam, "no OS-Atlas action")


# --- UI-TARS: click(start_box='<|box_start|>(x,y)<|box_end|>') ----------------------------------


def _ui_tars(text: str, frame: Frame, fam: str, mode: GestureToScroll) -> ParsedAction:
    body = _after_action_label(text)
    m = re.search(r"\b(click|left_single|long_press)\s*\(\s*start_box\s*=\s*['\"]?\s*(?:<\|box_start\|>)?\s*\(?\s*"
                  rf"({_NUM})\s*,\s*({_NUM})(?:\s*,\s*({_NUM})\s*,\s*({_NUM}))?", body)
    if m:
        x, y = float(m.group(2)), float(m.group(3))
        if m.group(4) is not None:  # a box: its centre
            x, y = (x + float(m.group(4))) / 2, (y + float(m.group(5))) / 2
        act = _point(frame, x, y, "LONG_PRESS" if m.group(1) == "long_press" else "CLICK")
        return _ok(fam, act) if act else _bad(fam, "non-finite point")
    m = re.search(r"\btype\s*\(\s*content\s*=\s*(['\"])(.*?)\1\s*\)", body, re.S)
    if m:
        return _ok(fam, Action("TYPE", text=m.group(2).replace("\\n", "\n").replace("\\'", "'")))
    m = re.search(r"\bscroll\s*\((?:[^)]*?)direction\s*=\s*['\"]?(\w+)", body)
    if m:
        d = scroll_direction(m.group(1), False, mode)
        return _ok(fam, Action("SCROLL", direction=d)) if d else _bad(fam, f"unknown scroll direction {m.group(1)!r}")
    m = re.search(r"\bopen_app\s*\(\s*app_name\s*=\s*(['\"])(.+?)\1", body)
    if m:
        return _ok(fam, Action("OPENAPP", text=m.group(2).strip()))
    for call, kind in (("press_back", "PRESS_BACK"), ("press_home", "PRESS_HOME"), ("press_enter", "PRESS_ENTER"),
                       ("wait", "WAIT"), ("finished", "COMPLETE")):
        if re.search(rf"\b{call}\s*\(", body):
            return _ok(fam, Action(kind))
    return _bad(fam, "no UI-TARS action call")


@register_parser("ui_tars")
def parse_ui_tars(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS(-1.0): coordinates on the 0-1000 grid."""
    return _ui_tars(text, "grid1000", "ui_tars", gesture_to_scroll)


@register_parser("ui_tars_1_5")
def parse_ui_tars_1_5(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """UI-TARS-1.5: pixels of the smart-resized image."""
    return _ui_tars(text, "resized_px", "ui_tars_1_5", gesture_to_scroll)


# --- AgentCPM-GUI: compact JSON on the 0-1000 grid -----------------------------------------------------


def _json_objects(text: str) -> list[dict]:
    out = []
    for m in re.finditer(r"\{", text):
        depth = 0
        for j in range(m.start(), min(len(text), m.start() + 5000)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                try:
                    obj = json.loads(text[m.start(): j + 1])
                except ValueError:
                    break
                if isinstance(obj, dict):
                    out.append(obj)
                break
    return out


@register_parser("agentcpm_gui")
def parse_agentcpm(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    fam = "agentcpm_gui"
    objs = [o for o in _json_objects(text) if {"POINT", "PRESS", "TYPE", "STATUS", "duration", "to"} & set(o)]
    if not objs:
        return _bad(fam, "no AgentCPM-GUI JSON object")
    o = objs[-1]
    status = str(o.get("STATUS", "continue")).lower()
    if "POINT" in o:
        pt = o["POINT"]
        if not (isinstance(pt, list) and len(pt) == 2 and _finite(*pt)):
            return _bad(fam, "POINT is not [x, y]")
        to = o.get("to")
        if isinstance(to, str):
            d = scroll_direction(to, True, gesture_to_scroll)
            return _ok(fam, Action("SCROLL", direction=d), f"gesture_to_scroll={gesture_to_scroll}") if d else _bad(fam, f"unknown direction {to!r}")
        if to is not None:
            return _bad(fam, "drag to a location is not in the action space")
        duration = o.get("duration", 200)
        kind = "LONG_PRESS" if _finite(duration) and duration >= LONG_PRESS_MS else "CLICK"
        return _ok(fam, _point("grid1000", pt[0], pt[1], kind))
    if "TYPE" in o and isinstance(o["TYPE"], str):
        return _ok(fam, Action("TYPE", text=o["TYPE"]))
    if "PRESS" in o:
        key = str(o["PRESS"]).upper()
        return _ok(fam, Action(f"PRESS_{key}")) if key in ("HOME", "BACK", "ENTER") else _bad(fam, f"unknown key {key!r}")
    if status in ("finish", "satisfied"):
        return _ok(fam, Action("COMPLETE"), f"STATUS={status}")
    if status == "impossible":
        return _ok(fam, Action("IMPOSSIBLE"))
    if "duration" in o:
        return _ok(fam, Action("WAIT"))
    return _bad(fam, f"no action in {sorted(o)}")


# --- GUI-Owl / Qwen2.5-VL mobile_use tool calls: pixels of the smart-resized image ------------------


def _tool_call(text: str, fam: str, mode: GestureToScroll) -> ParsedAction:
    blocks = re.findall(r"<tool_call>(.*?)</tool_call>", text, re.S) or [text]
    calls = [o for b in blocks for o in _json_objects(b) if isinstance(o.get("arguments"), dict)]
    if not calls:
        return _bad(fam, "no tool call with arguments")
    args = calls[-1]["arguments"]
    action = str(args.get("action", "")).lower()
    coord = args.get("coordinate")
    if action in ("click", "long_press"):
        if not (isinstance(coord, list) and len(coord) == 2 and _finite(*coord)):
            return _bad(fam, f"{action} without a coordinate [x, y]")
        return _ok(fam, _point("resized_px", coord[0], coord[1], "CLICK" if action == "click" else "LONG_PRESS"))
    if action == "swipe":
        c2 = args.get("coordinate2")
        if not (isinstance(coord, list) and isinstance(c2, list) and len(coord) == 2 and len(c2) == 2 and _finite(*coord, *c2)):
            return _bad(fam, "swipe needs coordinate and coordinate2")
        dx, dy = c2[0] - coord[0], c2[1] - coord[1]
        word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) >= abs(dy) else ("DOWN" if dy > 0 else "UP")
        return _ok(fam, Action("SCROLL", direction=scroll_direction(word, True, mode)), f"gesture_to_scroll={mode}")
    if action in ("type", "open"):
        value = args.get("text")
        if not isinstance(value, str):
            return _bad(fam, f"{action} without text")
        return _ok(fam, Action("TYPE" if action == "type" else "OPENAPP", text=value))
    if action == "system_button":
        button = str(args.get("button", "")).upper()
        return _ok(fam, Action(f"PRESS_{button}")) if button in ("BACK", "HOME", "ENTER") else _bad(fam, f"unsupported button {button!r}")
    if action == "wait":
        return _ok(fam, Action("WAIT"))
    if action == "terminate":
        return _ok(fam, Action("COMPLETE" if str(args.get("status", "success")).lower() == "success" else "IMPOSSIBLE"))
    return _bad(fam, f"action {action!r} is not in the action space")


@register_parser("gui_owl")
def parse_gui_owl(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    return _tool_call(text, "gui_owl", gesture_to_scroll)


@register_parser("qwen2_5_vl")
def parse_qwen2_5_vl(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """Qwen2.5-VL's mobile_use function calls (the same tool schema as GUI-Owl)."""
    return _tool_call(text, "qwen2_5_vl", gesture_to_scroll)


@register_parser("generic")
def parse_generic(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """Fallback: the first family whose parser succeeds, tried from the most to the least structured."""
    for fam in ("gui_owl", "agentcpm_gui", "ui_tars", "os_atlas"):
        res = PARSERS[fam](text, gesture_to_scroll=gesture_to_scroll)
        if res.status == "parsed":
            return ParsedAction(res.action, "parsed", "generic", f"as {fam}")
    return _bad("generic", "no known action format")
