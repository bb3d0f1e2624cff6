"""Third-party task packages (entry-point group ``gui_eval.tasks``) reach lmms-eval's index: --tasks and tasks list."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fake_dist import write_dist

from gui_tasks.harness.lmms_integration import install_task_path, plugin_task_dirs, yaml_tasks_dir
from gui_tasks.harness.thin_yaml import inline

TASK = "acme_mpr_synth_en_tiny"


def _package_source(root: Path) -> Path:
    """A tiny third-party package: one YAML task (our synthetic MPR rows, one question per dimension)."""
    src = root / "acme-gui-tasks"
    pkg = src / "acme_gui_tasks" / "tasks"
    pkg.mkdir(parents=True)
    (src / "acme_gui_tasks" / "__init__.py").write_text('"""Acme GUI tasks."""\n', encoding="utf-8")
    (pkg / "__init__.py").write_text('"""Task YAMLs (the folder is what lmms-eval indexes)."""\n', encoding="utf-8")
    ours = inline(yaml_tasks_dir() / "mpr" / "mpr_gui_synth_en.yaml")
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
    from gui_tasks.commands.cli import lmms_eval_command
    from lmms_helpers import results, run

    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(installed), subprocess_env["PYTHONPATH"]])}
    proc, out = run([sys.executable, "-c", "from lmms_eval.cli.dispatch import main; main()", "tasks", "list"], env)
    assert TASK in out, out[-2000:]
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", [TASK], tmp_path / "run", limit=2), env)
    res = results(tmp_path / "run")["results"][TASK]
    assert "mcq_acc,none" in res and "fpr_acc,none" in res, log[-3000:]


# --- issue 30: one broken or shadowing plugin file never stops the index; names taken by built-ins stay theirs ------

BAD_YAML = "task: acme_widgetcap\nmetric_list: [\n  - oops\n"  # a YAML syntax error on line 3
FINE_YAML = "task: acme_fine\ndataset_path: json\noutput_type: generate_until\n"


def _yaml_plugin(site: Path, files: dict[str, str], package: str) -> Path:
    """An installed task package ``package`` (distribution acme-yaml, entry point acme_yaml) whose folder holds
    ``files`` (name -> YAML text); one package name per test (the module stays imported)."""
    write_dist(site, "acme-yaml", {f"{package}.__init__": '"""YAMLs."""\n'}, f"[gui_eval.tasks]\nacme_yaml = {package}\n")
    for fname, text in files.items():
        (site / package / fname).write_text(text, encoding="utf-8")
    return site / package


def _ours(task: str) -> str:
    ours = inline(yaml_tasks_dir() / "mpr" / "mpr_gui_synth_en.yaml")
    return ours.replace("task: mpr_gui_synth_en", f"task: {task}").split("\n", 1)[1]


def test_a_plugin_yaml_that_does_not_parse_is_named_and_the_rest_is_indexed(tmp_path, monkeypatch, capsys):
    folder = _yaml_plugin(tmp_path, {"widgetcap.yaml": BAD_YAML, "fine.yaml": FINE_YAML,
                                     "shadow.yaml": _ours("mpr_gui_synth_en")}, "acme_yaml_bad")
    monkeypatch.syspath_prepend(str(tmp_path))
    from lmms_eval.tasks import TaskManager

    install_task_path()
    tm = TaskManager(verbosity="ERROR", include_defaults=False)
    assert "acme_fine" in tm.all_tasks and "acme_widgetcap" not in tm.all_tasks
    assert tm.task_index["acme_fine"]["yaml_path"] == str(folder / "fine.yaml")
    assert tm.task_index["mpr_gui_synth_en"]["yaml_path"] == str(yaml_tasks_dir() / "mpr" / "mpr_gui_synth_en.yaml")
    err = capsys.readouterr().err
    assert (f"task plugin 'acme_yaml' (acme-yaml: acme_yaml_bad): task file {folder / 'widgetcap.yaml'} left out (it "
            f"does not load): ParserError: while parsing a flow node; expected the node content, but found '-' at "
            f"{folder / 'widgetcap.yaml'}:3:3") in err
    assert (f"task plugin 'acme_yaml' (acme-yaml: acme_yaml_bad): task 'mpr_gui_synth_en' ({folder / 'shadow.yaml'}) "
            f"is shadowed by gui-eval's built-in {yaml_tasks_dir() / 'mpr' / 'mpr_gui_synth_en.yaml'} and left out") in err


def test_an_aggregation_typo_is_refused_when_the_task_is_selected(tmp_path, monkeypatch):
    from lmms_eval.tasks import TaskManager, get_task_dict

    from gui_tasks.harness.lmms_integration import TaskConfigError, attach

    _yaml_plugin(tmp_path, {"typo.yaml": _ours("acme_typo").replace("aggregation: fpr_acc", "aggregation: fpr_ac", 1)}, "acme_yaml_typo")
    monkeypatch.syspath_prepend(str(tmp_path))
    attach()
    tm = TaskManager(verbosity="ERROR", include_defaults=False)
    message = (r"task acme_typo: refused before any model time is spent: metric 'fpr_acc': aggregation 'fpr_ac' is not "
               r"registered \(did you mean fpr_acc")
    with pytest.raises(TaskConfigError, match=message):  # lmms-eval's CLI matches the names before it loads the model
        tm.match_tasks(["acme_typo"])
    with pytest.raises(TaskConfigError, match=message):  # any other path: when the task is built
        get_task_dict(["acme_typo"], tm)


def test_a_task_whose_metric_plugin_is_broken_is_refused_naming_the_plugin(tmp_path, monkeypatch):
    from lmms_eval.tasks import TaskManager

    from gui_metrics import all_metrics, get_plugin_manager
    from gui_tasks.harness.lmms_integration import TaskConfigError, attach

    yaml = _ours("acme_needs_plugin").replace("aggregation: fpr_acc", "aggregation: acme_broken_rate", 1)
    _yaml_plugin(tmp_path, {"needs.yaml": yaml}, "acme_yaml_needs")
    write_dist(tmp_path, "acme-broken-metric", {"acme_broken_metric": "raise ImportError('needs libfoo')\n"},
               "[gui_metrics]\nacme_broken_metric = acme_broken_metric\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        all_metrics(fresh=True)
        attach()
        tm = TaskManager(verbosity="ERROR", include_defaults=False)
        with pytest.raises(TaskConfigError, match=r"aggregation 'acme_broken_rate' is not registered.*metric plugins left "
                                                  r"out: gui_metrics plugin 'acme_broken_metric' .*ImportError\('needs libfoo'\)"):
            tm.match_tasks(["acme_needs_plugin"])
    finally:
        monkeypatch.undo()
        get_plugin_manager(fresh=True)
        all_metrics()


@pytest.mark.slow
def test_lmms_eval_tasks_list_names_the_bad_file_and_reports_shadowed_names(tmp_path, subprocess_env):
    folder = _yaml_plugin(tmp_path, {"widgetcap.yaml": BAD_YAML, "fine.yaml": FINE_YAML, "mme.yaml": FINE_YAML.replace("acme_fine", "mme"),
                                     "shadow.yaml": _ours("mpr_gui_synth_en")}, "acme_yaml_list")
    from lmms_helpers import run

    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(tmp_path), subprocess_env["PYTHONPATH"]])}
    proc, out = run([sys.executable, "-c", "from lmms_eval.cli.dispatch import main; main()", "tasks", "list"], env)
    assert proc.returncode == 0, out[-3000:]
    names = {line.strip() for line in proc.stdout.splitlines() if line.startswith("  ")}
    assert {"acme_fine", "mme", "mpr_gui_synth_en"} <= names and "acme_widgetcap" not in names
    assert f"task file {folder / 'widgetcap.yaml'} left out (it does not load): ParserError" in proc.stderr
    assert f"{folder / 'widgetcap.yaml'}:3:3" in proc.stderr
    assert f"task 'mme' ({folder / 'mme.yaml'}) is shadowed by lmms-eval's own " in proc.stderr
    assert f"task 'mpr_gui_synth_en' ({folder / 'shadow.yaml'}) is shadowed by gui-eval's built-in" in proc.stderr
