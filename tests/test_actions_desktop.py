"""The desktop actions of GUI Knowledge Bench (appendix A.3) in the typed action space: call syntax and matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.action_match import match
from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS, Action, from_call, to_call
from gui_core.coords import Geometry

GEO = Geometry(1000, 1000, 1000, 1000)


@pytest.mark.parametrize("call, action", [
    ("click(point='120 480')", Action("CLICK", point=(120, 480), frame="original_px")),
    ("left_double(point='5 6')", Action("DOUBLE_CLICK", point=(5, 6), frame="original_px")),
    ("right_single(point='7 8')", Action("RIGHT_CLICK", point=(7, 8), frame="original_px")),
    ("drag(start_point='1 2', end_point='30 40')", Action("DRAG", point=(1, 2), end_point=(30, 40), frame="original_px")),
    ("hotkey(key='ctrl c')", Action("HOTKEY", text="ctrl c")),
    ("type(content='hello world')", Action("TYPE", text="hello world")),
    ("scroll(point='500 600', direction='down')", Action("SCROLL", point=(500, 600), frame="original_px", direction="DOWN")),
    ("long_press(point='9 9')", Action("LONG_PRESS", point=(9, 9), frame="original_px")),
])
def test_call_syntax_round_trips(call, action):
    assert from_call(call, "original_px") == action
    assert to_call(action) == call


def test_platform_action_spaces_are_seven_and_four():
    assert len(DESKTOP_CALLS) == 7 and len(MOBILE_CALLS) == 4 and set(MOBILE_CALLS) - set(DESKTOP_CALLS) == {"long_press"}


@pytest.mark.parametrize("bad", ["click()", "wave(point='1 2')", "click(point='1')", "drag(start_point='1 2')", ""])
def test_malformed_calls_raise_value_error(bad):
    with pytest.raises(ValueError):
        from_call(bad, "original_px")


def test_scroll_with_a_point_matches_by_direction_and_drag_by_both_ends():
    gold = Action("SCROLL", point=(500, 500), frame="grid1000", direction="UP")
    assert match(Action("SCROLL", direction="UP"), gold, GEO).exact
    assert not match(Action("SCROLL", point=(500, 500), frame="grid1000", direction="DOWN"), gold, GEO).exact
    drag = Action("DRAG", point=(100, 100), end_point=(800, 800), frame="grid1000")
    assert match(Action("DRAG", point=(110, 100), end_point=(800, 790), frame="grid1000"), drag, GEO).exact
    assert not match(Action("DRAG", point=(800, 800), end_point=(100, 100), frame="grid1000"), drag, GEO).exact  # reversed
    assert match(Action("HOTKEY", text="C ctrl"), Action("HOTKEY", text="ctrl c"), GEO).exact


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["click", "left_double", "right_single", "long_press"]), st.integers(0, 4000), st.integers(0, 4000))
def test_point_calls_round_trip(name, x, y):
    call = f"{name}(point='{x} {y}')"
    assert to_call(from_call(call, "original_px")) == call
