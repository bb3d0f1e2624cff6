"""The step rules of the judges built on AgentCPM-GUI's evaluator (``qwen_agentcpm``, ``guievalkit``) and of GUI-R1's
``eval_omni.py`` (``gui_r1``); ``gui_tasks.star.judges`` registers them on their records.

A step rule is ``(judge, doc, response, parsed_action, geometry) -> Verdict``. The family a judge reads with its
authors' own reading is its record's ``native_family``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from gui_core.action_parsers import gui_r1_official_fields
from gui_core.actions import Action
from gui_core.agents import family
from gui_core.coords import Geometry
from gui_tasks.star import cpm_official
from gui_tasks.star.judge_record import Judge, Verdict, raw
from gui_tasks.star.judge_rules import recent_apps
from gui_tasks.star.schema import action_from_json


# --- qwen_agentcpm ---------------------------------------------------------------------------------------------------

_CPM_TAP, _CPM_SWIPE, _CPM_GROW = 0.14, 0.04, 1.2  # evaluator.py _TAP_DISTANCE_THRESHOLD, _SWIPE_..., *_AUGMENT_FRACTION
_CPM_TAP_AC = 0.04  # evaluator.py _TAP_DISTANCE_THRESHOLD_AC ("align with qwen's code")
_CPM_KIND = {"CLICK": "click", "LONG_PRESS": "long_point", "SCROLL": "scroll", "TYPE": "type", "PRESS_BACK": "press",
             "PRESS_HOME": "press", "PRESS_ENTER": "press", "COMPLETE": "stop", "IMPOSSIBLE": "stop", "WAIT": "stop"}


def _cpm_direction(dx: float, dy: float) -> str | None:
    """``_get_direction``: the axis word whose cosine with (dx, dy) is largest, first of up, down, left, right."""
    n = math.hypot(dx, dy)
    if n == 0:
        return None
    best, word = -math.inf, None
    for name, (ux, uy) in (("up", (0, -1)), ("down", (0, 1)), ("left", (-1, 0)), ("right", (1, 0))):
        cos = (dx / n) * ux + (dy / n) * uy
        if cos > best:
            best, word = cos, name
    return word


def _ac_as_aitz(data: Mapping[str, Any], guievalkit: bool = False) -> dict[str, Any]:
    """``process_ac.py transform_action_data``: an AndroidControl step as an AITZ row. Clicks AND long presses are
    taps; a scroll is a 0.3 drag from (0.5, 0.5) (the action has no point) in the inverted direction (the finger's);
    wait is NO_ACTION (a stop); the step after the last action is "finish"; every element's bounds are boxes."""
    a, w, h = data.get("action"), float(data["width"]), float(data["height"])
    out: dict[str, Any] = {"result_action_text": "", "width": w, "height": h, "touch_yx": None, "lift_yx": None,
                           "ui_positions": [[y1, x1, y2 - y1, x2 - x1] for x1, y1, x2, y2 in data.get("elements_px", [])]}
    kind = a["action_type"] if a else "finish"
    if guievalkit and kind == "long_press":  # its process_ac.py reaches the LONG_POINT branch
        p = [float(a["y"]) / h, float(a["x"]) / w]
        return {**out, "result_action_type": 0, "touch_yx": p, "lift_yx": p}
    if guievalkit and kind == "open_app":
        return {**out, "result_action_type": 12, "result_action_app_name": str(a["app_name"])}
    if kind in ("click", "long_press"):
        p = [float(a["y"]) / h, float(a["x"]) / w]
        return {**out, "result_action_type": 4, "touch_yx": p, "lift_yx": p}
    if kind == "scroll":
        dy, dx = {"up": (0.3, 0), "down": (-0.3, 0), "left": (0, 0.3), "right": (0, -0.3)}[str(a["direction"])]
        return {**out, "result_action_type": 4, "touch_yx": [0.5, 0.5], "lift_yx": [0.5 + dy, 0.5 + dx]}
    code = {"input_text": 3, "navigate_home": 6, "navigate_back": 5, "wait": 1, "finish": 10}[kind]
    return {**out, "result_action_type": code, "result_action_text": str(a.get("text", "")) if a else ""}


def _odyssey_as_aitz(data: Mapping[str, Any]) -> dict[str, Any]:
    """``process_odyssey.py transform_action_data`` of GUI-Odyssey's converted answer (``decode_action``): clicks are
    taps, a long press is LONG_POINT, a scroll a 0.1 finger drag from (0.5, 0.5) named as the converter names it,
    TYPE's text is ``answer[5:]`` stripped (``": tea"``), there are no element boxes."""
    kind, info = data.get("action"), data.get("info")
    out: dict[str, Any] = {"result_action_text": "", "width": 1.0, "height": 1.0, "ui_positions": [],
                           "touch_yx": None, "lift_yx": None}
    if kind in ("CLICK", "LONG_PRESS") and isinstance(info, list):
        p = [float(info[0][1]) / 1000, float(info[0][0]) / 1000]
        return {**out, "result_action_type": 4 if kind == "CLICK" else 0, "touch_yx": p, "lift_yx": list(p)}
    if kind in ("CLICK", "LONG_PRESS"):
        return {**out, "result_action_type": {"KEY_HOME": 6, "KEY_BACK": 5, "KEY_APPSELECT": 6}[str(info)]}  # recent: HOME
    if kind == "SCROLL":
        dx, dy = float(info[1][0]) - float(info[0][0]), float(info[1][1]) - float(info[0][1])
        word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) > abs(dy) else ("UP" if dy < 0 else "DOWN")
        lift = {"UP": [0.4, 0.5], "DOWN": [0.6, 0.5], "LEFT": [0.5, 0.4], "RIGHT": [0.5, 0.6]}[word]
        return {**out, "result_action_type": 4, "touch_yx": [0.5, 0.5], "lift_yx": lift}
    if kind in ("TEXT", "TYPE"):
        return {**out, "result_action_type": 3, "result_action_text": f"TYPE: {info}"[5:].strip()}
    return {**out, "result_action_type": 10 if kind == "COMPLETE" else 11}


