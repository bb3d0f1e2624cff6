"""gui_core.prefilter: the first-character lookahead changes how fast a pattern scans, never what it matches."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core import action_parsers_text
from gui_core.prefilter import compile_prefiltered, first_chars

PATTERNS = [
    (r"(?<![A-Za-z_])(LONG_CLICK|CLICK|TYPE|ENTER)(?![A-Za-z_])", re.I),
    (r"\b(?:actions?|output)[ \t]*[:：]", re.I),
    (r"(?<![A-Za-z])(?:final answer|réponse finale|окончательный ответ|最终答案|คำตอบสุดท้าย)\s*[:：]?\s*([A-D])", re.I),
    (r"(?:answer|ß|ſ|k|İ)x?", re.I),
    (r"(?:ab|cd)e", 0),
]


def test_first_characters_are_read_off_the_pattern():
    assert first_chars(r"(?<![a-z])(?:ab|cd|e)f", 0) == "[ace]"
    assert first_chars(r"\b(?:actions?|output)", re.I) == "[ao]"
    assert first_chars(r"[ab]?c", 0) is None and first_chars(r".x", 0) is None and first_chars(r"(?:a|)", 0) is None


def test_the_action_parsers_use_it():
    assert action_parsers_text._ATLAS_WORD.pattern.startswith("(?=[")
    assert action_parsers_text._TARS_CALL.pattern.startswith("(?=[")


_TEXT = st.lists(st.sampled_from(["click", "CLICK", "Click", "long_click", "type", "enter", "Action:", "OUTPUT :", "answer",
                                  "ANSWER", "ß", "SS", "ſ", "s", "K", "\u212a", "İ", "i", "final answer: B", "最终答案C",
                                  "réponse finale: A", "_", "x", " ", "\n", "ab", "cde", "e"]), max_size=20).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=_TEXT, which=st.integers(0, len(PATTERNS) - 1))
def test_prefiltered_patterns_find_the_same_matches(text, which):
    pattern, flags = PATTERNS[which]
    plain, fast = re.compile(pattern, flags), compile_prefiltered(pattern, flags)
    assert [(m.span(), m.groups()) for m in fast.finditer(text)] == [(m.span(), m.groups()) for m in plain.finditer(text)]


@pytest.mark.parametrize("pattern, flags", PATTERNS)
def test_case_folding_is_the_patterns_own(pattern, flags):
    for text in ("\u212a", "K", "k", "ſ", "S", "İ", "i", "I", "ß", "ẞ"):
        fast, plain = compile_prefiltered(pattern, flags), re.compile(pattern, flags)
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain.finditer(text)], (pattern, text)
