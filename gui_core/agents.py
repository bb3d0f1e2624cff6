"""Families as step-wise agents: each one's own prompt (StaR appendix C, Figures 7-10), action format and frame.

The facts of each family (parser, frame, prompt id, history screenshots, budget) are in its record
(``gui_core.families``); this module builds prompts, writes actions in a family's syntax and parses its answers.

A family names the prompt template a task builds, the parser that reads the answer
(``gui_core.action_parsers``) and the coordinate frame the numbers are in under that
prompt. StaR A.5: OS-Atlas, UI-TARS and AgentCPM-GUI click on the 0-1000 grid; GUI-Owl on
original pixels (so its prompt states the original resolution). Qwen2-VL uses the OS-Atlas
prompt (A.5), and proprietary models without an agent prompt use UI-TARS's. GUI-R1 keeps its original prompt
(ritzz-ai/GUI-R1 ``guir1/inference/``) with clicks in original pixels (A.5).

Released checkpoints that answer in pixels of the image their processor resized (UI-TARS-1.5, Qwen2.5-VL's
mobile_use) are the families ``ui_tars_1_5`` and ``qwen2_5_vl`` (frame ``resized_px``): scoring maps their
points back with the size the backend reports (``extras["model_image_sizes"]``), else with the family's named
resize budget (``gui_core.coords.BUDGETS``; task metadata ``resize_budget`` / ``min_pixels`` / ``max_pixels``
override it). Every record names the frame and where its size came from.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Mapping, Sequence

from gui_core.action_parsers import SCROLL_SEMANTICS, GestureToScroll, ParsedAction, Reading, parse_action
from gui_core.actions import Action
from gui_core.coords import FRAMES, Frame, Geometry, budget, model_geometry, reported_size
from gui_core.family import FAMILIES, agent_family_of
from gui_core.registry import UnknownName


@dataclass(frozen=True)
class AgentFamily:
    """A family's agent protocol as a task uses it (from its record, ``gui_core.families``)."""

    name: str
    parser: str  # gui_core.action_parsers family
    frame: Frame  # the frame of the coordinates this family writes under its prompt
    prompt_id: str  # protocol id recorded with results
    history_images: int = 0  # earlier screenshots shown with the history (UI-TARS: four, A.5)
    budget: str | None = None  # resize budget of a resized_px family (gui_core.coords.BUDGETS)
    own_history: bool = False  # its own earlier answers can be replayed as history (UI-TARS own-history protocol)

    @property
    def scroll_semantics(self) -> str:
        """What the family's scroll word names: "scroll" (the scroll direction) or "finger" (the finger's movement)."""
        return SCROLL_SEMANTICS[self.parser]


@lru_cache(maxsize=None)
def _agent_of(lender: str) -> AgentFamily:
    rec = agent_family_of(lender)
    a = rec.agent
    assert a is not None
    return AgentFamily(rec.name, a.parser, a.frame, a.prompt_id, a.history_images, rec.budget, a.own_history)


def agent_families() -> dict[str, AgentFamily]:
    """Every family with an agent protocol of its own, by name (borrowers and aliases left out)."""
    return {f.name: _agent_of(f.name) for f in FAMILIES.values() if f.agent is not None}


def agent_names() -> list[str]:
    """Every name a task may give as its agent family: families with an agent protocol, borrowers and aliases."""
    names = [f.name for f in FAMILIES.values() if f.agent is not None or f.agent_from is not None]
    return names + [a for a, target in FAMILIES.aliases().items() if target in names]


def _family(name: str) -> AgentFamily:
    known = agent_names()
    if name not in known:
        close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise UnknownName(f"unknown agent family {name!r}{hint}; known: {', '.join(sorted(known))}")
    return _agent_of(agent_family_of(name).name)


def family(name: str, meta: Mapping[str, Any] | None = None) -> AgentFamily:
    """The family ``name`` (aliases resolved), with the frame ``meta["coordinate_frame"]`` names when given.

    GUI-Owl answers in original pixels under StaR's prompt (A.5, the StaR-trained checkpoints); a released GUI-Owl
    checkpoint answering in pixels of its resized image is ``coordinate_frame: resized_px`` (its budget: ``gui_owl``).
    """
    f = _family(name)
    frame = str((meta or {}).get("coordinate_frame") or "")
    if frame and frame != f.frame:
        if frame not in FRAMES:
            raise ValueError(f"coordinate_frame {frame!r} unknown; known: {', '.join(FRAMES)}")
        f = replace(f, frame=frame, budget=f.budget or "qwen2_5_vl")  # type: ignore[arg-type]
    return f


def prompt_geometry(fam: str, width: int, height: int, meta: Mapping[str, Any] | None = None) -> Geometry:
    """The geometry a prompt is written for: the budget's resize for a resized_px family, else the original."""
    f = family(fam, meta)
    if f.frame != "resized_px":
        return Geometry.identity(width, height)
    return Geometry.from_budget(width, height, family_budget(f, meta))


def family_budget(f: AgentFamily, meta: Mapping[str, Any] | None = None):
    """The family's resize budget, overridden by ``resize_budget`` / ``min_pixels`` / ``max_pixels`` in ``meta``."""
    meta = meta or {}
    name = meta.get("resize_budget") or f.budget or "qwen2_5_vl"
    return budget(str(name), min_pixels=meta.get("min_pixels"), max_pixels=meta.get("max_pixels"))


