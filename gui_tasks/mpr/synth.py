"""Builds the synthetic MPR-GUI set: images, canonical JSONL per language, scene annotations.

Same seed, same bytes: questions come from one seeded RNG, PNGs carry no timestamps, JSON
has sorted keys. ``load_or_build`` caches a finished set under the cache root; built once
(``gui_tasks.synth.cache.build_once``), also when several ranks ask at once.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Sequence

from gui_tasks.mpr.schema import DIMENSIONS, LANGS, LETTERS, MPRDoc, validate_row
from gui_core.paths import cache_dir
from gui_tasks.synth import fonts, i18n
from gui_tasks.synth.cache import build_once
from gui_tasks.synth.questions import BOX, Question, generate, option_text, stem_text
from gui_tasks.synth.splits import EVAL, check_split
from gui_tasks.synth.render import render
from gui_tasks.synth.scene import Screen

# Bump whenever the bytes of a set change (scenes, strings, rendering, fonts): it keys the cache.
# v5 (issue 22): content splits, kind-balanced options, red-box and positional references, brands and dynamic rows.
GENERATOR_VERSION = 5


def set_name(seed: int, per_dimension: int, split: str = EVAL) -> str:
    """Folder name of a cached set: generator version and parameters."""
    return f"mpr-v{GENERATOR_VERSION}-{check_split(split)}-seed{seed}-n{per_dimension}"


def build_questions(seed: int = 0, per_dimension: int = 8, split: str = EVAL) -> list[Question]:
    """The language-independent question list of ``split`` (all dimensions, in DIMENSIONS order)."""
    rng = random.Random(f"mpr-synth-v{GENERATOR_VERSION}:{check_split(split)}:{seed}")
    return [q for dim in DIMENSIONS for q in generate(dim, per_dimension, rng, split)]


def question_id(dimension: str, index: int) -> str:
    """Stable id shared by every language, e.g. ``synth-ael-0003``."""
    return f"synth-{dimension.lower()}-{index:04d}"


def build_mpr_synth(root: Path, *, seed: int = 0, per_dimension: int = 8, langs: Sequence[str] = LANGS,
                    split: str = EVAL) -> dict[str, Path]:
    """Write the set of ``split`` for ``langs`` under ``root``; returns ``{lang: jsonl path}``."""
    return _write(Path(root), Path(root), seed=seed, per_dimension=per_dimension, langs=tuple(langs), split=split)


def _write(root: Path, final_root: Path, *, seed: int, per_dimension: int, langs: tuple[str, ...],
           split: str = EVAL) -> dict[str, Path]:
    """Write into ``root`` with every path inside the files pointing at ``final_root`` (where it will live)."""
    unknown = [lang for lang in langs if lang not in LANGS]
    if unknown or not langs:
        raise ValueError(f"unknown languages {unknown}; choose from {LANGS}")
    if per_dimension < 1:
        raise ValueError(f"per_dimension must be >= 1, got {per_dimension}")
    final_root = final_root.resolve()
    (root / "scenes").mkdir(parents=True, exist_ok=True)
    counters: dict[str, int] = {}
    rows: dict[str, list[str]] = {lang: [] for lang in langs}
    rendered: dict[tuple[str, str, str | None], str] = {}
    check_split(split)
    for q in build_questions(seed, per_dimension, split):
        k = counters[q.dimension] = counters.get(q.dimension, -1) + 1
        qid = question_id(q.dimension, k)
        scene_rel = f"scenes/{qid}.json"
        scene_doc = {"id": qid, "dimension": q.dimension, "facts": q.facts, "fonts": fonts.describe(),
                     "frames": [{"screen": s.to_json(), **_markers(m), "labels": _labels(s)} for s, m in q.frames]}
        _write_text(root / scene_rel, json.dumps(scene_doc, ensure_ascii=False, sort_keys=True) + "\n")
        for lang in langs:
            images = []
            for scr, marker in q.frames:
                key = (lang, scr.key, marker)
                if key not in rendered:
                    name = hashlib.sha1(f"{scr.key}|{marker}".encode()).hexdigest()[:16] + ".png"
                    (root / "images" / lang).mkdir(parents=True, exist_ok=True)
                    # compress_level=1: half the decode time of the default (6) for 20% more bytes (benchmarks/bench_harness.py)
                    marks = _markers(marker)
                    render(scr, lang, scr.get(marks["tapped"]) if marks["tapped"] else None,
                           box_marker=scr.get(marks["boxed"]) if marks.get("boxed") else None).save(root / "images" / lang / name, format="PNG",
                                                                               compress_level=1)
                    rendered[key] = str(final_root / "images" / lang / name)
                images.append(rendered[key])
            options = tuple(option_text(q, i, lang) for i in range(4))
            if len(set(options)) != 4:
                raise AssertionError(f"{qid}: options not distinct in {lang}: {options}")
            doc = MPRDoc(id=qid, lang=lang, dimension=q.dimension, question=stem_text(q, lang), options=options,
                         answer=LETTERS[q.answer], images=tuple(images), source="synthetic",
                         meta={"scene_id": qid, "scene": str(final_root / scene_rel), "seed": seed, "split": split,
                               "generator": f"mpr-synth-v{GENERATOR_VERSION}"})
            row = doc.to_row()
            validate_row(row, file=str(final_root / f"{lang}.jsonl"), row_index=len(rows[lang]))
            rows[lang].append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    files = {}
    for lang, lines in rows.items():
        _write_text(root / f"{lang}.jsonl", "\n".join(lines) + "\n")
        files[lang] = final_root / f"{lang}.jsonl"
    return files


def text_docs(split: str = EVAL, seed: int = 0, per_dimension: int = 8, langs: Sequence[str] = LANGS) -> dict[str, list[dict]]:
    """``{lang: [document without images]}``: the questions, options and answers of a set, built without rendering
    (text-only baselines, split checks)."""
    docs: dict[str, list[dict]] = {lang: [] for lang in langs}
    counters: dict[str, int] = {}
    for q in build_questions(seed, per_dimension, split):
        k = counters[q.dimension] = counters.get(q.dimension, -1) + 1
        for lang in langs:
            docs[lang].append({"id": question_id(q.dimension, k), "lang": lang, "dimension": q.dimension,
                               "question": stem_text(q, lang), "options": [option_text(q, i, lang) for i in range(4)],
                               "answer": LETTERS[q.answer]})
    return docs


def _markers(marker: str | None) -> dict[str, str | None]:
    """A frame's marker as the scene file records it: the element about to be tapped, or the one in the red box."""
    if marker and marker.startswith(BOX):
        return {"tapped": None, "boxed": marker[len(BOX):]}
    return {"tapped": marker}


