"""``gui-eval compare RUN_A RUN_B``: is run A better than run B on the same documents, or is the gap noise?

Both runs' logged samples are matched by document (the document's ``id``, else lmms-eval's ``doc_id``). For every
metric of every task both runs have, and for the task's headline metric (the first of its ``metric_list``) on every
slice (language, dimension, sub-task, family, split, application, action type, polarity), the comparison gives
the difference A - B, its 95% interval from a paired bootstrap that resamples whole clusters (the task's
``cluster_key``: screenshot, episode, application), and a p-value: the exact McNemar test when both runs' scores are
0/1, else a paired permutation test (clusters swapped between the runs). Composite metrics (FPR-ACC, pooled ratios)
are recomputed on every resample and permutation. The p-values are adjusted for the number of tests with the
correction named in the output (Holm by default). docs/statistics.md says how to read it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Mapping, Sequence

from gui_metrics import stats
from gui_metrics.lmms_bridge import SCORE_KEY
from gui_core.errors import DataError
from gui_tasks.runs.results_io import RESULTS_SUFFIX, find_result_files, load_results, load_samples
from gui_tasks.runs.results_io import LOG_KEYS

# Slices: name -> the record (or document) fields that give a sample's value, first present wins.
SLICES: dict[str, tuple[str, ...]] = {
    "language": ("lang",),
    "dimension": ("dimension",),
    "subtask": ("subtask",),
    "family": ("agent_family", "family"),
    "split": ("split",),
    "application": ("application",),
    "action_type": ("category", "gold_action", "gold_type"),
    "polarity": ("polarity",),
    "capability": ("capability",),
}
# Fields our tasks name clusters by (gui_tasks.harness.lmms_rows.RowsTask.CLUSTER_KEY and subclasses), for runs given as bare
# samples files (no results file to read the task's cluster_key from).
CLUSTER_FIELDS = ("screenshot", "episode", "application", "question")
ALPHA = 0.05


@dataclass
class TaskSamples:
    """One task of one run: its samples by document key, and what its results file says about it."""

    task: str
    samples: dict[Hashable, dict[str, Any]]
    cluster_key: str | None = None
    metrics: list[str] = field(default_factory=list)  # metric_list order (headline first), when known
    version: Any = None  # the task version its results file records (None for a bare samples file)
    reading: str | None = None  # the metadata ``reading`` (which harness's code scored), else the records'


def _recorded_reading(samples: Mapping[Hashable, Mapping[str, Any]]) -> str | None:
    """The ``reading`` the first sample's records carry in their score parameters (None when they carry none)."""
    for s in samples.values():
        for value in s.values():
            if isinstance(value, Mapping) and isinstance(value.get("params"), Mapping) and value["params"].get("reading"):
                return str(value["params"]["reading"])
        return None
    return None


def version_mismatches(run_a: Mapping[str, TaskSamples], run_b: Mapping[str, TaskSamples],
                       tasks: Sequence[str]) -> list[str]:
    """The tasks whose two runs were scored by different task versions or readings, one line each: their numbers
    are not the same measurement (a new version changed what ``official`` computes), so they are not compared
    unless the user says so."""
    out = []
    for t in tasks:
        a, b = run_a[t], run_b[t]
        if a.version is not None and b.version is not None and str(a.version) != str(b.version):
            out.append(f"{t}: version {a.version} vs {b.version}")
        if a.reading and b.reading and a.reading != b.reading:
            out.append(f"{t}: reading {a.reading} vs {b.reading}")
    return out


@dataclass(frozen=True)
class Row:
    """One test: a metric on a slice of one task."""

    task: str
    metric: str
    slice: str  # "all" or "<slice>=<value>"
    n: int  # matched samples that entered
    n_clusters: int
    a: float
    b: float
    diff: float
    low: float
    high: float
    test: str  # "mcnemar_exact" | "paired_permutation" | "none"
    p_value: float
    p_adjusted: float = math.nan
    a_only: int | None = None  # McNemar: samples only A got right
    b_only: int | None = None

    @property
    def significant(self) -> bool:
        return math.isfinite(self.p_adjusted) and self.p_adjusted < ALPHA

    def as_dict(self) -> dict[str, Any]:
        d = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}
        d["significant"] = self.significant
        return d