def scoring_geometry(fam: str, width: int, height: int, response: Any = None, *, image_index: int = -1,
                     meta: Mapping[str, Any] | None = None) -> tuple[Geometry, dict[str, Any]]:
    """The geometry a family's answer is read in, and a record of where the model's image size came from
    (``gui_core.coords.model_geometry``: the backend's ``extras["model_image_sizes"][image_index]``, else the
    family's budget). Families that do not answer in resized pixels need no model size."""
    from gui_core.logit_capture import extras_of

    f = family(fam, meta)
    size = reported_size(extras_of(response).get("model_image_sizes"), image_index)
    fallback = family_budget(f, meta) if f.frame == "resized_px" else None
    return model_geometry(f.frame, width, height, model_size=size, fallback=fallback)


# --- Figure 7: UI-TARS -------------------------------------------------------------------------------
# --- StaR's UI-TARS step prompts (ZrW00/StaR@3af0acd5 dataPreprocessor/templates.py, GPL-3.0; UI-TARS's prompt), byte
# for byte, one per dataset: AITZ's lists enter() and drops long_press / open_app / wait, GUI-Odyssey's drops open_app /
# wait. StaR fills ``{instruction}`` with ``str.format_map`` (preprocessors.py); tests/fixtures/star_prompts holds the
# cited source text the test compares with.
_UI_TARS_ANDROIDCONTROL = (
    "\n"
    "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task. \n"
    "## Output Format\n"
    "```\n"
    "Thought: ...\n"
    "Action: ...\n"
    "```\n"
    "## Action Space\n"
    "\n"
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>', time='')\n"
    "type(content='')\n"
    "scroll(direction='down or up or right or left')\n"
    "open_app(app_name='')\n"
    "press_back()\n"
    "press_home()\n"
    "wait()\n"
    "finished() # Submit the task regardless of whether it succeeds or fails.\n"
    "\n"
    "\n"
    "## Note\n"
    "- Use English in `Thought` part.\n"
    "- Summarize your next action (with its target element) in one sentence in `Thought` part.\n"
    "\n"
    "## User Instruction\n"
    "{instruction}\n")
_UI_TARS_AITZ = (
    "\n"
    "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task. \n"
    "## Output Format\n"
    "```\n"
    "Thought: ...\n"
    "Action: ...\n"
    "```\n"
    "## Action Space\n"
    "\n"
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "type(content='')\n"
    "scroll(direction='down or up or right or left')\n"
    "enter()\n"
    "press_back()\n"
    "press_home()\n"
    "finished() # Submit the task regardless of whether it succeeds or fails.\n"
    "\n"
    "\n"
    "## Note\n"
    "- Use English in `Thought` part.\n"
    "- Summarize your next action (with its target element) in one sentence in `Thought` part.\n"
    "\n"
    "## User Instruction\n"
    "{instruction}\n")
_UI_TARS_GUI_ODYSSEY = (
    "\n"
    "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task. \n"
    "## Output Format\n"
    "```\n"
    "Thought: ...\n"
    "Action: ...\n"
    "```\n"
    "## Action Space\n"
    "\n"
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>', time='')\n"
    "type(content='')\n"
    "scroll(direction='down or up or right or left')\n"
    "press_back()\n"
    "press_home()\n"
    "finished() # Submit the task regardless of whether it succeeds or fails.\n"
    "\n"
    "\n"
    "## Note\n"
    "- Use English in `Thought` part.\n"
    "- Summarize your next action (with its target element) in one sentence in `Thought` part.\n"
    "\n"
    "## User Instruction\n"
    "{instruction}\n")
UI_TARS_PROMPTS: dict[str, str] = {"androidcontrol": _UI_TARS_ANDROIDCONTROL, "aitz": _UI_TARS_AITZ, "gui_odyssey": _UI_TARS_GUI_ODYSSEY}
UI_TARS = UI_TARS_PROMPTS["androidcontrol"]  # every other dataset (the synthetic world, state control)


