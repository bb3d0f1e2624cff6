"""Prompts of the SPHINX tasks, each a named protocol recorded in task metadata.

The paper puts its prompts on the project website (section 4.2), not in the text. The knowledge-probing
prompts are those of the official ``knowledge_probing.py`` (PKU-ASE-RISE/Sphinx); the others are ours,
built from what sections 3.3.3-3.3.5 and 4.2 say each task shows the model.
"""

from __future__ import annotations

PROMPT_PROTOCOL = "sphinx-prompts-v1"

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
