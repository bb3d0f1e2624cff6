"""Grounding prompts: the PSS paper's (appendix A) and one per agent family, each with a protocol id.

lmms-eval gives a task one user text per document, so the paper's system prompt is sent as
the first paragraph of the user turn (``gui_hf ... system_prompt=`` can carry it instead;
use prompt family ``relative_bare`` then). The family prompts follow each family's published
grounding usage as closely as this offline machine allows; their protocol ids are recorded
in every result so a changed prompt is a changed protocol.
"""

from __future__ import annotations

from typing import Any, Mapping

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

# prompt family -> (protocol id, answer family in gui_models.grounding, template)
PROMPTS: dict[str, tuple[str, str, str]] = {
    "relative": ("pss-relative-v1", "relative", PAPER_SYSTEM + "\n{instruction}"),
    "relative_bare": ("pss-relative-bare-v1", "relative", "{instruction}"),
    "os_atlas": ("grounding-os-atlas-v1", "os_atlas",
                 'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
                 "(with point)?"),
    "ui_tars": ("grounding-ui-tars-v1", "ui_tars",
                "Output only the coordinate of one point in your response. What element matches the following task: {instruction}"),
    "ui_tars_1_5": ("grounding-ui-tars-1.5-v1", "ui_tars_1_5",
                    "Output only the coordinate of one point in your response. What element matches the following task: "
                    "{instruction}"),
    "qwen2_5_vl": ("grounding-qwen2.5-vl-v1", "qwen2_5_vl",
                   'Locate "{instruction}" in the screenshot and output its click point in pixels as JSON: '
                   '{{"point_2d": [x, y]}}'),
    "agentcpm_gui": ("grounding-agentcpm-gui-v1", "agentcpm_gui",
                     'Instruction: click {instruction}. Answer with one JSON action {{"POINT": [x, y]}} on the 0-1000 grid.'),
    # QwenLM/Qwen3-VL cookbooks/2d_grounding.ipynb: JSON answers, "relative coordinates ranging from 0 to 1000"
    "qwen3_vl": ("grounding-qwen3-vl-v1", "qwen3_vl",
                 'Locate "{instruction}" in this screenshot. Output its click point in JSON format as {{"point_2d": [x, y]}}, '
                 "with coordinates relative to the image from 0 to 1000."),
    # xlang-ai/aguvis src/aguvis/constants.py grounding_system_message (system turn), then the instruction; Aguvis also
    # starts the answer with "<|im_start|>assistant<|recipient|>os\n" (serve/cli.py), which a task cannot set.
    "aguvis": ("grounding-aguvis-v1", "aguvis", AGUVIS_SYSTEM + "\n{instruction}"),
    # xlang-ai/OpenCUA model/inference/huggingface_inference.py: the same system prompt, then the instruction
    "opencua": ("grounding-opencua-v1", "opencua", AGUVIS_SYSTEM + "\n{instruction}"),
    # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/qwen2vl.py (the Qwen2-VL-7B run of the ScreenSpot-Pro paper)
    "qwen2_vl": ("grounding-qwen2-vl-v1", "qwen2_vl",
                 'Output the bounding box in the image corresponding to the instruction "{instruction}" with grounding.'),
    # OSU-NLP-Group/UGround grounding/uground_qwen2vl_serve.py format_openai_template (the API service mode its
    # reported scores use; the same text as the README and the model card, opening with a newline): "(x, y)" on [0, 1000)
    "uground_v1": ("grounding-uground-v1-v2", "uground_v1",
                   "\nYour task is to help the user identify the precise coordinates (x, y) of a specific area/element/object "
                   "on the screen based on a description.\n\n- Your response should aim to point to the center or a "
                   "representative point within the described area/element/object as accurately as possible.\n- If the "
                   "description is unclear or ambiguous, infer the most relevant area or element based on its likely context "
                   "or purpose.\n- Your answer should be a single string (x, y) corresponding to the point of the interest."
                   "\n\nDescription: {instruction}\n\nAnswer:"),
    # Yan98/GTA1 system prompt; height and width are those of the resized image the model sees
    "gta1": ("grounding-gta1-v1", "gta1",
             "You are an expert UI element locator. Given a GUI image and a user's element description, provide the "
             "coordinates of the specified element as a single (x,y) point. The image resolution is height {resized_height} "
             "and width {resized_width}. For elements with area, return the center point.\n\nOutput the coordinate pair "
             "exactly:\n(x,y)\n{instruction}"),
    # InfiXAI/InfiGUI-G1 eval/prompts.py in think mode (its default: eval.py --think-mode 1): the think system prompt,
    # then the user text; the answer is read after the last </think> (gui_models.grounding_official)
    "infigui_g1": ("grounding-infigui-g1-think-v1", "infigui_g1", INFIGUI_THINK_SYSTEM + "\n" + _INFIGUI_USER),
    # --think-mode 0: the chat template's default system prompt, the user text alone
    "infigui_g1_nothink": ("grounding-infigui-g1-v1", "infigui_g1", _INFIGUI_USER),
    # inclusionAI/UI-Venus models/grounding/ui_venus_ground_7b.py
    "ui_venus": ("grounding-ui-venus-v1", "ui_venus",
                 "Outline the position corresponding to the instruction: {instruction}. The output should be only [x1,y1,x2,y2]."),
    # inclusionAI/UI-Venus models/grounding/eval_screenspot_pro.py (UI-Venus-1.5): the refusal variant its script uses;
    # one trailing "." of the instruction is dropped first (STRIP_FULL_STOP)
    "ui_venus_1_5": ("grounding-ui-venus-1.5-v1", "ui_venus_1_5",
                     "Output the center point of the position corresponding to the following instruction: \n{instruction}. "
                     "\n\nThe output should just be the coordinates of a point, in the format [x,y]. Additionally, if the "
                     "task is infeasible (e.g., the task is not related to the image), the output should be [-1,-1]."),
    # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/holo1_5.py (its prompt, then the instruction on a new line)
    "holo1_5": ("grounding-holo1.5-v1", "holo1_5",
                "Localize an element on the GUI image according to the provided target and output a click position.\n"
                "          * Only output the click position, do not output any other text.\n"
                "          * The click position should be in the format 'Click(x, y)' with x: num pixels from the left edge "
                "and y: num pixels from the top edge\n          Your target is:\n{instruction}"),
    # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/showui.py (ShowUI's system text, then the instruction)
    "showui": ("grounding-showui-v1", "showui",
               "Based on the screenshot of the page, I give a text description and you give its corresponding location. The "
               "coordinate represents a clickable location [x, y] for an element, which is a relative coordinate on the "
               "screenshot, scaled from 0 to 1.\n{instruction}"),
    # njucckevin/SeeClick (as in ScreenSpot-Pro-GUI-Grounding models/seeclick.py)
    "seeclick": ("grounding-seeclick-v1", "seeclick",
                 'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
                 "(with point)?"),
    # YXB-NKU/SE-GUI src/eval/test_grounding_r1_nothink*.py: the computer_use system prompt (resized resolution),
    # then the instruction as the user text
    "se_gui": ("grounding-se-gui-v1", "se_gui", _COMPUTER_USE_TEMPLATE + "\n{instruction}"),
    # xlang-ai/OSWorld mm_agents/jedi_7b_agent.py: JEDI_GROUNDER_SYS_PROMPT (resized height / width, filled with
    # .replace), then "\n" + the instruction as the user text
    "jedi": ("grounding-jedi-v1", "jedi", _JEDI_TEMPLATE + "\n\n{instruction}"),
    "phi_ground": ("grounding-phi-ground-v1", "phi_ground", PHI_GROUND_TEMPLATE),
}
DEFAULT_PROMPT = "relative"
# prompts whose script drops one trailing "." of the instruction before filling it in
STRIP_FULL_STOP = frozenset({"ui_venus_1_5"})


