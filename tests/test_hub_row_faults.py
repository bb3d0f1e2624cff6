"""One hub row, one fault (issue 54 item 5): the hub converters (gui_tasks/grounding/hub_layout.py) meet a hostile
parquet row (a '/' in a one-file name, a name too long, a NUL, JSON nested 100,000 deep, bytes that are not UTF-8,
a screenshot name two rows give with other bytes) as a DataError naming file, row and field; with
GUI_EVAL_SKIP_BAD_ROWS=1 the row is skipped, counted and announced, and the other rows are converted."""

from __future__ import annotations

import io
import json

import pytest
from hub_standin import osworld_g_rows, parquet_bytes, png, screenspot_pro_rows

from gui_core.errors import DataError
from gui_tasks.grounding.hub_layout import convert_osworld_g, convert_screenspot_pro


def _osworld(rows: list[dict], tmp_path, data: bytes | None = None):
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "x.parquet").write_bytes(data if data is not None else parquet_bytes(rows))
    return snap


def _non_utf8_parquet(rows: list[dict], bad_row: int, column: str) -> bytes:
    """The rows as parquet, ``column`` a string column whose value in ``bad_row`` is bytes that are not UTF-8 (what
    a hostile file may hold: pyarrow refuses to build such a column from Python values)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(parquet_bytes(rows)))
    raw = [r[column].encode("utf-8") if j != bad_row else b"\xff\xfeclick" for j, r in enumerate(rows)]
    binary = pa.array(raw, type=pa.binary())
    forged = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())
    table = table.set_column(table.schema.get_field_index(column), column, forged)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _deep(rows):
    for r in rows:
        r["extra"] = "[]"
    rows[2]["extra"] = "[" * 100_000 + "]" * 100_000
    return rows


def _field(rows, row, key, value):
    rows[row][key] = value
    return rows


CASES = {
    "nul": (lambda rows: _field(rows, 2, "image_path", "s\x002.png"), 2, "image_path", "NUL"),
    "too long": (lambda rows: _field(rows, 2, "image_path", "s" * 300 + ".png"), 2, "image_path", "too long"),
    "leaves the folder": (lambda rows: _field(rows, 2, "image_path", "../../etc/s2.png"), 2, "image_path",
                          "relative path inside"),
    "deep json": (_deep, 2, "extra", "nested deeper than 64"),
    "other bytes under one name": (lambda rows: _field(rows, 3, "image_path", "s1.png"), 3, "image",
                                   "other bytes than the one row 0"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_osworld_g_row_is_named_by_file_row_and_field(tmp_path, case, monkeypatch):
    monkeypatch.delenv("GUI_EVAL_SKIP_BAD_ROWS", raising=False)
    forge, row, field, said = CASES[case]
    snap = _osworld(forge(osworld_g_rows()), tmp_path)
    with pytest.raises(DataError) as err:
        convert_osworld_g(snap, tmp_path / "out")
    assert (err.value.file, err.value.row, err.value.field) == (str(snap / "x.parquet"), row, field)
    assert said in str(err.value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_with_skip_bad_rows_a_hostile_row_is_skipped_counted_and_announced(tmp_path, case, monkeypatch, capsys):
    monkeypatch.setenv("GUI_EVAL_SKIP_BAD_ROWS", "1")
    forge, row, field, _said = CASES[case]
    rows = forge(osworld_g_rows())
    snap = _osworld(rows, tmp_path)
    assert convert_osworld_g(snap, tmp_path / "out") == 1
    kept = json.loads((tmp_path / "out" / "OSWorld-G.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in kept] == [r["id"] for j, r in enumerate(rows) if j != row]
    assert sorted(p.name for p in (tmp_path / "out" / "images").iterdir()) == ["s1.png", "s2.png"]
    assert (tmp_path / "out" / "images" / "s1.png").read_bytes() == rows[0]["image"]["bytes"]
    err = capsys.readouterr().err
    assert "skipped 1 bad row(s)" in err and f"row {row}" in err and field in err
    assert not list(tmp_path.glob("etc*")) and not (tmp_path / "s2.png").exists()


def test_text_that_is_not_utf8_is_that_rows_error(tmp_path, monkeypatch, capsys):
    rows = osworld_g_rows()
    snap = _osworld(rows, tmp_path, _non_utf8_parquet(rows, 1, "instruction"))
    monkeypatch.delenv("GUI_EVAL_SKIP_BAD_ROWS", raising=False)
    with pytest.raises(DataError) as err:
        convert_osworld_g(snap, tmp_path / "out")
    assert (err.value.row, err.value.field) == (1, "instruction") and "not UTF-8" in str(err.value)
    monkeypatch.setenv("GUI_EVAL_SKIP_BAD_ROWS", "1")
    assert convert_osworld_g(snap, tmp_path / "out2") == 1
    kept = json.loads((tmp_path / "out2" / "OSWorld-G.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in kept] == ["g1", "g3", "g4"]


def test_binary_text_that_is_not_utf8_is_named_and_utf8_bytes_are_read_as_text(tmp_path, monkeypatch):
    monkeypatch.delenv("GUI_EVAL_SKIP_BAD_ROWS", raising=False)
    rows = osworld_g_rows()
    for r in rows:
        r["image_path"] = r["image_path"].encode("utf-8")
    snap = _osworld(rows, tmp_path)
    convert_osworld_g(snap, tmp_path / "ok")
    assert [r["image_path"] for r in json.loads((tmp_path / "ok" / "OSWorld-G.json").read_text())][:2] == \
        ["s1.png", "s1.png"]
    rows[3]["image_path"] = b"s\xff.png"
    (snap / "x.parquet").write_bytes(parquet_bytes(rows))
    with pytest.raises(DataError) as err:
        convert_osworld_g(snap, tmp_path / "bad")
    assert (err.value.row, err.value.field) == (3, "image_path") and "not UTF-8" in str(err.value)


def test_a_slash_in_a_one_file_name_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("GUI_EVAL_SKIP_BAD_ROWS", raising=False)
    rows = screenspot_pro_rows()
    rows[3]["application"] = "word/../../x"
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "p.parquet").write_bytes(parquet_bytes(rows))
    with pytest.raises(DataError) as err:
        convert_screenspot_pro(snap, tmp_path / "out")
    assert (err.value.row, err.value.field) == (3, "application") and "may hold no '/'" in str(err.value)


def test_rows_sharing_a_screenshot_name_with_the_same_bytes_are_fine(tmp_path, monkeypatch):
    monkeypatch.delenv("GUI_EVAL_SKIP_BAD_ROWS", raising=False)
    rows = osworld_g_rows()
    rows[3]["image"] = {"bytes": rows[0]["image"]["bytes"], "path": "s1.png"}
    rows[3]["image_path"] = "s1.png"
    snap = _osworld(rows, tmp_path)
    assert convert_osworld_g(snap, tmp_path / "out") == 0
    assert len(json.loads((tmp_path / "out" / "OSWorld-G.json").read_text())) == 4
    assert png(1, 1)  # the stand-in's screenshots are real PNGs
