"""Prompts of the SPHINX tasks, each a named protocol recorded in task metadata.

The paper puts its prompts on the project website (section 4.2), not in the text. The knowledge-probing
prompts are those of the official ``knowledge_probing.py`` (PKU-ASE-RISE/Sphinx); the others are ours,
built from what sections 3.3.3-3.3.5 and 4.2 say each task shows the model.
"""

from __future__ import annotations

PROMPT_PROTOCOL = "sphinx-prompts-v2"  # v2: observations carry a named rendering; loaders read the release layout

# Table 2, as the agent is told it.
ACTION_SPACE = """\
click [i]                 click element [i]
longclick [i]             long click element [i]
text [i] [string]         type the string into element [i]
swipe [i] [dir]           swipe element [i] in direction dir (up, down, left, right)
click [x,y]               click screen point (x,y)
longclick [x,y]           long click screen point (x,y)
text [x,y] [string]       type the string at screen point (x,y)
swipe [x1,y1] [x2,y2]     swipe from (x1,y1) to (x2,y2)
press [back]              go to the previous screen
press [home]              go to the home screen
press [restart]           go to the home screen of the app
press [wait]              wait for the page to render
press [enter]             send the Enter key
press [stop]              stop: the goal is complete"""

# How each observation mode (section 3.4.1) is introduced; {w} x {h} is the screenshot size in pixels.
MODE_HEADERS = {
    "full_text": "accessibility tree; indentation is nesting, [i] tags interactable elements",
    "simplified_text": "interactable elements, one per line, tagged [i]",
    "screenshot": "the attached {w}x{h} screenshot; use screen pixel coordinates",
    "set_of_mark": "the attached {w}x{h} screenshot; interactable elements are marked at their centres with their number [i]",
}

# Section 4.2: environment and action space, the goal, the previous actions and the current observation;
# the model reasons first (chain of thought) and then writes the action.
REACT_PROMPT = """\
You are an agent operating an Android phone to achieve a goal.
Goal: {goal}
You can take one action per step:
""" + ACTION_SPACE + """
Rules: take one action at a time; do not repeat an action that did not change the screen; \
press [stop] once the goal is achieved.
Step {step} of at most {max_steps}. Previous actions: {history}
Current screen ({header}):
{observation}
Think step by step, then write the action on the last line as: Action: <action>"""

# Section 3.3.3: the action history and the current screen; answer continue or stop.
COMPLETION_PROMPT = """\
You are an agent operating an Android phone to achieve a goal.
Goal: {goal}
Actions performed so far: {history}
Current screen ({header}):
{observation}
Is the goal achieved now? Answer with one word only: "stop" if the goal is achieved, "continue" if more actions are needed."""

# CircularEval of completion judgment (``sphinx_completion*_circular``, gui_tasks.harness.circular): the prompt names the two
# answers in the order of the document's ``answer_order``; the published order first, then the other one. The swapped
# official sentence is ours (the official prompt has one order only).
COMPLETION_ORDER = ("stop", "continue")
COMPLETION_ANSWER_SENTENCES = {
    "paper-prose": {COMPLETION_ORDER: '"stop" if the goal is achieved, "continue" if more actions are needed.',
                    ("continue", "stop"): '"continue" if more actions are needed, "stop" if the goal is achieved.'},
    "official": {COMPLETION_ORDER: "If we have finished, say YES, else say NO.",
                 ("continue", "stop"): "If we have not finished, say NO, else say YES."},
}


def order_completion_answers(text: str, rendering: str, order: tuple[str, ...]) -> str:
    """A completion prompt with its answer sentence in ``order`` (the published order leaves it as it is)."""
    sentences = COMPLETION_ANSWER_SENTENCES[rendering]
    if order == COMPLETION_ORDER:
        return text
    if sentences[COMPLETION_ORDER] not in text:
        raise ValueError(f"completion prompt of rendering {rendering!r} lacks its answer sentence")
    return text.replace(sentences[COMPLETION_ORDER], sentences[order])


