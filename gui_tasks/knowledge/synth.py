"""Builds the synthetic GUI Knowledge Bench set: screenshots and canonical JSONL rows per language.

Same seed, same bytes (one seeded RNG, PNGs without timestamps, sorted JSON keys), cached under
``cache_dir()/synth/gkb-v<GENERATOR_VERSION>-<split>-seed<seed>-n<per_subtask>`` by ``load_or_build``
(built once, under a lock, renamed into place). Each row is a canonical document of
``gui_tasks.knowledge.schema`` for the plain variant, plus ``augmented_question`` and
``augmented_marks`` for the red-box variant (chosen by the task's metadata at load time).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any, Sequence

from gui_core.actions import Action
from gui_tasks.knowledge.schema import AUG_FIELDS, SUBTASK_TYPE, SUBTASKS, letters_for, validate_doc
from gui_core.languages import LANGS
from gui_core.paths import cache_dir
from gui_tasks.synth.cache import build_once
from gui_tasks.knowledge.synth_questions import LETTERS_ALL, KQuestion, call_text, generate, stem_text, text
from gui_tasks.synth.render import render
from gui_tasks.synth.splits import EVAL, check_split
from gui_tasks.synth.scene import Screen

# Bump whenever the bytes of a set change (scenes, strings, rendering, question generators): it keys the cache.
# v3 (issue 22): content splits (eval/memory/search/train, branded desktop), kind-balanced widget/layout options, widget
# stems naming the icon by its point, parameter questions on four exchangeable point actions.
GENERATOR_VERSION = 3
__all__ = ["text_docs", "AUG_FIELDS", "GENERATOR_VERSION", "build_knowledge_synth", "load_or_build", "set_name", "build_questions"]


def set_name(seed: int, per_subtask: int, split: str = EVAL) -> str:
    """Folder name of a cached set: generator version and parameters."""
    return f"gkb-v{GENERATOR_VERSION}-{check_split(split)}-seed{seed}-n{per_subtask}"


def build_questions(seed: int = 0, per_subtask: int = 8, split: str = EVAL) -> list[KQuestion]:
    """The language-independent questions of content split ``split``, sub-task by sub-task in Table 2 order."""
    rng = random.Random(f"gkb-synth-v{GENERATOR_VERSION}:{check_split(split)}:{seed}")
    return [q for sub in SUBTASKS for q in generate(sub, per_subtask, rng, split)]


def question_id(subtask: str, index: int) -> str:
    """Stable id shared by every language, e.g. ``gkb-synth-effect-0003``."""
    return f"gkb-synth-{subtask}-{index:04d}"


def _action_text(q: KQuestion, lang: str) -> str:
    if not q.action:
        return ""
    kind, value = q.action
    return call_text(value, lang) if kind == "call" and isinstance(value, Action) else str(value)


def _write(root: Path, final_root: Path, *, seed: int, per_subtask: int, langs: tuple[str, ...],
           split: str = EVAL) -> dict[str, Path]:
    unknown = [lang for lang in langs if lang not in LANGS]
    if unknown or not langs:
        raise ValueError(f"unknown languages {unknown}; choose from {LANGS}")
    if per_subtask < 1:
        raise ValueError(f"per_subtask must be >= 1, got {per_subtask}")
    final_root = final_root.resolve()
    rows: dict[str, list[str]] = {lang: [] for lang in langs}
    rendered: dict[tuple[str, str], str] = {}
    counters: dict[str, int] = {}

    def image(scr: Screen, lang: str) -> str:
        key = (lang, scr.key)
        if key not in rendered:
            name = hashlib.sha1(scr.key.encode()).hexdigest()[:16] + ".png"
            (root / "images" / lang).mkdir(parents=True, exist_ok=True)
            render(scr, lang).save(root / "images" / lang / name, format="PNG", compress_level=1)
            rendered[key] = str(final_root / "images" / lang / name)
        return rendered[key]

    for q in build_questions(seed, per_subtask, split):
        k = counters[q.subtask] = counters.get(q.subtask, -1) + 1
        qid = question_id(q.subtask, k)
        box = [{"kind": "box", "box": list(q.box)}] if q.box else []
        for lang in langs:
            options = [text(o, lang) for o in q.options] if q.question_type == "multiple_choice" else list(q.options)
            if q.subtask != "effect" and len(set(options)) != len(options):
                raise AssertionError(f"{qid}: options not distinct in {lang}: {options}")
            doc: dict[str, Any] = {
                "id": qid, "subtask": q.subtask, "knowledge_type": SUBTASK_TYPE[q.subtask], "question_type": q.question_type,
                "platform": q.platform, "lang": lang, "question": stem_text(q.stem, lang), "action": _action_text(q, lang),
                "options": options, "option_images": [image(s, lang) for s in q.option_frames],
                "option_actions": list(q.option_actions), "images": [image(s, lang) for s in q.frames],
                "image_size": list(q.frames[0].size), "marks": json.dumps(list(q.marks)), "answer": q.answer,
                "source": "synthetic", "variant": "plain",
                "meta": json.dumps({"seed": seed, "split": split, "generator": f"gkb-synth-v{GENERATOR_VERSION}", "facts": q.facts,
                                    "screens": [s.key for s in q.frames]}, ensure_ascii=False, sort_keys=True, default=str),
                "augmented_question": stem_text(q.aug_stem or q.stem, lang),
                "augmented_marks": json.dumps(box + list(q.marks)),
            }
            validate_doc(doc, file=str(final_root / f"{lang}.jsonl"), row_index=len(rows[lang]))
            if q.question_type == "multiple_choice":
                assert doc["answer"] in letters_for(len(options))
            rows[lang].append(json.dumps(doc, ensure_ascii=False, sort_keys=True))
    files = {}
    for lang, lines in rows.items():
        (root / f"{lang}.jsonl").write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        files[lang] = final_root / f"{lang}.jsonl"
    return files


def text_docs(split: str = EVAL, seed: int = 0, per_subtask: int = 8,
              langs: Sequence[str] = LANGS) -> dict[str, list[dict[str, Any]]]:
    """``{lang: [question, options, answer letter, sub-task as "dimension", screens]}`` of ``split``, built without
    rendering, for the text-only baselines (``gui_tasks.synth.baselines``) and split checks; yes/no questions answer
    with the letter of their option. ``screens``: the keys of every screen shown (options included), ``action``: the
    action text, ``box``: the red box of the asked question; with the question they identify what a model is asked.
    ``question`` is the question the tasks ask (``augmented_question``: the red-box one on Interface Perception)."""
    docs: dict[str, list[dict[str, Any]]] = {lang: [] for lang in langs}
    counters: dict[str, int] = {}
    for q in build_questions(seed, per_subtask, split):
        k = counters[q.subtask] = counters.get(q.subtask, -1) + 1
        for lang in langs:
            mc = q.question_type == "multiple_choice"
            options = [text(o, lang) for o in q.options] if mc else list(q.options)
            answer = q.answer if mc else "ABCDEFGH"[list(q.options).index(q.answer)]
            docs[lang].append({"id": question_id(q.subtask, k), "lang": lang, "dimension": q.subtask,
                               "question": stem_text(q.aug_stem or q.stem, lang), "options": options, "answer": answer,
                               "action": _action_text(q, lang), "box": list(q.box) if q.box else None,
                               "screens": [s.key for s in q.frames + q.option_frames],
                               "answer_screen": q.option_frames[LETTERS_ALL.index(q.answer)].key if q.option_frames else ""})
    return docs


def build_knowledge_synth(root: Path, *, seed: int = 0, per_subtask: int = 8, langs: Sequence[str] = LANGS,
                          split: str = EVAL) -> dict[str, Path]:
    """Write the set of ``split`` for ``langs`` under ``root``; returns ``{lang: jsonl path}``."""
    return _write(Path(root), Path(root), seed=seed, per_subtask=per_subtask, langs=tuple(langs), split=split)


def load_or_build(seed: int = 0, per_subtask: int = 8, langs: Sequence[str] = LANGS, root: Path | None = None,
                  split: str = EVAL) -> dict[str, Path]:
    """The cached set of ``split`` for these parameters, built on first use (all six languages together)."""
    langs = tuple(langs)
    unknown = [lang for lang in langs if lang not in LANGS]
    if unknown:
        raise ValueError(f"unknown languages {unknown}; choose from {LANGS}")
    base = Path(root) if root is not None else cache_dir() / "synth"
    final = build_once(base, set_name(seed, per_subtask, split),
                       lambda tmp, dest: _write(tmp, dest, seed=seed, per_subtask=per_subtask, langs=LANGS, split=split),
                       lambda dest: all((dest / f"{lang}.jsonl").is_file() for lang in LANGS))
    return {lang: final / f"{lang}.jsonl" for lang in langs}
