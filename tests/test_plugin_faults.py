"""One plugin, one fault (issue 54 item 5): a plugin that calls ``sys.exit`` at import, a record with a number where a
string belongs, a record that would claim built-in tasks: each is named on stderr and skipped; the command (and an
lmms-eval run of a healthy task) completes with every built-in record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_dist import write_dist

from gui_core.registry import Registry
from gui_core.record_types import record_problem

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ("gui_eval.benchmarks", "gui_eval.families", "gui_metrics", "gui_interventions", "gui_eval.tasks",
          "gui_viewer")
EXITS = "import sys\nsys.exit(3)\n"
# A valid record built from a built-in one, with one field changed (what a plugin author's typo looks like).
BAD_TITLE = """
import dataclasses
from gui_core.benchmark import benchmark, register_benchmark
register_benchmark(dataclasses.replace(benchmark("mpr_gui"), name="acme_bad", title=3,
                                       match=(("benchmark", "acme_bad"),)))
"""
TAKEOVER = """
import dataclasses
from gui_core.benchmark import benchmark, register_benchmark
register_benchmark(dataclasses.replace(benchmark("mpr_gui"), name="acme_takeover", title="Takeover",
                                       match=(("benchmark", "mpr_gui"), ("source", "synthetic"), ("lang", "en"))))
"""
VIEWED = """
import dataclasses
from gui_core.benchmark import benchmark, register_benchmark
register_benchmark(dataclasses.replace(benchmark("mpr_gui"), name="acme_viewed", title="Viewed",
                                       match=(("benchmark", "acme_viewed"),), viewing="acme_exits"))
"""
BAD_FAMILY = """
import dataclasses
from gui_core.family import family, register_family
register_family(dataclasses.replace(family("qwen2_vl"), name="acme_family", title=["not", "a", "string"]))
"""


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    write_dist(site, "acme-exits", {"acme_exits": EXITS},
               "".join(f"[{group}]\nacme_exit = acme_exits\n\n" for group in GROUPS))
    write_dist(site, "acme-records", {"acme_bad": BAD_TITLE, "acme_takeover": TAKEOVER, "acme_family": BAD_FAMILY,
                                         "acme_viewed": VIEWED},
               "[gui_eval.benchmarks]\nacme_bad = acme_bad\nacme_takeover = acme_takeover\nacme_viewed = acme_viewed\n\n"
               "[gui_eval.families]\nacme_family = acme_family\n")
    return site


def _env(site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")])}


def test_exiting_and_ill_typed_plugins_are_named_and_skipped_by_gui_eval_benchmarks(tmp_path):
    site = _site(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", "benchmarks", "--json"], cwd=tmp_path,
                          env=_env(site), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = [r["name"] for r in json.loads(proc.stdout)]
    assert "mpr_gui" in names and "acme_bad" not in names and "acme_takeover" not in names
    err = proc.stderr
    assert "benchmark plugin 'acme_exit' (acme-exits: acme_exits) failed to load and is skipped: SystemExit(3)" in err
    assert "benchmark 'acme_bad' refused: field title is int 3, expected str" in err
    assert "benchmark plugin 'acme_bad' (acme-records: acme_bad)" in err
    assert ("benchmark 'acme_takeover' of benchmark plugin 'acme_takeover' (acme-records: acme_takeover) refused" in err
            and "built-in benchmark 'mpr_gui_synth'" in err), err
    mpr = next(r for r in json.loads(proc.stdout) if r["name"] == "mpr_gui_synth")
    assert "mpr_gui_synth_en" in mpr["tasks"]  # still the built-in's


def test_exiting_and_ill_typed_family_plugins_leave_the_families(tmp_path):
    site = _site(tmp_path)
    code = "from gui_core.family import FAMILIES; print('qwen2_vl' in FAMILIES, 'acme_family' in FAMILIES)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(site), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "False"]
    assert "family plugin 'acme_exit' (acme-exits: acme_exits) failed to load and is skipped: SystemExit(3)" in proc.stderr
    assert "family 'acme_family' refused: field title is list ['not', 'a', 'string'], expected str" in proc.stderr


def test_gui_eval_interventions_and_metrics_survive_an_exiting_plugin(tmp_path):
    site = _site(tmp_path)
    code = ("from gui_metrics.manager import all_metrics, plugin_failures\n"
            "from gui_interventions.manager import available, broken\n"
            "print(len(all_metrics()) > 0, len(available()) > 0)\n"
            "print([f.plugin for f in plugin_failures()], sorted(broken()))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(site), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["True True", "['acme_exit'] ['acme_exit']"]


def test_a_viewing_module_that_exits_at_import_is_a_note_of_the_viewer(tmp_path):
    site = _site(tmp_path)
    code = ("from gui_tasks.viewer.plugins import ViewerPlugins\n"
            "p = ViewerPlugins()\n"
            "print('mpr_gui' in p.viewing, 'acme_viewed' in p.viewing)\n"
            "print(*p.notes, sep='\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(site), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "True False"
    assert "viewing module 'acme_exits' of benchmark 'acme_viewed' left out: SystemExit: 3" in lines
    assert any(n.startswith("viewer plugin 'acme_exit' (acme-exits: acme_exits) left out") for n in lines)


def test_a_registry_refuses_a_record_with_a_field_of_the_wrong_type():
    import dataclasses

    from gui_tasks.star.judge_record import JUDGE_REGISTRY
    from gui_tasks.star import judges  # noqa: F401 - registers the built-in judges

    reg: Registry = Registry("judge")
    judge = dataclasses.replace(JUDGE_REGISTRY.get("star"), name="acme")
    object.__setattr__(judge, "rule", 42)  # what a plugin's record with a typo holds
    with pytest.raises(ValueError, match=r"judge 'acme' refused: field rule is int 42, expected str"):
        reg.register("acme", judge)
    assert "acme" not in reg


def test_record_problem_reads_nested_records_and_tuples():
    from gui_core.family import family

    import dataclasses

    fam = family("qwen2_vl")
    assert record_problem(fam) is None
    prompt = dataclasses.replace(fam.prompts[0])
    object.__setattr__(prompt, "template", b"bytes")
    broken = dataclasses.replace(fam)
    object.__setattr__(broken, "prompts", (prompt,))
    assert record_problem(broken) == "prompts[0].template is bytes b'bytes', expected str"
    object.__setattr__(broken, "prompts", [prompt])
    problem = record_problem(broken)
    assert problem.startswith("prompts is list [GroundingPrompt(") and problem.endswith(", expected a tuple")


@pytest.mark.slow
def test_an_lmms_eval_run_of_a_healthy_task_completes_beside_an_exiting_plugin(tmp_path, tiny_checkpoint,
                                                                               subprocess_env):
    from gui_tasks.commands.cli import lmms_eval_command
    from lmms_helpers import results, run

    site = _site(tmp_path)
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(site), subprocess_env["PYTHONPATH"]])}
    task = "mpr_gui_synth_en"
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", [task], tmp_path / "run", limit=2),
                    env)
    assert "acme_exit" in log and "SystemExit(3)" in log, log[-3000:]
    res = results(tmp_path / "run")["results"][task]
    assert "mcq_acc,none" in res, log[-3000:]
