"""Published per-sample grounding runs -> run folders that ``gui-eval view`` / ``pss-report`` read like lmms-eval runs.

``gui-eval import FILE --task TASK --out DIR`` reads a result file in the ScreenSpot-Pro repository's results format
(``likaixin2000/ScreenSpot-Pro-GUI-Grounding`` ``eval_screenspot_pro.py``: ``{"metrics": {..., "overall":
{"num_correct_action", "num_total", "wrong_format_num", "action_acc", ...}}, "details": [{"id", "img_path",
"prompt_to_evaluate", "gt_type", "lang", "instruction_style", "ui_type", "pred", "raw_response", "bbox",
"correctness"}, ...]}``; the same file layout is written for ScreenSpot-v2 from its "variants" copy), matches each
detail to a document of TASK (our loader, the same local copy), scores ``raw_response`` with our scorer (TASK's
parameters, the answer family named by ``--family``), and writes ``<DIR>/<label>/<date>_results.json`` plus
``<date>_samples_<TASK>.jsonl`` in lmms-eval 0.7.3's layout. The file's own figure (``action_acc``) and its per-sample
``correctness`` are kept next to ours: task metadata ``published`` and, per sample, ``published``.

Also read: the per-sample log of SE-GUI's evaluation scripts (``YXB-NKU/SE-GUI`` ``src/eval/test_grounding_r1_nothink*.py``,
the VLM-R1 ``rec_results`` layout: ``{"accuracy": percent, "results": [{"image", "question", "resized_size": [h, w],
"ground_truth", "model_output", "extracted_answer", "correct": 0 | 1}, ...]}``); its ``resized_size`` is passed to our
scorer as the size the model saw. The format is told by the file's top-level keys and recorded.

Only the samples of the task's kind are comparable: positive English ones for ``gui_screenspot_pro``, Chinese ones for
``gui_screenspot_pro_cn``, negative ones for ``gui_screenspot_pro_negative`` (the file's ``lang`` / ``gt_type``), in the
plain instruction style; the others are counted and left out.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gui_core.logit_capture import CapturedResponse
from gui_core.errors import DataError
from gui_tasks.runs.input_files import read_json

FORMAT = "screenspot_pro_results"  # the ScreenSpot-Pro repository's eval_screenspot_pro.py output
SE_GUI_FORMAT = "se_gui_rec_results"  # SE-GUI src/eval/test_grounding_r1_nothink*.py output (VLM-R1 rec_results)
FORMATS = (FORMAT, SE_GUI_FORMAT)
RECORD_METRIC = "grounding_acc"


@dataclass
class Imported:
    """What an import wrote and how our figure compares with the file's own."""

    results: Path
    samples: Path
    matched: int
    unmatched: list[str] = field(default_factory=list)
    skipped: int = 0  # not comparable: negative, non-English or other instruction style
    published_accuracy: float | None = None  # the file's ``metrics.overall.action_acc`` (its own scorer)
    published_on_matched: float | None = None  # the file's per-sample correctness over the matched samples
    ours: float | None = None  # our grounding_acc over the matched samples
    disagreements: int = 0  # samples where our correct differs from the file's correctness


def _details(raw: Any, path: Path) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """The file's samples as ScreenSpot-Pro ``details``, its own overall figures, and its format (``FORMATS``)."""
    if isinstance(raw, dict) and isinstance(raw.get("results"), list) and "details" not in raw:
        return _se_gui_details(raw, path)
    if not isinstance(raw, dict) or not isinstance(raw.get("details"), list):
        raise DataError("not a published per-sample result file: expected an object with a 'details' list (ScreenSpot-Pro "
                        "results) or a 'results' list (SE-GUI rec_results)", file=str(path), field="details")
    metrics = raw.get("metrics") if isinstance(raw.get("metrics"), dict) else {}
    overall = metrics.get("overall") if isinstance(metrics.get("overall"), dict) else {}
    for i, d in enumerate(raw["details"]):
        if not isinstance(d, dict):
            raise DataError("detail is not an object", file=str(path), row=i, field="details")
        if "raw_response" not in d:
            raise DataError("missing field 'raw_response' (a file with predicted points only cannot be re-scored)",
                            file=str(path), row=i, field="raw_response")
    figures = {"accuracy": _fraction(overall.get("action_acc"), path, "metrics.overall.action_acc"),
               "num_total": _count(overall.get("num_total"), path, "metrics.overall.num_total"),
               "num_correct": _count(overall.get("num_correct_action"), path, "metrics.overall.num_correct_action"),
               "wrong_format": _count(overall.get("wrong_format_num"), path, "metrics.overall.wrong_format_num")}
    return raw["details"], figures, FORMAT


