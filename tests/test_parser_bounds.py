"""Every parser of model output is bounded (issue 21, item 2): unbounded digit runs are never converted, and numbers
that are not finite or lie outside the plausible range (``gui_core.coords.MAX_COORD``) are format errors."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.coords import MAX_COORD
from gui_tasks.commands.parser_inventory import PARSERS, hostile_numbers
from gui_tasks.sphinx.actions import parse_action, repair_action
from gui_tasks.sphinx.official_parse import parse_official_action

HOSTILE = hostile_numbers(5000)


def numbers_in(result):
    """Every int / float anywhere in a parser's result (dataclasses, dicts, lists, tuples)."""
    if isinstance(result, bool):
        return
    if isinstance(result, (int, float)):
        yield result
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            yield from numbers_in(getattr(result, f.name))
    elif isinstance(result, dict):
        for v in result.values():
            yield from numbers_in(v)
    elif isinstance(result, (list, tuple)):
        for v in result:
            yield from numbers_in(v)


def implausible(result) -> list:
    return [v for v in numbers_in(result) if not (math.isfinite(v) and abs(v) <= MAX_COORD)]


# --- the cases of the issue, each failed before -------------------------------------------------------------------

def test_a_4301_digit_element_id_is_a_format_error_not_a_value_error():
    text = "click [" + "1" * 4301 + "]"
    assert parse_action(text) == ("malformed", None)
    assert repair_action(text) == ("malformed", None)
    assert parse_official_action(f"```{text}```") == ("malformed", None)


def test_a_400_digit_coordinate_is_a_format_error_not_inf():
    text = "click [" + "9" * 400 + ",5]"
    assert parse_action(text) == ("malformed", None)
    assert repair_action(text) == ("malformed", None)
    assert parse_official_action(f"```{text}```", by_point=True) == ("malformed", None)


@pytest.mark.parametrize("text", ["click [2000000,5]", "longclick [5,-2000000]", "text [2000000,5] [hi]",
                                  "swipe [1,2] [2000000,5]", "click [1e7,5]"])
def test_a_point_beyond_the_plausible_range_is_a_format_error(text):
    assert parse_action(text) == ("malformed", None)
    assert repair_action(text)[1] is None or "point" not in repair_action(text)[1]


def test_points_and_ids_inside_the_range_still_parse():
    assert parse_action("click [1000000,5]") == ("parsed", {"type": "click", "point": (1000000, 5)})
    assert parse_action("click [12.5, 3]") == ("parsed", {"type": "click", "point": (12.5, 3)})
    assert parse_action("swipe [3] [up]") == ("parsed", {"type": "swipe", "index": 3, "direction": "up"})
    assert repair_action("I click [7] then click [" + "9" * 5000 + "]") == ("parsed", {"type": "click", "index": 7})
    assert parse_official_action("```click [12,34]```", by_point=True) == ("parsed", {"type": "click", "point": (12, 34)})
    assert parse_official_action("```click [1000001,34]```", by_point=True) == ("malformed", None)


def test_gkb_calls_beyond_the_range_are_refused_as_data():
    from gui_core.actions import from_call

    assert from_call("click(point='10 20')", "original_px").point == (10.0, 20.0)
    for bad in ("click(point='2000000 20')", "click(point='" + "9" * 5000 + " 20')"):
        with pytest.raises(ValueError, match="beyond the plausible range"):
            from_call(bad, "original_px")


# --- every parser on every hostile number ------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_parser_reads_hostile_numbers_without_raising_or_yielding_them(name):
    fn = PARSERS[name]
    bad = {}
    for label, text in HOSTILE.items():
        try:
            got = fn(text)
        except Exception as exc:  # noqa: BLE001 - the point of the test
            bad[label] = repr(exc)[:120]
            continue
        if implausible(got):
            bad[label] = implausible(got)
    assert bad == {}


_FRAGMENTS = st.sampled_from(["click [", "text [", "swipe [", "]", "[", ",", " ", "\n", "```", "Action: ",
                              "CLICK <point>[[", "]]</point>", "click(start_box='(", ")')", '{"POINT": [', '{"point_2d": [',
                              "<tool_call>", "</tool_call>", "-", ".", "e", "nan", "inf", "Answer: A", "yes", "(", ")"])
_NUMBERS = st.one_of(st.integers(0, 10).map(lambda k: "9" * (10 ** k % 5001 or 1)),
                     st.integers(-10**7, 10**7).map(str), st.sampled_from(["1" * 4301, "9" * 400, "2000000", "1e999"]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(_FRAGMENTS, _NUMBERS), max_size=14))
def test_property_every_parser_bounded_on_generated_answers(parts):
    text = "".join(parts)
    for name, fn in PARSERS.items():
        assert implausible(fn(text)) == [], (name, text[:200])


def test_reasoning_in_a_script_whose_lower_case_is_longer_keeps_the_action_whole():
    from gui_core.action_parsers import after_reasoning, parse_action

    text = "İstanbul İçin düşünüyorum</THINK>click(start_box='(10,20)')"
    assert after_reasoning(text) == "click(start_box='(10,20)')"  # offsets taken in text.lower() cut 2 characters
    assert parse_action(text, "ui_tars").action.point == (10.0, 20.0)
    assert after_reasoning("a</think>b</thinking>c") == "c" and after_reasoning("no tags") == "no tags"
