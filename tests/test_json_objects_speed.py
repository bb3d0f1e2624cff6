"""The token-by-token json_objects finds the same objects as the character-by-character scan it replaced
(tests/old_json_objects.py): every adversarial and hostile text, and generated brace/quote/escape soups."""

from __future__ import annotations

import old_json_objects
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.action_parsers import json_objects
from gui_tasks.commands.parser_inventory import adversarial_inputs, hostile_numbers


def test_adversarial_and_hostile_texts_give_the_same_objects():
    for text in [*adversarial_inputs(3000).values(), *adversarial_inputs(20_000).values(), *hostile_numbers(300).values()]:
        assert json_objects(text) == old_json_objects.json_objects(text)


def test_known_shapes():
    text = 'x "q" } {"a": "}{\\"", "b": {"c": 1}} tail {"d": [1, {"e": 2}]} {"f": "unterminated'
    assert json_objects(text) == old_json_objects.json_objects(text) == [{"a": '}{"', "b": {"c": 1}}, {"d": [1, {"e": 2}]}]
    assert json_objects('{"a": {bad}, "b": {"c": 1}} ') == [{"c": 1}]


_PIECES = st.sampled_from(['{', '}', '"', '\\', '\\"', '"a"', '"a":', '1', ',', ' ', '\n', '[', ']', 'x', '{"POINT": [1, 2]}',
                           '{"a": {', '}}', '"\\\\"', 'null', ':'])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join), st.integers(1, 64))
def test_property_same_objects_on_generated_texts(text, limit):
    assert json_objects(text, limit) == old_json_objects.json_objects(text, limit)
