"""Leaderboard submissions: one self-describing file from an lmms-eval run, re-scored and re-checkable.

``gui-eval submit RUN_DIR`` rebuilds every task through lmms-eval's ``TaskManager``, hashes
every document itself (lmms-eval 0.7.3's ``doc_hash`` is the same for every sample, see
``gui_tasks/harness/rescore.py``), scores every logged response again with the task's own
``process_results`` and aggregations (logged per-sample values are never read) and refuses the
run when the results file reports other numbers. The file records the model, its arguments
and interventions, the versions, every task's metadata and protocols, the responses, a sha256
per document, per response's scores and per sample, and one over the whole file.

``gui-eval validate FILE`` checks the JSON Schema (``submission.schema.json``, shipped with the
package), every hash, the consistency of model name, arguments, interventions and protocol
labels, the completeness of the set (MPR-GUI: six languages, eight dimensions; doc ids 0..N-1
of the installed task) and re-scores every response. The hashes show edits; they are not a
signature: someone who re-computes them after an edit is caught only where the edit
contradicts the documents, the parser or the installed tasks; ``gui-eval verify`` (``gui_tasks/submit/verify.py``)
runs the model again on documents drawn at random. Malformed files are refused with the reason
(:func:`load_submission`), and model args are re-checked with the backend's own check
(``gui_models.model_args``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
import math
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from gui_core.logit_capture import SIDE_KEY
from gui_core.reasoning import REASONING_KEY
from gui_models.model_args import check_model_args
from gui_tasks.harness.rescore import (UnhashableValue, aggregate, canonical_json, doc_sha256, load_task, score, scores_sha256,
                               sha256_text, task_docs, task_folder, task_metadata)
from gui_tasks.runs.protocols import VIEW_ARGS, interventions_of, protocol_label, view_args_of  # noqa: F401 (re-exported)
from gui_tasks.submit.submission_versions import (_check_plugins, _check_versions, _dist_version,  # noqa: F401 (re-exported)
                                           _plugins, _quiet_lmms_eval)
from gui_tasks.submit.submission_rules import (SUBMISSIONS_PAGE, _check_complete, _required_metrics, capture_gap,  # noqa: F401
                                        _task_problem, _thinking_problem, completeness_gaps, thinking_entry, thinking_of)
from gui_tasks.submit.submission_input import (MAX_BYTES, MAX_DEPTH, MAX_VALUES, SubmissionError,  # noqa: F401 (re-exported)
                                        load_submission, nesting_depth, parse_submission)
from gui_tasks.runs.results_io import (RunResults, TaskResult, _pretrained, find_result_files, is_finite, load_results,
                                  load_task_samples, task_definition)

SCHEMA = "gui-eval-submission/3"
SCHEMA_FILE = Path(__file__).with_name("submission.schema.json")
REQUIRED_METADATA = ("prompt_protocol", "parser_protocol")
HASHING = {
    "doc": "sha256 of canonical JSON of the document, file paths (absolute, or relative to the task's folder) replaced by "
           "'file-sha256:<sha256 of the bytes>', PIL images by 'pixels-sha256:<sha256 of mode, size, palette and decoded "
           "pixels>', bytes by 'bytes-sha256:<sha256>'",
    "scores": "sha256 of canonical JSON of the task's process_results output for the response",
    "sample": "sha256 of canonical JSON of [doc_id, doc_sha256, target, response, scores_sha256], plus side when the "
              "sample has one (what scoring reads beyond the text: the key-digit capture, image sizes, crop)",
    "docs": "sha256 of canonical JSON of the list of doc_sha256 in doc_id order",
    "submission": "sha256 of canonical JSON of the whole file without submission_sha256",
}

# Metrics that are undefined (NaN) when their denominator is empty: the precision and recall of "unknown" are NaN for
# a model that never answers "unknown" / data without an "unknown" gold (gui_metrics/knowledge.py). A submission
# records them as null; every other metric must be finite.
# The letter bias (gui_metrics.letter_bias) is NaN when no response had a readable letter.
UNDEFINED_WHEN_EMPTY = frozenset({"gkb_unknown_precision", "gkb_unknown_recall", "mcq_letter_tv", "gkb_letter_tv",
                                  "sphinx_probe_letter_tv", "sphinx_completion_letter_tv"})
Loader = Callable[[str], Any]


def _sha(obj: Any) -> str:
    return sha256_text(canonical_json(obj))


def sample_hash(sample: dict[str, Any]) -> str:
    """sha256 over a submission sample's doc id, doc hash, target, response and scores hash."""
    fields = [sample["doc_id"], sample["doc_sha256"], sample["target"], sample["response"], sample["scores_sha256"]]
    return _sha(fields + [sample["side"]] if "side" in sample else fields)  # side: what the run logged beyond the text