# --- Figure 8: OS-Atlas ------------------------------------------------------------------------------
# StaR's OS-Atlas step prompts (ZrW00/StaR@3af0acd5 dataPreprocessor/templates.py, GPL-3.0), byte for byte, one per
# dataset: AITZ's lists ENTER and drops OPENAPP / WAIT / LONG_CLICK and names its history {PAD}, GUI-Odyssey's drops
# IMPOSSIBLE / OPENAPP / WAIT. StaR fills them with ``str.format_map`` (the previous step instructions as a Python
# list, so their ``repr``), then replaces ``__LOW_LEVEL_PLACEHOLDER__`` with "Current step instruction: ..." (low) or ""
# (high) (preprocessors.py); ``os_atlas_star_prompt`` does the same. ``<image>`` stays in the text as StaR sends it: its
# evaluator (evaluator/evaluators.py, agents.py AtlasAgent) hands the text to Qwen2-VL's chat template as a plain
# string, where ``<image>`` is no image token, and the screenshot follows as its own user turn; lmms-eval's request
# carries the screenshot beside the text (docs/star_judges.md). tests/fixtures/star_prompts holds the cited source text.
_OS_ATLAS_ANDROIDCONTROL = (
    "\n"
    "You are now operating in Executable Language Grounding mode. Your goal is to help users accomplish tasks by suggesting executable actions that best fit their needs. Your skill set includes both basic and custom actions:\n"
    "\n"
    "1. Basic Actions\n"
    "Basic actions are standardized and available across all platforms. They provide essential functionality and are defined with a specific format, ensuring consistency and reliability. \n"
    "Basic Action 1: CLICK \n"
    "    - purpose: Click at the specified position.\n"
    "    - format: CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: CLICK <point>[[101, 872]]</point>\n"
    "       \n"
    "Basic Action 2: TYPE\n"
    "    - purpose: Enter specified text at the designated location.\n"
    "    - format: TYPE [input text]\n"
    "    - example usage: TYPE [Shanghai shopping mall]\n"
    "\n"
    "Basic Action 3: SCROLL\n"
    "    - purpose: SCROLL in the specified direction.\n"
    "    - format: SCROLL [direction (UP/DOWN/LEFT/RIGHT)]\n"
    "    - example usage: SCROLL [UP]\n"
    "    \n"
    "2. Custom Actions\n"
    "Custom actions are unique to each user's platform and environment. They allow for flexibility and adaptability, enabling the model to support new and unseen actions defined by users. These actions extend the functionality of the basic set, making the model more versatile and capable of handling specific tasks.\n"
    "\n"
    "Custom Action 1: PRESS_BACK\n"
    "    - purpose: Press a back button to navigate to the previous screen.\n"
    "    - format: PRESS_BACK\n"
    "    - example usage: PRESS_BACK\n"
    "\n"
    "Custom Action 2: PRESS_HOME\n"
    "    - purpose: Press a home button to navigate to the home page.\n"
    "    - format: PRESS_HOME\n"
    "    - example usage: PRESS_HOME\n"
    "\n"
    "Custom Action 3: IMPOSSIBLE\n"
    "    - purpose: Indicate the task is impossible.\n"
    "    - format: IMPOSSIBLE\n"
    "    - example usage: IMPOSSIBLE\n"
    "\n"
    "Custom Action 4: COMPLETE\n"
    "    - purpose: Indicate the task is finished.\n"
    "    - format: COMPLETE\n"
    "    - example usage: COMPLETE\n"
    "\n"
    "Custom Action 5: OPENAPP\n"
    "    - purpose: Open an app.\n"
    "    - format: OPENAPP <APP_NAME>\n"
    "    - example usage: OPENAPP Zoho Meeting\n"
    "\n"
    "Custom Action 6: WAIT\n"
    "    - purpose: Wait a set number of seconds for something on screen (e.g., a loading bar).\n"
    "    - format: WAIT\n"
    "    - example usage: WAIT\n"
    "\n"
    "Custom Action 7: LONG_CLICK\n"
    "    - purpose: Long click at the specified position.\n"
    "    - format: LONG_CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: LONG_CLICK <point>[[101, 872]]</point>\n"
    "\n"
    "In most cases, task instructions are high-level and abstract. Carefully read the instruction and action history, then perform reasoning to determine the most appropriate next action. Ensure you strictly generate two sections: Thought and Action.\n"
    "Thought: Clearly outline your reasoning process for current step.\n"
    "Action: Specify the actual actions you will take based on your reasoning. You should follow action format above when generating. \n"
    "\n"
    "And your final goal, previous actions and associated screenshot are as follows:\n"
    "\n"
    "Final goal: {finalGoal}\n"
    "Previous actions: {previousActions}\n"
    "__LOW_LEVEL_PLACEHOLDER__\n"
    "Screenshot: <image>\n"
    "\n"
    "# Instructions for Determining the Next Action\n"
    "- Carefully analyze the final goal, previous actions, and the current screenshot.\n"
    "- Identify the most suitable action based on the context and the goal.\n"
    "- Make sure the action you suggest aligns with the desired outcome, considering the previous steps.\n")
_OS_ATLAS_AITZ = (
    "\n"
    "You are now operating in Executable Language Grounding mode. Your goal is to help users accomplish tasks by suggesting executable actions that best fit their needs and give a score. Your skill set includes both basic and custom actions:\n"
    "\n"
    "1. Basic Actions\n"
    "Basic actions are standardized and available across all platforms. They provide essential functionality and are defined with a specific format, ensuring consistency and reliability. \n"
    "Basic Action 1: CLICK \n"
    "    - purpose: Click at the specified position.\n"
    "    - format: CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: CLICK <point>[[101, 872]]</point>\n"
    "\n"
    "Basic Action 2: TYPE\n"
    "    - purpose: Enter specified text at the designated location.\n"
    "    - format: TYPE [input text]\n"
    "    - example usage: TYPE [Shanghai shopping mall]\n"
    "\n"
    "Basic Action 3: SCROLL\n"
    "    - Purpose: SCROLL in the specified direction.\n"
    "    - Format: SCROLL [direction (UP/DOWN/LEFT/RIGHT)]\n"
    "    - Example Usage: SCROLL [UP]\n"
    "\n"
    "2. Custom Actions\n"
    "Custom actions are unique to each user's platform and environment. They allow for flexibility and adaptability, enabling the model to support new and unseen actions defined by users. These actions extend the functionality of the basic set, making the model more versatile and capable of handling specific tasks.\n"
    "\n"
    "Custom Action 1: PRESS_BACK\n"
    "    - purpose: Press a back button to navigate to the previous screen.\n"
    "    - format: PRESS_BACK\n"
    "    - example usage: PRESS_BACK\n"
    "\n"
    "Custom Action 2: PRESS_HOME\n"
    "    - purpose: Press a home button to navigate to the home page.\n"
    "    - format: PRESS_HOME\n"
    "    - example usage: PRESS_HOME\n"
    "\n"
    "Custom Action 3: ENTER\n"
    "    - purpose: Press the enter button.\n"
    "    - format: ENTER\n"
    "    - example usage: ENTER\n"
    "\n"
    "Custom Action 4: IMPOSSIBLE\n"
    "    - purpose: Indicate the task is impossible.\n"
    "    - format: IMPOSSIBLE\n"
    "    - example usage: IMPOSSIBLE\n"
    "\n"
    "Custom Action 5: COMPLETE\n"
    "    - purpose: Indicate the task is finished.\n"
    "    - format: COMPLETE\n"
    "    - example usage: COMPLETE\n"
    "\n"
    "In most cases, task instructions are high-level and abstract. Carefully read the instruction and action history, then perform reasoning to determine the most appropriate next action. Ensure you strictly generate two sections: Thought and Action.\n"
    "Thought: Clearly outline your reasoning process for current step.\n"
    "Action: Specify the actual actions you will take based on your reasoning. You should follow action format above when generating. \n"
    "\n"
    "### Final Input Details\n"
    "Your final goal, previous actions, current screen description, and any additional context are provided as follows:\n"
    "- **Final Goal**: {finalGoal}\n"
    "- **Previous Action Descriptions**: {PAD}\n"
    "__LOW_LEVEL_PLACEHOLDER__\n"
    "- **Screenshot**: <image>\n")
