"""StaR's released evaluator read as a whole: its output grammar, its gold preprocessing, its verdicts.

Source: ZrW00/StaR ``dataPreprocessor/utils.py`` (``convertAndroidControlAction``, ``convertAITZAction``,
``convertGuiOdysseyAction``: the gold in OS-Atlas's action space, clicks snapped to their element's centre),
``dataPreprocessor/actions.py`` (the per-family labels, ``translateAtlas2ACG`` / ``translateAtlas2ACG1`` /
``translateAtlas2Uitars``, which also decide which steps exist), ``evaluator/utils.py`` (``qwen_translate_action``:
the exact grammar of an action string, ``extractAtlasPrediction``, ``extractUITARSPrediction``) and
``evaluator/actions.py`` (``translateUITARS2Atlas``, ``translateACG2Atlas``, ``actionTypeJudge``,
``androidControlActionJudge``, ``aitzActionJudge``, ``guiodysseyActionJudge``). Written from reading that code; none of
it is copied.

Everything is compared in the Atlas action space as strings (``CLICK <point>[[x, y]]</point>``, ``SCROLL [UP]``,
``ENTER``...). The action TYPE includes the scroll direction (``SCROLLUP``...). A verdict the official code would
reach by raising (a click without a readable point, an OPENAPP on GUI-Odyssey, an unknown STATUS) is (no, no): the
official loop catches the exception and sets both flags to 0.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Mapping, Sequence

from gui_core.coords import MAX_COORD, MAX_NUMBER_CHARS
from gui_core.actions import Action

# qwen_translate_action's fixed strings -> StaR ActionType names (evaluator/utils.py)
_FIXED = {"PRESS_BACK": "PRESSBACK", "PRESS_HOME": "PRESSHOME", "ENTER": "ENTER", "COMPLETE": "TASKCOMPLETE",
          "IMPOSSIBLE": "TASKIMPOSSIBLE", "SCROLL [RIGHT]": "SCROLLRIGHT", "SCROLL [LEFT]": "SCROLLLEFT",
          "SCROLL [UP]": "SCROLLUP", "SCROLL [DOWN]": "SCROLLDOWN", "WAIT": "WAIT"}
STAR_TYPES = ("CLICK", "TYPE", "SCROLLUP", "SCROLLDOWN", "SCROLLLEFT", "SCROLLRIGHT", "PRESSBACK", "PRESSHOME",
              "TASKIMPOSSIBLE", "TASKCOMPLETE", "NONEACTION", "WAIT", "LONGCLICK", "OPENAPP", "ENTER")
# the Atlas point pattern of the official code: "[[" number "," spaces number "]]", numbers of digits and dots
_POINT = re.compile(r"\[\[(-?[0-9.]{1,%d}),\s{0,64}(-?[0-9.]{1,%d})\]\]" % (MAX_NUMBER_CHARS, MAX_NUMBER_CHARS))
_UITARS_POINT = re.compile(r"\(([-+]?[0-9]{0,%d}\.?[0-9]{1,%d})[,\s]{1,64}([-+]?[0-9]{0,%d}\.?[0-9]{1,%d})\)"
                           % ((MAX_NUMBER_CHARS,) * 4))
_FINGER = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}


class Raised(Exception):
    """Where the official code raises: the step's verdict is (no, no)."""


