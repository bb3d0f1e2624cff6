# REFERENCE ONLY (issue 21, item 7): gui_core/letters.py as it was before its speed-up, kept verbatim so the tests can prove
# the fast extractor gives identical results (tests/test_letter_speed.py). Not used by the harness.

"""Option letters: extracting a model's choice from free text, and reading official option text.

Model outputs are untrusted: :func:`extract_letter` never raises, it classifies the output
as ``parsed`` (one letter), ``malformed`` (no letter, or an ambiguous one) or ``empty``.
Guessing is avoided on purpose: "A or B" is malformed, not A. The official data's inline
options (:func:`split_inline_options`) and answers (:func:`normalise_answer`) are *data*,
so those two raise ``ValueError`` for the caller to turn into a ``DataError``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal, Sequence

# Recorded in task metadata and results; bump when extract_letter's behaviour changes.
PARSER_PROTOCOL = "mcq-letter-v2"
Status = Literal["parsed", "malformed", "empty"]

_MAX_CHARS = 40_000  # longer outputs keep their head and tail (the final answer sits at the end)
# Letters of scripts that glue to a neighbouring Latin letter to form a word ("Bариант", "Ab").
_WORDISH = r"A-Za-z0-9\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF"
# Stand-alone Cyrillic capitals that look like A, B, C (Russian outputs sometimes use them).
_HOMOGLYPHS = {"А": "A", "В": "B", "С": "C"}


def _nfkc(pattern: str) -> str:  # responses are NFKC-normalised (Thai SARA AM decomposes), so are the patterns
    return unicodedata.normalize("NFKC", pattern)


# Markers that claim the final answer. A response claiming two different letters this way is malformed.
_FINAL = _nfkc(
    r"final answer|final choice|réponse finale|choix final|окончательный ответ|итоговый ответ|"
    r"最终答案|最終答案|最终选择|最終的な答え|最終回答|คำตอบสุดท้าย"
)
# Ordinary answer markers: the last one in a reasoning chain wins.
_MARKER = _nfkc(
    r"(?:correct|right|best) (?:answer|option|choice|letter)|the answer|answer|"
    r"bonne réponse|réponse correcte|la réponse|réponse|правильный ответ|правильный вариант|ответ|"
    r"正确答案|正確答案|正确选项|正確選項|答案|回答|答|答え|正解|解答|"
    r"คำตอบที่ถูกต้อง|คำตอบ|ตอบ"
)
# Words that label a letter as an option ("option B", "选项B", "вариант C", "ข้อ C").
_LABEL_WORD = _nfkc(r"options?|choices?|letter|вариант|选项|選項|選択肢|ตัวเลือก|ข้อ")
# What may stand between a marker and its letter: "is", "est", "是", "は", "คือ", quotes, brackets, "option".
# Longer tokens first: the separator is matched atomically (no backtracking), so "选项" must win over "选".
_SEP_TOKEN = _nfkc(
    _LABEL_WORD + r"|\s+|[:=\-—–\"'«»「『【(\[]|would be|should be|will be|must be|is|was|be|est|sera|c'est|la|le|"
    r"это|应该是|应为|是|为|為|选|選|は|が|で|คือ|ได้แก่"
)
_SEP = rf"(?>(?:{_SEP_TOKEN}){{0,12}})"  # atomic: no backtracking into long whitespace runs
# A captured letter: upper case, or lower case only when nothing word-like follows ("answer: b)").
_LETTER = r"(?-i:(?:([{U}])|([{l}])(?=\s*(?:$|[).\]:,;!?。）])))(?![{W}]))"
# After a letter, another letter offered as an alternative makes the answer ambiguous.
# Words after a capital "A" that make it a letter, not the article ("A is correct", "A or B").
_NOT_ARTICLE = r"or|and|is|was|seems|looks|fits|matches|describes|should|would|must|can|correctly|best"
_ALT = r"\s*(?:or|and|/|,|、|或者|或|还是|и|или|ou|et|หรือ|か|と|又は)\s*(?:[(\[]\s*)?([{U}])(?![{W}])"  # linear: no \s*…\s* around an optional


@dataclass(frozen=True)
class LetterParse:
    """The outcome of reading an option letter from a response."""

    letter: str | None  # the option letter, set only when status == "parsed"
    status: Status  # "parsed" | "malformed" | "empty"
    rule: str  # which rule decided ("marker", "final-claim", "ambiguous", "no-letter", ...)


def extract_letter(text: str | None, options: Sequence[str] | None = None, letters: str = "ABCD") -> LetterParse:
    """The option letter a response commits to, or a classified failure; never raises."""
    try:
        letters = "".join(dict.fromkeys(ch for ch in str(letters).upper() if "A" <= ch <= "Z"))
        if not letters:
            return LetterParse(None, "malformed", "no-letters-configured")
        return _extract(text, list(options) if options else None, letters)
    except Exception as exc:  # defensive: a parser bug must count as a format error, not crash a run
        return LetterParse(None, "malformed", f"parser-error:{type(exc).__name__}")


def _clean(text: str) -> str:
    """NFKC (full-width letters and colons become ASCII), control characters out, markdown emphasis out."""
    if len(text) > _MAX_CHARS:  # cut at whitespace so no word is split into a stray letter
        head, tail = text[: _MAX_CHARS // 2], text[-_MAX_CHARS // 2 :]
        cut_head = max(head.rfind(" ", -64), head.rfind("\n", -64))
        cut_tail = min((i for i in (tail.find(" ", 0, 64), tail.find("\n", 0, 64)) if i >= 0), default=0)
        text = (head[:cut_head] if cut_head > 0 else head) + "\n" + tail[cut_tail:]
    if "</think>" in text:  # reasoning models: the answer follows the thinking block
        after = text.rsplit("</think>", 1)[1]
        text = after if after.strip() else text
    text = unicodedata.normalize("NFKC", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", " ", text))  # ANSI colour codes out
    text = "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C" else " " for ch in text)
    text = re.sub(rf"(?<![{_WORDISH}])[АВС](?![{_WORDISH}])", lambda m: _HOMOGLYPHS[m.group(0)], text)
    return text.replace("**", "").replace("__", "").replace("`", "").strip()


def _norm_option(text: str) -> str:
    return re.sub(r"[\s\W_]+", " ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def _letter_re(letters: str) -> str:
    return _LETTER.format(U=re.escape(letters), l=re.escape(letters.lower()), W=_WORDISH)


def _ambiguous(text: str, end: int, letter: str, letters: str) -> bool:
    m = re.compile(_ALT.format(U=re.escape(letters), W=_WORDISH)).match(text, end)
    return bool(m and m.group(1) != letter)


def _marked(text: str, markers: str, letters: str) -> list[tuple[str, int]]:
    """(letter, end) for every ``marker sep letter`` occurrence, in text order."""
    pattern = rf"(?<![A-Za-z])(?:{markers}){_SEP}{_letter_re(letters)}"
    return [((m.group(1) or m.group(2)).upper(), m.end()) for m in re.finditer(pattern, text, flags=re.I)]


def _structured(text: str, options: list[str] | None, letters: str) -> list[LetterParse]:
    """Answers in a structure: <answer>..</answer>, \\boxed{..}, <|begin_of_box|>..; JSON {"answer": ..}."""
    inner = _tagged(text, "<answer>", "</answer>")
    inner += re.findall(r"\\boxed\{(?:\\text(?:bf)?\{)?([^{}]*)\}?\}", text)
    inner += _tagged(text, "<|begin_of_box|>", "<|end_of_box|>")
    for chunk in re.findall(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(obj, dict):
            keys = {str(k).casefold(): v for k, v in obj.items()}
            value = next((keys[k] for k in ("answer", "final_answer", "choice", "option", "selected_option") if k in keys), None)
            if isinstance(value, str):
                inner.append(value)
    return [_extract(chunk, options, letters) for chunk in inner if len(chunk) < len(text)]


def _tagged(text: str, open_tag: str, close_tag: str) -> list[str]:
    """Contents of ``open_tag ... close_tag`` pairs (innermost opening), in linear time."""
    tags = re.finditer(f"({re.escape(open_tag)})|{re.escape(close_tag)}", text, flags=re.I)
    out, opened = [], None
    for m in tags:
        if m.group(1):
            opened = m.end()
        elif opened is not None:
            out.append(text[opened : m.start()])
            opened = None
    return out


def _extract(text: str | None, options: list[str] | None, letters: str) -> LetterParse:
    if text is None or (isinstance(text, str) and not text.strip()):
        return LetterParse(None, "empty", "empty")
    if not isinstance(text, str):
        return LetterParse(None, "malformed", "not-text")
    text = _clean(text)
    if not text:
        return LetterParse(None, "empty", "empty")
    U = re.escape(letters)

    # 1. The whole response is a letter: "B", "(b)", "B.", "**B**", "Ｂ", "【C】", "В".
    m = re.fullmatch(rf"[\s(\[<\"'.【「]*([{U}{U.lower()}])[\s)\]>\"'.:。】」]*", text)
    if m:
        return LetterParse(m.group(1).upper(), "parsed", "bare-letter")

    # 2. Final claims: structured answers and "final answer" markers. Two different letters: malformed.
    claims = _structured(text, options, letters)
    if any(c.rule == "ambiguous" for c in claims):
        return LetterParse(None, "malformed", "ambiguous")
    final = [c.letter for c in claims if c.letter] + [letter for letter, _ in _marked(text, _FINAL, letters)]
    if len(set(final)) > 1:
        return LetterParse(None, "malformed", "conflicting-final")
    if final:
        return LetterParse(final[0], "parsed", "final-claim")

    # 3. The last ordinary answer marker: "Answer: B", "The correct answer is (C)", "答案：D", "Ответ: C".
    marked = _marked(text, _MARKER, letters)
    if marked:
        letter, end = marked[-1]
        if _ambiguous(text, end, letter, letters):
            return LetterParse(None, "malformed", "ambiguous")
        return LetterParse(letter, "parsed", "marker")

    # 4. The response opens with an option label: "B. Opens settings", "(C) ...", "D：...", "b) ...".
    m = re.match(rf"[(\[]?(?:([{U}])|([{U.lower()}])(?=[)\]]))(?:[)\].:、]|\s*$)", text)
    if m:
        letter = (m.group(1) or m.group(2)).upper()
        punct = re.escape(text[m.end() - 1])
        others = re.findall(rf"(?<![{_WORDISH}])[(\[]?([{U}]){punct}", text[m.end() :])
        if _ambiguous(text, m.end(), letter, letters) or set(others) - {letter}:  # "A. x B. y": options echoed
            return LetterParse(None, "malformed", "ambiguous")
        return LetterParse(letter, "parsed", "leading-label")

    # 5. The response repeats exactly one option's text (the longest when one contains another).
    if options:
        hit = _option_text_hit(text, options[: len(letters)])
        if hit is not None:
            return LetterParse(letters[hit], "parsed", "option-text")

    # 6. Exactly one distinct stand-alone capital letter ("I think C", "选项B", "我选C"). The English
    #    article "A" and the pronoun "I" before a lower-case word are not letters.
    found = []
    for mm in re.finditer(rf"(?<![{_WORDISH}'’])([{U}])(?![{_WORDISH}'’])", text):
        letter, after = mm.group(1), text[mm.end() : mm.end() + 40]
        labelled = re.search(rf"(?:{_LABEL_WORD})\s*[(\[]?$", text[max(0, mm.start() - 20) : mm.start()], flags=re.I)
        if not labelled and letter == "A" and re.match(rf"\s+(?!(?:{_NOT_ARTICLE})\b)[a-z]", after):
            continue
        if not labelled and letter == "I" and re.match(r"\s+[a-z]", after):
            continue
        if _ambiguous(text, mm.end(), letter, letters):
            return LetterParse(None, "malformed", "ambiguous")
        found.append(letter)
    if len(set(found)) == 1:
        return LetterParse(found[0], "parsed", "lone-letter")
    return LetterParse(None, "malformed", "ambiguous" if found else "no-letter")


def _option_text_hit(text: str, options: Sequence[str]) -> int | None:
    resp = _norm_option(text)
    normed = [_norm_option(o) for o in options]
    exact = [i for i, o in enumerate(normed) if o and o == resp]
    if len(exact) == 1:
        return exact[0]
    inside = [i for i, o in enumerate(normed) if o and re.search(rf"(?:^| ){re.escape(o)}(?: |$)", resp)]
    # "open settings" also contains "settings": keep only hits not contained in another hit.
    inside = [i for i in inside if not any(j != i and normed[i] != normed[j] and normed[i] in normed[j] for j in inside)]
    return inside[0] if len(inside) == 1 else None


# ----------------------------------------------------------------------------------------
# Official data: options inline in the question, answers as letters

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
