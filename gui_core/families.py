"""The built-in model family records (``gui_core.family``): one record per family, everything it is in one place.

Importing this module registers them; third parties call ``gui_core.family.register_family`` with records of their
own. docs/grounding_families.md's table and the YAML generator are read from these records.
"""

from __future__ import annotations

from gui_core import agent_formats as fmt
from gui_core.family import AgentProtocol, Family, GroundingPrompt, register_family
from gui_core import grounding_authors as authors
from gui_core import grounding_authors_thinking as thinking_authors
from gui_core import grounding_wrappers as gw
from gui_core.grounding import (_read_answer_coordinate, _read_box, _read_holo, _read_infigui, _read_jedi, _read_paren_pair, _read_phi_ground,
                                _read_pyautogui, _read_qwen2_5_vl_official, _read_qwen2_vl, _read_qwen3_vl, _read_se_gui,
                                _read_seeclick, _read_showui, _read_square_point, _tool_call_coordinate)
from gui_core.grounding_prompts import (_COMPUTER_USE_TEMPLATE, _INFIGUI_USER, _JEDI_TEMPLATE, AGUVIS_SYSTEM,
                                        GUI_OWL_1_5_SYSTEM, HOLO2_TEMPLATE, HOLO3_TEMPLATE, INFIGUI_THINK_SYSTEM,
                                        MAI_UI_SYSTEM, PAPER_SYSTEM, PHI_GROUND_TEMPLATE)

# official_reader: the authors' own parser (gui_core.grounding_authors), checked against their code on the corpora of
# tests/fixtures/differential/grounding (each names repository, commit and path); prompts are compared with the
# quoted source text in tests/fixtures/prompts/grounding_sources.json. answer_after_reasoning (issue 51): False where
# the authors' parser reads the whole text, reasoning included; True (the default) where they read after the reasoning
# or publish no reader (the benchmark's rule, gui_core.action_reading.after_reasoning).

# PSS appendix A: "[x, y]" in [0, 1]. relative_bare: the instruction alone (the system prompt sent by the backend)
register_family(Family(
    'relative', 'PSS paper prompt (relative [x, y])', 'relative',
    prompts=(
        GroundingPrompt('relative', "pss-relative-v1",
            PAPER_SYSTEM + "\n{instruction}"),
        GroundingPrompt('relative_bare', "pss-relative-bare-v1",
            "{instruction}"),
    ),
    syntax='[x, y] in [0, 1]',
    sources=('PSS paper (seed peak-sharpness-score) appendix A: system prompt, answer [x, y] in [0, 1]',)))

register_family(Family(
    'os_atlas', 'OS-Atlas', 'grid1000',
    prompts=(
        # OS-Atlas-Base-7B's grounding prompt (README.md inference example: "(with bbox)"; "(with point)" is SeeClick's)
        GroundingPrompt('os_atlas', "grounding-os-atlas-v2",
            'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
            "(with bbox)?"),
    ),
    syntax='CLICK <point>[[x, y]]</point>',
    action_parser='os_atlas',
    # v2: StaR's per-dataset templates (dataPreprocessor/templates.py) on androidcontrol / aitz / gui_odyssey
    refusal=True,  # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/osatlas7b.py, osatlas4b.py ground_allow_negative
    agent=AgentProtocol("os_atlas", "grid1000", "star-os-atlas-v2", build_prompt=fmt.os_atlas_prompt,
                        write_action=fmt.os_atlas_action, default_of=("star",)),
    sources=('OS-Copilot/OS-Atlas README.md (OS-Atlas-Base-7B inference example: grounding prompt, <|box_start|> answer)', 'StaR appendix C Figure 8 (agent prompt), A.5 (0-1000 grid)',
             'ZrW00/StaR@3af0acd5 dataPreprocessor/templates.py *_ATLAS_ACTION_PREDICTION_PROMPT (per-dataset agent prompts)')))

