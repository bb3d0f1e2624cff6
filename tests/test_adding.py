"""docs/adding.md, executed: the toy benchmark added from one module (plus its task YAMLs and docs page) appears in
``gui-eval benchmarks``, ``gui-eval data check``, the grounding report's benchmarks, the grounding sources and
``gui-eval submit``'s completeness rule; the toy family added from one module is a family, a prompt and a YAML task.
Every file is taken from the page itself, so the page cannot drift from what works."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from PIL import Image

from fake_dist import write_dist
from gui_tasks.commands.cli import lmms_eval_command

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding.md"
BLOCK = re.compile(r"```(?:python|yaml|ini|toml)\n# file: (\S+)\n(.*?)```", re.S)


def page_files() -> dict[str, str]:
    return {name: body for name, body in BLOCK.findall(PAGE.read_text(encoding="utf-8"))}


def entry_points_txt(pyproject: str) -> str:
    """The ``entry_points.txt`` an install of ``pyproject`` writes (its ``[project.entry-points.*]`` tables)."""
    groups = tomllib.loads(pyproject)["project"]["entry-points"]
    return "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for group, eps in groups.items())


def _run(args: list[str], site: Path, copy: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "TOY_GROUNDING_DATA_DIR": str(copy)}
    return subprocess.run([sys.executable, *args], cwd=site, env=env, capture_output=True, text=True, timeout=300)


CHECKS = """
from gui_core.benchmark import benchmark
from gui_core.family import family
from gui_core.grounding_prompts import build_prompt, protocol
from gui_tasks.grounding.lmms_task import SOURCES, task_rows
from gui_tasks.grounding.report import BENCHMARKS as REPORTED
from gui_tasks.grounding.yaml_spec import render_all
from gui_tasks.submit.leaderboard import completeness_gaps
from gui_tasks.runs.results_io import reports

print(benchmark("toy_grounding").title)
print("source", "toy_grounding" in SOURCES, len(task_rows({"source": "toy_grounding"})))
print("report", "toy_grounding" in REPORTED, reports()["toy_grounding"])
meta = {"benchmark": "toy_grounding", "source": "toy_grounding"}
print("gaps", completeness_gaps([{"task": "gui_toy_grounding", "protocol": "p", "metadata": meta}]))
print("gaps", completeness_gaps([{"task": t, "protocol": "p", "metadata": meta}
                                 for t in ("gui_toy_grounding", "gui_toy_grounding_strict")]))
