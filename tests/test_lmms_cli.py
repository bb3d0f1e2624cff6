"""Our tasks, metrics and backend through the real lmms-eval CLI, in subprocesses.

The CLI exits 0 even when an evaluation raises, so every test reads the files it wrote.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from gui_tasks.commands.cli import lmms_eval_command
from gui_tasks.harness.lmms_integration import yaml_tasks_dir
from lmms_helpers import results as _results
from lmms_helpers import run as _run
from lmms_helpers import samples as _samples

pytestmark = pytest.mark.slow
LMMS = [sys.executable, "-m", "lmms_eval"]


@pytest.mark.parametrize("argv", [["--tasks", "list"], ["tasks", "list"]], ids=["legacy", "subcommand"])
def test_tasks_are_listed_without_include_path(argv, subprocess_env):
    proc, out = _run([sys.executable, "-c", "from lmms_eval.cli.dispatch import main; main()", *argv], subprocess_env)
    for name in ("mpr_gui_zh", "mpr_gui_synth_zh", "mpr_gui_synth_cot_th", "mpr_gui_en_ael", "gui_knowledge_type", "gui_knowledge_synth_th_plan"):
        assert name in out, out[-2000:]


def test_gui_hf_on_synthetic_task_with_explicit_include_path(tmp_path, tiny_checkpoint, subprocess_env):
    out = tmp_path / "run"
    cmd = lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["mpr_gui_synth_zh"], out, limit=4,
                            extra=["--include_path", str(yaml_tasks_dir())])
    proc, log = _run(cmd, subprocess_env)
    res = _results(out)["results"]["mpr_gui_synth_zh"]
    for key in ("mcq_acc,none", "fpr_acc,none", "format_error_rate,none", "mpr_acc_au,none"):
        assert key in res, (key, res, log[-3000:])
    samples = _samples(out, "mpr_gui_synth_zh")
    assert len(samples) == 4
    rec = samples[0]["mcq_acc"]
    assert rec["lang"] == "zh" and rec["status"] in {"parsed", "malformed", "empty"}
    assert [s["mcq_acc"]["dimension"] for s in samples] == ["AU", "AP", "WF", "WI"]
    assert 0.0 <= res["format_error_rate,none"] <= 1.0
    # our readers and the report understand what lmms-eval really wrote
    from gui_tasks.mpr.report import build_table
    from gui_tasks.runs.results_io import find_result_files, load_results, load_task_samples

    run = load_results(find_result_files(out)[-1])
    task = run.tasks["mpr_gui_synth_zh"]
    assert task.metadata["parser_protocol"] == "mcq-letter-v2" and task.n_samples["effective"] == 4
    assert len(load_task_samples(run, "mpr_gui_synth_zh")) == 4
    rows = build_table([run]).rows
    assert [(r.lang, r.source) for r in rows] == [("zh", "synthetic")]


THIRD_PARTY_PLUGIN = '''
"""A third-party metric: share of answers that picked B (registered by entry point only)."""
import pluggy
from gui_metrics import MetricSpec

hookimpl = pluggy.HookimplMarker("gui_metrics")


def _rate(records):
    return sum(r["pred"] == "B" for r in records) / len(records)


@hookimpl
def gui_metrics_register():
    return [MetricSpec("picked_b_rate", _rate, False, frozenset({"mcq"}), "share of B answers")]
'''


def _fake_distribution(site: Path) -> None:
    (site / "acme_gui_metrics.py").write_text(THIRD_PARTY_PLUGIN, encoding="utf-8")
    info = site / "acme_gui_metrics-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-gui-metrics\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gui_metrics]\nacme = acme_gui_metrics\n", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


def test_third_party_metric_plugin_is_used_in_a_run(tmp_path, tiny_checkpoint, subprocess_env):
    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(site)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    base = yaml_tasks_dir() / "mpr" / "mpr_gui_synth_en.yaml"
    (tasks / "acme_task.yaml").write_text(textwrap.dedent(f"""\
        include: {base}
        task: acme_synth_en
        metric_list:
          - metric: mcq_acc
            aggregation: mcq_acc
            higher_is_better: true
          - metric: picked_b_rate
            aggregation: picked_b_rate
            higher_is_better: false
        """), encoding="utf-8")
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(site), subprocess_env["PYTHONPATH"]])}
    out = tmp_path / "run"
    cmd = lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["acme_synth_en"], out, limit=3,
                            extra=["--include_path", str(tasks)])
    proc, log = _run(cmd, env)
    res = _results(out)["results"]["acme_synth_en"]
    samples = _samples(out, "acme_synth_en")
    expected = sum(s["picked_b_rate"]["pred"] == "B" for s in samples) / len(samples)
    assert res["picked_b_rate,none"] == pytest.approx(expected), log[-3000:]


FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures" / "mpr_official"


def test_builtin_qwen2_vl_backend_runs_official_task_from_local_copy(tmp_path, tiny_checkpoint, subprocess_env):
    """An existing lmms-eval backend on our task; official data from $MPR_GUI_DATA_DIR (no installed file edited)."""
    env = {**subprocess_env, "MPR_GUI_DATA_DIR": str(FIXTURES)}
    out = tmp_path / "run"
    args = f"pretrained={tiny_checkpoint},device=cpu,device_map=cpu,max_pixels=50176,min_pixels=3136"
    proc, log = _run(lmms_eval_command(args, ["mpr_gui_zh"], out, limit=None, model="qwen2_vl"), env)
    res = _results(out)["results"]["mpr_gui_zh"]
    samples = _samples(out, "mpr_gui_zh")
    assert len(samples) == 14, log[-3000:]  # every fixture row of zh: 6 files x 2 rows + RI + SI
    assert {s["mcq_acc"]["dimension"] for s in samples} == {"AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"}
    assert res["mcq_acc,none"] == pytest.approx(sum(s["mcq_acc"]["correct"] for s in samples) / 14)
