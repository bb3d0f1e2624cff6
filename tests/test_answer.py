"""Option-letter extraction from real-looking model outputs, and official option parsing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_tasks.mpr.answer import LetterParse, extract_letter, normalise_answer, split_inline_options

OPTIONS = ["Opens settings", "Deletes the item", "Shares the page", "Starts a search"]

CASES = [
    ("B", "B"), ("(B)", "B"), ("b)", "B"), ("B.", "B"), ("**B**", "B"), ("Ｂ", "B"), ("（Ｃ）", "C"),
    ("Answer: B.", "B"), ("The correct answer is: B", "B"), ("The answer is (C).", "C"),
    ("Let me look at the screen. The gear opens settings, so the answer is A", "A"),
    ("答案：B", "B"), ("正确答案是 D", "D"), ("选项B", "B"), ("答えはAです", "A"),
    ("Ответ: C", "C"), ("Ответ: В", "B"), ("La réponse est D", "D"), ("คำตอบ: C", "C"),
    ("<answer>D</answer>", "D"), ('{"thought": "gear", "answer": "A"}', "A"),
    ("Opens settings", "A"), ("A. Opens settings", "A"), ("(C) Shares the page", "C"), ("D：开始搜索", "D"),
    ("Deletes the item.", "B"), ("I think C is right", "C"),
    ("Reasoning: option A looks plausible but it is wrong.\nAnswer: B", "B"),
]


@pytest.mark.parametrize("text, letter", CASES)
def test_letter_is_recovered(text, letter):
    got = extract_letter(text, OPTIONS)
    assert (got.letter, got.status) == (letter, "parsed"), got


@pytest.mark.parametrize(
    "text, status",
    [("", "empty"), ("   \n", "empty"), (None, "empty"), ("A button appears at the top", "malformed"),
     ("A or B", "malformed"), ("Answer: A or B", "malformed"), ("答案：A或B", "malformed"), ("I", "malformed"),
     ("I cannot tell from the screenshot.", "malformed"), ("Both A and C are possible", "malformed")],
)
def test_failures_are_classified_not_guessed(text, status):
    got = extract_letter(text, OPTIONS)
    assert got.letter is None and got.status == status, got


TEMPLATES = ["{}", "({})", "{}.", "Answer: {}", "The correct answer is: {}", "答案：{}", "Ответ: {}",
             "คำตอบ: {}", "<answer>{}</answer>", "**{}**", "Final answer: ({})"]


@given(letter=st.sampled_from("ABCD"), template=st.sampled_from(TEMPLATES), prefix=st.sampled_from(["", "Let me think.\n", "好的。"]))
def test_templated_letters_round_trip(letter, template, prefix):
    got = extract_letter(prefix + template.format(letter), OPTIONS)
    assert got.letter == letter and got.status == "parsed"


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises(text):
    got = extract_letter(text, OPTIONS)
    assert isinstance(got, LetterParse) and got.status in {"parsed", "malformed", "empty"}
    assert (got.letter is None) == (got.status != "parsed")
    assert got.letter is None or got.letter in "ABCD"


def test_huge_and_control_character_outputs_do_not_crash():
    assert extract_letter("\x00\x1b[31m" * 10000 + "Answer: C").letter == "C"
    assert extract_letter("lorem ipsum " * 100000).status == "malformed"


LABELS = ["{l}: ", "{l}. ", "{l}：", "{l}、", "({l}) ", "\n{l}. "]
word = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lo"), max_codepoint=0x9FFF), min_size=1, max_size=12)


@given(stem=word, options=st.lists(word, min_size=4, max_size=4), label=st.sampled_from(LABELS))
def test_inline_options_round_trip(stem, options, label):
    question = stem + "? " + " ".join(label.format(l=l) + o for l, o in zip("ABCD", options))
    assert split_inline_options(question) == (stem + "?", options)


def test_inline_options_in_cjk_with_fullwidth_colon():
    assert split_inline_options("齿轮图标的作用是什么？A：打开设置 B：删除项目 C：分享页面 D：开始搜索") == (
        "齿轮图标的作用是什么？", ["打开设置", "删除项目", "分享页面", "开始搜索"])


@pytest.mark.parametrize("bad", ["Which? A: x B: y C: z", "A: x B: y C: z D: w", "Which? A: x B: C: z D: w"])
def test_inline_options_errors(bad):
    with pytest.raises(ValueError):
        split_inline_options(bad)


@pytest.mark.parametrize("raw, letter", [("C", "C"), ("c", "C"), ("(C)", "C"), ("Ｃ", "C"), ("C. Shares the page", "C"), ("B：删除", "B")])
def test_official_answers_normalise(raw, letter):
    assert normalise_answer(raw) == letter


@pytest.mark.parametrize("bad", ["", "E", "Shares the page", "AB"])
def test_bad_official_answers_raise(bad):
    with pytest.raises(ValueError):
        normalise_answer(bad)