def _checkpoint_entry(model_args: str) -> dict[str, Any]:
    """``{"checkpoint": fingerprint}`` of a local ``pretrained=`` folder (``gui_tasks/runs/fingerprint.py``; what ``verify``
    compares first), else nothing."""
    from gui_tasks.runs.fingerprint import checkpoint_fingerprint, model_arg

    found = checkpoint_fingerprint(model_arg(model_args, "pretrained"))
    return {"checkpoint": found} if found else {}


def submission_hash(sub: dict[str, Any]) -> str:
    """sha256 over everything in the file except this hash itself."""
    return _sha({k: v for k, v in sub.items() if k != "submission_sha256"})


def _undefined_ok(metric: str, value: Any) -> bool:
    """An undefined metric (NaN or null): an empty denominator, recorded as null with :func:`undefined_reason`."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def undefined_reason(metric: str) -> str:
    """Why ``metric`` is undefined (NaN) in a run: its denominator is empty."""
    if metric in UNDEFINED_WHEN_EMPTY:
        return "undefined: no response (or no gold answer) is 'unknown', so the ratio has an empty denominator"
    return "undefined: no sample falls in this metric's denominator (e.g. a dimension or action type without samples)"


def _norm(obj: Any) -> Any:
    return json.loads(canonical_json(obj))


def _rescore(name: str, metadata: dict[str, Any], samples: list[dict[str, Any]], loader: Loader,
             version: Any = None, partial: bool = False) -> dict[str, Any]:
    """Re-score ``samples`` ({doc_id, target, response}) against the installed task ``name``.

    Returns doc hashes, scores hashes and metrics; refuses (SubmissionError) every mismatch with
    the installed task: metadata (version, protocols), document count, doc ids, targets, coverage.
    A ``partial`` submission (``--limit``) covers the first documents 0..n-1 of the task, not all of them.
    """
    try:
        task = loader(name)
    except Exception as exc:
        raise SubmissionError(f"task {name}: cannot be rebuilt for re-scoring: {exc}") from exc
    installed = _norm(task_metadata(task))
    if _norm(metadata) != installed:
        diff = sorted(k for k in set(installed) | set(metadata) if _norm(metadata.get(k)) != installed.get(k))
        raise SubmissionError(f"task {name}: metadata differs from the installed task in {diff} "
                              f"(another task version, protocol or data set?)")
    docs = task_docs(task)
    n_documents = len(docs)
    problem = _task_problem(metadata, docs)
    if problem:
        raise SubmissionError(f"task {name}: {problem}")
    if version is not None and str(version) != str(getattr(task, "VERSION", None)):
        raise SubmissionError(f"task {name}: version {version!r} but the installed task is version "
                              f"{getattr(task, 'VERSION', None)!r} (another task version?)")
    ids = [s["doc_id"] for s in samples]
    if partial and 0 < len(samples) <= len(docs):
        docs = docs[: len(samples)]  # --limit n runs documents 0..n-1 (lmms-eval's offset 0)
    if len(samples) != len(docs):
        raise SubmissionError(f"task {name}: the installed task has {len(docs)} documents, the run has {len(samples)} "
                              f"samples (--limit, a cut data cache or dropped samples?)")
    dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
    if dupes:
        raise SubmissionError(f"task {name}: duplicate doc ids {dupes[:10]}")
    if sorted(ids) != list(range(len(docs))):
        bad = sorted(set(ids) - set(range(len(docs))))
        raise SubmissionError(f"task {name}: doc ids must be 0..{len(docs) - 1}; found {bad[:10]} (shifted ids?)")
    hashes, scores, per_sample = {}, {}, []
    for s in sorted(samples, key=lambda s: s["doc_id"]):
        doc = docs[s["doc_id"]]
        target = str(task.doc_to_target(doc))
        if str(s["target"]) != target:
            raise SubmissionError(f"task {name}: doc {s['doc_id']}: the sample's target is {s['target']!r}, the document's "
                                  f"{target!r} (shifted doc ids?)")
        try:
            values = score(task, doc, s["response"], s.get("side"), s.get(REASONING_KEY))
        except Exception as exc:
            raise SubmissionError(f"task {name}: doc {s['doc_id']}: re-scoring failed: {exc!r}") from exc
        try:
            hashes[s["doc_id"]] = doc_sha256(doc, task_folder(task))
            scores[s["doc_id"]] = scores_sha256(values)
        except UnhashableValue as exc:
            raise SubmissionError(f"task {name}: doc {s['doc_id']}: {exc}") from exc
        per_sample.append(values)
    metrics = aggregate(task, per_sample)
    return {"doc_hashes": hashes, "scores": scores, "metrics": metrics, "docs_sha256": _sha([hashes[i] for i in range(len(docs))]),
            "metric_list": task.config.metric_list or [], "n_documents": n_documents}


def _check_side(where: str, sample: dict[str, Any], backend: str) -> None:
    """A sample's logged side channel has the one schema (gui_core.side_schema) and only capture kinds its backend
    produces (gui_hf: exact), before anything scores from it (issue 54: a forged capture never validates)."""
    if "side" not in sample:
        return
    from gui_core.side_schema import capture_kinds, side_problem
    from gui_models.model_args import capture_kinds_of

    problem = side_problem(sample["side"])
    if problem:
        raise SubmissionError(f"{where}: {problem}")
    foreign = sorted(capture_kinds(sample["side"]) - set(capture_kinds_of(backend)))
    if foreign:
        raise SubmissionError(f"{where}: a {'/'.join(foreign)} digit capture, which backend {backend!r} does not produce "
                              f"(it logs {list(capture_kinds_of(backend)) or 'no capture'})")


def _same(a: float, b: float) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _check_metrics(where: str, reported: dict[str, Any], again: dict[str, float], required: Sequence[str]) -> None:
    missing = [m for m in required if m not in again]
    if missing:
        raise SubmissionError(f"{where}: re-scoring gives no {missing}")
    absent = [m for m in again if m not in reported]
    if absent:
        raise SubmissionError(f"{where}: metric(s) missing from the results: {absent}")
    for metric, value in again.items():
        if _undefined_ok(metric, value) and _undefined_ok(metric, reported[metric]):
            continue  # undefined in both (an empty denominator): recorded as null with its reason
        if not is_finite(value):
            raise SubmissionError(f"{where}: {metric} is {reported[metric]} in the file but {value} when the responses "
                                  "are re-scored")
        if not is_finite(reported[metric]) or not _same(float(reported[metric]), value):
            raise SubmissionError(f"{where}: {metric} is {reported[metric]} in the file but {value} when the responses are "
                                  "re-scored")


def _check_no_skipped_rows(where: str, meta: dict[str, Any]) -> None:
    """A run that dropped bad data rows (GUI_EVAL_SKIP_BAD_ROWS) did not see the whole benchmark."""
    skipped = meta.get("bad_rows_skipped")
    if skipped:
        raise SubmissionError(f"{where}: {skipped} bad data row(s) were skipped (GUI_EVAL_SKIP_BAD_ROWS); "
                              "a submission needs every row: fix the data (gui-eval data check) and run again")


def _json_metrics(metrics: dict[str, float]) -> dict[str, float | None]:
    """Metrics as a submission records them: sorted, undefined ones (NaN) as null (their reasons: ``undefined``)."""
    return {m: (None if _undefined_ok(m, v) else v) for m, v in sorted(metrics.items())}


def _task_entry(run: RunResults, res: TaskResult, interventions: list[str], loader: Loader,
                partial: bool = False) -> dict[str, Any]:
    where = f"{run.path.name}, task {res.task}"
    n = res.n_samples or {}
    if not isinstance(n.get("effective"), int) or (n.get("effective") != n.get("original") and not partial):
        raise SubmissionError(f"{where}: ran on {n.get('effective')} of {n.get('original')} documents (--limit?); "
                              f"a full submission needs every document: run without --limit, or submit it marked as "
                              f"partial with --partial ({SUBMISSIONS_PAGE})")
    _check_no_skipped_rows(where, res.metadata)
    if res.metrics.get("sample_error"):
        raise SubmissionError(f"{where}: {res.metrics['sample_error']:g} sample(s) met a fault (their sample_error names "
                              "it: data, device or server); a submission needs every sample run: fix it and run again")
    missing_meta = [k for k in REQUIRED_METADATA if not res.metadata.get(k)]
    if missing_meta:
        raise SubmissionError(f"{where}: task metadata lacks {', '.join(missing_meta)}; a submission names the prompt the "
                              "model saw (prompt_protocol) and the reader that scored its answers (parser_protocol, "
                              "grounding tasks: grounding-point-v1:<family>): add them to the task's metadata "
                              f"(docs/adding.md, the table of task keys; the tagged tasks: {SUBMISSIONS_PAGE})")
    problem = _task_problem(res.metadata) or _thinking_problem(res.metadata, run.model_args)
    if problem:
        raise SubmissionError(f"{where}: {problem}")
    try:
        samples = load_task_samples(run, res.task)
    except ValueError as exc:
        raise SubmissionError(f"{where}: {exc}") from exc
    if len(samples) != n["effective"]:
        raise SubmissionError(f"{where}: {len(samples)} logged samples but n-samples says {n['effective']}")
    if any(not isinstance(s.get("doc_id"), int) or isinstance(s.get("doc_id"), bool) for s in samples):
        raise SubmissionError(f"{where}: a sample has no integer doc_id")
    gap = capture_gap(run.model_args, list(res.metrics), samples)
    if gap:
        raise SubmissionError(f"{where}: {gap}")
    logged = [{"doc_id": s["doc_id"], "target": str(s.get("target")), "response": s.get("filtered_resps"),
               **({"side": s[SIDE_KEY]} if isinstance(s.get(SIDE_KEY), dict) else {}),
               **({REASONING_KEY: s[REASONING_KEY]} if isinstance(s.get(REASONING_KEY), dict) else {})} for s in samples]
    try:
        again = _rescore(res.task, task_definition(res.metadata), logged, loader, partial=partial)
        _check_metrics(where, res.metrics, again["metrics"], _required_metrics(res.metadata, again["metric_list"]))
    except SubmissionError as exc:
        raise SubmissionError(f"{run.path.name}: {exc}") from exc
    entries = []
    for s in sorted(logged, key=lambda s: s["doc_id"]):
        entry = {**s, "doc_sha256": again["doc_hashes"][s["doc_id"]], "scores_sha256": again["scores"][s["doc_id"]]}
        entry["sha256"] = sample_hash(entry)
        entries.append(entry)
    return {
        "task": res.task,
        "version": res.version,
        "prompt_protocol": res.metadata["prompt_protocol"],
        "parser_protocol": res.metadata["parser_protocol"],
        "protocol": protocol_label(res.metadata["prompt_protocol"], interventions, run.model_args),
        "metadata": _norm(task_definition(res.metadata)),  # the run's intervals and repeats are results, not the task
        "metrics": _json_metrics(again["metrics"]),
        **_undefined_entry(again["metrics"]),
        "higher_is_better": {m: res.higher_is_better.get(m) for m in sorted(again["metrics"])},
        "n_samples": len(entries),
        **({"n_documents": again["n_documents"]} if partial else {}),
        "docs_sha256": again["docs_sha256"],
        "samples": entries,
    }


def _undefined_entry(metrics: dict[str, float]) -> dict[str, Any]:
    """``{"undefined": {metric: reason}}`` for every undefined (NaN) metric, else nothing."""
    undefined = {m: undefined_reason(m) for m, v in sorted(metrics.items()) if _undefined_ok(m, v)}
    return {"undefined": undefined} if undefined else {}


def generation_of(run: RunResults) -> dict[str, Any]:
    """What a run's generation depended on besides the model args: ``--gen_kwargs`` (as lmms-eval parses the string) and
    the four seeds (random, numpy, torch, fewshot); ``gui-eval verify`` re-applies both."""
    config = run.config or {}
    cli = config.get("resolved_cli_args") or {}
    text = cli.get("gen_kwargs") if isinstance(cli, dict) else None
    if not isinstance(text, str):
        kwargs = config.get("gen_kwargs") or {}
        text = ",".join(f"{k}={v}" for k, v in kwargs.items()) if isinstance(kwargs, dict) else str(kwargs)
    seeds = [config.get(k, d) for k, d in (("random_seed", 0), ("numpy_seed", 1234), ("torch_seed", 1234), ("fewshot_seed", 1234))]
    return {"gen_kwargs": text or "", "seeds": [int(x) if isinstance(x, (int, float)) else None for x in seeds]}


def build_submission(run_dir: str | Path, *, loader: Loader = load_task, partial: bool = False) -> dict[str, Any]:
    """The submission for every results file under ``run_dir`` (one model with one set of args), re-scored; ``partial``
    accepts ``--limit`` runs and incomplete benchmark sets, marked as such in the file."""
    files = find_result_files(run_dir)
    if not files:
        raise SubmissionError(f"{run_dir}: no lmms-eval *_results.json file found")
    runs = [load_results(f) for f in files]
    models = sorted({(r.model, r.model_args) for r in runs})
    if len(models) != 1:
        raise SubmissionError(f"{run_dir}: results from several models or model args: {models}")
    generations = sorted({canonical_json(generation_of(r)) for r in runs})
    if len(generations) != 1:
        raise SubmissionError(f"{run_dir}: results made with different --gen_kwargs or seeds: {generations}; submit each "
                              "setting on its own")
    limited = [r for r in runs if r.limit is not None]
    if limited and not partial:
        raise SubmissionError(f"{limited[0].path}: run with --limit {limited[0].limit}; a full submission needs full runs: "
                              f"run without --limit, or submit it marked as partial with --partial ({SUBMISSIONS_PAGE})")
    model, model_args = models[0]
    interventions = interventions_of(model_args)
    tasks: dict[str, dict[str, Any]] = {}
    groups: dict[str, tuple[Path, tuple[str, ...]]] = {}
    for run in runs:
        for res in run.tasks.values():
            if res.is_group:  # a group's numbers are aggregates of its tasks, which are submitted themselves
                groups[res.task] = (run.path, res.subtasks)
                continue
            if res.task in tasks:
                raise SubmissionError(f"{run.path}: task {res.task} appears in more than one results file")
            tasks[res.task] = _task_entry(run, res, interventions, loader, partial=partial)
    if not tasks:
        raise SubmissionError(f"{run_dir}: the results hold no task")
    for group, (path, subtasks) in sorted(groups.items()):
        missing = [t for t in subtasks if t not in tasks and t not in groups]
        if missing:
            raise SubmissionError(f"{path}: group {group} lacks its task(s) {missing}")
    sub: dict[str, Any] = {
        "schema": SCHEMA,
        "model": {"backend": model, "name": runs[0].model_name, "args": model_args, "interventions": interventions,
                  **thinking_entry(model_args), **_checkpoint_entry(model_args)},
        "versions": {"lmms_eval": _dist_version("lmms_eval"), "lmms_eval_git": runs[0].lmms_eval_version,
                     "gui_eval": _dist_version("gui-eval"), "plugins": _plugins(tasks.values(), interventions)},
        "hashing": HASHING,
        "generation": json.loads(generations[0]),
        "tasks": [tasks[t] for t in sorted(tasks)],
    }
    if partial:
        sub["partial"] = {"limit": limited[0].limit if limited else None, "incomplete": completeness_gaps(sub["tasks"])}
    else:
        _check_complete(sub["tasks"])
    sub["submission_sha256"] = submission_hash(sub)
    validate_submission(sub, rescore=False)  # just re-scored; the structural checks still apply
    return sub


def validate_submission(sub: Any, *, rescore: bool = True, loader: Loader = load_task) -> None:
    """Re-check a (loaded) submission: schema, hashes, labels, model args, completeness and, with ``rescore``, every score."""
    if nesting_depth(sub) > MAX_DEPTH:
        raise SubmissionError(f"JSON nested deeper than {MAX_DEPTH} levels; not a submission")
    if not isinstance(sub, dict) or sub.get("schema") != SCHEMA:
        raise SubmissionError(f"unknown submission schema {sub.get('schema') if isinstance(sub, dict) else None!r}; expected {SCHEMA}")
    from gui_tasks.runs.json_schema import errors

    problems = errors(sub, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    if problems:
        raise SubmissionError("not a valid submission: " + "; ".join(problems[:5]))
    for t in sub["tasks"]:
        unexplained = [m for m, v in t["metrics"].items() if not is_finite(v) and not (v is None and (t.get("undefined") or {}).get(m))]
        if unexplained:
            raise SubmissionError(f"task {t['task']}: metric(s) {unexplained} not finite and without a reason in 'undefined'")
    if sub["submission_sha256"] != submission_hash(sub):
        raise SubmissionError("submission_sha256 does not match the file's content (edited file?)")
    names = [t["task"] for t in sub["tasks"]]
    if len(set(names)) != len(names):
        raise SubmissionError("submission lists a task twice")
    model = sub["model"]
    from gui_core.bounds import BoundError, check_generation

    try:
        check_generation((sub.get("generation") or {}).get("gen_kwargs"))
    except BoundError as exc:
        raise SubmissionError(f"generation: {exc}") from None
    pretrained = _pretrained(model["args"])
    if pretrained and model["name"] != pretrained:
        raise SubmissionError(f"model name {model['name']!r} is not the checkpoint in the model args ({pretrained!r})")
    try:
        check_model_args(model["backend"], model["args"])
    except ValueError as exc:
        raise SubmissionError(f"model args refused as backend {model['backend']!r} would refuse them: {exc}") from None
    if model["interventions"] != interventions_of(model["args"]):
        raise SubmissionError(f"model interventions {model['interventions']} differ from the model args "
                              f"({interventions_of(model['args'])})")
    _check_versions(sub)
    for t in sub["tasks"]:
        where = f"task {t['task']}"
        _check_no_skipped_rows(where, t["metadata"])
        refused = _thinking_problem(t["metadata"], model["args"])
        if refused:
            raise SubmissionError(f"{where}: {refused}")
        if model.get("thinking", thinking_of(model["args"])) != thinking_of(model["args"]):
            raise SubmissionError(f"model thinking {model.get('thinking')!r} differs from the model args "
                                  f"({thinking_of(model['args'])})")
        declared = t["metadata"].get("version", "Yaml")  # lmms-eval: a task's VERSION is its metadata version, else "Yaml"
        if str(t["version"]) != str(declared):
            raise SubmissionError(f"{where}: version {t['version']!r} differs from the task metadata's {declared!r}")
        for key in REQUIRED_METADATA:
            if t["metadata"].get(key) != t[key]:
                raise SubmissionError(f"{where}: {key} {t[key]!r} differs from the task metadata ({t['metadata'].get(key)!r})")
        label = protocol_label(t["prompt_protocol"], model["interventions"], model["args"])
        if t["protocol"] != label:
            raise SubmissionError(f"{where}: labelled {t['protocol']!r} but the run used {label!r} "
                                  f"(interventions {model['interventions'] or 'none'}; model args that change what the "
                                  f"model sees: {view_args_of(model['args']) or 'none'})")
        if len(t["samples"]) != t["n_samples"]:
            raise SubmissionError(f"{where}: {len(t['samples'])} sample hashes for {t['n_samples']} samples")
        ids = [s["doc_id"] for s in t["samples"]]
        if ids != list(range(len(ids))):
            raise SubmissionError(f"{where}: doc ids must be 0..{len(ids) - 1} in order (duplicated or shifted ids)")
        for s in t["samples"]:
            if s["sha256"] != sample_hash(s):
                raise SubmissionError(f"{where}: doc {s['doc_id']}: sample sha256 does not match its content (edited?)")
            _check_side(f"{where}: doc {s['doc_id']}", s, model["backend"])
        if t["docs_sha256"] != _sha([s["doc_sha256"] for s in t["samples"]]):
            raise SubmissionError(f"{where}: docs_sha256 does not match the documents' hashes")
    _check_complete(sub["tasks"], sub.get("partial"))
    if rescore:
        _check_plugins(sub)
        for t in sub["tasks"]:
            again = _rescore(t["task"], t["metadata"], t["samples"], loader, t["version"], partial="partial" in sub)
            if "partial" in sub and t.get("n_documents") != again["n_documents"]:
                raise SubmissionError(f"task {t['task']}: n_documents {t.get('n_documents')} but the installed task has "
                                      f"{again['n_documents']}")
            for s in t["samples"]:
                if s["doc_sha256"] != again["doc_hashes"][s["doc_id"]]:
                    raise SubmissionError(f"task {t['task']}: doc {s['doc_id']}: content hash differs from the installed "
                                          "task's document (other data?)")
                if s["scores_sha256"] != again["scores"][s["doc_id"]]:
                    raise SubmissionError(f"task {t['task']}: doc {s['doc_id']}: scores differ when the response is re-scored")
            if sorted(t["metrics"]) != sorted(again["metrics"]):
                raise SubmissionError(f"task {t['task']}: metrics {sorted(t['metrics'])} but re-scoring gives {sorted(again['metrics'])}")
            _check_metrics(f"task {t['task']}", t["metrics"], again["metrics"],
                           _required_metrics(t["metadata"], again["metric_list"]))


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval submit RUN_DIR --out FILE.json``."""
    ap = argparse.ArgumentParser(prog="gui-eval submit", description="Re-scored, validated leaderboard submission from an lmms-eval run.")
    ap.add_argument("run_dir", help="the --output_path of an lmms-eval run made with --log_samples (no --limit)")
    ap.add_argument("--out", required=True, help="submission JSON file to write")
    ap.add_argument("--partial", action="store_true", help="accept a --limit run or an incomplete benchmark set: the file "
                                                           "is marked partial (validate and verify say so; leaderboards may refuse it)")
    args = ap.parse_args(argv)
    _quiet_lmms_eval()
    try:
        sub = build_submission(args.run_dir, partial=args.partial)
    except ValueError as exc:  # SubmissionError and DataError (unreadable files)
        print(f"gui-eval submit: refused: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(sub, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(sub['tasks'])} task(s), submission sha256 {sub['submission_sha256'][:16]}..."
          + (f" ({partial_note(sub)})" if "partial" in sub else ""))
    return 0