def _write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))  # no newline translation: identical bytes on every platform


def _labels(scr: Screen) -> dict[str, dict[str, str]]:
    """Every labelled element's text in each language (what the renderer draws before truncation)."""
    return {e.id: {lang: i18n.label(e.label, lang) for lang in LANGS} for e in scr.elements if e.label}


def load_or_build(seed: int = 0, per_dimension: int = 8, langs: Sequence[str] = LANGS, root: Path | None = None,
                  split: str = EVAL) -> dict[str, Path]:
    """The cached set of ``split`` for these parameters, built on first use (all six languages together).

    ``root`` replaces ``cache_dir()/synth`` as the folder holding sets. Safe to call from
    several processes at once.
    """
    langs = tuple(langs)
    unknown = [lang for lang in langs if lang not in LANGS]
    if unknown:
        raise ValueError(f"unknown languages {unknown}; choose from {LANGS}")
    base = Path(root) if root is not None else cache_dir() / "synth"
    final = build_once(base, set_name(seed, per_dimension, split),
                       lambda tmp, dest: _write(tmp, dest, seed=seed, per_dimension=per_dimension, langs=LANGS, split=split),
                       lambda dest: all((dest / f"{lang}.jsonl").is_file() for lang in LANGS))
    return {lang: final / f"{lang}.jsonl" for lang in langs}
