"""Option letters: extracting a model's choice from free text (every multiple-choice benchmark shares it).

Model outputs are untrusted: :func:`extract_letter` never raises, it classifies the output
as ``parsed`` (one letter), ``malformed`` (no letter, or an ambiguous one) or ``empty``.
Guessing is avoided on purpose: "A or B" is malformed, not A. MPR-GUI's official inline options and
answers are data, read in ``gui_tasks.mpr.options``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Sequence

from gui_core.prefilter import compile_prefiltered

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
_ALT_WORDS = r"or|and|/|,|、|或者|或|还是|и|или|ou|et|หรือ|か|と|又は"
_ALT = r"\s*(?:" + _ALT_WORDS + r")\s*(?:[(\[]\s*)?([{U}])(?![{W}])"  # linear: no \s*…\s* around an optional
_ALT_WORD_RE = re.compile(_ALT_WORDS)


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
    control = {ord(ch): " " for ch in set(text) if ch not in "\n\t" and unicodedata.category(ch)[0] == "C"}
    if control:  # per distinct character, not per character: same result, linear in C
        text = text.translate(control)
    text = re.sub(rf"(?<![{_WORDISH}])[АВС](?![{_WORDISH}])", lambda m: _HOMOGLYPHS[m.group(0)], text)
    return text.replace("**", "").replace("__", "").replace("`", "").strip()


_NON_WORD_RUN = re.compile(r"[\s\W_]+")


def _norm_option(text: str) -> str:
    return _NON_WORD_RUN.sub(" ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def _letter_re(letters: str) -> str:
    return _LETTER.format(U=re.escape(letters), l=re.escape(letters.lower()), W=_WORDISH)


@lru_cache(maxsize=64)
def _alt_re(letters: str) -> re.Pattern[str]:
    return re.compile(_ALT.format(U=re.escape(letters), W=_WORDISH))


def _ambiguous(text: str, end: int, letter: str, letters: str) -> bool:
    m = _alt_re(letters).match(text, end)
    return bool(m and m.group(1) != letter)


@lru_cache(maxsize=64)
def _marked_re(markers: str, letters: str) -> re.Pattern[str]:
    # gui_core.prefilter: a lookahead on the markers' first characters rejects most positions early, same matches
    return compile_prefiltered(rf"(?<![A-Za-z])(?:{markers}){_SEP}{_letter_re(letters)}", re.I)


def _marked(text: str, markers: str, letters: str) -> list[tuple[str, int]]:
    """(letter, end) for every ``marker sep letter`` occurrence, in text order."""
    return [((m.group(1) or m.group(2)).upper(), m.end()) for m in _marked_re(markers, letters).finditer(text)]


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
    return _lone_letter(text, letters)


_LONE = r"(?<![{W}'’])([{U}])(?![{W}'’])"
_CONTEXT_BEFORE, _CONTEXT_AFTER = 20, 40  # what decides a lone letter: 20 characters before it (label), 40 after (article)


@lru_cache(maxsize=128)
def _lone_res(letters: str, alternatives: bool) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Stand-alone letters: anywhere; those that cannot be an article or pronoun (not an A or I before whitespace and a
    lower-case letter) with their alternative; and the others from offset 20 on with their whole context (before,
    letter, after, alternative).
    Without ``alternatives`` (the text holds no "or", ",", ... at all) the alternative is an always-empty group."""
    lone = _LONE.format(W=_WORDISH, U=re.escape(letters))
    alt = _ALT.format(U=re.escape(letters), W=_WORDISH) if alternatives else ""
    # The same tests with the letter first (the regex engine then skips to letters fast): "(?<![W'’].)" after the letter
    # is "(?<![W'’])" before it.
    fast = rf"([{re.escape(letters)}])(?<![{_WORDISH}'’].)(?![{_WORDISH}'’])"
    plain = rf"{fast}(?!(?<=[AI])\s+[a-z])" + (rf"(?:(?={alt})|)" if alt else "")  # groups: letter[, alternative]
    with_context = (rf"([{re.escape(letters)}])(?<=((?s:.{{{_CONTEXT_BEFORE}}}))[AI])(?<![{_WORDISH}'’].)(?![{_WORDISH}'’])"
                    rf"(?=\s+[a-z])(?=((?s:.{{0,{_CONTEXT_AFTER}}})))(?:(?={alt or '()'})|)")
    return re.compile(lone), re.compile(plain), re.compile(with_context)


def _lone_verdict(before: str, letter: str, after: str, alternative: str) -> str | None:
    """A stand-alone letter read in its context: the letter, ``"?"`` (offered with another letter), None (not a letter)."""
    labelled = re.search(rf"(?:{_LABEL_WORD})\s*[(\[]?$", before, flags=re.I)
    if not labelled and letter == "A" and re.match(rf"\s+(?!(?:{_NOT_ARTICLE})\b)[a-z]", after):
        return None
    if not labelled and letter == "I" and re.match(r"\s+[a-z]", after):
        return None
    return "?" if alternative and alternative != letter else letter


def _lone_letter(text: str, letters: str) -> LetterParse:
    """Rule 6. The verdict of a letter depends only on its context, so each distinct context is judged once (the regex
    engine gathers them): linear and fast even for "A A A ..." and the same answer as judging letter by letter."""
    alternatives = _ALT_WORD_RE.search(text) is not None
    lone, plain, with_context = _lone_res(letters, alternatives)
    contexts = set()
    for mm in lone.finditer(text):  # the first 20 characters: a shorter context before
        if mm.start() >= _CONTEXT_BEFORE:
            break
        alt = _alt_re(letters).match(text, mm.end())
        contexts.add((text[: mm.start()], mm.group(1), text[mm.end() : mm.end() + _CONTEXT_AFTER],
                      alt.group(1) if alt else ""))
    contexts.update((before, letter, after, alt) for letter, before, after, alt in set(with_context.findall(text)))
    verdicts = {_lone_verdict(*context) for context in contexts} - {None}
    # A letter not followed by "\s+[a-z]" is never skipped, whatever its context: only its alternative matters.
    if alternatives:
        verdicts.update("?" if alt and alt != letter else letter for letter, alt in set(plain.findall(text)))
    else:
        verdicts.update(plain.findall(text))
    if "?" in verdicts:
        return LetterParse(None, "malformed", "ambiguous")
    if len(verdicts) == 1:
        return LetterParse(verdicts.pop(), "parsed", "lone-letter")
    return LetterParse(None, "malformed", "ambiguous" if verdicts else "no-letter")


def _option_text_hit(text: str, options: Sequence[str]) -> int | None:
    resp = _norm_option(text)
    normed = [_norm_option(o) for o in options]
    exact = [i for i, o in enumerate(normed) if o and o == resp]
    if len(exact) == 1:
        return exact[0]
    # Whole words: normalised texts hold single spaces and no newline, so a padded substring test is the word match.
    padded = f" {resp} "
    inside = [i for i, o in enumerate(normed) if o and f" {o} " in padded]
    # "open settings" also contains "settings": keep only hits not contained in another hit.
    inside = [i for i in inside if not any(j != i and normed[i] != normed[j] and normed[i] in normed[j] for j in inside)]
    return inside[0] if len(inside) == 1 else None
