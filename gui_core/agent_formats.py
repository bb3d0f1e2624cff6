"""Each agent family's prompt builder and action writer (StaR appendix C, Figures 7-10; GUI-R1's own prompt).

A family's record names them (``gui_core.family.AgentProtocol.build_prompt`` / ``.write_action``); nothing here is
chosen by a family's name. The texts are quoted data (``gui_core.agent_prompts``).

Builders: ``(f, instruction, geometry, history, low_level, meta, history_lines, instructions) -> str`` where ``f`` is
the family as a task uses it (``gui_core.agents.AgentFamily``: frame, budget). Writers:
``(f, action, geometry, finger_words) -> str`` write one action in the family's syntax, points in ``f.frame``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

from gui_core import agent_prompts
from gui_core.actions import Action
from gui_core.coords import Geometry

UI_TARS_DATASETS = ("androidcontrol", "aitz", "gui_odyssey")
OS_ATLAS_DATASETS = ("androidcontrol", "aitz", "gui_odyssey", "state_control")
# the name each StaR OS-Atlas template gives its history slot (AITZ's is ``{PAD}``)
OS_ATLAS_HISTORY_KEYS: dict[str, str] = {"androidcontrol": "previousActions", "aitz": "PAD", "gui_odyssey": "previousActions"}
LOW_LEVEL_PLACEHOLDER = "__LOW_LEVEL_PLACEHOLDER__"
_FINGER = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}  # scroll direction -> finger movement
_R1_WORD = {"CLICK": "click", "LONG_PRESS": "long_press", "TYPE": "type", "OPENAPP": "open_app", "SCROLL": "scroll",
            "PRESS_BACK": "press_back", "PRESS_HOME": "press_home", "PRESS_ENTER": "press_enter", "WAIT": "wait",
            "COMPLETE": "complete", "IMPOSSIBLE": "impossible"}

# GUI-R1's prompt per dataset: its GUI-Odyssey script's on GUI-Odyssey, its Android one everywhere else
GUI_R1_VARIANTS = {"gui_odyssey": "gui_odyssey"}
PromptBuilder = Callable[..., str]
ActionWriter = Callable[..., str]


def _num(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.1f}"


def _point(f: Any, action: Action, geometry: Geometry) -> tuple[float, float] | None:
    return action.point_in(f.frame, geometry) if action.point is not None else None


def _finger(finger_words: bool) -> Callable[[str], str]:
    return (lambda d: d) if finger_words else (lambda d: _FINGER[d])


def _screen(f: Any, geometry: Geometry) -> tuple[int, int]:
    return ((geometry.resized_width, geometry.resized_height) if f.frame == "resized_px"
            else (geometry.original_width, geometry.original_height))


# --- UI-TARS (Figure 7; StaR's per-dataset templates) ------------------------------------------------------------

def ui_tars_prompt_text(dataset: str | None) -> str:
    """StaR's UI-TARS template for ``dataset``; AndroidControl's for every other dataset."""
    return agent_prompts.text(f"star-ui-tars/{dataset if dataset in UI_TARS_DATASETS else 'androidcontrol'}")


def ui_tars_prompt(f: Any, instruction: str, geometry: Geometry, history: Sequence[str], low_level: str | None,
                   meta: Mapping[str, Any] | None, history_lines: Sequence[str] | None, instructions: Any) -> str:
    text = ui_tars_prompt_text(str((meta or {}).get("dataset"))).format_map({"instruction": instruction})
    lines = history_lines if history_lines is not None else [f"Step {i + 1}: Action: {h}" for i, h in enumerate(history)]
    if lines:  # StaR sends them as chat turns; lmms-eval's request is one user turn (docs/star_judges.md)
        text += "\n## Action History\n" + "\n".join(lines) + "\n"
    if low_level:  # StaR's low setting: an assistant turn "Thought: {step instruction}\n" after the screenshot,
        text += f"\nThought: {low_level}\n"  # closed by add_generation_prompt; here the user text's last line
    return text


def ui_tars_action(f: Any, action: Action, geometry: Geometry, finger_words: bool) -> str:
    if action.type == "PRESS_RECENT":  # GUI-Odyssey's recent-apps key: no such action in its space, written by name
        return "PRESS_RECENT"
    pt, t = _point(f, action, geometry), action.type
    if pt is not None:
        call = "click" if t == "CLICK" else "long_press"
        return f"{call}(start_box='<|box_start|>({_num(pt[0])},{_num(pt[1])})<|box_end|>')"
    return {"TYPE": f"type(content='{action.text}')", "SCROLL": f"scroll(direction='{(action.direction or '').lower()}')",
            "OPENAPP": f"open_app(app_name='{action.text}')", "PRESS_BACK": "press_back()", "PRESS_HOME": "press_home()",
            "PRESS_ENTER": "enter()", "WAIT": "wait()", "COMPLETE": "finished()", "IMPOSSIBLE": "finished()"}[t]


# --- OS-Atlas (Figure 8; StaR's per-dataset templates) -----------------------------------------------------------

def os_atlas_star_prompt(dataset: str, goal: str, instructions: Sequence[str], low_level: str | None) -> str:
    """StaR's OS-Atlas prompt for a step of ``dataset`` as its preprocessors fill it: ``instructions`` are the earlier
    steps' instructions (a list, written as Python writes one), ``low_level`` the step's own (None: the high setting);
    ``state_control``: its one-step template (no history, no low level)."""
    template = agent_prompts.text(f"star-os-atlas/{dataset}")
    if dataset == "state_control":  # one step, no history: StaR writes the string "null"
        return template.format_map({"finalGoal": goal, "history": "null"})
    text = template.format_map({"finalGoal": goal, OS_ATLAS_HISTORY_KEYS[dataset]: list(instructions)})
    return text.replace(LOW_LEVEL_PLACEHOLDER, "" if low_level is None else f"Current step instruction: {low_level}")


def os_atlas_prompt(f: Any, instruction: str, geometry: Geometry, history: Sequence[str], low_level: str | None,
                    meta: Mapping[str, Any] | None, history_lines: Any, instructions: Sequence[str] | None) -> str:
    dataset = str((meta or {}).get("dataset"))
    if dataset in OS_ATLAS_DATASETS:  # StaR's history is the earlier steps' instructions, not their actions
        if instructions is None and dataset != "state_control":
            raise ValueError(f"StaR's OS-Atlas prompt for {dataset} lists the earlier steps' instructions: "
                             "pass instructions= (a step document's history_low_level)")
        return os_atlas_star_prompt(dataset, instruction, instructions or (), low_level)
    prev = "\n".join(f"Step {i + 1}: {h}" for i, h in enumerate(history)) if history else "None"
    low = f"Low-level instruction: {low_level}\n" if low_level else ""
    return agent_prompts.text("star-figure-8-os-atlas").format(goal=instruction, history=prev, low_level=low)


def os_atlas_action(f: Any, action: Action, geometry: Geometry, finger_words: bool) -> str:
    pt, t = _point(f, action, geometry), action.type
    if pt is not None:
        return f"{'CLICK' if t == 'CLICK' else 'LONG_CLICK'} <point>[[{_num(pt[0])}, {_num(pt[1])}]]</point>"
    return {"TYPE": f"TYPE [{action.text}]", "SCROLL": f"SCROLL [{action.direction}]",
            "OPENAPP": f"OPENAPP {action.text}"}.get(t, t)


# --- GUI-R1 (ritzz-ai/GUI-R1 guir1/inference/) -------------------------------------------------------------------

def gui_r1_variant(meta: Mapping[str, Any] | None) -> str:
    """Which GUI-R1 prompt: its GUI-Odyssey one on that dataset, else its Android (AndroidControl) one."""
    return GUI_R1_VARIANTS.get(str((meta or {}).get("dataset")), "android")


def gui_r1_prompt(f: Any, instruction: str, geometry: Geometry, history: Sequence[str], low_level: str | None,
                  meta: Mapping[str, Any] | None, history_lines: Any, instructions: Any) -> str:
    """The history as one text inside the prompt's quotes ("None" without one, as its code)."""
    variant = gui_r1_variant(meta)
    question = instruction if not low_level else f"{instruction} (next step: {low_level})"
    prev = "; ".join(h.replace("<answer>", "").replace("</answer>", "") for h in history) if history else "None"
    return agent_prompts.text(f"gui-r1/{variant}").format(instruction=question, history=prev,
                                                          actions=agent_prompts.text(f"gui-r1-actions/{variant}"))


