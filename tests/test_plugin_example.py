"""The worked example of docs/plugins.md (tests/plugin_example: task + metric + intervention), as a third party uses it.

pip-installs the package into its own folder, then runs lmms-eval on a tiny model, ``gui-eval view``, ``submit``
and ``validate`` (each a separate process, as a user runs them) and checks every file they write.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from gui_tasks.commands.cli import lmms_eval_command

EXAMPLE = Path(__file__).resolve().parent / "plugin_example"
TASKS = ("acme_widget_color", "acme_widget_color_files")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip install`` of a copy of tests/plugin_example into a private target folder (offline, no build isolation)."""
    root = tmp_path_factory.mktemp("acme_widgets")
    src = shutil.copytree(EXAMPLE, root / "src", ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
           "--target", str(root / "site"), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "site"


def _gui_eval(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", *args], env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_worked_example_runs_views_submits_and_validates(installed, tmp_path, tiny_checkpoint, subprocess_env):
    from lmms_helpers import results, run, samples

    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(installed), subprocess_env["PYTHONPATH"]])}
    out = tmp_path / "run"
    cmd = lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu,interventions=acme_grayscale", TASKS, out, limit=None)
    proc, log = run(cmd, env)
    res = results(out)
    for task in TASKS:
        assert res["results"][task]["acme_color_acc,none"] == pytest.approx(
            sum(s["acme_color_acc"]["correct"] for s in samples(out, task)) / 4), log[-3000:]
        assert [s["acme_color_acc"]["answer"] for s in samples(out, task)] == ["red", "green", "blue", "yellow"]
        plugins = res["configs"][task]["metadata"]["plugins"]
        assert [(p["kind"], p["entry_point"], p["distribution"], p["version"]) for p in plugins] == [
            ("task", "acme_widgets", "acme-widgets", "0.1"), ("metric", "acme_widgets", "acme-widgets", "0.1")]

    view = _gui_eval(["view", str(out), "--out", str(tmp_path / "view")], env)
    assert view.returncode == 0, view.stderr[-3000:]
    pages = sorted((tmp_path / "view" / "s").glob("*.html"))
    index = (tmp_path / "view" / "index.html").read_text(encoding="utf-8")
    assert len(pages) == 8 and all(task in index for task in TASKS)
    assert "What colour is the button on this screen?" in pages[0].read_text(encoding="utf-8")

    sub_path = tmp_path / "submission.json"
    submit = _gui_eval(["submit", str(out), "--out", str(sub_path)], env)
    assert submit.returncode == 0, submit.stderr[-3000:]
    sub = json.loads(sub_path.read_text(encoding="utf-8"))
    assert [t["task"] for t in sub["tasks"]] == list(TASKS) and all(t["n_samples"] == 4 for t in sub["tasks"])
    assert sub["model"]["interventions"] == ["acme_grayscale"]
    assert [(p["kind"], p["entry_point"]) for p in sub["versions"]["plugins"]] == [
        ("intervention", "acme_grayscale"), ("metric", "acme_widgets"), ("task", "acme_widgets")]
    assert len({p["files_sha256"] for p in sub["versions"]["plugins"]}) == 1  # one distribution, one hash of its files

    valid = _gui_eval(["validate", str(sub_path)], env)  # a second process: documents with PIL images hash alike
    assert valid.returncode == 0 and f"{sub_path}: valid (2 task(s), 8 responses re-scored" in valid.stdout, valid.stderr

    shot = installed / "acme_widgets" / "tasks" / "screens" / "w1.png"
    Image.new("RGB", Image.open(shot).size, (255, 255, 255)).save(shot)  # a relative-path screenshot replaced
    refused = _gui_eval(["validate", str(sub_path)], env)
    assert refused.returncode != 0 and "refused" in refused.stderr
    assert "intervention plugins differ from the installed ones" in refused.stderr  # the package's files changed


def test_a_task_outside_the_index_says_how_to_make_it_submittable():
    from gui_tasks.harness.rescore import load_task

    with pytest.raises(ValueError, match=r"task 'acme_widget_color' is not in the task index gui-eval re-scores from .*"
                                         r"--include_path cannot be re-scored or submitted: put its folder in a package "
                                         r"with that entry point"):
        load_task("acme_widget_color")
