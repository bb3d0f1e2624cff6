"""Hand-built lmms-eval run folders for the report and leaderboard tests (no tests here).

The layout and keys follow lmms-eval 0.7.3's writers: ``evaluator.py`` builds ``results``,
``group_subtasks``, ``configs``, ``versions``, ``n-shot``, ``higher_is_better``, ``n-samples``
and ``config``; ``loggers/evaluation_tracker.py`` adds ``task_hashes`` and the model fields,
writes ``<output_path>/<model_name_sanitized>/<date>_results.json`` and, per task,
``<date>_samples_<task>.jsonl`` with ``resps``/``filtered_resps`` flattened for one instance.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, Sequence

from gui_metrics import get_metric
from gui_metrics.mpr import DIMENSIONS

MPR_METRICS = ("mcq_acc", "fpr_acc", "format_error_rate", *(f"mpr_acc_{d.lower()}" for d in DIMENSIONS))
LOWER_IS_BETTER = {"format_error_rate"}


def records_for(lang: str, outcomes: Sequence[str]) -> list[dict[str, Any]]:
    """One record per document; outcome per doc: "ok" (right), "no" (wrong letter), "bad" (malformed).

    Documents cycle through the eight dimensions, answers through A-D.
    """
    out = []
    for i, outcome in enumerate(outcomes):
        answer = "ABCD"[i % 4]
        pred = {"ok": answer, "no": "ABCD"[(i + 1) % 4], "bad": None}[outcome]
        dim = DIMENSIONS[i % len(DIMENSIONS)]
        out.append({"id": f"synth-{dim.lower()}-{i:04d}", "lang": lang, "dimension": dim, "answer": answer, "pred": pred,
                    "status": "malformed" if pred is None else "parsed", "rule": "no-letter" if pred is None else "marker",
                    "correct": outcome == "ok"})
    return out


def response_for(record: dict[str, Any]) -> str:
    return f"Answer: {record['pred']}" if record["pred"] else "I cannot tell."


def task_config(task: str, lang: str, *, source: str = "synthetic", protocol: str | None = "mpr-direct-v1",
                parser: str | None = "mcq-letter-v1") -> dict[str, Any]:
    meta = {"version": "1.0", "benchmark": "mpr_gui", "lang": lang, "source": source, "dimensions": list(DIMENSIONS)}
    if protocol:
        meta["prompt_protocol"] = protocol
    if parser:
        meta["parser_protocol"] = parser
    return {"task": task, "dataset_path": "json", "test_split": "test", "output_type": "generate_until",
            "process_results": "<function process_results at 0x7f00>",
            "metric_list": [{"metric": m, "aggregation": m, "higher_is_better": m not in LOWER_IS_BETTER} for m in MPR_METRICS],
            "generation_kwargs": {"max_new_tokens": 16, "do_sample": False, "temperature": 0.0},
            "repeats": 1, "metadata": meta}


def write_run(root: Path, tasks: dict[str, dict[str, Any]], *, model: str = "qwen2_5_vl",
              model_args: str = "pretrained=Org/Tiny-VL-2B,device=cpu", limit: float | None = None,
              stamp: str = "20260101_000000") -> Path:
    """Write one run. ``tasks``: name -> {"lang", "outcomes" | "metrics", optional "config", "samples": bool,
    "original": int}. With "outcomes" the metrics are aggregated from the records by the registered
    metrics; with "metrics" (fractions per metric name) the numbers are taken as given."""
    model_name = model_args.split(",")[0].partition("=")[2]
    out = root / model_name.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    raw: dict[str, Any] = {"results": {}, "group_subtasks": {}, "configs": {}, "versions": {}, "n-shot": {},
                           "higher_is_better": {}, "n-samples": {}}
    task_hashes = {}
    for task, spec in tasks.items():
        lang = spec["lang"]
        records = records_for(lang, spec.get("outcomes", []))
        metrics = spec.get("metrics") or {m: get_metric(m).aggregate(records) for m in MPR_METRICS}
        entry: dict[str, Any] = {"alias": task}
        for m, v in metrics.items():
            entry[f"{m},none"] = v
            entry[f"{m}_stderr,none"] = "N/A"
            entry[f"{m}_stderr_clt,none"] = "N/A"
        raw["results"][task] = entry
        raw["group_subtasks"][task] = []
        raw["configs"][task] = spec.get("config") or task_config(task, lang)
        raw["versions"][task] = raw["configs"][task]["metadata"].get("version")
        raw["n-shot"][task] = 0
        raw["higher_is_better"][task] = {m: m not in LOWER_IS_BETTER for m in metrics}
        n = len(records)
        effective = n if limit is None else min(int(limit), n)
        raw["n-samples"][task] = {"original": spec.get("original", n), "effective": effective}
        lines = []
        for i, rec in enumerate(records):
            doc_hash = hashlib.sha256(json.dumps({"id": rec["id"], "lang": lang}).encode()).hexdigest()
            line = {"doc_id": i, "target": rec["answer"], "filtered_resps": response_for(rec), "token_counts": [None],
                    "doc_hash": doc_hash, "input_media": [f"/data/{rec['id']}.png"], **{m: rec for m in metrics},
                    "input": f"Question {i}?\nA. a\nB. b\nC. c\nD. d\nAnswer with the option's letter."}
            lines.append(line)
        if spec.get("samples", True) and lines:
            path = out / f"{stamp}_samples_{task}.jsonl"
            path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
        task_hashes[task] = hashlib.sha256("".join(f"sample_{i}{x['doc_hash']}" for i, x in enumerate(lines)).encode()).hexdigest()
    raw["config"] = {"model": model, "model_args": model_args, "model_backend": "lmms_eval.models.simple.X (simple)",
                     "batch_size": "1", "batch_sizes": [], "device": None, "limit": limit, "offset": 0,
                     "bootstrap_iters": 100000, "random_seed": 0}
    raw.update({"git_hash": "abc1234", "git_branch": "main", "lmms_eval_version": "main@abc1234", "date": stamp,
                "task_hashes": task_hashes, "model_source": model, "model_name": model_name,
                "model_name_sanitized": model_name.replace("/", "__")})
    path = out / f"{stamp}_results.json"
    path.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")  # NaN is written as NaN, as lmms-eval does
    return path


def paper_metrics(dims: Sequence[float], fmt_err: float = 0.0) -> dict[str, float]:
    """Task metrics (fractions) from eight Table-2-style percentages; NaN percentages stay NaN."""
    acc = [d / 100 for d in dims]
    present = [(w, a) for w, a in zip((1, 1, 1, 1, 1, 1, 1.5, 2), acc) if not math.isnan(a)]
    fpr = sum(w * a for w, a in present) / sum(w for w, _ in present)
    return {"mcq_acc": sum(a for _, a in present) / len(present), "fpr_acc": fpr, "format_error_rate": fmt_err,
            **{f"mpr_acc_{d.lower()}": a for d, a in zip(DIMENSIONS, acc)}}
