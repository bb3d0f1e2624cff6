"""Grounding tasks: ScreenSpot / -v2 / -Pro fixture rows in the official schemas, family answers in their frames,
per-split accuracy, icon boards, and the generated YAMLs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from gui_metrics.manager import get_metric
from gui_core.coords import Geometry
from gui_core.grounding import parse_point
from gui_core.errors import ConfigError, DataError
from gui_core import grounding_prompts as prompts
from gui_tasks.grounding import screenspot
from gui_tasks.grounding.lmms_task import score_params
from gui_tasks.grounding.schema import validate_doc
from gui_tasks.grounding.score import ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"


# --- official schemas -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["screenspot", "screenspot_v2"])
def test_seeclick_schema_rows_become_canonical_docs(variant):
    docs = screenspot.load_docs(variant, FIX / variant)
    assert len(docs) == 6
    assert sorted(d["split"] for d in docs) == sorted(f"{p}_{t}" for p in ("desktop", "mobile", "web") for t in ("icon", "text"))
    first = next(d for d in docs if d["id"] == f"{variant}-desktop-0000")
    assert first["target_box"] == [20.0, 40.0, 60.0, 60.0]  # [x, y, w, h] = [20, 40, 40, 20]
    assert (first["width"], first["height"]) == (320, 200) and first["other_boxes"] is None
    assert Path(first["image"]).is_file()
    for i, d in enumerate(docs):
        validate_doc(d, file="x", row=i)


def test_screenspot_pro_rows_keep_xyxy_and_split_by_group_and_type():
    docs = screenspot.load_docs("screenspot_pro", FIX / "screenspot_pro")
    assert [d["split"] for d in docs] == ["dev_text", "dev_icon", "cad_icon"]
    assert docs[1]["target_box"] == [110.0, 50.0, 170.0, 80.0]
    assert json.loads(docs[0]["meta"])["application"] == "vscode"


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_bad_box_names_file_row_and_field(tmp_path):
    root = _copy(FIX / "screenspot_v2", tmp_path / "v2")
    path = root / "screenspot_mobile_v2.json"
    rows = json.loads(path.read_text())
    rows[1]["bbox"] = [1, 2, 3]
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError) as err:
        screenspot.load_docs("screenspot_v2", root)
    assert err.value.file.endswith("screenspot_mobile_v2.json") and err.value.row == 1 and err.value.field == "bbox"


def test_pro_img_size_that_differs_from_the_image_is_scored_by_the_declared_size(tmp_path):
    # issue 46: eval_sample_positive_gt divides the box by img_size, whatever the PNG's size; the row is kept, warned
    root = _copy(FIX / "screenspot_pro", tmp_path / "pro")
    path = root / "annotations" / "vscode_macos.json"
    rows = json.loads(path.read_text())
    rows[2]["img_size"] = [800, 500]
    path.write_text(json.dumps(rows))
    doc = [d for d in screenspot.load_docs("screenspot_pro", root) if json.loads(d["meta"])["file"] == path.name][2]
    meta = json.loads(doc["meta"])
    b = rows[2]["bbox"]
    assert meta["target_relative"] == [b[0] / 800, b[1] / 500, b[2] / 800, b[3] / 500]
    assert meta["row_warnings"] == ["img_size differs from the PNG"]


def test_missing_data_dir_is_an_actionable_error(monkeypatch):
    monkeypatch.delenv("SCREENSPOT_V2_DATA_DIR", raising=False)
    with pytest.raises(ConfigError, match=r"\$SCREENSPOT_V2_DATA_DIR is not set: .*; see docs/screenspot_pss.md"):
        screenspot.data_root("screenspot_v2")


# --- answers per family, in their frames --------------------------------------------------------


def test_paper_prompt_is_verbatim():
    text = prompts.build_prompt("the anchor icon", "relative")
    assert text.startswith("According to the image I provide, identify the relative coordinates of the specified object, "
                           "with values ranging from 0 to 1. The output format must be [x, y], and do not output anything else.")
    assert text.endswith("\nthe anchor icon")


@pytest.mark.parametrize("family, text, frame, point", [
    ("relative", "[0.5, 0.25]", "relative", (0.5, 0.25)),
    ("os_atlas", "<|box_start|>(400,200),(600,300)<|box_end|>", "grid1000", (500.0, 250.0)),
    ("os_atlas", "CLICK <point>[[500, 250]]</point>", "grid1000", (500.0, 250.0)),
    ("ui_tars", "click(start_box='(500,250)')", "grid1000", (500.0, 250.0)),
    ("ui_tars_1_5", "click(start_box='(500,250)')", "resized_px", (500.0, 250.0)),
    ("qwen2_5_vl", '{"point_2d": [500, 250]}', "resized_px", (500.0, 250.0)),
    ("agentcpm_gui", '{"POINT": [500, 250]}', "grid1000", (500.0, 250.0)),
])
def test_family_answers_are_read_in_their_frame(family, text, frame, point):
    ans = parse_point(text, family)
    assert ans.status == "parsed" and ans.frame == frame and ans.point == pytest.approx(point)


@pytest.mark.parametrize("text, status", [("", "empty"), (None, "empty"), ("the top left", "malformed"), ("[0.5]", "malformed")])
def test_unparseable_answers_are_classified_not_raised(text, status):
    assert parse_point(text, "relative").status == status


DOC = {"id": "s", "source": "screenspot_v2", "instruction": "x", "image": "/none", "width": 1000, "height": 500,
       "target_box": [450, 200, 550, 300], "other_boxes": None, "split": "web_icon", "meta": "{}"}


def test_each_frame_lands_on_the_same_target():
    assert score_response(DOC, "[0.5, 0.5]", ScoreParams(family="relative"))["correct"]
    assert score_response(DOC, "CLICK <point>[[500, 500]]</point>", ScoreParams(family="os_atlas"))["correct"]
    g = Geometry.qwen(1000, 500)  # pixels of the smart-resized image: (1008, 504)
    assert (g.resized_width, g.resized_height) == (1008, 504)
    rec = score_response(DOC, f'{{"point_2d": [{g.resized_width // 2}, {g.resized_height // 2}]}}', ScoreParams(family="qwen2_5_vl"))
    assert rec["correct"] and rec["point"] == pytest.approx([0.5, 0.5])
    # the same numbers read as original pixels would be a different point: the frame matters
    rec = score_response(DOC, '{"point_2d": [560, 260]}', ScoreParams(family="qwen2_5_vl"))
    assert rec["point"] == pytest.approx([560 / 1008, 260 / 504])


def test_screenspot_errors_are_biased_or_other():
    assert score_response(DOC, "[0.57, 0.5]", ScoreParams())["response_type"] == "biased"  # 0.02 from the box
    assert score_response(DOC, "[0.9, 0.9]", ScoreParams())["response_type"] == "other"


def test_per_split_accuracy_metric():
    docs = screenspot.load_docs("screenspot_v2", FIX / "screenspot_v2")
    records = []
    for d in docs:
        x1, y1, x2, y2 = d["target_box"]
        hit = d["split"] == "mobile_icon" or d["id"].endswith("desktop-0000")
        pt = ((x1 + x2) / 2 / d["width"], (y1 + y2) / 2 / d["height"]) if hit else (0.99, 0.99)
        records.append(score_response(d, f"[{pt[0]:.4f}, {pt[1]:.4f}]", ScoreParams()))
    assert get_metric("grounding_acc_mobile_icon").aggregate(records) == 1.0
    assert get_metric("grounding_acc_desktop_text").aggregate(records) == 1.0
    assert get_metric("grounding_acc_web_text").aggregate(records) == 0.0
    assert get_metric("grounding_acc").aggregate(records) == pytest.approx(2 / 6)


def test_task_metadata_sets_the_scoring_parameters():
    p = score_params({"prompt": "qwen2_5_vl", "tau": "0.1", "pss_form": "logits", "max_pixels": "200704"})
    assert (p.family, p.tau, p.pss_form, p.max_pixels) == ("qwen2_5_vl", 0.1, "logits", 200704)
    with pytest.raises(ConfigError, match="unknown grounding prompt"):
        score_params({"prompt": "nope"})


# --- icon boards ---------------------------------------------------------------------------------


def test_icon_boards_are_deterministic_with_every_box_known(tmp_path):
    from gui_tasks.synth.icon_board import HEIGHT, WIDTH, build_icon_boards
    from gui_tasks.synth.icons import NAMES

    a = build_icon_boards(tmp_path / "a", seed=3, n=6)
    b = build_icon_boards(tmp_path / "b", seed=3, n=6)
    assert [p.read_bytes() for p in sorted((tmp_path / "a" / "images").iterdir())] == \
           [p.read_bytes() for p in sorted((tmp_path / "b" / "images").iterdir())]
    docs = [json.loads(line) for line in a.read_text().splitlines()]
    assert [d["id"] for d in docs] == [json.loads(line)["id"] for line in b.read_text().splitlines()]
    for i, d in enumerate(docs):
        validate_doc(d, file=str(a), row=i)
        meta = json.loads(d["meta"])
        boxes = [e["box"] for e in meta["elements"]]
        assert d["target_box"] in boxes and len(d["other_boxes"]) == len(boxes) - 1
        assert d["instruction"] == f"the {NAMES[meta['target']]} icon"
        for j, p in enumerate(boxes):  # no two icons overlap
            for q in boxes[j + 1:]:
                assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1]
        assert Image.open(d["image"]).size == (WIDTH, HEIGHT)


def test_board_sets_hold_common_and_uncommon_targets(tmp_path):
    from gui_tasks.synth.icon_board import build_icon_boards

    docs = [json.loads(line) for line in build_icon_boards(tmp_path, seed=0, n=20).read_text().splitlines()]
    assert {d["split"] for d in docs} == {"common", "uncommon"}


def test_every_icon_draws_something_distinct():
    from gui_tasks.synth.icons import ICONS, draw_icon

    seen = set()
    for name in ICONS:
        im = Image.new("RGB", (60, 60), (0, 0, 0))
        draw_icon(im, name, (4, 4, 56, 56), (30, 60, 90))
        data = im.tobytes()
        assert im.getcolors(4096) and len(im.getcolors(4096)) > 2, name
        seen.add(data)
    assert len(seen) == len(ICONS)


# --- YAMLs -------------------------------------------------------------------------------------


def test_grounding_task_names_are_indexed_and_do_not_collide_with_builtins():
    import os

    import lmms_eval.tasks as lt

    from gui_tasks.harness.lmms_integration import yaml_tasks_dir

    ours = set(lt.TaskManager("ERROR", include_path=str(yaml_tasks_dir()), include_defaults=False).all_tasks)
    assert {"icon_localization_synth", "gui_screenspot", "gui_screenspot_v2", "gui_screenspot_pro",
            "gui_screenspot_v2_qwen2_5_vl"} <= ours
    builtin = set(lt.TaskManager("ERROR", include_path=str(yaml_tasks_dir()), include_defaults=False)
                  ._get_task_and_group(os.path.dirname(lt.__file__)))
    assert "screenspot_v2" in builtin and not (ours & builtin)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gui_core.family import grounding_families  # noqa: E402

FAMILIES = [f.name for f in grounding_families()]


@settings(max_examples=200, deadline=None)  # the first Holo1.5 answer builds its pydantic schema
@given(st.text(alphabet=st.sampled_from(list("[](),.0123456789 -xyCLICK<>point{}\"POINT:_2d")), max_size=60),
       st.sampled_from(sorted(FAMILIES)))
def test_parse_point_never_raises_and_scores_any_text(text, family):
    ans = parse_point(text, family)
    assert ans.status in {"parsed", "malformed", "empty", "dropped"}
    assert ans.status != "parsed" or ans.point is not None
    assert ans.status == "parsed" or ans.point in (None, (0.0, 0.0))  # (0, 0): an authors' fallback click
    rec = score_response(DOC, text, ScoreParams(family=family))
    assert rec["response_type"] in {"correct", "biased", "other", "invalid"}
    assert rec.get("dropped", False) == (ans.status == "dropped")