register_family(Family(
    'ui_tars', 'UI-TARS', 'grid1000',
    prompts=(
        GroundingPrompt('ui_tars', "grounding-ui-tars-v1",
            "Output only the coordinate of one point in your response. What element matches the following task: {instruction}"),
    ),
    syntax="click(start_box='(x,y)')",
    action_parser='ui_tars',
    # star-ui-tars-v2: the step prompt is StaR's dataPreprocessor/templates.py text per dataset (v1: one text for all)
    agent=AgentProtocol("ui_tars", "grid1000", "star-ui-tars-v2", history_images=4, own_history=True,
                        build_prompt=fmt.ui_tars_prompt, write_action=fmt.ui_tars_action,
                        benchmarks=("star", "sphinx", "star_own_history")),
    sources=('bytedance/UI-TARS README_v1.md (grounding prompt + instruction)', 'StaR appendix C Figure 7 (agent prompt), A.5 (four history screenshots; proprietary models use this prompt)')), aliases=('proprietary',))

register_family(Family(
    'ui_tars_1_5', 'UI-TARS-1.5', 'resized_px',
    budget='ui_tars_1_5',
    prompts=(
        # bytedance/UI-TARS codes/ui_tars/prompt.py GROUNDING_DOUBAO: the README's GROUNDING template ("useful for
        # evaluating grounding capability"); its answer: Action: click(point='<point>x y</point>')
        GroundingPrompt('ui_tars_1_5', "grounding-ui-tars-1.5-v2",
            "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the "
            "next action to complete the task. \n\n## Output Format\n\nAction: ...\n\n\n## Action Space\n"
            "click(point='<point>x1 y1</point>'')\n\n## User Instruction\n{instruction}"),
    ),
    syntax="click(point='<point>x y</point>')",
    action_parser='ui_tars_1_5',
    agent=AgentProtocol("ui_tars_1_5", "resized_px", "star-ui-tars-v2", history_images=4, own_history=True,
                        build_prompt=fmt.ui_tars_prompt, write_action=fmt.ui_tars_action),
    sources=('bytedance/UI-TARS README_coordinates.md (pixels of the smart-resized image); codes/ui_tars/prompt.py GROUNDING_DOUBAO (grounding prompt)',)))

register_family(Family(
    'qwen2_5_vl', 'Qwen2.5-VL', 'resized_px',
    budget='qwen2_5_vl',
    prompts=(
        GroundingPrompt('qwen2_5_vl', "grounding-qwen2.5-vl-v1",
            'Locate "{instruction}" in the screenshot and output its click point in pixels as JSON: '
            '{{"point_2d": [x, y]}}'),
    ),
    syntax='{"point_2d": [x, y]} / {"bbox_2d": [...]}',
    official_reader=authors.read_qwen2_5_vl,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    tool_call_reader=_read_qwen2_5_vl_official,
    action_parser='qwen2_5_vl',
    reads_qwen_json=True,
    agent=AgentProtocol("qwen2_5_vl", "resized_px", "star-qwen2.5-vl-mobile-use-v1", build_prompt=fmt.mobile_use_prompt,
                        write_action=fmt.mobile_use_action),
    sources=('QwenLM/Qwen2.5-VL cookbooks (grounding JSON, computer_use / mobile_use)',)))

register_family(Family(
    'agentcpm_gui', 'AgentCPM-GUI', 'grid1000',
    prompts=(
        GroundingPrompt('agentcpm_gui', "grounding-agentcpm-gui-v1",
            'Instruction: click {instruction}. Answer with one JSON action {{"POINT": [x, y]}} on the 0-1000 grid.'),
    ),
    syntax='{"POINT": [x, y]}',
    action_parser='agentcpm_gui',
    agent=AgentProtocol("agentcpm_gui", "grid1000", "star-agentcpm-gui-v1", build_prompt=fmt.agentcpm_prompt,
                        write_action=fmt.agentcpm_action, missing_actions=("OPENAPP",)),
    sources=('OpenBMB/AgentCPM-GUI README (JSON schema, 0-1000 grid)', 'StaR appendix C Figure 9')))