def gui_r1_action(f: Any, action: Action, geometry: Geometry, finger_words: bool) -> str:
    """The answer literal of its prompt: Python repr, single quotes."""
    pt, t = _point(f, action, geometry), action.type
    point = [int(round(pt[0])), int(round(pt[1]))] if pt is not None else [-100, -100]
    if t in ("TYPE", "OPENAPP"):
        text = action.text
    elif t == "SCROLL":
        text = (action.direction or "DOWN").lower()  # GUI-R1 names the scroll direction (SCROLL_SEMANTICS)
    else:
        text = "no input text"
    return "<answer>" + repr([{"action": _R1_WORD.get(t, t.lower()), "point": point, "input_text": text}]) + "</answer>"


# --- AgentCPM-GUI (Figure 9) -------------------------------------------------------------------------------------

def agentcpm_prompt(f: Any, instruction: str, geometry: Geometry, history: Sequence[str], low_level: str | None,
                    meta: Mapping[str, Any] | None, history_lines: Any, instructions: Any) -> str:
    hist = ("<History>" + "".join(f"<Step{i + 1}>{h}</Step{i + 1}>" for i, h in enumerate(history)) + "</History>\n") if history else ""
    question = instruction if not low_level else f"{instruction}\n{low_level}"
    # the schema has braces: no str.format
    return agent_prompts.text("star-figure-9-agentcpm-gui").replace("{history}", hist, 1).replace("{instruction}", question, 1)