def partial_note(sub: dict[str, Any]) -> str:
    """One line saying that (and why) a submission is partial."""
    p = sub.get("partial") or {}
    why = ([f"--limit {p['limit']:g}"] if isinstance(p.get("limit"), (int, float)) else []) + list(p.get("incomplete") or [])
    return "PARTIAL submission: " + ("; ".join(why) if why else "marked partial") + "; leaderboards may refuse it"


def validate_main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval validate FILE.json``: every check of a submission, responses re-scored."""
    ap = argparse.ArgumentParser(prog="gui-eval validate", description="Re-check a leaderboard submission (re-scores every response).")
    ap.add_argument("file")
    ap.add_argument("--full", action="store_true", help="refuse a partial submission (what a leaderboard ranks)")
    args = ap.parse_args(argv)
    _quiet_lmms_eval()
    try:
        sub = load_submission(args.file)
        validate_submission(sub)
        if args.full and "partial" in sub:
            raise SubmissionError(f"{partial_note(sub)}; --full needs a full submission")
    except ValueError as exc:  # SubmissionError (malformed files included), DataError of the installed tasks
        print(f"gui-eval validate: {args.file}: refused: {exc}", file=sys.stderr)
        return 1
    n = sum(t["n_samples"] for t in sub["tasks"])
    print(f"{args.file}: valid ({len(sub['tasks'])} task(s), {n} responses re-scored, sha256 {sub['submission_sha256'][:16]}...)"
          + (f"; {partial_note(sub)}" if "partial" in sub else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