def _cpm_of_parsed(parsed: Action | None, doc: Mapping[str, Any], geo: Geometry, guievalkit: bool) -> cpm_official.CpmAction | None:
    """Our parser's action (families other than AgentCPM-GUI) mapped onto the evaluator's types; a scroll's direction
    as the finger's word (our direction is in the doc's gold space: AndroidControl's is the scroll's, inverted here)."""
    if parsed is None:
        return None
    kind = _CPM_KIND.get(parsed.type)
    if guievalkit and parsed.type in ("WAIT", "OPENAPP"):
        kind = {"WAIT": "wait", "OPENAPP": "open"}[parsed.type]
    if kind is None:
        return None
    if kind in ("click", "long_point"):
        px, py = parsed.point_in("grid1000", geo)
        return cpm_official.CpmAction(kind, point=(px / 1000, py / 1000))
    if kind == "scroll":
        word = (parsed.direction or "").lower()
        if doc.get("gold_scroll_space") == "scroll":
            word = {"up": "down", "down": "up", "left": "right", "right": "left"}.get(word, word)
        return cpm_official.CpmAction(kind, direction=word)
    if kind in ("type", "open"):
        return cpm_official.CpmAction(kind, text=parsed.text or "")
    if kind == "press":
        return cpm_official.CpmAction(kind, button=parsed.type.split("_", 1)[1].lower())
    return cpm_official.CpmAction(kind)


def qwen_agentcpm_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None,
                       geo: Geometry) -> Verdict:
    """``qwen_agentcpm``: AgentCPM-GUI's evaluator on its own data preparation (``_cpm_step``)."""
    return _cpm_step(judge, doc, response, parsed, geo, guievalkit=False)


def guievalkit_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None,
                    geo: Geometry) -> Verdict:
    """``guievalkit``: GUIEvalKit's copy of that evaluator (``_cpm_step`` with its differences)."""
    return _cpm_step(judge, doc, response, parsed, geo, guievalkit=True)


