"""The built-in model family records (``gui_core.family``): one record per family, everything it is in one place.

Importing this module registers them; third parties call ``gui_core.family.register_family`` with records of their
own. docs/grounding_families.md's table and the YAML generator are read from these records.
"""

from __future__ import annotations

from gui_core.family import AgentProtocol, Family, GroundingPrompt, register_family
from gui_core.grounding import (_read_box, _read_holo, _read_infigui, _read_jedi, _read_paren_pair, _read_phi_ground,
                                _read_pyautogui, _read_qwen2_5_vl_official, _read_qwen2_vl, _read_qwen3_vl, _read_se_gui,
                                _read_seeclick, _read_showui)
from gui_core.grounding_prompts import _COMPUTER_USE_TEMPLATE, AGUVIS_SYSTEM, PAPER_SYSTEM, PHI_GROUND_TEMPLATE

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
        GroundingPrompt('os_atlas', "grounding-os-atlas-v1",
            'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
            "(with point)?"),
    ),
    syntax='CLICK <point>[[x, y]]</point>',
    action_parser='os_atlas',
    agent=AgentProtocol("os_atlas", "grid1000", "star-os-atlas-v1"),
    sources=('OS-Copilot/OS-Atlas README (grounding prompt)', 'StaR appendix C Figure 8 (agent prompt), A.5 (0-1000 grid)')))

register_family(Family(
    'ui_tars', 'UI-TARS', 'grid1000',
    prompts=(
        GroundingPrompt('ui_tars', "grounding-ui-tars-v1",
            "Output only the coordinate of one point in your response. What element matches the following task: {instruction}"),
    ),
    syntax="click(start_box='(x,y)')",
    action_parser='ui_tars',
    agent=AgentProtocol("ui_tars", "grid1000", "star-ui-tars-v1", history_images=4, own_history=True),
    sources=('bytedance/UI-TARS README (grounding prompt)', 'StaR appendix C Figure 7 (agent prompt), A.5 (four history screenshots; proprietary models use this prompt)')), aliases=('proprietary',))

register_family(Family(
    'ui_tars_1_5', 'UI-TARS-1.5', 'resized_px',
    budget='ui_tars_1_5',
    prompts=(
        GroundingPrompt('ui_tars_1_5', "grounding-ui-tars-1.5-v1",
            "Output only the coordinate of one point in your response. What element matches the following task: "
            "{instruction}"),
    ),
    syntax="click(point='<point>x y</point>')",
    action_parser='ui_tars_1_5',
    agent=AgentProtocol("ui_tars_1_5", "resized_px", "star-ui-tars-v1", history_images=4, own_history=True),
    sources=('bytedance/UI-TARS README_coordinates.md (pixels of the smart-resized image)',)))

register_family(Family(
    'qwen2_5_vl', 'Qwen2.5-VL', 'resized_px',
    budget='qwen2_5_vl',
    prompts=(
        GroundingPrompt('qwen2_5_vl', "grounding-qwen2.5-vl-v1",
            'Locate "{instruction}" in the screenshot and output its click point in pixels as JSON: '
            '{{"point_2d": [x, y]}}'),
    ),
    syntax='{"point_2d": [x, y]} / {"bbox_2d": [...]}',
    official_reader=_read_qwen2_5_vl_official,
    action_parser='qwen2_5_vl',
    reads_qwen_json=True,
    agent=AgentProtocol("qwen2_5_vl", "resized_px", "star-qwen2.5-vl-mobile-use-v1"),
    sources=('QwenLM/Qwen2.5-VL cookbooks (grounding JSON, computer_use / mobile_use)',)))

register_family(Family(
    'agentcpm_gui', 'AgentCPM-GUI', 'grid1000',
    prompts=(
        GroundingPrompt('agentcpm_gui', "grounding-agentcpm-gui-v1",
            'Instruction: click {instruction}. Answer with one JSON action {{"POINT": [x, y]}} on the 0-1000 grid.'),
    ),
    syntax='{"POINT": [x, y]}',
    action_parser='agentcpm_gui',
    agent=AgentProtocol("agentcpm_gui", "grid1000", "star-agentcpm-gui-v1"),
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
    sources=('QwenLM/Qwen3-VL cookbooks/2d_grounding.ipynb, computer_use: relative coordinates from 0 to 1000',)))