print("family", family("toy_family").frame, protocol("toy_family"), build_prompt("Save", "toy_family", 10, 10, None))
print("yaml", "gui_screenspot_toy_family.yaml" in render_all())
"""


def test_the_worked_examples_of_docs_adding(tmp_path):
    files = page_files()
    assert set(files) == {"toy_grounding.py", "toy_tasks/gui_toy_grounding.yaml",
                          "toy_tasks/gui_toy_grounding_strict.yaml", "entry_points.txt", "toy_family.py",
                          "pyproject.toml"}
    site = tmp_path / "site"
    modules = {name[:-3].replace("/", "."): body for name, body in files.items() if name.endswith(".py")}
    write_dist(site, "toy-grounding", modules, files["entry_points.txt"] + "\n" + entry_points_txt(files["pyproject.toml"]))
    for name, body in files.items():
        if name.endswith(".yaml"):
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_text(body, encoding="utf-8")
    copy = tmp_path / "copy"
    copy.mkdir()
    for i in range(2):
        Image.new("RGB", (40, 30), (255, 255, 255)).save(copy / f"s{i}.png")
    (copy / "rows.json").write_text(json.dumps([{"instruction": f"button {i}", "image": f"s{i}.png",
                                                 "box": [4, 4, 20, 20]} for i in range(2)]), encoding="utf-8")

    listed = _run(["-m", "gui_tasks.commands.cli", "benchmarks", "--json"], site, copy)
    assert listed.returncode == 0, listed.stderr
    toy = next(r for r in json.loads(listed.stdout) if r["name"] == "toy_grounding")
    assert toy["tasks"] == ["gui_toy_grounding", "gui_toy_grounding_strict"]
    assert toy["data"]["env"] == "TOY_GROUNDING_DATA_DIR" and toy["report"]["command"] == "gui-eval pss-report"
    assert toy["data_check"] == {"command": "gui-eval data check toy_grounding", "function": "toy_grounding:data_check"}
    assert toy["submission"]["completeness"] == "toy_grounding:completeness_gaps"
    assert toy["record"]["docs"] == "docs/adding.md" and all(toy[k] for k in ("sources", "title"))

    checked = _run(["-m", "gui_tasks.commands.cli", "data", "check", "toy_grounding", "--no-images"], site, copy)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith(f"toy_grounding: {copy}") and re.search(r"gui_toy_grounding\s+2\s+2", checked.stdout)

    ran = _run(["-c", CHECKS], site, copy)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "Toy grounding (docs/adding.md)",
        "source True 2",
        "report True pss-report",
        "gaps ['toy_grounding: add --tasks gui_toy_grounding_strict']",
        "gaps []",
        "family relative grounding-toy-family-v1 Point at: Save",
        "yaml True",
    ]


FAMILY_TASKS = ("icon_localization_synth_toy_family", "gui_screenspot_toy_family", "gui_screenspot_pro_toy_family",
                "gui_screenspot_pro_cn_toy_family", "gui_osworld_g_toy_family", "gui_osworld_g_refined_toy_family",
                "gui_mmbench_gui_l2_toy_family")


@pytest.mark.slow
def test_the_family_plugin_installed_with_its_pyproject_gets_tasks_that_run_and_submit(tmp_path, tiny_checkpoint,
                                                                                         subprocess_env):
    """pip install of the page's family package (pyproject.toml + toy_family.py); then lmms-eval lists its grounding
    tasks, runs one in full, and ``gui-eval submit`` accepts the run."""
    from lmms_helpers import results, run, samples

    files = page_files()
    src = tmp_path / "toy-family"
    src.mkdir()
    for name in ("pyproject.toml", "toy_family.py"):
        (src / name).write_text(files[name], encoding="utf-8")
    site = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation",
                          "--no-deps", "--target", str(site), str(src)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr[-3000:]
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(site), subprocess_env["PYTHONPATH"]])}

    listed, log = run([sys.executable, "-m", "lmms_eval", "tasks", "list"], env)
    names = set(re.findall(r"\b(\w+_toy_family)\b", listed.stdout))
    assert set(FAMILY_TASKS) <= names, log[-3000:]
    assert "gui_screenspot_pro_negative_toy_family" not in names  # the record does not say refusal=True

    out = tmp_path / "run"
    task = "icon_localization_synth_toy_family"
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", [task], out, limit=None,
                                      extra=["--gen_kwargs", "max_new_tokens=6"]), env, timeout=900)
    res = results(out)
    meta = res["configs"][task]["metadata"]
    assert (meta["prompt"], meta["prompt_protocol"], meta["parser_protocol"]) == (
        "toy_family", "grounding-toy-family-v1", "grounding-point-v1:toy_family"), log[-3000:]
    rows = samples(out, task)
    assert len(rows) == 40 and res["n-samples"][task]["effective"] == 40
    assert rows[0]["input"].startswith("Point at: ")
    sub = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", "submit", str(out), "--out",
                          str(tmp_path / "submission.json")], env=env, capture_output=True, text=True, timeout=600)
    assert sub.returncode == 0, sub.stderr[-3000:]
    submitted = json.loads((tmp_path / "submission.json").read_text(encoding="utf-8"))
    assert [(t["task"], t["n_samples"], t["parser_protocol"]) for t in submitted["tasks"]] == [
        (task, 40, "grounding-point-v1:toy_family")]
