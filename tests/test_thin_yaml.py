"""Thin task YAMLs over shared bases: every task loads to its full config, bases never register as tasks."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import pytest
import yaml

from gui_tasks.harness.thin_yaml import BASE_SUFFIX, base_name, blocks, factor, load_plain

ROOT = Path(__file__).resolve().parent.parent
HEADER = "# Generated - edit the spec.\n"
HOOKS = ("class: !function gui_tasks.mpr.lmms_task.MPRTask\ndataset_path: json\ntest_split: test\n"
         "output_type: generate_until\nprocess_docs: !function gui_tasks.mpr.lmms_task.process_docs_synthetic\n")
METRICS = ("metric_list:\n  - metric: mcq_acc\n    aggregation: mcq_acc\n    higher_is_better: true\n"
           "  - metric: format_error_rate\n    aggregation: format_error_rate\n    higher_is_better: false\n")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_yaml_tasks", ROOT / "scripts" / "gen_yaml_tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _task(name: str, lang: str, metrics: str = METRICS) -> str:
    return f"{HEADER}task: {name}\n{HOOKS}{metrics}metadata:\n  lang: {lang}\n"


def test_blocks_keep_comments_with_the_key_below_them():
    header, items = blocks("# head\ntask: a\n# why\nreasoning_tags: none\nmetric_list:\n  - metric: m\n")
    assert header == ["# head\n"]
    assert items == [("task", "task: a\n"), ("reasoning_tags", "# why\nreasoning_tags: none\n"),
                     ("metric_list", "metric_list:\n  - metric: m\n")]


def test_shared_blocks_go_to_one_base_and_the_task_keeps_the_rest():
    files = {"a.yaml": _task("a", "en"), "b.yaml": _task("b", "zh"),
             "g.yaml": f"{HEADER}group: g\ntask:\n  - a\n  - b\n"}
    out = factor(files, "mpr")
    common = base_name("mpr", "common")
    assert sorted(out) == [common, "a.yaml", "b.yaml", "g.yaml"]
    assert out["g.yaml"] == files["g.yaml"]  # groups are written as they are
    assert out[common] == HEADER + "# Shared base of 2 task files (their include: lists it).\n" + HOOKS + METRICS
    assert out["a.yaml"] == f"{HEADER}task: a\ninclude:\n  - {common}\nmetadata:\n  lang: en\n"


def test_a_key_shared_by_some_tasks_gets_a_base_per_value():
    other = METRICS.replace("mcq_acc", "fpr_acc")
    out = factor({"a.yaml": _task("a", "en"), "b.yaml": _task("b", "zh"), "c.yaml": _task("c", "fr", other),
                  "d.yaml": _task("d", "ja", other)}, "mpr")
    assert sorted(n for n in out if not n.endswith(".yaml")) == [base_name("mpr", n) for n in
                                                                 ("common", "metric_list_1", "metric_list_2")]
    assert out[base_name("mpr", "metric_list_2")].endswith(other)
    assert f"  - {base_name('mpr', 'metric_list_2')}\n" in out["c.yaml"]


def test_a_small_shared_block_stays_in_the_task_files():
    gen = "generation_kwargs:\n  max_new_tokens: {}\n"  # 2 lines: below MIN_BASE_LINES
    out = factor({"a.yaml": _task("a", "en", METRICS + gen.format(16)), "b.yaml": _task("b", "zh", METRICS + gen.format(16)),
                  "c.yaml": _task("c", "fr", METRICS + gen.format(32))}, "mpr")
    assert gen.format(16) in out["a.yaml"] and gen.format(16) in out["b.yaml"] and gen.format(32) in out["c.yaml"]
    assert sorted(n for n in out if not n.endswith(".yaml")) == [base_name("mpr", "common")]


def test_a_block_nobody_shares_stays_in_the_task_file():
    out = factor({"a.yaml": _task("a", "en"), "b.yaml": _task("b", "zh", METRICS.replace("mcq_acc", "fpr_acc"))}, "mpr")
    assert METRICS in out["a.yaml"] and "fpr_acc" in out["b.yaml"]
    assert not any(METRICS in text for name, text in out.items() if not name.endswith(".yaml"))


@pytest.fixture(scope="module")
def generator():
    return _generator()


class _Compiled(yaml.CFullLoader):
    """PyYAML's compiled FullLoader, named like the pure one (lmms-eval's ``!function`` reads ``loader.name``)."""

    def __init__(self, stream):
        super().__init__(stream)
        self.name = getattr(stream, "name", "<string>")


def test_every_generated_task_loads_in_lmms_eval_to_its_full_config(tmp_path, monkeypatch, generator):
    """The written thin file, include resolved by lmms-eval's own loader, equals the full text the spec produces.

    lmms-eval's ``load_yaml_config`` runs as it is (include merge, ``!function`` import); only the YAML scanner
    under it is PyYAML's compiled one, so the thousand files parse in a second.
    """
    from lmms_eval import utils

    shim = types.SimpleNamespace(full_load=lambda stream: yaml.load(stream, Loader=_Compiled),
                                 add_constructor=_Compiled.add_constructor)
    monkeypatch.setattr(utils, "yaml", shim)
    checked = 0
    for out, files in generator.folders().items():
        for name, full in files.items():
            if "\ngroup: " in full or not name.endswith(".yaml"):
                continue
            (tmp_path / name).write_text(full, encoding="utf-8")
            expected = utils.load_yaml_config(str(tmp_path / name), mode="full")
            loaded = utils.load_yaml_config(str(out / name), mode="full")
            assert loaded == expected and callable(loaded["class"]), name
            checked += 1
    assert checked >= 500


def test_the_index_reader_gives_lmms_eval_s_index_of_thin_files(tmp_path):
    """gui-eval's reader for its own folder (libyaml, bases read once) indexes exactly what lmms-eval's reader does."""
    import lmms_eval.tasks as lt
    from lmms_eval import utils

    from gui_tasks.harness.lmms_integration import index_reader

    files = {f"t{i}.yaml": _task(f"t{i}", lang) for i, lang in enumerate(("en", "zh", "fr"))}
    files["g.yaml"] = f"{HEADER}group: g\ntask:\n  - t0\n  - t1\n"
    for name, text in factor(files, "mpr").items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    tm = lt.TaskManager.__new__(lt.TaskManager)
    tm.logger = lt.eval_logger
    stock = dict(lt.TaskManager._get_task_and_group(tm, str(tmp_path)))
    original = utils.load_yaml_config
    utils.load_yaml_config = index_reader(original)
    try:
        ours = dict(lt.TaskManager._get_task_and_group(tm, str(tmp_path)))
    finally:
        utils.load_yaml_config = original
    assert ours == stock
    assert sorted(stock) == ["g", "t0", "t1", "t2"]  # the base is no task
    assert stock["t1"] == {"type": "python_task", "yaml_path": str(tmp_path / "t1.yaml")}


def test_every_base_file_is_included_by_a_task_of_its_folder():
    from gui_tasks.harness.lmms_integration import yaml_tasks_dir

    for folder in (p for p in yaml_tasks_dir().iterdir() if p.is_dir() and p.name != "__pycache__"):
        bases = {p.name for p in folder.glob(f"_*{BASE_SUFFIX}")}
        used = {b for p in folder.glob("*.yaml") for b in (load_plain(p.read_text(encoding="utf-8")).get("include") or [])}
        assert bases and used == bases, folder


def test_inline_gives_a_thin_file_s_full_config(generator):
    from gui_tasks.harness.lmms_integration import yaml_tasks_dir

    from gui_tasks.harness.thin_yaml import inline

    full = generator.folders()[generator.ROOT / "yaml_tasks" / "mpr"]["mpr_gui_synth_en.yaml"]
    assert load_plain(inline(yaml_tasks_dir() / "mpr" / "mpr_gui_synth_en.yaml")) == load_plain(full)
