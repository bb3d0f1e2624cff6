"""SPHINX report on constructed lmms-eval output (Tables 4-9, capability chart) and the trajectory viewer."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from gui_tasks.commands.cli import main as cli_main
from gui_tasks.sphinx import report
from gui_tasks.runs.results_io import load_results


def nav(subset, mode, sr, acp, rep=0.5, fmt=0.1, agent="ours", **toggle):
    md = {"benchmark": "sphinx_sim", "subset": subset, "observation": mode, "agent": agent}
    return md, {"sphinx_sr": sr, "sphinx_acp": acp, "sphinx_repetition_rate": rep, "sphinx_format_error_rate": fmt, **toggle}


def static(kind, mode, source="synthetic", **metrics):
    return {"benchmark": "sphinx", "kind": kind, "source": source, "observation": mode}, metrics


TASKS = {
    "sphinx_sim_nav": nav("nav", "full_text", 0.5, 0.75),
    "sphinx_sim_toggle": nav("toggle", "full_text", 0.25, 0.375, toggle_normal_sr=0.0, toggle_verify_sr=1.0, toggle_composite_score=0.25),
    "sphinx_sim_react": nav("all", "full_text", 0.2, 0.3, rep=0.3, fmt=0.05, agent="react"),
    "sphinx_sim": nav("all", "full_text", 0.3, 0.45, rep=0.496, fmt=0.024), "sphinx_sim_nav_som": nav("nav", "set_of_mark", 0.1, 0.2),
    "sphinx_sim_som": nav("all", "set_of_mark", 0.05, 0.1), "sphinx_sim_image": nav("all", "screenshot", 0.0, 0.05),
    "sphinx_knowledge_synth": static("knowledge", "full_text", sphinx_goal_acc_original=0.879, sphinx_goal_acc_repaired=0.894,
                                     sphinx_app_acc_original=0.955, sphinx_app_acc_repaired=0.955),
    "sphinx_completion_synth": static("completion", "full_text", sphinx_continue_acc=0.985, sphinx_stop_acc=0.471, sphinx_perfect=0.418),
    "sphinx_completion_synth_image": static("completion", "screenshot", sphinx_continue_acc=0.998, sphinx_stop_acc=0.184, sphinx_perfect=0.184),
    "sphinx_grounding_synth": static("grounding", "full_text", sphinx_grounding_acc_original=0.827, sphinx_grounding_acc_repaired=0.851),
    "sphinx_grounding_synth_image": static("grounding", "screenshot", sphinx_grounding_acc_original=0.1, sphinx_grounding_acc_repaired=0.1),
    "sphinx_grounding_synth_som": static("grounding", "set_of_mark", sphinx_grounding_acc_original=0.65, sphinx_grounding_acc_repaired=0.7),
    "sphinx_focused_synth": static("focused", "full_text", sphinx_focused_failure_rate=0.007),
}


def _write(tmp_path, limit=None):
    raw = {"results": {t: {f"{k},none": v for k, v in m.items()} | {"alias": t} for t, (_md, m) in TASKS.items()},
           "configs": {t: {"metadata": md} for t, (md, _m) in TASKS.items()},
           "n-samples": {t: {"original": 4, "effective": 4 if limit is None else limit} for t in TASKS},
           "config": {"model": "gui_hf", "model_args": "pretrained=/m/GPT-4-Turbo", "limit": limit}, "model_name": "/m/GPT-4-Turbo"}
    folder = tmp_path / "run" / "m"
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")
    return tmp_path / "run"


@pytest.fixture()
def run_dir(tmp_path):
    return _write(tmp_path)


def test_tables_in_the_paper_layouts(run_dir):
    runs = [load_results(p) for p in report.find_result_files(run_dir)]
    t = report.build_report(runs)
    assert sorted(t) == ["star_table5", "table4", "table5", "table6", "table7", "table8", "table9"]
    t4 = t["table4"].splitlines()
    assert t4[0].startswith("| Modality | Model | Navigation tasks SR (%) | Navigation tasks ACP (%) | Toggle tasks (StaR A.4) SR (%)")
    assert t4[2] == "| Text | GPT-4-Turbo [simulator] | 50.0 | 75.0 | 25.0 | 37.5 | 30.0 | 45.0 |"
    assert t4[3] == "| Text | GPT-4-Turbo [simulator] [agent react] | N/A | N/A | N/A | N/A | 20.0 | 30.0 |"
    assert t4[4] == "| Vision | GPT-4-Turbo [simulator] | 10.0 | 20.0 | N/A | N/A | 5.0 | 10.0 |"
    assert t["table5"].splitlines()[2] == "| GPT-4-Turbo [simulator] | N/A | N/A | 30.0 | 45.0 | 5.0 | 10.0 | 0.0 | 5.0 |"
    # Table 6/7/8 cells of the paper's GPT-4-Turbo rows, fed back through the layout
    assert t["table6"].splitlines()[2] == "| GPT-4-Turbo [synthetic] | 87.9 | 89.4 | 95.5 | 95.5 |"
    assert t["table7"].splitlines()[2] == "| GPT-4-Turbo [synthetic] | 98.5 | 47.1 | 41.8 | 99.8 | 18.4 | 18.4 |"
    # Table 8's Vision column is the Set-of-Mark grounding task (sphinx_grounding_som), not the plain screenshot
    assert t["table8"].splitlines()[2] == "| GPT-4-Turbo [synthetic] | 82.7 | 85.1 | 65.0 | 70.0 |"
    # Table 9: the official ReAct agent's failures keep their own labelled row; focused context is the model's
    assert t["table9"].splitlines()[2:] == ["| GPT-4-Turbo | 49.6 | 2.4 | 0.7 |", "| GPT-4-Turbo [agent react] | 30.0 | 5.0 | 0.7 |"]


def test_star_table5_splits_verify_from_normal_toggle_tasks(run_dir):
    t = report.build_report([load_results(p) for p in report.find_result_files(run_dir)])["star_table5"].splitlines()
    assert t[0] == ("| Model | Observation | Normal SR (%) | Verify SR (%) | Composite (%) | All toggle tasks (%) "
                    "| Format Error (%) |")
    assert t[2:] == ["| GPT-4-Turbo [simulator] | full accessibility tree | 0.0 | 100.0 | 25.0 | 37.5 | 10.0 |"]


def test_limited_runs_are_noted_once_printed_and_in_every_table_file(tmp_path, capsys):
    assert cli_main(["sphinx-report", str(_write(tmp_path, limit=2)), "--out", str(tmp_path / "rep")]) == 0
    out = capsys.readouterr().out
    note = "Note: GPT-4-Turbo sphinx_sim_toggle: run with --limit 2 (2 of 4 documents): not the whole benchmark"
    assert out.count(note) == 1  # printed once, under the seven tables
    files = sorted((tmp_path / "rep").glob("*.md"))
    assert len(files) == 7 and all(note in f.read_text(encoding="utf-8") for f in files)  # each file stands alone


def test_cli_writes_tables_chart_and_trajectory_pages(run_dir, tmp_path, capsys):
    traj = tmp_path / "traj"
    traj.mkdir()
    (traj / "nav__DndOn__full_text.json").write_text(json.dumps(
        {"id": "nav/DndOn", "observation": "full_text", "outputs": ["click [0]", "press [stop]"]}))
    out = tmp_path / "out"
    assert cli_main(["sphinx-report", str(run_dir), "--out", str(out), "--trajectories", str(traj)]) == 0
    assert {p.name for p in out.iterdir()} >= {"table4.md", "table9.md", "capabilities.png", "trajectories"}
    with Image.open(out / "capabilities.png") as im:
        assert im.size[0] > 400
    assert "nav__DndOn__full_text.html" in (out / "trajectories" / "index.html").read_text()
    assert "### table7" in capsys.readouterr().out
    assert cli_main(["sphinx-report", str(tmp_path / "traj")]) == 1  # no results there


def test_viewer_draws_one_frame_per_step_plus_final(tmp_path):
    doc = {"id": "nav/DndOn", "observation": "full_text", "max_steps": 5, "on_format_error": "skip"}
    png, page = report.trajectory_viewer(doc, ["click [0]", "garbage", "click [3]", "press [stop]"], tmp_path / "ep")
    with Image.open(png) as im:
        assert im.size == (360 * 5, 720 + 24)  # four outputs, then the final screen
    text = page.read_text()
    assert "malformed: garbage" in text and text.count("<li>") == 5
    # the official behaviour: the run ends at the first output that is not an action
    png, page = report.trajectory_viewer({**doc, "on_format_error": "stop"}, ["click [0]", "garbage", "click [3]"], tmp_path / "ep2")
    assert page.read_text().count("<li>") == 3


def test_device_runs_get_their_own_rows_and_user_tasks_column(tmp_path):
    md, m = nav("user", "full_text", 0.25, 0.5)
    raw = {"results": {"sphinx_device": {f"{k},none": v for k, v in m.items()} | {"alias": "sphinx_device"}},
           "configs": {"sphinx_device": {"metadata": {**md, "source": "device"}}},
           "n-samples": {"sphinx_device": {"original": 4, "effective": 4}},
           "config": {"model": "openai", "model_args": "model_version=gpt-4o"}, "model_name": "gpt-4o"}
    folder = tmp_path / "run" / "m"
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")
    t4 = report.build_report([load_results(p) for p in report.find_result_files(tmp_path / "run")])["table4"].splitlines()
    assert "User tasks (device) SR (%)" in t4[0]
    assert t4[2] == "| Text | gpt-4o [device] | N/A | N/A | N/A | N/A | 25.0 | 50.0 | N/A | N/A |"


def _runs_of(tmp_path, tasks):
    raw = {"results": {t: {f"{k},none": v for k, v in m.items()} | {"alias": t} for t, (_md, m) in tasks.items()},
           "configs": {t: {"metadata": md} for t, (md, _m) in tasks.items()},
           "n-samples": {t: {"original": 4, "effective": 4} for t in tasks},
           "config": {"model": "gui_hf", "model_args": "pretrained=/m/M"}, "model_name": "/m/M"}
    folder = tmp_path / "split" / "m"
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")
    return [load_results(p) for p in report.find_result_files(tmp_path / "split")]


def test_split_tasks_fill_the_all_tasks_cells_marked_and_explained(tmp_path):
    """sphinx_sim_nav + sphinx_focused_synth (no combined sphinx_sim): Table 9's Format Error comes from the nav task,
    marked (nav) with a footnote; the N/A cells are explained."""
    runs = _runs_of(tmp_path, {"sphinx_sim_nav": nav("nav", "full_text", 0.0, 0.25, rep=float("nan"), fmt=1.0),
                               "sphinx_focused_synth": static("focused", "full_text", sphinx_focused_failure_rate=1.0)})
    t = report.build_report(runs)
    assert "| M | N/A | 100.0 (nav) | 100.0 |" in t["table9"]  # repetition undefined (NaN): N/A, explained
    assert f"Note: {report.SPLIT_NOTE}" in t["table9"] and f"Note: {report.NA_NOTE}" in t["table9"]
    assert "| M [simulator] | N/A | N/A | 0.0 (nav) | 25.0 (nav) |" in t["table5"]  # simplified (not run), full text


def test_device_user_tasks_fill_table5(tmp_path):
    runs = _runs_of(tmp_path, {"sphinx_device": ({**nav("user", "full_text", 0.5, 0.5)[0], "benchmark": "sphinx_sim",
                                                  "source": "device"}, nav("user", "full_text", 0.5, 0.75)[1])})
    t = report.build_report(runs)
    assert "| M [device] | N/A | N/A | 50.0 (user) | 75.0 (user) |" in t["table5"]
    assert "User tasks (device) SR (%)" in t["table4"]
