"""Leaderboard submissions: one validated, self-describing file from an lmms-eval run.

A submission records the model and its arguments, lmms-eval's and our versions, every
task with its version, prompt and parser protocols, metrics and n-samples, and a sha256
per sample (over document id, document hash, target and filtered response) plus one over
all of them. Runs that cannot be compared fairly (``--limit``, missing samples, mixed
models, missing or non-finite metrics, metrics the samples do not reproduce) are refused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Sequence

from gui_tasks.results_io import RunResults, TaskResult, find_result_files, is_finite, load_results, load_task_samples

SCHEMA = "gui-eval-submission/1"
HASHED_FIELDS = ("doc_id", "doc_hash", "target", "filtered_resps")
REQUIRED_METADATA = ("prompt_protocol", "parser_protocol")
# What every MPR-GUI task must report (gui_metrics.mpr); other tasks must report their metric_list.
MPR_METRICS = ("mcq_acc", "fpr_acc", "format_error_rate",
               *(f"mpr_acc_{d}" for d in ("au", "ap", "wf", "wi", "ael", "rel", "ri", "si")))


class SubmissionError(ValueError):
    """The run cannot become a submission (or a loaded submission is invalid); the message says why."""


def _dist_version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def canonical_json(obj: Any) -> str:
    """The one byte-stable JSON form hashes are taken over (sorted keys, no spaces, UTF-8)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)


def sample_hash(sample: dict[str, Any]) -> str:
    """sha256 over the canonical JSON of the sample's doc id, doc hash, target and filtered response."""
    return hashlib.sha256(canonical_json({k: sample.get(k) for k in HASHED_FIELDS}).encode("utf-8")).hexdigest()


def aggregate_hash(tasks: Sequence[dict[str, Any]]) -> str:
    """sha256 over every task's name, version and ordered (doc id, sample hash) pairs."""
    payload = [[t["task"], t["version"], [[s["doc_id"], s["sha256"]] for s in t["samples"]]] for t in tasks]
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def _required_metrics(res: TaskResult) -> list[str]:
    if res.metadata.get("benchmark") == "mpr_gui":
        dims = res.metadata.get("dimensions")
        if dims and list(dims) != ["AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"]:  # a per-dimension task
            return ["mcq_acc", "format_error_rate", *(f"mpr_acc_{str(d).lower()}" for d in dims)]
        return list(MPR_METRICS)
    return [m["metric"] for m in res.config.get("metric_list") or [] if isinstance(m, dict) and "metric" in m]


def _recomputed(metric: str, samples: list[dict[str, Any]]) -> float | None:
    """The metric aggregated again from the logged per-sample values, when it is one of ours."""
    try:
        from gui_metrics import get_metric

        spec = get_metric(metric)
    except Exception:  # not a gui_metrics metric: nothing to recompute with
        return None
    values = [s[metric] for s in samples if metric in s]
    if len(values) != len(samples):
        raise SubmissionError(f"{len(samples) - len(values)} sample(s) lack the per-sample value of {metric!r}")
    return float(spec.aggregate(values))


def _task_entry(run: RunResults, res: TaskResult) -> dict[str, Any]:
    where = f"{run.path.name}, task {res.task}"
    n = res.n_samples or {}
    if not isinstance(n.get("effective"), int) or n.get("effective") != n.get("original"):
        raise SubmissionError(f"{where}: ran on {n.get('effective')} of {n.get('original')} documents (--limit?); "
                              "submissions need full runs")
    missing_meta = [k for k in REQUIRED_METADATA if not res.metadata.get(k)]
    if missing_meta:
        raise SubmissionError(f"{where}: task metadata lacks {missing_meta}; only protocol-tagged tasks can be submitted")
    missing = [m for m in _required_metrics(res) if m not in res.metrics]
    if missing or not res.metrics:
        raise SubmissionError(f"{where}: metric(s) missing from the results: {missing or 'all'}")
    bad = sorted(m for m, v in res.metrics.items() if not is_finite(v))
    if bad:
        raise SubmissionError(f"{where}: metric(s) not finite: {bad} (a dimension without samples?)")
    try:
        samples = load_task_samples(run, res.task)
    except ValueError as exc:
        raise SubmissionError(f"{where}: {exc}") from exc
    if len(samples) != n["effective"]:
        raise SubmissionError(f"{where}: {len(samples)} logged samples but n-samples says {n['effective']}")
    ids = [s.get("doc_id") for s in samples]
    if any(not isinstance(i, int) for i in ids):
        raise SubmissionError(f"{where}: a sample has no integer doc_id")
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise SubmissionError(f"{where}: duplicate doc ids in the samples file: {dupes[:10]}")
    for metric, reported in res.metrics.items():
        try:
            again = _recomputed(metric, samples)
        except SubmissionError as exc:
            raise SubmissionError(f"{where}: {exc}") from exc
        if again is not None and not (math.isclose(again, reported, rel_tol=1e-9, abs_tol=1e-12)):
            raise SubmissionError(f"{where}: {metric} is {reported} in the results but {again} from the logged samples")
    ordered = sorted(samples, key=lambda s: s["doc_id"])
    return {
        "task": res.task,
        "version": res.version,
        "prompt_protocol": res.metadata["prompt_protocol"],
        "parser_protocol": res.metadata["parser_protocol"],
        "metadata": res.metadata,
        "metrics": dict(sorted(res.metrics.items())),
        "higher_is_better": res.higher_is_better,
        "n_samples": n["effective"],
        "samples": [{"doc_id": s["doc_id"], "sha256": sample_hash(s)} for s in ordered],
    }


