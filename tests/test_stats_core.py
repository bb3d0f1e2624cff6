"""The statistics core (gui_metrics/stats.py) on hand-worked examples, and every metric's per-sample score."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_metrics import stats

# Ten 0/1 scores in five clusters of two (worked below).
SCORES = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1]
PAIRS = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_clt_standard_error_by_hand():
    # mean 0.6; sum of squares 6 * 0.4^2 + 4 * 0.6^2 = 2.4; var = 2.4 / 9; SE = sqrt(var / 10)
    assert stats.clt_se(SCORES) == pytest.approx(math.sqrt(2.4 / 9 / 10))


def test_clustered_standard_error_by_hand():
    # within-cluster cross terms (sum d)^2 - sum d^2 per cluster: -0.48, 0.32, -0.48, 0.72, 0.32 -> 0.40; / n^2
    expected = math.sqrt(2.4 / 9 / 10 + 0.40 / 100)
    assert stats.clustered_se(SCORES, PAIRS) == pytest.approx(expected)
    # singleton clusters add nothing; None values are outside the population
    assert stats.clustered_se(SCORES, list(range(10))) == pytest.approx(stats.clt_se(SCORES))
    assert stats.clt_se(SCORES + [None, float("nan")]) == pytest.approx(stats.clt_se(SCORES))


def test_clustered_standard_error_matches_the_sandwich_estimator_in_numpy():
    np = pytest.importorskip("numpy")
    rng = random.Random(3)
    x = [rng.random() < 0.4 for _ in range(60)]
    c = [rng.randrange(12) for _ in range(60)]
    v = np.asarray(x, float)
    d = v - v.mean()
    sums = np.bincount(c, weights=d)
    meat = (sums ** 2).sum() - (d ** 2).sum()  # off-diagonal within-cluster products
    expected = math.sqrt(v.var(ddof=1) / len(v) + meat / len(v) ** 2)
    assert stats.clustered_se(x, c) == pytest.approx(expected)


def test_cluster_bootstrap_of_two_clusters_by_hand():
    """Clusters X = [1, 1] and Y = [0, 0, 0, 0]. Drawing two clusters with replacement: XX (1/4) -> mean 1,
    XY or YX (1/2) -> 2/6, YY (1/4) -> 0. So the bootstrap mean is 5/12, its SD sqrt(11/36 - 25/144) = 0.3632,
    and the 95% percentile interval is [0, 1]; an ordinary bootstrap over the six items would be far narrower."""
    items, clusters = [1, 1, 0, 0, 0, 0], ["X", "X", "Y", "Y", "Y", "Y"]
    iv = stats.cluster_bootstrap(items, lambda xs: sum(xs) / len(xs), clusters, resamples=4000, seed=1)
    assert iv.estimate == pytest.approx(1 / 3) and (iv.low, iv.high) == (0.0, 1.0)
    assert iv.se == pytest.approx(math.sqrt(11 / 36 - 25 / 144), abs=0.01)
    assert iv.n == 6 and iv.n_clusters == 2 and iv.method == "cluster_bootstrap" and iv.seed == 1
    seen: list[float] = []
    stats.cluster_bootstrap(items, lambda xs: seen.append(sum(xs) / len(xs)) or 0.0, clusters, resamples=4000, seed=1)
    freq = Counter(round(m, 6) for m in seen[1:])  # the first call is the estimate
    assert set(freq) == {1.0, round(1 / 3, 6), 0.0}
    assert freq[round(1 / 3, 6)] / 4000 == pytest.approx(0.5, abs=0.03)
    iid = stats.cluster_bootstrap(items, lambda xs: sum(xs) / len(xs), None, resamples=4000, seed=1)
    assert iid.se < 0.25  # sqrt(p(1-p)/n) = 0.19 when the six items are taken as independent


def test_every_resample_keeps_clusters_whole():
    items = list(range(12))
    clusters = [i // 3 for i in items]
    draws: list[list[int]] = []
    stats.cluster_bootstrap(items, lambda xs: draws.append(list(xs)) or 0.0, clusters, resamples=50, seed=0)
    for d in draws[1:]:
        counts = Counter(i // 3 for i in d)
        assert all(n % 3 == 0 for n in counts.values()) and len(d) == 12


def test_vectorised_mean_bootstrap_equals_the_generic_one():
    rng = random.Random(0)
    values = [rng.random() < 0.3 for _ in range(50)] + [None] * 5
    clusters = [rng.randrange(9) for _ in values]

    def mean(xs):
        v = [float(x) for x in xs if x is not None]
        return sum(v) / len(v) if v else math.nan

    a = stats.cluster_bootstrap(values, mean, clusters, resamples=300, seed=4)
    b = stats.cluster_bootstrap_mean(values, clusters, resamples=300, seed=4)
    assert (a.estimate, a.low, a.high) == pytest.approx((b.estimate, b.low, b.high))
    assert a.se == pytest.approx(b.se)


def test_composite_statistic_gets_a_cluster_interval():
    from gui_metrics.mpr import fpr_acc, per_dimension_accuracy

    recs = [{"dimension": d, "correct": (i + j) % 3 == 0} for i, d in enumerate(("AU", "RI", "SI")) for j in range(30)]
    clusters = [k // 2 for k in range(len(recs))]
    iv = stats.cluster_bootstrap(recs, lambda rs: fpr_acc(per_dimension_accuracy(rs), allow_missing=True), clusters,
                                 resamples=200)
    assert iv.estimate == pytest.approx(fpr_acc(per_dimension_accuracy(recs), allow_missing=True))
    assert iv.low < iv.estimate < iv.high and iv.se > 0


def test_paired_bootstrap_of_identical_runs_is_zero():
    iv = stats.paired_cluster_bootstrap(SCORES, SCORES, PAIRS, resamples=200)
    assert (iv.estimate, iv.low, iv.high, iv.se) == (0.0, 0.0, 0.0, 0.0)


def test_mcnemar_exact_by_hand():
    # A right and B wrong on 3 samples, the reverse on 1: p = 2 * P(X <= 1 | n=4, 1/2) = 2 * 5/16
    a = [1, 1, 1, 0, 1, 0]
    b = [0, 0, 0, 1, 1, 0]
    res = stats.mcnemar_exact(a, b)
    assert (res.a_only, res.b_only, res.p_value) == (3, 1, 0.625)
    assert stats.mcnemar_exact(a, a).p_value == 1.0  # no discordant pair: statsmodels gives min(2 * 1, 1)


@pytest.mark.parametrize("n01,n10", [(0, 0), (0, 7), (5, 5), (12, 3), (30, 41), (1, 60)])
def test_mcnemar_exact_equals_the_exact_binomial_test(n01, n10):
    """statsmodels' mcnemar(exact=True) is min(1, 2 * binom.cdf(min, n, 1/2)) (statsmodels/stats/contingency_tables.py);
    for p = 1/2 that is scipy's two-sided exact binomial test (statsmodels is not a dependency here)."""
    from scipy.stats import binomtest

    a = [1] * n01 + [0] * n10
    b = [0] * n01 + [1] * n10
    p = stats.mcnemar_exact(a, b).p_value
    ref = 1.0 if n01 + n10 == 0 else binomtest(min(n01, n10), n01 + n10, 0.5).pvalue
    assert p == pytest.approx(ref, rel=1e-12)


