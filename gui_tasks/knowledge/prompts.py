"""GUI Knowledge Bench evaluation prompts (seed appendix A.3), with the platform's action-space text.

lmms-eval hands a backend one context string and the images separately (``gui_hf`` puts the images
before the text), so two choices are recorded under the protocol id ``PROMPT_PROTOCOL``: the
appendix's system message opens the text, separated by a blank line; and the text names images by
their position ("image 1", "image 2", ...) where the appendix interleaves them, e.g. the option
screenshots of an action-effect question. Interface Perception follows the official runner
(``Inference/tools/message_gen_tools.py``, ``build_interface_perception[_ablation]``) word for word:
the question, the options as ``"A. text"`` lines, the closing question "Which of the above options
are correct according to the screenshot?" (multiple choice), its JSON schema sentence, and for the
knowledge ablation ``"Tips for answering this question: <needed_knowledge>"``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_tasks.knowledge.schema import letters_for

# v2: Interface Perception in the official runner's wording (closing question, tip); v3: official rows read as the
# runner reads them (texts byte for byte, its action space per os_type: gui_tasks.knowledge.release, reading "runner")
PROMPT_PROTOCOL = "gkb-a3-v3"

# Appendix A.3 (interaction prediction): the action space per platform.
ACTION_SPACE: dict[str, str] = {
    "desktop": (
        "Action Space\n"
        "- click(point='x1 y1'): left click a position on the screen.\n"
        "- left_double(point='x1 y1'): left double click a position on the screen.\n"
        "- right_single(point='x1 y1'): right single click a position on the screen.\n"
        "- drag(start_point='x1 y1', end_point='x2 y2'): drag the mouse from one position to another.\n"
        "- hotkey(key='ctrl c'): keyboard shortcut, split keys with spaces\n"
        "- type(content='xxx'): type an answer, use escape characters (', \", \\n) when needed. "
        "Add \\n at the end if it is the final submission.\n"
        "- scroll(point='x1 y1', direction='down or up or right or left'): scroll to see more content"
    ),
    "mobile": (
        "Action Space\n"
        "- click(point='x1 y1')\n"
        "- long_press(point='x1 y1')\n"
        "- type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.\n"
        "- scroll(point='x1 y1', direction='down or up or right or left'): scroll to see more content"
    ),
}

SYSTEM_CHOICE = ("You are a Graphical User Interface (GUI) agent. You will be given a screenshot, a question, and "
                 "corresponding options. You need to choose one option as your answer.")
SYSTEM_PLAN = ("You are a Graphical User Interface (GUI) agent. You will be given a task instruction, a screenshot, several "
               "GUI operations, and four options. Your goal is to select the best option that could solve the task.")
SYSTEM_EFFECT = ("You are a Graphical User Interface (GUI) agent. You will be given a screenshot, action descriptions, and "
                 "multiple options, each containing an image. After performing one action on the screenshot, your goal is to "
                 "select the option that correctly corresponds to the resulting screenshot after performing the action. "
                 "Below is a short description of the action space:")
SYSTEM_ACTION = ("You are a Graphical User Interface (GUI) agent. You will be given two consecutive screenshots of the GUI, "
                 "action descriptions, and multiple options. Your goal is to select which action was performed to transition "
                 "from the first screenshot to the second. If the description specifies an action type, select the correct "
                 "parameter value for the given action.")
SYSTEM_GOAL = ("You are a Graphical User Interface (GUI) agent. You will be given a sequence of screenshots, a task instruction, "
               "and three possible answer options: yes, no, unknown. Your goal is to select the best option that indicates "
               "whether the task is completed.\n"
               "- yes - The task is clearly completed.\n"
               "- no - The task is not completed.\n"
               "- unknown - The screenshots do not provide enough evidence to determine completion.")


def response_schema(question_type: str, n_options: int = 4) -> str:
    """The appendix's response rule: think step by step, answer in JSON with thought and answer."""
    answer = "yes/no/unknown" if question_type == "yes_or_no" else "/".join(letters_for(n_options))
    return ("Think step by step. You must respond strictly in JSON format following this schema:\n"
            f'{{"thought": "<your reasoning>", "answer": "<{answer}>"}}')


