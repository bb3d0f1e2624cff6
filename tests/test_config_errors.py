"""Configuration mistakes are one-line errors naming the setting, the accepted values ("did you mean") and the page to
read; our commands exit non-zero without a traceback, and lmms-eval's log ends with the failed task and why."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gui_tasks.harness import lmms_failures, lmms_integration  # the failure reports live in lmms_failures
from gui_tasks.commands.cli import main as cli_main
from gui_core.errors import ConfigError, DataError


def _one_line(text: str) -> str:
    lines = [line for line in text.strip().split("\n") if line.strip()]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


def test_a_config_error_names_setting_closest_values_accepted_ones_and_page():
    err = ConfigError("metadata.judge", "papr", ["paper", "star", "aitw"], "docs/star_judges.md",
                      message="metadata.judge: unknown judge 'papr'")
    assert str(err) == ("metadata.judge: unknown judge 'papr'; did you mean 'paper'? (accepted: paper, star, aitw); "
                        "see docs/star_judges.md")
    assert not isinstance(err, DataError)  # never reported as bad benchmark data


def test_a_long_accepted_list_shows_only_the_closest_values():
    names = ["mpr_gui_synth_en", "star_state_control_synth", *(f"other_{i}" for i in range(100))]
    assert str(ConfigError("--tasks", "mpr_gui_synt_en", names)) == "--tasks 'mpr_gui_synt_en' is not accepted; did you mean 'mpr_gui_synth_en'?"
    assert str(ConfigError("--tasks", "zzz", names)) == "--tasks 'zzz' is not accepted (102 accepted values; none is close)"


def test_an_unknown_judge_is_a_config_error_with_did_you_mean(monkeypatch):
    from gui_tasks.star import agentic_task

    monkeypatch.setenv(agentic_task.JUDGE_ENV, "paperr")
    with pytest.raises(ConfigError) as info:
        agentic_task.task_rows({"dataset": "synthetic", "agent_family": "os_atlas"})
    assert str(info.value).startswith("$GUI_EVAL_STAR_JUDGE: unknown judge 'paperr'; did you mean 'paper'?")
    assert str(info.value).endswith("see docs/star_judges.md")


def test_an_unknown_family_is_named_with_did_you_mean_and_ends_the_log(monkeypatch, capsys):
    from gui_core.agents import family
    from gui_core.registry import UnknownName

    with pytest.raises(UnknownName) as info:
        family("ui_tar")
    assert str(info.value).startswith("unknown agent family 'ui_tar' (did you mean 'ui_tars' or 'ui_tars_1_5'")
    monkeypatch.setattr(lmms_failures, "_FAILURES", [])
    lmms_integration._task_failed("star_state_control_synth", info.value)
    lmms_integration._print_failures()
    assert capsys.readouterr().err.strip().split("\n")[-1].startswith(
        "gui-eval: task star_state_control_synth did not run: configuration error: unknown agent family 'ui_tar'")


def test_a_missing_mpr_data_variable_points_to_the_question_files(monkeypatch):
    from gui_tasks.mpr.release import data_root

    monkeypatch.delenv("MPR_GUI_DATA_DIR", raising=False)
    with pytest.raises(ConfigError) as info:
        data_root()
    message = str(info.value)
    assert message.startswith("$MPR_GUI_DATA_DIR is not set: point it at a folder holding qas/ (the question files, "
                              "github.com/chenruihan32/MPR-GUI-Bench (folder qas/))")
    assert "images/" in message and message.endswith("see docs/mpr_gui.md#official-data")


def test_report_on_a_missing_folder_exits_non_zero_with_one_line(tmp_path, capsys):
    missing = tmp_path / "no-such-run"
    assert cli_main(["report", str(missing)]) != 0
    line = _one_line(capsys.readouterr().err)
    assert f"{missing}: no such file or directory (give the --output_path folder of an lmms-eval run" in line
    assert "row -" not in line and line.endswith("see docs/running.md")


def _mpr_run(root):
    out = root / "m"
    out.mkdir(parents=True)
    (out / "20260101_000000_results.json").write_text(json.dumps({
        "results": {"mpr_gui_synth_en": {"alias": "mpr_gui_synth_en", "mcq_acc,none": 0.5}},
        "configs": {"mpr_gui_synth_en": {"task": "mpr_gui_synth_en", "metadata": {"benchmark": "mpr_gui"}}},
        "n-samples": {"mpr_gui_synth_en": {"original": 2, "effective": 2}},
        "config": {"model": "gui_hf", "model_args": "pretrained=m"}, "model_name": "m"}))
    return root


def test_pss_report_on_a_run_of_another_benchmark_names_the_right_command(tmp_path, capsys):
    run = _mpr_run(tmp_path / "run")
    assert cli_main(["pss-report", str(run), "--out", str(tmp_path / "out")]) == 2
    line = _one_line(capsys.readouterr().err)
    from gui_tasks.grounding.report import BENCHMARKS

    assert "icon_localization" in BENCHMARKS and "screenspot_v2" in BENCHMARKS
    assert line == (f"gui-eval pss-report: gui-eval grounding-report reads runs of {', '.join(sorted(BENCHMARKS))}; {run} holds "
                    "mpr_gui (mpr_gui_synth_en): use gui-eval mpr-report; see docs/screenspot_pss.md")


def test_a_misspelled_task_ends_the_log_with_did_you_mean(monkeypatch, capsys):
    from lmms_eval.tasks import TaskManager

    from lmms_eval.api.task import ConfigurableTask

    # the wraps installed here are undone after the test (the other tests install them through attach())
    monkeypatch.setattr(TaskManager, "match_tasks", TaskManager.match_tasks)
    monkeypatch.setattr(ConfigurableTask, "_prepare_metric_and_aggregation", ConfigurableTask._prepare_metric_and_aggregation)
    lmms_integration.install_metric_check()
    monkeypatch.setattr(lmms_failures, "_FAILURES", [])
    fake = SimpleNamespace(all_tasks=["mpr_gui_synth_en", "mpr_gui_synth_zh", "star_state_control_synth"], task_index={})
    assert TaskManager.match_tasks(fake, ["mpr_gui_synth_en", "mpr_gui_synt_zh"]) == ["mpr_gui_synth_en"]
    lmms_integration._print_failures()
    last = capsys.readouterr().err.strip().split("\n")[-1]
    assert last.startswith("gui-eval: --tasks: 'mpr_gui_synt_zh' is not a task, group or tag")
    assert "did you mean 'mpr_gui_synth_zh'" in last and last.endswith("see docs/running.md")


def test_a_task_failing_to_build_is_the_logs_last_line(monkeypatch, capsys):
    monkeypatch.setattr(lmms_failures, "_FAILURES", [])
    monkeypatch.setattr(lmms_failures, "_DATA_ERRORS", ["task mpr_gui_zh: qas/au_zh.jsonl, row 3, field 'answer': bad"])
    lmms_integration._failed("task mpr_gui_zh did not run: bad benchmark data: qas/au_zh.jsonl, row 3, field 'answer': bad")
    lmms_integration._failed("task star_aitz did not run: configuration error: metadata.judge: unknown judge 'x'")
    lmms_integration._print_failures()
    lines = capsys.readouterr().err.strip().split("\n")
    assert lines[-1] == "gui-eval: task star_aitz did not run: configuration error: metadata.judge: unknown judge 'x'"
    assert lines[-2].startswith("gui-eval: task mpr_gui_zh did not run: bad benchmark data")
