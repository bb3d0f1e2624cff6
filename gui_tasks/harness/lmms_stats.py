"""lmms-eval's aggregation step, completed for our metrics: a cluster-bootstrap interval for every figure.

lmms-eval 0.7.3 prints three standard errors per metric (``evaluator_utils.TaskOutput``): ``Stderr`` from
``stderr_for_metric``, which knows only its own aggregations (N/A for ours), and ``Stderr_CLT`` /
``Stderr_Clustered`` from the per-sample ``score`` and the task's ``cluster_key`` (``calculate_clt_aggregate_metric``),
which our per-sample values feed (``gui_metrics.lmms_bridge.sample_values``). The wrap installed here, only for
metrics of ours, fills ``Stderr`` with the standard error of a seeded bootstrap that resamples whole clusters
(``gui_metrics.stats``), which is the only one composite metrics (FPR-ACC, pooled ratios, per-episode rates) get,
and records every metric's estimate, 95% interval and bootstrap parameters in the task's results metadata
(``configs.<task>.metadata.intervals``). Under ``--repeats N`` it adds, for the task's first metric, the share of
documents whose score differs across the repeats (``<metric>_flip_share``) and each document's variance
(``metadata.repeats``). Values no metric aggregates stay in the logged samples only (:func:`drop_unaggregated`).
docs/statistics.md explains each figure.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Hashable, Sequence

from gui_metrics import stats
from gui_metrics.lmms_bridge import SCORE_KEY

_MARK = "__gui_eval_patched__"


def _ours(task: Any, metric: str):
    """The MetricSpec of ``metric`` when the task aggregates it with one of our metrics, else None."""
    try:
        agg = task.aggregation().get(metric)
    except Exception:  # a task without aggregations: not ours
        return None
    name = getattr(agg, "__gui_metric__", None)
    if name is None:
        return None
    from gui_metrics.manager import all_metrics

    return all_metrics().get(name)


def _clusters(items: Sequence[Any], key: str | None) -> list[Hashable]:
    """Each item's cluster; an item without one is its own cluster."""
    out: list[Hashable] = []
    for i, x in enumerate(items):
        c = x.get(key) if key and isinstance(x, dict) else None
        out.append(("cluster", c) if c is not None else ("sample", i))
    return out


def step_scores(items: Sequence[Any], clusters: Sequence[Hashable], spec: Any) -> tuple[list[Any], list[Hashable]] | None:
    """A step rate over episode items (own-history runs: one item holds an episode's ``steps``) is the mean of its
    steps' own scores pooled over episodes: those scores, each with its episode's cluster; None when not that case."""
    if spec.composite or not items or not all(isinstance(x, dict) and isinstance(x.get("steps"), list) for x in items):
        return None
    values, out = [], []
    for item, c in zip(items, clusters):
        for step in item["steps"]:
            values.append(spec.sample_score(step) if isinstance(step, dict) else None)
            out.append(c)
    return (values, out) if any(v is not None for v in values) else None


def interval(items: Sequence[Any], spec: Any, cluster_key: str | None, *, resamples: int = stats.BOOTSTRAP_RESAMPLES,
             seed: int = stats.BOOTSTRAP_SEED) -> stats.Interval:
    """The cluster-bootstrap interval of one metric over its per-sample values as lmms-eval holds them: the mean of
    ``score`` when the metric is a mean of per-sample values (of steps pooled over episodes for a step rate on
    episode items, ``step_scores``), else its aggregation recomputed on each resample."""
    clusters = _clusters(items, cluster_key)
    scores = [x.get(SCORE_KEY) if isinstance(x, dict) else x if isinstance(x, (int, float)) else None for x in items]
    if not spec.composite and any(s is not None for s in scores):
        return stats.cluster_bootstrap_mean(scores, clusters, resamples=resamples, seed=seed)
    steps = step_scores(items, clusters, spec)
    if steps is not None:
        return stats.cluster_bootstrap_mean(steps[0], steps[1], resamples=resamples, seed=seed)
    if not spec.composite and not math.isfinite(stats._float(_aggregate(spec, items))):  # an empty population: nothing
        return stats.cluster_bootstrap_mean([], [], resamples=resamples, seed=seed)  # to resample (NaN interval)
    return stats.cluster_bootstrap(list(items), lambda xs: spec.aggregate_items(xs), clusters, resamples=resamples, seed=seed)