def test_mcnemar_refuses_scores_that_are_not_zero_or_one():
    with pytest.raises(ValueError, match="0/1"):
        stats.mcnemar_exact([0.5, 1], [1, 0])


def test_paired_permutation_by_hand():
    # eight pairs, every difference +1: of the 2^8 sign patterns 2 reach |mean| = 1, p = 2/256 (Monte Carlo here)
    assert stats.paired_permutation([1] * 8, [0] * 8, permutations=20000) == pytest.approx(2 / 256, abs=0.003)
    assert stats.paired_permutation([0.2, 0.5], [0.2, 0.5]) == 1.0
    # whole clusters swap: one cluster of eight equal differences is one coin, p = 1 (both signs reach it)
    assert stats.paired_permutation([1] * 8, [0] * 8, [0] * 8, permutations=2000) == 1.0


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3 * 0.01, 2 * 0.03, max(0.06, 1 * 0.04)
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = stats.holm([0.5, float("nan")])
    assert adjusted[0] == 0.5 and math.isnan(adjusted[1])


def test_correlations_match_scipy_and_say_when_n_is_small():
    from scipy.stats import pearsonr, spearmanr

    x, y = [0.31, 0.42, 0.45, 0.52, 0.60, 0.66], [0.20, 0.35, 0.30, 0.48, 0.51, 0.70]
    p, s = stats.pearson(x, y), stats.spearman(x, y)
    assert (p.r, p.p_value) == pytest.approx(tuple(pearsonr(x, y))) and p.n == 6 and not p.too_small
    assert (s.r, s.p_value) == pytest.approx(tuple(spearmanr(x, y))) and s.method == "spearman"
    assert stats.pearson(x[:4], y[:4]).too_small
    two = stats.pearson([1, 2], [3, 4])
    assert two.n == 2 and math.isnan(two.r) and two.too_small


