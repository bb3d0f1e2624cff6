"""Coordinate frames as real checkpoints use them: the size the processor really fed the model, the named budgets
of released checkpoints, exact conversions, and scoring that reads a stub response's ``model_image_sizes``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.coords import BUDGETS, FRAMES, Geometry, budget, convert, model_geometry, reported_size
from gui_core.logit_capture import CapturedResponse
from gui_tasks.grounding.score import ScoreParams, score_response


def _processor(min_pixels: int, max_pixels: int):
    from transformers import Qwen2VLImageProcessor

    return Qwen2VLImageProcessor(min_pixels=min_pixels, max_pixels=max_pixels,
                                 size={"shortest_edge": min_pixels, "longest_edge": max_pixels})


def _seen_by(processor, width: int, height: int) -> tuple[int, int]:
    """(width, height) the processor really feeds the model: its patch grid times the 14-px patch."""
    from PIL import Image

    out = processor(images=[Image.new("RGB", (width, height), (200, 200, 200))], return_tensors="np")
    _, gh, gw = (int(v) for v in out["image_grid_thw"][0])
    return gw * processor.patch_size, gh * processor.patch_size


# --- budgets of released checkpoints -----------------------------------------------------------------------------------


def test_released_budgets_are_the_published_numbers():
    assert (BUDGETS["qwen2_5_vl"].min_pixels, BUDGETS["qwen2_5_vl"].max_pixels) == (3136, 12845056)
    assert (BUDGETS["ui_tars_1_5"].min_pixels, BUDGETS["ui_tars_1_5"].max_pixels) == (100 * 28 * 28, 16384 * 28 * 28)
    assert BUDGETS["gui_owl"].max_pixels == 12800 * 28 * 28 == 10035200
    assert budget("qwen2_5_vl", max_pixels=12845056) is BUDGETS["qwen2_5_vl"]  # the same numbers are no override
    assert budget("qwen2_5_vl", max_pixels=1003520).name == "qwen2_5_vl+override"
    with pytest.raises(ValueError, match="unknown resize budget"):
        budget("qwen9")


@pytest.mark.parametrize("width, height, want", [(1920, 1080, (1932, 1092)), (3840, 2160, (3836, 2156))])
def test_the_real_qwen2_5_vl_processor_resizes_as_the_budget_says(width, height, want):
    # Qwen2.5-VL's budget holds 4K: both sides rounded to multiples of 28 (1920 -> 1932, 1080 -> 1092; 3840 -> 3836).
    b = BUDGETS["qwen2_5_vl"]
    assert _seen_by(_processor(b.min_pixels, b.max_pixels), width, height) == want == b.resized(width, height)
    # the Qwen2-VL class default budget would have squeezed it to about a million pixels
    assert BUDGETS["qwen2_vl_class_default"].resized(width, height) != want


# --- exact conversions -------------------------------------------------------------------------------------------------


def test_equal_frames_are_the_identity():
    g = Geometry.identity(1080, 2400)
    values = [i / 10 for i in range(10001)]  # every one-decimal value on the 0-1000 grid
    assert all(convert((v, v), "grid1000", "grid1000", g) == (v, v) for v in values)
    same = Geometry(1000, 1000, 1000, 1000)
    assert all(convert((v, v), "resized_px", "original_px", same) == (v, v) for v in values)
    assert convert((40.0, 40.0), "original_px", "original_px", g) == (40.0, 40.0)


sizes = st.integers(min_value=1, max_value=7680)


@settings(max_examples=300, deadline=None)
@given(x=st.floats(-2, 2), y=st.floats(-2, 2), src=st.sampled_from(FRAMES), dst=st.sampled_from(FRAMES),
       ow=sizes, oh=sizes, rw=sizes, rh=sizes)
def test_any_point_goes_between_frames_and_back_exactly(x, y, src, dst, ow, oh, rw, rh):
    """Sizes up to 8K (7680 px): there and back within 1e-6 of the start, in every pair of frames."""
    g = Geometry(ow, oh, rw, rh)
    start = convert((x, y), "relative", src, g)
    back = convert(convert(start, src, dst, g), dst, src, g)
    assert back == pytest.approx(start, abs=1e-6, rel=0)


# --- which size a score uses -------------------------------------------------------------------------------------------


def test_the_reported_size_wins_and_a_bad_report_falls_back_to_the_budget():
    g, info = model_geometry("resized_px", 1920, 1080, model_size=[280, 168], fallback=BUDGETS["qwen2_5_vl"])
    assert (g.resized_width, g.resized_height, info["frame_source"]) == (280, 168, "model_image_sizes")
    g, info = model_geometry("resized_px", 1920, 1080, model_size=None, fallback=BUDGETS["qwen2_5_vl"])
    assert (g.resized_width, g.resized_height, info["frame_source"]) == (1932, 1092, "budget:qwen2_5_vl")
    assert model_geometry("grid1000", 10, 10)[1]["frame_source"] == "not_needed"
    assert reported_size([[280, 168]]) == [280, 168]
    assert reported_size([[280.5, 168]]) is None and reported_size([]) is None and reported_size("x") is None
    assert reported_size([[0, 168]]) is None and reported_size([[1, 2]], 3) is None


def _board(width: int, height: int) -> dict:
    # a 60x40 px target in the lower right quarter
    return {"id": "b", "split": "icon", "source": "synthetic", "width": width, "height": height,
            "target_box": [width * 0.7, height * 0.7, width * 0.7 + 60, height * 0.7 + 40], "other_boxes": None}


@pytest.mark.parametrize("width, height", [(1920, 1080), (3840, 2160)])
def test_a_qwen2_5_vl_answer_at_the_resized_target_centre_is_correct(width, height):
    doc = _board(width, height)
    b = BUDGETS["qwen2_5_vl"]
    mw, mh = _seen_by(_processor(b.min_pixels, b.max_pixels), width, height)
    cx, cy = (doc["target_box"][0] + 30) * mw / width, (doc["target_box"][1] + 20) * mh / height
    params = ScoreParams(family="qwen2_5_vl")
    answer = json.dumps([{"bbox_2d": [round(cx) - 5, round(cy) - 5, round(cx) + 5, round(cy) + 5], "label": "target"}])
    reported = score_response(doc, CapturedResponse(answer, extras={"model_image_sizes": [[mw, mh]]}), params)
    assert reported["correct"] and reported["frame_source"] == "model_image_sizes" and reported["model_size"] == [mw, mh]
    fallback = score_response(doc, answer, params)  # a backend that reports nothing: the released budget
    assert fallback["correct"] and fallback["frame_source"] == "budget:qwen2_5_vl"
    assert fallback["budget"] == {"name": "qwen2_5_vl", "min_pixels": 3136, "max_pixels": 12845056, "factor": 28}
    # the old assumption (Qwen2-VL class default, ~1 Mpx) puts the same answer far off the target
    old = score_response(doc, answer, ScoreParams(family="qwen2_5_vl", resize_budget="qwen2_vl_class_default"))
    assert not old["correct"]


def test_ui_tars_1_5_points_use_its_documented_budget():
    doc = _board(1920, 1080)
    w, h = BUDGETS["ui_tars_1_5"].resized(1920, 1080)
    x, y = (doc["target_box"][0] + 30) * w / 1920, (doc["target_box"][1] + 20) * h / 1080
    rec = score_response(doc, f"Action: click(point='<point>{round(x)} {round(y)}</point>')", ScoreParams(family="ui_tars_1_5"))
    assert rec["correct"] and rec["frame_source"] == "budget:ui_tars_1_5"


def test_a_tiny_checkpoint_with_its_own_budget_is_scored_in_the_frame_it_used(tiny_qwen2_5_vl):
    from transformers import AutoProcessor

    processor = AutoProcessor.from_pretrained(tiny_qwen2_5_vl).image_processor
    doc = _board(1920, 1080)
    mw, mh = _seen_by(processor, 1920, 1080)
    assert mw * mh <= 64 * 28 * 28 and (mw, mh) != BUDGETS["qwen2_5_vl"].resized(1920, 1080)  # not the class default
    x, y = (doc["target_box"][0] + 30) * mw / 1920, (doc["target_box"][1] + 20) * mh / 1080
    answer = CapturedResponse(json.dumps({"point_2d": [x, y]}), extras={"model_image_sizes": [[mw, mh]]})
    rec = score_response(doc, answer, ScoreParams(family="qwen2_5_vl"))
    assert rec["correct"] and rec["model_size"] == [mw, mh]
    assert not score_response(doc, str(answer), ScoreParams(family="qwen2_5_vl"))["correct"]  # without the report


def test_star_scoring_reads_the_current_screenshot_size():
    from gui_core.actions import Action
    from gui_tasks.star import agentic_task
    from gui_tasks.star.schema import action_to_json

    doc = {"id": "s", "dataset": "synthetic", "episode_id": "e1", "action_category": "click", "image_width": 1080, "image_height": 2400,
           "gold": action_to_json(Action("CLICK", point=(500.0, 250.0), frame="grid1000")), "boxes": [],
           "agent_family": "qwen2_5_vl", "match_rule": "star-a2-d140", "gesture_to_scroll": "same",
           "output_gesture_to_scroll": "", "resize_budget": "", "min_pixels": 0, "max_pixels": 0, "parser_reading": "schema"}
    call = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [140, 70]}}</tool_call>'
    # history screenshots come first; the current one (last) was fed at 280x280
    rec = agentic_task.score_response(doc, CapturedResponse(call, extras={"model_image_sizes": [[28, 56], [280, 280]]}))
    assert rec["exact"] and rec["frame_source"] == "model_image_sizes" and rec["model_size"] == [280, 280]
    assert rec["scroll_semantics"] == "finger"
    fallback = agentic_task.score_response(doc, call)
    assert fallback["frame_source"] == "budget:qwen2_5_vl" and not fallback["exact"]


def test_gui_owl_reads_original_pixels_under_star_and_resized_pixels_when_the_task_says_so():
    from gui_core.actions import Action
    from gui_tasks.star import agentic_task
    from gui_tasks.star.schema import action_to_json

    doc = {"id": "s", "dataset": "synthetic", "episode_id": "e1", "action_category": "click", "image_width": 1080, "image_height": 2400,
           "gold": action_to_json(Action("CLICK", point=(500.0, 250.0), frame="grid1000")), "boxes": [],
           "agent_family": "gui_owl", "match_rule": "star-a2-d140", "gesture_to_scroll": "same",
           "output_gesture_to_scroll": "", "coordinate_frame": "", "resize_budget": "", "min_pixels": 0, "max_pixels": 0,
           "parser_reading": "schema"}
    star = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [540, 600]}}</tool_call>'
    rec = agentic_task.score_response(doc, CapturedResponse(star, extras={"model_image_sizes": [[280, 616]]}))
    assert rec["exact"] and rec["frame"] == "original_px" and rec["frame_source"] == "not_needed"  # StaR A.5
    released = {**doc, "coordinate_frame": "resized_px"}
    w, h = BUDGETS["gui_owl"].resized(1080, 2400)
    call = star.replace("[540, 600]", f"[{w / 2}, {h / 4}]")
    rec = agentic_task.score_response(released, call)
    assert rec["exact"] and rec["frame_source"] == "budget:gui_owl" and rec["model_size"] == [w, h]
    assert f"resolution is {w}x{h}" in agentic_task.doc_to_text({**released, "history_actions": [], "low_level": "",
                                                                  "setting": "high", "goal": "g"})


def test_gui_hf_reports_the_size_its_processor_fed_and_scoring_uses_it(tiny_qwen2_5_vl):
    """The whole chain on a real checkpoint: gui_hf runs the tiny Qwen2.5-VL (its own 4..64x28x28 budget, not the
    class default) on a 1920x1080 board, reports the resized size, and an answer in that frame scores correct."""
    from lmms_eval.api.instance import Instance
    from PIL import Image

    from gui_models.hf_backend import GuiHF
    from gui_core.logit_capture import extras_of

    lm = GuiHF(pretrained=str(tiny_qwen2_5_vl), device="cpu")
    doc = _board(1920, 1080)
    lm.task_dict = {"t": {"test": [doc]}}
    req = Instance("generate_until", ("Where is the icon?", {"max_new_tokens": 3},
                                      lambda d: [Image.new("RGB", (d["width"], d["height"]), (200, 200, 200))], 0, "t", "test"),
                   0, {"task": "t", "doc_id": 0, "repeats": 1})
    reported = extras_of(lm.generate_until([req])[0])
    mw, mh = _seen_by(lm.processor.image_processor, 1920, 1080)
    assert reported["model_image_sizes"] == [[mw, mh]] and (mw, mh) != BUDGETS["qwen2_5_vl"].resized(1920, 1080)
    x, y = (doc["target_box"][0] + 30) * mw / 1920, (doc["target_box"][1] + 20) * mh / 1080
    rec = score_response(doc, CapturedResponse(json.dumps({"point_2d": [x, y]}), extras=reported), ScoreParams(family="qwen2_5_vl"))
    assert rec["correct"] and rec["frame_source"] == "model_image_sizes" and rec["model_size"] == [mw, mh]
