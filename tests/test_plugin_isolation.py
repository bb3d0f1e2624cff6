"""Plugin isolation: a broken or colliding third-party plugin is named and left out; every other plugin keeps working."""

from __future__ import annotations

import os
import sys

import pytest
from fake_dist import write_dist

from gui_interventions import available, build_run
from gui_interventions.manager import broken
from gui_metrics import all_metrics, get_plugin_manager, plugin_failures
from gui_tasks.commands.cli import main as cli_main

GOOD = '''
import pluggy
from gui_metrics import MetricSpec
hookimpl = pluggy.HookimplMarker("gui_metrics")

@hookimpl
def gui_metrics_register():
    return [MetricSpec("acme_rate", lambda v: 0.5, True, frozenset({"mcq"}), "acme")]
'''
DUPLICATE = GOOD.replace('"acme_rate"', '"mcq_acc"')
RAISES = GOOD.replace("return [", "raise RuntimeError('register exploded')\n    return [")


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """A temporary site folder on sys.path; the plugin managers are rebuilt before and after."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    monkeypatch.undo()
    for name in set(sys.modules) - before:
        if name.startswith("acme"):
            del sys.modules[name]
    get_plugin_manager(fresh=True)
    all_metrics()


def test_clean_install_has_no_failures():
    all_metrics(fresh=True)
    assert plugin_failures() == []


def test_broken_metric_plugin_is_named_and_the_builtins_survive(site, capsys):
    n_builtin = len(all_metrics(fresh=True))
    write_dist(site, "acme-broken", {"acme_broken": "import no_such_module_xyz\n"}, "[gui_metrics]\nacme_broken = acme_broken\n")
    write_dist(site, "acme-good", {"acme_good": GOOD}, "[gui_metrics]\nacme_good = acme_good\n")
    table = all_metrics(fresh=True)
    assert "'acme_broken' (acme-broken: acme_broken) left out: import failed: ModuleNotFoundError" in capsys.readouterr().err
    assert len(table) == n_builtin + 1 and {"mcq_acc", "fpr_acc", "mpr_acc_si", "acme_rate"} <= set(table)
    [failure] = plugin_failures()
    assert failure.plugin == "acme_broken" and failure.source == "acme-broken: acme_broken" and "ModuleNotFoundError" in failure.error
    assert cli_main(["metrics"]) == 1
    out, err = capsys.readouterr()
    assert "mcq_acc\thigher" in out and "acme_rate" in out
    assert "plugin 'acme_broken' (acme-broken: acme_broken) left out: import failed: ModuleNotFoundError" in err
    assert "1 plugin(s) left out: acme_broken" in err


def test_metric_name_collision_names_both_plugins_and_keeps_the_builtin(site):
    builtin = all_metrics(fresh=True)["mcq_acc"]
    write_dist(site, "acme-dup", {"acme_dup": DUPLICATE}, "[gui_metrics]\nacme_dup = acme_dup\n")
    table = all_metrics(fresh=True)
    assert table["mcq_acc"] is not builtin or table["mcq_acc"].description == builtin.description
    assert table["mcq_acc"].description != "acme"
    [failure] = plugin_failures()
    assert "metric 'mcq_acc' is defined by both 'mpr' (gui-eval: gui_metrics.mpr) and 'acme_dup' (acme-dup: acme_dup)" in failure.error


def test_duplicate_metric_does_not_break_the_lmms_eval_model_entry_point(site):
    write_dist(site, "acme-dup", {"acme_dup": DUPLICATE}, "[gui_metrics]\nacme_dup = acme_dup\n")
    from gui_tasks.harness.lmms_integration import manifests

    get_plugin_manager(fresh=True)
    got = manifests()  # raised before, so lmms-eval later said "Model 'gui_hf' not found"
    assert [m.model_id for m in got] == ["gui_hf", "gui_wrap", "gui_openai"]
    assert "acme_dup" in str(plugin_failures())


@pytest.mark.parametrize("source, message", [
    (RAISES, r"gui_metrics_register raised RuntimeError\('register exploded'\)"),
    (GOOD.replace('return [MetricSpec("acme_rate", lambda v: 0.5, True, frozenset({"mcq"}), "acme")]', 'return ["acme_rate"]'),
     "returned str, expected MetricSpec"),
    ("x = 1\n", "implements no gui_metrics_register hook"),
    (GOOD + "\n@hookimpl\ndef gui_metrics_unknown():\n    pass\n", r"unknown hook\(s\) \['gui_metrics_unknown'\]"),
])
def test_each_kind_of_bad_metric_plugin_is_reported_by_name(site, source, message):
    write_dist(site, "acme-bad", {"acme_bad": source}, "[gui_metrics]\nacme_bad = acme_bad\n")
    table = all_metrics(fresh=True)
    assert "mcq_acc" in table and "acme_rate" not in table
    [failure] = plugin_failures()
    assert failure.plugin == "acme_bad"
    assert __import__("re").search(message, failure.error), failure.error


def test_broken_intervention_plugin_is_reported_as_broken_not_unknown(site):
    write_dist(site, "acme-steer", {"acme_steer": "raise ImportError('needs libfoo')\n"},
               "[gui_interventions]\nacme_steer = acme_steer:Steer\n")
    with pytest.raises(ValueError, match=r"intervention 'acme_steer' is installed but broken: .*failed to load: ImportError\('needs libfoo'\)"):
        build_run("acme_steer")
    with pytest.warns(UserWarning, match="acme_steer"):
        assert "crop" in available() and "acme_steer" not in available()
    assert build_run("prompt_affix", {"prompt_affix.suffix": "x"}).names == ["prompt_affix"]


def test_intervention_entry_point_naming_a_module_gets_a_clear_message(site):
    write_dist(site, "acme-mod", {"acme_mod": "class Steer:\n    pass\n"}, "[gui_interventions]\nacme_mod = acme_mod\n")
    with pytest.raises(ValueError, match="names a module, not a class or factory; write it as 'module:ClassName'"):
        build_run("acme_mod")


def test_intervention_shadowing_a_builtin_is_reported_and_the_builtin_still_runs(site, capsys):
    from gui_interventions.blind import Blind

    write_dist(site, "acme-blind", {"acme_blind": "class Blind:\n    pass\n"}, "[gui_interventions]\nblind = acme_blind:Blind\n")
    assert broken() == {"blind (acme-blind)": "intervention 'blind' of acme-blind: acme_blind:Blind shadows the built-in "
                                              "gui-eval: gui_interventions.blind:Blind and is left out (the built-in "
                                              "runs); rename it"}
    [(name, plugin)] = build_run("blind").plugins
    assert name == "blind" and type(plugin) is Blind
    assert "intervention 'blind' of acme-blind: acme_blind:Blind shadows the built-in" in capsys.readouterr().err


def test_two_third_party_interventions_of_one_name_are_both_left_out(site):
    write_dist(site, "acme-one", {"acme_one": "class Steer:\n    pass\n"}, "[gui_interventions]\nsteer = acme_one:Steer\n")
    write_dist(site, "acme-two", {"acme_two": "class Steer:\n    pass\n"}, "[gui_interventions]\nsteer = acme_two:Steer\n")
    assert "registered twice: by acme-one: acme_one:Steer and by acme-two: acme_two:Steer" in broken()["steer"]
    with pytest.raises(ValueError, match="'steer' is installed but broken"):
        build_run("steer")


def test_metric_named_like_an_lmms_eval_aggregation_is_left_out_and_the_rest_registered(site, capsys):
    from lmms_eval.api import registry as reg

    from gui_metrics.lmms_bridge import register_with_lmms_eval

    write_dist(site, "acme-mean", {"acme_mean": GOOD.replace('"acme_rate"', '"mean"')}, "[gui_metrics]\nacme_mean = acme_mean\n")
    all_metrics(fresh=True)
    register_with_lmms_eval()
    err = capsys.readouterr().err
    assert "metric 'mean' of plugin 'acme_mean' (acme-mean: acme_mean) left out: lmms-eval already has an aggregation" in err
    assert getattr(reg.AGGREGATION_REGISTRY["mean"], "__gui_metric__", None) is None  # lmms-eval's own, untouched
    assert reg.AGGREGATION_REGISTRY["mcq_acc"].__gui_metric__ == "mcq_acc"


# --- issue 21, item 4: a plugin that calls sys.exit (any BaseException but KeyboardInterrupt) is named and left out --

EXITS = "import sys\nsys.exit(3)\n"


def test_metric_plugin_exiting_at_import_is_named_and_gui_eval_metrics_lists_the_rest(site, capsys):
    n_builtin = len(all_metrics(fresh=True))
    write_dist(site, "acme-exit", {"acme_exit": EXITS}, "[gui_metrics]\nacme_exit = acme_exit\n")
    write_dist(site, "acme-good", {"acme_good": GOOD}, "[gui_metrics]\nacme_good = acme_good\n")
    table = all_metrics(fresh=True)
    assert len(table) == n_builtin + 1 and "acme_rate" in table
    [failure] = plugin_failures()
    assert failure.plugin == "acme_exit"
    assert failure.error == (f"import failed: SystemExit(3) at {site / 'acme_exit.py'}:2 "
                             "(GUI_EVAL_PLUGIN_TRACEBACK=1 shows the traceback)")
    assert cli_main(["metrics"]) == 1
    out, err = capsys.readouterr()
    assert "mcq_acc\thigher" in out and "acme_rate" in out
    assert "plugin 'acme_exit' (acme-exit: acme_exit) left out: import failed: SystemExit(3)" in err
    assert "1 plugin(s) left out: acme_exit" in err


def test_metric_plugin_exiting_in_its_register_hook_is_named(site):
    write_dist(site, "acme-exit", {"acme_exit": GOOD.replace("return [", "raise SystemExit('bye')\n    return [")},
               "[gui_metrics]\nacme_exit = acme_exit\n")
    table = all_metrics(fresh=True)
    assert "mcq_acc" in table and "acme_rate" not in table
    [failure] = plugin_failures()
    assert failure.plugin == "acme_exit"
    assert failure.error.startswith(f"gui_metrics_register raised SystemExit('bye') at {site / 'acme_exit.py'}:8 ")


def test_intervention_plugin_exiting_at_import_is_broken_not_fatal(site):
    write_dist(site, "acme-exit", {"acme_exit_iv": EXITS}, "[gui_interventions]\nacme_exit = acme_exit_iv:Thing\n")
    assert {"crop", "gui_xli"} <= set(available())
    assert broken()["acme_exit"] == ("intervention plugin 'acme_exit' (acme-exit: acme_exit_iv:Thing) failed to load: "
                                     f"SystemExit(3) at {site / 'acme_exit_iv.py'}:2 (GUI_EVAL_PLUGIN_TRACEBACK=1 shows "
                                     "the traceback)")
    with pytest.raises(ValueError, match="SystemExit"):
        build_run("acme_exit")


def test_task_plugin_exiting_at_import_is_named_and_skipped(site, capsys):
    from gui_tasks.harness.lmms_integration import plugin_task_dirs

    write_dist(site, "acme-exit", {"acme_exit_tasks": EXITS}, "[gui_eval.tasks]\nacme_exit = acme_exit_tasks\n")
    assert plugin_task_dirs() == []
    assert "task plugin 'acme_exit' (acme_exit_tasks) failed to load: SystemExit(3)" in capsys.readouterr().err


def test_keyboard_interrupt_from_a_plugin_still_stops(site):
    write_dist(site, "acme-int", {"acme_int": "raise KeyboardInterrupt\n"}, "[gui_metrics]\nacme_int = acme_int\n")
    with pytest.raises(KeyboardInterrupt):
        all_metrics(fresh=True)


def test_lmms_eval_indexes_our_tasks_and_backends_despite_exiting_plugins(tmp_path, subprocess_env):
    import subprocess

    site = tmp_path / "site"
    for group, module in (("gui_metrics", "acme_exit_m"), ("gui_interventions", "acme_exit_i"), ("gui_eval.tasks", "acme_exit_t")):
        write_dist(site, f"acme-{module}", {module: EXITS}, f"[{group}]\n{module} = {module}\n")
    code = ("from lmms_eval.tasks import TaskManager\n"
            "from gui_tasks.harness.lmms_integration import install_task_path, manifests\n"
            "from gui_metrics import all_metrics\n"
            "install_task_path()\n"
            "tm = TaskManager(verbosity='ERROR', include_defaults=False)\n"
            "print('TASKS', 'mpr_gui_synth_en' in tm.all_tasks, 'gui_knowledge_synth' in tm.all_tasks or len(tm.all_tasks) > 20)\n"
            "print('MODELS', [m.model_id for m in manifests()])\n"
            "print('METRICS', 'mcq_acc' in all_metrics())\n")
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(site), subprocess_env["PYTHONPATH"]])}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "TASKS True True" in proc.stdout and "MODELS ['gui_hf', 'gui_wrap', 'gui_openai']" in proc.stdout and "METRICS True" in proc.stdout
    assert "task plugin 'acme_exit_t' (acme_exit_t) failed to load: SystemExit(3)" in proc.stderr
    assert "'acme_exit_m' (acme-acme_exit_m: acme_exit_m) left out: import failed: SystemExit(3)" in proc.stderr
