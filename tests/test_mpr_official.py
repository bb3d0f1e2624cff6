"""Official-schema MPR-GUI rows go through the real process_docs into canonical documents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_core.benchmark import benchmark
from gui_core.errors import ConfigError, DataError
from gui_tasks.mpr import lmms_task, release

FIXTURES = Path(__file__).parent / "fixtures" / "mpr_official"


@pytest.fixture()
def official_copy(monkeypatch, tmp_path):
    dst = tmp_path / "mpr"
    shutil.copytree(FIXTURES, dst)
    monkeypatch.setenv(benchmark("mpr_gui").data.env, str(dst))
    return dst


def _process(lang: str, dims=None) -> list[dict]:
    rows = lmms_task.task_rows({"lang": lang, "source": "official", **({"dimensions": dims} if dims else {})})
    return list(lmms_task.process_docs_official(datasets.Dataset.from_list(rows)))


def test_official_rows_become_canonical_documents(official_copy):
    docs = _process("zh")
    assert len(docs) == 6 * 2 + 2  # six single-image files with two rows, RI and SI with one
    au = [d for d in docs if d["dimension"] == "AU"]
    first = next(d for d in au if d["id"] == "au-1/camera_8.jpg")
    assert first["lang"] == "zh" and first["source"] == "official"
    assert first["question"] == "高亮图标的作用是什么？"
    assert first["options"] == ["打开设置", "删除项目", "左下象限", "开始搜索"]
    assert first["answer"] == "A"
    assert first["images"] == [str((official_copy / "images" / "1" / "zh" / "camera_zh_8.jpg").resolve())]
    meta = json.loads(first["meta"])
    assert meta["file"].endswith("qas/au_zh.jsonl") and meta["row"] == 1  # au_zh lists its items in the other order


def test_answers_with_text_and_bare_letter_with_a_dot(official_copy):
    ap = {d["id"]: d["answer"] for d in _process("zh", ["AP"])}
    assert ap == {"ap-2/camera_8.jpg": "A", "ap-2/clock_3.jpg": "C"}  # "C. Lower-left quadrant" -> C
    wf = {d["id"]: d["answer"] for d in _process("ja", ["WF"])}
    assert wf["wf-3/camera_8.jpg"] == "A"  # "A."


def test_options_written_c_a_b_d_keep_their_labels(official_copy):
    doc = next(d for d in _process("en", ["WI"]) if d["id"] == "wi-4/clock_3.jpg")
    assert doc["options"] == ["Opens settings", "Deletes the item", "Lower-left quadrant", "Starts a search"]
    assert doc["answer"] == "C" and doc["question"] == "Which quadrant holds the clock?"
    assert json.loads(doc["meta"])["option_order"] == "CABD"


def test_documents_are_interleaved_over_dimensions(official_copy):
    dims = [d["dimension"] for d in _process("en")]
    assert dims[:8] == ["AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI"]


def test_episode_folders_give_frames_in_natural_order_and_drop_the_options_heading(official_copy):
    en = _process("en", ["RI", "SI"])
    ri = next(d for d in en if d["dimension"] == "RI")
    assert [Path(p).name for p in ri["images"]] == ["clock_episode_0_en_1.jpg", "clock_episode_0_en_2.jpg",
                                                    "clock_episode_0_en_10.jpg"]
    assert ri["question"] == "What does the highlighted icon do?" and ri["id"] == "ri-rich/clock_episode_0"
    si = next(d for d in en if d["dimension"] == "SI")
    assert [Path(p).name for p in si["images"]] == ["mail_episode_3_1.jpg", "mail_episode_3_2.jpg"]


def test_ids_come_from_the_image_path_and_align_across_languages(official_copy):
    by_lang = {lang: {d["id"]: d for d in _process(lang)} for lang in ("en", "zh", "th")}
    assert set(by_lang["en"]) == set(by_lang["zh"]) == set(by_lang["th"])
    assert "au-1/camera_8.jpg" in by_lang["en"]
    for qid, doc in by_lang["en"].items():
        assert by_lang["zh"][qid]["answer"] == doc["answer"] and len(by_lang["zh"][qid]["images"]) == len(doc["images"])


def test_hub_snapshot_layout_resolves_the_same_paths(official_copy, tmp_path, monkeypatch):
    # qas/ next to the hub snapshot's own folders 1/..6/, rich/, sparse/ (no images/ level)
    hub = tmp_path / "hub"
    shutil.copytree(official_copy / "qas", hub / "qas")
    for child in (official_copy / "images").iterdir():
        shutil.copytree(child, hub / child.name)
    monkeypatch.setenv(benchmark("mpr_gui").data.env, str(hub))
    docs = _process("fr")
    assert len(docs) == 14 and all(Path(p).is_file() and str(hub) in p for d in docs for p in d["images"])
    # or the snapshot elsewhere, named by $MPR_GUI_IMAGE_DIR
    only_qas = tmp_path / "only_qas"
    shutil.copytree(official_copy / "qas", only_qas / "qas")
    monkeypatch.setenv(benchmark("mpr_gui").data.env, str(only_qas))
    monkeypatch.setenv(release.IMAGE_DIR_ENV, str(hub))
    assert len(_process("fr")) == 14


def test_dimension_subset(official_copy):
    assert {d["dimension"] for d in _process("en", ["AEL"])} == {"AEL"}


def _corrupt(path: Path, row: dict) -> None:
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "row, field",
    [
        ({"question": "Which? A: x B: y C: z", "answer": "A", "image_path": "../images/4/en/camera_en_8.jpg"}, "question"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "E", "image_path": "../images/4/en/camera_en_8.jpg"}, "answer"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "A"}, "image_path"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "A", "image_path": "../images/4/en/missing.jpg"}, "image_path"),
        ({"question": "Which? A: w B: x C: y D: z", "answer": "A", "image_folder_path": "../images/4/en/nope"},
         "image_folder_path"),
    ],
)
def test_bad_rows_name_file_row_and_field(official_copy, row, field):
    _corrupt(official_copy / "qas" / "wi_en.jsonl", row)
    with pytest.raises(DataError) as err:
        _process("en", ["WI"])
    assert err.value.field == field and err.value.row == 0 and err.value.file.endswith("wi_en.jsonl")
    assert "wi_en.jsonl" in str(err.value)


def test_empty_episode_folder_is_a_bad_row(official_copy):
    folder = official_copy / "images" / "sparse" / "en" / "mail_episode_3"
    for frame in folder.iterdir():
        frame.unlink()
    with pytest.raises(DataError, match="no frames") as err:
        _process("en", ["SI"])
    assert err.value.field == "image_folder_path"


def test_invalid_json_line_is_reported(official_copy):
    (official_copy / "qas" / "ap_en.jsonl").write_text('{"question": \n', encoding="utf-8")
    with pytest.raises(DataError, match="ap_en.jsonl"):
        _process("en", ["AP"])


def test_empty_dimension_file_stops_the_task(official_copy):
    (official_copy / "qas" / "knowledge_sparse_en.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(DataError, match="no questions.*FPR-ACC"):
        _process("en")


def test_skipping_bad_rows_is_opt_in_loud_and_counted(official_copy, monkeypatch, capsys):
    from gui_tasks.harness.bad_rows import take_skipped

    (official_copy / "qas" / "knowledge_sparse_en.jsonl").write_text("", encoding="utf-8")
    with (official_copy / "qas" / "wi_en.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"question": "Which? A: x", "answer": "A", "image_path": "x"}) + "\n")
    monkeypatch.setenv("GUI_EVAL_SKIP_BAD_ROWS", "1")
    take_skipped()
    docs = _process("en")
    assert len(docs) == 14 - 1  # the empty SI file's question is missing, the bad WI row is gone ...
    assert take_skipped() == 2  # ... and counted: 1 empty file (read phase) + 1 bad row (process_docs)
    err = capsys.readouterr().err
    assert "skipped 1 bad row(s)" in err and "knowledge_sparse_en.jsonl" in err and "wi_en.jsonl" in err


def test_missing_local_copy_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(benchmark("mpr_gui").data.env, str(tmp_path / "nope"))
    # the one data_root (gui_core.benchmark): a variable naming no folder is bad data (DataError) for every benchmark
    with pytest.raises(DataError, match="MPR_GUI_DATA_DIR points to .*nope, which is not a directory; see docs/mpr_gui.md"):
        release.data_root()


def test_missing_question_file_is_a_clear_error(official_copy):
    (official_copy / "qas" / "rel_el_en.jsonl").unlink()
    with pytest.raises(DataError, match="rel_el_en.jsonl.*qas"):
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


LANG_CODES = ("en", "zh", "fr", "ru", "ja", "th")
APP = st.from_regex(r"[a-z]{1,8}(_[a-z]{1,6})?", fullmatch=True).filter(lambda a: not set(a.split("_")) & set(LANG_CODES))


@given(app=APP, n=st.integers(0, 999), folder=st.sampled_from("123456"), marked=st.booleans())
def test_item_keys_are_the_same_in_every_language(app, n, folder, marked):
    def key(lang):
        name = f"{app}_{lang}_{n}.jpg" if marked else f"{app}_{n}.jpg"
        return release.item_key({"image_path": f"../images/{folder}/{lang}/{name}"}, lang)

    assert {key(lang) for lang in LANG_CODES} == {f"{folder}/{app}_{n}.jpg"}