def _cpm_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry, *,
              guievalkit: bool) -> Verdict:
    """``ActionEvaluator.__call__``: click / long press inside a 1.2x-grown box (AITZ: any box holding the gold
    point; AndroidControl: the five boxes whose centres are nearest to it), else within 0.14 (AndroidControl: 0.04)
    in relative (x, y); scroll by the nearest axis word of the finger's vector; text either inside the other
    (lower-cased, stripped); press by button; COMPLETE, IMPOSSIBLE and WAIT are all "stop" and match. GUIEvalKit
    (``guievalkit``): WAIT is its own type ("wait"), OPEN_APP a type ("open") whose names match like text. An
    answer of the judge's ``native_family`` (AgentCPM-GUI) is read whole by the pipeline's own reading (``cpm_official``),
    other families by our parser."""
    android = doc["dataset"] == "androidcontrol"
    data = (_ac_as_aitz(raw(doc), guievalkit) if android else _odyssey_as_aitz(raw(doc)) if doc["dataset"] == "gui_odyssey"
            else raw(doc))
    code = int(data["result_action_type"])
    gold_dir = None
    if code == 4:
        (ty, tx), (ly, lx) = data["touch_yx"], data["lift_yx"]
        if math.hypot(ty - ly, tx - lx) <= _CPM_SWIPE:
            gold_kind = "click"
        else:
            gold_kind, gold_dir = "scroll", _cpm_direction(lx - tx, ly - ty)
    else:
        gold_kind = {0: "long_point", 1: "wait" if guievalkit else "stop", 3: "type", 5: "press", 6: "press", 7: "press",
                     10: "stop", 11: "stop", 12: "open"}[code]
        if code == 0:
            ty, tx = data["touch_yx"]
    button = {5: "back", 6: "home", 7: "enter"}.get(code)
    if doc["agent_family"] == judge.native_family:
        pred = cpm_official.read(response, "guievalkit" if guievalkit else "agentcpm")
        label = f"{pred.kind}" if pred is not None else None
    else:
        pred = _cpm_of_parsed(parsed, doc, geo, guievalkit)
        label = parsed.type if parsed is not None else None
    if pred is None or pred.kind != gold_kind:
        return Verdict(False, False, label, gold_kind, gold_kind)
    if pred.kind in ("click", "long_point"):
        w, h = float(data["width"]), float(data["height"])
        px, py = pred.point  # type: ignore[misc]
        boxes = []
        for y, x, bh, bw in data["ui_positions"]:  # process_aitz.py: pixel [y, x, h, w] / image size
            y, x, bh, bw = y / h, x / w, bh / h, bw / w
            dh, dw = (_CPM_GROW - 1) * bh, (_CPM_GROW - 1) * bw
            boxes.append((max(0.0, y - dh / 2), max(0.0, x - dw / 2), min(1.0, bh + dh), min(1.0, bw + dw)))
        if android:  # obtain_gt_bbox(eval_android_control=True): the 5 nearest centres, held or not
            holding = sorted(boxes, key=lambda b: math.hypot(b[0] + b[2] / 2 - ty, b[1] + b[3] / 2 - tx))[:5]
        else:
            holding = [b for b in boxes if b[1] <= tx <= b[1] + b[3] and b[0] <= ty <= b[0] + b[2]]
        ok = any(b[0] <= py <= b[0] + b[2] and b[1] <= px <= b[1] + b[3] for b in holding)
        # np.linalg.norm of the (x, y) difference: sqrt of the sum of squares
        ok = ok or math.sqrt((tx - px) ** 2 + (ty - py) ** 2) <= (_CPM_TAP_AC if android else _CPM_TAP)
    elif pred.kind == "scroll":
        ok = pred.direction == gold_dir
    elif pred.kind in ("type", "open"):
        gold_text = data["result_action_app_name"] if pred.kind == "open" else data["result_action_text"]
        p, g = (pred.text or "").lower().strip(), str(gold_text).lower().strip()
        ok = p in g or g in p
    elif pred.kind == "press":
        ok = pred.button == button
    else:
        ok = True
    return Verdict(True, ok, label, gold_kind, gold_kind)


# --- gui_r1 ----------------------------------------------------------------------------------------------------------