register_family(Family(
    'qwen3_vl', 'Qwen3-VL', 'grid1000',
    prompts=(
        GroundingPrompt('qwen3_vl', "grounding-qwen3-vl-v1",
            'Locate "{instruction}" in this screenshot. Output its click point in JSON format as {{"point_2d": [x, y]}}, '
            "with coordinates relative to the image from 0 to 1000."),
    ),
    reader=_read_qwen3_vl,
    syntax='{"point_2d": [x, y]} / {"bbox_2d": [...]} or a computer_use tool call',
    # the Thinking checkpoints are the same family with thinking on: the authors' evaluations read the answer after
    # the last </think> (evaluation/ODinW-13/run_odinw.py: response.split("</think>")[-1], bbox_2d on the 0-1000 grid)
    answer_after_reasoning=True,
    sources=('QwenLM/Qwen3-VL cookbooks/2d_grounding.ipynb, computer_use: relative coordinates from 0 to 1000',
             'QwenLM/Qwen3-VL@f8dca99056bb6352cf6ab36d4ea1848a09c54b5b evaluation/ODinW-13/run_odinw.py (the answer '
             'after the last </think>; infer_think.sh: the Thinking checkpoints)')))

register_family(Family(
    'qwen2_vl', 'Qwen2-VL', 'grid1000',
    prompts=(
        GroundingPrompt('qwen2_vl', "grounding-qwen2-vl-v1",
            'Output the bounding box in the image corresponding to the instruction "{instruction}" with grounding.'),
    ),
    reader=_read_qwen2_vl,
    official_reader=authors.read_qwen2_vl,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='<|box_start|>(x1,y1),(x2,y2)<|box_end|>',
    refusal=True,  # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/qwen2vl.py ground_allow_negative
    agent_from='os_atlas',
    sources=('likaixin2000/ScreenSpot-Pro-GUI-Grounding models/qwen2vl.py (box on the 0-1000 grid)', 'StaR A.5: Qwen2-VL uses the OS-Atlas agent prompt')))

# Aguvis also starts the answer with "<|im_start|>assistant<|recipient|>os\n" (serve/cli.py), which a task cannot set
register_family(Family(
    'aguvis', 'Aguvis', 'relative',
    prompts=(
        GroundingPrompt('aguvis', "grounding-aguvis-v1",
            AGUVIS_SYSTEM + "\n{instruction}"),
    ),
    reader=_read_pyautogui,
    syntax='pyautogui.click(x=0.1175, y=0.0725)',
    sources=('xlang-ai/aguvis src/aguvis/constants.py grounding_system_message; serve/cli.py',)))

register_family(Family(
    'opencua', 'OpenCUA', 'resized_px',
    budget='qwen2_5_vl',
    prompts=(
        GroundingPrompt('opencua', "grounding-opencua-v1",
            AGUVIS_SYSTEM + "\n{instruction}"),
    ),
    reader=_read_pyautogui,
    syntax='pyautogui.click(x=960, y=324)',
    sources=('xlang-ai/OpenCUA model/README.md (Important Notes on Coordinate Systems); model/inference/huggingface_inference.py',)))

register_family(Family(
    'uground_v1', 'UGround-V1', 'grid1000',
    prompts=(
        GroundingPrompt('uground_v1', "grounding-uground-v1-v2",
            "\nYour task is to help the user identify the precise coordinates (x, y) of a specific area/element/object "
            "on the screen based on a description.\n\n- Your response should aim to point to the center or a "
            "representative point within the described area/element/object as accurately as possible.\n- If the "
            "description is unclear or ambiguous, infer the most relevant area or element based on its likely context "
            "or purpose.\n- Your answer should be a single string (x, y) corresponding to the point of the interest."
            "\n\nDescription: {instruction}\n\nAnswer:"),
    ),
    reader=_read_paren_pair,
    official_reader=authors.read_uground_v1,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='(x, y)',
    sources=('OSU-NLP-Group/UGround grounding/uground_qwen2vl_serve.py (format_openai_template: the prompt, opening with a '
             'newline; process_question: eval, int(x / 1000 * width), no answer written on failure)',
             'osunlp UGround-V1 model card (Qwen2-VL based): "(x, y)" on [0, 1000)')))

register_family(Family(
    'gta1', 'GTA1', 'resized_px',
    budget='gta1',
    prompts=(
        GroundingPrompt('gta1', "grounding-gta1-v1",
            "You are an expert UI element locator. Given a GUI image and a user's element description, provide the "
            "coordinates of the specified element as a single (x,y) point. The image resolution is height {resized_height} "
            "and width {resized_width}. For elements with area, return the center point.\n\nOutput the coordinate pair "
            "exactly:\n(x,y)\n{instruction}"),
    ),
    reader=_read_paren_pair,
    official_reader=authors.read_gta1,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='(x,y)',
    sources=('Yan98/GTA1 README.md (system prompt, AutoProcessor min/max pixels, extract_coordinates)',)))

