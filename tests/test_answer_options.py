"""Official MPR-GUI questions: inline options split back out, answers normalised to a letter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_tasks.mpr.options import normalise_answer, split_inline_options, split_inline_options_ordered

# Label formats seen in the official files (and close variants): inline or one per line.
LABELS = ["{l}: ", "{l}. ", "{l}：", "{l}、", "({l}) ", "（{l}）", "{l}) ", "{l}．"]
JOINERS = [" ", "\n", "  ", "\n\n"]
# Words in scripts of the six languages, without capital Latin letters (which could look like labels).
word = st.text(
    alphabet=st.characters(whitelist_categories=("Ll", "Lo", "Nd"), max_codepoint=0x9FFF),
    min_size=1, max_size=10,
)
phrase = st.lists(word, min_size=1, max_size=4).map(" ".join)


@given(stem=phrase, end=st.sampled_from(["?", "？", ":", "", "。"]), options=st.lists(phrase, min_size=4, max_size=4),
       label=st.sampled_from(LABELS), joiner=st.sampled_from(JOINERS))
def test_inline_options_round_trip(stem, end, options, label, joiner):
    question = stem + end + joiner + joiner.join(label.format(l=l) + o for l, o in zip("ABCD", options))
    assert split_inline_options(question) == (stem + end, options)


@pytest.mark.parametrize(
    "question, stem, options",
    [
        ("齿轮图标的作用是什么？A：打开设置 B：删除项目 C：分享页面 D：开始搜索",
         "齿轮图标的作用是什么？", ["打开设置", "删除项目", "分享页面", "开始搜索"]),
        ("Что делает значок?\nA. Открывает настройки\nB. Удаляет\nC. Делится\nD. Ищет",
         "Что делает значок?", ["Открывает настройки", "Удаляет", "Делится", "Ищет"]),
        # the stem holds a label-like "A." (abbreviation): the last A that leads to B, C, D is taken
        ("Which U.S.A. app is open? A. Maps B. Mail C. Photos D. Notes", "Which U.S.A. app is open?",
         ["Maps", "Mail", "Photos", "Notes"]),
        # option D ends with a label-like "D.": it stays in the option text
        ("Which vitamin? A: Vitamin A B: Vitamin B C: Vitamin C D: Vitamin D.", "Which vitamin?",
         ["Vitamin A", "Vitamin B", "Vitamin C", "Vitamin D."]),
        # another label style inside the stem does not mix with the options' style
        ("Press key A: what opens? A. Settings B. Mail C. Photos D. Notes", "Press key A: what opens?",
         ["Settings", "Mail", "Photos", "Notes"]),
    ],
)
def test_inline_options_examples(question, stem, options):
    assert split_inline_options(question) == (stem, options)


@pytest.mark.parametrize(
    "bad, why",
    [
        ("Which? A: x B: y C: z", "labels seen: ['A', 'B', 'C']"),
        ("A: x B: y C: z D: w", "labels seen"),  # no stem
        ("Which? A: x B: C: z D: w", "labels seen"),  # empty option B
        ("Which? A: x B: y B: z D: w", "labels seen"),  # B twice, no D
        ("Which one is right?", "labels seen: none"),
    ],
)
def test_inline_options_errors(bad, why):
    with pytest.raises(ValueError, match=r"A, B, C, D in order") as err:
        split_inline_options(bad)
    assert why in str(err.value)


def test_options_written_out_of_order_keep_their_labels():
    # 2 of 13,470 official rows list their options C, A, B, D (OFFICIAL_FORMATS.md): each text stays with its label
    question = "Which quadrant holds the clock?\nOptions:\nC: Lower-left\nA: Upper-left\nB: Upper-right\nD: Lower-right"
    assert split_inline_options_ordered(question) == (
        "Which quadrant holds the clock?\nOptions:", ["Upper-left", "Upper-right", "Lower-left", "Lower-right"], "CABD")
    assert split_inline_options("Which? B: y A: x C: z D: w") == ("Which?", ["x", "y", "z", "w"])


@pytest.mark.parametrize(
    "raw, letter",
    [("C", "C"), ("c", "C"), ("(C)", "C"), ("Ｃ", "C"), ("（Ｃ）", "C"), (" C ", "C"), ("C. Shares the page", "C"),
     ("C: Shares", "C"), ("B：删除", "B"), ("D、搜索", "D"), ("C Shares the page", "C")],
)
def test_official_answers_normalise(raw, letter):
    assert normalise_answer(raw) == letter


@pytest.mark.parametrize("bad", ["", "E", "Shares the page", "AB", "a cat", "or D", None, 3])
def test_bad_official_answers_raise(bad):
    with pytest.raises(ValueError, match="not an option letter"):
        normalise_answer(bad)


@given(letter=st.sampled_from("ABCDabcd"), wrap=st.sampled_from(["{}", "({})", "{}. text", "{}：文字", "[{}]"]))
def test_answer_round_trip(letter, wrap):
    assert normalise_answer(wrap.format(letter)) == letter.upper()
