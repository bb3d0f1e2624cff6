"""Parallel English / target-language MPR documents for GUI-XLI memories, searches and plots, disjoint from evaluation.

The synthetic world gives aligned sets by content split (``gui_tasks.synth.splits``). Memory data
must not overlap the evaluation set (seed section 5.2, "data entirely disjoint"): memories are built
on the ``memory`` split and the layer/strength search runs on ``search``, never on ``eval`` (which
the synthetic tasks evaluate); items whose content (question, options, screenshot bytes) equals an
evaluation item are dropped anyway.
A folder of canonical ``<lang>.jsonl`` files (the synthetic layout) can replace the generator.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gui_core.errors import DataError
from gui_tasks.runs.input_files import lines, parse_json_line
from gui_tasks.mpr.schema import LANGS, validate_row
from gui_tasks.synth.splits import check_split

# The synthetic evaluation tasks (yaml_tasks/mpr/mpr_gui_synth_*.yaml metadata: split eval).
EVAL_SEED, EVAL_PER_DIMENSION = 0, 8


@dataclass(frozen=True)
class DataSpec:
    """Where a parallel set comes from: the synthetic generator (split, seed, size) or a folder of ``<lang>.jsonl``."""

    seed: int = 0
    per_dimension: int = 10
    folder: str | None = None
    split: str = "memory"

    def __post_init__(self) -> None:
        check_split(self.split)

    def describe(self) -> dict[str, Any]:
        return {"folder": self.folder} if self.folder else {"source": "synthetic", "split": self.split, "seed": self.seed,
                                                           "per_dimension": self.per_dimension}


def read_docs(path: Path) -> list[dict[str, Any]]:
    """Canonical MPR documents of one JSONL file, validated (DataError names file, row, field)."""
    docs = []
    for i, line in lines(path):
        if line.strip():
            row = parse_json_line(line, file=str(path), row=i)
            validate_row(row, file=str(path), row_index=i)
            docs.append(row)
    return docs


def lang_files(spec: DataSpec, langs: Sequence[str]) -> dict[str, Path]:
    """``{lang: jsonl}`` for the spec (builds or reuses the cached synthetic set)."""
    bad = [lang for lang in langs if lang not in LANGS]
    if bad:
        raise ValueError(f"unknown languages {bad}; choose from {LANGS}")
    if spec.folder:
        files = {lang: Path(spec.folder) / f"{lang}.jsonl" for lang in langs}
        for lang, f in files.items():
            if not f.is_file():
                raise DataError(f"missing {lang}.jsonl in the parallel data folder", file=str(f))
        return files
    from gui_tasks.mpr.synth import load_or_build

    return load_or_build(seed=spec.seed, per_dimension=spec.per_dimension, langs=tuple(langs), split=spec.split)


def parallel_pairs(spec: DataSpec, lang: str, dimensions: Sequence[str], base: str = "en") -> list[tuple[dict, dict]]:
    """(English doc, target doc) pairs aligned by id, for ``dimensions``, in file order."""
    files = lang_files(spec, (base, lang))
    src, tgt = read_docs(files[base]), read_docs(files[lang])
    by_id = {d["id"]: d for d in tgt}
    pairs = []
    for i, d in enumerate(src):
        if d["dimension"] not in dimensions:
            continue
        other = by_id.get(d["id"])
        if other is None:
            raise DataError(f"no {lang} document with id {d['id']!r} (parallel data must be aligned by id)",
                            file=str(files[lang]), field="id")
        if other["dimension"] != d["dimension"] or other["answer"] != d["answer"]:
            raise DataError(f"{d['id']!r} differs from its English version in dimension or answer",
                            file=str(files[lang]), field="dimension/answer")
        pairs.append((d, other))
    return pairs


def content_key(doc: dict[str, Any]) -> str:
    """A fingerprint of what a model sees: question, options and screenshot bytes."""
    h = hashlib.sha256()
    h.update(json.dumps([doc["question"], list(doc["options"])], ensure_ascii=False).encode("utf-8"))
    for p in doc["images"]:
        h.update(hashlib.sha256(Path(p).read_bytes()).digest())
    return h.hexdigest()


def drop_overlap(pairs: list[tuple[dict, dict]], exclude: DataSpec | None) -> tuple[list[tuple[dict, dict]], int]:
    """Pairs whose English or target document equals one of the ``exclude`` set; returns (kept, dropped)."""
    if exclude is None:
        return pairs, 0
    langs = tuple(dict.fromkeys(lang for p in pairs[:1] for lang in (p[0]["lang"], p[1]["lang"]))) or ("en",)
    files = lang_files(exclude, langs)
    seen = {content_key(d) for f in files.values() for d in read_docs(f)}
    kept = [p for p in pairs if content_key(p[0]) not in seen and content_key(p[1]) not in seen]
    return kept, len(pairs) - len(kept)
