"""Honest lmms-eval runs of the synthetic MPR-GUI tasks, written as lmms-eval 0.7.3 writes them (no tests here).

Responses come from a rule per document; per-sample values and metrics come from the installed
task's own ``process_results`` and aggregations, exactly what a real run would log.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Sequence

from gui_tasks.harness.rescore import aggregate, load_task, task_docs, task_metadata

LANGS = ("en", "zh", "fr", "ru", "ja", "th")
NULL_DOC_HASH = hashlib.sha256(b"null").hexdigest()  # what lmms-eval 0.7.3 logs for every sample


def respond(doc: dict[str, Any], i: int) -> str:
    """i % 5 == 0: no letter; == 1: a wrong letter; else the right one (64 docs: 38 right, 13 malformed)."""
    if i % 5 == 0:
        return "I cannot tell."
    if i % 5 == 1:
        return "Answer: " + "ABCD"[("ABCD".index(doc["answer"]) + 1) % 4]
    return f"Answer: {doc['answer']}"


def honest_run(root: Path, langs: Sequence[str] = LANGS, *, model_args: str = "pretrained=Org/Tiny-VL-2B,device=cpu",
               rule: Callable[[dict[str, Any], int], str] = respond, stamp: str = "20260101_000000",
               limit: int | None = None, groups: dict[str, list[str]] | None = None, backend: str = "gui_hf",
               tasks: Sequence[str] | None = None) -> Path:
    """Write ``root/<model>/<stamp>_results.json`` and one samples file per task; returns the results path."""
    model_name = model_args.split(",")[0].partition("=")[2]
    out = root / model_name.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    raw: dict[str, Any] = {"results": {}, "group_subtasks": {}, "configs": {}, "versions": {}, "n-shot": {},
                           "higher_is_better": {}, "n-samples": {}}
    for name in tasks or [f"mpr_gui_synth_{lang}" for lang in langs]:
        task = load_task(name)
        docs = task_docs(task)[: limit or None]
        lines, values = [], []
        for i, doc in enumerate(docs):
            response = rule(doc, i)
            per_sample = task.process_results(doc, [response])
            values.append(per_sample)
            lines.append({"doc_id": i, "target": str(task.doc_to_target(doc)), "filtered_resps": response,
                          "token_counts": [None], "doc_hash": NULL_DOC_HASH, **per_sample})
        metrics = aggregate(task, values)
        raw["results"][name] = {"alias": name, **{f"{m},none": v for m, v in metrics.items()},
                                **{f"{m}_stderr,none": "N/A" for m in metrics}}
        raw["group_subtasks"][name] = []
        raw["configs"][name] = {"task": name, "metric_list": task.config.metric_list, "metadata": task_metadata(task)}
        raw["versions"][name] = task_metadata(task).get("version")
        raw["n-shot"][name] = 0
        raw["higher_is_better"][name] = {m["metric"]: m["higher_is_better"] for m in task.config.metric_list}
        raw["n-samples"][name] = {"original": len(task_docs(task)), "effective": len(docs)}
        (out / f"{stamp}_samples_{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                                          encoding="utf-8")
    for group, subtasks in (groups or {}).items():
        raw["results"][group] = {"alias": group}
        raw["group_subtasks"][group] = list(subtasks)
    raw["config"] = {"model": backend, "model_args": model_args, "batch_size": "1", "limit": limit, "random_seed": 0}
    raw.update({"lmms_eval_version": "main@abc1234", "date": stamp, "model_name": model_name})
    path = out / f"{stamp}_results.json"
    path.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def samples_file(results: Path, task: str) -> Path:
    return results.with_name(results.name.replace("_results.json", f"_samples_{task}.jsonl"))


def edit_samples(results: Path, task: str, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    path = samples_file(results, task)
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in edit(lines)), encoding="utf-8")


def edit_results(results: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    raw = json.loads(results.read_text(encoding="utf-8"))
    edit(raw)
    results.write_text(json.dumps(raw), encoding="utf-8")