# Section 3.3.4: a low-level instruction grounded to one element and action.
GROUNDING_PROMPT = """\
You are operating an Android phone. Carry out this instruction: {instruction}
Current screen ({header}):
{observation}
Answer with exactly one action and nothing else, in one of these formats:
""" + ACTION_SPACE

# Official knowledge_probing.py prompts (the MCQ, then one true/false question per option).
KNOWLEDGE_MCQ_PROMPT = ("Given the app name {app} in the category '{category}', answer the following multiple-choice question:\n\n"
                        "{question}\n\nOptions:\n{options}\nPlease answer with only the option character (A, B, C, or D).")
KNOWLEDGE_BQ_PROMPT = ("Given the app name {app} in the category '{category}', is the following statement a correct option for "
                       "the question: \"{question}\"\n\nStatement: {statement}\nPlease answer with only 'T' for yes or 'F' for no.")


# --- the official completion and grounding prompts (rendering ``official``) -------------------------------
# Verbatim from PKU-ASE-RISE/Sphinx ``run_complete.py`` and ``run_lowlevel.py``: the text is a fact the tasks
# reproduce. The official scripts send the system message as its own chat turn; our tasks put it first in
# the one text turn, separated by a blank line (as gui_tasks.knowledge does), so every backend gets it.
OFFICIAL_PROMPT_PROTOCOL = "sphinx-official-prompts-v1"

COMPLETION_SYSTEM_TREE = ("You are an Android UI testing expert helping me write a UI test case.\n"
                          "In our conversation, I will provide you with a list of widgets with texts on the last screen and "
                          "the testcase you have generated.\n"
                          "Your task is to determine whether the test objective has been completed.")
COMPLETION_USER_TREE = ("This is a test case description of a particular APP: {target}.\n"
                        "You are trying to perform the task on an APP.\n"
                        "These are the actions we already performed in sequential order: \n{history}\n"
                        "Here is the current screen: \n{screen}\n"
                        "Do you think that we have finished this particular goal: {goal}?\n"
                        "The UI element in current screen maybe not touched. If an necessary element is not touched, "
                        "the goal is not finished.\n"
                        "If we have finished, say YES, else say NO.")
COMPLETION_SYSTEM_IMAGE = ("You are an Android UI testing expert helping me write a UI test case.\n"
                           "In our conversation, I will provide you with the last UI screen and the testcase you have generated.\n"
                           "Your task is to determine whether the test objective has been completed.")
COMPLETION_USER_IMAGE = ("This is a test case description of a particular APP: {target}.\n"
                         "You are trying to perform the task on an APP.\n"
                         "These are the actions we already performed in sequential order: \n{history}\n"
                         "The observation of the current app screen is the image provided below.\n"
                         "Do you think that we have finished this particular goal: {goal}?\n"
                         "The UI element in current screen maybe not touched. If an necessary element is not touched, "
                         "the goal is not finished.\n"
                         "If we have finished, say YES, else say NO.")

LOWLEVEL_SYSTEM = ("You are an autonomous intelligent agent tasked with navigating a mobile app. You will be given app-based "
                   "tasks. These tasks will be accomplished through the use of specific actions you can issue.")