def prompt_family(kwargs: Mapping[str, Any] | None) -> str:
    name = str((kwargs or {}).get("prompt", DEFAULT_PROMPT))
    if name not in PROMPTS:
        raise ValueError(f"unknown grounding prompt {name!r}; known: {', '.join(PROMPTS)}")
    return name


def build_prompt(instruction: str, prompt: str = DEFAULT_PROMPT, width: int | None = None, height: int | None = None,
                 resize_budget: str | None = None) -> str:
    """The prompt text; a template naming the resized image size (GTA1) needs the original ``width`` and ``height``."""
    template = PROMPTS[prompt][2]
    if prompt in STRIP_FULL_STOP and instruction.endswith("."):
        instruction = instruction[:-1]
    fields: dict[str, Any] = {"instruction": instruction}
    if "{resized_width}" in template:
        from gui_models.coords import BUDGETS
        from gui_models.grounding import FAMILY_BUDGETS

        if width is None or height is None:
            raise ValueError(f"prompt {prompt!r} names the resized image size: give the image's width and height")
        budget = BUDGETS[resize_budget or FAMILY_BUDGETS.get(answer_family(prompt), "qwen2_5_vl")]
        fields["resized_width"], fields["resized_height"] = budget.resized(int(width), int(height))
    return template.format(**fields)


def answer_family(prompt: str) -> str:
    return PROMPTS[prompt][1]


def protocol(prompt: str) -> str:
    return PROMPTS[prompt][0]