def agentcpm_action(f: Any, action: Action, geometry: Geometry, finger_words: bool) -> str:
    pt, t = _point(f, action, geometry), action.type
    obj: dict = {}
    if pt is not None:
        obj["POINT"] = [int(round(pt[0])), int(round(pt[1]))]
        if t == "LONG_PRESS":
            obj["duration"] = 1000
    elif t == "SCROLL":
        # "to" is the finger's movement, opposite to the scroll direction (the parser's default reading)
        obj.update(POINT=[500, 500], to=_finger(finger_words)(action.direction or "DOWN").lower())
    elif t == "TYPE":
        obj["TYPE"] = action.text
    elif t in ("PRESS_BACK", "PRESS_HOME", "PRESS_ENTER"):
        obj["PRESS"] = t.split("_", 1)[1]
    elif t == "PRESS_RECENT":  # schema_for_extraction.json: APPSELECT, "查看已打开APP列表按钮"
        obj["PRESS"] = "APPSELECT"
    elif t == "WAIT":
        obj["duration"] = 1000
    elif t == "COMPLETE":
        obj["STATUS"] = "finish"
    elif t == "IMPOSSIBLE":
        obj["STATUS"] = "impossible"
    elif t == "OPENAPP":  # AgentCPM-GUI has no open-app action; the text field carries the name
        obj["TYPE"] = action.text
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --- the mobile_use tool (Figure 10: GUI-Owl; Qwen2.5-VL's cookbook) ---------------------------------------------

def mobile_use_prompt(f: Any, instruction: str, geometry: Geometry, history: Sequence[str], low_level: str | None,
                      meta: Mapping[str, Any] | None, history_lines: Any, instructions: Any) -> str:
    """A resized_px family's prompt states the resized resolution (as Mobile-Agent-v3 does); GUI-Owl under StaR the
    original one (A.5)."""
    w, h = _screen(f, geometry)
    tool = json.dumps(agent_prompts.value("mobile-use-tool"), ensure_ascii=False).replace("{width}x{height}", f"{w}x{h}")
    prev = " ".join(f"Step {i + 1}: {h.strip()};" for i, h in enumerate(history)) if history else "None"
    query = instruction if not low_level else f"{instruction} (next step: {low_level})"
    return agent_prompts.text("star-figure-10-gui-owl").format(instruction=query, history=prev, tool=tool)


def mobile_use_action(f: Any, action: Action, geometry: Geometry, finger_words: bool) -> str:
    if action.type == "PRESS_RECENT":  # GUI-Odyssey's recent-apps key: no such action in its space, written by name
        return "PRESS_RECENT"
    pt, t = _point(f, action, geometry), action.type
    args: dict = {}
    if pt is not None:
        args = {"action": "click" if t == "CLICK" else "long_press", "coordinate": [int(round(pt[0])), int(round(pt[1]))]}
    elif t == "SCROLL":
        w, h = _screen(f, geometry)
        cx, cy = w // 2, h // 2
        # the swipe is the finger's movement, opposite to the scroll direction (the parser's default reading)
        word = _finger(finger_words)(action.direction or "DOWN")
        dx, dy = {"DOWN": (0, h // 4), "UP": (0, -h // 4), "RIGHT": (w // 4, 0), "LEFT": (-w // 4, 0)}[word]
        args = {"action": "swipe", "coordinate": [cx, cy], "coordinate2": [cx + dx, cy + dy]}
    elif t in ("TYPE", "OPENAPP"):
        args = {"action": "type" if t == "TYPE" else "open", "text": action.text}
    elif t in ("PRESS_BACK", "PRESS_HOME", "PRESS_ENTER"):
        args = {"action": "system_button", "button": t.split("_", 1)[1].capitalize()}
    elif t == "WAIT":
        args = {"action": "wait", "time": 2}
    else:
        args = {"action": "terminate", "status": "success" if t == "COMPLETE" else "failure"}
    return "<tool_call>\n" + json.dumps({"name": "mobile_use", "arguments": args}, ensure_ascii=False) + "\n</tool_call>"
