"""Typed actions and step-wise matching (StaR appendix A.2; AITW rule as a named alternative)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.action_match import (AITW, aitw_grown, STAR_AGENTIC, STAR_STATE_CONTROL, app_names_match, classify_touch, match,
                                     points_match)
from gui_core.actions import Action
from gui_core.coords import Geometry

G = Geometry.identity(1000, 2000)


def click(x, y, frame="grid1000"):
    return Action("CLICK", point=(x, y), frame=frame)


def test_click_inside_the_gold_box_matches_even_when_far():
    box = (800, 200, 1000, 300)  # a wide toggle row
    assert match(click(810, 210), click(990, 290), G, rule=STAR_STATE_CONTROL, boxes=[box]).exact
    assert not match(click(810, 310), click(990, 290), G, rule=STAR_STATE_CONTROL, boxes=[box]).exact


def test_click_distance_thresholds_40_and_140():
    gold = click(500, 500)
    assert match(click(524, 532), gold, G, rule=STAR_STATE_CONTROL).exact  # d = 40 exactly
    assert not match(click(525, 532), gold, G, rule=STAR_STATE_CONTROL).exact  # d = 40.4
    assert match(click(584, 612), gold, G, rule=STAR_AGENTIC).exact  # d = 140
    assert not match(click(585, 612), gold, G, rule=STAR_AGENTIC).exact


def test_points_in_other_frames_are_converted_not_guessed():
    g = Geometry.qwen(1080, 2400)  # resized to 672 x 1484
    gold = click(500, 250)
    assert match(Action("CLICK", point=(336, 371), frame="resized_px"), gold, g, rule=STAR_STATE_CONTROL).exact
    assert match(Action("CLICK", point=(540, 600), frame="original_px"), gold, g, rule=STAR_STATE_CONTROL).exact
    assert match(Action("CLICK", point=(0.5, 0.25), frame="relative"), gold, g, rule=STAR_STATE_CONTROL).exact


def test_text_app_scroll_and_parameterless_rules():
    assert match(Action("TYPE", text="  Hello World "), Action("TYPE", text="hello world"), G).exact
    assert not match(Action("TYPE", text="hello"), Action("TYPE", text="hello world"), G).exact
    assert match(Action("OPENAPP", text="voice recorder"), Action("OPENAPP", text="Voice Recorder-Unrecorder"), G).exact
    assert match(Action("OPENAPP", text="the flipsnack magazine app"), Action("OPENAPP", text="Flipsnack"), G).exact
    assert match(Action("OPENAPP", text="Recording"), Action("OPENAPP", text="recordings"), G).exact  # stems
    assert not match(Action("OPENAPP", text="Maps"), Action("OPENAPP", text="Gmail"), G).exact
    assert match(Action("SCROLL", direction="UP"), Action("SCROLL", direction="UP"), G).exact
    down = match(Action("SCROLL", direction="DOWN"), Action("SCROLL", direction="UP"), G)
    assert down.type_match and not down.exact
    assert match(Action("COMPLETE"), Action("COMPLETE"), G).exact


def test_type_mismatch_and_unparseable_predictions():
    res = match(Action("COMPLETE"), click(1, 1), G, rule=STAR_STATE_CONTROL)
    assert (res.type_match, res.exact, res.rule) == (False, False, "star-a2-d40")
    unparsed = match(None, Action("COMPLETE"), G)
    assert (unparsed.type_match, unparsed.exact) == (False, False)


def test_aitw_rule_grows_boxes_to_240_percent_and_uses_relative_distance():
    box = (400, 400, 500, 450)  # action_matching.py: "1.4 == 240% total increase": 330..570 x 365..485
    assert aitw_grown(box) == pytest.approx((330, 365, 570, 485))
    assert points_match((565, 482), (335, 368), [box], AITW)  # d = 0.257 > 0.14: only the 2.4x box holds both
    assert not points_match((575, 482), (335, 368), [box], AITW)
    assert points_match((505, 455), (450, 425), [box], AITW)
    assert not points_match((505, 455), (450, 425), [box], STAR_STATE_CONTROL)
    assert points_match((0, 0), (0, 140), [], AITW) and not points_match((0, 0), (0, 141), [], AITW)


def test_aitw_grown_box_keeps_its_size_when_clamped_at_the_top():
    # _resize_annotation_bounding_boxes clamps top at 0 and the height at 1, not the bottom edge
    assert aitw_grown((100, 0, 200, 100)) == pytest.approx((30, 0, 270, 240))


def test_aitw_drags_match_on_the_main_axis_and_typed_text_is_never_compared():
    up, down, left = Action("SCROLL", direction="UP"), Action("SCROLL", direction="DOWN"), Action("SCROLL", direction="LEFT")
    assert match(down, up, G, rule=AITW).exact and not match(left, up, G, rule=AITW).exact
    assert match(Action("TYPE", text="cats"), Action("TYPE", text="dogs"), G, rule=AITW).exact
    assert not match(Action("TYPE", text="cats"), Action("TYPE", text="dogs"), G).exact  # StaR A.2 compares text


def test_aitw_tap_and_drag_split():
    assert classify_touch((0.5, 0.5), (0.52, 0.53)) == ("tap", None)
    assert classify_touch((0.5, 0.8), (0.5, 0.2)) == ("drag", "UP")
    assert classify_touch((0.2, 0.5), (0.9, 0.55)) == ("drag", "RIGHT")


@pytest.mark.parametrize("kwargs", [dict(type="CLICK"), dict(type="CLICK", point=(1, 1)), dict(type="TYPE"),
                                    dict(type="SCROLL", direction="NORTH"), dict(type="COMPLETE", text="x"), dict(type="SWIPE")])
def test_malformed_actions_are_rejected(kwargs):
    with pytest.raises(ValueError):
        Action(**kwargs)


@settings(deadline=None)
@given(x=st.floats(0, 1000), y=st.floats(0, 1000))
def test_a_point_always_matches_itself_in_every_frame(x, y):
    g = Geometry.qwen(1080, 2400)
    gold = click(x, y)
    for frame in ("relative", "resized_px", "original_px"):
        pred = Action("CLICK", point=gold.point_in(frame, g), frame=frame)
        assert match(pred, gold, g, rule=STAR_STATE_CONTROL).exact


def test_app_names_need_content():
    assert not app_names_match("", "Gmail") and not app_names_match("!!", "")
