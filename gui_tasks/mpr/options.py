"""MPR-GUI's official option texts and answers: options written inline in the question, answers as letters.

These are *data*: both functions raise ``ValueError`` for the loader to turn into a ``DataError`` naming the row.
"""

from __future__ import annotations

import re
import unicodedata

_OPTION_LABEL = re.compile(r"(?<![A-Za-z0-9])(?:[(（]([A-D])[)）]|([A-D])\s*([:：.．、)）]))\s*")
_STYLE = {"：": ":", "．": ".", "）": ")"}


def split_inline_options(question: str) -> tuple[str, list[str]]:
    """Split an official question holding its options inline ("... A: x B: y C: z D: w").

    Labels "A:", "A：", "A.", "A、", "A)" and "(A)" are recognised, in one line or one per line.
    All four labels must share one style and leave non-empty texts; if a stem mentions a
    label-like "A." the last A that still leads to B, C, D is taken. Options written in another
    order (2 official rows read "C: .. A: .. B: .. D: ..") are returned in letter order, each
    text under the label it was written with (see :func:`split_inline_options_ordered`).
    """
    stem, options, _order = split_inline_options_ordered(question)
    return stem, options


def split_inline_options_ordered(question: str) -> tuple[str, list[str], str]:
    """Like :func:`split_inline_options`, plus the labels in the order written ("ABCD", or e.g. "CABD")."""
    if not isinstance(question, str):
        raise ValueError(f"question is not a string: {type(question).__name__}")
    text = question  # not normalised: option texts are returned exactly as written
    by_style: dict[str, dict[str, list[re.Match[str]]]] = {}
    for m in _OPTION_LABEL.finditer(text):
        letter = m.group(1) or m.group(2)
        style = "()" if m.group(1) else _STYLE.get(m.group(3), m.group(3))
        by_style.setdefault(style, {}).setdefault(letter, []).append(m)
    found = [(style, seq) for style, labels in by_style.items() if (seq := _label_sequence(text, labels))]
    if not found:  # labels out of order: accepted when each of A-D occurs exactly once in one style
        found = [(style, seq) for style, labels in by_style.items() if (seq := _permuted_sequence(text, labels))]
    if not found:
        seen = sorted({letter for labels in by_style.values() for letter in labels})
        raise ValueError(
            f"cannot find four inline options labelled A, B, C, D in order (labels seen: {seen or 'none'}) "
            f"in {question[:120]!r}"
        )
    _style, seq = max(found, key=lambda f: f[1][0].start())  # the candidate whose options start last
    stem = text[: seq[0].start()].strip()
    texts = {_letter(seq[i]): text[seq[i].end() : seq[i + 1].start() if i < 3 else len(text)].strip() for i in range(4)}
    return stem, [texts[letter] for letter in "ABCD"], "".join(_letter(m) for m in seq)


def _letter(m: re.Match[str]) -> str:
    return m.group(1) or m.group(2)


def _permuted_sequence(text: str, labels: dict[str, list[re.Match[str]]]) -> list[re.Match[str]] | None:
    """The four labels in text order when each letter occurs once, with a non-empty stem and option texts."""
    if any(len(labels.get(letter, [])) != 1 for letter in "ABCD"):
        return None
    seq = sorted((labels[letter][0] for letter in "ABCD"), key=lambda m: m.start())
    ends = [m.start() for m in seq[1:]] + [len(text)]
    if not text[: seq[0].start()].strip() or any(not text[m.end() : end].strip() for m, end in zip(seq, ends)):
        return None
    return seq


def _label_sequence(text: str, labels: dict[str, list[re.Match[str]]]) -> list[re.Match[str]] | None:
    """The latest A followed by the earliest B, C, D that leave a non-empty stem and option texts."""
    if any(letter not in labels for letter in "ABCD"):
        return None
    for a in reversed(labels["A"]):
        if not text[: a.start()].strip():
            continue
        seq, pos = [a], a.end()
        for letter in "BCD":
            nxt = next((m for m in labels[letter] if m.start() >= pos and text[pos : m.start()].strip()), None)
            if nxt is None:
                break
            seq.append(nxt)
            pos = nxt.end()
        if len(seq) == 4 and text[pos:].strip():
            return seq
    return None


def normalise_answer(answer: str) -> str:
    """The letter of an official answer: "C", "c", "(C)", "Ｃ", "C. text", "C：文字" -> "C"."""
    text = unicodedata.normalize("NFKC", answer if isinstance(answer, str) else "").strip()
    m = re.fullmatch(r"[(\[]?([A-Da-d])[)\]]?(?:\s*[.:、)]\s*.*)?", text, flags=re.S) or re.fullmatch(
        r"[(\[]?([A-D])[)\]]?\s+\S.*", text, flags=re.S
    )
    if not m:
        raise ValueError(f"official answer is not an option letter A-D: {answer!r}")
    return m.group(1).upper()