register_family(Family(
    'qwen2_vl', 'Qwen2-VL', 'grid1000',
    prompts=(
        GroundingPrompt('qwen2_vl', "grounding-qwen2-vl-v1",
            'Output the bounding box in the image corresponding to the instruction "{instruction}" with grounding.'),
    ),
    reader=_read_qwen2_vl,
    syntax='<|box_start|>(x1,y1),(x2,y2)<|box_end|>',
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
        GroundingPrompt('uground_v1', "grounding-uground-v1-v1",
            "Your task is to help the user identify the precise coordinates (x, y) of a specific area/element/object "
            "on the screen based on a description.\n\n- Your response should aim to point to the center or a "
            "representative point within the described area/element/object as accurately as possible.\n- If the "
            "description is unclear or ambiguous, infer the most relevant area or element based on its likely context "
            "or purpose.\n- Your answer should be a single string (x, y) corresponding to the point of the interest."
            "\n\nDescription: {instruction}\n\nAnswer:"),
    ),
    reader=_read_paren_pair,
    syntax='(x, y)',
    sources=('osunlp UGround-V1 model card (Qwen2-VL based): "(x, y)" on [0, 1000)',)))

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
    syntax='(x,y)',
    sources=('Yan98/GTA1 README.md (system prompt, AutoProcessor min/max pixels)',)))

register_family(Family(
    'infigui_g1', 'InfiGUI-G1', 'resized_px',
    budget='qwen2_5_vl',
    prompts=(
        GroundingPrompt('infigui_g1', "grounding-infigui-g1-v1",
            "The screen's resolution is {resized_width}x{resized_height}.\nLocate the UI element(s) for "
            '"{instruction}", output the coordinates using JSON format: [{{"point_2d": [x, y]}}, ...]'),
    ),
    reader=_read_infigui,
    syntax='[{"point_2d": [x, y]}]',
    sources=('InfiXAI/InfiGUI-G1 eval/prompts.py (non-thinking mode), eval/eval.py (resized resolution)',)))

register_family(Family(
    'ui_venus', 'UI-Venus-Ground', 'resized_px',
    budget='ui_venus',
    prompts=(
        GroundingPrompt('ui_venus', "grounding-ui-venus-v1",
            "Outline the position corresponding to the instruction: {instruction}. The output should be only [x1,y1,x2,y2]."),
    ),
    reader=_read_box,
    syntax='[x1,y1,x2,y2]',
    sources=('inclusionAI/UI-Venus models/grounding/ui_venus_ground_7b.py',)))

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
    syntax='(x,y)',
    sources=('njucckevin/SeeClick; likaixin2000/ScreenSpot-Pro-GUI-Grounding models/seeclick.py',)))

# JEDI_GROUNDER_SYS_PROMPT (mm_agents/prompts.py) could not be read here: the Qwen2.5-VL computer_use tool prompt stands in for it (docs/grounding_families.md)
register_family(Family(
    'jedi', 'JEDI', 'resized_px',
    budget='jedi',
    prompts=(
        GroundingPrompt('jedi', "grounding-jedi-computer-use-v1",
            _COMPUTER_USE_TEMPLATE + "\n\n{instruction}"),
    ),
    reader=_read_jedi,
    syntax='<tool_call>{"name": "computer_use", "arguments": {"coordinate": [x, y]}}</tool_call>',
    sources=('xlang-ai/OSWorld mm_agents/jedi_7b_agent.py (parse_jedi_response, max_pixels 2700*28*28)',)))

register_family(Family(
    'se_gui', 'SE-GUI', 'resized_px',
    budget='se_gui',
    prompts=(
        GroundingPrompt('se_gui', "grounding-se-gui-v1",
            _COMPUTER_USE_TEMPLATE + "\n{instruction}"),
    ),
    reader=_read_se_gui,
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
    syntax='<point>x, y</point>',
    visual='doc_to_visual_phi_ground',
    sources=('microsoft/Phi-Ground benchmark/test_screenspot_pro.py (process_task, get_results); README.md (process_image)',)))

# read as a grounding family (StaR), no grounding prompt of ours
register_family(Family(
    'gui_owl', 'GUI-Owl', 'resized_px',
    budget='gui_owl',
    syntax='mobile_use tool call',
    action_parser='gui_owl',
    reads_qwen_json=True,
    agent=AgentProtocol("gui_owl", "original_px", "star-gui-owl-v1"),
    sources=('X-PLUG/MobileAgent Mobile-Agent-v3 (mobile_use tool, resized pixels)', 'StaR appendix C Figure 10, A.5 (StaR-trained GUI-Owl: original pixels, the prompt states the original resolution)')))

# StaR A.5: GUI-R1 (on Qwen2.5-VL-7B) with its original prompt (ritzz-ai/GUI-R1 guir1/inference/), clicks in original
# pixels; its released checkpoints answer in pixels of the resized image (coordinate_frame resized_px, Qwen2.5-VL budget).
# An agent only: no grounding prompt or reading of ours.
register_family(Family(
            'gui_r1', 'GUI-R1', 'original_px',
    budget='qwen2_5_vl',
    agent=AgentProtocol("gui_r1", "original_px", "star-gui-r1-v1"),
    grounds=False,
    sources=("ritzz-ai/GUI-R1 guir1/inference/inference_vllm_android.py, inference_vllm_guiodyssey.py", "StaR A.5")))
