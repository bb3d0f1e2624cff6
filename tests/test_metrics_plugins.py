"""gui_metrics: the plugin manager, the MPR metrics and their bridge to lmms-eval."""

from __future__ import annotations

import math

import pytest

from gui_metrics import all_metrics, get_metric, get_plugin_manager
from gui_metrics.mpr import FPR_WEIGHTS, fpr_acc, format_error_rate, per_dimension_accuracy


def _rec(dim, correct, status="parsed"):
    return {"dimension": dim, "correct": correct, "status": status}


def test_builtin_metrics_come_through_the_entry_point_group():
    pm = get_plugin_manager()
    dists = {dist.project_name for _, dist in pm.list_plugin_distinfo()}
    assert "gui-eval" in dists  # the built-in plugin was loaded from our own entry point
    names = set(all_metrics())
    assert {"mcq_acc", "fpr_acc", "format_error_rate", "mpr_acc_si"} <= names


def test_fpr_acc_weights_follow_appendix_a7():
    assert FPR_WEIGHTS == {"AU": 1, "AP": 1, "WF": 1, "WI": 1, "AEL": 1, "REL": 1, "RI": 1.5, "SI": 2}
    # Hand-computed: six dims at 1.0, RI 0.0, SI 0.5 -> (6 + 0 + 1) / 9.5
    acc = {d: 1.0 for d in ("AU", "AP", "WF", "WI", "AEL", "REL")} | {"RI": 0.0, "SI": 0.5}
    assert fpr_acc(acc) == pytest.approx(7 / 9.5)


def test_fpr_acc_reproduces_paper_table2_intern_en():
    # Table 2, Intern2.5VL-8B EN: 81.2 89.9 79.5 92.1 82.0 82.0 80.0 44.0 -> 75.2
    acc = dict(zip(("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"), (81.2, 89.9, 79.5, 92.1, 82.0, 82.0, 80.0, 44.0)))
    assert round(fpr_acc(acc), 1) == 75.2


def test_fpr_acc_requires_all_dimensions_unless_allowed():
    with pytest.raises(ValueError, match="missing"):
        fpr_acc({"AU": 1.0})
    assert fpr_acc({"AU": 1.0, "SI": 0.0}, allow_missing=True) == pytest.approx(1 / 3)


def test_fpr_metric_aggregates_records():
    records = [_rec("AU", True), _rec("AU", False), _rec("SI", True), _rec("RI", False, "malformed")]
    spec = get_metric("fpr_acc")
    # AU 0.5 (w1), RI 0 (w1.5), SI 1 (w2) -> (0.5 + 0 + 2) / 4.5
    assert spec.aggregate([spec.score(r) for r in records]) == pytest.approx(2.5 / 4.5)
    assert get_metric("mpr_acc_au").aggregate(records) == 0.5
    assert math.isnan(get_metric("mpr_acc_wf").aggregate(records))
    assert format_error_rate(records) == 0.25
    assert per_dimension_accuracy(records) == {"AU": 0.5, "SI": 1.0, "RI": 0.0}


def test_unknown_metric_suggests_close_names():
    with pytest.raises(KeyError, match="fpr_acc"):
        get_metric("fpr_ac")


def test_bridge_registers_aggregations_with_lmms_eval():
    from lmms_eval.api import registry as reg

    from gui_metrics.lmms_bridge import register_with_lmms_eval, sample_values

    register_with_lmms_eval()
    assert reg.HIGHER_IS_BETTER_REGISTRY["format_error_rate"] is False
    assert reg.AGGREGATION_REGISTRY["mcq_acc"]([_rec("AU", True), _rec("AP", False)]) == 0.5
    values = sample_values(("mcq",), _rec("AU", True))
    assert set(values) >= {"mcq_acc", "format_error_rate"} and "fpr_acc" not in values