register_family(Family(
    'infigui_g1', 'InfiGUI-G1', 'resized_px',
    budget='infigui_g1',
    prompts=(
        # think mode, its evaluation's default (eval.py --think-mode 1): the think system prompt, then the user text
        GroundingPrompt('infigui_g1', "grounding-infigui-g1-think-v1", INFIGUI_THINK_SYSTEM + "\n" + _INFIGUI_USER,
                        max_new_tokens=1024),  # eval.py --max-tokens 1024
        # --think-mode 0: the chat template's default system prompt, the user text alone
        GroundingPrompt('infigui_g1_nothink', "grounding-infigui-g1-v1", _INFIGUI_USER),
    ),
    reader=_read_infigui,
    official_reader=authors.read_infigui_g1,
    answer_after_reasoning=True,  # eval/prompts.py reads after the last </think> (think mode)
    syntax='[{"point_2d": [x, y]}]',
    visual='doc_to_visual_infigui_g1',
    sources=('InfiXAI/InfiGUI-G1 eval/prompts.py (prompts, extract_coordinates, calculate_metrics), eval/eval.py '
             '(--think-mode 1, --max-image-tokens 5600, --max-tokens 1024, resized resolution), eval/data.py (resize_image)',)))

register_family(Family(
    'ui_venus', 'UI-Venus-Ground', 'resized_px',
    budget='ui_venus',
    prompts=(
        GroundingPrompt('ui_venus', "grounding-ui-venus-v1",
            "Outline the position corresponding to the instruction: {instruction}. The output should be only [x1,y1,x2,y2]."),
    ),
    reader=_read_box,
    official_reader=authors.read_ui_venus,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='[x1,y1,x2,y2]',
    sources=('inclusionAI/UI-Venus models/grounding/ui_venus_ground_7b.py (commit fc7670d: prompt, budget, eval of the answer)',)))

register_family(Family(
    'ui_venus_1_5', 'UI-Venus-1.5', 'grid1000',
    prompts=(
        # the refusal variant eval_screenspot_pro.py uses (inference without do_not_use_refusal)
        GroundingPrompt('ui_venus_1_5', "grounding-ui-venus-1.5-v1",
            "Output the center point of the position corresponding to the following instruction: \n{instruction}. "
            "\n\nThe output should just be the coordinates of a point, in the format [x,y]. Additionally, if the "
            "task is infeasible (e.g., the task is not related to the image), the output should be [-1,-1].",
            drop_final_period=True),
    ),
    reader=_read_square_point,
    official_reader=authors.read_ui_venus_1_5,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='[x,y]',
    sources=('inclusionAI/UI-Venus models/grounding/ui_venus1_5_gd.py (_parse_point: [x,y] on the 0-1000 grid), '
             'models/grounding/eval_screenspot_pro.py (prompt)',)))

register_family(Family(
    'holo1_5', 'Holo1.5', 'resized_px',
    budget='holo1_5',
    prompts=(
        GroundingPrompt('holo1_5', "grounding-holo1.5-v1",
            "Localize an element on the GUI image according to the provided target and output a click position.\n"
            "          * Only output the click position, do not output any other text.\n"
            "          * The click position should be in the format 'Click(x, y)' with x: num pixels from the left edge "
            "and y: num pixels from the top edge\n          Your target is:\n{instruction}"),
    ),
    reader=_read_holo,
    official_reader=authors.read_holo1_5,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='{"action": "click_absolute", "x": 1, "y": 2}',
    sources=('likaixin2000/ScreenSpot-Pro-GUI-Grounding models/holo1_5.py',)))

register_family(Family(
    'showui', 'ShowUI', 'relative',
    prompts=(
        GroundingPrompt('showui', "grounding-showui-v1",
            "Based on the screenshot of the page, I give a text description and you give its corresponding location. The "
            "coordinate represents a clickable location [x, y] for an element, which is a relative coordinate on the "
            "screenshot, scaled from 0 to 1.\n{instruction}"),
    ),
    reader=_read_showui,
    official_reader=authors.read_showui,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='[x, y]',
    sources=('likaixin2000/ScreenSpot-Pro-GUI-Grounding models/showui.py',)))

