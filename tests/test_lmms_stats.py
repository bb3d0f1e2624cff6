"""Standard errors, --baseline and --repeats through the real lmms-eval CLI on our tasks.

Two lmms-eval runs for the whole module (lmms-eval's own ``openai`` backend against a scripted server that answers a
seeded random letter: answers vary, so the standard errors are not all zero): run 1 on several of our tasks with
``--limit 40``; run 2 on MPR-GUI and the SPHINX toggle tasks with ``--repeats 3 --baseline <run 1's samples file>``.
The figures lmms-eval printed are compared with an independent computation from the samples it logged.
"""

from __future__ import annotations

import math
import random
import threading

import pytest

from gui_metrics import stats
from gui_metrics.lmms_bridge import SCORE_KEY
from lmms_helpers import results as _results
from lmms_helpers import run_openai
from lmms_helpers import samples as _samples

pytestmark = pytest.mark.slow
TASKS = ("mpr_gui_synth_en", "gui_knowledge_synth_en_state", "star_state_control_synth", "sphinx_knowledge_synth",
         "sphinx_sim_toggle")
CLUSTER_KEYS = {"mpr_gui_synth_en": "screenshot", "gui_knowledge_synth_en_state": "screenshot",
                "star_state_control_synth": "screenshot", "sphinx_knowledge_synth": "question", "sphinx_sim_toggle": "episode"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, session_cache):
    from conftest import lmms_subprocess_env
    from fake_openai import FakeServer

    rng, lock = random.Random(0), threading.Lock()

    def reply(body):
        with lock:
            return rng.choice("ABCD")

    root = tmp_path_factory.mktemp("lmms_stats")
    env = {**lmms_subprocess_env(session_cache), "OPENAI_API_KEY": "EMPTY"}
    server = FakeServer(["ok"], reply=reply)
    try:
        _, log1 = run_openai(server.base_url, ",".join(TASKS), root / "one", env, "--limit", "40")
        first = sorted((root / "one").rglob("*_samples_mpr_gui_synth_en.jsonl"))
        assert first, log1[-3000:]
        _, log2 = run_openai(server.base_url, "mpr_gui_synth_en,sphinx_sim_toggle", root / "two", env, "--limit", "40",
                             "--repeats", "3", "--baseline", str(root / "one"))  # a run folder of ours: each task's file
    finally:
        server.stop()
    return {"one": root / "one", "two": root / "two", "log1": log1, "log2": log2}


def _scores(samples, metric, cluster_key):
    vals = [s[metric] for s in samples if isinstance(s.get(metric), dict) and SCORE_KEY in s[metric]]
    return [v[SCORE_KEY] for v in vals], [v.get(cluster_key) for v in vals]


@pytest.mark.parametrize("task", TASKS)
def test_every_scored_metric_gets_finite_clt_and_clustered_standard_errors(runs, task):
    res = _results(runs["one"])
    table, config = res["results"][task], res["configs"][task]
    assert config["score_key"] == SCORE_KEY and config["cluster_key"] == CLUSTER_KEYS[task]
    samples = _samples(runs["one"], task)
    checked = 0
    for key, value in table.items():
        metric, _, filt = key.partition(",")
        if not filt or "_stderr" in metric or metric == "alias" or not isinstance(value, float) or math.isnan(value):
            continue
        scores, clusters = _scores(samples, metric, config["cluster_key"])
        if len(scores) < 2:
            continue
        checked += 1
        assert sum(scores) / len(scores) == pytest.approx(value), metric  # the score's mean is the figure
        clt, clustered = table[f"{metric}_stderr_clt,{filt}"], table[f"{metric}_stderr_clustered,{filt}"]
        assert math.isfinite(clt) and clt == pytest.approx(stats.clt_se(scores)), metric
        if len(set(clusters)) > 1:
            assert math.isfinite(clustered) and clustered == pytest.approx(stats.clustered_se(scores, clusters)), metric
        boot = table[f"{metric}_stderr,{filt}"]  # ours: the cluster bootstrap, where lmms-eval had N/A
        assert math.isfinite(boot) and boot >= 0, metric
    assert checked >= 2, (task, runs["log1"][-3000:])


def test_mpr_scores_are_not_all_alike_and_screens_are_shared(runs):
    """The check above is not vacuous: the scores vary, and some screenshots carry several questions."""
    samples = _samples(runs["one"], "mpr_gui_synth_en")
    scores, clusters = _scores(samples, "mcq_acc", "screenshot")
    assert len(scores) == 40 and 0 < sum(scores) < 40
    assert len(set(clusters)) < len(clusters)
    table = _results(runs["one"])["results"]["mpr_gui_synth_en"]
    assert table["mcq_acc_stderr_clustered,none"] != pytest.approx(table["mcq_acc_stderr_clt,none"])