_OS_ATLAS_GUI_ODYSSEY = (
    "\n"
    "You are now operating in Executable Language Grounding mode. Your goal is to help users accomplish tasks by suggesting executable actions that best fit their needs. Your skill set includes both basic and custom actions:\n"
    "\n"
    "1. Basic Actions\n"
    "Basic actions are standardized and available across all platforms. They provide essential functionality and are defined with a specific format, ensuring consistency and reliability. \n"
    "Basic Action 1: CLICK \n"
    "    - purpose: Click at the specified position.\n"
    "    - format: CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: CLICK <point>[[101, 872]]</point>\n"
    "       \n"
    "Basic Action 2: TYPE\n"
    "    - purpose: Enter specified text at the designated location.\n"
    "    - format: TYPE [input text]\n"
    "    - example usage: TYPE [Shanghai shopping mall]\n"
    "\n"
    "Basic Action 3: SCROLL\n"
    "    - purpose: SCROLL in the specified direction.\n"
    "    - format: SCROLL [direction (UP/DOWN/LEFT/RIGHT)]\n"
    "    - example usage: SCROLL [UP]\n"
    "    \n"
    "2. Custom Actions\n"
    "Custom actions are unique to each user's platform and environment. They allow for flexibility and adaptability, enabling the model to support new and unseen actions defined by users. These actions extend the functionality of the basic set, making the model more versatile and capable of handling specific tasks.\n"
    "\n"
    "Custom Action 1: PRESS_BACK\n"
    "    - purpose: Press a back button to navigate to the previous screen.\n"
    "    - format: PRESS_BACK\n"
    "    - example usage: PRESS_BACK\n"
    "\n"
    "Custom Action 2: PRESS_HOME\n"
    "    - purpose: Press a home button to navigate to the home page.\n"
    "    - format: PRESS_HOME\n"
    "    - example usage: PRESS_HOME\n"
    "\n"
    "\n"
    "Custom Action 3: COMPLETE\n"
    "    - purpose: Indicate the task is finished.\n"
    "    - format: COMPLETE\n"
    "    - example usage: COMPLETE\n"
    "\n"
    "Custom Action 4: LONG_CLICK\n"
    "    - purpose: Long click at the specified position.\n"
    "    - format: LONG_CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: LONG_CLICK <point>[[101, 872]]</point>\n"
    "\n"
    "In most cases, task instructions are high-level and abstract. Carefully read the instruction and action history, then perform reasoning to determine the most appropriate next action. Ensure you strictly generate two sections: Thought and Action.\n"
    "Thought: Clearly outline your reasoning process for current step.\n"
    "Action: Specify the actual actions you will take based on your reasoning. You should follow action format above when generating. \n"
    "\n"
    "And your final goal, previous actions and associated screenshot are as follows:\n"
    "\n"
    "Final goal: {finalGoal}\n"
    "Previous actions: {previousActions}\n"
    "__LOW_LEVEL_PLACEHOLDER__\n"
    "Screenshot: <image>\n"
    "\n"
    "# Instructions for Determining the Next Action\n"
    "- Carefully analyze the final goal, previous actions, and the current screenshot.\n"
    "- Identify the most suitable action based on the context and the goal.\n"
    "- Make sure the action you suggest aligns with the desired outcome, considering the previous steps.\n")
# StaR's state-control benchmark (StateCoTDataPreprocessor / StateCoTForAtlasDataPreprocessor, preprocessors.py): its
# own OS-Atlas template, CLICK and COMPLETE only, filled with {finalGoal} = the instruction and {history} = "null"
_OS_ATLAS_STATE_CONTROL = (
    "\n"
    "You are now operating in Executable Language Grounding mode. Your goal is to help users accomplish tasks by suggesting executable actions that best fit their needs. Your skill set includes both basic and custom actions:\n"
    "\n"
    "1. Basic Actions\n"
    "Basic actions are standardized and available across all platforms. They provide essential functionality and are defined with a specific format, ensuring consistency and reliability. \n"
    "Basic Action 1: CLICK \n"
    "    - purpose: Click at the specified position.\n"
    "    - format: CLICK <point>[[x-axis, y-axis]]</point>\n"
    "    - example usage: CLICK <point>[[101, 872]]</point>\n"
    "        \n"
    "2. Custom Actions\n"
    "Custom actions are unique to each user's platform and environment. They allow for flexibility and adaptability, enabling the model to support new and unseen actions defined by users. These actions extend the functionality of the basic set, making the model more versatile and capable of handling specific tasks.\n"
    "\n"
    "Custom Action 1: COMPLETE\n"
    "    - purpose: Indicate the task is finished.\n"
    "    - format: COMPLETE\n"
    "    - example usage: COMPLETE\n"
    "\n"
    "In most cases, task instructions are high-level and abstract. Carefully read the instruction and action history, then perform reasoning to determine the most appropriate next action. Ensure you strictly generate two sections: Thought and Action.\n"
    "Thought: Clearly outline your reasoning process for current step.\n"
    "Action: Specify the actual actions you will take based on your reasoning. You should follow action format above when generating. \n"
    "\n"
    "Your current task instruction, action history, and associated screenshot are as follows:\n"
    "\n"
    "Final goal: {finalGoal}\n"
    "History: {history}\n"
    "Screenshot: <image>\n"
    "\n"
    "# Instructions for Determining the Next Action\n"
    "- Carefully analyze the final goal and the current screenshot.\n"
    "- Identify the most suitable action based on the context and the goal.\n"
    "- Make sure the action you suggest aligns with the desired outcome, considering the previous steps.\n"
    "\n"
    "# Output Format\n"
    "Your output must strictly follow the above action format, and especially avoid using unnecessary quotation marks or other punctuation marks. (where osatlas action must be one of the action formats I provided).\n"
    "\n"
    "Output:\n")