def action_space(doc: Mapping[str, Any]) -> str:
    """The action space a document's prompt shows: the one its loader chose (``meta.action_space``: the official
    runner's choice per os_type for official rows), else the document's platform."""
    try:
        meta = json.loads(doc.get("meta") or "{}")
    except (TypeError, ValueError):
        meta = {}
    chosen = meta.get("action_space") if isinstance(meta, dict) else None
    return chosen if chosen in ACTION_SPACE else doc["platform"]


def _options(doc: Mapping[str, Any]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in zip(letters_for(len(doc["options"])), doc["options"]))


def _images(doc: Mapping[str, Any]) -> str:
    n = len(doc["images"])
    return "Image 1 is the screenshot." if n == 1 else f"Images 1 to {n} are the screenshots, in order."


def _size(doc: Mapping[str, Any]) -> str:
    w, h = doc["image_size"]
    return f"The size of the image is {w}x{h}."


def build_prompt(doc: Mapping[str, Any]) -> str:
    """The text of the request for a canonical document (images travel separately, in ``doc_to_visual`` order)."""
    sub, qtype = doc["subtask"], doc["question_type"]
    schema = response_schema(qtype, len(doc["options"]))
    if sub == "effect":
        first = len(doc["images"]) + 1
        opts = "\n".join(f"{letter}. image {first + i}" for i, letter in enumerate(letters_for(len(doc["options"]))))
        system = f"{SYSTEM_EFFECT}\n\n{ACTION_SPACE[action_space(doc)]}\n{_size(doc)}"
        user = (f"Image 1 is the current screenshot; images {first} to {first + len(doc['options']) - 1} are the options.\n"
                "Above is the current screenshot.\n"
                f"After I perform the described action '{doc['action']}' (as drawn in the initial screenshot), which of the "
                f"following options correctly corresponds to the resulting screenshot?\n{opts}\n{schema}")
    elif sub in ("type", "parameter"):
        system = f"{SYSTEM_ACTION}\n\n{ACTION_SPACE[action_space(doc)]}\n{_size(doc)}"
        if sub == "type":
            task = "Your task is to select which action is performed in order to transition from the first screenshot to the second."
        else:
            task = (f"Your task is to select the option containing the right parameter value of the given action "
                    f"'{doc['action']}' to transition from the first to the second screenshot.\nAs is drawn in the first screenshot.")
        user = (f"Above are two consecutive screenshots. {task}\n{_options(doc)}\n"
                f"Which of the above options are correct according to the screenshots?\n{schema}")
    elif sub == "goal":
        system = SYSTEM_GOAL
        user = f"According to the screenshots, has the task \"{doc['question']}\" been completed? {_images(doc)}\n{schema}"
    elif sub == "plan":
        system = SYSTEM_CHOICE if qtype == "yes_or_no" else SYSTEM_PLAN
        body = doc["question"] if qtype == "yes_or_no" else f"{doc['question']}\n{_options(doc)}"
        user = f"{body}\nWhich of the above options are correct according to the screenshot?\n{schema}"
    else:  # interface perception: state, widget, layout (A.3.1, official runner wording)
        system, user = SYSTEM_CHOICE, interface_perception_user(doc)
    return f"{system}\n\n{user}"


# The official runner's JSON instructions for Interface Perception (thinking prompt on), spacing as published.
IP_SCHEMA_YES_NO = ('Think step by step. You must respond strictly in JSON format following this schema:'
                    '{   "thought": "<your reasoning>", "answer": "<yes/no/unknown>" } ')
IP_CLOSING = "Which of the above options are correct according to the screenshot?"
IP_TIP = "Tips for answering this question: "


def interface_perception_user(doc: Mapping[str, Any]) -> str:
    """The user text of an Interface Perception question, as the official runner concatenates its parts."""
    if doc["question_type"] == "yes_or_no":
        text = f"{doc['question']} \n{IP_SCHEMA_YES_NO}"
    else:
        # the runner's plain-question builder ends the question with "\n", its visual-prompt builder with " \n"
        end = "\n" if doc.get("variant") == "plain" else " \n"
        letters = letters_for(len(doc["options"]))
        options = "".join((f"{letter}. {opt}" if opt else f"{letter}.") + "\n" for letter, opt in zip(letters, doc["options"]))
        schema = f'{{"thought": "<your reasoning>", "answer": "<{"/".join(letters)}>" }} '
        text = (f"{doc['question']}{end}{options}{IP_CLOSING} Think step by step. "
                f"You must respond strictly in JSON format following this schema: {schema}")
    tip = doc.get("tip") or ""
    return text + (IP_TIP + tip if tip else "")
