"""Reading a GUI Knowledge Bench answer from a response: the JSON ``{"thought", "answer"}`` of appendix A.3,
with the fallbacks real models need.

Model outputs are untrusted: :func:`parse_answer` never raises. It tries, in order, JSON objects
(fenced in code blocks or not, with trailing text, with single quotes, Python-style), then an
``"answer": X`` pair inside broken JSON, then free text: for multiple choice the letter extraction of
``gui_core.letters.extract_letter`` (bare letters, "Answer: C", ...), for yes/no questions the
words yes / no / unknown in any case. What cannot be read is ``malformed`` (or ``empty``), a format
error for the metrics, never an exception.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Literal, Sequence

from gui_core.letters import extract_letter

# Recorded in task metadata and results; bump when parse_answer's behaviour changes.
PARSER_PROTOCOL = "gkb-json-v1"
Status = Literal["parsed", "malformed", "empty"]
YES_NO: tuple[str, ...] = ("yes", "no", "unknown")
_MAX_CHARS = 40_000
_KEYS = ("answer", "final_answer", "choice", "option")
# Words read as a yes/no/unknown answer (any case). "not sure"/"cannot determine" style phrases mean unknown.
_YN_WORDS = {"yes": "yes", "no": "no", "unknown": "unknown", "true": "yes", "false": "no",
             "uncertain": "unknown", "unclear": "unknown", "undetermined": "unknown", "indeterminate": "unknown"}
_CLOSE_RUN = re.compile(r"\}+")
# Each pattern opens with a lookahead on the first characters its words can start with (case-insensitive like them): it
# only rejects early the positions where no match can start, so the matches are the same, found several times faster.
_YN_FIRST = "[" + "".join(sorted({w[0] for w in _YN_WORDS})) + "]"
_YN_RE = re.compile(r"(?=" + _YN_FIRST + r")(?<![A-Za-z])(" + "|".join(_YN_WORDS) + r")(?![A-Za-z])", re.I)
_YN_MARKED_RE = re.compile(r"(?=[avc])(?:answer|verdict|conclusion)\s*(?:(?:is|:|=)\s*)?(?:[\"'*]+\s*)?("
                           + "|".join(_YN_WORDS) + r")(?![A-Za-z])", re.I)
_PAIR_RE = re.compile(r"""(?=["'fa])["']?\b(?:final_answer|answer)\b["']?\s*:\s*(?:["']\s*)?([A-Za-z]+)""", re.I)


@dataclass(frozen=True)
class AnswerParse:
    """The outcome of reading an answer from a response."""

    answer: str | None  # a letter ("A".."G") or "yes"/"no"/"unknown"; set only when status == "parsed"
    status: Status
    rule: str  # which rule decided: "json", "json-like", "answer-pair", "text:<letter rule>", "yes-no-word", ...


def parse_answer(text: str | None, question_type: str, letters: str = "ABCD", options: Sequence[str] | None = None) -> AnswerParse:
    """The answer a response commits to for a ``multiple_choice`` or ``yes_or_no`` question; never raises."""
    try:
        if text is None or (isinstance(text, str) and not text.strip()):
            return AnswerParse(None, "empty", "empty")
        if not isinstance(text, str):
            return AnswerParse(None, "malformed", "not-text")
        if question_type not in ("multiple_choice", "yes_or_no"):
            return AnswerParse(None, "malformed", "unknown-question-type")
        if len(text) > _MAX_CHARS:
            text = text[: _MAX_CHARS // 2] + "\n" + text[-_MAX_CHARS // 2:]
        if "</think>" in text and text.rsplit("</think>", 1)[1].strip():
            text = text.rsplit("</think>", 1)[1]
        return _parse(text, question_type, letters, options)
    except Exception as exc:  # a parser bug counts as a format error, not a crashed run
        return AnswerParse(None, "malformed", f"parser-error:{type(exc).__name__}")


def _parse(text: str, qtype: str, letters: str, options: Sequence[str] | None) -> AnswerParse:
    values, rule = _json_answers(text)
    if values:
        seen: dict[str, str | None] = {}  # the same answer text read once
        for v in reversed(values):  # the last readable JSON answer is the final one
            if isinstance(v, str):
                if v not in seen:
                    seen[v] = _value(v, qtype, letters, options)
                got = seen[v]
            else:
                got = _value(v, qtype, letters, options)
            if got is not None:
                return AnswerParse(got, "parsed", rule)
        return AnswerParse(None, "malformed", f"{rule}-unreadable-answer")
    if qtype == "multiple_choice":
        got = extract_letter(text, options, letters=letters)
        return AnswerParse(got.letter, got.status, f"text:{got.rule}")
    return _yes_no_text(text)


def _candidates(text: str) -> list[str]:
    """JSON-looking chunks: fenced code blocks first, then balanced {...} spans (innermost-first scan)."""
    out = [m.group(1) for m in re.finditer(r"```(?:json|JSON|python)?(.*?)```", text, flags=re.S)]
    # Top-level balanced spans (a '}' at depth 0 is ignored), counted run by run with str.find / str.count instead of
    # char by char: the same spans, linear, and fast for "{{{{...", "}}}}..." or '{"a":{"a":...'.
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return out
        depth, i = 0, start
        while True:
            close = text.find("}", i)
            if close < 0:
                return out
            depth += text.count("{", i, close)
            run = _CLOSE_RUN.match(text, close).end() - close
            if run >= depth:  # the span ends at the depth-th brace of this run
                pos = close + depth
                out.append(text[start:pos])
                break
            depth -= run
            i = close + run


def _load(chunk: str) -> object | None:
    chunk = chunk.strip()
    for loader in (json.loads, ast.literal_eval):
        try:
            return loader(chunk)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _json_answers(text: str) -> tuple[list[object], str]:
    """Answer values of JSON objects in the text (strict, then Python literal), else of ``"answer": X`` pairs."""
    values: list[object] = []
    loaded: dict[str, object] = {}  # an answer repeating one chunk loads it once
    for chunk in _candidates(text):
        if chunk not in loaded:
            loaded[chunk] = _load(chunk)
        obj = loaded[chunk]
        if isinstance(obj, dict):
            keys = {str(k).strip().casefold(): v for k, v in obj.items()}
            hit = next((keys[k] for k in _KEYS if k in keys), None)
            if hit is not None:
                values.append(hit)
    if values:
        return values, "json"
    pairs = _PAIR_RE.findall(text)
    return (list(pairs), "answer-pair") if pairs else ([], "")


def _value(value: object, qtype: str, letters: str, options: Sequence[str] | None) -> str | None:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) and qtype == "yes_or_no":
        return "yes" if value else "no"
    if not isinstance(value, str) or not value.strip():
        return None
    if qtype == "yes_or_no":
        return _yes_no_text(value).answer
    got = extract_letter(value, options, letters=letters)
    return got.letter if got.status == "parsed" else None


def _yes_no_text(text: str) -> AnswerParse:
    """yes / no / unknown words: the last answer marker wins, else exactly one distinct word."""
    marked = _YN_MARKED_RE.findall(text)
    if marked:
        return AnswerParse(_YN_WORDS[marked[-1].lower()], "parsed", "yes-no-marker")
    words = {_YN_WORDS[w.lower()] for w in _YN_RE.findall(text)}
    if len(words) == 1:
        return AnswerParse(words.pop(), "parsed", "yes-no-word")
    return AnswerParse(None, "malformed", "ambiguous" if words else "no-answer")