_LOWLEVEL_INFO = """
Here's the information you'll have:
The TASK: This is the task you're trying to complete.
The OBSERVATION: This is a simplified representation of the UI screen, providing key information.
The PREVIOUS ACTION: This is the action you just performed. It may be helpful to track your progress.

The actions you can perform fall into several categories:

"""
LOWLEVEL_TOUCH_BY_INDEX = """Touch Screen Actions:
`click [index]`: This action clicks on an element with a specific index.
`longclick [index]`: This action long clicks on an element with a specific index.
`text [index] [content]`: Use this to type the content into the field with index.
`swipe [index] [direction=down|up|left|right]`: swipe an element with a specific index in a specific direction.
"""
# The screenshot-only variant (no element ids): the touch actions of the official image agent
# (``Agents/prompts/react_prompt_image.py``); run_lowlevel.py itself has no screenshot mode.
LOWLEVEL_TOUCH_BY_POINT = """Touch Screen Actions:
`click [x,y]`: This action clicks on a coordination (x,y) on the screen.
`longclick [x,y]`: This action long clicks on a coordination (x,y) on the screen.
`text [x,y] [content]`: Use this to type the content into the field with coordination (x,y).
`swipe [start_x,start_y] [end_x,end_y]`: swipe from coordination (start_x, start_y) to coordination (end_x, end_y).
"""
# The global actions, word for word the same in run_lowlevel.py's prompt and in the agents' prompts.
_GLOBAL_ACTIONS = """

Global Navigation Actions:
`press [back]`: Press back button.
`press [restart]`: Press to restart the app.
`press [home]`:  Press to return to the desktop.
`press [none]`: Do nothing but wait for the UI page completely loaded.
`press [stop]`: Issue this action when you believe the task is complete.
`press [enter]`: Press the "Enter" key.
"""
_LOWLEVEL_RULES = _GLOBAL_ACTIONS + """
To be successful, it is very important to follow the following rules:
1. You should only issue an action that is valid given the current observation
2. You should only issue one action at a time.
3. You should reason step by step and then issue the next action.
4. Generate the action in the correct format. After step-by-step reasoning, summary with a "In summary, the next action I will perform is" phrase, followed by action inside ``````. For example, "In summary, the next action I will perform is ```{example}```".
5. Issue stop action when you think you have achieved the task. Don't generate anything after stop.

"""
LOWLEVEL_ANNOTATED_OBSERVATION = ("Observation: The observation of the current app screen is the image provided below, with each "
                                  "actionable element annotated with a bounding box and an index inside the bounding box. The color "
                                  "of the bounding box and the color of the background of the index indicates its action type. red "
                                  "indicates click action, purple indicates longclick action, blue indicates text action, green "
                                  "indicates swipe action.\n")
# react_prompt_image.py's observation line (it hard-codes its emulator's 768 * 1280; the real size is filled in)
LOWLEVEL_IMAGE_OBSERVATION = ("Observation: The observation of the current app screen is the image provided below. "
                              "The resolution of the screenshot is {w} * {h}.\n")


def lowlevel_user_prompt(by_point: bool = False) -> str:
    """run_lowlevel.py's user prompt up to the observation (element ids; ``by_point``: the image agent's touch actions)."""
    touch, example = (LOWLEVEL_TOUCH_BY_POINT, "text [123,456] [some text]") if by_point else (LOWLEVEL_TOUCH_BY_INDEX, "text [12] [some text]")
    return _LOWLEVEL_INFO + touch + _LOWLEVEL_RULES.replace("{example}", example)


# --- the official ReAct navigation agent (``Agents/prompts/react_prompt_*.py``, ``Agents/utils.load_react_prompt``) -----
# PKU-ASE-RISE/Sphinx @ 20f84094386942d59f8d1a3c33b78c160e4ead9c (the repository states no license: the prompt text
# is a fact the tasks reproduce, as above; no code is copied). The paper's navigation agent (section 4.2).
# load_react_prompt joins system, action space, domain knowledge, the (empty, no demonstrations) examples and the
# template with "\n"; AgentReAct_*.act fills the template's instruction, observation and previous action.
OFFICIAL_REACT_PROTOCOL = "sphinx-official-react-v1"
REACT_OBSERVATION_TEXT = "This is a simplified representation of the UI screen, providing key information."
REACT_OBSERVATION_IMAGE = "This is a screenshot of the current app screen."
REACT_OBSERVATION_ANNOTATED = ("You will be provided with a screenshot of the current app screen, with each actionable element "
                               "annotated with a bounding box and an index inside the bounding box. The color of the bounding box "
                               "indicates its action type.")
_REACT_SYSTEM = ("You are an autonomous intelligent agent tasked with navigating a mobile app. You will be given app-based tasks. "
                 "These tasks will be accomplished through the use of specific actions you can issue.\n\n"
                 "Here's the information you'll have:\n"
                 "The TASK: This is the task you're trying to complete.\n"
                 "The OBSERVATION: {observation_description}\n"
                 "The PREVIOUS ACTION: This is the action you just performed. It may be helpful to track your progress.\n")

