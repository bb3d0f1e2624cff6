"""PSS (section 4.2) on hand-computed vectors, digit entropy, perplexity, and Algorithm 1 on constructed boards."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_metrics.pss import (classify_response, digit_entropy, digit_values, peak_sharpness, perplexity, point_to_box_distance,
                             pss_from_logits, strictly_inside)


def onehot(p):
    return [1.0 if i == p else 0.0 for i in range(10)]


# --- PSS ----------------------------------------------------------------------------------


def test_interior_one_hot_peak_is_exactly_one():
    # a_left = 1/5, a_right = -1/4, w = (5/5 + 4/4)/9 = 2/9, PSS = 4.5 * 2/9 * 1 = 1
    assert peak_sharpness(onehot(5)) == pytest.approx(1.0)
    assert peak_sharpness(onehot(1)) == pytest.approx(1.0)


@pytest.mark.parametrize("p", [0, 9])
def test_boundary_one_hot_peak(p):
    # s = (v9 - v0)/9 = -+1/9, PSS = 2 * 1/9 * 1
    assert peak_sharpness(onehot(p)) == pytest.approx(2 / 9)


def test_boundary_peak_at_zero_decreasing():
    v = [0.5, 0.2, 0.1, 0.05, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0]
    # s = (0.0 - 0.5)/9, PSS = 2 * 0.5/9 * 0.5
    assert peak_sharpness(v) == pytest.approx(2 * 0.5 / 9 * 0.5)


def test_boundary_peak_at_nine():
    v = [0.1, 0, 0, 0, 0, 0, 0, 0, 0.3, 0.6]
    assert peak_sharpness(v) == pytest.approx(2 * (0.6 - 0.1) / 9 * 0.6)


def test_symmetric_interior_triangle():
    v = [0, 0, 0, 0.1, 0.2, 0.4, 0.2, 0.1, 0, 0]
    # p = 5, m = .4, a_left = .4/5, a_right = -.4/4, w = (.4 + .4)/9, PSS = 4.5 * .8/9 * .4 = 0.16
    assert peak_sharpness(v) == pytest.approx(0.16)


def test_asymmetric_interior_peak():
    v = [0.05, 0.1, 0.5, 0.2, 0.05, 0.03, 0.03, 0.02, 0.01, 0.01]
    # p = 2: a_left = (0.5 - 0.05)/2, a_right = (0.01 - 0.5)/7, w = (0.45 + 0.49)/9
    assert peak_sharpness(v) == pytest.approx(4.5 * (0.45 + 0.49) / 9 * 0.5)


def test_flat_distribution_scores_zero():
    assert peak_sharpness([0.1] * 10) == 0.0
    assert pss_from_logits([3.7] * 10) == 0.0


def test_sharper_unimodal_scores_higher():
    broad = [0.02, 0.04, 0.08, 0.14, 0.2, 0.2, 0.14, 0.1, 0.05, 0.03]
    sharp = [0.01, 0.01, 0.02, 0.05, 0.8, 0.05, 0.03, 0.01, 0.01, 0.01]
    assert peak_sharpness(sharp) > peak_sharpness(broad)


def test_ties_take_the_first_peak():
    v = [0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0]
    assert peak_sharpness(v) == pytest.approx(4.5 * (0.5 + 0.5) / 9 * 0.5)


def test_probability_form_is_softmax_of_digit_logits():
    logits = [0.0] * 10
    logits[3] = math.log(9.0) + 0.0  # p(3) = 9 / (9 + 9) = 0.5, others 1/18
    probs = digit_values(logits, "probs")
    assert probs[3] == pytest.approx(0.5) and probs[0] == pytest.approx(1 / 18)
    assert pss_from_logits(logits, "probs") == pytest.approx(peak_sharpness(probs))
    assert pss_from_logits(logits, "logits") == pytest.approx(peak_sharpness(logits))


def test_pss_rejects_wrong_length_and_nan():
    with pytest.raises(ValueError, match="10 digit"):
        peak_sharpness([0.1] * 9)
    with pytest.raises(ValueError, match="finite"):
        peak_sharpness([math.nan] + [0.1] * 9)


vectors = st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=10, max_size=10)


@given(vectors)
def test_pss_equals_its_telescoped_closed_form(v):
    """Mean slopes telescope: PSS depends only on v_0, v_p and v_9 (noted in the report)."""
    p = max(range(10), key=lambda i: (v[i], -i))
    m = v[p]
    closed = 2 * abs(v[9] - v[0]) / 9 * m if p in (0, 9) else 4.5 * (abs(m - v[0]) + abs(v[9] - m)) / 9 * m
    assert peak_sharpness(v) == pytest.approx(closed, abs=1e-12)


@given(vectors)
def test_pss_of_probabilities_is_between_zero_and_one(v):
    total = sum(v)
    if total <= 0:
        return
    probs = [x / total for x in v]
    assert -1e-12 <= peak_sharpness(probs) <= 1 + 1e-9


# --- entropy and perplexity ---------------------------------------------------------------


def test_digit_entropy_flat_and_peaked():
    assert digit_entropy([0.0] * 10) == pytest.approx(math.log(10))
    assert digit_entropy([0.0] * 9 + [100.0]) == pytest.approx(0.0, abs=1e-30 + 1e-12)


def test_perplexity_of_chosen_tokens():
    assert perplexity([math.log(0.5), math.log(0.5)]) == pytest.approx(2.0)
    assert perplexity([math.log(0.25), math.log(1.0)]) == pytest.approx(2.0)
    assert math.isnan(perplexity([]))


# --- Algorithm 1 ----------------------------------------------------------------------------

TARGET = (0.40, 0.40, 0.50, 0.50)
OTHERS = [(0.70, 0.70, 0.80, 0.80), (0.10, 0.10, 0.20, 0.20)]


def test_point_to_box_distance():
    assert point_to_box_distance((0.45, 0.45), TARGET) == 0.0
    assert point_to_box_distance((0.53, 0.45), TARGET) == pytest.approx(0.03)
    assert point_to_box_distance((0.53, 0.54), TARGET) == pytest.approx(0.05)  # 3-4-5 triangle


def test_inside_is_correct():
    assert classify_response((0.45, 0.45), TARGET, OTHERS, 0.05) == "correct"


@pytest.mark.parametrize("point", [(0.40, 0.45), (0.50, 0.45), (0.45, 0.40), (0.45, 0.50), (0.40, 0.40)])
def test_points_on_the_target_edge_are_outside(point):
    assert not strictly_inside(point, TARGET)
    assert classify_response(point, TARGET, OTHERS, 0.05) == "biased"  # distance 0 < tau


def test_biased_within_tau_of_target():
    assert classify_response((0.53, 0.45), TARGET, OTHERS, 0.05) == "biased"


def test_distance_equal_to_tau_is_not_biased():
    # d = 0.05 exactly is not < tau: falls through to the other boxes (none near) -> confusion
    assert classify_response((0.53, 0.54), TARGET, OTHERS, 0.05) == "confusion"


def test_misleading_near_another_icon():
    assert classify_response((0.75, 0.75), TARGET, OTHERS, 0.05) == "misleading"
    assert classify_response((0.83, 0.75), TARGET, OTHERS, 0.05) == "misleading"


def test_biased_wins_over_misleading_when_both_near():
    close = [(0.52, 0.40, 0.60, 0.50)]
    assert classify_response((0.51, 0.45), TARGET, close, 0.05) == "biased"


def test_confusion_far_from_everything():
    assert classify_response((0.95, 0.05), TARGET, OTHERS, 0.05) == "confusion"


def test_only_target_known_merges_into_other():
    assert classify_response((0.75, 0.75), TARGET, None, 0.05) == "other"
    assert classify_response((0.53, 0.45), TARGET, None, 0.05) == "biased"


def test_table1_distance_bands_and_type_shares():
    from gui_metrics.manager import get_metric

    recs = [{"distance": 0.0, "response_type": "correct", "status": "parsed", "correct": True},
            {"distance": 0.04, "response_type": "biased", "status": "parsed", "correct": False},
            {"distance": 0.15, "response_type": "misleading", "status": "parsed", "correct": False},
            {"distance": 0.25, "response_type": "confusion", "status": "parsed", "correct": False},
            {"distance": None, "response_type": "invalid", "status": "malformed", "correct": False}]
    assert get_metric("within_dist_005").aggregate(recs) == pytest.approx(2 / 5)
    assert get_metric("within_dist_020").aggregate(recs) == pytest.approx(3 / 5)
    assert get_metric("within_dist_030").aggregate(recs) == pytest.approx(4 / 5)
    assert get_metric("share_other").aggregate(recs) == pytest.approx(2 / 5)  # misleading + confusion
    assert get_metric("grounding_format_error_rate").aggregate(recs) == pytest.approx(1 / 5)


def test_pss_by_type_groups_misleading_and_confusion_into_other():
    from gui_metrics.manager import get_metric

    recs = [{"pss": 0.6, "response_type": "correct"}, {"pss": 0.2, "response_type": "misleading"},
            {"pss": 0.4, "response_type": "confusion"}, {"pss": None, "response_type": "other"}]
    assert get_metric("pss_other").aggregate(recs) == pytest.approx(0.3)
    assert get_metric("pss_correct").aggregate(recs) == pytest.approx(0.6)
    assert math.isnan(get_metric("pss_biased").aggregate(recs))