# --- every metric's per-sample score: its mean is the metric ---------------------------------------------------


def _record(rng: random.Random, i: int) -> dict:
    """A record with every field any built-in metric reads, drawn at random."""
    steps_common = {"category": rng.choice(("CLICK", "TYPE", "COMPLETE")), "type_match": rng.random() < 0.6,
                    "exact": rng.random() < 0.4, "status": rng.choice(("parsed", "parsed", "malformed")),
                    "judge": "star", "judge_type": rng.choice(("CLICK", "PRESSBACK", "SCROLLUP")),
                    "episode_id": f"e{i % 5}", "dataset": "d", "episode_category": rng.choice(("a", "b"))}
    sat = [rng.random() < 0.5 for _ in range(rng.randint(1, 3))]
    return {
        **steps_common,
        "dimension": rng.choice(("AU", "RI", "SI")), "correct": rng.random() < 0.5, "correct_repaired": rng.random() < 0.5,
        "subtask": rng.choice(("state", "type", "goal")), "question_type": rng.choice(("yes_or_no", "mcq")),
        "pred": rng.choice(("yes", "no", "unknown", "A")), "answer": rng.choice(("yes", "unknown", "A", "continue", "stop")),
        "gold_action": rng.choice(("click", "type", None)), "pred_action": rng.choice(("click", "type", None)),
        "polarity": rng.choice(("positive", "negative")), "pred_type": rng.choice(("CLICK", "COMPLETE", None)),
        "hits_toggle": rng.random() < 0.5, "satisfied": sat, "n_actions": rng.randint(0, 5), "repeated": rng.randint(0, 2),
        "repeat_looked": rng.randint(2, 4), "format_errors": rng.randint(0, 1), "not_run": rng.random() < 0.1,
        "toggle_kind": rng.choice(("normal", "verify", "composite")), "capability": rng.choice(("goal", "app")),
        "task": f"t{i % 4}", "violation": rng.random() < 0.3, "response_type": rng.choice(("correct", "biased", "misleading")),
        "pss": rng.choice((None, rng.random())), "digit_entropy": rng.random(), "perplexity": 1 + rng.random(),
        "capture_kind": rng.choice(("exact", "top_logprobs")), "pss_range": [0.1, 0.4], "split": rng.choice(("common", "uncommon")),
        "distance": rng.random() * 0.4, "first": rng.choice((None, {"correct": rng.random() < 0.5, "pss": 0.5, "response_type": "correct"})),
    }


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=40))
def test_every_non_composite_metric_is_the_mean_of_its_sample_scores(seed, n):
    """What lmms-eval's CLT reads (``score``) must average to the figure it stands beside."""
    from gui_metrics.manager import all_metrics

    rng = random.Random(seed)
    records = [_record(rng, i) for i in range(n)]
    for name, spec in all_metrics().items():
        if spec.composite:
            continue
        try:
            expected = spec.aggregate([spec.score(r) for r in records])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue  # a metric of another kind whose fields these records do not fill in its way
        scores = [s for s in (spec.sample_score(r) for r in records) if s is not None]
        if expected is None or (isinstance(expected, float) and math.isnan(expected)):
            assert not scores, name
        elif name in PER_EPISODE:  # a mean over episodes: step items have no score of their own
            assert not scores, name
        else:
            assert scores and sum(scores) / len(scores) == pytest.approx(expected), name