_REACT_DOMAIN = """To be successful, it is very important to follow the following rules:
1. You should only issue an action that is valid given the current observation
2. You should only issue one action at a time.
3. You should reason step by step and then issue the next action.
4. Generate the action in the correct format. After step-by-step reasoning, summary with a "In summary, the next action I will perform is" phrase, followed by action inside ``````. For example, "In summary, the next action I will perform is ```{action_format}```".
5. Issue stop action when you think you have achieved the task. Don't generate anything after stop.
"""
REACT_TEMPLATE_TEXT = "OBSERVATION:\n{observation}\nTASK: {instruction}\nPREVIOUS ACTION: {previous_action}"
# react_prompt_image.py hard-codes its emulator's "768 * 1280"; the real screenshot size is filled in (as for grounding)
REACT_TEMPLATE_IMAGE = ("\nOBSERVATION: The observation of the current app screen is the image provided below. The resolution of "
                        "the screenshot is {w} * {h}.\nTASK: {instruction}\nPREVIOUS ACTION: {previous_action}")
REACT_TEMPLATE_ANNOTATED = ("\nOBSERVATION: The observation of the current app screen is the image provided below, with each "
                            "actionable element annotated with a bounding box and an index inside the bounding box. The color of "
                            "the bounding box and the color of the background of the index indicates its action type. red "
                            "indicates click action, purple indicates longclick action, blue indicates text action, green "
                            "indicates swipe action.\nTASK: {instruction}\nPREVIOUS ACTION: {previous_action}")
REACT_ANSWER_PHRASE = "In summary, the next action I will perform is"
REACT_ACTION_SPLITTER = "```"


def react_prompt(modality: str, *, instruction: str, previous_action: str, observation: str = "", size: tuple[int, int] = (0, 0)) -> str:
    """The official ReAct agent's prompt for ``modality`` ``text`` / ``image`` / ``annotated_image`` (no demonstrations)."""
    by_point = modality == "image"
    description = {"text": REACT_OBSERVATION_TEXT, "image": REACT_OBSERVATION_IMAGE, "annotated_image": REACT_OBSERVATION_ANNOTATED}[modality]
    action_space = ("The actions you can perform fall into several categories:\n\n"
                    + (LOWLEVEL_TOUCH_BY_POINT if by_point else LOWLEVEL_TOUCH_BY_INDEX) + _GLOBAL_ACTIONS)
    domain = _REACT_DOMAIN.replace("{action_format}", "text [123,456] [some text]" if by_point else "text [12] [some text]")
    if modality == "text":
        template = REACT_TEMPLATE_TEXT.format(observation=observation, instruction=instruction, previous_action=previous_action)
    elif modality == "image":
        template = REACT_TEMPLATE_IMAGE.format(w=size[0], h=size[1], instruction=instruction, previous_action=previous_action)
    else:
        template = REACT_TEMPLATE_ANNOTATED.format(instruction=instruction, previous_action=previous_action)
    return "\n".join([_REACT_SYSTEM.format(observation_description=description), action_space, domain, "", template])


# --- the official Reflexion agent (``Agents/Reflexion.py``, ``Agents/prompts/reflect_prompt_{common,text}.py``) -------
# As published the agent cannot run: run_benchmark.py does not pass the ``prompt_file`` its constructor demands, the
# text agent loads the image prompts (whose "system" is a whole dict and which lack "action_space_description"), the
# prompt modules import each other without the package prefix, and ``init_prompt.format(instruction=...)`` leaves the
# other placeholders unfilled (KeyError). What is reproduced is the evident intent, for text observations: the
# ``reflect_prompt_text`` texts joined as ``load_reflexion_prompt`` joins them, the previous screen before the last
# action (the code passes the current one twice), and the reading of AgentReflexion_Text.act: a step after an action
# first asks the reflection; its fenced answer containing "yes" (lower-cased) lets the same step go on to the action
# prompt; otherwise the step ends with 'press [replan]' (a no-op here: the official environment has no such press)
# and the next step asks for an action without reflecting.
OFFICIAL_REFLEXION_PROTOCOL = "sphinx-official-reflexion-v1"
_REFLECTION_SYSTEM = ("You are an autonomous intelligent agent tasked with navigating a mobile app. You will be given app-based tasks. "
                      "These tasks will be accomplished through the use of specific actions you can issue. You have issued an action "
                      "and received a response. You will now reflect on the action you just performed.\n\n"
                      "Here's the information you'll have:\n"
                      "The TASK: This is the task you're trying to complete.\n"
                      "The PREVIOUS OBSERVATION: This is a simplified representation of the previous UI screen, providing key information.\n"
                      "The PREVIOUS ACTION: This is the action you just performed. It may be helpful to track your progress.\n"
                      "The CURRENT OBSERVATION: This is a simplified representation of the current UI screen, providing key information.\n\n"
                      "Based on the information, determine whether the previous action was successful.\n")
