"""Official-schema MPR-GUI rows go through the real process_docs into canonical documents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest

from gui_tasks.errors import DataError
from gui_tasks.mpr import lmms_task, official

FIXTURES = Path(__file__).parent / "fixtures" / "mpr_official"


@pytest.fixture()
def official_copy(monkeypatch, tmp_path):
    dst = tmp_path / "mpr"
    shutil.copytree(FIXTURES, dst)
    monkeypatch.setenv(official.DATA_DIR_ENV, str(dst))
    return dst


def _process(lang: str, dims=None) -> list[dict]:
    rows = lmms_task.task_rows({"lang": lang, "source": "official", **({"dimensions": dims} if dims else {})})
    return list(lmms_task.process_docs_official(datasets.Dataset.from_list(rows)))


def test_official_rows_become_canonical_documents(official_copy):
    docs = _process("zh")
    assert len(docs) == 6 * 2 + 2  # six single-image files with two rows, RI and SI with one
    first = docs[0]
    assert first["dimension"] == "AU" and first["lang"] == "zh" and first["source"] == "official"
    assert first["question"] == "齿轮图标的作用是什么？"
    assert first["options"] == ["打开设置", "删除项目", "分享页面", "开始搜索"]
    assert first["answer"] == "A"  # "A. 打开设置" normalised
    assert first["images"] == [str((official_copy / "images" / "s1.png").resolve())]
    assert json.loads(first["meta"])["file"].endswith("au_zh.jsonl")


def test_documents_are_interleaved_over_dimensions(official_copy):
    dims = [d["dimension"] for d in _process("en")]
    assert dims[:8] == ["AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"]


def test_sequences_keep_frame_order_and_ids_align_across_languages(official_copy):
    en, zh = _process("en"), _process("zh")
    ri = next(d for d in en if d["dimension"] == "RI")
    assert [Path(p).name for p in ri["images"]] == ["s1.png", "s2.png", "s3.png"]
    assert [d["id"] for d in en] == [d["id"] for d in zh]
    assert {d["id"] for d in en if d["dimension"] == "WF"} == {"wf-00000", "wf-7"}
    assert [d["answer"] for d in en] == [d["answer"] for d in zh]


def test_dimension_subset(official_copy):
    assert {d["dimension"] for d in _process("en", ["AEL"])} == {"AEL"}


def _corrupt(path: Path, row: dict) -> None:
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "row, field",
    [
        ({"question": "Which? A: x B: y C: z", "answer": "A", "image": "images/s1.png"}, "question"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "E", "image": "images/s1.png"}, "answer"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "A"}, "image"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "A", "image": "images/missing.png"}, "image"),
    ],
)
def test_bad_rows_name_file_row_and_field(official_copy, row, field):
    _corrupt(official_copy / "wi_en.jsonl", row)
    with pytest.raises(DataError) as err:
        _process("en", ["WI"])
    assert err.value.field == field and err.value.row == 0 and err.value.file.endswith("wi_en.jsonl")
    assert "wi_en.jsonl" in str(err.value)


def test_invalid_json_line_is_reported(official_copy):
    (official_copy / "ap_en.jsonl").write_text('{"question": \n', encoding="utf-8")
    with pytest.raises(DataError, match="ap_en.jsonl"):
        _process("en", ["AP"])


def test_missing_local_copy_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(official.DATA_DIR_ENV, str(tmp_path / "nope"))
    with pytest.raises(DataError, match="MPR_GUI_DATA_DIR"):
        official.data_root()


def test_missing_question_file_is_a_clear_error(official_copy):
    (official_copy / "rel_el_en.jsonl").unlink()
    with pytest.raises(DataError, match="rel_el_en.jsonl"):
        _process("en")


def test_reasoning_chain_protocol_prompt_and_scoring():
    from gui_tasks.mpr.prompts import DIRECT, REASONING, build_prompt

    doc = {"id": "x", "lang": "en", "dimension": "AU", "question": "Q?", "options": ["a", "b", "c", "d"], "answer": "C"}
    direct = lmms_task.doc_to_text(doc, {"prompt_protocol": DIRECT})
    chain = lmms_task.doc_to_text(doc, {"prompt_protocol": REASONING})
    assert direct == "Q?\nA. a\nB. b\nC. c\nD. d\nAnswer with the option's letter from the given choices directly."
    assert chain.startswith("Q?\nA. a") and "Answer: <letter>" in chain
    record = lmms_task.score_response(doc, "Option A is tempting, but the screen shows c.\nAnswer: C")
    assert (record["pred"], record["status"], record["correct"]) == ("C", "parsed", True)
    with pytest.raises(ValueError, match="unknown MPR prompt protocol"):
        build_prompt("Q", ["a", "b", "c", "d"], "nope")


def test_process_results_never_raises_on_hostile_output():
    doc = {"id": "x", "lang": "th", "dimension": "SI", "question": "Q?", "options": ["a", "b", "c", "d"], "answer": "A"}
    for response in ["", None, "\x00" * 50, "{broken json", "A" * 100000, "คำตอบ: Ｄ"]:
        out = lmms_task.process_results(doc, [response])
        assert out["mcq_acc"]["status"] in {"parsed", "malformed", "empty"}
    assert lmms_task.process_results(doc, ["คำตอบ: Ｄ"])["mcq_acc"]["pred"] == "D"
    assert lmms_task.process_results(doc, [])["format_error_rate"]["status"] == "empty"
