"""Option letters: extracting a model's choice from free text, and reading official option text.

Model outputs are untrusted: :func:`extract_letter` never raises, it classifies the output
as ``parsed`` (one letter), ``malformed`` (no letter, or an ambiguous one) or ``empty``.
Guessing is avoided on purpose: "A or B" is malformed, not A.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal, Sequence

PARSER_PROTOCOL = "mcq-letter-v1"
Status = Literal["parsed", "malformed", "empty"]

# Cyrillic capitals that look like option letters (Russian answers sometimes use them).
_HOMOGLYPHS = str.maketrans({"А": "A", "В": "B", "С": "C"})
_MARKERS = (
    r"final answer|correct answer|the answer|answer|correct option|the option|option|choice|"
    r"la bonne réponse|réponse|правильный ответ|ответ|вариант|"
    r"正确答案|正確答案|最终答案|答案|选项|選項|选择|答え|正解|回答|คำตอบที่ถูกต้อง|คำตอบ|ตัวเลือก"
)
_MARKERS = unicodedata.normalize("NFKC", _MARKERS)  # responses are NFKC-normalised (Thai SARA AM decomposes)
_SEP = r"(?:\s|is|est|:|=|-|—|是|为|為|は|で|：|选|\*|\"|'|「|\(|\[|（|【)*"
_ALT = r"\s*(?:or|and|/|,|、|或者|或|还是|и|или|ou|et|หรือ|か|と)\s*[\(\[（]?\s*([{L}])(?![A-Za-z])"


@dataclass(frozen=True)
class LetterParse:
    """The outcome of reading an option letter from a response."""

    letter: str | None
    status: Status
    rule: str


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)  # full-width letters and colons become ASCII
    text = "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return text.replace("**", "").replace("`", "").strip()


def _norm_option(text: str) -> str:
    return re.sub(r"[\s\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def _ambiguous(text: str, end: int, letter: str, letters: str) -> bool:
    m = re.match(_ALT.format(L=letters), text[end:])
    return bool(m and m.group(1) != letter)


def extract_letter(text: str | None, options: Sequence[str] | None = None, letters: str = "ABCD") -> LetterParse:
    """The option letter a response commits to, or a classified failure; never raises."""
    try:
        return _extract(text, options, letters)
    except Exception as exc:  # defensive: a parser bug must count as a format error, not crash a run
        return LetterParse(None, "malformed", f"parser-error:{type(exc).__name__}")


def _extract(text: str | None, options: Sequence[str] | None, letters: str) -> LetterParse:
    if text is None or not isinstance(text, str) or not text.strip():
        return LetterParse(None, "empty", "empty")
    text = _clean(text[:20000] + (" " + text[-20000:] if len(text) > 40000 else text[20000:40000]))
    if not text:
        return LetterParse(None, "empty", "empty")
    L = re.escape(letters)

    # 1. A whole response that is just a letter: "B", "(b)", "B.", "**B**", "Ｂ", "В".
    m = re.fullmatch(rf"[\s\(\[（【<\"'.]*([{L}{L.lower()}])[\s\)\]）】>\"'.:]*", text.translate(_HOMOGLYPHS))
    if m:
        return LetterParse(m.group(1).upper(), "parsed", "bare-letter")

    # 2. Structured answers: JSON {"answer": "C"} or <answer>C</answer>.
    for chunk in re.findall(r"\{[^{}]*\}", text)[::-1]:
        try:
            obj = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("answer"), str):
            inner = _extract(obj["answer"], options, letters)
            if inner.status == "parsed":
                return LetterParse(inner.letter, "parsed", "json")
    tags = re.findall(rf"<answer>\s*\(?([{L}])\)?[^<]*</answer>", text, flags=re.I)
    if tags:
        return LetterParse(tags[-1].upper(), "parsed", "answer-tag")

    # 3. The last explicit answer marker: "Answer: B", "The correct answer is (C)", "答案：D".
    marked = list(re.finditer(rf"(?:{_MARKERS}){_SEP}([{L}])(?![A-Za-z])", text.translate(_HOMOGLYPHS), flags=re.I))
    marked = [mm for mm in marked if mm.group(1).isupper()]
    if marked:
        last = marked[-1]
        if _ambiguous(text, last.end(), last.group(1), L):
            return LetterParse(None, "malformed", "ambiguous")
        return LetterParse(last.group(1), "parsed", "marker")

    # 4. A response that opens with an option label: "B. Opens settings", "(C) ...", "D：...".
    m = re.match(rf"[\(\[（]?([{L}])(?:[\)\]）.:：、]|\s*$)", text)
    if m:
        if _ambiguous(text, m.end(), m.group(1), L):
            return LetterParse(None, "malformed", "ambiguous")
        return LetterParse(m.group(1), "parsed", "leading-label")

    # 5. The response repeats exactly one option's text.
    if options:
        resp = _norm_option(text)
        normed = [_norm_option(o) for o in options[: len(letters)]]
        exact = [i for i, o in enumerate(normed) if o and o == resp]
        inside = [i for i, o in enumerate(normed) if o and re.search(rf"(?:^| ){re.escape(o)}(?: |$)", resp)]
        hit = exact if len(exact) == 1 else inside
        if len(hit) == 1:
            return LetterParse(letters[hit[0]], "parsed", "option-text")

    # 6. Exactly one distinct stand-alone capital letter ("I think C is right"); the English
    #    article "A" before a lower-case word is not a letter.
    lone_matches = [
        mm
        for mm in re.finditer(rf"(?<![A-Za-z0-9'])([{L}])(?![A-Za-z0-9'])", text)
        if not (mm.group(1) == "A" and re.match(r"\s+(?!or\b|and\b)[a-z]", text[mm.end():]))
    ]
    lone = [mm.group(1) for mm in lone_matches]
    if any(_ambiguous(text, mm.end(), mm.group(1), L) for mm in lone_matches):
        return LetterParse(None, "malformed", "ambiguous")
    if len(set(lone)) == 1:
        return LetterParse(lone[0], "parsed", "lone-letter")
    return LetterParse(None, "malformed", "ambiguous" if lone else "no-letter")


_LABEL = r"(?<![A-Za-z0-9])[\(（]?{letter}[\)）]?\s*[:：.、\)）]\s*"


def split_inline_options(question: str) -> tuple[str, list[str]]:
    """Split an official question holding its options inline ("... A: x B: y C: z D: w")."""
    text = unicodedata.normalize("NFC", question)
    positions = []
    start = 0
    for letter in "ABCD":
        m = re.compile(_LABEL.format(letter=letter)).search(text, start)
        if not m:
            raise ValueError(f"option {letter} not found after position {start} in {question[:80]!r}")
        positions.append(m)
        start = m.end()
    stem = text[: positions[0].start()].strip()
    options = [text[positions[i].end() : positions[i + 1].start() if i < 3 else len(text)].strip() for i in range(4)]
    if not stem:
        raise ValueError("empty question stem before option A")
    empty = [ch for ch, o in zip("ABCD", options) if not o]
    if empty:
        raise ValueError(f"empty option text for {', '.join(empty)}")
    return stem, options


def normalise_answer(answer: str) -> str:
    """The letter of an official answer: "C", "c", "(C)", "Ｃ", "C. text" -> "C"."""
    text = unicodedata.normalize("NFKC", answer or "").strip()
    m = re.fullmatch(r"[\(\[]?([A-Da-d])[\)\]]?(?:\s*[.:、)\s].*)?", text, flags=re.S)
    if not m:
        raise ValueError(f"not an option letter: {answer!r}")
    return m.group(1).upper()
