"""StaR prompting baselines (appendix C, Figures 11-13) selected by name as interventions."""

from __future__ import annotations

import pytest

from gui_interventions import available, build_run
from gui_interventions.payloads import RequestContext
from gui_interventions.star_prompting import GT_STATE, STAR_STYLE, STATE_FOCUSED, state_word

DOC = {"posInstruction": "turn wifi on", "annotation": {"feature": "Wi-Fi", "state_before_action": 0}}


def req(doc=DOC) -> RequestContext:
    return RequestContext(text="AGENT PROMPT", images=(), doc_id=0, task="t", gen_kwargs={}, doc=doc)


def test_all_four_baselines_are_entry_point_plugins():
    assert {"star_state_focused", "star_style", "star_gt_state", "star_gt_state_star"} <= set(available())


def test_state_focused_and_star_style_append_the_paper_text():
    assert build_run("star_state_focused").request(req()).text == "AGENT PROMPT\n" + STATE_FOCUSED
    assert build_run("star_style").request(req()).text == "AGENT PROMPT\n" + STAR_STYLE
    assert STATE_FOCUSED.startswith("Supplementary Notes for State Reasoning") and "`{feature}`" in STAR_STYLE


def test_ground_truth_state_reads_the_document():
    assert build_run("star_gt_state").request(req()).text == "AGENT PROMPT\nNote\nThe target toggle is currently off on the screen."
    both = build_run("star_gt_state_star").request(req()).text
    assert both == "AGENT PROMPT\n" + GT_STATE.format(state="off") + "\n" + STAR_STYLE
    flat = build_run("star_gt_state", {"star_gt_state.field": "on_now"}).request(req({"on_now": True})).text
    assert flat.endswith("currently on on the screen.")


def test_missing_ground_truth_field_is_a_clear_error():
    with pytest.raises(ValueError, match="annotation.state_before_action"):
        build_run("star_gt_state").request(req({"annotation": {}}))


@pytest.mark.parametrize("value, word", [(True, "on"), (0, "off"), ("1", "on"), ("unchecked", "off"), ("ON", "on")])
def test_state_words(value, word):
    assert state_word(value) == word