@dataclass
class Comparison:
    """Every row of one comparison, with what produced it."""

    run_a: str
    run_b: str
    rows: list[Row]
    correction: str
    resamples: int
    seed: int
    permutations: int
    unmatched: dict[str, tuple[int, int]]  # task -> (samples only in A, only in B)

    def as_dict(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "correction": self.correction, "alpha": ALPHA,
                "resamples": self.resamples, "seed": self.seed, "permutations": self.permutations,
                "interval": "95% percentile, paired cluster bootstrap",
                "unmatched": {t: list(v) for t, v in self.unmatched.items()}, "rows": [r.as_dict() for r in self.rows]}


def _doc_key(sample: Mapping[str, Any]) -> Hashable:
    doc = sample.get("doc")
    if isinstance(doc, Mapping) and doc.get("id") is not None:
        return str(doc["id"])
    return sample.get("doc_id")


def _task_of_samples_file(path: Path) -> str:
    name = path.name
    if "_samples_" not in name or not name.endswith(".jsonl"):
        raise DataError("not a samples file (expected <date>_samples_<task>.jsonl)", file=str(path))
    return name.split("_samples_", 1)[1][: -len(".jsonl")]


def load_run(path: str | Path) -> dict[str, TaskSamples]:
    """A run's tasks: from a samples file, a results file (its tasks' samples beside it) or a folder of them."""
    p = Path(path)
    if p.is_file() and p.name.endswith(".jsonl"):
        task = _task_of_samples_file(p)
        samples = {_doc_key(s): s for s in load_samples(p)}
        return {task: TaskSamples(task, samples, reading=_recorded_reading(samples))}
    files = [f for f in find_result_files(p) if f.name.endswith(RESULTS_SUFFIX)]
    if not files and p.is_dir():
        out: dict[str, TaskSamples] = {}
        for f in sorted(p.rglob("*_samples_*.jsonl")):
            out.update(load_run(f))
        if out:
            return out
    if not files:
        raise DataError("no lmms-eval results or samples file here", file=str(p))
    out = {}
    for f in files:  # later files (sorted by date) override earlier ones
        run = load_results(f)
        for task, res in run.tasks.items():
            sp = run.samples_path(task)
            if res.is_group or not sp.is_file():
                continue
            metrics = [str(m.get("metric")) for m in res.config.get("metric_list") or [] if isinstance(m, Mapping)]
            samples = {_doc_key(s): s for s in load_samples(sp)}
            out[task] = TaskSamples(task, samples, res.config.get("cluster_key"), metrics, res.version,
                                    str(res.metadata.get("reading") or "") or _recorded_reading(samples))
    if not out:
        raise DataError("no samples files beside the results (run lmms-eval with --log_samples)", file=str(p))
    return out


def _metric_names(samples: Sequence[Mapping[str, Any]], known: Sequence[str]) -> list[str]:
    names = [m for m in known if any(isinstance(s.get(m), Mapping) for s in samples)]
    for s in samples:
        for k, v in s.items():
            if k not in LOG_KEYS and isinstance(v, Mapping) and k not in names:
                names.append(k)
    return names


