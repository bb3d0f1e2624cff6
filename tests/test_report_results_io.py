"""Reading lmms-eval results and samples files: keys, filters, groups, model fields, clear errors."""

from __future__ import annotations

import json

import pytest
from test_report_fixtures import write_run

from gui_core.errors import ConfigError, DataError
from gui_tasks.runs.results_io import find_result_files, load_results, load_samples, load_task_samples

OUTCOMES = ["ok", "no", "bad", "ok", "ok", "ok", "ok", "ok"]  # one doc per dimension


def test_results_file_fields(tmp_path):
    path = write_run(tmp_path, {"mpr_gui_synth_en": {"lang": "en", "outcomes": OUTCOMES}}, limit=8)
    run = load_results(path)
    assert (run.model, run.model_name, run.model_label) == ("qwen2_5_vl", "Org/Tiny-VL-2B", "Tiny-VL-2B")
    assert run.model_args == "pretrained=Org/Tiny-VL-2B,device=cpu" and run.limit == 8
    assert run.lmms_eval_version == "main@abc1234" and run.date == "20260101_000000"
    task = run.tasks["mpr_gui_synth_en"]
    assert task.metrics["mcq_acc"] == 6 / 8 and task.metrics["format_error_rate"] == 1 / 8
    assert task.metrics["mpr_acc_wf"] == 0.0 and task.metrics["mpr_acc_ap"] == 0.0 and task.metrics["mpr_acc_si"] == 1.0
    assert set(task.metrics) == {"mcq_acc", "fpr_acc", "format_error_rate", "mpr_acc_au", "mpr_acc_ap", "mpr_acc_wf",
                                 "mpr_acc_wi", "mpr_acc_ael", "mpr_acc_rel", "mpr_acc_ri", "mpr_acc_si"}
    assert task.stderr == {}  # "N/A" stderrs are dropped
    assert task.metadata["parser_protocol"] == "mcq-letter-v1" and task.version == "1.0"
    assert task.n_samples == {"original": 8, "effective": 8} and not task.is_group
    assert task.higher_is_better["format_error_rate"] is False
    assert run.samples_path("mpr_gui_synth_en") == path.with_name("20260101_000000_samples_mpr_gui_synth_en.jsonl")
    samples = load_task_samples(run, "mpr_gui_synth_en")
    assert [s["doc_id"] for s in samples] == list(range(8))
    assert samples[2]["mcq_acc"] == {"id": "synth-wf-0002", "lang": "en", "dimension": "WF", "answer": "C", "pred": None,
                                     "status": "malformed", "rule": "no-letter", "correct": False}


def test_filters_groups_nan_and_numeric_stderr(tmp_path):
    path = tmp_path / "m" / "20260101_000000_results.json"
    path.parent.mkdir()
    path.write_text(json.dumps({
        "results": {"grp": {"alias": "grp", "mcq_acc,none": 0.5, "mcq_acc_stderr,none": 0.01},
                    "t": {"alias": " - t", "mcq_acc,none": float("nan"), "mcq_acc,strict": 0.25, "mcq_acc_stderr_clt,none": 0.02}},
        "group_subtasks": {"grp": ["t"], "t": []},
        "configs": {"t": {"task": "t", "metadata": [{"version": 2}, {"lang": "fr"}]}},
        "config": {"model": "openai", "model_args": "model_version=gpt-4o"},
    }))
    run = load_results(path)
    assert run.tasks["grp"].is_group and run.tasks["grp"].stderr == {"mcq_acc_stderr": 0.01}
    t = run.tasks["t"]
    assert t.metrics["mcq_acc,strict"] == 0.25 and t.metrics["mcq_acc"] != t.metrics["mcq_acc"]  # NaN kept as NaN
    assert t.stderr == {"mcq_acc_stderr_clt": 0.02} and t.metadata == {"version": 2, "lang": "fr"}
    assert run.model_label == "gpt-4o" and run.limit is None


def test_find_result_files_recursively_and_directly(tmp_path):
    a = write_run(tmp_path / "x", {"mpr_gui_synth_en": {"lang": "en", "outcomes": OUTCOMES}})
    b = write_run(tmp_path / "y" / "deeper", {"mpr_gui_synth_zh": {"lang": "zh", "outcomes": OUTCOMES}})
    assert find_result_files(tmp_path) == [a, b]
    assert find_result_files([a, tmp_path / "x"]) == [a]
    # a folder that does not exist is the user's setting, not bad data: one line naming it and the page to read
    with pytest.raises(ConfigError, match="nope: no such file or directory \\(give the --output_path folder.*see docs/running.md"):
        find_result_files(tmp_path / "nope")


@pytest.mark.parametrize(
    "content, message",
    [("{not json", "not a readable lmms-eval results file"), ("[]", "missing 'results' object"),
     ('{"results": {"t": 3}}', "field 'results.t': task entry is not an object"),
     ('{"results": {}, "configs": []}', "field 'configs': must be an object")],
)
def test_bad_results_file_names_the_file(tmp_path, content, message):
    path = tmp_path / "run_results.json"
    path.write_text(content)
    with pytest.raises(DataError, match=message) as err:
        load_results(path)
    assert str(path) in str(err.value)


def test_bad_samples_file_names_file_and_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"doc_id": 0}\n\n{"doc_id": 1}\n[1, 2]\n')
    with pytest.raises(DataError, match=r"s\.jsonl, row 3: line 4: not a JSON object"):
        load_samples(path)
    path.write_text('{"doc_id": 0}\n{"doc_id": 1,\n')
    with pytest.raises(DataError, match=r"line 2: invalid JSON"):
        load_samples(path)
    with pytest.raises(DataError, match="samples file not found"):
        load_samples(tmp_path / "missing.jsonl")
