"""Canonical MPR schema: constants, MPRDoc rows, DataError naming file, row and field."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.errors import DataError
from gui_tasks.mpr.schema import DIMENSIONS, FPR_WEIGHTS, LANGS, WEIGHTS, MPRDoc, validate_row


def _doc(**changes) -> MPRDoc:
    base = dict(id="synth-au-0000", lang="en", dimension="AU", question="What happens?", options=("a", "b", "c", "d"),
                answer="B", images=("/tmp/x.png",), source="synthetic", meta={"scene_id": "synth-au-0000"})
    return MPRDoc(**{**base, **changes})


def test_constants_match_the_paper_and_the_metrics_package():
    assert LANGS == ("en", "zh", "fr", "ru", "ja", "th")
    assert DIMENSIONS == ("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI")
    assert dict(WEIGHTS) == {"AU": 1, "AP": 1, "WF": 1, "WI": 1, "AEL": 1, "REL": 1, "RI": 1.5, "SI": 2}
    assert FPR_WEIGHTS is WEIGHTS
    from gui_metrics import mpr as metrics

    assert metrics.DIMENSIONS == DIMENSIONS and dict(metrics.FPR_WEIGHTS) == dict(WEIGHTS)


def test_mprdoc_row_is_canonical_and_json_ready():
    doc = _doc()
    row = doc.to_row()
    validate_row(row, file="x.jsonl", row_index=0)
    assert isinstance(row["options"], list) and isinstance(row["images"], list)
    assert json.loads(row["meta"]) == {"scene_id": "synth-au-0000"}
    assert json.loads(json.dumps(row)) == row
    with pytest.raises(AttributeError):
        doc.answer = "C"  # frozen


BAD_VALUES = {"id": "", "question": "  ", "lang": "de", "dimension": "XYZ", "options": ["a", "b"], "answer": "E",
              "images": [], "source": "web", "meta": "{not json"}


@pytest.mark.parametrize("field", sorted(BAD_VALUES))
def test_bad_rows_name_file_row_and_field(field):
    bad = {**_doc().to_row(), field: BAD_VALUES[field]}
    with pytest.raises(DataError) as err:
        validate_row(bad, file="x.jsonl", row_index=5)
    e = err.value
    assert (e.file, e.row, e.field) == ("x.jsonl", 5, field)
    assert "x.jsonl" in str(e) and "row 5" in str(e) and repr(field) in str(e)
    assert isinstance(e, ValueError)


def test_meta_must_encode_an_object():
    with pytest.raises(DataError, match="'meta'"):
        validate_row({**_doc().to_row(), "meta": "[1, 2]"}, file="f", row_index=0)


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(sorted(BAD_VALUES)),
       value=st.one_of(st.none(), st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=5)))
def test_any_wrong_type_or_value_raises_dataerror_for_that_field(field, value):
    row = {**_doc().to_row(), field: value}
    try:
        validate_row(row, file="f.jsonl", row_index=2)
    except DataError as e:
        assert e.field == field and e.row == 2
    else:  # only values that are valid for the field pass
        if field == "lang":
            assert value in LANGS
        elif field == "dimension":
            assert value in DIMENSIONS
        elif field == "answer":
            assert value in tuple("ABCD")
        elif field in ("id", "question"):
            assert isinstance(value, str) and value.strip()
        elif field == "meta":
            assert isinstance(json.loads(value), dict)
        else:
            raise AssertionError(f"{field}={value!r} accepted")
