"""GUI Knowledge Bench answer parsing: the JSON of appendix A.3 and the fallbacks real models need."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_tasks.knowledge.answer import YES_NO, parse_answer

MC, YN = "multiple_choice", "yes_or_no"


@pytest.mark.parametrize("text, expected, rule", [
    ('{"thought": "The gear opens settings.", "answer": "A"}', "A", "json"),
    ('```json\n{"thought": "x", "answer": "C"}\n```', "C", "json"),
    ('Sure!\n```\n{"thought": "x", "answer": "D"}\n```\nHope this helps.', "D", "json"),
    ('{"thought": "x", "answer": "B"} I picked B because...', "B", "json"),
    ("{'thought': 'single quotes', 'answer': 'B'}", "B", "json"),
    ('{"thought": "broken json, "answer": "C"', "C", "answer-pair"),
    ('{"thought": "a {nested} brace", "answer": "(b)"}', "B", "json"),
    ("B", "B", "text:bare-letter"),
    ("**C**", "C", "text:bare-letter"),
    ("The answer is D.", "D", "text:marker"),
])
def test_multiple_choice_forms(text, expected, rule):
    got = parse_answer(text, MC)
    assert (got.answer, got.status, got.rule) == (expected, "parsed", rule)


def test_seven_desktop_options_accept_letters_up_to_g():
    assert parse_answer('{"answer": "G"}', MC, letters="ABCDEFG").answer == "G"
    assert parse_answer('{"answer": "G"}', MC, letters="ABCD").status == "malformed"


@pytest.mark.parametrize("text, expected", [
    ('{"thought": "The toggle is green.", "answer": "yes"}', "yes"),
    ('{"thought": "x", "answer": "No"}', "no"),
    ('{"thought": "x", "answer": "UNKNOWN"}', "unknown"),
    ('```json\n{"answer": "Unknown"}\n```', "unknown"),
    ("{'answer': 'YES'}", "yes"),
    ("Yes", "yes"),
    ("no.", "no"),
    ("I think yes, no doubt. Answer: no", "no"),
    ('{"answer": true}', "yes"),
])
def test_yes_no_forms(text, expected):
    got = parse_answer(text, YN)
    assert got.status == "parsed" and got.answer == expected


@pytest.mark.parametrize("text, qtype, status", [
    (None, MC, "empty"),
    ("   ", YN, "empty"),
    ("I cannot tell.", MC, "malformed"),
    ("yes or no, hard to say", YN, "malformed"),
    ('{"thought": "x", "answer": "A/B/C/D"}', MC, "malformed"),
    ('{"thought": "x", "answer": "maybe"}', YN, "malformed"),
    ("B", "free_text", "malformed"),
])
def test_unreadable_answers_are_format_errors(text, qtype, status):
    got = parse_answer(text, qtype)
    assert got.status == status and got.answer is None


def test_last_json_answer_wins_when_a_model_corrects_itself():
    text = '{"thought": "first", "answer": "A"}\nWait, re-checking.\n{"thought": "second", "answer": "C"}'
    assert parse_answer(text, MC).answer == "C"


def test_answer_after_think_block():
    assert parse_answer('<think>{"answer": "A"} maybe</think>{"answer": "B"}', MC).answer == "B"


_thought = st.text(alphabet=st.characters(blacklist_characters="{}'\"\\`", blacklist_categories=("Cs",)), max_size=80)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=300), st.binary(max_size=50).map(lambda b: b.decode("latin-1"))),
       st.sampled_from([MC, YN]), st.sampled_from(["ABCD", "ABCDEFG"]))
def test_never_raises_and_classifies(text, qtype, letters):
    got = parse_answer(text, qtype, letters=letters)
    assert got.status in {"parsed", "malformed", "empty"}
    assert (got.answer is not None) == (got.status == "parsed")
    if got.answer is not None:
        assert got.answer in (YES_NO if qtype == YN else tuple(letters))


@settings(max_examples=100, deadline=None)
@given(_thought, st.sampled_from("ABCDEFG"), st.sampled_from(["plain", "fenced", "trailing", "python"]))
def test_json_answer_round_trips_in_every_wrapping(thought, letter, wrap):
    obj = {"thought": thought, "answer": letter}
    body = repr(obj) if wrap == "python" else json.dumps(obj, ensure_ascii=False)
    text = {"plain": body, "fenced": f"```json\n{body}\n```", "trailing": f"{body}\nThat is my answer.", "python": body}[wrap]
    assert parse_answer(text, MC, letters="ABCDEFG").answer == letter


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(YES_NO), st.lists(st.booleans(), min_size=7, max_size=7), _thought)
def test_yes_no_words_in_any_case(word, upper, thought):
    cased = "".join(c.upper() if u else c for c, u in zip(word, upper))
    assert parse_answer(json.dumps({"thought": thought, "answer": cased}), YN).answer == word
    assert parse_answer(cased, YN).answer == word