def _headline(samples: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> str:
    """Without a results file: the metric whose score is the samples' top-level ``score`` (the task's first metric
    with one, ``gui_tasks.harness.lmms_rows.RowsTask``), else the first metric with a score."""
    scored = [m for m in metrics if any(isinstance(s.get(m), Mapping) and SCORE_KEY in s[m] for s in samples)]
    tops = [s for s in samples if SCORE_KEY in s]
    for m in scored:
        if tops and all(isinstance(s.get(m), Mapping) and s[m].get(SCORE_KEY) == s[SCORE_KEY] for s in tops):
            return m
    return scored[0] if scored else metrics[0]


def _cluster_key(a: TaskSamples, records: Sequence[Mapping[str, Any]]) -> str | None:
    if a.cluster_key:
        return a.cluster_key
    return next((k for k in CLUSTER_FIELDS if any(k in r for r in records)), None)


def _field(sample: Mapping[str, Any], record: Mapping[str, Any], names: Sequence[str]) -> Any:
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    meta = doc.get("meta")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    for n in names:
        for src in (record, doc, meta if isinstance(meta, Mapping) else {}):
            if src.get(n) not in (None, ""):
                return src[n]
    return None


def _paired_steps(ra: Sequence[Any], rb: Sequence[Any], clusters: Sequence[Hashable], spec: Any):
    """Episode items of both runs with steps one to one (``gui_tasks.harness.lmms_stats.step_scores``): each step's score as
    an item of its own, in its episode's cluster; None when the items are not such episodes."""
    from gui_tasks.harness.lmms_stats import step_scores

    if spec is None or not ra or any(not isinstance(x, Mapping) or not isinstance(y, Mapping)
                                      or len(x.get("steps") or []) != len(y.get("steps") or []) for x, y in zip(ra, rb)):
        return None
    a, b = step_scores(list(ra), list(clusters), spec), step_scores(list(rb), list(clusters), spec)
    if a is None or b is None:
        return None
    return [{SCORE_KEY: v} for v in a[0]], [{SCORE_KEY: v} for v in b[0]], a[1]


def _is01(xs: Sequence[Any]) -> bool:
    return all(x is None or float(x) in (0.0, 1.0) for x in xs)


def _mean(xs: Sequence[Any]) -> float:
    v = [float(x) for x in xs if x is not None and math.isfinite(float(x))]
    return sum(v) / len(v) if v else math.nan


def _row(task: str, metric: str, slice_name: str, ra: list[Any], rb: list[Any], clusters: list[Hashable],
         aggregate: Callable[[list[Any]], float] | None, *, resamples: int, seed: int, permutations: int) -> Row | None:
    """One test over matched records (``aggregate`` None: the mean of their ``score``)."""
    if aggregate is None:
        sa = [r.get(SCORE_KEY) if isinstance(r, Mapping) else None for r in ra]
        sb = [r.get(SCORE_KEY) if isinstance(r, Mapping) else None for r in rb]
        keep = [i for i in range(len(sa)) if sa[i] is not None and sb[i] is not None]
        if not keep:
            return None
        sa, sb, cl = [sa[i] for i in keep], [sb[i] for i in keep], [clusters[i] for i in keep]
        iv = stats.paired_cluster_bootstrap(sa, sb, cl, resamples=resamples, seed=seed)
        if _is01(sa) and _is01(sb):
            mc = stats.mcnemar_exact(sa, sb)
            test, p, extra = "mcnemar_exact", mc.p_value, {"a_only": mc.a_only, "b_only": mc.b_only}
        else:
            test, p, extra = "paired_permutation", stats.paired_permutation(sa, sb, cl, permutations=permutations, seed=seed), {}
        return Row(task, metric, slice_name, len(keep), iv.n_clusters, _mean(sa), _mean(sb), iv.estimate, iv.low, iv.high,
                   test, p, **extra)
    pairs = [(x, y, c) for x, y, c in zip(ra, rb, clusters) if isinstance(x, Mapping) and isinstance(y, Mapping)]
    if not pairs:
        return None
    ra, rb, clusters = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
    try:  # a (plugin) aggregation that raises costs this row, not the comparison
        a_val, b_val = stats._float(aggregate(list(ra))), stats._float(aggregate(list(rb)))
        if not (math.isfinite(a_val) and math.isfinite(b_val)):
            return None
        iv = stats.paired_cluster_bootstrap(ra, rb, clusters, aggregate, resamples=resamples, seed=seed)
        p = stats.paired_permutation_statistic(ra, rb, aggregate, clusters, permutations=min(permutations, resamples),
                                               seed=seed)
    except Exception as exc:
        print(f"gui-eval compare: {task} {metric} {slice_name}: left out: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    return Row(task, metric, slice_name, len(ra), iv.n_clusters, a_val, b_val, a_val - b_val, iv.low, iv.high,
               "paired_permutation", p)


def compare_runs(path_a: str | Path, path_b: str | Path, *, tasks: Sequence[str] | None = None, correction: str = "holm",
                 resamples: int = stats.BOOTSTRAP_RESAMPLES, seed: int = stats.BOOTSTRAP_SEED,
                 permutations: int = stats.PERMUTATIONS, allow_version_mismatch: bool = False) -> Comparison:
    """Compare two runs task by task on their matched samples (module docstring). Runs of a task scored under
    different task versions or readings are refused (``version_mismatches``) unless ``allow_version_mismatch``."""
    run_a, run_b = load_run(path_a), load_run(path_b)
    common = [t for t in run_a if t in run_b and (not tasks or t in tasks)]
    if not common:
        raise DataError(f"the runs share no task{' of ' + ', '.join(tasks) if tasks else ''}: A has "
                        f"{', '.join(sorted(run_a)) or 'none'}; B has {', '.join(sorted(run_b)) or 'none'}", file=str(path_b))
    mismatched = version_mismatches(run_a, run_b, common)
    if mismatched and not allow_version_mismatch:
        raise DataError("the runs were scored differently, their numbers are not one measurement: "
                        + "; ".join(mismatched) + " (run the older one again with the installed task, or pass "
                        "--allow-version-mismatch to compare anyway)", file=str(path_b))
    return compare_tasks(run_a, run_b, str(path_a), str(path_b), tasks=common, correction=correction,
                         resamples=resamples, seed=seed, permutations=permutations)


def compare_tasks(run_a: Mapping[str, TaskSamples], run_b: Mapping[str, TaskSamples], label_a: str = "A",
                  label_b: str = "B", *, tasks: Sequence[str] | None = None, correction: str = "holm",
                  resamples: int = stats.BOOTSTRAP_RESAMPLES, seed: int = stats.BOOTSTRAP_SEED,
                  permutations: int = stats.PERMUTATIONS) -> Comparison:
    """``compare_runs`` on runs already loaded (the viewer's two sides): every task both have, or ``tasks``."""
    from gui_metrics.manager import all_metrics

    if correction not in stats.CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; known: {', '.join(stats.CORRECTIONS)}")
    common = [t for t in run_a if t in run_b and (not tasks or t in tasks)]
    specs = all_metrics()
    rows: list[Row] = []
    unmatched: dict[str, tuple[int, int]] = {}
    for task in common:
        a, b = run_a[task], run_b[task]
        keys = [k for k in a.samples if k in b.samples]
        unmatched[task] = (len(a.samples) - len(keys), len(b.samples) - len(keys))
        sa, sb = [a.samples[k] for k in keys], [b.samples[k] for k in keys]
        metrics = _metric_names(sa, a.metrics or b.metrics)
        if not metrics:
            continue
        first_records = [s.get(metrics[0]) if isinstance(s.get(metrics[0]), Mapping) else {} for s in sa]
        ck = _cluster_key(a, first_records)
        clusters = [(("c", r.get(ck)) if ck and r.get(ck) is not None else ("s", i)) for i, r in enumerate(first_records)]
        for metric in metrics:
            ra, rb = [s.get(metric) for s in sa], [s.get(metric) for s in sb]
            spec = specs.get(metric)
            cl = clusters
            steps = _paired_steps(ra, rb, clusters, spec)
            if steps is not None:  # a step rate over episodes: its steps' scores, pooled, episodes resampled
                ra, rb, cl = steps
            composite = spec is not None and (spec.composite or not any(isinstance(r, Mapping) and SCORE_KEY in r for r in ra))
            agg = spec.aggregate_items if composite else None
            if not composite and not any(isinstance(r, Mapping) and SCORE_KEY in r for r in ra):
                continue  # neither a score nor a known aggregation: nothing to test
            row = _row(task, metric, "all", ra, rb, cl, agg, resamples=resamples, seed=seed, permutations=permutations)
            if row:
                rows.append(row)
        headline = metrics[0] if a.metrics or b.metrics else _headline(sa, metrics)
        spec = specs.get(headline)
        agg = spec.aggregate_items if spec is not None and spec.composite else None
        for name, fields in SLICES.items():
            values = [_field(s, r if isinstance(r, Mapping) else {}, fields) for s, r in zip(sa, (s.get(headline) for s in sa))]
            distinct = sorted({str(v) for v in values if v is not None})
            if len(distinct) < 2:
                continue
            for value in distinct:
                idx = [i for i, v in enumerate(values) if v is not None and str(v) == value]
                row = _row(task, headline, f"{name}={value}", [sa[i].get(headline) for i in idx], [sb[i].get(headline) for i in idx],
                           [clusters[i] for i in idx], agg, resamples=resamples, seed=seed, permutations=permutations)
                if row:
                    rows.append(row)
    adjusted = stats.CORRECTIONS[correction]([r.p_value for r in rows])
    rows = [Row(**{**asdict(r), "p_adjusted": p}) for r, p in zip(rows, adjusted)]
    return Comparison(label_a, label_b, rows, correction, resamples, seed, permutations, unmatched)


def _f(x: float, digits: int = 4) -> str:
    return "nan" if not math.isfinite(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "n/a" if not math.isfinite(x) else (f"{x:.2e}" if x < 1e-3 else f"{x:.4f}")


def format_comparison(c: Comparison) -> str:
    """The comparison as a text table, with the correction and the interval named."""
    head = ("task", "metric", "slice", "n", "A", "B", "A - B", "95% CI", "test", "p", f"p ({c.correction})", "")
    body = [(r.task, r.metric, r.slice, str(r.n), _f(r.a), _f(r.b), f"{r.diff:+.4f}" if math.isfinite(r.diff) else "nan",
             f"[{_f(r.low)}, {_f(r.high)}]", r.test, _p(r.p_value), _p(r.p_adjusted), "*" if r.significant else "")
            for r in c.rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)] if body else [len(h) for h in head]
    lines = ["  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip() for row in (head, *body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"A = {c.run_a}", f"B = {c.run_b}",
             f"95% CI: paired bootstrap over clusters ({c.resamples} resamples, seed {c.seed}); p: exact McNemar for 0/1 "
             f"scores, else paired permutation ({c.permutations} permutations); p adjusted for {len(c.rows)} tests "
             f"({c.correction}); * = adjusted p < {ALPHA}."]
    for task, (only_a, only_b) in c.unmatched.items():
        if only_a or only_b:
            notes.append(f"{task}: {only_a} sample(s) only in A and {only_b} only in B were left out.")
    return "\n".join(lines + [""] + notes)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gui-eval compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("run_a", help="results file, samples file or folder of run A")
    ap.add_argument("run_b", help="results file, samples file or folder of run B")
    ap.add_argument("--tasks", default=None, help="comma-separated tasks (default: every task both runs have)")
    ap.add_argument("--correction", default="holm", choices=sorted(stats.CORRECTIONS), help="multiple-comparison correction")
    ap.add_argument("--resamples", type=int, default=stats.BOOTSTRAP_RESAMPLES, help="bootstrap resamples")
    ap.add_argument("--permutations", type=int, default=stats.PERMUTATIONS, help="permutations of the permutation test")
    ap.add_argument("--seed", type=int, default=stats.BOOTSTRAP_SEED)
    ap.add_argument("--json", default=None, help="also write the comparison as JSON here")
    ap.add_argument("--allow-version-mismatch", action="store_true",
                    help="compare runs of a task scored under different task versions or readings")
    args = ap.parse_args(argv)
    try:
        c = compare_runs(args.run_a, args.run_b, tasks=args.tasks.split(",") if args.tasks else None,
                         correction=args.correction, resamples=args.resamples, seed=args.seed, permutations=args.permutations,
                         allow_version_mismatch=args.allow_version_mismatch)
    except DataError as exc:
        print(f"gui-eval compare: {exc}", file=sys.stderr)
        return 2
    print(format_comparison(c))
    if args.json:
        Path(args.json).write_text(json.dumps(c.as_dict(), indent=1), encoding="utf-8")
    return 0
