"""Reports key rows by checkpoint AND the model args that change results: runs with and without interventions never merge."""

from __future__ import annotations

import math

from test_report_fixtures import task_config, write_run

from gui_tasks.mpr.report import build_table
from gui_tasks.runs.results_io import find_result_files, load_results, setting_args

DIMS = ("au", "ap", "wf", "wi", "ael", "rel", "ri", "si")


def _dims_run(root, model_args, dims, value, stamp):
    tasks = {}
    for dim in dims:
        config = task_config(f"mpr_gui_en_{dim}", "en", source="official")
        config["metadata"]["dimensions"] = [dim.upper()]
        tasks[f"mpr_gui_en_{dim}"] = {"lang": "en", "config": config, "metrics": {"mcq_acc": value, f"mpr_acc_{dim}": value}}
    write_run(root, tasks, model_args=model_args, stamp=stamp)


def _rows(root):
    return build_table([load_results(p) for p in find_result_files(root)]).rows


def test_runs_with_and_without_interventions_stay_apart(tmp_path):
    # Half the dimensions plain, half with GUI-XLI: merged, they gave an FPR-ACC neither run produced.
    _dims_run(tmp_path, "pretrained=Org/Tiny-VL-2B,device=cpu", DIMS[:4], 0.9, "20260101_000000")
    _dims_run(tmp_path, "pretrained=Org/Tiny-VL-2B,device=cpu,interventions=gui_xli,gui_xli.alpha=0.1", DIMS[4:], 0.1,
              "20260101_000001")
    rows = _rows(tmp_path)
    assert [r.model for r in rows] == ["Tiny-VL-2B", "Tiny-VL-2B [interventions=gui_xli,gui_xli.alpha=0.1]"]
    assert all(math.isnan(r.values["FPR-ACC"]) for r in rows)  # neither row has all eight dimensions
    assert rows[0].values["AU"] == 90.0 and math.isnan(rows[0].values["SI"]) and rows[1].values["SI"] == 10.0


def test_operational_args_do_not_split_rows_but_dtype_does(tmp_path):
    _dims_run(tmp_path / "a", "pretrained=Org/Tiny-VL-2B,device=cuda:0,batch_size=8", DIMS[:4], 0.5, "20260101_000000")
    _dims_run(tmp_path / "a", "pretrained=Org/Tiny-VL-2B,device=cuda:1", DIMS[4:], 0.5, "20260101_000001")
    (row,) = _rows(tmp_path / "a")
    assert row.model == "Tiny-VL-2B" and row.values["FPR-ACC"] == 50.0
    _dims_run(tmp_path / "b", "pretrained=Org/Tiny-VL-2B", DIMS[:4], 0.5, "20260101_000000")
    _dims_run(tmp_path / "b", "pretrained=Org/Tiny-VL-2B,dtype=float16", DIMS[4:], 0.5, "20260101_000001")
    assert [r.model for r in _rows(tmp_path / "b")] == ["Tiny-VL-2B", "Tiny-VL-2B [dtype=float16]"]


def test_setting_args_and_labels():
    assert setting_args("pretrained=a/b,device=cpu,interventions=crop,crop.alpha=0.8,batch_size=2") == \
        ["interventions=crop", "crop.alpha=0.8"]


def test_label_without_interventions(tmp_path):
    path = write_run(tmp_path, {"mpr_gui_synth_en": {"lang": "en", "outcomes": ["ok"]}},
                     model_args="pretrained=Org/Tiny-VL-2B,interventions=crop,crop.alpha=0.8,max_new_tokens=32")
    run = load_results(path)
    assert run.model_label == "Tiny-VL-2B [interventions=crop,crop.alpha=0.8,max_new_tokens=32]"
    assert run.label(without_interventions=True) == "Tiny-VL-2B [max_new_tokens=32]"
    assert run.checkpoint == "Tiny-VL-2B"


def test_skipped_bad_rows_are_noted_per_task_and_benchmark(tmp_path):
    from gui_tasks.knowledge.report import build_report
    from gui_tasks.runs.results_io import skipped_rows_notes

    gkb = task_config("gui_knowledge_state", "en", source="official")
    gkb["metadata"].update(benchmark="gui_knowledge", subtasks=["state"], bad_rows_skipped=3)
    clean = task_config("mpr_gui_en", "en", source="official")
    clean["metadata"]["bad_rows_skipped"] = 0  # skipping was on, nothing was bad: no note
    write_run(tmp_path, {"gui_knowledge_state": {"lang": "en", "config": gkb, "metrics": {"gkb_state_acc": 0.5}},
                         "mpr_gui_en": {"lang": "en", "config": clean, "metrics": {"mcq_acc": 0.5}}})
    runs = [load_results(p) for p in find_result_files(tmp_path)]
    note = ("Tiny-VL-2B gui_knowledge_state: 3 bad data row(s) skipped on request (GUI_EVAL_SKIP_BAD_ROWS); "
            "not the whole benchmark")
    assert skipped_rows_notes(runs, "gui_knowledge") == [note]
    assert skipped_rows_notes(runs, "mpr_gui") == []
    assert note in build_report(runs).notes