OS_ATLAS_PROMPTS: dict[str, str] = {"androidcontrol": _OS_ATLAS_ANDROIDCONTROL, "aitz": _OS_ATLAS_AITZ,
                                    "gui_odyssey": _OS_ATLAS_GUI_ODYSSEY, "state_control": _OS_ATLAS_STATE_CONTROL}
# the name each template gives its history slot (AITZ's is ``{PAD}``)
OS_ATLAS_HISTORY_KEYS: dict[str, str] = {"androidcontrol": "previousActions", "aitz": "PAD", "gui_odyssey": "previousActions"}
LOW_LEVEL_PLACEHOLDER = "__LOW_LEVEL_PLACEHOLDER__"


def os_atlas_star_prompt(dataset: str, goal: str, instructions: Sequence[str], low_level: str | None) -> str:
    """StaR's OS-Atlas prompt for a step of ``dataset`` as its preprocessors fill it: ``instructions`` are the earlier
    steps' instructions (a list, written as Python writes one), ``low_level`` the step's own (None: the high setting);
    ``state_control``: its one-step template (no history, no low level)."""
    if dataset == "state_control":  # one step, no history: StaR writes the string "null"
        return OS_ATLAS_PROMPTS[dataset].format_map({"finalGoal": goal, "history": "null"})
    text = OS_ATLAS_PROMPTS[dataset].format_map({"finalGoal": goal, OS_ATLAS_HISTORY_KEYS[dataset]: list(instructions)})
    return text.replace(LOW_LEVEL_PLACEHOLDER, "" if low_level is None else f"Current step instruction: {low_level}")


# The paper's Figure 8 prompt: every other dataset (the synthetic worlds, synthetic state control) and the Sphinx agents
OS_ATLAS = """You are now operating in Executable Language Grounding mode. Your goal is to help users accomplish tasks by suggesting executable actions that best fit their needs. Your skill set includes both basic and custom actions.

1. Basic Actions
Basic actions are standardized and available across all platforms. They provide essential functionality and are defined with a specific format, ensuring consistency and reliability.
Basic Action 1: CLICK
- purpose: Click at the specified position.
- format: CLICK <point>[[x-axis, y-axis]]</point>
- example usage: CLICK <point>[[101, 872]]</point>
Basic Action 2: TYPE
- purpose: Enter specified text at the designated location.
- format: TYPE [input text]
- example usage: TYPE [Shanghai shopping mall]
Basic Action 3: SCROLL
- purpose: SCROLL in the specified direction.
- format: SCROLL [direction [UP/DOWN/LEFT/RIGHT]]
- example usage: SCROLL [UP]

2. Custom Actions
Custom actions are unique to each user's platform and environment. They allow for flexibility and adaptability, enabling the model to support new and unseen actions defined by users. These actions extend the functionality of the basic set, making the model more versatile and capable of handling specific tasks.
Custom Action 1: PRESS_BACK
- purpose: Press a back button to navigate to the previous screen.
- format: PRESS_BACK
- example usage: PRESS_BACK
Custom Action 2: PRESS_HOME
- purpose: Press a home button to navigate to the home page.
- format: PRESS_HOME
- example usage: PRESS_HOME
Custom Action 3: IMPOSSIBLE
- purpose: Indicate the task is impossible.
- format: IMPOSSIBLE
- example usage: IMPOSSIBLE
Custom Action 4: COMPLETE
- purpose: Indicate the task is finished.
- format: COMPLETE
- example usage: COMPLETE
Custom Action 5: OPENAPP
- purpose: Open an app.
- format: OPENAPP <APP_NAME>
- example usage: OPENAPP Zoho Meeting
Custom Action 6: WAIT
- purpose: Wait a set number of seconds for something on screen (e.g., a loading bar).
- format: WAIT
- example usage: WAIT
Custom Action 7: LONG_CLICK
- purpose: Long click at the specified position.
- format: LONG_CLICK <point>[[x-axis, y-axis]]</point>
- example usage: LONG_CLICK <point>[[101, 872]]</point>

In most cases, task instructions are high-level and abstract. Carefully read the instruction and action history, then perform reasoning to determine the most appropriate next action. Ensure you strictly generate two sections: Thought and Action.
Thought: Clearly outline your reasoning process for current step.
Action: Specify the actual actions you will take based on your reasoning. You should follow action format above when generating.

And your final goal, previous actions and associated screenshot are as follows:
Final goal: {goal}
Previous actions: {history}
{low_level}Screenshot: (attached)

Instructions for Determining the Next Action
- Carefully analyze the final goal, previous actions, and the current screenshot.
- Identify the most suitable action based on the context and the goal.
- Make sure the action you suggest aligns with the desired outcome, considering the previous steps."""

