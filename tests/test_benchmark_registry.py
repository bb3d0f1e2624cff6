"""The benchmark records (gui_core.benchmark): checked on creation, found with "did you mean", one data_root for
all, every generated task claimed by exactly one record, and the docs tables agreeing with the records."""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from gui_core.benchmark import (BENCHMARKS, Benchmark, BenchmarkData, Sources, benchmark, benchmark_of, data_root,
                                describe, task_metadata)
from gui_core.errors import ConfigError, DataError
from gui_core.hub_release import HubRelease
from gui_core.registry import UnknownName

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("name", "title", "sources", "data", "tasks", "report", "data_check", "submission")


def test_records_are_frozen_and_checked_on_creation():
    rec = benchmark("screenspot_pro")
    with pytest.raises(FrozenInstanceError):
        rec.name = "x"  # type: ignore[misc]
    with pytest.raises(ValueError, match="report command 'pss'"):
        replace(rec, report="pss")
    with pytest.raises(ValueError, match="is not 'module:attribute'"):
        replace(rec, loader="gui_tasks.grounding.screenspot.task_rows")
    with pytest.raises(ValueError, match="either the environment variable"):
        BenchmarkData()
    with pytest.raises(ValueError, match="sources.paper is required"):
        replace(rec, sources=Sources(""))


def test_an_unknown_name_is_answered_with_did_you_mean():
    with pytest.raises(UnknownName, match=r"unknown benchmark 'screenspot_pr' \(did you mean 'screenspot_pro'"):
        benchmark("screenspot_pr")
    assert benchmark("star_state_control") is benchmark("star")  # an alias


def test_at_least_twelve_records_fill_all_eight_fields():
    rows = [describe(b) for b in BENCHMARKS.values()]
    full = [r["name"] for r in rows if all(r[k] for k in FIELDS)]
    assert len(full) >= 12, full
    assert {"mpr_gui", "gui_knowledge", "star", "sphinx", "screenspot", "screenspot_v2", "screenspot_pro", "uivision",
            "mmbench_gui_l2", "osworld_g", "androidcontrol", "aitz", "gui_odyssey"} <= set(full)


def test_every_generated_task_belongs_to_exactly_one_record():
    owners: dict[str, str] = {}
    for folder in sorted(p.name for p in (ROOT / "yaml_tasks").iterdir() if p.is_dir() and not p.name.startswith("_")):
        for task, meta in task_metadata(folder):
            if "benchmark" in meta:
                rec = benchmark_of(meta)
                assert rec is not None, (task, meta)
                owners[task] = rec.name
    listed = {t: b.name for b in BENCHMARKS.values() for t in b.tasks()}
    assert listed == owners and len(owners) > 700


