"""GUI agents in their own formats on the SPHINX simulator and toggle tasks (StaR appendix A.4-A.5).

StaR evaluates its dynamic toggle benchmark with each agent in its own action format; the step tasks already speak
them (``gui_core.agents``: UI-TARS, OS-Atlas, AgentCPM-GUI, GUI-Owl, Qwen2.5-VL and the resized-pixel
checkpoints). Here a family's prompt asks for the next step on the current screenshot (UI-TARS also sees the four
previous ones, A.5), its history lists the earlier actions in its own syntax, its parser reads the answer, and the
parsed action, in the family's coordinate frame, becomes a SPHINX action in screen pixels (``to_sphinx``):

    CLICK / LONG_PRESS -> click / longclick at the point     SCROLL -> swipe (finger opposite to the scroll direction)
    TYPE -> text into the screen's first editable field       PRESS_BACK / PRESS_HOME / PRESS_ENTER -> back / home / enter
    OPENAPP -> open the app (the simulator's launcher names)  WAIT -> wait;  COMPLETE / IMPOSSIBLE -> stop

TYPE names no target in these formats (a phone types into the focused field); the simulator has no keyboard focus,
so the text goes to the screen's first editable field, the choice recorded as ``TYPE_TARGET``. Actions with no
phone counterpart (DOUBLE_CLICK, RIGHT_CLICK, HOTKEY, DRAG: desktop actions of the shared action type) are format
errors of the episode. Resized-pixel families are read with their budget's resize (a multi-round response keeps
no ``model_image_sizes``), recorded per episode as ``frame_source``.
"""

from __future__ import annotations

from typing import Any, Sequence

from gui_core.actions import Action
from gui_core.coords import Geometry, model_geometry
from gui_tasks.sphinx.hierarchy import Hierarchy, center
from gui_core.agents import build_prompt, family, family_budget, format_action, parse, prompt_geometry

TYPE_TARGET = "first-editable-field"
OBSERVATION = "screenshot"  # the families answer on screenshots (StaR A.5)
_FINGER = {"UP": "down", "DOWN": "up", "LEFT": "right", "RIGHT": "left"}  # scroll direction -> finger motion
_PRESS = {"PRESS_BACK": "back", "PRESS_HOME": "home", "PRESS_ENTER": "enter", "WAIT": "wait", "COMPLETE": "stop",
          "IMPOSSIBLE": "stop"}
MAPPED = frozenset({"CLICK", "LONG_PRESS", "SCROLL", "TYPE", "OPENAPP", *_PRESS})  # the types with a phone counterpart


def check_family(name: str) -> str:
    """``name`` when it is a known family (aliases included), else ValueError listing them."""
    family(name)
    return name


def prompt_protocol(name: str) -> str:
    return family(name).prompt_id


def parser_protocol(name: str) -> str:
    return f"star-families:{family(name).parser}"


def frames(name: str, size: tuple[int, int]) -> tuple[Geometry, Geometry, dict[str, Any]]:
    """(prompt geometry, scoring geometry, frame record) of family ``name`` on a screen of ``size`` pixels."""
    f = family(name)
    w, h = int(size[0]), int(size[1])
    fallback = family_budget(f) if f.frame == "resized_px" else None
    geo, record = model_geometry(f.frame, w, h, fallback=fallback)
    return prompt_geometry(name, w, h), geo, record


def _editable(h: Hierarchy) -> tuple[float, float] | None:
    for i in h.bfs():
        n = h.nodes[i]
        if n.get("class").endswith(("EditText", "AutoCompleteTextView")):
            return center(n.box)
    return None


def _scroll_origin(h: Hierarchy, size: tuple[int, int]) -> tuple[float, float]:
    for i in h.bfs():
        if h.nodes[i].flag("scrollable"):
            return center(h.nodes[i].box)
    return size[0] / 2, size[1] / 2


def to_sphinx(action: Action, hierarchy: Hierarchy, size: tuple[int, int], geo: Geometry) -> dict[str, Any] | None:
    """A family's parsed action as a SPHINX action (points in screen pixels), or None when it has no phone counterpart."""
    t = action.type
    if t not in MAPPED:
        return None
    if t in ("CLICK", "LONG_PRESS"):
        x, y = action.point_in("original_px", geo)
        return {"type": "click" if t == "CLICK" else "longclick", "point": (x, y)}
    if t == "SCROLL":
        start = action.point_in("original_px", geo) if action.point is not None else _scroll_origin(hierarchy, size)
        return {"type": "swipe", "point": start, "direction": _FINGER[action.direction or "DOWN"]}
    if t == "TYPE":
        spot = _editable(hierarchy)
        return {"type": "text", "point": spot if spot is not None else (-1.0, -1.0), "text": action.text or ""}
    if t == "OPENAPP":
        return {"type": "open", "text": action.text or ""}
    if t in _PRESS:
        return {"type": _PRESS[t]}
    return None


def read(name: str, text: str, hierarchy: Hierarchy, size: tuple[int, int]) -> tuple[str, dict[str, Any] | None]:
    """``(status, SPHINX action)`` of one answer of family ``name``: parsed by the family's parser, never raising."""
    parsed = parse(str(text), name)
    if parsed.status != "parsed" or parsed.action is None:
        return (parsed.status if parsed.status != "parsed" else "malformed"), None
    _p, geo, _r = frames(name, size)
    try:
        act = to_sphinx(parsed.action, hierarchy, size, geo)
    except (ValueError, TypeError):
        act = None
    return ("parsed", act) if act is not None else ("malformed", None)


def history(name: str, outputs: Sequence[str], size: tuple[int, int]) -> list[str]:
    """The family's own lines for the answers that were actions, in order (format errors are not steps taken)."""
    geo = frames(name, size)[0]
    lines = []
    for text in outputs:
        parsed = parse(str(text), name)
        if parsed.status == "parsed" and parsed.action is not None and parsed.action.type in MAPPED:
            try:
                lines.append(format_action(parsed.action, name, geo))
            except (KeyError, ValueError):
                continue
    return lines


def prompt(name: str, instruction: str, outputs: Sequence[str], size: tuple[int, int]) -> str:
    """The family's prompt for the next step, its history in its own syntax."""
    return build_prompt(name, instruction, frames(name, size)[0], history(name, outputs, size))


def history_images(name: str) -> int:
    """Earlier screenshots the family sees beside the current one (UI-TARS: four, A.5)."""
    return family(name).history_images


__all__ = ["OBSERVATION", "TYPE_TARGET", "check_family", "frames", "history", "history_images", "prompt",
           "prompt_protocol", "parser_protocol", "read", "to_sphinx"]