def star_kind(atlas: str | None) -> tuple[str, tuple[float, float] | None, str | None, str | None]:
    """``qwen_translate_action``: (type, point, typed text, app name) of an Atlas string; anything else is NONEACTION.

    Raises ``Raised`` where the official code raises (a point literal such as ``1.2.3`` that ``float`` refuses,
    ``None`` in place of a string)."""
    if atlas is None:
        raise Raised("no action string")
    if atlas in _FIXED:
        return _FIXED[atlas], None, None, None
    if atlas.startswith("TYPE [") and atlas.endswith("]"):
        end = atlas.find("]", 6)  # "TYPE \[(.*?)\]": up to the first "]" after the bracket (DOTALL off: one line)
        nl = atlas.find("\n", 6)
        text = atlas[6:end] if nl == -1 or nl > end else ""
        return "TYPE", None, text, None
    if atlas.startswith("OPENAPP"):
        return "OPENAPP", None, None, atlas.replace("OPENAPP", "").strip().lower()
    for prefix, kind in (("CLICK <point>[[", "CLICK"), ("LONG_CLICK <point>[[", "LONGCLICK")):
        if atlas.startswith(prefix) and atlas.endswith("]]</point>"):
            m = _POINT.search(atlas)
            if not m:
                return kind, None, None, None
            try:
                x, y = float(m.group(1)), float(m.group(2))
            except ValueError as exc:
                raise Raised(str(exc)) from exc
            if not all(math.isfinite(v) and abs(v) <= MAX_COORD for v in (x, y)):
                return kind, None, None, None  # ours: out-of-range numbers are format errors (the verdict is (no, no))
            return kind, (x, y), None, None
    return "NONEACTION", None, None, None


# --- the model's text -> an Atlas string, per family (evaluator/evaluators.py generatePrediction) ------------------

_ATLAS_TAG = re.compile(r"(output|actions|action)[：:]", re.IGNORECASE)


def atlas_of_os_atlas(text: str) -> str:
    """``extractAtlasPrediction``: everything after the first ``Output:`` / ``Action:`` / ``Actions:`` (any case,
    ASCII or full-width colon) that leaves at least one character, less a leading ```` ```plaintext ```` fence and a
    trailing ```` ``` ````, stripped; with no such tag the text less a leading ``action``/``actions`` word."""
    for m in _ATLAS_TAG.finditer(text):
        rest = text[m.end():]
        body = rest.lstrip()
        if body.startswith("```"):
            fence = "```plaintext\n" if body.startswith("```plaintext\n") else "```\n" if body.startswith("```\n") else ""
            body = body[len(fence):] if fence else body
        if not body and not rest:
            continue
        if not body:  # only whitespace: the official pattern keeps the last whitespace character, stripped away
            return ""
        if body.endswith("\n```"):
            body = body[:-4]
        elif body.endswith("\n```\n"):
            body = body[:-5]
        return body.strip()
    return re.sub(r"^(action|actions)[：:]?\s*", "", text, flags=re.IGNORECASE).strip()


def _uitars_point(call: str) -> str:
    m = _UITARS_POINT.search(call)
    return f"[[{float(m.group(1))}, {float(m.group(2))}]]" if m else "[[None, None]]"


def atlas_of_ui_tars(text: str) -> str:
    """``extractUITARSPrediction`` + ``translateUITARS2Atlas``: the text after the last ``Action: ``, read by prefix.

    The official scroll pattern wants ``direction=\\'...\\'`` with literal backslashes, which no model writes: every
    scroll reads as ``SCROLL [DOWN]`` (the gold alike, whose label is ``scroll(direction=down)``)."""
    if "Action:" not in text:
        return "NONEACTION"
    call = text.split("Action: ")[-1]
    if call.startswith("click"):
        return f"CLICK <point>{_uitars_point(call)}</point>"
    if call.startswith("finished"):
        return "COMPLETE"
    if call.startswith("long_press"):
        return f"LONG_CLICK <point>{_uitars_point(call)}</point>"
    if call.startswith("press_back"):
        return "PRESS_BACK"
    if call.startswith("press_home"):
        return "PRESS_HOME"
    if call.startswith("scroll"):
        m = re.search(r"scroll\(direction=\\'([a-zA-Z]+)\\'\)", call)
        return f"SCROLL [{m.group(1).upper() if m else 'DOWN'}]"
    if call.startswith("open_app"):
        m = re.search(r"open_app\(app_name='([^']+)'\)", call)
        return f"OPENAPP {m.group(1) if m else None}"
    if call.startswith("wait"):
        return "WAIT"
    if call.startswith("type"):
        m = re.search(r"type\(content='([^']+)'\)", call)
        return f"TYPE [{m.group(1) if m else None}]"
    if call.startswith("enter") or call.startswith("press_enter"):
        return "ENTER"
    return "NONEACTION"  # drag, anything else: NotImplementedError / NONEACTTION, caught as no action