# --- Figure 9: AgentCPM-GUI (its system prompt is in Chinese in the original; kept verbatim) ---------
AGENTCPM_SCHEMA = {
    "type": "object", "description": "执行操作并决定当前任务状态", "additionalProperties": False,
    "properties": {
        "thought": {"type": "string", "description": "智能体的思维过程"},
        "POINT": {"$ref": "#/$defs/Location", "description": "点击屏幕上的指定位置"},
        "to": {"description": "移动，组合手势参数", "oneOf": [
            {"enum": ["up", "down", "left", "right"],
             "description": "从当前点（POINT）出发，执行滑动手势操作，方向包括向上、向下、向左、向右"},
            {"$ref": "#/$defs/Location", "description": "移动到某个位置"}]},
        "duration": {"type": "integer", "description": "动作执行的时间或等待时间，毫秒", "minimum": 0, "default": 200},
        "PRESS": {"type": "string", "description": "触发特殊按键，HOME为回到主页按钮，BACK为返回按钮，ENTER为回车按钮",
                  "enum": ["HOME", "BACK", "ENTER"]},
        "TYPE": {"type": "string", "description": "输入文本"},
        "STATUS": {"type": "string",
                   "description": "当前任务的状态。特殊情况：satisfied，无需操作；impossible，任务无法完成；interrupt，任务中断；need_feedback，需要用户反馈；",
                   "enum": ["continue", "finish", "satisfied", "impossible", "interrupt", "need_feedback"], "default": "continue"},
    },
    "$defs": {"Location": {"type": "array",
                           "description": "坐标为相对于屏幕左上角位原点的相对位置，并且按照宽高比例缩放到0～1000，数组第一个元素为横坐标x，第二个元素为纵坐标y",
                           "items": {"type": "integer", "minimum": 0, "maximum": 1000}, "minItems": 2, "maxItems": 2}},
}
AGENTCPM = """# Role
你是一名熟悉安卓系统触屏GUI操作的智能体，将根据用户的问题，分析当前界面的GUI元素和布局，生成相应的操作。

# Task
针对用户问题，根据输入的当前屏幕截图，输出下一步的操作。

# Rule
- 以紧凑JSON格式输出
- 输出操作必须遵循Schema约束

# Schema
""" + json.dumps(AGENTCPM_SCHEMA, ensure_ascii=False, separators=(",", ":")) + """
{history}<Question>{instruction}</Question>"""

# --- Figure 10: GUI-Owl (mobile_use tool) ------------------------------------------------------------
GUI_OWL_TOOL = {
    "type": "function",
    "function": {
        "name": "mobile_use",
        "description": ("Use a touchscreen to interact with a mobile device, and take screenshots.\n"
                        "* This is an interface to a mobile device with touchscreen. You can perform actions like clicking, typing, swiping, etc.\n"
                        "* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions.\n"
                        "* The screen's resolution is {width}x{height}.\n"
                        "* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked."),
        "parameters": {"properties": {
            "action": {"description": ("The action to perform. The available actions are:\n"
                                       "* `key`: Perform a key event on the mobile device.\n    - This supports adb's `keyevent` syntax.\n    - Examples: \"volume_up\", \"volume_down\", \"power\", \"camera\", \"clear\".\n"
                                       "* `click`: Click the point on the screen with coordinate (x, y).\n"
                                       "* `long_press`: Press the point on the screen with coordinate (x, y) for specified seconds.\n"
                                       "* `swipe`: Swipe from the starting point with coordinate (x, y) to the end point with coordinates2 (x2, y2).\n"
                                       "* `type`: Input the specified text into the activated input box.\n"
                                       "* `system_button`: Press the system button.\n"
                                       "* `open`: Open an app on the device.\n"
                                       "* `wait`: Wait specified seconds for the change to happen.\n"
                                       "* `terminate`: Terminate the current task and report its completion status."),
                       "enum": ["key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate"],
                       "type": "string"},
            "coordinate": {"description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=click`, `action=long_press`, and `action=swipe`.", "type": "array"},
            "coordinate2": {"description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=swipe`.", "type": "array"},
            "text": {"description": "Required only by `action=key`, `action=type`, and `action=open`.", "type": "string"},
            "time": {"description": "The seconds to wait. Required only by `action=long_press` and `action=wait`.", "type": "number"},
            "button": {"description": "Back means returning to the previous interface, Home means returning to the desktop, Menu means opening the application background menu, and Enter means pressing the enter. Required only by `action=system_button`",
                       "enum": ["Back", "Home", "Menu", "Enter"], "type": "string"},
            "status": {"description": "The status of the task. Required only by `action=terminate`.", "type": "string", "enum": ["success", "failure"]}},
            "required": ["action"], "type": "object"},
    },
}
GUI_OWL = """The user query: {instruction}
Task progress (You have done the following operation on the current device): {history}.
Before answering, explain your reasoning step-by-step in <thinking></thinking> tags, and insert them before the <tool_call></tool_call> XML tags.
After answering, summarize your action in <conclusion></conclusion> tags, and insert them after the <tool_call></tool_call> XML tags.

# Tools
You may call one or more functions to assist with the user query.
You are provided with function signatures within <tools></tools> XML tags:
<tools>
{tool}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{{"name": <function-name>, "arguments": <args-json-object>}}
</tool_call>"""


# --- GUI-R1 (ritzz-ai/GUI-R1 guir1/inference/inference_vllm_android.py; the GUI-Odyssey variant,
# inference_vllm_guiodyssey.py, lists that dataset's action space) ---------------------------------------------------
GUI_R1_ACTIONS = {"android": "['wait', 'long_press', 'click', 'press_back', 'type', 'open_app', 'scroll']",
                  "gui_odyssey": "['press_back', 'press_recent', 'press_home', 'complete', 'long_press', 'scroll', 'click', 'impossible', 'type']"}
