"""The viewer's run index as a person reads it: a compact metric table per task (± stderr where the results carry one,
undefined metrics folded), the installed lmms-eval version, and imported runs labelled as published, not as our
prompt protocol."""

from __future__ import annotations

import math
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

from gui_tasks.viewer import site


def test_metrics_are_a_table_with_stderr_and_undefined_ones_folded():
    res = SimpleNamespace(metrics={"mcq_acc": 0.5, "fpr_acc": 0.25, "mpr_acc_ri": math.nan, "format_error_rate": 0.1},
                          stderr={"mcq_acc_stderr": 0.125})
    html = site._metric_table(res)
    assert html == ("<table class='metrics'><tr><td>mcq_acc</td><td class='num'>0.5</td><td class='num'>± 0.125</td></tr>"
                    "<tr><td>fpr_acc</td><td class='num'>0.25</td><td class='num'></td></tr></table>"
                    "<details><summary>1 undefined (NaN: no sample in the denominator)</summary>mpr_acc_ri</details>")


def test_the_lmms_eval_field_names_the_package_not_the_folders_commit():
    run = SimpleNamespace(lmms_eval_version="main@3e1cd3e", path=Path("r.json"))
    assert site._lmms_eval_version(run) == f"{version('lmms_eval')} (installed); the run's folder was at git main@3e1cd3e"


def test_an_imported_run_is_labelled_published_with_its_reading():
    md = {"prompt_protocol": "pss-relative-v1", "published": {"format": "screenspot_pro"}, "answer_family": "qwen2_5_vl"}
    assert site._protocols(md, []) == ("published (screenspot_pro: the author's own prompt)", "read as qwen2_5_vl (official)")
    assert site._protocols({"prompt_protocol": "mpr-direct-v1", "parser_protocol": "mcq-letter-v2"}, ["gui_xli"]) == \
        ("mpr-direct-v1+gui_xli", "mcq-letter-v2")