# eval_omni.py: which gold actions are scored by distance, which by text F1 (GUI-R1's action words)
_R1_GROUNDED = ("click", "long_press", "moveto", "doubleclick", "rightclick")
_R1_TEXTUAL = ("open_app", "type", "scroll", "select")
_R1_WORDS = {"CLICK": "click", "LONG_PRESS": "long_press", "TYPE": "type", "OPENAPP": "open_app", "SCROLL": "scroll",
             "PRESS_BACK": "press_back", "PRESS_HOME": "press_home", "PRESS_ENTER": "press_enter", "PRESS_RECENT": "press_recent",
             "WAIT": "wait", "COMPLETE": "complete", "IMPOSSIBLE": "impossible"}


def r1_f1(predicted: str, truth: str) -> float:
    """``calculate_f1_score``: brackets dropped, lower-cased whitespace token sets; two single tokens where one is
    inside the other score 1 (so ``upward`` matches ``up``)."""
    p = set(predicted.replace("[", "").replace("]", "").lower().split())
    g = set(truth.replace("[", "").replace("]", "").lower().split())
    if len(p) == 1 and len(g) == 1:
        a, b = next(iter(p)), next(iter(g))
        if a in b or b in a:
            return 1.0
    common = p & g
    prec = len(common) / len(p) if p else 0.0
    rec = len(common) / len(g) if g else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def _r1_text(action: Action) -> str:
    if action.type in ("TYPE", "OPENAPP"):
        return action.text or ""
    return (action.direction or "").lower() if action.type == "SCROLL" else "no input text"


def gui_r1_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """GUI-R1 ``guir1/eval/eval_omni.py``: the type is the action word; a gold click / long press is hit when the
    point is within 0.14 (strict, in original pixels over the image size) and a gold type / open_app / scroll when the
    text F1 is >= 0.5, both WITHOUT a type check (a scroll answer near the gold click counts). eval_omni's step
    accuracy leaves every other gold action out; here their step verdict is the type match. An answer of the judge's
    ``native_family`` (GUI-R1) is read by GUI-R1's own extractors (``gui_r1_official_fields``), other families by our parser."""
    gold = action_from_json(doc["gold"])
    gold_word = _R1_WORDS.get(gold.type, gold.type.lower())
    word: str | None
    if doc["agent_family"] == judge.native_family:
        word, point, text = gui_r1_official_fields(response or "")
        pred_pt = Action("CLICK", point=point, frame=family(judge.native_family).frame).point_in("original_px", geo)
    elif parsed is not None:
        word, text = _R1_WORDS.get(parsed.type, parsed.type.lower()), _r1_text(parsed)
        pred_pt = parsed.point_in("original_px", geo) if parsed.point is not None else (0.0, 0.0)
    else:
        word, pred_pt, text = None, (0.0, 0.0), "no input text"
    type_match = word == gold_word
    if gold_word in _R1_GROUNDED:
        gx, gy = gold.point_in("original_px", geo)
        w, h = geo.original_width, geo.original_height
        exact = ((gx - pred_pt[0]) / w) ** 2 + ((gy - pred_pt[1]) / h) ** 2 < 0.14 ** 2
    elif gold_word in _R1_TEXTUAL:
        exact = r1_f1(_r1_text(gold), text) >= 0.5
    else:
        exact = type_match
    return Verdict(type_match, exact, word, gold_word, gold_word)


# --- drop rules ----------------------------------------------------------------------------------------------------

def agentcpm_steps(judge: Judge, doc: Mapping[str, Any]) -> str | None:
    """AgentCPM-GUI's ``process_ac.py`` writes no step for an open-app action (``transform_action_data`` returns None),
    whatever the family; then ``judge_rules.recent_apps``."""
    if action_from_json(doc["gold"]).type == "OPENAPP":
        return "no OPENAPP action in AgentCPM-GUI's action space"
    return recent_apps(judge, doc)


def guievalkit_steps(judge: Judge, doc: Mapping[str, Any]) -> str | None:
    """GUIEvalKit's ``process_ac.py`` keeps open-app steps (and scores them, for every family)."""
    return recent_apps(judge, doc)