_REFLECTION_DOMAIN = ("To be successful, it is very important to follow the following rules:\n"
                      "1. You should reason step by step to reflect whether the issued action was successful or not. This will help "
                      "you to determine the next action to take.\n"
                      "2. Generate the reflection in the correct format. The final response should end with ```Yes``` or ```No```.\n")
REFLECTION_TEMPLATE = ("PREVIOUS OBSERVATION:\n{observation}\nTASK: {instruction}\nPREVIOUS ACTION: {previous_action}\n"
                       "CURRENT OBSERVATION: {next_observation}")


def reflexion_action_prompt(*, instruction: str, previous_action: str, observation: str) -> str:
    """``reflect_prompt_text``'s action prompt: ReAct's text system, actions and rules, then the template (no examples line)."""
    action_space = "The actions you can perform fall into several categories:\n\n" + LOWLEVEL_TOUCH_BY_INDEX + _GLOBAL_ACTIONS
    domain = _REACT_DOMAIN.replace("{action_format}", "text [12] [some text]")  # react_prompt_text's, already filled
    template = REACT_TEMPLATE_TEXT.format(observation=observation, instruction=instruction, previous_action=previous_action)
    return "\n".join([_REACT_SYSTEM.format(observation_description=REACT_OBSERVATION_TEXT), action_space, domain, template])


def reflexion_reflection_prompt(*, instruction: str, previous_action: str, before: str, now: str) -> str:
    """``reflect_prompt_text``'s reflection prompt: the reflection system, its rules, the template."""
    template = REFLECTION_TEMPLATE.format(observation=before, instruction=instruction, previous_action=previous_action,
                                          next_observation=now)
    return "\n".join([_REFLECTION_SYSTEM, _REFLECTION_DOMAIN, template])


# --- the official LLM-Planner agent (``Agents/LLMPlanner.py``, ``Agents/prompts/llmplanner_prompt_text.py``) ------------
# Like Reflexion it cannot run as published (the constructor demands kwargs run_benchmark.py does not pass; the planning
# prompt is built from "system_grounding"; ``format(instruction=...)`` leaves other placeholders unfilled; the plan
# pattern ``[((.|\n)*?)]`` is a character class, so ``match.group(1)`` raises). Reproduced is the evident intent for text
# observations: a planning round ("system_planning", its rules, the planning template as published, indented) whose
# answer lists the plan as "[step]" lines after "High-level Plan:"; then one grounding round per plan step (the current
# step as CURRENT PLAN), read like ReAct's; ```press [replan]``` waits ('press [none]') and plans again after the step.
OFFICIAL_PLANNER_PROTOCOL = "sphinx-official-llmplanner-v1"
_PLANNER_ACTIONS = _GLOBAL_ACTIONS  # word for word the ReAct / run_lowlevel.py global actions
_PLANNER_HEAD = ("You are an autonomous intelligent agent tasked with navigating a mobile app. You will be given app-based tasks. ")
PLANNER_SYSTEM_GROUNDING = (
    _PLANNER_HEAD + "These tasks will be accomplished through the use of specific actions you can issue.\n\n"
    "Here's the information you'll have:\n"
    "The TASK: This is the task you're trying to complete.\n"
    "The OBSERVATION: This is a simplified representation of the UI screen, providing key information.\n"
    "The CURRENT PLAN: This is the plan you are currently executing.\n\n"
    "The actions you can perform fall into several categories:\n\n"
    "Touch Screen Actions:\n"
    "`click [id]`: This action clicks on an element with a specific id.\n"
    "`longclick [id]`: This action long clicks on an element with a specific id.\n"
    "`text [id] [content] [press_enter_after=0|1]`: Use this to type the content into the field with id. By default, the "
    "\"Enter\" key is pressed after typing unless press_enter_after is set to 0.\n"
    "`enter [id]`: Press the \"Enter\" key on the field with id.\n"
    "`swipe [id][direction=down|up|left|right]`: swipe an element with a specific id in a specific direction.\n"
    + _PLANNER_ACTIONS + "`press [replan]`: Press the \"replan\" key for re-generate high-level plans.\n")
