"""Official-schema fixture rows of every sub-type through process_docs, prompt building, images and scoring."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import datasets
import pytest
from PIL import Image

from gui_core.benchmark import benchmark
from gui_metrics.knowledge import SUBTASKS
from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS
from gui_core.errors import DataError
from gui_tasks.knowledge import lmms_task, release

FIXTURES = Path(__file__).parent / "fixtures" / "gui_knowledge"


def docs(variant="plain", root=FIXTURES, reading=release.DEFAULT_READING):
    rows = list(release.read_raw_rows(root, SUBTASKS, variant, reading=reading))
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
    rows = list(release.read_raw_rows(FIXTURES))
    order = [d["subtask"] for d in lmms_task.process_docs_official(datasets.Dataset.from_list(rows))]
    assert order[:8] == list(SUBTASKS) and order[8] == "type"


def _pixels(name):
    with Image.open(FIXTURES / "images" / name) as im:
        return im.convert("RGB").getpixel((150, 100))


def test_action_effect_images_are_the_marked_screenshot_then_the_options_in_letter_order(plain):
    doc = plain["ef-001"]
    images = lmms_task.doc_to_visual(doc)
    assert len(images) == 5
    assert [im.getpixel((150, 100)) for im in images[1:]] == [_pixels(f"ef-001_option_{i}.png") for i in range(4)]
    assert images[0].getpixel((50, 60)) == (230, 30, 30)  # the action's point is drawn on the current screenshot
    assert _pixels("ef-001_question_0.png") == images[0].getpixel((150, 100))
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
    assert [im.getpixel((150, 100)) for im in images] == [_pixels(f"go-001_question_{i}.png") for i in range(3)]
    text = lmms_task.doc_to_text(doc)
    assert 'has the task "Turn on dark mode" been completed?' in text and '"<yes/no/unknown>"' in text
    assert "unknown - The screenshots do not provide enough evidence" in text


def test_augmented_variant_uses_the_red_box_question_and_draws_the_box():
    aug = docs("augmented", reading="trimmed")
    assert aug["wd-001"]["question"] == "What does the icon in the red box do?"
    assert json.loads(aug["wd-001"]["marks"]) == [{"kind": "box", "box": [100.0, 20.0, 130.0, 50.0]}]
    assert lmms_task.doc_to_visual(aug["wd-001"])[0].getpixel((100, 35)) == (230, 30, 30)
    assert docs()["wd-001"]["marks"] == "[]"


def test_official_protocol_puts_the_red_box_and_augmented_question_on_interface_perception_only():
    official_docs = docs("official")
    wd = official_docs["wd-001"]
    assert wd["question"] == "What does the icon in the red box do?" and json.loads(wd["marks"])[0]["kind"] == "box"
    assert official_docs["go-001"]["question"] == "Turn on dark mode"  # goal/plan keep question_text
    assert official_docs["pl-001"]["marks"] == "[]"
    # the official runner's wording, word for word (message_gen_tools.build_interface_perception_ablation)
    assert lmms_task.doc_to_text(wd).endswith(
        "What does the icon in the red box do? \nA. Opens settings\nB. Deletes the file\nC. Shares the page\n"
        "D. Closes the window\nWhich of the above options are correct according to the screenshot? Think step by step. "
        'You must respond strictly in JSON format following this schema: {"thought": "<your reasoning>", "answer": "<A/B/C/D>" } ')
    assert lmms_task.doc_to_text(official_docs["st-001"]).endswith(
        'Is the switch in the red box turned on? \nThink step by step. You must respond strictly in JSON format following '
        'this schema:{   "thought": "<your reasoning>", "answer": "<yes/no/unknown>" } ')
    plain = docs("plain")["wd-001"]
    assert "What does the gear icon do?\nA. Opens settings" in lmms_task.doc_to_text(plain)  # plain builder: no space
    assert "Which of the above options are correct according to the screenshot?" in lmms_task.doc_to_text(plain)


def test_tip_variant_appends_the_needed_knowledge():
    tip = docs("official_tip")
    assert lmms_task.doc_to_text(tip["wd-001"]).endswith(
        '"answer": "<A/B/C/D>" } Tips for answering this question: A gear icon conventionally opens the settings.')
    assert tip["go-001"]["tip"] == ""


@pytest.mark.parametrize("field, value", [("augmented_question", ""), ("annotation", {}), ("needed_knowledge", None)])
def test_official_protocol_needs_its_fields(tmp_path, field, value):
    root = _copy_with(tmp_path, "wd-001", **{field: value})
    with pytest.raises(DataError) as err:
        docs("official_tip", root=root)
    assert err.value.field.startswith(field) and err.value.file.endswith("WidgetFunctionUnderstanding-wd-001.json")


def test_each_official_file_is_one_question_and_other_json_is_ignored():
    files = release.question_files(FIXTURES)
    assert len(files) == 10 and (FIXTURES / "images" / "README.json") in files
    assert len(list(release.read_raw_rows(FIXTURES))) == 9


def test_a_question_without_question_text_is_not_skipped_silently(tmp_path):
    root = _copy_with(tmp_path, "ly-001", question_text=None)
    with pytest.raises(DataError) as err:
        list(release.read_raw_rows(root))
    assert err.value.field == "question_text" and err.value.file.endswith("LayoutSemanticsUnderstanding-ly-001.json")


def test_a_file_under_knowledgebench_must_be_a_question(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(FIXTURES, root)
    (root / "KnowledgeBench" / "InterfacePerception" / "WidgetFunctionUnderstanding-broken.json").write_text('{"groundtruth": "A"}')
    with pytest.raises(DataError, match="not a question object") as err:
        list(release.read_raw_rows(root))
    assert err.value.file.endswith("WidgetFunctionUnderstanding-broken.json")


def test_bare_image_names_are_found_in_the_image_dirs_path_list(tmp_path, monkeypatch):
    root = tmp_path / "bench"
    shutil.copytree(FIXTURES / "KnowledgeBench", root / "KnowledgeBench")
    first, second = tmp_path / "hf_images_a", tmp_path / "hf_images_b"
    for i, image in enumerate(sorted((FIXTURES / "images").glob("*.png"))):
        target = (first if i % 2 else second) / "nested" / image.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(image, target)
    with pytest.raises(DataError, match="GUI_KNOWLEDGE_IMAGE_DIRS"):
        docs(root=root)
    monkeypatch.setenv(release.IMAGE_DIRS_ENV, os.pathsep.join([str(first), str(second)]))
    found = docs(root=root)
    assert len(found) == 9 and found["wd-001"]["images"][0].startswith(str(tmp_path / "hf_images_"))


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
    (path,) = root.rglob(f"*-{row_id}.json")
    row = json.loads(path.read_text(encoding="utf-8"))
    row.update(changes)
    path.write_text(json.dumps(row, indent=4), encoding="utf-8")
    return root


@pytest.mark.parametrize("row_id, changes, field", [
    ("wd-001", {"groundtruth": "E"}, "groundtruth"),
    ("st-001", {"groundtruth": "maybe"}, "groundtruth"),
    ("ly-001", {"question_image_dir_list": ["ly-001_question_9.png"]}, "question_image_dir_list[0]"),
    ("ty-001", {"os_type": "Amiga"}, "os_type"),
    ("ty-002", {"option_text": ["click", "left_double", "type", "scroll"]}, "option_text"),
    ("wd-001", {"knowledge": {"knowledge_type": "X", "knowledge_sub_type": "Mystery"}}, "knowledge.knowledge_sub_type"),
    ("wd-001", {"question_type": "free_text"}, "question_type"),
])
def test_bad_rows_raise_data_errors_naming_file_row_and_field(tmp_path, row_id, changes, field):
    root = _copy_with(tmp_path, row_id, **changes)
    with pytest.raises(DataError) as err:
        docs(root=root)
    assert err.value.field == field and err.value.file.endswith(f"-{row_id}.json") and err.value.row == 0


def test_missing_local_copy_is_a_data_error(monkeypatch, tmp_path):
    monkeypatch.setenv(benchmark("gui_knowledge").data.env, str(tmp_path / "nope"))
    with pytest.raises(DataError, match="not a directory"):
        release.data_root()


def test_action_prediction_without_a_question_tag_is_told_apart_by_its_options():
    row = {"knowledge": {"knowledge_sub_type": "ActionPrediction"}, "question_text": "Which action?"}
    assert release.subtask_of({**row, "option_text": ["click", "Double click", "right_single", "drag"]}, file="f", row=0) == "type"
    assert release.subtask_of({**row, "option_text": ["point='1 2'", "point='3 4'"]}, file="f", row=0) == "parameter"


def test_parquet_rows_with_inline_images_as_the_hub_stores_them(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path / "cache"))
    png = (FIXTURES / "images" / "wd-001_question_0.png").read_bytes()
    row = json.loads(next(FIXTURES.rglob("*-wd-001.json")).read_text())  # the widget question
    row["question_image_dir_list"] = [{"bytes": png, "path": "shot.png"}]
    root = tmp_path / "hub"
    root.mkdir()
    pq.write_table(pa.Table.from_pylist([row]), root / "test-00000.parquet")
    (doc,) = docs(root=root).values()
    assert doc["subtask"] == "widget" and doc["answer"] == "A"
    assert doc["images"][0].startswith(str(tmp_path / "cache" / "gkb_images")) and Path(doc["images"][0]).read_bytes() == png


# --- the official runner's reading (Kendrick-Stein/GUI_Knowledge_Bench_Official_Repo @ 378add4) -----------------
def _edited_copy(tmp_path, rel, **changes):
    root = tmp_path / "gkb"
    shutil.copytree(FIXTURES, root)
    path = root / "KnowledgeBench" / rel
    raw = json.loads(path.read_text())
    raw.update(changes)
    path.write_text(json.dumps(raw))
    return root


def test_runner_reading_keeps_option_text_byte_for_byte(tmp_path):
    """An official option ends with a space ("Mute the corrent video. "): the runner sends it as it is."""
    rel = "InterfacePerception/WidgetFunctionUnderstanding-wd-001.json"
    root = _edited_copy(tmp_path, rel, option_text=["Mute the corrent video. ", "Deletes the file", "Shares the page",
                                                    "Closes the window"])
    runner = docs("official", root)["wd-001"]
    assert runner["options"][0] == "Mute the corrent video. "
    assert "? \nA. Mute the corrent video. \nB. Deletes the file\n" in lmms_task.doc_to_text(runner)
    assert json.loads(runner["meta"])["reading"] == "runner"
    trimmed = docs("official", root, reading="trimmed")["wd-001"]
    assert "\nA. Mute the corrent video.\nB. Deletes the file\n" in lmms_task.doc_to_text(trimmed)


def test_runner_reading_draws_the_runners_red_box():
    """draw_annotation: cv2.rectangle, BGR (0, 0, 255), thickness 1, LINE_AA on the screenshot."""
    import cv2
    import numpy as np

    doc = docs("official")["wd-001"]
    assert json.loads(doc["marks"]) == [{"kind": "box", "box": [100.0, 20.0, 130.0, 50.0], "style": "runner"}]
    drawn = np.asarray(lmms_task.doc_to_visual(doc)[0])
    with Image.open(doc["images"][0]) as im:
        bgr = np.ascontiguousarray(np.asarray(im.convert("RGB"))[:, :, ::-1])
    cv2.rectangle(bgr, (100, 20), (130, 50), (0, 0, 255), 1, lineType=cv2.LINE_AA)
    assert (drawn == bgr[:, :, ::-1]).all()
    r, g, b = (int(v) for v in drawn[35, 100])
    assert r >= 240 and g <= 40 and b <= 40  # the line: red, not (230, 30, 30)
    with Image.open(doc["images"][0]) as im:
        original = np.asarray(im.convert("RGB"))
    assert (drawn[35, 103] == original[35, 103]).all()  # 3 px inside: untouched (the trimmed box is wider)
    trimmed = np.asarray(lmms_task.doc_to_visual(docs("official", reading="trimmed")["wd-001"])[0])
    assert tuple(trimmed[35, 100]) == (230, 30, 30)


def test_runner_reading_gives_ios_the_desktop_action_space(tmp_path):
    """build_interaction_prediction gives the mobile action space only to os_type == 'Android'."""
    root = _edited_copy(tmp_path, "InteractionPrediction/ActionPrediction-ty-002.json", os_type="iOS")
    runner = docs("official", root)["ty-002"]
    assert runner["platform"] == "mobile" and runner["option_actions"] == list(MOBILE_CALLS)  # the device is a phone
    assert "left_double(point='x1 y1')" in lmms_task.doc_to_text(runner)
    trimmed = docs("official", root, reading="trimmed")["ty-002"]
    assert "left_double" not in lmms_task.doc_to_text(trimmed) and "long_press(point='x1 y1')" in lmms_task.doc_to_text(trimmed)
    android = docs("official")["ty-002"]
    assert "long_press(point='x1 y1')" in lmms_task.doc_to_text(android) and "left_double" not in lmms_task.doc_to_text(android)


def test_unknown_reading_is_a_data_error():
    with pytest.raises(DataError, match="reading 'loose' must be one of"):
        docs("official", reading="loose")