def test_composite_metrics_get_a_cluster_bootstrap_interval_in_the_results(runs):
    from gui_metrics.manager import get_metric
    from gui_tasks.harness.lmms_stats import interval

    res = _results(runs["one"])
    table, meta = res["results"]["mpr_gui_synth_en"], res["configs"]["mpr_gui_synth_en"]["metadata"]
    assert table["fpr_acc_stderr_clt,none"] == "N/A"  # no per-sample value: FPR-ACC weighs dimensions
    rec = meta["intervals"]["fpr_acc,none"]
    assert rec["method"] == "cluster_bootstrap" and rec["composite"] and rec["cluster_key"] == "screenshot"
    assert rec["low"] <= table["fpr_acc,none"] <= rec["high"] and table["fpr_acc_stderr,none"] == pytest.approx(rec["se"])
    # recomputed from the logged samples with the same seed: the same interval
    items = [s["fpr_acc"] for s in _samples(runs["one"], "mpr_gui_synth_en")]
    again = interval(items, get_metric("fpr_acc"), "screenshot", resamples=rec["resamples"], seed=rec["seed"])
    assert (again.low, again.high, again.se) == pytest.approx((rec["low"], rec["high"], rec["se"]))
    assert rec["n_clusters"] == again.n_clusters < rec["n"] == 40
    # every metric of the task has its interval
    assert {k.partition(",")[0] for k in meta["intervals"]} >= {"mcq_acc", "fpr_acc", "format_error_rate"}


@pytest.mark.parametrize("task", ["mpr_gui_synth_en", "sphinx_sim_toggle"])
def test_baseline_run_of_ours_gives_lmms_eval_its_paired_test_per_task(runs, task):
    """``--baseline`` named run one's folder: each task was paired with its own samples file there."""
    table = _results(runs["two"])["results"][task]
    assert table["paired_baseline"], runs["log2"][-3000:]
    for key in ("paired_baseline_score", "paired_ci_lower", "paired_ci_upper", "paired_pvalue"):
        assert math.isfinite(table[key]), key
    assert 0.0 <= table["paired_pvalue"] <= 1.0 and table["paired_ci_lower"] <= table["paired_ci_upper"]
    base = _samples(runs["one"], task)  # the baseline's mean score is run one's, in percent
    assert table["paired_baseline_score"] == pytest.approx(100 * sum(s["score"] for s in base) / len(base))


def test_baseline_names_a_results_file_or_folder_of_ours(runs):
    from gui_tasks.harness.lmms_stats import baseline_samples_file
    from gui_tasks.runs.results_io import find_result_files

    results = find_result_files(runs["one"])[-1]
    by_file = baseline_samples_file(str(results), "mpr_gui_synth_en")
    assert by_file.endswith("_samples_mpr_gui_synth_en.jsonl") and by_file == baseline_samples_file(str(runs["one"]),
                                                                                                     "mpr_gui_synth_en")
    assert baseline_samples_file("qwen25vl", "x") == "qwen25vl"  # lmms-eval's own presets pass through
    with pytest.raises(FileNotFoundError, match="no samples file of task nope"):
        baseline_samples_file(str(results), "nope")


@pytest.mark.parametrize("task", ["mpr_gui_synth_en", "sphinx_sim_toggle"])
def test_repeats_write_stability_flip_share_and_sampling_settings(runs, task):
    res = _results(runs["two"])
    table, config = res["results"][task], res["configs"][task]
    assert config["repeats"] == 3
    first = "mcq_acc" if task == "mpr_gui_synth_en" else "sphinx_sr"
    for stat in ("expected_accuracy", "consensus_accuracy", "internal_variance", "consistency_rate"):
        assert math.isfinite(table[f"{first}_{stat},none"]), (stat, runs["log2"][-3000:])
    rep = config["metadata"]["repeats"]
    assert rep["metric"] == first and rep["repeats"] == 3 and rep["n_tasks"] == (40 if task.startswith("mpr") else 20)
    assert rep["flip_share"] == pytest.approx(1 - table[f"{first}_consistency_rate,none"])
    assert set(rep["sampling"]) >= {"do_sample", "temperature"}
    assert len(rep["per_task_variance"]) == rep["n_tasks"]
    # three requests per document were answered, each scored on its own
    samples = _samples(runs["two"], task)
    if task == "mpr_gui_synth_en":
        assert len(samples) == 40 and all(len(s["filtered_resps"]) == 3 for s in samples)
        assert 0 < rep["flip_share"] < 1  # the scripted answers are random letters


def test_reports_print_each_figure_with_its_recorded_interval(runs):
    from gui_tasks.mpr.report import build_table, render_text
    from gui_tasks.runs.results_io import find_result_files, interval_lines, load_results

    run = load_results(find_result_files(runs["one"])[-1])
    rec = run.tasks["mpr_gui_synth_en"].metadata["intervals"]["fpr_acc,none"]
    row = build_table([run]).rows[0]
    assert row.intervals["FPR-ACC"] == pytest.approx((100 * rec["low"], 100 * rec["high"]))
    assert "95% intervals" in render_text(build_table([run]))
    lines = interval_lines([run], ("gui_knowledge",))
    assert len(lines) == 2 and lines[1].split(": ")[0].endswith("gui_knowledge_synth_en_state") and "gkb_acc " in lines[1]
