"""docs/grounding_agreement.md is what scripts/grounding_agreement.py writes from the committed corpora (issue 52), and
the departures it names are real: lmms-eval's own task code, called, reads these answers so."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("grounding_agreement", ROOT / "scripts" / "grounding_agreement.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MOD = _script()
CASE = {"text": "(834, 1010)", "width": 1920, "height": 1080, "box_xyxy": [825, 958, 842, 1061], "ui_type": "text"}


def test_the_agreement_page_is_regenerated_exactly():
    assert (ROOT / "docs" / "grounding_agreement.md").read_text(encoding="utf-8") == MOD.render()


def test_a_pixel_answer_hits_in_lmms_eval_and_misses_in_our_relative_task():
    assert MOD.lmms_screenspot_v2(CASE) == "hit" and MOD.ours("screenspot_v2", CASE) == "miss"
    frac = dict(CASE, text=f"({833.5 / 1920!r}, {1009.5 / 1080!r})")
    assert MOD.lmms_screenspot_v2(frac) == MOD.ours("screenspot_v2", frac) == "hit"


def test_lmms_eval_reads_a_corner_box_as_x1y1x2y2():
    # [x, y, w, h] = [10, 10, 60, 40]: lmms-eval tests the box [10, 10, 60, 40], SeeClick's script [10, 10, 70, 50]
    far = {"text": f"({65 / 1920!r}, {45 / 1080!r})", "width": 1920, "height": 1080, "box_xyxy": [10, 10, 70, 50],
           "ui_type": "icon"}
    assert MOD.ours("screenspot_v2", far) == "hit" and MOD.lmms_screenspot_v2(far) == "miss"


def test_vlmevalkit_restated_box_and_reader():
    edge = dict(CASE, text="x=842, y=1000")  # the right edge: SeeClick's x + w, VLMEvalKit's x + w - 1
    assert MOD.vlmevalkit_screenspot(edge) == "miss" and MOD.vlmevalkit_screenspot(dict(edge, text="x=841, y=1000")) == "hit"
    assert MOD.vlmevalkit_screenspot(dict(CASE, text="(0.437, 0.93)")) == "miss"  # not x=, y=: the click (0, 0)
    poking = dict(CASE, box_xyxy=[1900, 10, 1924, 40])
    assert MOD.vlmevalkit_screenspot_pro(poking) == "stops"


def test_clawgui_reads_the_digit_of_point_2d_and_truncates():
    case = {"family": "qwen3_vl", "text": '{"point_2d": [405, 848]}', "width": 1170, "height": 2532,
            "box_xyxy": [459, 2004, 488, 2291], "ui_type": "icon"}
    assert MOD.ours_family(case) == "hit" and MOD.clawgui(case) == "miss"  # "2, 405, 848": three numbers, no point
    assert MOD.clawgui(dict(case, text="[405, 848]")) == "hit"
    edge = dict(case, text="[417.1, 904.8]")  # 488.007 px: truncated to 488 there, outside the box here
    assert MOD.clawgui(edge) == "hit" and MOD.ours_family(edge) == "miss"


def test_each_harness_is_a_reading_equal_to_its_code_on_every_answer():
    import json

    for benchmark, name, fn, _ in MOD.HARNESSES:
        reading = "lmms_eval" if name.startswith(MOD.LMMS) else "vlmevalkit"
        same, n = MOD.reading_agreement(benchmark, reading, fn)
        assert same == n >= 480, (benchmark, reading)
    corpus = json.loads((MOD.CORPORA / "screenspot_pro.json").read_text(encoding="utf-8"))
    poking = next(c for c in corpus["cases"] if c["form"] == "box poking out")
    assert MOD.as_reading("screenspot_pro", "vlmevalkit", poking) == "stops"  # VLMEvalKit raises on that row


def test_an_unknown_reading_is_a_config_error():
    import pytest

    from gui_core.errors import ConfigError
    from gui_tasks.grounding.lmms_task import reading_of

    assert reading_of({"source": "screenspot_v2", "reading": "lmms_eval"}) == "lmms_eval"
    with pytest.raises(ConfigError, match="lmms_eval"):
        reading_of({"source": "screenspot", "reading": "lmms_eval"})  # lmms-eval has no ScreenSpot v1 point task