def test_one_data_root_names_the_variable_and_checks_the_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("SCREENSPOT_V2_DATA_DIR", raising=False)  # a record with no hub release
    with pytest.raises(ConfigError, match=r"^\$SCREENSPOT_V2_DATA_DIR is not set: point it at a local copy .*; see "
                                          r"docs/screenspot_pss.md$"):
        data_root("screenspot_v2")
    monkeypatch.delenv("UIVISION_DATA_DIR", raising=False)  # one with a release, downloads off, nothing in the cache
    monkeypatch.setenv("GUI_EVAL_NO_DOWNLOAD", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    pinned = replace(benchmark("uivision"), data=replace(benchmark("uivision").data, hub=(
        HubRelease("ServiceNow/ui-vision", "main", "uivision_hub"),)))
    for rec in ("uivision", pinned):
        with pytest.raises(ConfigError, match=r"is not set: .*, or fetch a copy with `gui-eval data fetch uivision` and point \$UIVISION_DATA_DIR at it"):
            data_root(rec)
    monkeypatch.setenv("UIVISION_DATA_DIR", str(tmp_path / "nope"))
    with pytest.raises(DataError, match="UIVISION_DATA_DIR points to .*nope, which is not a directory"):
        data_root("uivision")
    monkeypatch.setenv("UIVISION_DATA_DIR", str(tmp_path))
    assert data_root("uivision") == tmp_path
    monkeypatch.delenv("SPHINX_DATA_DIR", raising=False)
    assert data_root("sphinx", {"data_dir": str(tmp_path)}) == tmp_path  # the record's metadata key first
    with pytest.raises(ConfigError, match="is generated"):
        data_root("mpr_gui_synth")


def test_the_readme_grounding_table_agrees_with_the_records():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| [^|]+ \| ((?:`\w+`(?:, )?)+) \| `(\w+)` \| \[more\]\((docs/\w+\.md)\) \|$", text, re.M)
    assert len(rows) == 4
    for tasks, env, page in rows:
        names = re.findall(r"`(\w+)`", tasks)
        rec = benchmark_of(next(meta for folder in ("grounding",) for t, meta in task_metadata(folder) if t == names[0]))
        assert rec is not None and rec.data.env == env and rec.docs == page and set(names) <= set(rec.tasks())


def test_every_record_names_pages_and_variables_that_exist():
    for rec in BENCHMARKS.values():
        assert (ROOT / rec.docs).is_file(), rec.name
        page = (ROOT / rec.data.page.split("#")[0]).read_text(encoding="utf-8") + (ROOT / rec.docs).read_text(encoding="utf-8")
        if rec.data.env:
            assert rec.data.env in page or rec.data.env in (ROOT / "docs" / "star.md").read_text(encoding="utf-8"), rec.name


@pytest.mark.parametrize("dataset,steps", [("androidcontrol", 6), ("aitz", 5), ("gui_odyssey", 6)])
def test_the_step_wise_sets_have_a_data_check(dataset, steps, capsys):
    """Each StaR step-wise set's record names a data check: the tasks' own loader over a copy (here the fixtures)."""
    from gui_tasks.commands import cli

    assert cli.main(["data", "check", dataset, str(ROOT / "tests" / "fixtures" / "star_agentic" / dataset),
                     "--no-images"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"star_{dataset} \(test steps\)\s+{steps}\s+-", out) and out.rstrip().endswith("result: OK")


def test_every_record_s_cluster_key_is_the_one_its_tasks_use():
    from gui_core.benchmark import resolve

    checked = set()
    for rec in BENCHMARKS.values():
        cls = resolve(rec.task_class)
        for task, meta in task_metadata(rec.yaml_folder):
            if benchmark_of(meta) is rec:
                key = cls.cluster_key(meta)
                if rec.cluster_key.isidentifier():  # a field: every task of the record clusters by it
                    assert key == rec.cluster_key, (rec.name, task, key)
                    checked.add(rec.name)
                else:  # a rule in words (SPHINX's static tasks: per kind) is the task class's to apply
                    assert key in ("question", "episode", "screenshot", None), (rec.name, task, key)
    assert {"screenspot_pro", "screenspot", "androidcontrol", "sphinx_sim", "mpr_gui", "gui_knowledge", "star"} <= checked
    assert benchmark("screenspot_pro").cluster_key == "application"


def test_a_cluster_key_the_record_names_is_honoured_for_any_task_class():
    from types import SimpleNamespace

    from gui_tasks.harness.lmms_rows import RowsTask

    task = SimpleNamespace(config=SimpleNamespace(cluster_key="application"))
    doc = {"image": "/x/a.png", "meta": '{"application": "vscode"}'}
    assert RowsTask.cluster_of(task, doc) == "vscode"
    assert RowsTask.cluster_of(task, {**doc, "application": "excel"}) == "excel"  # the document's own field first
    assert RowsTask.cluster_of(task, {"image": "/x/a.png", "meta": "{}"}) is None  # no value: the sample stands alone
    task.config.cluster_key = "screenshot"
    assert RowsTask.cluster_of(task, doc) == "x/a.png" == RowsTask.cluster_of(task, {"images": ["/m/x/a.png"]})