def _aggregate(spec: Any, items: Sequence[Any]) -> Any:
    try:
        return spec.aggregate_items(items)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return math.nan


def add_intervals(task_output: Any, bootstrap_iters: int) -> None:
    """``<metric>_stderr`` = the cluster-bootstrap standard error, and ``metadata.intervals``, for our metrics."""
    config = task_output.task_config if isinstance(task_output.task_config, dict) else {}
    cluster_key = config.get("cluster_key")
    resamples = max(2, min(int(bootstrap_iters), stats.BOOTSTRAP_RESAMPLES))
    recorded: dict[str, Any] = {}
    for (metric, filter_key), items in task_output.sample_metrics.items():
        spec = _ours(task_output.task, metric)
        if spec is None or not items:
            continue
        try:
            iv = interval(items, spec, cluster_key, resamples=resamples)
        except Exception as exc:  # a plugin's aggregation that fails on a resample: this interval is left out, not the run
            recorded[f"{metric},{filter_key}"] = {"error": f"{type(exc).__name__}: {exc}", "cluster_key": cluster_key}
            continue
        if len(items) < 2:
            # one sample has no standard error; "N/A" (lmms-eval's own mark) also keeps a group of one-sample tasks from
            # dividing by zero in lmms-eval's pooled_sample_stderr (sum of sizes minus the number of tasks)
            task_output.agg_metrics[f"{metric}_stderr,{filter_key}"] = "N/A"
        elif math.isfinite(iv.se):
            task_output.agg_metrics[f"{metric}_stderr,{filter_key}"] = iv.se
        recorded[f"{metric},{filter_key}"] = {**iv.as_dict(), "cluster_key": cluster_key, "composite": spec.composite}
    if recorded and isinstance(config.get("metadata"), dict):
        config["metadata"]["intervals"] = recorded


def drop_unaggregated(task_output: Any) -> list[str]:
    """Our tasks' ``process_results`` values that no metric of the task aggregates (the top-level ``score`` lmms-eval's
    ``--baseline`` reads, the side channel, a record kind's metrics the task's ``metric_list`` leaves out) stay in the
    logged samples but are not results: lmms-eval would write each as an empty list (``score,none: []``). Returns the
    names dropped. Tasks without a metric of ours are left as they are."""
    try:
        aggregation = task_output.task.aggregation()
    except Exception:  # a task without aggregations: not ours
        return []
    if not any(getattr(fn, "__gui_metric__", None) for fn in aggregation.values()):
        return []
    dropped = [key for key in task_output.sample_metrics if key[0] not in aggregation]
    for key in dropped:
        del task_output.sample_metrics[key]
    return sorted({key[0] for key in dropped})


def first_metric(config: dict[str, Any]) -> str | None:
    """The first metric of a task's ``metric_list`` (its headline figure)."""
    for m in config.get("metric_list") or []:
        if isinstance(m, dict) and m.get("metric"):
            return str(m["metric"])
    return None