PER_EPISODE = {"step_success_rate"}


def test_episode_items_score_episode_success_and_not_step_rates():
    from gui_metrics.manager import get_metric

    rng = random.Random(5)
    episodes = []
    for e in range(6):
        steps = [{**_record(rng, 0), "episode_id": f"e{e}"} for _ in range(rng.randint(1, 4))]
        episodes.append({"id": f"e{e}", "episode_id": f"e{e}", "dataset": "d", "steps": steps})
    success, action = get_metric("step_success_rate"), get_metric("step_action_acc")
    scores = [success.sample_score(ep) for ep in episodes]
    assert scores == [float(all(s["exact"] for s in ep["steps"])) for ep in episodes]
    assert sum(scores) / len(scores) == pytest.approx(success.aggregate(episodes))
    assert [action.sample_score(ep) for ep in episodes] == [None] * 6  # a share of steps: a ratio over episodes


def test_step_rate_over_episode_items_is_bootstrapped_over_episodes_from_its_steps():
    """Own-history runs log one item per episode: a step rate is pooled over their steps. Its interval from the
    steps' scores (fast) equals the aggregate recomputed on every resample of episodes (same draws)."""
    from gui_metrics.manager import get_metric
    from gui_tasks.harness.lmms_stats import interval

    rng = random.Random(9)
    items = []
    for e in range(15):
        steps = [{**_record(rng, 0), "episode_id": f"e{e}"} for _ in range(rng.randint(1, 5))]
        items.append({"id": f"e{e}", "episode_id": f"e{e}", "dataset": "d", "steps": steps, "episode": f"d/e{e}"})
    spec = get_metric("step_action_acc")
    fast = interval(items, spec, "episode", resamples=300, seed=2)
    slow = stats.cluster_bootstrap(items, spec.aggregate, [x["episode"] for x in items], resamples=300, seed=2)
    assert fast.estimate == pytest.approx(spec.aggregate(items)) == pytest.approx(slow.estimate)
    assert (fast.low, fast.high, fast.se) == pytest.approx((slow.low, slow.high, slow.se))
    assert fast.n_clusters == 15


@pytest.mark.parametrize("cls,meta,key", [
    ("gui_tasks.mpr.lmms_task.MPRTask", {}, "screenshot"),
    ("gui_tasks.knowledge.lmms_task.KnowledgeTask", {}, "screenshot"),
    ("gui_tasks.grounding.lmms_task.GroundingTask", {"source": "screenspot_pro"}, "application"),
    ("gui_tasks.grounding.lmms_task.GroundingTask", {"source": "screenspot_v2"}, "screenshot"),
    ("gui_tasks.star.lmms_task.StarStateControlTask", {}, "screenshot"),
    ("gui_tasks.star.agentic_task.StarAgenticTask", {}, "episode"),
    ("gui_tasks.sphinx.lmms_task.SphinxNavTask", {}, "episode"),
    ("gui_tasks.sphinx.device_task.SphinxDeviceTask", {}, "episode"),
    ("gui_tasks.sphinx.static_tasks.SphinxStaticTask", {"kind": "knowledge"}, "question"),
    ("gui_tasks.sphinx.static_tasks.SphinxStaticTask", {"kind": "completion"}, "episode"),
    ("gui_tasks.sphinx.static_tasks.SphinxStaticTask", {"kind": "focused"}, None),
])
def test_cluster_key_per_benchmark(cls, meta, key):
    import importlib

    module, _, name = cls.rpartition(".")
    assert getattr(importlib.import_module(module), name).cluster_key(meta) == key


def test_screen_cluster_ids_do_not_depend_on_where_the_data_lies():
    from gui_tasks.harness.lmms_rows import screen_name

    assert screen_name("/home/a/.cache/gui_eval/synth/mpr/images/en/0b54.png") == "en/0b54.png"
    assert screen_name("D:\\data\\MPR\\au-6\\camera_8.jpg") == "au-6/camera_8.jpg"


