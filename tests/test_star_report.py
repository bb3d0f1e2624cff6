"""The Table 7-style StaR report: settings from the run's interventions, deltas to zero-shot, files drawn."""

from __future__ import annotations


from gui_tasks.commands.cli import main as cli_main
from gui_tasks.runs.results_io import load_results
from gui_tasks.star.report import COLUMNS, build_table, render_text, setting_of
from test_report_fixtures import write_run

# Table 7, OS-Atlas-7B: zero-shot and w/ state-focused prompt engineering (percent).
ZERO = (67.16, 43.95, 98.51, 52.10, 1.27, 35.80, 64.10, 28.67)
FOCUSED = (75.21, 52.55, 94.53, 49.22, 4.42, 55.89, 43.57, 18.91)
PAPER_DELTAS = (8.05, 8.60, -3.98, -2.88, 3.15, 20.09, -20.53, -9.76)


def star_config(task: str) -> dict:
    return {"task": task, "metadata": {"version": "1.0", "benchmark": "star_state_control", "source": "official", "lang": "en",
                                       "agent_family": "os_atlas", "match_rule": "star-a2-d40"}}


def run(tmp_path, values, interventions=None, stamp="20260101_000000"):
    metrics = {c: v / 100 for c, v in zip(COLUMNS, values)} | {"star_format_error_rate": 0.01}
    args = "pretrained=OS-Copilot/OS-Atlas-Pro-7B,device=cpu" + (f",interventions={interventions}" if interventions else "")
    path = write_run(tmp_path / stamp, {"star_state_control": {"lang": "en", "metrics": metrics, "config": star_config("star_state_control")}},
                     model="gui_hf", model_args=args, stamp=stamp)
    return load_results(path)


def test_setting_is_read_from_the_interventions_model_arg():
    assert setting_of("pretrained=x,device=cpu") == "Zero-shot"
    assert setting_of("pretrained=x,interventions=star_gt_state_star") == "w/ Ground Truth Toggle State and StaR-style Prompting"
    assert setting_of("pretrained=x,interventions=prompt_affix+star_style") == "w/ prompt_affix + star_style"
    # plugin parameters are part of the setting: runs that differ in them stay in separate rows
    assert setting_of("pretrained=x,interventions=prompt_affix,prompt_affix.suffix=Hi,device=cpu") == \
        "w/ prompt_affix (prompt_affix.suffix=Hi)"


def test_deltas_reproduce_the_table_7_subscripts(tmp_path):
    rows = build_table([run(tmp_path, FOCUSED, "star_state_focused", "2"), run(tmp_path, ZERO, None, "1")])
    assert [r.setting for r in rows] == ["Zero-shot", "w/ State-focused Prompt Engineering"]
    assert all(d is None for d in rows[0].deltas.values())
    assert [round(rows[1].deltas[c], 2) for c in COLUMNS] == list(PAPER_DELTAS)
    text = render_text(rows)
    assert "| OS-Atlas-Pro-7B | 75.21 ↑8.05 | 52.55 ↑8.60 | 94.53 ↓3.98 |" in text


def test_explicit_baseline_gives_every_row_a_delta(tmp_path):
    rows = build_table([run(tmp_path, ZERO, None, "1")], baseline=[run(tmp_path, FOCUSED, "star_style", "2")])
    assert round(rows[0].deltas["star_o_amr"], 2) == -8.60


def test_cli_writes_table_csv_and_png(tmp_path, capsys):
    run(tmp_path, ZERO, None, "1"), run(tmp_path, FOCUSED, "star_state_focused", "2")
    assert cli_main(["star-report", str(tmp_path), "--out", str(tmp_path / "rep")]) == 0
    for name in ("table.md", "table.csv", "table.png"):
        assert (tmp_path / "rep" / name).stat().st_size > 100
    assert "w/ State-focused Prompt Engineering" in capsys.readouterr().out


def test_cli_says_when_there_is_nothing_to_report(tmp_path, capsys):
    assert cli_main(["star-report", str(tmp_path)]) in (1, 2)


def test_agentic_results_get_a_per_action_type_table_and_figure(tmp_path, capsys):
    from gui_tasks.star.report import STEP_COLUMNS, build_step_table

    metrics = {c: 0.5 for c in STEP_COLUMNS} | {"step_action_acc_scroll": float("nan"), "step_format_error_rate": 0.1}
    cfg = {"task": "star_aitz", "metadata": {"benchmark": "star_agentic", "dataset": "aitz", "lang": "en", "judge": "star",
                                             "history": "own"}}
    path = write_run(tmp_path, {"star_aitz": {"lang": "en", "metrics": metrics, "config": cfg}}, model="gui_hf",
                     model_args="pretrained=OS-Copilot/OS-Atlas-Pro-7B,interventions=star_style")
    rows = build_step_table([load_results(path)])
    assert [(r.task, r.setting, r.values["step_action_acc"], r.format_error) for r in rows] == [
        ("star_aitz", "w/ StaR-style Prompting", 50.0, 10.0)]
    assert rows[0].judge == "star" and rows[0].history == "own"
    assert cli_main(["star-report", str(tmp_path), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "steps.png").stat().st_size > 100
    assert "| star_aitz | OS-Atlas-Pro-7B | w/ StaR-style Prompting | star | own | 50.00 | 50.00 | 50.00 |" in capsys.readouterr().out


def test_limited_runs_are_noted(tmp_path, capsys):
    metrics = {c: v / 100 for c, v in zip(COLUMNS, ZERO)} | {"star_format_error_rate": 0.01}
    write_run(tmp_path, {"star_state_control": {"lang": "en", "metrics": metrics, "config": star_config("star_state_control"),
                                                "original": 8184}},
              model="gui_hf", model_args="pretrained=OS-Copilot/OS-Atlas-Pro-7B", limit=5)
    assert cli_main(["star-report", str(tmp_path)]) == 0
    assert "Note: OS-Atlas-Pro-7B star_state_control: run with --limit 5 (0 of 8184 documents): not the whole benchmark" \
        in capsys.readouterr().out