MAX_SIDE = 1 << 16  # a model's input side in pixels beyond this is not an image size (10^400 would overflow the scorer)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fraction(value: Any, path: Path, field_name: str, scale: float = 1.0) -> float | None:
    """A published accuracy as a fraction in [0, 1] (``scale`` 100: given in percent), None when absent."""
    if value is None:
        return None
    if not _number(value) or not 0 <= value / scale <= 1:
        raise DataError(f"expected an accuracy in [0, {scale:g}], got {str(value)[:80]!r}", file=str(path), field=field_name)
    return value / scale


def _count(value: Any, path: Path, field_name: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise DataError(f"expected a count (an integer >= 0), got {str(value)[:80]!r}", file=str(path), field=field_name)
    return value


def _se_gui_details(raw: dict[str, Any], path: Path) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """SE-GUI's ``{"accuracy": percent, "results": [...]}`` as details; ``resized_size`` ([h, w]) -> ``model_size``."""
    details = []
    for i, r in enumerate(raw["results"]):
        if not isinstance(r, dict):
            raise DataError("result is not an object", file=str(path), row=i, field="results")
        for key in ("image", "question", "model_output", "correct"):
            if key not in r:
                raise DataError(f"missing field {key!r}", file=str(path), row=i, field=key)
        if r["correct"] not in (0, 1) or isinstance(r["correct"], float):
            raise DataError(f"'correct' must be 0 or 1, got {r['correct']!r}", file=str(path), row=i, field="correct")
        size = r.get("resized_size")
        if size is not None and not (isinstance(size, list) and len(size) == 2
                                     and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_SIDE for v in size)):
            raise DataError(f"'resized_size' must be [height, width] in pixels (1..{MAX_SIDE}), got {str(size)[:80]}",
                            file=str(path), row=i, field="resized_size")
        details.append({"id": None, "img_path": r["image"], "prompt_to_evaluate": r["question"],
                        "raw_response": r["model_output"], "correctness": "correct" if r["correct"] == 1 else "wrong",
                        "pred": r.get("extracted_answer"), "model_size": None if size is None else [size[1], size[0]]})
    figures = {"accuracy": _fraction(raw.get("accuracy"), path, "accuracy", scale=100.0),
               "num_total": len(details), "num_correct": sum(d["correctness"] == "correct" for d in details),
               "wrong_format": None}
    return details, figures, SE_GUI_FORMAT


def _comparable(d: Mapping[str, Any], language: str = "en", gt_type: str = "positive") -> bool:
    """A detail of the task's kind: its language and ground-truth type (ScreenSpot-Pro's cn / negative tasks)."""
    return (d.get("gt_type", "positive") == gt_type and d.get("lang", "en") == language
            and d.get("instruction_style", "instruction") == "instruction")


def _image_key(path: Any) -> str:
    return re.split(r"[\\/]", str(path))[-1]


def _match(details: list[tuple[int, dict[str, Any]]], docs: list[dict[str, Any]], source: str, path: Path,
           rows_field: str, suffix: str = "") -> tuple[list[tuple[int, dict]], list[str]]:
    """``(doc_id, detail)`` pairs: by the row id (``<source>-<id><suffix>``), else by (screenshot file name,
    instruction); ``details`` are (row, detail). Two rows naming one document are a DataError naming both rows (a
    repeated id would count one sample many times)."""
    by_id = {d["id"]: i for i, d in enumerate(docs)}
    by_image: dict[tuple[str, str], int] = {}
    for i, d in enumerate(docs):
        by_image.setdefault((_image_key(d["image"]), d["instruction"].strip()), i)
    pairs, unmatched = [], []
    row_of: dict[int, int] = {}
    for row, det in details:
        i = by_id.get(f"{source}-{det.get('id')}{suffix}")
        if i is None:
            i = by_image.get((_image_key(det.get("img_path", "")), str(det.get("prompt_to_evaluate", "")).strip()))
        if i is None:
            unmatched.append(str(det["id"]) if det.get("id") is not None
                             else f"{det.get('img_path')} | {det.get('prompt_to_evaluate')}")
        elif i in row_of:
            raise DataError(f"names document {docs[i]['id']} again (row {row_of[i]} did): one sample per document",
                            file=str(path), row=row, field=f"{rows_field}.id" if det.get("id") is not None else rows_field)
        else:
            row_of[i] = row
            pairs.append((i, det))
    return pairs, unmatched


