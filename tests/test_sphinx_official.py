"""Official-schema SPHINX static material: questions (app_cateory key) and low-level tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_tasks.errors import DataError
from gui_tasks.sphinx.official import load_low_level, load_questions, score_low_level, score_question

FIX = Path(__file__).parent / "fixtures" / "sphinx"


def test_questions_load_with_category_and_score():
    qs = load_questions(FIX / "questions.json")
    assert [q["category"] for q in qs] == ["Tools", "Video"]
    assert score_question(qs[0], "The answer is A") == {"status": "parsed", "correct": True}
    assert score_question(qs[0], "B") == {"status": "parsed", "correct": False}
    assert score_question(qs[1], "Yes, it can.") == {"status": "parsed", "correct": True}
    assert score_question(qs[1], "") == {"status": "empty", "correct": False}
    assert score_question(qs[1], "maybe") == {"status": "malformed", "correct": False}


def test_low_level_grounding_scores_type_element_and_message():
    rows = load_low_level(FIX / "low_level.json")
    assert score_low_level(rows[0], "click [4]")["correct"]
    assert not score_low_level(rows[0], "click [5]")["correct"]
    assert score_low_level(rows[1], "text [4] [Weather]")["correct"]
    assert not score_low_level(rows[1], "text [4] [rain]")["correct"]
    assert score_low_level(rows[1], "??") == {"status": "malformed", "correct": False}


def test_missing_field_names_file_row_and_field(tmp_path):
    p = tmp_path / "q.json"
    row = json.loads((FIX / "questions.json").read_text())[0]
    del row["app_cateory"]
    p.write_text(json.dumps([row]))
    with pytest.raises(DataError, match=r"q.json, row 0, field 'app_cateory'"):
        load_questions(p)
