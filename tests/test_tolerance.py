"""The shared float tolerance of tests/tolerance.py: last-digit differences pass, real differences are named."""

from __future__ import annotations

import pytest
from tolerance import ABS_TOL, REL_TOL, assert_close, differences


def test_the_issue_perplexities_are_equal_within_the_tolerance():
    assert differences({"ppl": 15.527371579321189}, {"ppl": 15.52736787730776}) == []
    assert REL_TOL == 1e-5 and ABS_TOL == 1e-6


def test_texts_ids_and_decisions_are_exact():
    assert differences({"resp": "[0.5, 0.2]", "id": 3, "correct": True}, {"resp": "[0.5, 0.2]", "id": 3, "correct": True}) == []
    assert differences("[0.5, 0.2] ", "[0.5, 0.2]") == ["$: '[0.5, 0.2] ' != '[0.5, 0.2]'"]
    assert differences({"id": 3}, {"id": 4}) == ["$.id: 3 != 4"]
    assert differences({"correct": True}, {"correct": 1}) == ["$.correct: True != 1"]
    assert differences([1, 2], [1, 2, 3]) == ["$: length 2 != 3"]
    assert differences({"a": 1}, {"b": 1}) == ["$: keys ['a', 'b'] in only one"]


def test_floats_beyond_the_tolerance_are_named_with_their_path():
    assert differences({"m": [{"pss": 0.5}]}, {"m": [{"pss": 0.5001}]}) == ["$.m[0].pss: 0.5 != 0.5001"]
    with pytest.raises(AssertionError, match=r"\$\.x: 1\.0 != 1\.1"):
        assert_close({"x": 1.0}, {"x": 1.1})


def test_a_text_holding_numbers_is_a_text():
    assert differences("[0.5, 0.2]", "[0.5000001, 0.2]") == ["$: '[0.5, 0.2]' != '[0.5000001, 0.2]'"]


def test_model_floats_recorded_elsewhere_pass_within_the_measured_kernel_spread():
    """Issue 55's failing pair (a digit log-prob on an AVX2 machine vs the AVX-512 recording): beyond the results
    tolerance, within the model tolerance; a real change (1e-3 on a log-prob) is still named."""
    from tolerance import MODEL_ABS_TOL, MODEL_REL_TOL

    assert differences(-0.22836238, -0.22836566) == ["$: -0.22836238 != -0.22836566"]
    assert differences(-0.22836238, -0.22836566, rel_tol=MODEL_REL_TOL, abs_tol=MODEL_ABS_TOL) == []
    assert differences({"s": [-1.5037]}, {"s": [-1.5047]}, rel_tol=MODEL_REL_TOL, abs_tol=MODEL_ABS_TOL) == \
        ["$.s[0]: -1.5037 != -1.5047"]
