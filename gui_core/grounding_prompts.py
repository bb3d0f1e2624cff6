"""Grounding prompts: texts shared by several family records (``gui_core.families``) and the functions that fill them.

lmms-eval gives a task one user text per document, so the paper's system prompt is sent as
the first paragraph of the user turn (``gui_hf ... system_prompt=`` can carry it instead;
use prompt family ``relative_bare`` then). The family prompts follow each family's published
grounding usage as closely as this offline machine allows; their protocol ids are recorded
in every result so a changed prompt is a changed protocol.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.family import PROMPTS, grounding_prompt

# Appendix A, system prompt (verbatim).
PAPER_SYSTEM = ("According to the image I provide, identify the relative coordinates of the specified object, with values "
                "ranging from 0 to 1. The output format must be [x, y], and do not output anything else.")

# xlang-ai/aguvis src/aguvis/constants.py grounding_system_message (verbatim); OpenCUA uses the same text.
AGUVIS_SYSTEM = ("You are a GUI agent. You are given a task and a screenshot of the screen. You need to perform a series of "
                 "pyautogui actions to complete the task.")

# The Qwen2.5-VL ``computer_use`` function-call system prompt as SE-GUI's evaluation writes it (YXB-NKU/SE-GUI
# src/eval/test_grounding_r1_nothink*.py ``system_content``), the screen resolution being the smart-resized image's.
# @SCREEN@ marks the resolution; its "\n" are newlines (as in that triple-quoted string); the JSON's braces are
# escaped for str.format below.
_COMPUTER_USE_TOOL = (
    '{"type": "function", "function": {"name_for_human": "computer_use", "name": "computer_use", "description": "Use a '
    "mouse and keyboard to interact with a computer, and take screenshots.\n* This is an interface to a desktop GUI. You "
    "do not have access to a terminal or applications menu. You must click on desktop icons to start applications.\n* "
    "Some applications may take time to start or process actions, so you may need to wait and take successive "
    "screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and "
    "taking another screenshot.\n* The screen's resolution is @SCREEN@.\n* Whenever you intend to move the cursor to "
    "click on an element like an icon, you should consult a screenshot to determine the coordinates of the element "
    "before moving the cursor.\n* If you tried clicking on a program or link but it failed to load, even after waiting, "
    "try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to "
    "click.\n* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't "
    'click boxes on their edges unless asked.", "parameters": {"properties": {"action": {"description": "The action to '
    "perform. The available actions are:\n* key: Performs key down presses on the arguments passed in order, then "
    "performs key releases in reverse order.\n* type: Type a string of text on the keyboard.\n* mouse_move: Move the "
    "cursor to a specified (x, y) pixel coordinate on the screen.\n* left_click: Click the left mouse button.\n* "
    "left_click_drag: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.\n* right_click: "
    "Click the right mouse button.\n* middle_click: Click the middle mouse button.\n* double_click: Double-click the "
    "left mouse button.\n* scroll: Performs a scroll of the mouse scroll wheel.\n* wait: Wait specified seconds for "
    'the change to happen.\n* terminate: Terminate the current task and report its completion status.", "enum": '
    '["key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", '
    '"scroll", "wait", "terminate"], "type": "string"}, "keys": {"description": "Required only by action=key.", "type": '
    '"array"}, "text": {"description": "Required only by action=type.", "type": "string"}, "coordinate": {"description": '
    '"(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. '
    'Required only by action=mouse_move and action=left_click_drag.", "type": "array"}, "pixels": {"description": "The '
    'amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by '
    'action=scroll.", "type": "number"}, "time": {"description": "The seconds to wait. Required only by action=wait.", '
    '"type": "number"}, "status": {"description": "The status of the task. Required only by action=terminate.", "type": '
    '"string", "enum": ["success", "failure"]}}, "required": ["action"], "type": "object"}, "args_format": "Format the '
    'arguments as a JSON object."}}'
)
COMPUTER_USE_SYSTEM = (
    "You are a helpful assistant.\n#Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou "
    "are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" + _COMPUTER_USE_TOOL
    + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call>"
)
_COMPUTER_USE_TEMPLATE = (COMPUTER_USE_SYSTEM.replace("{", "{{").replace("}", "}}")
                          .replace("@SCREEN@", "{resized_width}x{resized_height}"))

# xlang-ai/OSWorld mm_agents/prompts.py JEDI_GROUNDER_SYS_PROMPT (verbatim; xlang-ai/OSWorld itself was not
# reachable here: read from its copy in HITsz-TMG/WindowsWorld@fbccd464f94fec9e284e139f97bf96d0b192f580, the same
# text in limenlp/OS_Blind@240e58937a313c9d33695184631b461d63310799). mm_agents/jedi_7b_agent.py fills it with
# .replace("{height}", ...).replace("{width}", ...): its doubled braces stay doubled in what the model reads.
JEDI_GROUNDER_SYSTEM = (
    'You are a helpful assistant.\n'
    '\n'
    '# Tools\n'
    '\n'
    'You may call one or more functions to assist with the user query.\n'
    '\n'
    'You are provided with function signatures within <tools></tools> XML tags:\n'
    '<tools>\n'
    '{{"type": "function", "function": {{"name": "computer_use", "description": "Use a mouse and '
    'keyboard to interact with a computer, and take screenshots.\n'
    '* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. '
    'You must click on desktop icons to start applications.\n'
    '* Some applications may take time to start or process actions, so you may need to wait and take '
    'successive screenshots to see the results of your actions. E.g. if you click on Firefox and a '
    "window doesn't open, try wait and taking another screenshot.\n"
    "* The screen's resolution is {width}x{height}.\n"
    '* Whenever you intend to move the cursor to click on an element like an icon, you should consult a '
    'screenshot to determine the coordinates of the element before moving the cursor.\n'
    '* If you tried clicking on a program or link but it failed to load, even after waiting, try '
    'adjusting your cursor position so that the tip of the cursor visually falls on the element that you '
    'want to click.\n'
    '* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the '
    'element. Don\'t click boxes on their edges unless asked.", "parameters": {{"properties": {{"action": '
    '{{"description": "The action to perform. The available actions are:\n'
    '* `key`: Performs key down presses on the arguments passed in order, then performs key releases in '
    'reverse order.\n'
    '* `type`: Type a string of text on the keyboard.\n'
    '* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.\n'
    '* `left_click`: Click the left mouse button.\n'
    '* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the '
    'screen.\n'
    '* `right_click`: Click the right mouse button.\n'
    '* `middle_click`: Click the middle mouse button.\n'
    '* `double_click`: Double-click the left mouse button.\n'
    '* `scroll`: Performs a scroll of the mouse scroll wheel.\n'
    '* `wait`: Wait specified seconds for the change to happen.\n'
    '* `terminate`: Terminate the current task and report its completion status.", "enum": ["key", '
    '"type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", '
    '"double_click", "scroll", "wait", "terminate"], "type": "string"}}, "keys": {{"description": '
    '"Required only by `action=key`.", "type": "array"}}, "text": {{"description": "Required only by '
    '`action=type`.", "type": "string"}}, "coordinate": {{"description": "(x, y): The x (pixels from the '
    'left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by '
    '`action=mouse_move`, `action=left_click_drag`, `action=left_click`, `action=right_click`, '
    '`action=double_click`.", "type": "array"}}, "pixels": {{"description": "The amount of scrolling to '
    'perform. Positive values scroll up, negative values scroll down. Required only by '
    '`action=scroll`.", "type": "number"}}, "time": {{"description": "The seconds to wait. Required only '
    'by `action=wait`.", "type": "number"}}, "status": {{"description": "The status of the task. '
    'Required only by `action=terminate`.", "type": "string", "enum": ["success", "failure"]}}}}, '
    '"required": ["action"], "type": "object"}}}}}}\n'
    '</tools>\n'
    '\n'
    'For each function call, return a json object with function name and arguments within '
    '<tool_call></tool_call> XML tags:\n'
    '<tool_call>\n'
    '{{"name": <function-name>, "arguments": <args-json-object>}}\n'
    '</tool_call>'
)
_JEDI_TEMPLATE = (JEDI_GROUNDER_SYSTEM.replace("{", "{{").replace("}", "}}")
                  .replace("{{height}}", "{resized_height}").replace("{{width}}", "{resized_width}"))

# InfiXAI/InfiGUI-G1 eval/prompts.py InfiguiG1Prompt.generate_prompt: the think-mode system prompt (eval.py
# --think-mode 1, the default) and the user text after its "<image>" (the resolution is the resized image's)
INFIGUI_THINK_SYSTEM = ("You FIRST think about the reasoning process as an internal monologue and then provide the final "
                        "answer.\nThe reasoning process MUST BE enclosed within <think> </think> tags.")
_INFIGUI_USER = ("The screen's resolution is {resized_width}x{resized_height}.\nLocate the UI element(s) for "
                 '"{instruction}", output the coordinates using JSON format: [{{"point_2d": [x, y]}}, ...]')

# microsoft/Phi-Ground benchmark/test_screenspot_pro.py process_task (instruction first, then the image: "IF")
PHI_GROUND_TEMPLATE = ("\nThe description of the element: \n{instruction}\n\n\nLocate the above described element in the "
                       "image. The output should be bounding box using relative coordinates multiplying 1000.\n")

DEFAULT_PROMPT = "relative"


def prompt_family(kwargs: Mapping[str, Any] | None) -> str:
    """The grounding prompt a task's ``prompt:`` names (default: the PSS paper's); unknown names get "did you mean"."""
    name = str((kwargs or {}).get("prompt", DEFAULT_PROMPT))
    PROMPTS.canonical(name)
    return name


def build_prompt(instruction: str, prompt: str = DEFAULT_PROMPT, width: int | None = None, height: int | None = None,
                 resize_budget: str | None = None) -> str:
    """The prompt text; a template naming the resized image size (GTA1) needs the original ``width`` and ``height``."""
    record = grounding_prompt(prompt)
    template = record.template
    if record.drop_final_period and instruction.endswith("."):
        instruction = instruction[:-1]
    fields: dict[str, Any] = {"instruction": instruction}
    if "{resized_width}" in template:
        from gui_core.coords import BUDGETS, DEFAULT_BUDGET

        if width is None or height is None:
            raise ValueError(f"prompt {prompt!r} names the resized image size: give the image's width and height")
        budget = BUDGETS[resize_budget or PROMPTS.get(prompt).budget or DEFAULT_BUDGET]
        fields["resized_width"], fields["resized_height"] = budget.resized(int(width), int(height))
    return template.format(**fields)


def answer_family(prompt: str) -> str:
    """The family whose answers a prompt asks for (the family the prompt belongs to)."""
    return PROMPTS.get(prompt).name


def protocol(prompt: str) -> str:
    """The protocol id recorded with results of ``prompt``."""
    return grounding_prompt(prompt).protocol


def prompt_names() -> list[str]:
    """Every registered grounding prompt, in registration order."""
    return PROMPTS.names()

# X-PLUG/MobileAgent@9073a3d Mobile-Agent-v3.5/grounding_and_kb/eval_grounding_benchmarks.py
# ``only_two_action_system_prompt``
# (verbatim; braces doubled for str.format): the computer_use tool on a 1000x1000 screen, left_click and mouse_move
# only.
GUI_OWL_1_5_SYSTEM = (
    '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with '
    'function signatures within <tools></tools> XML tags:\n<tools>\n{{"type": "function", "function": {{"name": '
    '"computer_use", "description": "Use a mouse to interact with a computer.\n* The screen\'s resolution is '
    '1000x1000.\n* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the '
    "element. Don't click boxes on their edges unless asked.\n* don't use any other computer use tool like type, "
    'key, scroll, left_click_drag and so on.\n* you can only use the left_click and mouse_move action to interact '
    'with the computer. if you can\'t find the element, you should terminate the task and report the failure.", '
    '"parameters": {{"properties": {{"action": {{"description": "The action to perform. The available actions '
    'are:\n* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.\n* `left_click`: '
    'Click the left mouse button with coordinate (x, y) pixel coordinate on the screen.", "enum": ["mouse_move", '
    '"left_click"], "type": "string"}}, "coordinate": {{"description": "(x, y): The x (pixels from the left edge) '
    'and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=mouse_move` and '
    '`action=left_click`.", "type": "array"}}}}, "required": ["action"], "type": "object"}}}}}}\n</tools>\n\nFor '
    'each function call, return a json object with function name and arguments within <tool_call></tool_call> XML '
    'tags:\n<tool_call>\n{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>\n'
)

# Tongyi-MAI/MAI-UI@652277b evaluation/grounding/eval_server.py ``SYSTEM_PROMPT`` (= models/MAI_UI.py's system text;
# verbatim, braces doubled): reasoning in <grounding_think>, then <answer>{"coordinate": [x,y]}</answer>.
MAI_UI_SYSTEM = (
    "You are a GUI grounding agent. \n## Task\nGiven a screenshot and the user's grounding instruction. Your task "
    "is to accurately locate a UI element based on the user's instructions.\nFirst, you should carefully examine "
    "the screenshot and analyze the user's instructions,  translate the user's instruction into a effective "
    'reasoning process, and then provide the final coordinate.\n## Output Format\nReturn a json object with a '
    'reasoning process in <grounding_think></grounding_think> tags, a [x,y] format coordinate within '
    '<answer></answer> XML tags:\n<grounding_think>...</grounding_think>\n<answer>\n{{"coordinate": [x,y]}}\n'
    '</answer>\n## Input instruction\n'
)

# hcompai/hai-cookbook@ade0d6b holo2/holo_2_localization_huggingface.ipynb ``get_chat_messages``: the f-string with
# ``ClickCoordinates.model_json_schema()`` (a Python dict's str(); braces doubled), then "\n" and the task.
HOLO2_TEMPLATE = (
    'Localize an element on the GUI image according to the provided target and output a click position.\n     * '
    "You must output a valid JSON following the format: {{'properties': {{'x': {{'description': 'The x coordinate, "
    "normalized between 0 and 1000.', 'maximum': 1000, 'minimum': 0, 'title': 'X', 'type': 'integer'}}, 'y': "
    "{{'description': 'The y coordinate, normalized between 0 and 1000.', 'maximum': 1000, 'minimum': 0, 'title': "
    "'Y', 'type': 'integer'}}}}, 'required': ['x', 'y'], 'title': 'ClickCoordinates', 'type': 'object'}}\n     "
    'Your target is:\n{instruction}'
)

# H Company's element-localization guide (https://hub.hcompany.ai/element-localization, Holo3 / Holo3.1): the prompt
# with ``VisualLocalizerOutput.model_json_schema()`` (str() of the dict; braces doubled) and the target.
HOLO3_TEMPLATE = (
    'Localize an element on the GUI image according to the provided target and output a click position.\n * You '
    "must output a valid JSON following the format: {{'properties': {{'x': {{'description': 'X coordinate as "
    "integer in [0, 1000]', 'maximum': 1000, 'minimum': 0, 'title': 'X', 'type': 'integer'}}, 'y': "
    "{{'description': 'Y coordinate as integer in [0, 1000]', 'maximum': 1000, 'minimum': 0, 'title': 'Y', 'type': "
    "'integer'}}}}, 'required': ['x', 'y'], 'title': 'VisualLocalizerOutput', 'type': 'object'}}\n Your target "
    'is:\n{instruction}'
)
