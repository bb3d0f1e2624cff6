"""Text-only baselines for four-option questions (issue 22): how much of a set answers itself without the screenshot.

Each baseline sees a document's question and option texts only, is fitted on one set (``train``) and scored on
another (``eval``): the option-text prior (how often each option text was right), the exact (question, option) lookup,
word overlap with the question, and the longest and shortest option. Ties are broken by a hash of the document id and
option, never by position, so no baseline inherits the letter balance.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from typing import Any, Callable, Iterable, Sequence

LETTERS = "ABCDEFGH"  # up to eight options (GUI Knowledge Bench action types: seven)
BASELINES = ("option_prior", "pair_lookup", "word_overlap", "longest", "shortest")
# Scripts written without spaces between words: characters stand for words in the overlap baseline.
_NO_SPACES = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff]")


def tokens(text: str) -> set[str]:
    """Lower-cased words; in Chinese, Japanese and Thai text every character of those scripts is a token."""
    text = unicodedata.normalize("NFKC", text).lower()
    out = set(_NO_SPACES.findall(text))
    out.update(w for w in re.findall(r"\w+", _NO_SPACES.sub(" ", text)) if w)
    return out


def _tie(doc: dict[str, Any], i: int) -> str:
    return hashlib.sha256(f"{doc['id']}|{doc['lang']}|{i}".encode("utf-8")).hexdigest()


def _pick(doc: dict[str, Any], scores: Sequence[float]) -> str:
    """The letter of the highest score; ties by a hash of the document and option."""
    best = max(range(len(scores)), key=lambda i: (scores[i], _tie(doc, i)))
    return LETTERS[best]


def _answer_text(doc: dict[str, Any]) -> str:
    return doc["options"][LETTERS.index(doc["answer"])]


def fit(train: Iterable[dict[str, Any]]) -> dict[str, Callable[[dict[str, Any]], str]]:
    """The five baselines, fitted on ``train`` documents; each maps a document to the letter it picks."""
    text_seen: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # option text -> [times right, times shown]
    pair_seen: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for doc in train:
        right = _answer_text(doc)
        for opt in doc["options"]:
            for table, key in ((text_seen, opt), (pair_seen, (doc["question"], opt))):
                table[key][0] += opt == right
                table[key][1] += 1

    def rate(table, key) -> float:  # Laplace-smoothed towards 1/4: an unseen option scores as chance
        right, shown = table.get(key, (0, 0))
        return (right + 1) / (shown + 4)

    return {
        "option_prior": lambda d: _pick(d, [rate(text_seen, o) for o in d["options"]]),
        "pair_lookup": lambda d: _pick(d, [rate(pair_seen, (d["question"], o)) for o in d["options"]]),
        "word_overlap": lambda d: _pick(d, [len(tokens(d["question"]) & tokens(o)) for o in d["options"]]),
        "longest": lambda d: _pick(d, [len(o) for o in d["options"]]),
        "shortest": lambda d: _pick(d, [-len(o) for o in d["options"]]),
    }


def score(train: Sequence[dict[str, Any]], test: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """``{baseline: {dimension or "all": accuracy}}`` of baselines fitted on ``train``, scored on ``test``."""
    picks = fit(train)
    out: dict[str, dict[str, float]] = {}
    for name in BASELINES:
        hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for doc in test:
            ok = picks[name](doc) == doc["answer"]
            for key in (doc["dimension"], "all"):
                hits[key][0] += ok
                hits[key][1] += 1
        out[name] = {k: right / n for k, (right, n) in hits.items()}
    return out


def chance(docs: Sequence[dict[str, Any]]) -> dict[str, float]:
    """``{dimension or "all": expected accuracy of a uniform guess}``: the mean of 1 / number of options (25% for four
    options; GUI Knowledge Bench yes/no questions have three, desktop action types seven)."""
    acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for doc in docs:
        for key in (doc["dimension"], "all"):
            acc[key][0] += 1 / len(doc["options"])
            acc[key][1] += 1
    return {k: total / n for k, (total, n) in acc.items()}


__all__ = ["BASELINES", "chance", "fit", "score", "tokens"]
