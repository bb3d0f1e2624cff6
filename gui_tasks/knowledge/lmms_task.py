"""lmms-eval glue for the GUI Knowledge Bench tasks: the task class and the per-document hooks.

``KnowledgeTask`` is a YAML ``class:`` task whose ``download`` gathers the rows named by the YAML
``metadata`` (``source``: official copy or synthetic world; ``subtasks``; ``variant``: ``plain`` or
``augmented``, the red-box question; ``lang`` for the synthetic world) into one JSONL for lmms-eval's
own loader. Each row carries the variant, so ``process_docs`` (which sees only the dataset) builds
the canonical documents of ``gui_tasks.knowledge.schema`` for that variant.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

import datasets
from PIL import Image

from gui_metrics.lmms_bridge import sample_values
from gui_core.actions import CALL_TYPES
from gui_tasks.harness.circular import Layout, circular_fields, expand_dataset
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows
from gui_tasks.knowledge import release
from gui_tasks.knowledge.answer import parse_answer
from gui_tasks.knowledge.marks import draw_marks
from gui_tasks.knowledge.prompts import build_prompt
from gui_tasks.knowledge.schema import AUG_FIELDS, LANGS, SUBTASKS, VARIANTS, letters_for, validate_doc
from gui_tasks.harness.lmms_rows import RowsTask, load_image, read_jsonl

RECORD_KINDS = ("gkb",)


class KnowledgeTask(RowsTask):
    """A GUI Knowledge Bench task whose rows come from ``metadata`` (source, subtasks, variant, lang)."""

    KIND = "gkb"
    # task_rows reads these; the protocol ids and the variant's description (interface_perception_prompt,
    # augmented_question_scope, knowledge_tip: what ``variant`` does) are records written by the generator
    METADATA_KEYS = frozenset({"source", "lang", "subtasks", "variant", "reading", "seed", "per_subtask", "synth_split",
                               "prompt_protocol", "parser_protocol", "interface_perception_prompt",
                               "augmented_question_scope", "knowledge_tip", "circular"})  # circular: reports read it

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        """The records of what the variant does are the variant's (a task changes them through ``variant`` only)."""
        record = release.variant_record(str(meta.get("variant", "plain")))
        return [f"metadata {key} {meta[key]!r} is not what variant {meta.get('variant', 'plain')!r} does ({value!r}); "
                "pick the variant that does it" for key, value in record.items() if key in meta and meta[key] != value]

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows (official transport rows or synthetic documents, each tagged with the variant) for a task's metadata."""
    subtasks = tuple(meta.get("subtasks") or SUBTASKS)
    bad = [s for s in subtasks if s not in SUBTASKS]
    if bad:
        raise DataError(f"unknown sub-tasks {bad}; known: {SUBTASKS}", file="<task yaml>", field="metadata.subtasks")
    variant = str(meta.get("variant", "plain"))
    if variant not in VARIANTS:
        raise DataError(f"variant {variant!r} must be one of {VARIANTS}", file="<task yaml>", field="metadata.variant")
    source = meta.get("source")
    if source == "official":
        bad = BadRows(skip_bad_rows(meta))
        rows = list(release.read_raw_rows(release.data_root(), subtasks, variant, bad=bad,
                                           reading=str(meta.get("reading", release.DEFAULT_READING))))
        announce_skipped(bad, "GUI Knowledge Bench question files")
        return rows
    if source == "synthetic":
        from gui_tasks.knowledge.synth import load_or_build

        lang = str(meta.get("lang", "en"))
        if lang not in LANGS:
            raise DataError(f"task metadata lang {lang!r} is not one of {LANGS}", file="<task yaml>", field="metadata.lang")
        files = load_or_build(seed=int(meta.get("seed", 0)), per_subtask=int(meta.get("per_subtask", 8)), langs=(lang,),
                              split=str(meta.get("synth_split", "eval")))
        rows = read_jsonl(files[lang])
        return [{**r, "variant": variant} for r in rows if r["subtask"] in subtasks]
    raise DataError(f"task metadata source {source!r} must be 'official' or 'synthetic'", file="<task yaml>", field="metadata.source")


