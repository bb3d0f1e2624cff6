"""StaR's UI-TARS step prompts are its ``dataPreprocessor/templates.py`` byte for byte (issue 35, item 4).

``fixtures/star_prompts/templates.json`` holds the cited source text (ZrW00/StaR, path and commit in the file; GPL-3.0,
short quotes of prompt text); the test compares what ``build_prompt`` sends with it, per dataset.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_core.agents import build_prompt, format_action
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_tasks.star import own_history

SRC = json.loads((Path(__file__).parent / "fixtures" / "star_prompts" / "templates.json").read_text())
T = SRC["templates"]
GEO = Geometry.identity(1080, 2400)
DATASETS = {"androidcontrol": "ANDORIDCONTROL_UITARS_ACTION_PREDICTION_PROMPT", "aitz": "AITZ_UITARS_ACTION_PREDICTION_PROMPT",
            "gui_odyssey": "GUIODYSSEY_UITARS_ACTION_PREDICTION_PROMPT"}


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