def atlas_of_agentcpm_obj(obj: Any) -> str | None:
    """``translateACG2Atlas`` of a parsed AgentCPM-GUI object (a list: its first item). None: no action string (an
    unknown STATUS), which the official verdict loop catches as (no, no)."""
    if isinstance(obj, list):
        if not obj:
            return "NONEACTION"
        obj = obj[0]
    if not isinstance(obj, dict):
        return "NONEACTION"
    keys = set(obj)
    if "POINT" in keys and not keys & {"to", "TYPE", "PRESS"}:
        p = obj["POINT"]
        if not isinstance(p, (list, tuple)) or len(p) < 2:
            raise Raised("POINT is not [x, y]")
        kind = "LONG_CLICK" if "duration" in keys else "CLICK"
        return f"{kind} <point>[[{_py(p[0])}, {_py(p[1])}]]</point>"
    if "to" in keys:
        if not isinstance(obj["to"], str):
            raise Raised("to is not a word")
        return f"SCROLL [{obj['to'].upper()}]"
    if "TYPE" in keys:
        return f"TYPE [{_py(obj['TYPE'])}]"
    if "PRESS" in keys:
        if not isinstance(obj["PRESS"], str):
            raise Raised("PRESS is not a word")
        return f"PRESS_{obj['PRESS'].upper()}"
    if "STATUS" in keys:
        return "COMPLETE" if obj["STATUS"] == "finish" else None
    if "duration" in keys:
        return "WAIT"
    return "NONEACTION"


def _py(v: Any) -> str:
    """A JSON value as Python's f-string writes it (``True``, ``None``, ``1.0``), as the official f-strings do."""
    if isinstance(v, str) and len(v) > 100_000:
        return v[:100_000]
    return str(v)


def atlas_of_agentcpm(text: str) -> str | None:
    """``AgentCPMGUIAgent.generate``: ``json.loads`` of the whole answer (else no action), then ``translateACG2Atlas``."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return "NONEACTION"
    if not isinstance(obj, dict):  # extractCPMPrediction calls obj.get: a list or a number is no action
        return "NONEACTION"
    return atlas_of_agentcpm_obj(obj)


def atlas_of_action(action: Action | None, grid_point: tuple[float, float] | None) -> str:
    """Our parsed action written in the Atlas space, for families StaR's evaluator has no reader for."""
    if action is None:
        return "NONEACTION"
    t = action.type
    if t in ("CLICK", "LONG_PRESS") and grid_point is not None:
        kind = "CLICK" if t == "CLICK" else "LONG_CLICK"
        return f"{kind} <point>[[{round(grid_point[0], 1)}, {round(grid_point[1], 1)}]]</point>"
    return {"TYPE": f"TYPE [{action.text}]", "SCROLL": f"SCROLL [{action.direction}]", "OPENAPP": f"OPENAPP {action.text}",
            "PRESS_BACK": "PRESS_BACK", "PRESS_HOME": "PRESS_HOME", "PRESS_ENTER": "ENTER", "WAIT": "WAIT",
            "COMPLETE": "COMPLETE", "IMPOSSIBLE": "IMPOSSIBLE"}.get(t, "NONEACTION")


# --- the gold: dataset fields -> Atlas string (dataPreprocessor/utils.py) ------------------------------------------

def _in(x: float, y: float, b: Sequence[float]) -> bool:
    return b[0] <= x <= b[2] and b[1] <= y <= b[3]


def _smallest(boxes: list[Sequence[float]]) -> Sequence[float] | None:
    return min(boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1])) if boxes else None