register_family(Family(
    'seeclick', 'SeeClick', 'relative',
    prompts=(
        GroundingPrompt('seeclick', "grounding-seeclick-v1",
            'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
            "(with point)?"),
    ),
    reader=_read_seeclick,
    official_reader=authors.read_seeclick,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='(x,y)',
    sources=('njucckevin/SeeClick; likaixin2000/ScreenSpot-Pro-GUI-Grounding models/seeclick.py',)))

# JEDI_GROUNDER_SYS_PROMPT (mm_agents/prompts.py, filled with .replace), then "\n" + the instruction as the user text
register_family(Family(
    'jedi', 'JEDI', 'resized_px',
    budget='jedi',
    prompts=(
        GroundingPrompt('jedi', "grounding-jedi-v1",
            _JEDI_TEMPLATE + "\n\n{instruction}"),
    ),
    reader=_read_jedi,
    official_reader=authors.read_jedi,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='<tool_call>{"name": "computer_use", "arguments": {"coordinate": [x, y]}}</tool_call>',
    sources=('xlang-ai/OSWorld mm_agents/jedi_7b_agent.py (parse_jedi_response, max_pixels 2700*28*28), '
             'mm_agents/prompts.py (JEDI_GROUNDER_SYS_PROMPT), read from its copy in HITsz-TMG/WindowsWorld',)))

register_family(Family(
    'se_gui', 'SE-GUI', 'resized_px',
    budget='se_gui',
    prompts=(
        GroundingPrompt('se_gui', "grounding-se-gui-v1",
            _COMPUTER_USE_TEMPLATE + "\n{instruction}"),
    ),
    reader=_read_se_gui,
    official_reader=authors.read_se_gui,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='<tool_call>...[x, y]...</tool_call>',
    sources=('YXB-NKU/SE-GUI src/eval/test_grounding_r1_nothink*.py (system_content, extract_point_answer)',)))

# the 0-1000 grid of the 1008x672 canvas the screenshot is pasted into, read as pixels of the scaled screenshot
register_family(Family(
    'phi_ground', 'Phi-Ground', 'resized_px',
    budget='phi_ground',
    prompts=(
        GroundingPrompt('phi_ground', "grounding-phi-ground-v1",
            PHI_GROUND_TEMPLATE),
    ),
    reader=_read_phi_ground,
    official_reader=authors.read_phi_ground,
    answer_after_reasoning=False,  # its authors' parser reads the whole answer
    syntax='<point>x, y</point>',
    visual='doc_to_visual_phi_ground',
    sources=('microsoft/Phi-Ground benchmark/test_screenspot_pro.py (process_task, get_results); README.md (process_image)',)))

# --- the thinking-era families (issue 51, item 5): docs/grounding_families.md "Thinking models" --------------------

# GUI-Owl-1.5 (Mobile-Agent-v3.5), its grounding evaluation with use_qwen3vl: the computer_use system prompt on a
# 1000x1000 screen, the instruction as the user text, max_new_tokens 2048, the answer read over the whole text
register_family(Family(
    'gui_owl_1_5', 'GUI-Owl-1.5', 'grid1000',
    prompts=(
        GroundingPrompt('gui_owl_1_5', "grounding-gui-owl-1.5-v1",
            GUI_OWL_1_5_SYSTEM + "\n{instruction}", max_new_tokens=2048),
    ),
    reader=_tool_call_coordinate,
    official_reader=thinking_authors.read_gui_owl_1_5,
    answer_after_reasoning=False,  # the last (x, y) / [x, y] of the whole response
    syntax='<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}</tool_call>',
    sources=('X-PLUG/MobileAgent@9073a3d6faabc55df5e854532bcfe0b33f350d0e Mobile-Agent-v3.5/grounding_and_kb/'
             'eval_grounding_benchmarks.py (only_two_action_system_prompt; ScreenSpotv2.evaluate: last (x, y) else '
             '[x, y], (0, 0) when none, 1000x1000 frame; MAX_PIXELS 9800*32*32; max_new_tokens 2048)',)))

