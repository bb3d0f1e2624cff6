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
from pathlib import Path

from PIL import Image

from fake_dist import write_dist

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding.md"
BLOCK = re.compile(r"```(?:python|yaml|ini)\n# file: (\S+)\n(.*?)```", re.S)


def page_files() -> dict[str, str]:
    return {name: body for name, body in BLOCK.findall(PAGE.read_text(encoding="utf-8"))}


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
from gui_tasks.viewer.plugins import no_plugins
from gui_tasks.viewer.records import outcome, sample_facts
facts = sample_facts("toy_grounding", {"status": "parsed", "correct": False, "response_type": "biased"},
                     {"width": 40, "height": 30}, meta)
print("viewing", no_plugins().viewing_of(meta), facts.image_size, outcome("toy_grounding", {"correct": True}, facts))
"""


def test_the_worked_examples_of_docs_adding(tmp_path):
    files = page_files()
    assert set(files) == {"toy_grounding.py", "toy_tasks/gui_toy_grounding.yaml",
                          "toy_tasks/gui_toy_grounding_strict.yaml", "entry_points.txt", "toy_family.py",
                          "family_entry_points.txt"}
    site = tmp_path / "site"
    modules = {name[:-3].replace("/", "."): body for name, body in files.items() if name.endswith(".py")}
    write_dist(site, "toy-grounding", modules, files["entry_points.txt"] + "\n" + files["family_entry_points.txt"])
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
        "viewing gui_tasks.grounding.viewing (40, 30) ('correct', 'biased')",
    ]