def gold_androidcontrol(raw: Mapping[str, Any]) -> str:
    """``convertAndroidControlAction``; the step after the last action is COMPLETE. A click snaps to the centre of the
    smallest clickable box holding it when the SQUARED grid distance is <= 40 (a 6.3-unit radius); a long press when
    the distance is <= 40."""
    a = raw.get("action")
    if a is None:
        return "COMPLETE"
    kind, w, h = a["action_type"], float(raw["width"]), float(raw["height"])
    if kind in ("click", "long_press"):
        x, y = float(a["x"]), float(a["y"])
        box = _smallest([b for b in raw.get("clickable_px", []) if _in(x, y, b)])
        if box is not None:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            d2 = ((cx - x) / w * 1000) ** 2 + ((cy - y) / h * 1000) ** 2
            if (d2 <= 40) if kind == "click" else (math.sqrt(d2) <= 40):
                x, y = cx, cy
        return f"{'CLICK' if kind == 'click' else 'LONG_CLICK'} <point>[[{x / w * 1000:.1f}, {y / h * 1000:.1f}]]</point>"
    if kind == "open_app":
        return f"OPENAPP {a['app_name']}"
    if kind == "input_text":
        return f"TYPE [{a['text']}]"
    if kind == "scroll":
        return f"SCROLL [{str(a['direction']).upper()}]"
    return {"wait": "WAIT", "navigate_home": "PRESS_HOME", "navigate_back": "PRESS_BACK"}[kind]


def aitz_boxes_grid(raw: Mapping[str, Any]) -> list[list[float]]:
    """StaR's AITZ boxes: pixel ``[y, x, h, w]`` -> ``[x, y, x + w, y + h]`` / image size * 1000."""
    w, h = float(raw["width"]), float(raw["height"])
    return [[x / w * 1000, y / h * 1000, (x + bw) / w * 1000, (y + bh) / h * 1000] for y, x, bh, bw in raw["ui_positions"]]


def gold_aitz(raw: Mapping[str, Any]) -> str:
    """``convertAITZAction``: a dual point is a tap when touch == lift or they are < 0.04 apart (strict; AITW: <=),
    snapped to the centre of the smallest box holding it when within 0.04; else a scroll named by the finger's main
    axis (|dy| > |dx| vertical, ties horizontal)."""
    code = int(raw["result_action_type"])
    if code == 3:
        return f"TYPE [{raw['result_action_text']}]"
    if code == 4:
        ty, tx = raw["touch_yx"]
        ly, lx = raw["lift_yx"]
        if (tx == lx and ty == ly) or math.sqrt((tx - lx) ** 2 + (ty - ly) ** 2) < 0.04:
            box = _smallest([b for b in aitz_boxes_grid(raw) if _in(tx * 1000, ty * 1000, b)])
            if box is not None:
                cx, cy = (box[0] + box[2]) / 2000, (box[1] + box[3]) / 2000
                if math.sqrt((cx - tx) ** 2 + (cy - ty) ** 2) <= 0.04:
                    tx, ty = cx, cy
            return f"CLICK <point>[[{tx * 1000:.1f}, {ty * 1000:.1f}]]</point>"
        if abs(ty - ly) > abs(tx - lx):
            return "SCROLL [UP]" if ly < ty else "SCROLL [DOWN]"
        return "SCROLL [LEFT]" if lx < tx else "SCROLL [RIGHT]"
    fixed = {5: "PRESS_BACK", 6: "PRESS_HOME", 7: "ENTER", 10: "COMPLETE", 11: "IMPOSSIBLE"}
    if code not in fixed:
        raise Raised(f"result_action_type {code} cannot be parsed")
    return fixed[code]


