"""Coordinate frames: exact conversions both ways, and Qwen2.5-VL's smart resize."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize as reference_smart_resize

from gui_core.coords import FRAMES, Geometry, convert, convert_box, smart_resize


def test_hand_computed_conversions():
    # A 1080x2400 phone screenshot seen by Qwen2.5-VL at the default budget.
    g = Geometry.qwen(1080, 2400)
    # 2,592,000 px > 28*28*1280: beta = sqrt(2592000 / 1003520) = 1.6072;
    # h = floor(2400 / beta / 28) * 28 = 1484, w = floor(1080 / beta / 28) * 28 = 672
    assert (g.resized_width, g.resized_height) == (672, 1484)
    assert convert((0.5, 0.25), "relative", "original_px", g) == (540.0, 600.0)
    assert convert((500, 250), "grid1000", "relative", g) == (0.5, 0.25)
    assert convert((336, 371), "resized_px", "grid1000", g) == (500.0, 250.0)
    assert convert((336, 371), "resized_px", "original_px", g) == pytest.approx((540.0, 600.0))
    assert convert_box((0, 0, 1000, 1000), "grid1000", "original_px", g) == (0.0, 0.0, 1080.0, 2400.0)


def test_large_images_are_scaled_down_within_the_budget():
    h, w = smart_resize(4000, 3000, max_pixels=28 * 28 * 1280)
    assert h % 28 == 0 and w % 28 == 0 and h * w <= 28 * 28 * 1280
    assert abs(h / w - 4000 / 3000) < 0.05


def test_small_images_are_scaled_up_to_the_minimum():
    h, w = smart_resize(20, 30, min_pixels=56 * 56)
    assert h % 28 == 0 and w % 28 == 0 and h * w >= 56 * 56


def test_bad_sizes_and_frames_are_errors():
    with pytest.raises(ValueError, match="positive"):
        smart_resize(0, 10)
    with pytest.raises(ValueError, match="aspect ratio"):
        smart_resize(10, 5000)
    with pytest.raises(ValueError, match="unknown coordinate frame"):
        convert((1, 1), "pixels", "relative", Geometry.identity(10, 10))  # type: ignore[arg-type]


sizes = st.integers(min_value=28, max_value=4000)


@settings(max_examples=200, deadline=None)
@given(height=sizes, width=sizes, max_tokens=st.sampled_from([64, 256, 1280, 16384]))
def test_smart_resize_matches_the_transformers_processor(height, width, max_tokens):
    """An independent implementation checked against the processor the models really use."""
    reference = reference_smart_resize
    if max(height, width) / min(height, width) > 200:
        return
    max_pixels = 28 * 28 * max_tokens
    assert smart_resize(height, width, max_pixels=max_pixels) == reference(height, width, factor=28, min_pixels=56 * 56,
                                                                          max_pixels=max_pixels)


@settings(deadline=None)
@given(x=st.floats(0, 1), y=st.floats(0, 1), src=st.sampled_from(FRAMES), dst=st.sampled_from(FRAMES),
       width=st.integers(28, 3000), height=st.integers(28, 3000))
def test_round_trips_are_exact(x, y, src, dst, width, height):
    if max(width, height) / min(width, height) > 200:
        return
    g = Geometry.qwen(width, height)
    start = convert((x, y), "relative", src, g)
    there = convert(start, src, dst, g)
    back = convert(there, dst, src, g)
    assert back == pytest.approx(start, rel=1e-9, abs=1e-9)
