"""CircularEval documents (MMBench, Liu et al. 2023, section 3.2): every question once per rotation of its options.

``expand`` turns a task's documents into their rotations inside ``process_docs``, so any lmms-eval backend simply
sees more documents: rotation k shows option ``(i + k) mod n`` in place i, the gold letter moves with its option,
fields holding one entry per option (``Layout.parallel``: option screenshots, option actions) move with the texts,
and ``Layout.relabel`` renames letters other fields hold (marks labelled with option letters). Images are the same
in every rotation. The rotations of a question follow each other, so ``--limit`` at a multiple of the option count
cuts whole questions. The scoring side is ``gui_metrics.circular``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import datasets

from gui_metrics.circular import circular_fields

__all__ = ["Layout", "circular_fields", "expand", "expand_dataset", "rotate"]

LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Layout:
    """How a benchmark's documents hold their options."""

    options: str = "options"  # a list of option texts in letter order, or a {letter: text} mapping
    answer: str = "answer"  # the gold letter
    answer_letter: bool = True  # False: the gold is the option's word (yes/no), which no rotation changes
    parallel: tuple[str, ...] = ()  # other fields with one entry per option, in letter order
    relabel: Callable[[dict[str, Any], Mapping[str, str]], None] | None = None  # (doc, old letter -> new) in place
    rotates: Callable[[Mapping[str, Any]], bool] | None = None  # which documents rotate (default: gold is a letter)


def _letters(n: int) -> str:
    return LETTERS[:n]


def _n_options(doc: Mapping[str, Any], layout: Layout) -> int:
    return len(doc.get(layout.options) or ())


def _rotatable(doc: Mapping[str, Any], layout: Layout) -> bool:
    if layout.rotates is not None and not layout.rotates(doc):
        return False
    n = _n_options(doc, layout)
    return 2 <= n <= len(LETTERS) and (not layout.answer_letter or doc.get(layout.answer) in tuple(_letters(n)))


def rotate(doc: Mapping[str, Any], k: int, layout: Layout = Layout()) -> dict[str, Any]:
    """Rotation ``k`` of a document: option ``(i + k) mod n`` shown as letter i, the gold letter remapped."""
    n = _n_options(doc, layout)
    letters = _letters(n)
    out = dict(doc)
    opts = doc[layout.options]
    if isinstance(opts, Mapping):
        values = [opts[letter] for letter in letters]
        out[layout.options] = {letters[i]: values[(i + k) % n] for i in range(n)}
    else:
        out[layout.options] = [opts[(i + k) % n] for i in range(n)]
    for name in layout.parallel:
        values = doc.get(name)
        if values:  # an empty list: the field is not used by this document
            out[name] = [values[(i + k) % n] for i in range(n)]
    # old position j now sits at (j - k) mod n
    moved = {letters[j]: letters[(j - k) % n] for j in range(n)}
    if layout.answer_letter:
        out[layout.answer] = moved[doc[layout.answer]]
    if layout.relabel is not None:
        layout.relabel(out, moved)
    return out


def expand(docs: Iterable[Mapping[str, Any]], layout: Layout = Layout()) -> list[dict[str, Any]]:
    """Every document once per rotation (``id`` gets ``@r<k>``; ``circular_id`` keeps the question's), each tagged
    with ``rotation`` and ``n_rotations``; documents that do not rotate (yes/no questions) stay as one rotation."""
    out = []
    for doc in docs:
        qid = str(doc["id"])
        if not _rotatable(doc, layout):
            out.append({**doc, "circular_id": qid, "rotation": 0, "n_rotations": 1})
            continue
        n = _n_options(doc, layout)
        for k in range(n):
            out.append({**rotate(doc, k, layout), "id": f"{qid}@r{k}", "circular_id": qid, "rotation": k, "n_rotations": n})
    return out


def expand_dataset(dataset: datasets.Dataset, layout: Layout = Layout()) -> datasets.Dataset:
    """``expand`` on a processed dataset (for a ``process_docs`` hook)."""
    return datasets.Dataset.from_list(expand([dict(d) for d in dataset], layout))