def gold_odyssey(raw: Mapping[str, Any]) -> str | None:
    """``convertGuiOdysseyAction``; None where it raises NotImplementedError (the step is left out): recent apps,
    ``INCOMPLETE``, an action name other than CLICK / LONG_PRESS / SCROLL / TEXT / COMPLETE. A click snaps to the
    centre of ``sam2_bbox`` when closer than 40 grid units (strict); a long press never snaps."""
    kind, info = raw.get("action"), raw.get("info")
    if kind == "CLICK":
        if info == "KEY_HOME":
            return "PRESS_HOME"
        if info == "KEY_BACK":
            return "PRESS_BACK"
        if isinstance(info, str):
            return None
        x, y = float(info[0][0]), float(info[0][1])
        box = raw.get("sam2_bbox")
        if box is not None:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if math.sqrt((x - cx) ** 2 + (y - cy) ** 2) < 40:
                x, y = cx, cy
        return f"CLICK <point>[[{x:.1f}, {y:.1f}]]</point>"
    if kind == "LONG_PRESS" and isinstance(info, list):
        return f"LONG_CLICK <point>[[{float(info[0][0]):.1f}, {float(info[0][1]):.1f}]]</point>"
    if kind == "SCROLL":
        dx, dy = float(info[1][0]) - float(info[0][0]), float(info[1][1]) - float(info[0][1])
        return f"SCROLL [{('RIGHT' if dx > 0 else 'LEFT') if abs(dx) > abs(dy) else ('DOWN' if dy > 0 else 'UP')}]"
    if kind == "TEXT":
        return f"TYPE [{info}]"
    if kind == "COMPLETE":
        return "COMPLETE"
    return None


def family_gold(atlas: str, label: Callable[[str, str], str | None] | None, dataset: str) -> str | None:
    """The gold as the evaluator of a family reads it back from the label StaR's preprocessing wrote for it (``label``:
    ``acg_gold`` or ``uitars_gold``; the star judge's record says which family has which); None: the preprocessing
    wrote no label (the step does not exist for that family). A family without a label of its own keeps the Atlas gold."""
    return atlas if label is None else label(atlas, dataset)


def acg_gold(atlas: str, dataset: str) -> str | None:
    """translateAtlas2ACG (AndroidControl: scroll words inverted into finger words) / translateAtlas2ACG1 (AITZ,
    GUI-Odyssey): OPENAPP, ENTER and IMPOSSIBLE have no label; the evaluator reads it with translateACG2Atlas."""
    if atlas.startswith("SCROLL"):
        word = atlas[len("SCROLL ["):-1]
        return f"SCROLL [{_FINGER[word] if dataset == 'androidcontrol' else word}]"
    if atlas.startswith("OPENAPP") or atlas in ("ENTER", "IMPOSSIBLE"):
        return None
    if atlas.startswith("PRESS_"):
        return atlas
    if atlas.startswith("TYPE"):
        m = re.search(r"TYPE\s*\[(.*?)\]", atlas)
        return f"TYPE [{m.group(1)}]" if m else "NONEACTION"
    return atlas


def uitars_gold(atlas: str, dataset: str) -> str | None:
    """translateAtlas2Uitars raises on IMPOSSIBLE (the AITZ / GUI-Odyssey preprocessing skips the step), then the
    evaluator reads the label back with translateUITARS2Atlas."""
    if atlas == "IMPOSSIBLE":
        return None
    return atlas_of_ui_tars("Action: " + _uitars_label(atlas))


def _uitars_label(atlas: str) -> str:
    """``translateAtlas2Uitars`` (the label's action)."""
    m = re.search(r"\[\[(-?[0-9.]+),\s*(-?[0-9.]+)\]\]", atlas)
    pt = f"({float(m.group(1))},{float(m.group(2))})" if m else "(None,None)"
    if atlas.startswith("CLICK"):
        return f"click(start_box='<|box_start|>{pt}<|box_end|>')"
    if atlas.startswith("COMPLETE"):
        return "finished()"
    if atlas.startswith("LONG_CLICK"):
        return f"long_press(start_box='<|box_start|>{pt}<|box_end|>', time='')"
    if atlas.startswith("PRESS_BACK"):
        return "press_back()"
    if atlas.startswith("PRESS_HOME"):
        return "press_home()"
    if atlas.startswith("SCROLL"):
        m = re.search(r"SCROLL\s+\[([A-Z]+)\]", atlas)
        return f"scroll(direction={m.group(1).lower() if m else 'down'})"
    if atlas.startswith("OPENAPP"):
        return f"open_app(app_name='{atlas.replace('OPENAPP', '').strip()}')"
    if atlas.startswith("WAIT"):
        return "wait()"
    if atlas.startswith("TYPE"):
        m = re.search(r"TYPE \[(.*?)\]", atlas)
        return f"type(content='{m.group(1) if m else None}')"
    if atlas.startswith("ENTER"):
        return "enter()"
    raise Raised(f"{atlas} has no UI-TARS label")