# MAI-UI: a system prompt asking for <grounding_think> reasoning and <answer>{"coordinate": [x,y]}</answer>, the
# instruction and a newline as the user text, max_tokens 256; the first [x,y] of the whole text on the 0-1000 grid
register_family(Family(
    'mai_ui', 'MAI-UI', 'grid1000',
    prompts=(
        GroundingPrompt('mai_ui', "grounding-mai-ui-v1",
            MAI_UI_SYSTEM + "\n{instruction}\n", max_new_tokens=256),
    ),
    reader=_read_answer_coordinate,
    official_reader=thinking_authors.read_mai_ui,
    answer_after_reasoning=False,  # parse_coordinates runs over the whole text, <grounding_think> included
    syntax='<grounding_think>...</grounding_think><answer>{"coordinate": [x,y]}</answer>',
    sources=('Tongyi-MAI/MAI-UI@652277bc2fbcff35c3365072751278336e3b2768 evaluation/grounding/models/MAI_UI.py '
             '(parse_coordinates, batch_ground_only_positive: cut after the last "}", / 1000), eval_local.py, '
             'eval_server.py (SYSTEM_PROMPT, max_tokens 256, max_pixels 6553600), README.md (eval_local.py, '
             '--use_guide_text False)',)))

# Holo2 (fine-tuned from Qwen3-VL Thinking): its cookbook's localization prompt and ClickCoordinates JSON on the
# 0-1000 grid, read after the first </think>; thinking off for localization (chat template kwarg "thinking")
register_family(Family(
    'holo2', 'Holo2', 'grid1000',
    prompts=(
        GroundingPrompt('holo2', "grounding-holo2-v1", HOLO2_TEMPLATE),
    ),
    reader=_read_holo,
    official_reader=thinking_authors.read_holo2,
    answer_after_reasoning=True,  # parse_reasoning: the content after the first </think>
    syntax='{"x": int, "y": int} in [0, 1000]',
    sources=('hcompai/hai-cookbook@ade0d6b0605bd21f19e26695e5e8d107e24b93a7 holo2/holo_2_localization_huggingface.ipynb '
             '(ClickCoordinates, get_chat_messages, parse_reasoning, model_validate_json; thinking=False)',
             'hcompai/hai-cookbook@2ba89619bdcfe729d31649d976bdaa7b9551e216 holo2/deploy_with_vllm.md (reasoning parser '
             'holo2; chat_template_kwargs {"thinking": false})')))

# Holo3 / Holo3.1: H Company's element-localization guide (no repository): VisualLocalizerOutput JSON on the 0-1000
# grid of the image sent, thinking off, temperature 0
register_family(Family(
    'holo3', 'Holo3', 'grid1000',
    prompts=(
        GroundingPrompt('holo3', "grounding-holo3-v1", HOLO3_TEMPLATE),
    ),
    reader=_read_holo,
    official_reader=thinking_authors.read_holo3,
    answer_after_reasoning=True,  # message.content: the answer without the reasoning
    syntax='{"x": int, "y": int} in [0, 1000]',
    sources=('https://hub.hcompany.ai/element-localization (VisualLocalizerOutput, the prompt, '
             'model_validate_json(message.content); enable_thinking False)',)))

# read as a grounding family (StaR), no grounding prompt of ours
register_family(Family(
    'gui_owl', 'GUI-Owl', 'resized_px',
    budget='gui_owl',
    syntax='mobile_use tool call',
    action_parser='gui_owl',
    reads_qwen_json=True,
    agent=AgentProtocol("gui_owl", "original_px", "star-gui-owl-v1", build_prompt=fmt.mobile_use_prompt,
                        write_action=fmt.mobile_use_action),
    sources=('X-PLUG/MobileAgent Mobile-Agent-v3 (mobile_use tool, resized pixels)', 'StaR appendix C Figure 10, A.5 (StaR-trained GUI-Owl: original pixels, the prompt states the original resolution)')))

# StaR A.5: GUI-R1 (on Qwen2.5-VL-7B) with its original prompt (ritzz-ai/GUI-R1 guir1/inference/), clicks in original
# pixels; its released checkpoints answer in pixels of the resized image (coordinate_frame resized_px, Qwen2.5-VL budget).
# An agent only: no grounding prompt or reading of ours.
register_family(Family(
            'gui_r1', 'GUI-R1', 'original_px',
    budget='qwen2_5_vl',
    agent=AgentProtocol("gui_r1", "original_px", "star-gui-r1-v1", build_prompt=fmt.gui_r1_prompt,
                        write_action=fmt.gui_r1_action, benchmarks=("star",)),
    grounds=False,
    sources=("ritzz-ai/GUI-R1 guir1/inference/inference_vllm_android.py, inference_vllm_guiodyssey.py", "StaR A.5")))


