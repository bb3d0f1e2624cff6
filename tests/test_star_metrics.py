"""StaR state-control metrics (appendix A.1): hand-checked counts, the balanced-pair identities, Table 7 rows."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_metrics import get_metric
from gui_metrics.star import star_rates


def pos(pred_type, exact=False):
    return {"polarity": "positive", "pred_type": pred_type, "type_match": pred_type == "CLICK", "exact": exact,
            "hits_toggle": exact}


def neg(pred_type, hits_toggle=False):
    return {"polarity": "negative", "pred_type": pred_type, "type_match": pred_type == "COMPLETE",
            "exact": pred_type == "COMPLETE", "hits_toggle": hits_toggle}


def test_hand_counted_example():
    records = [pos("CLICK", True), pos("CLICK", False), pos("COMPLETE"), pos(None),
               neg("COMPLETE"), neg("CLICK", hits_toggle=True), neg("CLICK"), neg("COMPLETE")]
    r = star_rates(records)
    assert r["star_p_tmr"] == 0.5 and r["star_p_amr"] == 0.25 and r["star_p_fnr"] == 0.25
    assert r["star_n_amr"] == 0.5 and r["star_n_fptr"] == 0.5 and r["star_n_fpr"] == 0.25
    assert r["star_o_tmr"] == 4 / 8 and r["star_o_amr"] == 3 / 8


def _from_table7(p_tmr, p_amr, p_fnr, n_amr, n_fptr, n_fpr, n=10000):
    """|P| = |N| = n records whose rates are the given percentages."""
    count = lambda pct: round(pct * n / 100)  # noqa: E731
    positives = ([pos("CLICK", True)] * count(p_amr) + [pos("CLICK", False)] * (count(p_tmr) - count(p_amr))
                 + [pos("COMPLETE")] * count(p_fnr))
    positives += [pos(None)] * (n - len(positives))
    negatives = ([neg("COMPLETE")] * count(n_amr) + [neg("CLICK", True)] * count(n_fpr)
                 + [neg("CLICK")] * (count(n_fptr) - count(n_fpr)))
    negatives += [neg(None)] * (n - len(negatives))
    return positives + negatives


# Table 7 rows: O-TMR, O-AMR, P-TMR, P-AMR, P-FNR, N-AMR, N-FPTR, N-FPR
TABLE7 = {
    "OS-Atlas-7B w/ StaR training": (96.13, 79.72, 95.77, 62.95, 4.23, 96.48, 3.52, 1.52),
    "UI-TARS-7B w/ StaR training": (95.82, 77.86, 95.11, 59.19, 4.89, 96.53, 3.45, 1.34),
    "Qwen-2-VL-72B w/ GT state": (94.00, 72.14, 95.80, 52.08, 4.13, 92.20, 7.70, 2.37),
}


@pytest.mark.parametrize("row", sorted(TABLE7))
def test_table7_rows_are_reproduced_from_constructed_predictions(row):
    o_tmr, o_amr, p_tmr, p_amr, p_fnr, n_amr, n_fptr, n_fpr = TABLE7[row]
    r = star_rates(_from_table7(p_tmr, p_amr, p_fnr, n_amr, n_fptr, n_fpr))
    got = [100 * r[k] for k in ("star_o_tmr", "star_o_amr", "star_p_tmr", "star_p_amr", "star_p_fnr", "star_n_amr",
                                "star_n_fptr", "star_n_fpr")]
    assert got == pytest.approx([o_tmr, o_amr, p_tmr, p_amr, p_fnr, n_amr, n_fptr, n_fpr], abs=0.006)


type_choice = st.sampled_from(["CLICK", "COMPLETE", None])


@settings(deadline=None)
@given(pairs=st.lists(st.tuples(type_choice, st.booleans(), type_choice, st.booleans()), min_size=1, max_size=40))
def test_balanced_pair_identities(pairs):
    """With one positive and one negative per toggle: O-TMR = (P-TMR + N-AMR)/2, O-AMR = (P-AMR + N-AMR)/2."""
    records = []
    for p_type, p_exact, n_type, n_hit in pairs:
        records += [pos(p_type, p_exact and p_type == "CLICK"), neg(n_type, n_hit and n_type == "CLICK")]
    r = star_rates(records)
    assert r["star_o_tmr"] == pytest.approx((r["star_p_tmr"] + r["star_n_amr"]) / 2)
    assert r["star_o_amr"] == pytest.approx((r["star_p_amr"] + r["star_n_amr"]) / 2)


def test_metrics_are_registered_plugins_with_directions():
    assert get_metric("star_n_fpr").higher_is_better is False and get_metric("star_o_amr").higher_is_better is True
    assert math.isnan(get_metric("star_p_tmr").aggregate([neg("COMPLETE")]))
