"""Context-aware cropping (section 5.1): the window at corners and centre, exact mapping back, the intervention's two passes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from gui_interventions import RequestContext, ResponseContext, build_run
from gui_interventions.crop import Crop
from gui_core.geometry import crop_window, map_back
from gui_core.logit_capture import Capture, CapturedResponse, Step


def test_window_at_the_centre_is_centred():
    # 1000 x 500, alpha 0.8: 800 x 400, start (500 - 400, 250 - 200)
    assert crop_window((0.5, 0.5), 1000, 500) == (100, 50, 900, 450)


@pytest.mark.parametrize("point, expected", [
    ((0.0, 0.0), (0, 0, 800, 400)),
    ((1.0, 1.0), (200, 100, 1000, 500)),
    ((0.02, 0.97), (0, 100, 800, 500)),
    ((0.99, 0.01), (200, 0, 1000, 400)),
])
def test_window_is_clamped_at_the_corners(point, expected):
    assert crop_window(point, 1000, 500) == expected


def test_window_follows_the_paper_formula_when_inside():
    # x_start = 0.3*1000 - 400 < 0 -> 0 ; y_start = 0.6*500 - 200 = 100
    assert crop_window((0.3, 0.6), 1000, 500) == (0, 100, 800, 500)
    assert crop_window((0.55, 0.45), 1000, 500, alpha=0.5) == (300, 100, 800, 350)


def test_map_back_is_exact():
    window = crop_window((0.7, 0.3), 1000, 500)  # (200, 0, 1000, 400)
    assert window == (200, 0, 1000, 400)
    assert map_back((0.5, 0.5), window, 1000, 500) == (0.6, 0.4)
    assert map_back((0.0, 0.0), window, 1000, 500) == (0.2, 0.0)
    assert map_back((1.0, 1.0), window, 1000, 500) == (1.0, 0.8)


@given(st.floats(0, 1), st.floats(0, 1), st.integers(20, 3000), st.integers(20, 3000), st.floats(0.1, 1.0))
def test_window_has_the_alpha_size_and_stays_inside(x, y, w, h, alpha):
    x0, y0, x1, y1 = crop_window((x, y), w, h, alpha)
    assert 0 <= x0 and x1 <= w and 0 <= y0 and y1 <= h
    assert x1 - x0 == max(1, round(alpha * w)) and y1 - y0 == max(1, round(alpha * h))
    # a crop pixel maps back onto the same original pixel
    px, py = 3, 5
    bx, by = map_back((px / (x1 - x0), py / (y1 - y0)), (x0, y0, x1, y1), w, h)
    assert bx * w == pytest.approx(x0 + px) and by * h == pytest.approx(y0 + py)


def _capture(text):
    return Capture((Step(1, text, -0.1, 0.5, tuple(float(i) for i in range(10)), 0, len(text)),))


def test_intervention_reruns_on_the_crop_and_records_the_first_answer():
    image = Image.new("RGB", (100, 50), (10, 20, 30))
    seen = []

    def rerun(req):
        seen.append(req)
        return CapturedResponse("[0.25, 0.5]", _capture("[0.25, 0.5]"))

    run = build_run("crop", {"crop.alpha": "0.8"}, factories={"crop": Crop})
    req = RequestContext(text="find it", images=(image,), doc_id=0, task="t", gen_kwargs={})
    out = run.response(ResponseContext(text=CapturedResponse("[0.9, 0.1]", _capture("[0.9, 0.1]")), request=req, rerun=rerun))
    assert len(seen) == 1 and seen[0].images[0].size == (80, 40) and seen[0].text == "find it"
    assert isinstance(out, CapturedResponse) and out == "[0.25, 0.5]" and out.capture is not None
    info = out.extras["crop"]
    assert info["window"] == [20, 0, 100, 40] and info["first_text"] == "[0.9, 0.1]"
    assert Capture.from_json(info["first_capture"]).steps[0].text == "[0.9, 0.1]"
    assert map_back((0.25, 0.5), tuple(info["window"]), 100, 50) == (0.4, 0.4)


def test_unparseable_first_answer_is_kept_without_a_second_pass():
    image = Image.new("RGB", (100, 50))
    run = build_run("crop", {}, factories={"crop": Crop})
    req = RequestContext(text="find it", images=(image,), doc_id=0, task="t", gen_kwargs={})
    out = run.response(ResponseContext(text="no idea", request=req, rerun=lambda r: pytest.fail("no rerun expected")))
    assert out == "no idea" and out.extras["crop"]["window"] is None and "malformed" in out.extras["crop"]["skipped"]


def test_crop_is_registered_by_entry_point():
    from gui_interventions import available

    assert available()["crop"] is Crop
    with pytest.raises(ValueError, match="alpha"):
        Crop(alpha=1.5)