def _register_wrappers() -> None:
    """The benchmark repositories' own per-model wrappers (issue 46), keyed by (benchmark, family): see
    ``gui_core.grounding_wrappers``."""
    ss, ui = "models/{}.py", "eval/grounding/models/{}.py"
    for bench, (repo, commit), fam, reader, path, what in (
        ("uivision", gw.UIVISION, "ui_tars", gw.read_uivision_ui_tars, ui.format("uitars"),
         "literal_eval of the first (...), / 1000; else the click (0, 0)"),
        ("uivision", gw.UIVISION, "aguvis", gw.read_uivision_aguvis, ui.format("aguvis"),
         "pyautogui.click with decimals; else the click (0, 0)"),
        ("uivision", gw.UIVISION, "os_atlas", gw.read_os_atlas_7b, ui.format("osatlas7b"),
         "first tagged box strictly inside 0-1000; a bare point only inside (0, 1) before / 1000"),
        ("uivision", gw.UIVISION, "seeclick", gw._relative_family(authors.read_seeclick), ui.format("seeclick"),
         "<box> centre, else two or four numbers (relative)"),
        ("uivision", gw.UIVISION, "showui", gw._relative_family(authors.read_showui), ui.format("showui"),
         "the first two numbers (relative)"),
        ("uivision", gw.UIVISION, "qwen2_vl", gw.read_uivision_qwen2_vl, ui.format("qwen2vl"),
         "last tagged [x1,y1,x2,y2] (else (x1,y1),(x2,y2)) / 1000; else two or four numbers / 1000"),
        ("screenspot_pro", gw.SSPRO, "os_atlas", gw.read_os_atlas_7b, ss.format("osatlas7b"),
         "first tagged box strictly inside 0-1000; a bare point only inside (0, 1) before / 1000"),
        ("screenspot_pro", gw.SSPRO, "seeclick", gw._relative_family(authors.read_seeclick), ss.format("seeclick"),
         "<box> centre, else two or four numbers (relative)"),
        ("screenspot_pro", gw.SSPRO, "qwen2_vl", gw.read_sspro_qwen2_vl, ss.format("qwen2vl"),
         "last tagged (x1,y1),(x2,y2) / 1000; else two or four numbers / 1000"),
        ("mmbench_gui_l2", gw.MMBENCH, "relative", gw.read_mmbench_l2, "benchmarks/l2_element_grounding.py, utils/misc.py",
         "first number pair (loose separators, reasoning included); / image size when a coordinate exceeds 1"),
    ):
        gw.register_wrapper(gw.Wrapper(bench, fam, reader, repo, commit, path, what))
    # MMBench-GUI's UI-TARS reader resizes with the row's image_size (ast.literal_eval(meta["image_size"])), not the PNG's
    gw.register_wrapper(gw.Wrapper("mmbench_gui_l2", "ui_tars_1_5", gw.read_mmbench_ui_tars_1_5, gw.MMBENCH[0],
                                   gw.MMBENCH[1], "models/local_uitars.py", "exactly two integers over the smart-resize "
                                   "of the row's image_size; / image size when a coordinate exceeds 1",
                                   row_keys=("row_image_size",)))
    gw.register_wrapper(gw.Wrapper("screenspot_pro", "os_atlas", gw.read_os_atlas_7b_negative, gw.SSPRO[0], gw.SSPRO[1],
                             ss.format("osatlas7b"), "ground_allow_negative: any two or four numbers click; else the "
                             "refusal phrase", negative=True))
    gw.register_wrapper(gw.Wrapper("screenspot_pro", "qwen2_vl", gw.read_sspro_qwen2_vl_negative, gw.SSPRO[0], gw.SSPRO[1],
                             ss.format("qwen2vl"), "ground_allow_negative: last tagged box or any two or four numbers "
                             "click; else the refusal phrase", negative=True))


_register_wrappers()
