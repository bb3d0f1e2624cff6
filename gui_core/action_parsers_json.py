"""Action parsers of the JSON syntaxes: AgentCPM-GUI's compact JSON on the 0-1000 grid (StaR appendix C Figure 9) and
the ``mobile_use`` tool calls of GUI-Owl (Figure 10) and Qwen2.5-VL, in pixels of the image the model saw.
"""

from __future__ import annotations

import json

from gui_core.action_reading import (AGENTCPM_DEFAULT_DURATION_MS, GestureToScroll, ParsedAction, Reading, _bad, _ok,
                                     _point, _xy, after_reasoning, finite_number, json_objects, register_parser,
                                     scroll_direction)
from gui_core.actions import Action


# --- AgentCPM-GUI: compact JSON on the 0-1000 grid -------------------------------------------------------------------

_CPM_KEYS = {"POINT", "PRESS", "TYPE", "STATUS", "duration", "to"}
_CPM_STOP = ("finish", "satisfied", "impossible", "interrupt", "need_feedback")


@register_parser("agentcpm_gui", scroll="finger", readings=("star_official",), generic_rank=2)
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


@register_parser("gui_owl", scroll="finger", generic_rank=1)
def parse_gui_owl(text: str, *, gesture_to_scroll: GestureToScroll = "inverse") -> ParsedAction:
    """GUI-Owl (Mobile-Agent-v3 mobile_use tool): ``<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>``."""
    return _tool_call(text, "gui_owl", gesture_to_scroll)


@register_parser("qwen2_5_vl", scroll="finger")
def parse_qwen2_5_vl(text: str, *, gesture_to_scroll: GestureToScroll = "inverse") -> ParsedAction:
    """Qwen2.5-VL's mobile_use function calls (the same tool schema as GUI-Owl)."""
    return _tool_call(text, "qwen2_5_vl", gesture_to_scroll)

# --- GUI-R1 (ritzz-ai/GUI-R1) ---------------------------------------------------------------------------------------
# Its prompt (guir1/inference/inference_vllm_android.py, ..._guiodyssey.py) asks for
