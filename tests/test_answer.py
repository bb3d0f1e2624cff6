"""Option-letter extraction from real-looking model outputs in six languages, and hostile inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.letters import PARSER_PROTOCOL, LetterParse, extract_letter

OPTIONS = ["Opens settings", "Deletes the item", "Shares the page", "Starts a search"]
OPTIONS_ZH = ["打开设置", "删除项目", "分享页面", "开始搜索"]

# (language, response, expected letter, rule that must decide)
PARSED = [
    ("en", "B", "B", "bare-letter"),
    ("en", "(B)", "B", "bare-letter"),
    ("en", "B.", "B", "bare-letter"),
    ("en", "b)", "B", "bare-letter"),
    ("en", "**B**", "B", "bare-letter"),
    ("en", "Ｂ", "B", "bare-letter"),
    ("en", "（Ｃ）", "C", "bare-letter"),
    ("en", "Answer: B.", "B", "marker"),
    ("en", "The correct answer is: B", "B", "marker"),
    ("en", "The answer is (C).", "C", "marker"),
    ("en", "answer: b", "B", "marker"),
    ("en", "The correct option is D", "D", "marker"),
    ("en", "Let me look at the screen. The gear opens settings, so the answer is A", "A", "marker"),
    ("en", "Reasoning: option A looks plausible but it is wrong.\nAnswer: B", "B", "marker"),
    ("en", "At first the answer seems to be A. Looking again at the toolbar, the answer is C.", "C", "marker"),
    ("en", "Answer: B\n\nExplanation: A is wrong because it deletes the item.", "B", "marker"),
    ("en", "Step 1: look at A. Step 2: compare with C. Final Answer: (D)", "D", "final-claim"),
    ("en", "<answer>D</answer>", "D", "final-claim"),
    ("en", "<think>A or B? The icon is a gear.</think><answer>A</answer>", "A", "final-claim"),
    ("en", "<answer>(B) Deletes the item</answer>", "B", "final-claim"),
    ("en", '{"thought": "gear icon", "answer": "A"}', "A", "final-claim"),
    ("en", '```json\n{"answer": "C"}\n```', "C", "final-claim"),
    ("en", "Therefore \\boxed{C}", "C", "final-claim"),
    ("en", "Opens settings", "A", "option-text"),
    ("en", "Deletes the item.", "B", "option-text"),
    ("en", "It shares the page (C).", "C", "option-text"),
    ("en", "A. Opens settings", "A", "leading-label"),
    ("en", "(C) Shares the page", "C", "leading-label"),
    ("en", "A is correct", "A", "lone-letter"),
    ("en", "I think C is right", "C", "lone-letter"),
    ("zh", "答案：B", "B", "marker"),
    ("zh", "正确答案是 D", "D", "marker"),
    ("zh", "答案是选项C。", "C", "marker"),
    ("zh", "选项B", "B", "lone-letter"),
    ("zh", "我选C", "C", "lone-letter"),
    ("zh", "D：开始搜索", "D", "leading-label"),
    ("zh", "首先看A选项，它是错的。最终答案：B", "B", "final-claim"),
    ("fr", "La réponse est D", "D", "marker"),
    ("fr", "La bonne réponse est (B).", "B", "marker"),
    ("fr", "Réponse : C", "C", "marker"),
    ("fr", "L'option A ouvre les paramètres, donc la réponse finale est A.", "A", "final-claim"),
    ("ru", "Ответ: C", "C", "marker"),
    ("ru", "Ответ: В", "B", "marker"),  # Cyrillic capital Ve, the look-alike of Latin B
    ("ru", "Правильный ответ — D", "D", "marker"),
    ("ru", "Ответ: вариант C", "C", "marker"),
    ("ja", "答えはAです", "A", "marker"),
    ("ja", "正解は B です", "B", "marker"),
    ("ja", "答え：C", "C", "marker"),
    ("ja", "歯車アイコンは設定を開くので、最終回答：A", "A", "final-claim"),
    ("th", "คำตอบ: C", "C", "marker"),
    ("th", "คำตอบที่ถูกต้องคือ B", "B", "marker"),
    ("th", "คำตอบคือ ข้อ D", "D", "marker"),
]


@pytest.mark.parametrize("lang, text, letter, rule", PARSED, ids=[f"{p[0]}-{i}" for i, p in enumerate(PARSED)])
def test_letter_is_recovered(lang, text, letter, rule):
    got = extract_letter(text, OPTIONS_ZH if lang == "zh" else OPTIONS)
    assert got == LetterParse(letter, "parsed", rule)


def test_option_text_in_another_script_and_the_longest_containing_option():
    assert extract_letter("分享页面", OPTIONS_ZH) == LetterParse("C", "parsed", "option-text")
    options = ["Settings", "Open settings", "Close", "Search"]
    assert extract_letter("I would open settings", options) == LetterParse("B", "parsed", "option-text")


FAILURES = [
    ("", "empty", "empty"),
    ("   \n\t", "empty", "empty"),
    (None, "empty", "empty"),
    ("A button appears at the top", "malformed", "no-letter"),
    ("I", "malformed", "no-letter"),
    ("I cannot tell from the screenshot.", "malformed", "no-letter"),
    ("Answer: a button", "malformed", "no-letter"),
    ("E", "malformed", "no-letter"),
    ("The item gets deleted", "malformed", "no-letter"),
    ("A or B", "malformed", "ambiguous"),
    ("A/B", "malformed", "ambiguous"),
    ("Answer: A or B", "malformed", "ambiguous"),
    ("答案：A或B", "malformed", "ambiguous"),
    ("Ответ: A или C", "malformed", "ambiguous"),
    ("คำตอบ: A หรือ B", "malformed", "ambiguous"),
    ("Both A and C are possible", "malformed", "ambiguous"),
    ("Option A or option B", "malformed", "ambiguous"),
    ("Option A shows a gear. Option B shows a bin.", "malformed", "ambiguous"),
    ("Final answer: A. Final answer: B", "malformed", "conflicting-final"),
    ("<answer>A</answer> ... <answer>C</answer>", "malformed", "conflicting-final"),
    ('{"answer": "B"} Final answer: D', "malformed", "conflicting-final"),
    ("A. x B. y C. z D. w", "malformed", "ambiguous"),
]


@pytest.mark.parametrize("text, status, rule", FAILURES)
def test_failures_are_classified_not_guessed(text, status, rule):
    assert extract_letter(text, OPTIONS) == LetterParse(None, status, rule)


def test_pronoun_i_and_article_a_are_not_letters_even_when_allowed():
    assert extract_letter("I would choose B", letters="ABCDEFGHIJ").letter == "B"
    assert extract_letter("A gear icon, so: J", letters="ABCDEFGHIJ").letter == "J"


def test_non_text_and_protocol_id():
    assert extract_letter(b"B") == LetterParse(None, "malformed", "not-text")  # type: ignore[arg-type]
    assert PARSER_PROTOCOL == "mcq-letter-v2"


# ---- property tests -------------------------------------------------------------------

MARKED_TEMPLATES = ["Answer: {}", "The correct answer is: {}", "The answer is ({}).", "答案：{}", "正确答案是 {}",
                    "Ответ: {}", "La réponse est {}", "答えは{}です", "คำตอบ: {}", "<answer>{}</answer>",
                    "Final answer: ({})", '{{"answer": "{}"}}', "\\boxed{{{}}}", "選択肢の中で、最終回答：{}"]
BARE_TEMPLATES = ["{}", "({})", "{}.", "**{}**", "[{}]", "{})", " {} \n", "【{}】"]
REASONING = ["", "Let me think.\n", "好的。", "Option A shows a gear and option B a bin; looking closer at C and D.\n",
             "Вариант A неверен, B тоже.\n", "A button appears on the right. "]


@given(letter=st.sampled_from("ABCD"), template=st.sampled_from(MARKED_TEMPLATES), prefix=st.sampled_from(REASONING))
def test_marked_letter_wins_over_reasoning(letter, template, prefix):
    got = extract_letter(prefix + template.format(letter), OPTIONS)
    assert (got.letter, got.status) == (letter, "parsed")


@given(letter=st.sampled_from("ABCDabcd"), template=st.sampled_from(BARE_TEMPLATES), fullwidth=st.booleans())
def test_bare_letter_in_any_wrapper(letter, template, fullwidth):
    if fullwidth:
        letter = chr(ord(letter) + 0xFEE0)
    got = extract_letter(template.format(letter), OPTIONS)
    assert got.status == "parsed" and got.letter == chr(ord(letter) - 0xFEE0 if fullwidth else ord(letter)).upper()


def _check(got: LetterParse) -> None:
    assert isinstance(got, LetterParse) and got.status in {"parsed", "malformed", "empty"}
    assert (got.letter is None) == (got.status != "parsed")
    assert got.letter is None or got.letter in "ABCD"
    assert isinstance(got.rule, str) and got.rule and not got.rule.startswith("parser-error")


any_char = st.characters(blacklist_categories=("Cs",))  # every code point a str can hold, controls included
mixed = st.sampled_from(["答案", "Ответ", "คำตอบ", "réponse", "answer", "A", "B", "or", "或", "\x00", "\u200b",
                         "<answer>", "</answer>", "{", "}", '"answer":', "\\boxed{", "(", ")", " ", "\n", "Ｃ", "В"])


@settings(max_examples=400)
@given(st.text(alphabet=any_char, max_size=500), st.lists(st.text(alphabet=any_char, max_size=30), max_size=5))
def test_arbitrary_text_never_raises(text, options):
    _check(extract_letter(text, options))


@settings(max_examples=300)
@given(st.lists(mixed, max_size=80).map("".join))
def test_marker_soup_never_raises(text):
    _check(extract_letter(text, OPTIONS))


@settings(max_examples=10, deadline=None)
@given(chunk=st.sampled_from(["lorem ipsum ", "Answer " + " " * 500, "A or ", "<answer>", "\\boxed{", "答案是",
                              "(" * 50, "\x1b[31m\x00", "ab" * 1000]), times=st.integers(1, 30000))
def test_huge_outputs_are_fast_and_safe(chunk, times):
    _check(extract_letter(chunk * times + " Final answer: C", OPTIONS))


def test_huge_output_keeps_the_final_answer_at_the_end():
    assert extract_letter("\x00\x1b[31m" * 10000 + "Answer: C") == LetterParse("C", "parsed", "marker")
    assert extract_letter("Answer " * 20000) == LetterParse(None, "malformed", "no-letter")  # no word split into "A"
    assert extract_letter("lorem ipsum " * 100000).status == "malformed"
