"""Third-party task packages (entry-point group ``gui_eval.tasks``) reach lmms-eval's index: --tasks and tasks list."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fake_dist import write_dist

from gui_tasks.lmms_integration import install_task_path, plugin_task_dirs, yaml_tasks_dir

TASK = "acme_mpr_synth_en_tiny"


def _package_source(root: Path) -> Path:
    """A tiny third-party package: one YAML task (our synthetic MPR rows, one question per dimension)."""
    src = root / "acme-gui-tasks"
    pkg = src / "acme_gui_tasks" / "tasks"
    pkg.mkdir(parents=True)
    (src / "acme_gui_tasks" / "__init__.py").write_text('"""Acme GUI tasks."""\n', encoding="utf-8")
    (pkg / "__init__.py").write_text('"""Task YAMLs (the folder is what lmms-eval indexes)."""\n', encoding="utf-8")
    ours = (yaml_tasks_dir() / "mpr_gui" / "mpr_gui_synth_en.yaml").read_text(encoding="utf-8")
    yaml = ours.replace("task: mpr_gui_synth_en", f"task: {TASK}").replace("per_dimension: 8", "per_dimension: 1")
    (pkg / f"{TASK}.yaml").write_text(yaml.split("\n", 1)[1], encoding="utf-8")  # without our "generated" header
    (src / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
                                        encoding="utf-8")
    (src / "setup.cfg").write_text(textwrap.dedent("""\
        [metadata]
        name = acme-gui-tasks
        version = 0.1

        [options]
        packages = find:
        include_package_data = True

        [options.package_data]
        acme_gui_tasks.tasks = *.yaml

        [options.entry_points]
        gui_eval.tasks =
            acme = acme_gui_tasks.tasks
        """), encoding="utf-8")
    return src


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip install`` of the package into a private target folder (offline: no index, no build isolation)."""
    root = tmp_path_factory.mktemp("acme")
    target = root / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
           "--target", str(target), str(_package_source(root))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return target


def test_installed_task_package_is_indexed_by_lmms_eval(installed, monkeypatch, session_cache):
    monkeypatch.syspath_prepend(str(installed))
    assert plugin_task_dirs() == [str(installed / "acme_gui_tasks" / "tasks")]
    from lmms_eval.tasks import TaskManager, get_task_dict

    install_task_path()
    tm = TaskManager(verbosity="ERROR", include_defaults=False)
    assert TASK in tm.all_tasks and "mpr_gui_synth_en" in tm.all_tasks
    task = get_task_dict([TASK], tm)[TASK]
    assert len(task.eval_docs) == 8 and {d["dimension"] for d in task.eval_docs} == {"AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"}


def test_broken_task_plugin_is_named_and_skipped(tmp_path, monkeypatch, capsys):
    write_dist(tmp_path, "acme-broken-tasks", {"acme_broken_tasks": "raise ImportError('missing yaml folder')\n"},
               "[gui_eval.tasks]\nbroken = acme_broken_tasks\n")
    write_dist(tmp_path, "acme-nowhere", {"acme_nowhere": "def folder():\n    return '/nonexistent/acme'\n"},
               "[gui_eval.tasks]\nnowhere = acme_nowhere:folder\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert plugin_task_dirs() == []
    err = capsys.readouterr().err
    assert "task plugin 'broken' (acme_broken_tasks) failed to load: ImportError('missing yaml folder')" in err
    assert "task plugin 'nowhere' (acme_nowhere:folder) names no folder of task YAMLs: ['/nonexistent/acme']" in err


@pytest.mark.slow
def test_plain_lmms_eval_lists_and_runs_the_installed_task(installed, tmp_path, tiny_checkpoint, subprocess_env):
    from gui_tasks.cli import lmms_eval_command
    from lmms_helpers import results, run

    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(installed), subprocess_env["PYTHONPATH"]])}
    proc, out = run([sys.executable, "-c", "from lmms_eval.cli.dispatch import main; main()", "tasks", "list"], env)
    assert TASK in out, out[-2000:]
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", [TASK], tmp_path / "run", limit=2), env)
    res = results(tmp_path / "run")["results"][TASK]
    assert "mcq_acc,none" in res and "fpr_acc,none" in res, log[-3000:]
