"""StaR's UI-TARS and OS-Atlas step prompts are its ``dataPreprocessor/templates.py`` byte for byte (issue 35, item 4).

``fixtures/star_prompts/templates.json`` holds the cited source text (ZrW00/StaR, path and commit in the file; GPL-3.0,
short quotes of prompt text); the test compares what ``build_prompt`` sends with it, per dataset.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_core.agents import OS_ATLAS, build_prompt, format_action
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_tasks.star import lmms_task, own_history

SRC = json.loads((Path(__file__).parent / "fixtures" / "star_prompts" / "templates.json").read_text())
T = SRC["templates"]
GEO = Geometry.identity(1080, 2400)
DATASETS = {"androidcontrol": "ANDORIDCONTROL_UITARS_ACTION_PREDICTION_PROMPT", "aitz": "AITZ_UITARS_ACTION_PREDICTION_PROMPT",
            "gui_odyssey": "GUIODYSSEY_UITARS_ACTION_PREDICTION_PROMPT"}
ATLAS = {"androidcontrol": "ANDROIDCONTROL_ATLAS_ACTION_PREDICTION_PROMPT", "aitz": "AITZ_ATLAS_ACTION_PREDICTION_PROMPT",
         "gui_odyssey": "GUIODYSSEY_ATLAS_ACTION_PREDICTION_PROMPT"}


def test_fixture_cites_its_source():
    assert SRC["repo"] == "ZrW00/StaR" and SRC["path"] == "dataPreprocessor/templates.py" and len(SRC["commit"]) == 40


@pytest.mark.parametrize("fam", ["ui_tars", "ui_tars_1_5"])
@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_ui_tars_prompt_is_stars_template_for_the_dataset(dataset, fam):
    text = build_prompt(fam, "Open {the} clock", GEO, meta={"dataset": dataset})
    assert text == T[DATASETS[dataset]].format_map({"instruction": "Open {the} clock"})


def test_per_dataset_action_lists():
    ac, aitz, ody = (build_prompt("ui_tars", "g", GEO, meta={"dataset": d}) for d in ("androidcontrol", "aitz", "gui_odyssey"))
    assert "enter()" in aitz and "enter()" not in ac and "enter()" not in ody
    for word in ("long_press(", "open_app(", "wait()"):
        assert word in ac and word not in aitz
    assert "long_press(" in ody and "open_app(" not in ody and "wait()" not in ody
    assert build_prompt("ui_tars", "g", GEO, meta={"dataset": "synthetic"}) == ac  # every other dataset: AndroidControl's
    assert format_action(Action("PRESS_ENTER"), "ui_tars", GEO) == "enter()"  # translateAtlas2Uitars


def test_low_setting_ends_with_stars_prefilled_thought_and_history_follows_the_template():
    text = build_prompt("ui_tars", "g", GEO, ["press_back()"], "Tap Wi-Fi", meta={"dataset": "aitz"})
    template = T[DATASETS["aitz"]].format_map({"instruction": "g"})
    assert text == template + "\n## Action History\nStep 1: Action: press_back()\n" + "\nThought: Tap Wi-Fi\n"


@pytest.mark.parametrize("answer", ["Thought: x\nAction: hotkey(key='enter')", "Thought: x\nAction: left_double(start_box='(1,2)')",
                                    "Thought: x\nAction: call_user()", "Thought: x\nAction: Click(start_box='(1,2)')",
                                    "Thought: x\nAction:  click(start_box='(1,2)')", "no action at all"])
def test_answers_stars_translator_does_not_know_become_none_action_in_the_history(answer):
    assert own_history.history_entry(answer) == "Thought: \nAction: NoneAction"


def test_known_actions_keep_their_text_in_the_history():
    assert own_history.history_entry("Thought: go\nAction: enter()") == "Thought: go\nAction: enter()"
    assert own_history.history_entry("Action: click(start_box='(1,2)')", "Tap it") == "Thought: Tap it\nAction: click(start_box='(1,2)')"


def stars_atlas_inputs(dataset: str, goal: str, earlier: list[str], low: str | None) -> str:
    """preprocessors.py, ``self.model == "atlas"``: format_map with the list itself (AITZ's slot is ``PAD``), then the
    placeholder replaced by ``f"Current step instruction: {...}"`` (low_level) or ``""``."""
    key = "PAD" if dataset == "aitz" else "previousActions"
    inputs = T[ATLAS[dataset]].format_map({"finalGoal": goal, key: earlier})
    return inputs.replace("__LOW_LEVEL_PLACEHOLDER__", "" if low is None else f"Current step instruction: {low}")


@pytest.mark.parametrize("fam", ["os_atlas", "qwen2_vl"])
@pytest.mark.parametrize("low", [None, "Tap 'Wi-Fi' {now}"])
@pytest.mark.parametrize("dataset", sorted(ATLAS))
def test_os_atlas_prompt_is_stars_template_filled_as_its_preprocessor_does(dataset, low, fam):
    earlier = ["Open the Settings app", "Tap \"Network\" and it's there"]
    text = build_prompt(fam, "Turn {on} Wi-Fi", GEO, ["CLICK <point>[[1, 2]]</point>"] * 2, low, meta={"dataset": dataset},
                        instructions=earlier)
    assert text == stars_atlas_inputs(dataset, "Turn {on} Wi-Fi", earlier, low)


def test_os_atlas_history_is_the_python_list_of_earlier_instructions():
    first = build_prompt("os_atlas", "g", GEO, meta={"dataset": "androidcontrol"}, instructions=[])
    assert "\nFinal goal: g\nPrevious actions: []\n\nScreenshot: <image>\n" in first  # high: the placeholder is ""
    aitz = build_prompt("os_atlas", "g", GEO, [], "", meta={"dataset": "aitz"}, instructions=["it's", 'say "hi"'])
    assert "- **Previous Action Descriptions**: [\"it's\", 'say \"hi\"']\nCurrent step instruction: \n- **Screenshot**: <image>\n" in aitz
    with pytest.raises(ValueError, match="instructions"):  # never the actions in their place
        build_prompt("os_atlas", "g", GEO, ["PRESS_BACK"], meta={"dataset": "gui_odyssey"})


def test_os_atlas_per_dataset_action_lists():
    ac, aitz, ody = (build_prompt("os_atlas", "g", GEO, meta={"dataset": d}, instructions=[])
                     for d in ("androidcontrol", "aitz", "gui_odyssey"))
    assert "Custom Action 3: ENTER" in aitz and "ENTER" not in ac and "ENTER" not in ody
    for word in ("OPENAPP", "WAIT", "LONG_CLICK"):
        assert word in ac and word not in aitz
    assert "LONG_CLICK" in ody and "OPENAPP" not in ody and "WAIT" not in ody and "IMPOSSIBLE" not in ody


def test_other_datasets_keep_the_papers_figure_8_prompt():
    text = build_prompt("os_atlas", "g", GEO, ["PRESS_BACK"], "Tap it", meta={"dataset": "synthetic"})
    assert text == OS_ATLAS.format(goal="g", history="Step 1: PRESS_BACK", low_level="Low-level instruction: Tap it\n")
    assert build_prompt("os_atlas", "g", GEO) == OS_ATLAS.format(goal="g", history="None", low_level="")


def test_official_state_control_sends_stars_state_template_with_history_null():
    doc = {"agent_family": "os_atlas", "instruction": "Turn {on} Wi-Fi", "image_width": 1080, "image_height": 2400,
           "source": "official"}
    want = T["STATE_ACTION_PREDICT_PROMPT_ATLAS"].format_map({"finalGoal": "Turn {on} Wi-Fi", "history": "null"})
    assert lmms_task.doc_to_text(doc) == want
    assert "\nFinal goal: Turn {on} Wi-Fi\nHistory: null\nScreenshot: <image>\n" in want
    # the synthetic state-control rows keep the paper's Figure 8 prompt
    assert lmms_task.doc_to_text({**doc, "source": "synthetic"}) == OS_ATLAS.format(goal="Turn {on} Wi-Fi", history="None", low_level="")