def interleave_subtasks(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order documents round-robin over sub-tasks, so a small ``--limit`` sees them all."""
    seen: dict[str, int] = {}
    keyed = []
    for doc in docs:
        k = seen.get(doc["subtask"], 0)
        seen[doc["subtask"]] = k + 1
        keyed.append(((k, SUBTASKS.index(doc["subtask"])), doc))
    keyed.sort(key=lambda kv: kv[0])
    return [doc for _, doc in keyed]


def process_docs_official(dataset: datasets.Dataset) -> datasets.Dataset:
    """Official transport rows -> canonical documents (errors name file, row, field)."""
    rows = [dict(r) for r in dataset]
    bad = BadRows(skip=any(r.get("skip") for r in rows))
    docs = bad.keep(release.normalise_row, rows)
    announce_skipped(bad, "GUI Knowledge Bench official rows")
    return datasets.Dataset.from_list(interleave_subtasks(docs))


def synthetic_doc(row: Mapping[str, Any], *, file: str, row_index: int) -> dict[str, Any]:
    """A synthetic row -> the canonical document of its variant (validated)."""
    doc = {k: v for k, v in row.items() if k not in AUG_FIELDS}
    if doc.get("variant") == "augmented" or (doc.get("variant") in release.VISUAL_PROMPT_VARIANTS
                                             and doc["subtask"] in release.INTERFACE_PERCEPTION):
        doc["question"], doc["marks"] = row["augmented_question"], row["augmented_marks"]
    validate_doc(doc, file=file, row_index=row_index)
    return doc


def process_docs_synthetic(dataset: datasets.Dataset) -> datasets.Dataset:
    """Synthetic rows are canonical for the plain variant; the augmented one swaps in its question and marks."""
    docs = [synthetic_doc(dict(r), file="<synthetic set>", row_index=i) for i, r in enumerate(dataset)]
    return datasets.Dataset.from_list(interleave_subtasks(docs))


def _relabel_marks(doc: dict[str, Any], moved: Mapping[str, str]) -> None:
    """Marks labelled with an option letter (action parameters: one point per option) follow their option."""
    marks = json.loads(doc.get("marks") or "[]")
    if any(m.get("label") in moved for m in marks):
        doc["marks"] = json.dumps([{**m, "label": moved[m["label"]]} if m.get("label") in moved else m for m in marks])


# Multiple-choice questions rotate with their option screenshots (effect) and action names (type); yes/no stay.
CIRCULAR_LAYOUT = Layout(parallel=("option_images", "option_actions"), relabel=_relabel_marks,
                         rotates=lambda doc: doc["question_type"] == "multiple_choice")


def process_docs_official_circular(dataset: datasets.Dataset) -> datasets.Dataset:
    """The official documents, multiple-choice ones once per rotation of their options (``gui_tasks.harness.circular``)."""
    return expand_dataset(process_docs_official(dataset), CIRCULAR_LAYOUT)


def process_docs_synthetic_circular(dataset: datasets.Dataset) -> datasets.Dataset:
    """The synthetic documents, multiple-choice ones once per rotation of their options (``gui_tasks.harness.circular``)."""
    return expand_dataset(process_docs_synthetic(dataset), CIRCULAR_LAYOUT)


def _open(path: str) -> Image.Image:
    return load_image(path)


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The question screenshots in order (marks drawn on the first), then the option screenshots (action effect)."""
    images = [_open(p) for p in doc["images"]]
    images[0] = draw_marks(images[0], json.loads(doc.get("marks") or "[]"))
    return images + [_open(p) for p in doc.get("option_images") or []]


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    return build_prompt(doc)


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return doc["answer"]


def _option_action(doc: Mapping[str, Any], letter: str | None) -> str | None:
    actions = doc.get("option_actions") or []
    if letter is None or not actions:
        return None
    i = letters_for(len(doc["options"])).find(letter)
    name = actions[i] if 0 <= i < len(actions) else ""
    return name if name in CALL_TYPES else None


def score_response(doc: Mapping[str, Any], response: str | None) -> dict[str, Any]:
    """The per-sample record every GUI Knowledge Bench metric reads."""
    qtype = doc["question_type"]
    letters = letters_for(len(doc["options"])) if qtype == "multiple_choice" else ""
    options = [o for o in doc["options"]] if qtype == "multiple_choice" and all(doc["options"]) else None
    parsed = parse_answer(response, qtype, letters=letters or "ABCD", options=options)
    is_type = doc["subtask"] == "type"
    return {
        "id": doc["id"], "subtask": doc["subtask"], "knowledge_type": doc["knowledge_type"], "question_type": qtype,
        "platform": doc["platform"], "lang": doc["lang"], "answer": doc["answer"], "pred": parsed.answer,
        "status": parsed.status, "rule": parsed.rule, "correct": parsed.status == "parsed" and parsed.answer == doc["answer"],
        "gold_action": _option_action(doc, doc["answer"]) if is_type else None,
        "pred_action": _option_action(doc, parsed.answer) if is_type else None,
        "choices": list(letters) if letters else list(doc["options"]), **circular_fields(doc),
    }


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    response = results[0] if results else None
    if not isinstance(response, str):
        response = None if response is None else str(response)
    return sample_values(RECORD_KINDS, score_response(doc, response))