def _label(path: Path, label: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label or f"published-{path.stem}")


def import_run(path: str | Path, task_name: str, out: str | Path, *, family: str | None = None, label: str | None = None,
               overrides: Mapping[str, Any] | None = None) -> Imported:
    """Import one published result file as a run of ``task_name`` (documents from the task's local copy)."""
    from gui_tasks.grounding.benchmark import results_loaded_by
    from gui_tasks.grounding.lmms_task import score_params
    from gui_tasks.grounding.score import ScoreParams
    from gui_tasks.harness.rescore import aggregate, load_task, score, task_docs

    path = Path(path)
    details, overall, fmt = _details(read_json(path), path)
    task = load_task(task_name)
    meta = dict(task.config.metadata or {})
    source = str(meta.get("source"))
    if meta.get("benchmark") not in results_loaded_by("gui_tasks.grounding.screenspot"):
        raise ValueError(f"task {task_name!r} is not a ScreenSpot task (benchmark {meta.get('benchmark')!r})")
    base = score_params(meta)
    if family:
        from gui_core.family import FAMILIES

        family = FAMILIES.canonical(family)  # an unknown name: "did you mean", the accepted names (a ValueError)
    params = ScoreParams.from_mapping({**base.__dict__, **({"family": family} if family else {}), **dict(overrides or {})})
    task._params = params  # the task scores with these (GroundingTask.process_results)
    docs = task_docs(task)
    language, gt_type = str(meta.get("language") or "en"), str(meta.get("gt_type") or "positive")
    comparable = [(row, d) for row, d in enumerate(details) if _comparable(d, language, gt_type)]
    suffix = "" if (language, gt_type) == ("en", "positive") else f"-{language if language != 'en' else gt_type}"
    pairs, unmatched = _match(comparable, docs, source, path, "results" if fmt == SE_GUI_FORMAT else "details", suffix)
    if not pairs:
        raise DataError(f"no detail matches a document of {task_name} (ids like {source}-<id>, or screenshot + instruction)",
                        file=str(path), field="details")
    lines, disagreements = [], 0
    for doc_id, det in sorted(pairs, key=lambda p: p[0]):
        response = det.get("raw_response")
        response = "" if response is None else str(response)
        # the size the run's model saw, when the file records it (SE-GUI's resized_size), as a backend reports it
        seen = CapturedResponse(response, None, {"model_image_sizes": [det["model_size"]]}) if det.get("model_size") else response
        values = score(task, docs[doc_id], seen)
        rec = values[RECORD_METRIC]
        rec["published"] = {"correctness": det.get("correctness"), "pred": det.get("pred")}
        disagreements += bool(rec["correct"]) != (det.get("correctness") == "correct")
        lines.append({"doc_id": doc_id, "doc": {"id": docs[doc_id]["id"]}, "target": json.dumps(docs[doc_id]["target_box"]),
                      "arguments": None, "resps": [[response]], "filtered_resps": [response], "input": "",
                      **values})
    per_sample = [{k: v for k, v in s.items() if k not in ("doc_id", "doc", "target", "arguments", "resps",
                                                            "filtered_resps", "input")} for s in lines]
    metrics = aggregate(task, per_sample)
    ours = sum(bool(s[RECORD_METRIC]["correct"]) for s in lines) / len(lines)
    published_matched = sum(s[RECORD_METRIC]["published"]["correctness"] == "correct" for s in lines) / len(lines)
    published = {"file": str(path.resolve()), "format": fmt, "accuracy": overall["accuracy"],
                 "num_total": overall["num_total"], "num_correct": overall["num_correct"],
                 "wrong_format": overall["wrong_format"], "accuracy_on_matched": published_matched,
                 "ours_on_matched": ours, "matched": len(lines), "unmatched": len(unmatched),
                 "not_comparable": len(details) - len(comparable), "disagreements": disagreements}
    meta.update(published=published, answer_family=params.family, inside_rule=params.inside_rule,
                strictness=params.strictness)
    if family:  # the answers were asked for with the family's own prompt: record its protocol, not the task's
        from gui_core.family import family as family_record

        own = family_record(family).prompts
        if own:
            meta.update(prompt=own[0].name, prompt_protocol=own[0].protocol)
    if overrides:
        meta.update({k: v for k, v in overrides.items()})
    name = _label(path, label)
    folder = Path(out) / name
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H-%M-%S.%f")
    config = {"task": task_name, "metadata": meta, "output_type": "generate_until"}
    higher = {m: bool(fn) for m, fn in task.higher_is_better().items()} if hasattr(task, "higher_is_better") else {}
    results = {
        "results": {task_name: {"alias": task_name, **{f"{m},none": v for m, v in metrics.items()}}},
        "configs": {task_name: config}, "versions": {task_name: meta.get("version")},
        "n-samples": {task_name: {"original": len(docs), "effective": len(lines)}},
        "higher_is_better": {task_name: higher}, "group_subtasks": {},
        "config": {"model": "published", "model_args": f"pretrained={name}", "limit": None,
                   "imported_from": str(path.resolve())},
        "model_name": name, "date": stamp, "lmms_eval_version": None, "published": published,
    }
    folder.mkdir(parents=True, exist_ok=True)
    results_path = folder / f"{stamp}_results.json"
    samples_path = folder / f"{stamp}_samples_{task_name}.jsonl"
    # both texts made before anything is written, each file written whole (a temporary file renamed): a failure leaves
    # no half-written run
    texts = [(samples_path, "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in lines)),
             (results_path, json.dumps(results, indent=2, ensure_ascii=False, default=str))]
    for target, text in texts:
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    return Imported(results_path, samples_path, len(lines), unmatched, len(details) - len(comparable),
                    overall["accuracy"], published_matched, ours, disagreements)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="gui-eval import", description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a published per-sample result file (ScreenSpot-Pro results format, SE-GUI rec_results)")
    ap.add_argument("--task", required=True, help="our task whose documents the file covers, e.g. gui_screenspot_pro")
    ap.add_argument("--family", default=None, help="answer family to read raw_response with (default: the task's; "
                    "one of the grounding families in gui_core/families.py, docs/grounding_families.md)")
    ap.add_argument("--label", default=None, help="the run's model name (default: published-<file stem>)")
    ap.add_argument("--min-pixels", type=int, default=None, help="resize budget the run's model saw (resized-pixel families)")
    ap.add_argument("--max-pixels", type=int, default=None)
    ap.add_argument("--inside-rule", default=None, help="point-in-box rule (default: the task's; inclusive for ScreenSpot)")
    ap.add_argument("--strictness", default=None, help="official (default: the authors' parser), benchmark or lenient")
    ap.add_argument("--out", default="runs/imported")
    args = ap.parse_args(argv)
    overrides = {k: v for k, v in (("min_pixels", args.min_pixels), ("max_pixels", args.max_pixels),
                                   ("inside_rule", args.inside_rule), ("strictness", args.strictness)) if v is not None}
    try:
        got = import_run(args.file, args.task, args.out, family=args.family, label=args.label, overrides=overrides)
    except (DataError, ValueError) as exc:
        print(f"gui-eval import: {exc}")
        return 2
    pub = "-" if got.published_accuracy is None else f"{100 * got.published_accuracy:.2f}"
    print(f"{got.results}\n{got.samples}\nmatched {got.matched} samples ({len(got.unmatched)} unmatched, {got.skipped} not "
          f"comparable); published figure {pub}, published on the matched samples {100 * got.published_on_matched:.2f}, "
          f"ours {100 * got.ours:.2f} ({got.disagreements} samples disagree)")
    return 0