def test_run_results_in_task_metadata_are_not_part_of_the_task_definition():
    """A submission compares the run's task metadata with the installed task's: the intervals and repeat statistics a
    run recorded there are results, left out of that comparison."""
    from gui_tasks.runs.results_io import task_definition

    meta = {"benchmark": "mpr_gui", "lang": "en", "intervals": {"mcq_acc,none": {}}, "repeats": {"flip_share": 0.1},
            "repeats_refused": "why"}
    assert task_definition(meta) == {"benchmark": "mpr_gui", "lang": "en"}


def test_a_failing_aggregation_costs_its_interval_not_the_run(monkeypatch):
    """A (plugin) aggregation that raises on some resample: its interval is left out with the error named; the
    run's other figures and lmms-eval's aggregation go on."""
    from types import SimpleNamespace

    from gui_metrics.spec import MetricSpec
    from gui_tasks.harness import lmms_stats

    # defined on two distinct samples; a resample that draws one sample twice divides by zero
    spec = MetricSpec("flaky", lambda rs: 0.5 if len({id(r) for r in rs}) == 2 else 1 / 0, True, frozenset({"x"}), "d",
                      composite=True)
    monkeypatch.setattr(lmms_stats, "_ours", lambda task, metric: spec)
    out = SimpleNamespace(task_config={"cluster_key": None, "metadata": {}}, agg_metrics={}, task=None,
                          sample_metrics={("flaky", "none"): [{"a": 1}, {"a": 2}]})
    lmms_stats.add_intervals(out, 100)
    assert "ZeroDivisionError" in out.task_config["metadata"]["intervals"]["flaky,none"]["error"]
    assert "flaky_stderr,none" not in out.agg_metrics


def test_a_one_sample_task_has_no_standard_error_so_a_group_of_them_does_not_divide_by_zero():
    """``--limit 1`` on a group: each task's stderr is N/A (lmms-eval's mark), so lmms-eval's pooled stderr is N/A too
    instead of (sum of sizes - number of tasks) = 0 in a denominator."""
    from types import SimpleNamespace

    from gui_metrics.manager import all_metrics
    from gui_tasks.harness import lmms_stats

    spec = all_metrics()["mcq_acc"]
    agg = SimpleNamespace(__gui_metric__="mcq_acc")
    task = SimpleNamespace(aggregation=lambda: {"mcq_acc": agg})
    items = [{"correct": True, "status": "parsed", "score": 1.0, "lang": "en", "dimension": "AU"}]

    def output(n):
        return SimpleNamespace(task=task, task_config={"metadata": {}}, agg_metrics={},
                               sample_metrics={("mcq_acc", "none"): items * n})

    one, two = output(1), output(2)
    lmms_stats.add_intervals(one, 100)
    lmms_stats.add_intervals(two, 100)
    assert one.agg_metrics["mcq_acc_stderr,none"] == "N/A"
    assert two.agg_metrics["mcq_acc_stderr,none"] == pytest.approx(0.0)
    assert spec.name == "mcq_acc"


def test_mcnemar_exact_equals_statsmodels_on_every_recorded_table():
    """statsmodels itself, run outside the project on 1,938 tables (0-30 x 0-30 discordant pairs and large ones),
    recorded in tests/fixtures/differential/stats/mcnemar_statsmodels.json: our p-value is its p-value."""
    import json
    from pathlib import Path

    ref = json.loads((Path(__file__).parent / "fixtures/differential/stats/mcnemar_statsmodels.json").read_text())
    assert ref["source"].startswith("statsmodels ")
    for a_only, b_only, both, neither, statistic, p_value in ref["rows"]:
        a = [1] * a_only + [0] * b_only + [1] * both + [0] * neither
        b = [0] * a_only + [1] * b_only + [1] * both + [0] * neither
        res = stats.mcnemar_exact(a, b)
        assert (res.a_only, res.b_only) == (a_only, b_only)
        assert min(res.a_only, res.b_only) == statistic
        assert res.p_value == p_value, (a_only, b_only)
