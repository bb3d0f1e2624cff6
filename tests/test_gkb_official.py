"""Official-schema fixture rows of every sub-type through process_docs, prompt building, images and scoring."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from PIL import Image

from gui_metrics.knowledge import SUBTASKS
from gui_models.actions import DESKTOP_CALLS, MOBILE_CALLS
from gui_tasks.errors import DataError
from gui_tasks.knowledge import lmms_task, official

FIXTURES = Path(__file__).parent / "fixtures" / "gui_knowledge"


def docs(variant="plain", root=FIXTURES):
    rows = list(official.read_raw_rows(root, SUBTASKS, variant))
    return {d["id"]: d for d in lmms_task.process_docs_official(datasets.Dataset.from_list(rows))}


@pytest.fixture(scope="module")
def plain():
    return docs()


def test_every_fixture_row_becomes_a_document_of_its_subtask(plain):
    assert {i: d["subtask"] for i, d in plain.items()} == {
        "st-001": "state", "wd-001": "widget", "ly-001": "layout", "ef-001": "effect", "ty-001": "type", "ty-002": "type",
        "pa-001": "parameter", "go-001": "goal", "pl-001": "plan"}
    assert plain["st-001"]["answer"] == "yes" and plain["ly-001"]["answer"] == "C" and plain["go-001"]["answer"] == "unknown"
    assert [plain[i]["platform"] for i in ("ty-001", "ty-002", "pa-001", "ef-001")] == ["desktop", "mobile", "mobile", "desktop"]


def test_documents_are_interleaved_over_subtasks():
    rows = list(official.read_raw_rows(FIXTURES))
    order = [d["subtask"] for d in lmms_task.process_docs_official(datasets.Dataset.from_list(rows))]
    assert order[:8] == list(SUBTASKS) and order[8] == "type"


def _pixels(path):
    with Image.open(FIXTURES / "images" / path) as im:
        return im.convert("RGB").getpixel((150, 100))


def test_action_effect_images_are_the_marked_screenshot_then_the_options_in_letter_order(plain):
    doc = plain["ef-001"]
    images = lmms_task.doc_to_visual(doc)
    assert len(images) == 5
    assert [im.getpixel((150, 100)) for im in images[1:]] == [_pixels(f"s{i}.png") for i in (4, 5, 6, 7)]
    assert images[0].getpixel((50, 60)) == (230, 30, 30)  # the action's point is drawn on the current screenshot
    assert _pixels("s3.png") == images[0].getpixel((150, 100))
    text = lmms_task.doc_to_text(doc)
    assert "left_double(point='50 60')" in text and "A. image 2\nB. image 3\nC. image 4\nD. image 5" in text
    assert "The size of the image is 200x120." in text and "right_single(point='x1 y1')" in text  # desktop action space


def test_action_type_prompts_carry_the_platform_action_space(plain):
    desk, mob = plain["ty-001"], plain["ty-002"]
    assert desk["option_actions"] == list(DESKTOP_CALLS) and mob["option_actions"] == list(MOBILE_CALLS)
    t_desk, t_mob = lmms_task.doc_to_text(desk), lmms_task.doc_to_text(mob)
    assert '"answer": "<A/B/C/D/E/F/G>"' in t_desk and "G. scroll" in t_desk and "left_double(point='x1 y1')" in t_desk
    assert '"answer": "<A/B/C/D>"' in t_mob and "long_press(point='x1 y1')" in t_mob and "left_double" not in t_mob
    assert [im.size for im in lmms_task.doc_to_visual(desk)] == [(200, 120), (200, 120)]


def test_action_parameter_candidates_are_drawn_with_their_letters(plain):
    doc = plain["pa-001"]
    marks = json.loads(doc["marks"])
    assert [(m["kind"], m["xy"], m["label"]) for m in marks] == [
        ("point", [20.0, 30.0], "A"), ("point", [150.0, 90.0], "B"), ("point", [100.0, 60.0], "C"), ("point", [30.0, 100.0], "D")]
    assert "the given action 'click'" in lmms_task.doc_to_text(doc)
    assert lmms_task.doc_to_visual(doc)[0].getpixel((100, 60)) == (230, 30, 30)


def test_goal_interpretation_shows_the_history_in_order(plain):
    doc = plain["go-001"]
    images = lmms_task.doc_to_visual(doc)
    assert [im.getpixel((150, 100)) for im in images] == [_pixels(f"s{i}.png") for i in (5, 6, 7)]
    text = lmms_task.doc_to_text(doc)
    assert 'has the task "Turn on dark mode" been completed?' in text and '"<yes/no/unknown>"' in text
    assert "unknown - The screenshots do not provide enough evidence" in text


def test_augmented_variant_uses_the_red_box_question_and_draws_the_box():
    aug = docs("augmented")
    assert aug["wd-001"]["question"] == "What does the icon in the red box do?"
    assert json.loads(aug["wd-001"]["marks"]) == [{"kind": "box", "box": [100.0, 20.0, 130.0, 50.0]}]
    assert lmms_task.doc_to_visual(aug["wd-001"])[0].getpixel((100, 35)) == (230, 30, 30)
    # no augmented text: the plain question stays, the box is still drawn
    assert aug["ly-001"]["question"] == "Which city is the departure city?" and json.loads(aug["ly-001"]["marks"])
    assert docs()["wd-001"]["marks"] == "[]"


@pytest.mark.parametrize("qid, response, correct, pred", [
    ("wd-001", '{"thought": "gear = settings", "answer": "A"}', True, "A"),
    ("st-001", '```json\n{"thought": "green", "answer": "YES"}\n```', True, "yes"),
    ("go-001", "no", False, "no"),
    ("pl-001", "I am not sure.", False, None),
])
def test_scoring(plain, qid, response, correct, pred):
    rec = lmms_task.process_results(plain[qid], [response])["gkb_acc"]
    assert rec["correct"] is correct and rec["pred"] == pred
    assert rec["status"] == ("parsed" if pred else "malformed")


def test_action_type_records_name_gold_and_predicted_actions(plain):
    rec = lmms_task.process_results(plain["ty-001"], ['{"thought": "menu opened", "answer": "B"}'])["gkb_acc"]
    assert (rec["gold_action"], rec["pred_action"], rec["correct"]) == ("right_single", "left_double", False)
    rec = lmms_task.process_results(plain["ty-002"], ["garbage"])["gkb_acc"]
    assert (rec["gold_action"], rec["pred_action"]) == ("long_press", None)


def _copy_with(tmp_path, row_id, **changes):
    root = tmp_path / "data"
    shutil.copytree(FIXTURES, root)
    lines = (root / "questions.jsonl").read_text().splitlines()
    out = []
    for line in lines:
        row = json.loads(line)
        if row["question_id"] == row_id:
            row.update(changes)
        out.append(json.dumps(row))
    (root / "questions.jsonl").write_text("\n".join(out) + "\n")
    return root


@pytest.mark.parametrize("row_id, changes, field", [
    ("wd-001", {"groundtruth": "E"}, "groundtruth"),
    ("st-001", {"groundtruth": "maybe"}, "groundtruth"),
    ("ly-001", {"question_image_dir_list": ["images/missing.png"]}, "question_image_dir_list[0]"),
    ("ty-001", {"os_type": "Amiga"}, "os_type"),
    ("ty-002", {"option_text": ["click", "left_double", "type", "scroll"]}, "option_text"),
    ("wd-001", {"knowledge": {"knowledge_type": "X", "knowledge_sub_type": "Mystery"}}, "knowledge.knowledge_sub_type"),
    ("wd-001", {"question_type": "free_text"}, "question_type"),
])
def test_bad_rows_raise_data_errors_naming_file_row_and_field(tmp_path, row_id, changes, field):
    root = _copy_with(tmp_path, row_id, **changes)
    with pytest.raises(DataError) as err:
        docs(root=root)
    assert err.value.field == field and err.value.file.endswith("questions.jsonl") and err.value.row is not None


def test_missing_local_copy_is_a_data_error(monkeypatch, tmp_path):
    monkeypatch.setenv(official.DATA_DIR_ENV, str(tmp_path / "nope"))
    with pytest.raises(DataError, match="not a directory"):
        official.data_root()


def test_action_prediction_without_a_question_tag_is_told_apart_by_its_options():
    row = {"knowledge": {"knowledge_sub_type": "ActionPrediction"}, "question_text": "Which action?"}
    assert official.subtask_of({**row, "option_text": ["click", "Double click", "right_single", "drag"]}, file="f", row=0) == "type"
    assert official.subtask_of({**row, "option_text": ["point='1 2'", "point='3 4'"]}, file="f", row=0) == "parameter"


def test_parquet_rows_with_inline_images_as_the_hub_stores_them(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path / "cache"))
    png = (FIXTURES / "images" / "s2.png").read_bytes()
    row = json.loads((FIXTURES / "questions.jsonl").read_text().splitlines()[1])  # the widget question
    row["question_image_dir_list"] = [{"bytes": png, "path": "shot.png"}]
    root = tmp_path / "hub"
    root.mkdir()
    pq.write_table(pa.Table.from_pylist([row]), root / "test-00000.parquet")
    (doc,) = docs(root=root).values()
    assert doc["subtask"] == "widget" and doc["answer"] == "A"
    assert doc["images"][0].startswith(str(tmp_path / "cache" / "gkb_images")) and Path(doc["images"][0]).read_bytes() == png
