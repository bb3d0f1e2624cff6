"""GUI-R1 as an agent family (StaR A.5): its own prompt (ritzz-ai/GUI-R1 guir1/inference/), its answer format, its
official evaluation's reading (extract_action / extract_coord / extract_input_text), and its place in the StaR tasks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from star_layouts import data_envs
from gui_core.action_parsers import parse_action
from gui_core.action_parsers_r1 import _r1_input_text, _r1_official_point
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_tasks.star import agentic, agentic_task
from gui_core.agents import build_prompt, family, format_action, parse, scoring_geometry

FIX = Path(__file__).parent / "fixtures" / "star_agentic"

# guir1/inference/inference_vllm_android.py, the text it sends for instruction "open the clock" and no history
ANDROID_PROMPT = (
    "<image>\nYou are GUI-R1, a reasoning GUI Agent Assistant. In this UI screenshot <image>, I want you to continue "
    "executing the command 'open the clock', with the action history being 'None'.\n"
    "Please provide the action to perform (enumerate from ['wait', 'long_press', 'click', 'press_back', 'type', "
    "'open_app', 'scroll']), the point where the cursor is moved to (integer) if a click is performed, and any input "
    "text required to complete the action.\n"
    "Output the thinking process in <think> </think> tags, and the final answer in <answer> </answer> tags as follows:\n"
    "<think> ... </think> <answer>[{'action': enum['wait', 'long_press', 'click', 'press_back', 'type', 'open_app', "
    "'scroll'], 'point': [x, y], 'input_text': 'no input text [default]'}]</answer>\n"
    "Note:\n specific input text (no default) is necessary for actions enum['type', 'open_app', 'scroll'] \n Example:\n"
    "[{'action': enum['wait', 'press_back'], 'point': [-100, -100], 'input_text': 'no input text'}]\n"
    "[{'action': enum['click', 'long_press'], 'point': [123, 300], 'input_text': 'no input text'}]\n"
    "[{'action': enum['type', 'open_app'], 'point': [-100, -100], 'input_text': 'shanghai shopping mall'}]\n"
    "[{'action': enum['scroll'], 'point': [-100, -100], 'input_text': enum['up', 'left', 'right', 'down']}]")
# guir1/eval/eval_omni.py and guir1/inference/*.py: the patterns whose reading the official parser reproduces
OFFICIAL_COORD = re.compile(r"\{.*\[(\d+),\s*(\d+)]\s*.*\}")
OFFICIAL_TEXT = re.compile(r"'input_text':\s*'(.*?)'")


def test_prompt_is_gui_r1s_own_text():
    geo = Geometry.identity(1080, 2400)
    assert build_prompt("gui_r1", "open the clock", geo) == ANDROID_PROMPT
    odyssey = build_prompt("gui_r1", "open the clock", geo, meta={"dataset": "gui_odyssey"})
    assert ("(enumerate from ['press_back', 'press_recent', 'press_home', 'complete', 'long_press', 'scroll', 'click', "
            "'impossible', 'type'])") in odyssey
    assert "necessary for actions enum['type', 'scroll'] \n" in odyssey
    hist = [format_action(Action("CLICK", point=(500, 500), frame="grid1000"), "gui_r1", geo),
            format_action(Action("TYPE", text="alarm"), "gui_r1", geo)]
    text = build_prompt("gui_r1", "open the clock", geo, hist)
    assert ("with the action history being '[{'action': 'click', 'point': [540, 1200], 'input_text': 'no input text'}]; "
            "[{'action': 'type', 'point': [-100, -100], 'input_text': 'alarm'}]'.") in text


def test_answers_are_original_pixels_under_star_and_resized_pixels_for_released_checkpoints():
    assert family("gui_r1").frame == "original_px"  # StaR A.5: "set the click coordinates to original pixel coordinates"
    answer = "<think> x </think> <answer>[{'action': 'click', 'point': [540, 1200], 'input_text': 'no input text'}]</answer>"
    geo, rec = scoring_geometry("gui_r1", 1080, 2400, answer)
    assert parse(answer, "gui_r1").action.point_in("grid1000", geo) == pytest.approx((500, 500))
    released = {"coordinate_frame": "resized_px"}
    geo, rec = scoring_geometry("gui_r1", 1080, 2400, answer, meta=released)
    assert rec["frame"] == "resized_px" and rec["frame_source"] == "budget:qwen2_5_vl"
    assert parse(answer, "gui_r1", meta=released).action.frame == "resized_px"


def test_official_reading_differs_where_gui_r1s_code_does():
    double = '<answer>[{"action": "click", "point": [5, 6], "input_text": "no input text"}]</answer>'
    assert parse_action(double, "gui_r1").status == "parsed"
    assert parse_action(double, "gui_r1", reading="official").status == "malformed"  # 'action': '...' only
    no_point = "<answer>[{'action': 'click', 'point': [-100, -100], 'input_text': 'no input text'}]</answer>"
    got = parse_action(no_point, "gui_r1", reading="official")
    assert got.action.point == (0.0, 0.0) and "no point read" in got.detail  # extract_coord's [0, 0, 0, 0]
    assert parse_action(no_point, "gui_r1").action.point == (-100.0, -100.0)  # as written: off the screen
    two_lines = "<answer>[{'action': 'type',\n 'point': [1, 2], 'input_text': 'hi'}]</answer>"
    assert parse_action(two_lines, "gui_r1", reading="official").action == Action("TYPE", text="hi")
    with pytest.raises(ValueError, match="no official reading"):
        parse_action(no_point, "os_atlas", reading="official")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", "[", "]", "12", "3", ",", ", ", " ", "\n", "a", "[4, 5]", "{'p': [6,7]}"]),
                max_size=14))
def test_official_point_equals_gui_r1s_pattern(parts):
    text = "".join(parts)
    m = OFFICIAL_COORD.search(text)
    assert _r1_official_point(text) == (m.groups() if m else None)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["'input_text':", " ", "'", "ab", "\n", "'input_text': '", "x'"]), max_size=10))
def test_official_input_text_equals_gui_r1s_pattern(parts):
    text = "".join(parts)
    m = OFFICIAL_TEXT.search(text)
    assert _r1_input_text(text) == (m.group(1) if m else "no input text")


@pytest.fixture()
def data(monkeypatch):
    for name, env in data_envs().items():
        monkeypatch.setenv(env, str(FIX / name))


@pytest.mark.parametrize("dataset", ["androidcontrol", "aitz", "gui_odyssey"])
def test_star_agentic_tasks_prompt_and_score_gui_r1(data, dataset):
    docs = agentic_task.task_rows({"dataset": dataset, "agent_family": "gui_r1", "judge": "paper"})
    for doc in docs:
        assert agentic_task.score_response(doc, agentic_task.doc_to_target(doc))["exact"], doc["id"]
    text = agentic_task.doc_to_text(docs[-1])
    assert text.startswith("<image>\nYou are GUI-R1") and "with the action history being '[{'action': " in text
    assert ("press_recent" in text) == (dataset == "gui_odyssey")
    rec = agentic_task.score_response(docs[-1], "<answer>[{'action': 'swipe', 'point': [1, 2]}]</answer>")
    assert rec["status"] == "malformed" and not rec["type_match"]


def test_generated_tasks_wire_gui_r1_in():
    from gui_tasks.star.yaml_spec import render_all

    files = render_all()
    for task in ("star_androidcontrol_high_gui_r1", "star_aitz_gui_r1", "star_gui_odyssey_gui_r1", "star_state_control_gui_r1"):
        text = files[f"{task}.yaml"]
        assert "agent_family: gui_r1" in text and "coordinate_frame: original_px" in text and "resize_budget: qwen2_5_vl" in text
