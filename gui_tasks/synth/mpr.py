"""Builds the synthetic MPR-GUI set: images, canonical JSONL per language, scene annotations.

Same seed, same bytes: questions come from one seeded RNG, images are written without
timestamps, JSON with sorted keys. ``load_or_build`` caches a finished set under the cache
root and builds into a temporary folder that is renamed into place, so a half-written set
is never reused and two ranks building at once are safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import tempfile
from pathlib import Path

from gui_tasks.mpr.schema import DIMENSIONS, LANGS, LETTERS
from gui_tasks.paths import cache_dir
from gui_tasks.synth import i18n
from gui_tasks.synth.questions import Question, generate, localise, stem_text
from gui_tasks.synth.render import render

GENERATOR_VERSION = "mpr-synth-v2"


def _scene_id(q: Question) -> str:
    return hashlib.sha1(json.dumps([s.key for s, _ in q.frames] + [m for _, m in q.frames]).encode()).hexdigest()[:12]


def build_questions(seed: int = 0, per_dimension: int = 8) -> list[Question]:
    """The language-independent question list (all dimensions, in DIMENSIONS order)."""
    rng = random.Random(f"{GENERATOR_VERSION}:{seed}")
    return [q for dim in DIMENSIONS for q in generate(dim, per_dimension, rng)]


def build_mpr_synth(root: Path, *, seed: int = 0, per_dimension: int = 8, langs: tuple[str, ...] = LANGS) -> dict[str, Path]:
    """Write the set for ``langs`` under ``root``; returns ``{lang: jsonl path}``."""
    unknown = [l for l in langs if l not in LANGS]
    if unknown:
        raise ValueError(f"unknown languages {unknown}; choose from {LANGS}")
    root = Path(root)
    (root / "scenes").mkdir(parents=True, exist_ok=True)
    questions = build_questions(seed, per_dimension)
    counters: dict[str, int] = {}
    files: dict[str, Path] = {}
    rows_by_lang: dict[str, list[str]] = {lang: [] for lang in langs}
    rendered: dict[tuple[str, str, str | None], str] = {}
    for q in questions:
        k = counters[q.dimension] = counters.get(q.dimension, -1) + 1
        qid = f"synth-{q.dimension.lower()}-{k:04d}"
        sid = _scene_id(q)
        scene_doc = {"id": sid, "question_id": qid, "dimension": q.dimension, "facts": q.facts,
                     "frames": [{"screen": s.to_json(), "tapped": m, "labels": _labels(s)} for s, m in q.frames]}
        (root / "scenes" / f"{qid}.json").write_text(json.dumps(scene_doc, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        for lang in langs:
            paths = []
            for scr, marker in q.frames:
                key = (lang, scr.key, marker)
                if key not in rendered:
                    name = hashlib.sha1(f"{scr.key}|{marker}".encode()).hexdigest()[:16] + ".png"
                    out = root / "images" / lang / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    # compress_level=1: half the decode time of the default (6) for 20% more bytes (benchmarks/bench_harness.py)
                    render(scr, lang, scr.get(marker) if marker else None).save(out, format="PNG", compress_level=1)
                    rendered[key] = str(out.resolve())
                paths.append(rendered[key])
            options = [localise(o, lang) for o in q.options]
            if len(set(options)) != 4:
                raise AssertionError(f"{qid}: options not distinct in {lang}: {options}")
            row = {"id": qid, "lang": lang, "dimension": q.dimension, "question": stem_text(q, lang), "options": options,
                   "answer": LETTERS[q.answer], "images": paths, "source": "synthetic",
                   "meta": json.dumps({"scene": f"scenes/{qid}.json", "seed": seed, "generator": GENERATOR_VERSION}, sort_keys=True)}
            rows_by_lang[lang].append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    for lang, rows in rows_by_lang.items():
        files[lang] = root / f"{lang}.jsonl"
        files[lang].write_text("\n".join(rows) + "\n", encoding="utf-8")
    return files


def _labels(scr) -> dict[str, dict[str, str]]:
    return {e.id: {lang: i18n.label(e.label, lang) for lang in LANGS} for e in scr.elements if e.label}


def load_or_build(seed: int = 0, per_dimension: int = 8, langs: tuple[str, ...] = LANGS, root: Path | None = None) -> dict[str, Path]:
    """The cached set for these parameters (all six languages are built together)."""
    base = Path(root) if root else cache_dir() / "synth"
    final = base / f"{GENERATOR_VERSION}-seed{seed}-n{per_dimension}"
    if not all((final / f"{lang}.jsonl").is_file() for lang in LANGS):
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=base, prefix=".building-"))
        try:
            build_mpr_synth(tmp, seed=seed, per_dimension=per_dimension, langs=LANGS)
            # Paths inside the JSONL point into tmp: rewrite them for the final location.
            for lang in LANGS:
                p = tmp / f"{lang}.jsonl"
                p.write_text(p.read_text(encoding="utf-8").replace(str(tmp.resolve()), str(final.resolve())), encoding="utf-8")
            try:
                os.rename(tmp, final)
            except OSError:  # another process finished first: keep theirs
                pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {lang: final / f"{lang}.jsonl" for lang in langs}
