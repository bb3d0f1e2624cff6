"""Leaderboard submissions: one validated, self-describing file from an lmms-eval run.

A submission records the model and its arguments, lmms-eval's and our versions, every
task with its version and its prompt/parser protocols, the metrics, and a hash per
sample (over document id, document hash, target and the filtered response) plus one
over all of them. Incomplete or inconsistent runs are refused with the reason.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Sequence

from gui_tasks.results_io import RunResults, find_result_files, is_finite, load_results, load_samples

SCHEMA = "gui-eval-submission/1"
REQUIRED_METADATA = ("prompt_protocol", "parser_protocol")


class SubmissionError(ValueError):
    """The run cannot become a submission; the message says why."""


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def sample_hash(sample: dict[str, Any]) -> str:
    """sha256 over the sample's doc id, doc hash, target and filtered response."""
    payload = {k: sample.get(k) for k in ("doc_id", "doc_hash", "target", "filtered_resps")}
    return hashlib.sha256(_canonical(payload).encode("utf-8")).hexdigest()


def aggregate_hash(per_task: dict[str, list[str]]) -> str:
    return hashlib.sha256(_canonical(per_task).encode("utf-8")).hexdigest()


def _task_entry(run: RunResults, task: str) -> dict[str, Any]:
    res = run.tasks[task]
    where = f"{run.path} (task {task})"
    n = res.n_samples or {}
    if n.get("effective") != n.get("original"):
        raise SubmissionError(f"{where}: ran on {n.get('effective')} of {n.get('original')} documents (--limit?); submissions need full runs")
    missing_meta = [k for k in REQUIRED_METADATA if not res.metadata.get(k)]
    if missing_meta:
        raise SubmissionError(f"{where}: task metadata lacks {missing_meta}; only protocol-tagged tasks can be submitted")
    expected = [m for m in res.metrics] or []
    if not expected:
        raise SubmissionError(f"{where}: no metrics")
    bad = [m for m, v in res.metrics.items() if not is_finite(v)]
    if bad:
        raise SubmissionError(f"{where}: metrics not finite: {bad}")
    samples = load_samples(run.samples_path(task))
    if len(samples) != n.get("effective"):
        raise SubmissionError(f"{where}: {len(samples)} logged samples but n-samples says {n.get('effective')}")
    ids = [s.get("doc_id") for s in samples]
    if len(set(ids)) != len(ids):
        raise SubmissionError(f"{where}: duplicate doc ids in the samples file")
    hashes = [sample_hash(s) for s in sorted(samples, key=lambda s: s["doc_id"])]
    return {
        "task": task,
        "version": res.version,
        "metadata": res.metadata,
        "metrics": res.metrics,
        "n_samples": n.get("effective"),
        "sample_hashes": hashes,
    }


def build_submission(run_dir: str | Path) -> dict[str, Any]:
    """The submission for every results file under ``run_dir`` (all from one model and its args)."""
    files = find_result_files(run_dir)
    if not files:
        raise SubmissionError(f"{run_dir}: no lmms-eval *_results.json file")
    runs = [load_results(f) for f in files]
    models = {(r.model, r.model_args) for r in runs}
    if len(models) != 1:
        raise SubmissionError(f"{run_dir}: results from several models or model args: {sorted(models)}")
    limits = [r.path for r in runs if r.config.get("limit") not in (None, "None")]
    if limits:
        raise SubmissionError(f"{limits[0]}: run with --limit; submissions need full runs")
    tasks: dict[str, dict[str, Any]] = {}
    for run in runs:
        for task in run.tasks:
            if task in tasks:
                raise SubmissionError(f"{run.path}: task {task} appears in more than one results file")
            tasks[task] = _task_entry(run, task)
    model, model_args = models.pop()
    sub = {
        "schema": SCHEMA,
        "model": model,
        "model_args": model_args,
        "versions": {"lmms_eval": _version("lmms_eval") or runs[0].raw.get("lmms_eval_version"), "gui_eval": _version("gui-eval")},
        "tasks": [tasks[t] for t in sorted(tasks)],
    }
    sub["submission_hash"] = aggregate_hash({t["task"]: t["sample_hashes"] for t in sub["tasks"]})
    validate_submission(sub)
    return sub


def validate_submission(sub: dict[str, Any]) -> None:
    """Re-check a (loaded) submission: schema, required fields, finite metrics, the aggregate hash."""
    if sub.get("schema") != SCHEMA:
        raise SubmissionError(f"unknown submission schema {sub.get('schema')!r}; expected {SCHEMA}")
    for key in ("model", "model_args", "versions", "tasks", "submission_hash"):
        if key not in sub:
            raise SubmissionError(f"submission lacks {key!r}")
    if not sub["tasks"]:
        raise SubmissionError("submission has no tasks")
    for t in sub["tasks"]:
        for key in ("task", "version", "metadata", "metrics", "n_samples", "sample_hashes"):
            if key not in t:
                raise SubmissionError(f"task entry {t.get('task')!r} lacks {key!r}")
        if len(t["sample_hashes"]) != t["n_samples"]:
            raise SubmissionError(f"task {t['task']}: {len(t['sample_hashes'])} sample hashes for {t['n_samples']} samples")
        if not all(is_finite(v) for v in t["metrics"].values()):
            raise SubmissionError(f"task {t['task']}: metrics not finite")
    expected = aggregate_hash({t["task"]: t["sample_hashes"] for t in sub["tasks"]})
    if sub["submission_hash"] != expected:
        raise SubmissionError("submission_hash does not match the sample hashes (edited file?)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gui-eval submit", description=__doc__)
    ap.add_argument("run_dir", help="the --output_path of an lmms-eval run made with --log_samples")
    ap.add_argument("--out", required=True, help="submission JSON file to write")
    args = ap.parse_args(argv)
    try:
        sub = build_submission(args.run_dir)
    except (SubmissionError, ValueError) as exc:
        print(f"gui-eval submit: refused: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(sub, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    print(f"wrote {out}: {len(sub['tasks'])} task(s), submission hash {sub['submission_hash'][:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
