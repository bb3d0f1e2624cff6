"""The fast letter extractors give the same answers as the old ones (issue 21, item 7).

``tests/old_mpr_answer.py`` and ``tests/old_gkb_answer.py`` are the extractors as they were before the speed-up,
verbatim. Every string of the existing answer tests, the adversarial texts of ``parser_inventory`` and 10^4
generated answers read the same with both (letter, status, rule). Speed itself is measured by
``benchmarks/parser_speed.py`` (no timed asserts here).
"""

from __future__ import annotations

import ast
from pathlib import Path

import old_gkb_answer
import old_mpr_answer
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui_tasks.knowledge import answer as gkb_answer
from gui_core import letters as mpr_answer
from gui_tasks.commands.parser_inventory import adversarial_inputs, hostile_numbers

TESTS = Path(__file__).parent
OPTIONS = (None, ["Settings", "Wi-Fi", "Bluetooth", "Display"], ["Open settings", "settings", "Close", "Back"])
LETTERS = ("ABCD", "ABCDEFG", "ABCDEFGHIJ", "AB")


def same(a, b) -> bool:
    return (type(a).__name__, vars(a)) == (type(b).__name__, vars(b))


def check(text, options=None, letters="ABCD") -> None:
    assert same(mpr_answer.extract_letter(text, options, letters), old_mpr_answer.extract_letter(text, options, letters)), text
    for qtype in ("multiple_choice", "yes_or_no"):
        new = gkb_answer.parse_answer(text, qtype, letters=letters, options=options)
        old = old_gkb_answer.parse_answer(text, qtype, letters=letters, options=options)
        assert same(new, old), (qtype, text)


def strings_of(path: Path) -> list[str]:
    """Every string constant in a test module: its answers, options and expectations."""
    return sorted({n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)})


EXISTING = sorted({s for name in ("test_answer.py", "test_gkb_answer.py", "test_answer_options.py", "test_gkb_metrics.py",
                                  "test_mpr_official.py", "test_gkb_official.py", "test_sphinx_official.py")
                   if (TESTS / name).is_file() for s in strings_of(TESTS / name)})


def test_the_existing_cases_are_many():
    assert len(EXISTING) > 300


@pytest.mark.parametrize("options", OPTIONS)
def test_every_existing_test_string_reads_the_same(options):
    for text in EXISTING:
        check(text, options)
        check(text * 3, options, "ABCDEFG")


def test_adversarial_and_hostile_texts_read_the_same():
    for text in [*adversarial_inputs(3000).values(), *adversarial_inputs(45_000).values(), *hostile_numbers(300).values()]:
        check(text, OPTIONS[1])


_WORDS = ["A", "B", "C", "D", "E", "I", "a", "b", "c", "(", ")", "[", "]", ".", ":", "：", ",", "/", " or ", " and ", " ou ",
          " и ", "或", "、", "Answer", "answer: ", "The answer is ", "final answer: ", "Final Answer", "答案", "Ответ: ",
          "option ", "选项", "вариант ", "ข้อ ", "คือ", "is ", " cat", " button", " is correct", "I think ", "\n", "  ", "\t",
          "**", "`", "<answer>", "</answer>", "\\boxed{", "}", "{", '"answer": ', '"', "'", "</think>", "<|begin_of_box|>",
          "<|end_of_box|>", "```json", "```", "yes", "no", "unknown", "True", "А", "В", "С", "Ｂ", "\x1b[1m", "\u200b", "\x00",
          "Settings", "Wi-Fi", "settings", "Open settings", "Display", "é", "ß", "İ", "ﬁ", "x" * 19, " " * 41, "1.", "2)"]


@pytest.mark.slow  # 10^4 answers through four extractors: about 15 s
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(parts=st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=6)), max_size=24),
       options=st.sampled_from(OPTIONS), letters=st.sampled_from(LETTERS))
def test_property_fast_and_old_extractors_agree_on_generated_answers(parts, options, letters):
    check("".join(parts), options, letters)
