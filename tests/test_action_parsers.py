"""Action parsers for each agent family (formats of StaR appendix C), and robustness to arbitrary text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.action_parsers import PARSERS, SCROLL_SEMANTICS, parse_action, register_parser
from gui_core.actions import Action

CASES = [
    ("os_atlas", "Thought: the Wi-Fi toggle is off.\nAction: CLICK <point>[[915.8, 252.2]]</point>",
     Action("CLICK", point=(915.8, 252.2), frame="grid1000")),
    ("os_atlas", "Action: LONG_CLICK <point>[[101, 872]]</point>", Action("LONG_PRESS", point=(101.0, 872.0), frame="grid1000")),
    ("os_atlas", "Thought: type it\nAction: TYPE [Shanghai shopping mall]", Action("TYPE", text="Shanghai shopping mall")),
    ("os_atlas", "Action: SCROLL [UP]", Action("SCROLL", direction="UP")),
    ("os_atlas", "Action: OPENAPP Zoho Meeting", Action("OPENAPP", text="Zoho Meeting")),
    ("os_atlas", "Thought: the toggle is already on.\nAction: COMPLETE", Action("COMPLETE")),
    ("os_atlas", "Action: PRESS_BACK", Action("PRESS_BACK")),
    ("ui_tars", "Thought: Tap the switch.\nAction: click(start_box='<|box_start|>(912,250)<|box_end|>')",
     Action("CLICK", point=(912.0, 250.0), frame="grid1000")),
    ("ui_tars", "Action: click(start_box='(100,200,300,400)')", Action("CLICK", point=(200.0, 300.0), frame="grid1000")),
    ("ui_tars_1_5", "Action: long_press(start_box='<|box_start|>(56,770)<|box_end|>', time='')",
     Action("LONG_PRESS", point=(56.0, 770.0), frame="resized_px")),
    ("ui_tars", "Action: type(content='hello world')", Action("TYPE", text="hello world")),
    ("ui_tars", "Action: scroll(direction='down')", Action("SCROLL", direction="DOWN")),
    ("ui_tars", "Action: open_app(app_name='Settings')", Action("OPENAPP", text="Settings")),
    ("ui_tars", "Thought: done.\nAction: finished()", Action("COMPLETE")),
    ("agentcpm_gui", '{"thought":"打开开关","POINT":[915,252]}', Action("CLICK", point=(915.0, 252.0), frame="grid1000")),
    # AgentCPM-GUI's "to" is the finger's movement: a finger moving up scrolls down (the family's default reading)
    ("agentcpm_gui", '{"POINT":[500,800],"to":"up"}', Action("SCROLL", direction="DOWN")),
    ("agentcpm_gui", '{"POINT":[500,800],"duration":1500}', Action("LONG_PRESS", point=(500.0, 800.0), frame="grid1000")),
    ("agentcpm_gui", '{"TYPE":"北京"}', Action("TYPE", text="北京")),
    ("agentcpm_gui", '{"PRESS":"BACK"}', Action("PRESS_BACK")),
    ("agentcpm_gui", '{"thought":"已经打开","STATUS":"satisfied"}', Action("COMPLETE")),
    ("agentcpm_gui", '{"STATUS":"impossible"}', Action("IMPOSSIBLE")),
    ("agentcpm_gui", '{"duration":1000}', Action("WAIT")),
    ("gui_owl", '<think>toggle is off</think>\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", '
                '"coordinate": [377, 185]}}\n</tool_call>\n<conclusion>Tap Wi-Fi.</conclusion>',
     Action("CLICK", point=(377.0, 185.0), frame="resized_px")),
    ("gui_owl", '<tool_call>{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [200, 600], '
                '"coordinate2": [200, 200]}}</tool_call>', Action("SCROLL", direction="DOWN")),  # finger up: scroll down
    ("gui_owl", '<tool_call>{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Home"}}</tool_call>',
     Action("PRESS_HOME")),
    ("gui_owl", '<tool_call>{"name": "mobile_use", "arguments": {"action": "terminate", "status": "success"}}</tool_call>',
     Action("COMPLETE")),
    ("qwen2_5_vl", '<tool_call>{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}}</tool_call>',
     Action("OPENAPP", text="Clock")),
    ("generic", "Action: CLICK <point>[[10, 20]]</point>", Action("CLICK", point=(10.0, 20.0), frame="grid1000")),
]


@pytest.mark.parametrize("family, text, expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_real_looking_outputs_parse(family, text, expected):
    res = parse_action(text, family)
    assert (res.status, res.action) == ("parsed", expected), res.detail


def test_gesture_to_scroll_is_a_named_choice():
    assert parse_action('{"POINT":[500,800],"to":"up"}', "agentcpm_gui", gesture_to_scroll="same").action == Action("SCROLL", direction="UP")
    assert "gesture_to_scroll=same" in parse_action('{"POINT":[5,8],"to":"up"}', "agentcpm_gui", gesture_to_scroll="same").detail
    assert "gesture_to_scroll=inverse" in parse_action('{"POINT":[5,8],"to":"up"}', "agentcpm_gui").detail


@pytest.mark.parametrize("family, text", [
    ("os_atlas", "Action: CLICK somewhere near the top"),
    ("ui_tars", "Action: click(start_box='(nan,1)')"),
    ("agentcpm_gui", '{"POINT":[1]}'),
    ("gui_owl", '<tool_call>{"name": "mobile_use", "arguments": {"action": "key", "text": "volume_up"}}</tool_call>'),
    ("gui_owl", "<tool_call>{broken</tool_call>"),
    ("generic", "I am not sure what to do."),
])
def test_format_errors_are_classified(family, text):
    res = parse_action(text, family)
    assert res.status == "malformed" and res.action is None and res.detail


@pytest.mark.parametrize("family", sorted(PARSERS))
def test_empty_output_is_empty(family):
    assert parse_action("  ", family).status == "empty"
    assert parse_action(None, family).status == "empty"


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300), family=st.sampled_from(sorted(PARSERS)))
def test_arbitrary_text_never_raises(text, family):
    res = parse_action(text, family)
    assert res.status in {"parsed", "malformed", "empty"} and (res.action is None) == (res.status != "parsed")


def test_unknown_family_and_duplicate_registration():
    with pytest.raises(ValueError, match="no action parser"):
        parse_action("x", "nope")
    with pytest.raises(ValueError, match="already registered"):
        register_parser("os_atlas", scroll="scroll")(lambda text, **kw: None)
    with pytest.raises(ValueError, match="scroll semantics 'sideways' unknown"):
        register_parser("acme_sideways", scroll="sideways")


def test_third_party_parser_registration():
    @register_parser("acme_agent", scroll="finger")
    def parse_acme(text, *, gesture_to_scroll="same"):  # parsers receive the family's resolved scroll reading
        from gui_core.action_parsers import ParsedAction

        return ParsedAction(Action("WAIT"), "parsed", "acme_agent") if text == "zzz" else ParsedAction(None, "malformed", "acme_agent", "?")

    try:
        assert parse_action("zzz", "acme_agent").action == Action("WAIT")
        assert SCROLL_SEMANTICS["acme_agent"] == "finger"  # declared with the parser, one place
    finally:
        PARSERS.pop("acme_agent")
        SCROLL_SEMANTICS.pop("acme_agent")


@settings(max_examples=100, deadline=None)
@given(x=st.integers(-10**8, 10**8), y=st.integers(0, 1000), fam=st.sampled_from(["os_atlas", "ui_tars", "agentcpm_gui", "gui_owl"]))
def test_a_written_point_parses_to_itself_unless_absurd(x, y, fam):
    text = {"os_atlas": f"Action: CLICK <point>[[{x}, {y}]]</point>",
            "ui_tars": f"Action: click(start_box='({x},{y})')",
            "agentcpm_gui": f'{{"POINT":[{x},{y}]}}',
            "gui_owl": f'<tool_call>{{"name": "mobile_use", "arguments": {{"action": "click", "coordinate": [{x}, {y}]}}}}</tool_call>'}[fam]
    res = parse_action(text, fam)
    if abs(x) <= 1e6:
        assert res.status == "parsed" and res.action.point == (float(x), float(y))
    else:  # beyond MAX_COORD: a format error, not a point far off screen
        assert res.status == "malformed" and res.action is None


@pytest.mark.parametrize("family", ["os_atlas", "ui_tars", "ui_tars_1_5", "agentcpm_gui", "gui_owl", "qwen2_5_vl"])
def test_the_family_reading_of_scroll_words_is_named_in_detail_or_semantics(family):
    from gui_core.action_parsers import SCROLL_SEMANTICS, default_gesture_to_scroll

    assert SCROLL_SEMANTICS[family] in ("scroll", "finger")
    assert default_gesture_to_scroll(family) == ("inverse" if SCROLL_SEMANTICS[family] == "finger" else "same")


def test_the_official_reading_only_changes_agentcpm_gui():
    text = "Action: CLICK <point>[[1, 2]]</point>"
    assert parse_action(text, "os_atlas", reading="star_official") == parse_action(text, "os_atlas")
    assert parse_action('{"STATUS":"satisfied"}', "agentcpm_gui", reading="star_official").status == "malformed"
    with pytest.raises(ValueError, match="unknown reading"):
        parse_action(text, "os_atlas", reading="nope")
