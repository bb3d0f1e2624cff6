"""Bounded reading of input files: devices and pipes refused, size and line-length bounds, one JSONL reader."""

from __future__ import annotations

import os

import pytest

from gui_tasks.runs import input_files
from gui_core.errors import DataError
from gui_tasks.runs.input_files import lines, read_json, read_jsonl, read_text


def test_a_link_to_dev_zero_is_refused_unread(tmp_path):
    link = tmp_path / "questions.jsonl"
    os.symlink("/dev/zero", link)
    for read in (read_jsonl, read_text, read_json, lambda p: list(lines(p))):
        with pytest.raises(DataError, match=r"questions\.jsonl: not a regular file \(a device, pipe or socket\)"):
            read(link)


def test_a_pipe_and_a_folder_are_refused(tmp_path):
    fifo = tmp_path / "q.json"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        read_json(fifo)
    with pytest.raises(DataError, match=r"not a regular file \(a folder\)"):
        read_text(tmp_path)


def test_a_file_over_the_size_bound_is_refused_with_its_name(tmp_path):
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 600 + "1]")
    with pytest.raises(DataError, match=r"big\.json: file is larger than the 1,000 bytes bound"):
        read_json(path, max_bytes=1000)
    assert len(read_json(path, max_bytes=2000)) == 601


def test_a_line_over_the_line_bound_is_refused_with_its_number(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"b": "' + "x" * 500 + '"}\n')
    with pytest.raises(DataError, match=r"rows\.jsonl, row 1: line 2 is longer than the 100 bytes bound"):
        read_jsonl(path, max_line=100)
    with pytest.raises(DataError, match=r"file is larger than the 300 bytes bound"):
        read_jsonl(path, max_bytes=300)
    assert [sorted(r) for r in read_jsonl(path)] == [["a"], ["b"]]


def test_the_module_bounds_are_the_defaults(tmp_path, monkeypatch):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n' * 20)
    monkeypatch.setattr(input_files, "MAX_LINE_BYTES", 5)
    with pytest.raises(DataError, match="line 1 is longer than the 5 bytes bound"):
        read_jsonl(path)
    monkeypatch.setattr(input_files, "MAX_LINE_BYTES", 100)
    monkeypatch.setattr(input_files, "MAX_FILE_BYTES", 50)
    with pytest.raises(DataError, match="file is larger than the 50 bytes bound"):
        read_jsonl(path)


def test_jsonl_messages_name_the_line_and_carry_the_hint(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_text('{"a": 1}\n\n{"a": \n')
    with pytest.raises(DataError, match=r"cache\.jsonl, row 2: line 3: invalid JSON \(Expecting value\); delete it"):
        read_jsonl(path, hint="delete it")
    path.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(DataError, match=r"row 1: line 2: not a JSON object$"):
        read_jsonl(path)


def test_absurdly_nested_json_is_a_data_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match=r"deep\.json, field '<file>': invalid JSON \(nested too deeply\)"):
        read_json(path)
    jl = tmp_path / "deep.jsonl"
    jl.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(DataError, match=r"line 1: invalid JSON \(nested too deeply\)"):
        read_jsonl(jl)


def test_not_utf8_is_a_data_error_naming_the_file(tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"a": "\xe9"}\n')
    with pytest.raises(DataError, match=r"latin\.jsonl, row 0: line 1: not UTF-8 text"):
        read_jsonl(path)
    with pytest.raises(DataError, match=r"latin\.jsonl: not UTF-8 text"):
        read_text(path)


def test_three_former_readers_are_the_one_reader(tmp_path):
    from gui_tasks.harness import lmms_rows
    from gui_tasks.runs import results_io
    from gui_tasks.mpr.xli import data

    path = tmp_path / "x.jsonl"
    path.write_text("{oops\n")
    for read, hint in ((lmms_rows.read_jsonl, "; delete the file to rebuild it"), (results_io.load_samples, "")):
        with pytest.raises(DataError, match=r"x\.jsonl, row 0: line 1: invalid JSON \(Expecting property name "
                                            r"enclosed in double quotes\)" + hint.replace(".", r"\.") + "$"):
            read(path)
    with pytest.raises(DataError, match=r"x\.jsonl, row 0: line 1: invalid JSON"):
        data.read_docs(path)
    os.remove(path)
    os.symlink("/dev/zero", path)
    for read in (lmms_rows.read_jsonl, results_io.load_samples, data.read_docs):
        with pytest.raises(DataError, match="not a regular file"):
            read(path)
