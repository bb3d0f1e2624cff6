"""The thinking-era families (issue 51, item 5) and where each family's authors read a reasoning model's answer.

``answer_after_reasoning`` is set per family from its authors' code (docs/grounding_families.md, "Thinking models");
the ``official`` reader receives the whole text and cuts where its authors cut.
"""

from __future__ import annotations

import re
from pathlib import Path

from gui_core.family import FAMILIES, grounding_families
from gui_core.grounding import parse_point

DOC = (Path(__file__).resolve().parents[1] / "docs" / "grounding_families.md").read_text(encoding="utf-8")
TC = '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [%d, %d]}}\n</tool_call>'


def _doc_list(label: str) -> set[str]:
    """The family names in the "Thinking models" section's bullet that starts with ``label``."""
    section = DOC.split("## Thinking models", 1)[1].split("\n## ", 1)[0]
    bullet = section.split(f"- **{label}**", 1)[1].split("\n- **", 1)[0]
    return set(re.findall(r"`([a-z0-9_]+)`", bullet)) & set(FAMILIES.names())


def test_the_docs_name_each_family_read_over_the_whole_text_and_the_records_agree():
    whole = {f.name for f in FAMILIES.values() if not f.answer_after_reasoning}
    assert whole == _doc_list("False")
    assert {"infigui_g1", "qwen3_vl", "holo2", "holo3"} <= _doc_list("True")
    assert not whole & _doc_list("True")
    # a family whose authors publish no reader reads after the reasoning (the benchmark's rule)
    assert all(f.answer_after_reasoning for f in grounding_families() if f.official_reader is None)


def test_gui_owl_1_5_officially_takes_the_last_point_of_the_whole_text():
    text = "<think>the icon at (10, 12)</think>\n" + TC % (523, 287) + "\nor (30, 40)"
    assert parse_point(text, "gui_owl_1_5").point == (30.0, 40.0)
    assert parse_point(text, "gui_owl_1_5", "benchmark").point == (523.0, 287.0)
    missing = parse_point("I cannot find it", "gui_owl_1_5")
    assert missing.status == "malformed" and missing.point == (0.0, 0.0)  # the script's click (0, 0)


def test_mai_ui_officially_reads_its_reasoning_first():
    text = '<grounding_think>the [10,20] toolbar</grounding_think>\n<answer>\n{"coordinate": [523,287]}\n</answer>'
    assert parse_point(text, "mai_ui").point == (10.0, 20.0)
    assert parse_point(text, "mai_ui", "benchmark").point == (523.0, 287.0)
    assert parse_point('{"coordinate": [1,2]}\n[523,287]', "mai_ui").point == (1.0, 2.0)  # cut after the last "}"
    assert parse_point('<answer>{"coordinate": [523, 287]}</answer>', "mai_ui").status == "malformed"  # no spaces


def test_holo2_reads_after_the_first_closing_tag_and_holo3_after_the_last():
    text = '<think>x</think>{"x": 523, "y": 287}</think>{"x": 1, "y": 2}'
    assert parse_point(text, "holo2").status == "malformed"
    assert parse_point(text, "holo3").point == (1.0, 2.0)
    for fam in ("holo2", "holo3"):
        assert parse_point('{"x": 1001, "y": 2}', fam).status == "malformed"  # le=1000
        assert parse_point('<think>{"x": 1, "y": 2}</think>\n{"x": 523, "y": 287}', fam).point == (523.0, 287.0)
