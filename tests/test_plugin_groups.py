"""The plugin groups (gui_core.plugin_groups, issue 50): every group spelled gui_eval.<thing>, the built-in
benchmarks, families and judges found as entry points of gui-eval itself (no module list in the floor), the old group
spellings still read, a checkout without metadata found through its setup.cfg or refused naming `pip install -e .`,
and provenance recording third-party plugins of every group."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_dist import write_dist

import gui_core.benchmark
import gui_core.family
from gui_core import plugin_groups
from gui_core.plugin_groups import GROUPS, entry_points, source_entry_points
from gui_core.registry import load_records

ROOT = Path(__file__).resolve().parents[1]


def test_every_group_is_spelled_gui_eval_dot_its_kind_and_the_builtins_are_entry_points_of_gui_eval():
    assert all(g == f"gui_eval.{k}s" for k, g in GROUPS.items() if k != "family") and GROUPS["family"] == "gui_eval.families"
    own = {k: {e.name: e.value for e in entry_points(g) if e.own} for k, g in GROUPS.items()}
    assert own["benchmark"] == {p: f"gui_tasks.{p}.benchmark" for p in ("grounding", "knowledge", "mpr", "sphinx", "star")}
    assert own["family"] == {"builtin": "gui_core.families"} and own["judge"] == {"star": "gui_tasks.star.judges"}
    assert {"mpr", "pss", "sphinx"} <= set(own["metric"]) and {"blind", "crop"} <= set(own["intervention"])
    # the floor names no built-in record module: the records are found as a plugin's are
    assert not hasattr(gui_core.benchmark, "BUILTIN_MODULES") and not hasattr(gui_core.family, "BUILTIN_MODULES")
    assert _strings_naming("gui_tasks", ROOT / "gui_core") == []


def _strings_naming(package: str, folder: Path) -> list[str]:
    """String constants (docstrings left out) in ``folder``'s modules that name a module of ``package``."""
    import ast

    out = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)}
        out += [f"{path.name}:{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Constant)
                and isinstance(n.value, str) and id(n) not in docs and n.value.startswith(package + ".")]
    return out


def test_the_setup_cfg_of_the_checkout_declares_what_the_loader_reads():
    declared = source_entry_points(ROOT)
    assert declared is not None and dict(declared["gui_eval.judges"]) == {"star": "gui_tasks.star.judges"}
    assert "gui_metrics" not in declared and "gui_interventions" not in declared  # one spelling in our own setup.cfg
    assert source_entry_points(ROOT / "docs") is None  # no setup.cfg: the installed metadata is the truth


def test_a_plugin_under_an_old_group_spelling_is_still_read(tmp_path, monkeypatch):
    site = tmp_path / "site"
    write_dist(site, "acme-old", {"acme_old_metrics": "X = 1\n", "acme_old_iv": "class Steer:\n    pass\n"},
               "[gui_metrics]\nacme_old = acme_old_metrics\n\n[gui_interventions]\nacme_steer = acme_old_iv:Steer\n")
    monkeypatch.syspath_prepend(str(site))
    [metric] = [e for e in entry_points("gui_eval.metrics") if e.name == "acme_old"]
    [iv] = [e for e in entry_points("gui_eval.interventions") if e.name == "acme_steer"]
    assert (metric.group, metric.own, iv.group, iv.own) == ("gui_metrics", False, "gui_interventions", False)


def test_a_checkout_whose_metadata_lacks_the_builtins_is_refused_naming_pip_install(tmp_path, monkeypatch):
    site = tmp_path / "site"  # a gui-eval distribution first on the path whose metadata names no benchmark module
    write_dist(site, "gui-eval", {}, "[console_scripts]\ngui-eval = gui_tasks.commands.cli:main\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(plugin_groups, "SOURCE_ROOT", tmp_path)  # and no setup.cfg beside the packages
    assert [e for e in entry_points("gui_eval.benchmarks") if e.own] == []
    with pytest.raises(RuntimeError, match=r"no built-in benchmark found: .*gui_eval.benchmarks.*run `pip install -e \.`"):
        load_records("gui_eval.benchmarks", "benchmark")
    monkeypatch.setattr(plugin_groups, "SOURCE_ROOT", ROOT)  # the checkout's setup.cfg finds them
    assert {e.name for e in entry_points("gui_eval.benchmarks") if e.own} == {"grounding", "knowledge", "mpr", "sphinx",
                                                                            "star"}


JUDGE = '''
from gui_tasks.star.judge_record import Judge, Source, Verdict, register_judge

register_judge(Judge("acme_judge", ("synthetic",), "every step a match (a test judge)",
                     (Source("paper: none, a test", ("tests/test_plugin_groups.py",)),),
                     step=lambda *a, **k: Verdict(True, True, None, None, "click"), drop=lambda *a, **k: None))
'''
FAMILY = '''
from gui_core.family import Family, GroundingPrompt, register_family

register_family(Family("acme_family", "Acme family (a test)", "relative",
                       prompts=(GroundingPrompt("acme_family", "grounding-acme-v1", "Point at: {instruction}"),),
                       syntax="[x, y] in [0, 1]", sources=("tests/test_plugin_groups.py",)))
'''
CHECK = '''
import json
from gui_tasks.star.judge_record import JUDGE_REGISTRY
from gui_core.family import FAMILIES
from gui_tasks.runs.provenance import task_plugins
print(json.dumps({"judges": JUDGE_REGISTRY.names(), "families": "acme_family" in FAMILIES,
                  "plugins": sorted((r["kind"], r["entry_point"], r["distribution"]) for r in task_plugins(None))}))
'''


def test_a_judge_plugin_registers_through_its_group_and_provenance_records_every_group(tmp_path):
    site = tmp_path / "site"
    write_dist(site, "acme-judge", {"acme_judge": JUDGE, "acme_family": FAMILY},
               "[gui_eval.judges]\nacme_judge = acme_judge\n\n[gui_eval.families]\nacme_family = acme_family\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", CHECK], cwd=site, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["judges"][:2] == ["star", "paper"] and got["judges"][-1] == "acme_judge" and got["families"]
    assert got["plugins"] == [["family", "acme_family", "acme-judge"], ["judge", "acme_judge", "acme-judge"]]