GUI_R1 = {
    "android": (
        "<image>\nYou are GUI-R1, a reasoning GUI Agent Assistant. In this UI screenshot <image>, I want you to continue executing the command '{instruction}', with the action history being '{history}'.\n"
        "Please provide the action to perform (enumerate from {actions}), the point where the cursor is moved to (integer) if a click is performed, and any input text required to complete the action.\n"
        "Output the thinking process in <think> </think> tags, and the final answer in <answer> </answer> tags as follows:\n"
        "<think> ... </think> <answer>[{{'action': enum{actions}, 'point': [x, y], 'input_text': 'no input text [default]'}}]</answer>\n"
        "Note:\n specific input text (no default) is necessary for actions enum['type', 'open_app', 'scroll'] \n Example:\n"
        "[{{'action': enum['wait', 'press_back'], 'point': [-100, -100], 'input_text': 'no input text'}}]\n"
        "[{{'action': enum['click', 'long_press'], 'point': [123, 300], 'input_text': 'no input text'}}]\n"
        "[{{'action': enum['type', 'open_app'], 'point': [-100, -100], 'input_text': 'shanghai shopping mall'}}]\n"
        "[{{'action': enum['scroll'], 'point': [-100, -100], 'input_text': enum['up', 'left', 'right', 'down']}}]"),
    "gui_odyssey": (
        "<image>\nYou are GUI-R1, a reasoning GUI Agent Assistant. In this UI screenshot <image>, I want you to continue executing the command '{instruction}', with the action history being '{history}'.\n"
        "Please provide the action to perform (enumerate from {actions}), the point where the cursor is moved to (integer) if a click is performed, and any input text required to complete the action.\n"
        "Output the thinking process in <think> </think> tags, and the final answer in <answer> </answer> tags as follows:\n"
        "<think> ... </think> <answer>[{{'action': enum{actions}, 'point': [x, y], 'input_text': 'no input text [default]'}}]</answer>\n"
        "Note:\n specific input text (no default) is necessary for actions enum['type', 'scroll'] \n Example:\n"
        "[{{'action': enum['complete','press_back', 'press_recent', 'press_home','impossible'], 'point': [-100, -100], 'input_text': 'no input text'}}]\n"
        "[{{'action': enum['click','long_press'], 'point': [123, 300], 'input_text': 'no input text'}}]\n"
        "[{{'action': enum['type'], 'point': [-100, -100], 'input_text': 'shanghai shopping mall'}}]\n"
        "[{{'action': enum['scroll'], 'point': [-100, -100], 'input_text': enum['up', 'left', 'right', 'down']}}]"),
}
_R1_WORD = {"CLICK": "click", "LONG_PRESS": "long_press", "TYPE": "type", "OPENAPP": "open_app", "SCROLL": "scroll",
            "PRESS_BACK": "press_back", "PRESS_HOME": "press_home", "PRESS_ENTER": "press_enter", "WAIT": "wait",
            "COMPLETE": "complete", "IMPOSSIBLE": "impossible"}


def gui_r1_variant(meta: Mapping[str, Any] | None) -> str:
    """Which GUI-R1 prompt: its GUI-Odyssey one on that dataset, else its Android (AndroidControl) one."""
    return "gui_odyssey" if (meta or {}).get("dataset") == "gui_odyssey" else "android"


# --- formatting actions in each family's own syntax (history lines and reference answers) ---------


_FINGER = {"UP": "DOWN", "DOWN": "UP", "LEFT": "RIGHT", "RIGHT": "LEFT"}  # scroll direction -> finger movement


def _num(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.1f}"


def format_action(action: Action, fam: str, geometry: Geometry, meta: Mapping[str, Any] | None = None, *,
                  finger_words: bool = False) -> str:
    """``action`` written the way family ``fam`` writes it (points converted to the family's frame).

    ``finger_words``: the action's SCROLL direction already names the finger's movement (AITZ and GUI-Odyssey gold,
    ``agentic_task.gold_scroll_space``), so the finger families write it as is instead of inverting it."""
    f = family(fam, meta)
    if action.type == "PRESS_RECENT" and f.parser not in ("agentcpm_gui", "gui_r1", "os_atlas"):
        # GUI-Odyssey's recent-apps key, written by its own name where the family's action space has no such action
        # (AgentCPM-GUI: PRESS APPSELECT; GUI-R1's GUI-Odyssey prompt: press_recent; OS-Atlas: PRESS_RECENT)
        return "PRESS_RECENT"
    finger = (lambda d: d) if finger_words else (lambda d: _FINGER[d])
    pt = action.point_in(f.frame, geometry) if action.point is not None else None
    t = action.type
    if f.parser == "os_atlas":
        if pt is not None:
            return f"{'CLICK' if t == 'CLICK' else 'LONG_CLICK'} <point>[[{_num(pt[0])}, {_num(pt[1])}]]</point>"
        return {"TYPE": f"TYPE [{action.text}]", "SCROLL": f"SCROLL [{action.direction}]",
                "OPENAPP": f"OPENAPP {action.text}"}.get(t, t)
    if f.parser in ("ui_tars", "ui_tars_1_5"):
        if pt is not None:
            call = "click" if t == "CLICK" else "long_press"
            return f"{call}(start_box='<|box_start|>({_num(pt[0])},{_num(pt[1])})<|box_end|>')"
        return {"TYPE": f"type(content='{action.text}')", "SCROLL": f"scroll(direction='{(action.direction or '').lower()}')",
                "OPENAPP": f"open_app(app_name='{action.text}')", "PRESS_BACK": "press_back()", "PRESS_HOME": "press_home()",
                "PRESS_ENTER": "enter()", "WAIT": "wait()", "COMPLETE": "finished()", "IMPOSSIBLE": "finished()"}[t]
    if f.parser == "gui_r1":  # the answer literal of its prompt: Python repr, single quotes
        point = [int(round(pt[0])), int(round(pt[1]))] if pt is not None else [-100, -100]
        if t in ("TYPE", "OPENAPP"):
            text = action.text
        elif t == "SCROLL":
            text = (action.direction or "DOWN").lower()  # GUI-R1 names the scroll direction (SCROLL_SEMANTICS)
        else:
            text = "no input text"
        return "<answer>" + repr([{"action": _R1_WORD.get(t, t.lower()), "point": point, "input_text": text}]) + "</answer>"
    if f.parser == "agentcpm_gui":
        obj: dict = {}
        if pt is not None:
            obj["POINT"] = [int(round(pt[0])), int(round(pt[1]))]
            if t == "LONG_PRESS":
                obj["duration"] = 1000
        elif t == "SCROLL":
            # "to" is the finger's movement, opposite to the scroll direction (the parser's default reading)
            obj.update(POINT=[500, 500], to=finger(action.direction or "DOWN").lower())
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
    # gui_owl, qwen2_5_vl: the mobile_use tool
    args: dict = {}
    if pt is not None:
        args = {"action": "click" if t == "CLICK" else "long_press", "coordinate": [int(round(pt[0])), int(round(pt[1]))]}
    elif t == "SCROLL":
        w, h = ((geometry.resized_width, geometry.resized_height) if f.frame == "resized_px"
                else (geometry.original_width, geometry.original_height))
        cx, cy = w // 2, h // 2
        # the swipe is the finger's movement, opposite to the scroll direction (the parser's default reading)
        word = finger(action.direction or "DOWN")
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