# --- verdicts (evaluator/actions.py) -------------------------------------------------------------------------------

def _app_words(name: str) -> list[str]:
    from nltk.stem import PorterStemmer

    stem = PorterStemmer().stem
    words = "".join(c if c.isalnum() or c.isspace() else " " for c in name).lower().split()
    return [stem(w) for w in words if w not in ("the", "a", "an")]


def app_names_match_star(pred: str, gold: str) -> bool:
    """androidControlActionJudge's OPENAPP: stems without articles equal, or one merged string inside the other (so an
    empty name matches anything), or the same set of stems (reordered words)."""
    p, g = _app_words(pred), _app_words(gold)
    if p == g:
        return True
    pm, gm = "".join(p), "".join(g)
    return pm in gm or gm in pm or set(p) == set(g)


_PARAMETERLESS = {"SCROLLUP", "SCROLLDOWN", "SCROLLLEFT", "SCROLLRIGHT", "PRESSBACK", "PRESSHOME", "TASKIMPOSSIBLE",
                  "TASKCOMPLETE", "WAIT", "ENTER"}


def verdict(pred: str | None, gold: str, dataset: str, raw: Mapping[str, Any]) -> tuple[bool, bool]:
    """(type match, exact match) as ``actionTypeJudge`` and the dataset's ``*ActionJudge`` decide them."""
    try:
        return _verdict(pred, gold, dataset, raw)
    except Raised:
        return False, False


def _verdict(pred: str | None, gold: str, dataset: str, raw: Mapping[str, Any]) -> tuple[bool, bool]:
    pk, pp, pt, pa = star_kind(pred)
    gk, gp, gt, ga = star_kind(gold)
    if pk != gk:
        return False, False
    if gk == "TYPE":
        return True, (pt or "").strip().lower() == (gt or "").strip().lower()
    if gk == "OPENAPP":
        if dataset == "androidcontrol":
            return True, app_names_match_star(pa or "", ga or "")
        if dataset == "aitz":
            return True, pa == ga
        raise Raised("OPENAPP is not judged on GUI-Odyssey")
    if gk in ("CLICK", "LONGCLICK"):
        if pp is None or gp is None:
            raise Raised("a click without a point")
        return True, _click(pp, gp, dataset, raw)
    if gk in _PARAMETERLESS:
        return True, True
    raise Raised(f"{gk} is not judged")


def _click(p: tuple[float, float], g: tuple[float, float], dataset: str, raw: Mapping[str, Any]) -> bool:
    (x1, y1), (x2, y2) = p, g
    inbound = False
    if dataset == "androidcontrol":
        w, h = float(raw["width"]), float(raw["height"])
        gx, gy = x2 / 1000 * w, y2 / 1000 * h
        near = [b for b in raw.get("clickable_px", []) if _in(gx, gy, b)
                and math.sqrt((((b[0] + b[2]) / 2 - gx) / w * 1000) ** 2 + (((b[1] + b[3]) / 2 - gy) / h * 1000) ** 2) <= 40]
        box = _smallest(near)
        inbound = box is not None and _in(x1 / 1000 * w, y1 / 1000 * h, box)
    elif dataset == "aitz":
        near = [b for b in aitz_boxes_grid(raw) if _in(x2, y2, b)
                and math.sqrt(((b[0] + b[2]) / 2 - x2) ** 2 + ((b[1] + b[3]) / 2 - y2) ** 2) <= 40]
        box = _smallest(near)
        inbound = box is not None and _in(x1, y1, box)
    elif dataset == "gui_odyssey":
        box = raw.get("sam2_bbox")
        if box is None:
            raise Raised("no sam2_bbox")
        inbound = _in(x1, y1, box)
    return inbound or math.sqrt((x2 - x1) ** 2 + (y2 - y1) ** 2) <= 140