PLANNER_DOMAIN_GROUNDING = (
    "To be successful, it is very important to follow the following rules:\n"
    "1. You should only issue an action that is valid given the current observation\n"
    "2. You should only issue one action at a time.\n"
    "3. You should issue an action that is most relevant to the current plan.\n"
    "4. Generate the action in the correct format. Start with a \"In summary, the next action I will perform is\" phrase, "
    "followed by action inside ``````. For example, \"In summary, the next action I will perform is ```click [1234]```\".\n"
    "5. press[replan] action when you think no action is relevant to the current plan.\n"
    "6. press [stop] action when you think you have achieved the task. Don't generate anything after stop.\n")
PLANNER_SYSTEM_PLANNING = (
    _PLANNER_HEAD + "You need to generate a high-level plan consisting of several concrete actions to achieve the task.\n\n"
    "Here's the information you'll have:\n"
    "The TASK: This is the task you're trying to complete.\n"
    "The OBSERVATION: This is a simplified representation of the UI screen, providing key information.\n"
    "The PREVIOUS ACTION: This is the action you just performed. It may be helpful to track your progress.\n\n"
    "The concrete actions you can perform fall into several categories:\n\n"
    "Touch Screen Actions:\n"
    "`click [id]`: This action clicks on an element with a specific id.\n"
    "`longclick [id]`: This action long clicks on an element with a specific id.\n"
    "`text [id] [content]`: Use this to type the content into the field with id.\n"
    "`enter [id]`: Press the \"Enter\" key on the field with id.\n"
    "`swipe [id] [direction=down|up|left|right]`: swipe an element with a specific id in a specific direction.\n"
    + _PLANNER_ACTIONS)
PLANNER_DOMAIN_PLANNING = (
    "To be successful, it is very important to follow the following rules:\n"
    "1. You should only issue an action that is valid given the current observation\n"
    "2. You should follow the examples to reason step by step for the high-level plan.\n"
    "3. Generate the plan in the correct format. Start with a \"High-level Plan:\n\" phrase, followed by the sequence of "
    "concrete steps inside []. For example, \"High-level Plan:\n[click the account button]\n[scroll down]\n[click the avatar icon].\n")
PLANNER_TEMPLATE_PLANNING = "OBSERVATION:\n    {observation}\n    TASK: {instruction}\n    PREVIOUS ACTION: {previous_action}"
PLANNER_TEMPLATE_GROUNDING = "OBSERVATION:\n{observation}\nTASK: {instruction}\nCURRENT PLAN: {current_plan}"
PLAN_PHRASE = "High-level Plan:\n"


def planner_planning_prompt(*, instruction: str, previous_action: str, observation: str) -> str:
    template = PLANNER_TEMPLATE_PLANNING.format(observation=observation, instruction=instruction, previous_action=previous_action)
    return "\n".join([PLANNER_SYSTEM_PLANNING, PLANNER_DOMAIN_PLANNING, template])


def planner_grounding_prompt(*, instruction: str, current_plan: str, observation: str) -> str:
    template = PLANNER_TEMPLATE_GROUNDING.format(observation=observation, instruction=instruction, current_plan=current_plan)
    return "\n".join([PLANNER_SYSTEM_GROUNDING, PLANNER_DOMAIN_GROUNDING, template])
