"""The PSS report's numbers on constructed records (Tables 2-7 layout) and its figures."""

from __future__ import annotations

import pytest

from gui_metrics.stats import wasserstein_distance, welch_t_test
from gui_tasks.grounding.report import Series, draw, markdown, summarise


def _rec(rtype, pss, ent, split="mobile_icon", first=None):
    r = {"response_type": rtype, "pss": pss, "digit_entropy": ent, "perplexity": 1.2, "correct": rtype == "correct",
         "split": split, "distance": 0.0 if rtype == "correct" else 0.03, "status": "parsed", "params": {"tau": 0.05}}
    if first is not None:
        r["first"] = first
    return r


CORRECT = [0.60, 0.62, 0.58, 0.65]
BIASED = [0.55, 0.50, 0.57]
OTHER = [0.30, 0.42, 0.35, 0.40]


def _series(cropped=False):
    recs = [_rec("correct", p, 2.2) for p in CORRECT] + [_rec("biased", p, 2.25, "web_text") for p in BIASED]
    recs += [_rec("other", p, 2.28, "web_text") for p in OTHER]
    if cropped:
        recs = [dict(r, first=_rec("biased" if r["response_type"] == "correct" else r["response_type"], r["pss"] - 0.05, 2.3))
                for r in recs]
    return Series("m\ngui_screenspot", "gui_screenspot", "screenspot", recs)


def test_summary_tables_from_records():
    s = summarise(_series())
    assert s["n"] == 11 and s["accuracy"] == pytest.approx(4 / 11)
    assert s["by_type"]["correct"]["pss_mean"] == pytest.approx(sum(CORRECT) / 4)
    assert s["by_type"]["biased"]["share"] == pytest.approx(3 / 11)
    assert s["accuracy_by_split"] == {"mobile_icon": 1.0, "web_text": 0.0}
    t = s["welch_t_tests_pss"]["biased_vs_other"]
    assert t["p"] == pytest.approx(welch_t_test(BIASED, OTHER).p_value)
    assert s["wasserstein_biased_vs_other"]["pss"] == pytest.approx(wasserstein_distance(BIASED, OTHER))
    assert s["wasserstein_biased_vs_other"]["digit_entropy"] == pytest.approx(0.03)
    assert "before_crop" not in s


def test_before_and_after_cropping(tmp_path):
    series = _series(cropped=True)
    s = summarise(series)
    assert s["before_crop"]["accuracy"] == 0.0 and s["accuracy"] == pytest.approx(4 / 11)
    assert s["before_crop"]["pss_by_type"]["biased"] == pytest.approx(sum(p - 0.05 for p in CORRECT + BIASED) / 7)
    assert s["after_crop_pss_by_type"]["other"] == pytest.approx(sum(OTHER) / 4)
    md = markdown([s])
    assert "| before |" in md and "| after |" in md
    files = draw([series, _series()], tmp_path)
    assert [f.name for f in files] == ["pss_by_type.png", "response_types.png", "pss_vs_entropy.png"]
    assert all(f.stat().st_size > 1000 for f in files)


def test_response_types_labels_are_not_clipped(tmp_path):
    """A long model label (checkpoint plus settings) is wrapped and the figure holds it: no ink on the image's edges."""
    import numpy as np
    from PIL import Image

    s = _series()
    long = Series("Qwen/Qwen2.5-VL-72B-Instruct[interventions=gui_xli,max_pixels=1003520,system_prompt=abc]\n"
                  "screenspot_v2_mobile_icon", s.task, s.benchmark, s.records)
    draw([long, s], tmp_path)
    im = np.asarray(Image.open(tmp_path / "response_types.png").convert("L"))
    assert im[:, :2].min() == 255 and im[:, -2:].min() == 255 and im[:2, :].min() == 255 and im[-2:, :].min() == 255


def test_icon_boards_show_other_as_the_subtotal_and_explain_missing_pss():
    recs = [_rec("correct", 0.6, 2.2), _rec("misleading", 0.4, 2.3), {**_rec("confusion", None, None), "captured": True},
            {**_rec("biased", None, None), "captured": True, "key_tokens": [{"merged": True}]},
            {**_rec("biased", None, None), "captured": False}]
    s = summarise(Series("m\nicon_localization_synth", "icon_localization_synth", "icon_localization", recs))
    assert s["pss_missing"] == {"parsed": 5, "no_capture": 1, "merged_key_digit": 1, "no_key_digit": 1}
    md = markdown([s])
    assert "| other (= misleading + confusion) | 2 | 0.400 | 0.400 |" in md
    assert "`other` is the subtotal of misleading and confusion" in md
    assert ("PSS missing for 3 of 5 parsed answers (`pss_no_capture_rate`): 1 no logits captured (run gui_hf with "
            "capture_logits=digits); 1 the key digit shares a token with other characters (no ten-digit distribution); "
            "1 no key digit located in the answer's syntax.") in md


def test_the_report_is_titled_after_its_benchmarks():
    from gui_tasks.grounding.report import report_title

    assert markdown([summarise(_series())]).startswith("# ScreenSpot report (accuracy, official figures, PSS)\n")
    pro = {"benchmark": "screenspot_pro"}
    assert report_title([pro, {"benchmark": "osworld_g"}, pro]) == ("ScreenSpot-Pro, OSWorld-G (original and refined instructions) report "
                                                                     "(accuracy, official figures, PSS)")