def repeat_spread(per_doc: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Across repeats: each document's score variance (population: p(1-p) for 0/1), the mean of those, and the share
    of documents whose score is not the same in every repeat (a 0/1 outcome that flips)."""
    variances, flips = [], 0
    for scores in per_doc:
        xs = [float(s) for s in scores if s is not None and math.isfinite(float(s))]
        if not xs:
            variances.append(None)
            continue
        m = sum(xs) / len(xs)
        variances.append(sum((x - m) ** 2 for x in xs) / len(xs))
        flips += len(set(xs)) > 1
    scored = [v for v in variances if v is not None]
    return {"n_tasks": len(scored), "flip_share": flips / len(scored) if scored else math.nan,
            "mean_task_variance": sum(scored) / len(scored) if scored else math.nan, "per_task_variance": variances}


def add_repeat_stats(task_output: Any) -> None:
    """Under ``--repeats N``: the first metric's per-document variance and flip share (results and metadata)."""
    config = task_output.task_config if isinstance(task_output.task_config, dict) else {}
    if int(config.get("repeats") or 1) <= 1:
        return
    metric = first_metric(config)
    for (name, filter_key), items in task_output.per_sample_metrics.items():
        if name != metric or _ours(task_output.task, name) is None:
            continue
        per_doc = [[x.get(SCORE_KEY) if isinstance(x, dict) else None for x in doc] for doc in items if isinstance(doc, list)]
        ids = [next((x.get("id") for x in doc if isinstance(x, dict) and x.get("id") is not None), i)
               for i, doc in enumerate(items) if isinstance(doc, list)]
        spread = repeat_spread(per_doc)
        if isinstance(config.get("metadata"), dict):
            gen = config.get("generation_kwargs") or {}
            config["metadata"]["repeats"] = {
                "metric": name, "repeats": int(config["repeats"]), "n_tasks": spread["n_tasks"],
                "flip_share": spread["flip_share"], "mean_task_variance": spread["mean_task_variance"],
                "per_task_variance": {str(i): v for i, v in zip(ids, spread["per_task_variance"])},
                "sampling": {k: gen.get(k) for k in ("do_sample", "temperature", "top_p", "top_k", "seed") if k in gen},
            }


# lmms-eval's columns of one metric (make_table folds these keys into the metric's row)
_COLUMN_SUFFIXES = ("_stderr", "_stderr_clt", "_stderr_clustered", "_expected_accuracy", "_consensus_accuracy",
                    "_internal_variance", "_consistency_rate", "_flip_share")
# faults are never hidden; a thinking model's mean reasoning length and its truncated share (gui_core.reasoning) sit
# beside the accuracy and format-error rate
ALWAYS_SHOWN = ("sample_error", "reasoning_tokens", "thinking_truncated")
TABLE_NOTE = ("gui-eval: the table shows each gui-eval task's headline figures; every figure is in the results file "
              "(`gui-eval summary RUN` adds the 95% intervals, the reports the rest)")


def headline_names(metric_list: Any, available: Any = None) -> list[str]:
    """A task's headline figures: the first metric of its ``metric_list`` and its format-error rate (if any), among
    ``available`` when given (the ones a results file holds)."""
    names = [str(m["metric"]) for m in metric_list or [] if isinstance(m, dict) and m.get("metric")]
    if available is not None:
        names = [n for n in names if n in available]
    return names[:1] + [n for n in names[1:] if n.endswith("format_error_rate")][:1]


def headline_results(result_dict: dict[str, Any], column: str = "results") -> tuple[dict[str, Any], bool]:
    """A copy of lmms-eval's results whose ``column`` keeps, for our tasks, only the headline figures' rows (and
    ``sample_error``); other packages' tasks as they are. Also says whether anything was left out."""
    from gui_metrics.manager import all_metrics

    ours = all_metrics()
    configs = result_dict.get("configs") or {}
    table = dict(result_dict.get(column) or {})
    hidden = False
    for task, values in table.items():
        metric_list = (configs.get(task) or {}).get("metric_list") if isinstance(configs.get(task), dict) else None
        if not isinstance(values, dict) or not any(isinstance(m, dict) and m.get("metric") in ours for m in metric_list or []):
            continue
        keep = set(headline_names(metric_list)) | set(ALWAYS_SHOWN)
        kept = {}
        for key, value in values.items():
            name = key.partition(",")[0]
            if "," not in key or name.startswith("paired_") or name in keep or any(name == k + s for k in keep for s in _COLUMN_SUFFIXES):
                kept[key] = value
        hidden = hidden or len(kept) < len(values)
        table[task] = kept
    return {**result_dict, column: table}, hidden


def install_table_filter() -> None:
    """lmms-eval's printed table shows our tasks' headline figures only (``headline_results``); the results file keeps
    every figure. Wraps ``lmms_eval.utils.make_table`` and rebinds the name where lmms-eval's CLI imported it (once)."""
    import sys

    from lmms_eval import utils

    make = utils.make_table
    if not getattr(make, _MARK, False):
        @functools.wraps(make)
        def make_table(result_dict, column: str = "results", sort_results: bool = False):
            try:
                shown, hidden = headline_results(result_dict, column)
            except Exception:  # never lose lmms-eval's own table
                shown, hidden = result_dict, False
            table = make(shown, column, sort_results)
            return table + ("\n" + TABLE_NOTE + "\n" if hidden and column == "results" else "")

        setattr(make_table, _MARK, True)
        utils.make_table = make_table
    for name in ("__main__", "lmms_eval.__main__", "lmms_eval.evaluator"):
        module = sys.modules.get(name)
        bound = getattr(module, "make_table", None) if module is not None else None
        if bound is not None and not getattr(bound, _MARK, False) and getattr(bound, "__module__", "") == "lmms_eval.utils":
            module.make_table = utils.make_table


def baseline_samples_file(baseline: str, task: str) -> str:
    """lmms-eval's ``--baseline`` reads one samples JSONL for every task; a results file or a run folder of ours
    stands for each task's own samples file beside it (``<date>_samples_<task>.jsonl``). Anything else: as given."""
    from pathlib import Path

    p = Path(baseline)
    if p.is_file() and p.name.endswith("_results.json"):
        candidates = [p.with_name(p.name[: -len("_results.json")] + f"_samples_{task}.jsonl")]
    elif p.is_dir():
        candidates = sorted(p.rglob(f"*_samples_{task}.jsonl"))[-1:]
    else:
        return baseline
    found = [c for c in candidates if c.is_file()]
    if not found:
        raise FileNotFoundError(f"no samples file of task {task} for --baseline {baseline} (was it run with --log_samples?)")
    return str(found[0])


def install_stats_hook() -> None:
    """Wrap ``TaskOutput.calculate_aggregate_metric`` and ``calculate_stability_metrics``, and let ``--baseline``
    name a results file or a run folder (once each, marked)."""
    import sys

    from lmms_eval import baselines
    from lmms_eval.evaluator_utils import TaskOutput

    load = baselines.load_baseline
    if not getattr(load, _MARK, False):
        @functools.wraps(load)
        def load_baseline(baseline_arg, task_name):
            return load(baseline_samples_file(baseline_arg, task_name), task_name)

        setattr(load_baseline, _MARK, True)
        baselines.load_baseline = load_baseline  # what lmms_eval.evaluator binds when it is imported after this
    evaluator = sys.modules.get("lmms_eval.evaluator")  # imported before: its own name for the function
    if evaluator is not None and not getattr(getattr(evaluator, "load_baseline", None), _MARK, True):
        evaluator.load_baseline = baselines.load_baseline

    install_table_filter()
    agg = TaskOutput.calculate_aggregate_metric
    if not getattr(agg, _MARK, False):
        @functools.wraps(agg)
        def calculate_aggregate_metric(self, bootstrap_iters=100000):
            install_table_filter()  # the CLI has bound make_table by now: rebind it there
            drop_unaggregated(self)  # results hold numbers only: nothing lmms-eval cannot aggregate
            agg(self, bootstrap_iters=bootstrap_iters)
            from gui_tasks.harness.lmms_processes import record

            record(self)  # fewer processes started than asked for: said in the results too
            if isinstance(bootstrap_iters, int) and bootstrap_iters > 0:  # 0: the user turned standard errors off
                add_intervals(self, bootstrap_iters)

        setattr(calculate_aggregate_metric, _MARK, True)
        TaskOutput.calculate_aggregate_metric = calculate_aggregate_metric

    stab = TaskOutput.calculate_stability_metrics
    if not getattr(stab, _MARK, False):
        @functools.wraps(stab)
        def calculate_stability_metrics(self):
            stab(self)
            add_repeat_stats(self)

        setattr(calculate_stability_metrics, _MARK, True)
        TaskOutput.calculate_stability_metrics = calculate_stability_metrics
