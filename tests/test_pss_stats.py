"""Welch t-test (Table 3), Wasserstein distance (Table 5) and bootstrap intervals on hand-computed samples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_metrics.stats import bootstrap_ci, wasserstein_distance, welch_t_test


def test_welch_t_statistic_and_df_by_hand():
    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0, 10.0]
    # mean 2.5, var 5/3, n 4; mean 6, var 10, n 5
    va, vb = (5 / 3) / 4, 10 / 5
    t = (2.5 - 6) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / 3 + vb ** 2 / 4)
    res = welch_t_test(a, b)
    assert res.t == pytest.approx(t) and res.df == pytest.approx(df)
    assert res.mean_a == 2.5 and res.mean_b == 6.0


def test_welch_p_value_matches_scipy():
    from scipy.stats import ttest_ind

    a, b = [0.59, 0.61, 0.55, 0.66, 0.58, 0.62], [0.40, 0.45, 0.38, 0.52, 0.35]
    ref = ttest_ind(a, b, equal_var=False)
    res = welch_t_test(a, b)
    assert res.p_value == pytest.approx(ref.pvalue) and res.significant()


def test_welch_same_distribution_is_not_significant():
    res = welch_t_test([0.5, 0.6, 0.55, 0.52], [0.51, 0.58, 0.56, 0.54])
    assert not res.significant()


def test_welch_needs_two_values_per_group():
    with pytest.raises(ValueError, match=">= 2"):
        welch_t_test([1.0], [1.0, 2.0])


def test_wasserstein_by_hand():
    assert wasserstein_distance([0.0], [1.0]) == pytest.approx(1.0)
    assert wasserstein_distance([0.0, 1.0], [0.5, 1.5]) == pytest.approx(0.5)
    assert wasserstein_distance([0.0, 0.0, 3.0], [0.0, 3.0, 3.0]) == pytest.approx(1.0)


@settings(max_examples=50)
@given(st.lists(st.floats(-10, 10), min_size=1, max_size=20), st.lists(st.floats(-10, 10), min_size=1, max_size=20))
def test_wasserstein_matches_scipy(a, b):
    from scipy.stats import wasserstein_distance as ref

    assert wasserstein_distance(a, b) == pytest.approx(ref(a, b), abs=1e-9)


def test_bootstrap_interval_contains_the_mean_and_is_seeded():
    xs = [0.1 * i for i in range(20)]
    lo, hi = bootstrap_ci(xs, seed=1)
    assert lo < sum(xs) / len(xs) < hi
    assert (lo, hi) == bootstrap_ci(xs, seed=1)
    assert bootstrap_ci([0.3] * 5) == (0.3, 0.3)