def build_submission(run_dir: str | Path) -> dict[str, Any]:
    """The submission for every results file under ``run_dir`` (one model with one set of args)."""
    files = find_result_files(run_dir)
    if not files:
        raise SubmissionError(f"{run_dir}: no lmms-eval *_results.json file found")
    runs = [load_results(f) for f in files]
    models = sorted({(r.model, r.model_args) for r in runs})
    if len(models) != 1:
        raise SubmissionError(f"{run_dir}: results from several models or model args: {models}")
    limited = [r for r in runs if r.limit is not None]
    if limited:
        raise SubmissionError(f"{limited[0].path}: run with --limit {limited[0].limit}; submissions need full runs")
    tasks: dict[str, dict[str, Any]] = {}
    for run in runs:
        for res in run.tasks.values():
            if res.is_group:  # a group's numbers are aggregates of its tasks, which are submitted themselves
                continue
            if res.task in tasks:
                raise SubmissionError(f"{run.path}: task {res.task} appears in more than one results file")
            tasks[res.task] = _task_entry(run, res)
    if not tasks:
        raise SubmissionError(f"{run_dir}: the results hold no task")
    model, model_args = models[0]
    entries = [tasks[t] for t in sorted(tasks)]
    sub = {
        "schema": SCHEMA,
        "model": {"backend": model, "name": runs[0].model_name, "args": model_args},
        "versions": {"lmms_eval": _dist_version("lmms_eval"), "lmms_eval_git": runs[0].lmms_eval_version,
                     "gui_eval": _dist_version("gui-eval")},
        "hashing": {"sample": f"sha256 of canonical JSON of {list(HASHED_FIELDS)}",
                    "submission": "sha256 of canonical JSON of [[task, version, [[doc_id, sample sha256], ...]], ...]"},
        "tasks": entries,
        "submission_sha256": aggregate_hash(entries),
    }
    validate_submission(sub)
    return sub


def validate_submission(sub: Any) -> None:
    """Re-check a (loaded) submission: schema, fields, protocols, finite metrics, counts, the aggregate hash."""
    if not isinstance(sub, dict) or sub.get("schema") != SCHEMA:
        raise SubmissionError(f"unknown submission schema {sub.get('schema') if isinstance(sub, dict) else None!r}; expected {SCHEMA}")
    for key in ("model", "versions", "tasks", "submission_sha256"):
        if key not in sub:
            raise SubmissionError(f"submission lacks {key!r}")
    if not isinstance(sub["model"], dict) or not sub["model"].get("backend") or "args" not in sub["model"]:
        raise SubmissionError("submission 'model' must name the backend and its args")
    if not isinstance(sub["tasks"], list) or not sub["tasks"]:
        raise SubmissionError("submission has no tasks")
    names = [t.get("task") if isinstance(t, dict) else None for t in sub["tasks"]]
    if len(set(names)) != len(names):
        raise SubmissionError("submission lists a task twice")
    for t in sub["tasks"]:
        for key in ("task", "version", "prompt_protocol", "parser_protocol", "metrics", "n_samples", "samples"):
            if not isinstance(t, dict) or t.get(key) in (None, ""):
                raise SubmissionError(f"task entry {t.get('task') if isinstance(t, dict) else t!r} lacks {key!r}")
        if not t["metrics"] or not all(is_finite(v) for v in t["metrics"].values()):
            raise SubmissionError(f"task {t['task']}: metrics missing or not finite")
        if len(t["samples"]) != t["n_samples"]:
            raise SubmissionError(f"task {t['task']}: {len(t['samples'])} sample hashes for {t['n_samples']} samples")
        ids = [s.get("doc_id") for s in t["samples"]]
        if len(set(ids)) != len(ids):
            raise SubmissionError(f"task {t['task']}: duplicate doc ids")
    if sub["submission_sha256"] != aggregate_hash(sub["tasks"]):
        raise SubmissionError("submission_sha256 does not match the tasks' sample hashes (edited file?)")


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval submit RUN_DIR --out FILE.json``."""
    ap = argparse.ArgumentParser(prog="gui-eval submit", description="Validated leaderboard submission from an lmms-eval run.")
    ap.add_argument("run_dir", help="the --output_path of an lmms-eval run made with --log_samples (no --limit)")
    ap.add_argument("--out", required=True, help="submission JSON file to write")
    args = ap.parse_args(argv)
    try:
        sub = build_submission(args.run_dir)
    except ValueError as exc:  # SubmissionError and DataError (unreadable files)
        print(f"gui-eval submit: refused: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(sub, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(sub['tasks'])} task(s), submission sha256 {sub['submission_sha256'][:16]}...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