def build_prompt(fam: str, instruction: str, geometry: Geometry, history: Sequence[str] = (), low_level: str | None = None,
                 meta: Mapping[str, Any] | None = None, *, history_lines: Sequence[str] | None = None,
                 instructions: Sequence[str] | None = None) -> str:
    """The family's prompt for one step. ``history``: earlier actions already in the family's syntax.

    ``geometry``: ``prompt_geometry`` (a resized_px family's mobile_use prompt states the resized resolution,
    as Mobile-Agent-v3 does; GUI-Owl under StaR states the original one, A.5). ``history_lines``: UI-TARS's
    ``## Action History`` lines as given (its own answers, ``own_history``), instead of lines made from ``history``.
    ``instructions``: the earlier steps' instructions, OS-Atlas's history under StaR's per-dataset templates
    (``os_atlas_star_prompt``; ``low_level`` "" there is StaR's low setting with an empty instruction)."""
    f = family(fam, meta)
    if f.parser in ("ui_tars", "ui_tars_1_5"):
        text = UI_TARS_PROMPTS.get(str((meta or {}).get("dataset")), UI_TARS).format_map({"instruction": instruction})
        lines = history_lines if history_lines is not None else [f"Step {i + 1}: Action: {h}" for i, h in enumerate(history)]
        if lines:  # StaR sends them as chat turns; lmms-eval's request is one user turn (docs/star_judges.md)
            text += "\n## Action History\n" + "\n".join(lines) + "\n"
        if low_level:  # StaR's low setting: an assistant turn "Thought: {step instruction}\n" after the screenshot,
            text += f"\nThought: {low_level}\n"  # closed by add_generation_prompt; here the user text's last line
        return text
    if f.parser == "os_atlas":
        dataset = str((meta or {}).get("dataset"))
        if dataset in OS_ATLAS_PROMPTS:  # StaR's history is the earlier steps' instructions, not their actions
            if instructions is None and dataset != "state_control":
                raise ValueError(f"StaR's OS-Atlas prompt for {dataset} lists the earlier steps' instructions: "
                                 "pass instructions= (a step document's history_low_level)")
            return os_atlas_star_prompt(dataset, instruction, instructions or (), low_level)
        prev = "\n".join(f"Step {i + 1}: {h}" for i, h in enumerate(history)) if history else "None"
        low = f"Low-level instruction: {low_level}\n" if low_level else ""
        return OS_ATLAS.format(goal=instruction, history=prev, low_level=low)
    if f.parser == "gui_r1":  # the history as one text inside the prompt's quotes ("None" without one, as its code)
        variant = gui_r1_variant(meta)
        question = instruction if not low_level else f"{instruction} (next step: {low_level})"
        prev = "; ".join(h.replace("<answer>", "").replace("</answer>", "") for h in history) if history else "None"
        return GUI_R1[variant].format(instruction=question, history=prev, actions=GUI_R1_ACTIONS[variant])
    if f.parser == "agentcpm_gui":
        hist = ("<History>" + "".join(f"<Step{i + 1}>{h}</Step{i + 1}>" for i, h in enumerate(history)) + "</History>\n") if history else ""
        question = instruction if not low_level else f"{instruction}\n{low_level}"
        return AGENTCPM.replace("{history}", hist, 1).replace("{instruction}", question, 1)  # the schema has braces: no str.format
    w, h = ((geometry.resized_width, geometry.resized_height) if f.frame == "resized_px"
            else (geometry.original_width, geometry.original_height))
    tool = json.dumps(GUI_OWL_TOOL, ensure_ascii=False).replace("{width}x{height}", f"{w}x{h}")
    prev = " ".join(f"Step {i + 1}: {h.strip()};" for i, h in enumerate(history)) if history else "None"
    query = instruction if not low_level else f"{instruction} (next step: {low_level})"
    return GUI_OWL.format(instruction=query, history=prev, tool=tool)


def parse(text: str, fam: str, *, gesture_to_scroll: GestureToScroll | None = None,
          reading: Reading = "schema", meta: Mapping[str, Any] | None = None) -> ParsedAction:
    """Parse a response with the family's parser and tag its point with the family's frame under this prompt.

    ``gesture_to_scroll=None``: the family's own scroll semantics; ``reading``: see ``gui_core.action_parsers``;
    ``meta``: ``coordinate_frame`` override (``family``)."""
    f = family(fam, meta)
    res = parse_action(text, f.parser, gesture_to_scroll=gesture_to_scroll, reading=reading)
    if res.action is not None and res.action.point is not None and res.action.frame != f.frame:
        res = replace(res, action=replace(res.action, frame=f.frame))
    return res
