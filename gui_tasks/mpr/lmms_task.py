"""lmms-eval glue for the MPR-GUI tasks: the task class and the per-document hooks.

``MPRTask`` is a YAML ``class:`` task whose ``download`` gathers the rows for the
language, source and dimensions named in the YAML ``metadata`` (official copy or the
synthetic world) into one JSONL and hands it to lmms-eval's own loader; ``process_docs``
then turns those rows into canonical documents. Nothing else of lmms-eval is overridden.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import datasets

from gui_metrics.lmms_bridge import sample_values
from gui_tasks.harness.circular import circular_fields, expand_dataset
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows
from gui_tasks.harness.lmms_rows import RowsTask, doc_to_visual, read_jsonl
from gui_tasks.mpr import release
from gui_core.letters import extract_letter
from gui_tasks.mpr.prompts import LETTERS, build_prompt, protocol_from_kwargs
from gui_tasks.mpr.schema import DIMENSIONS, LANGS, validate_row

RECORD_KINDS = ("mcq", "mpr")
__all__ = ["MPRTask", "doc_to_visual", "doc_to_text", "doc_to_target", "process_docs_official", "process_docs_synthetic",
           "process_docs_official_circular", "process_docs_synthetic_circular", "process_results", "score_response", "task_rows"]


class MPRTask(RowsTask):
    """An MPR-GUI task whose rows come from ``metadata`` (lang, source, dimensions)."""

    KIND = "mpr"
    # task_rows reads these; prompt_protocol labels the report (mpr.report) and must be the prompt's; parser_protocol
    # is the record of the parser that scores (answer.PARSER_PROTOCOL)
    METADATA_KEYS = frozenset({"lang", "source", "dimensions", "seed", "per_dimension", "synth_split", "prompt_protocol",
                               "parser_protocol", "circular"})  # circular: the CircularEval twin (reports read it)
    KWARGS_KEYS = frozenset({"prompt_protocol"})  # doc_to_text (prompts.protocol_from_kwargs)

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        from gui_tasks.mpr.prompts import protocol_from_kwargs

        asked = protocol_from_kwargs(kwargs)
        if meta.get("prompt_protocol") not in (None, asked):
            return [f"metadata prompt_protocol {meta['prompt_protocol']!r} (what the report says) is not the prompt the "
                    f"model gets ({asked!r}, lmms_eval_specific_kwargs prompt_protocol)"]
        return []

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows (official transport rows or synthetic canonical docs) for one task's metadata."""
    lang = str(meta.get("lang", ""))
    if lang not in LANGS:
        raise DataError(f"task metadata lang {lang!r} is not one of {LANGS}", file="<task yaml>", field="metadata.lang")
    dims = tuple(meta.get("dimensions") or DIMENSIONS)
    bad = [d for d in dims if d not in DIMENSIONS]
    if bad:
        raise DataError(f"unknown dimensions {bad}", file="<task yaml>", field="metadata.dimensions")
    source = meta.get("source")
    if source == "official":
        bad = BadRows(skip_bad_rows(meta))
        rows = list(release.read_raw_rows(release.data_root(), lang, dims, bad=bad))
        announce_skipped(bad, f"MPR-GUI {lang} question files")
        return rows
    if source == "synthetic":
        from gui_tasks.mpr.synth import load_or_build

        files = load_or_build(seed=int(meta.get("seed", 0)), per_dimension=int(meta.get("per_dimension", 8)), langs=(lang,),
                              split=str(meta.get("synth_split", "eval")))
        rows = read_jsonl(files[lang])
        return [r for r in rows if r["dimension"] in dims]
    raise DataError(f"task metadata source {source!r} must be 'official' or 'synthetic'", file="<task yaml>", field="metadata.source")


def interleave_dimensions(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order documents round-robin over dimensions, so a small ``--limit`` sees them all."""
    seen: dict[str, int] = {}
    keyed = []
    for doc in docs:
        k = seen.get(doc["dimension"], 0)
        seen[doc["dimension"]] = k + 1
        keyed.append(((k, DIMENSIONS.index(doc["dimension"])), doc))
    keyed.sort(key=lambda kv: kv[0])
    return [doc for _, doc in keyed]


def _to_dataset(docs: list[dict[str, Any]]) -> datasets.Dataset:
    return datasets.Dataset.from_list(interleave_dimensions(docs))


def process_docs_official(dataset: datasets.Dataset) -> datasets.Dataset:
    """Official transport rows -> canonical documents (errors name file, row, field)."""
    rows = [dict(r) for r in dataset]
    bad = BadRows(skip=any(r.get("skip") for r in rows))
    docs = bad.keep(release.normalise_row, rows)
    announce_skipped(bad, "MPR-GUI official rows")
    return _to_dataset(docs)


def process_docs_synthetic(dataset: datasets.Dataset) -> datasets.Dataset:
    """Synthetic rows are canonical already: validate them and order them."""
    docs = []
    for i, r in enumerate(dataset):
        row = dict(r)
        validate_row(row, file="<synthetic set>", row_index=i)
        docs.append(row)
    return _to_dataset(docs)


def process_docs_official_circular(dataset: datasets.Dataset) -> datasets.Dataset:
    """The official documents, each once per rotation of its four options (CircularEval, ``gui_tasks.harness.circular``)."""
    return expand_dataset(process_docs_official(dataset))


def process_docs_synthetic_circular(dataset: datasets.Dataset) -> datasets.Dataset:
    """The synthetic documents, each once per rotation of its four options (CircularEval, ``gui_tasks.harness.circular``)."""
    return expand_dataset(process_docs_synthetic(dataset))


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    return build_prompt(doc["question"], doc["options"], protocol_from_kwargs(lmms_eval_specific_kwargs))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return doc["answer"]


def score_response(doc: Mapping[str, Any], response: str | None) -> dict[str, Any]:
    """The per-sample record every MCQ/MPR metric reads."""
    parsed = extract_letter(response, doc["options"], letters=LETTERS)
    return {
        "id": doc["id"],
        "lang": doc["lang"],
        "dimension": doc["dimension"],
        "answer": doc["answer"],
        "pred": parsed.letter,
        "status": parsed.status,
        "rule": parsed.rule,
        "correct": parsed.status == "parsed" and parsed.letter == doc["answer"],
        "choices": list(LETTERS[: len(doc["options"])]),
        **circular_fields(doc),
    }


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    response = results[0] if results else None
    if not isinstance(response, str):
        response = None if response is None else str(response)
    return sample_values(RECORD_KINDS, score_response(doc, response))
