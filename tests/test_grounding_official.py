"""Grounding as the leaderboards score it: official releases as published (a box poking out of its image, the v2
variants layout), the official point-in-box rule, each family's own answer syntax and official reading, the frame check."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.coords import BUDGETS, FRAMES, Geometry
from gui_core.family import family as family_record
from gui_core.family import grounding_families
from gui_core.grounding import parse_point

FAMILIES = [f.name for f in grounding_families()]
READERS = [f.name for f in grounding_families() if f.reader is not None]
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import SKIP_BAD_ROWS_ENV, BadRows, take_skipped
from gui_core import grounding_prompts as prompts
from gui_tasks.grounding import screenspot
from gui_tasks.grounding.lmms_task import score_params, task_rows
from gui_tasks.grounding.report import FRAME_WARNING_MARGIN, frame_check_summary
from gui_tasks.grounding.score import ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"
RELEASE = FIX / "screenspot_pro_release"  # the shape of the official annotations/inventor_windows.json
VARIANTS = FIX / "screenspot_v2_variants"


# --- 1. official releases load as published -----------------------------------------------------------------


def test_box_poking_above_the_image_is_clipped_and_counted():
    docs = screenspot.load_docs("screenspot_pro", RELEASE)
    assert len(docs) == 2
    doc = next(d for d in docs if d["id"] == "screenspot_pro-inventor_windows_60")
    assert (doc["width"], doc["height"]) == (3840, 1080)
    assert doc["target_box"] == [135.0, 0.0, 151.0, 19.0]  # [135, -1, 151, 19] clipped to the image
    assert json.loads(doc["meta"])["bbox_published"] == [135.0, -1.0, 151.0, 19.0]
    assert screenspot.boxes_clipped(docs) == 1
    other = next(d for d in docs if d["id"] == "screenspot_pro-inventor_windows_0")
    assert "bbox_published" not in json.loads(other["meta"])


def _release_copy(tmp_path: Path, bbox: list[int]) -> Path:
    root = tmp_path / "pro"
    shutil.copytree(RELEASE, root)
    path = root / "annotations" / "inventor_windows.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[0]["bbox"] = bbox
    path.write_text(json.dumps(rows), encoding="utf-8")
    return root


def test_box_off_the_image_is_kept_and_scored_as_the_official_scorer_does(tmp_path, monkeypatch):
    # issue 46: eval_sample_positive_gt scores every row; a box right of the image is never hit, not refused
    monkeypatch.delenv(SKIP_BAD_ROWS_ENV, raising=False)
    root = _release_copy(tmp_path, [3900, 10, 3950, 40])  # entirely right of the 3840-pixel-wide image
    doc = next(d for d in screenspot.load_docs("screenspot_pro", root) if d["id"].endswith("_0"))
    meta = json.loads(doc["meta"])
    assert meta["target_relative"] == [3900 / 3840, 10 / 1080, 3950 / 3840, 40 / 1080]
    assert meta["row_warnings"] == ["box off the image", "zero-width or zero-height box"]
    assert doc["target_box"] == [3840.0, 10.0, 3840.0, 40.0]  # clipped for display: a line on the right edge


def test_a_malformed_box_is_a_bad_row_naming_file_row_and_field(tmp_path, monkeypatch):
    monkeypatch.delenv(SKIP_BAD_ROWS_ENV, raising=False)
    root = _release_copy(tmp_path, [3900, 10])  # the scorer's bbox[2] raises
    with pytest.raises(DataError, match="expected 4 numbers") as err:
        screenspot.load_docs("screenspot_pro", root)
    assert err.value.file.endswith("inventor_windows.json") and err.value.row == 0 and err.value.field == "bbox"


def test_skip_bad_rows_drops_the_malformed_box_and_the_task_counts_it(tmp_path, monkeypatch):
    root = _release_copy(tmp_path, [3900, 10])
    monkeypatch.setenv("SCREENSPOT_PRO_DATA_DIR", str(root))
    monkeypatch.setenv(SKIP_BAD_ROWS_ENV, "1")
    take_skipped()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        docs = task_rows({"source": "screenspot_pro"})
    assert [d["id"] for d in docs] == ["screenspot_pro-inventor_windows_60"]
    assert take_skipped() == 1  # what lmms_rows.RowsTask.download records as bad_rows_skipped
    assert "skipped 1 bad row" in err.getvalue() and "inventor_windows.json, row 0, field 'bbox'" in err.getvalue()


def test_bad_rows_collects_every_error_when_skipping(tmp_path):
    root = _release_copy(tmp_path, "0, 1100, 10, 1200")  # a string, not four numbers
    bad = BadRows(skip=True)
    docs = screenspot.load_docs("screenspot_pro", root, bad)
    assert len(docs) == 1 and bad.count == 1 and bad.errors[0].row == 0


def test_data_check_shows_the_clipped_box(capsys):
    from gui_tasks.commands.cli import main

    rc = main(["data", "check", "screenspot_pro", str(RELEASE), "--partial"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "gui_screenspot_pro [pro layout]" in out and "      2     1,581  partial copy" in out
    assert "boxes clipped to their image: 1 (screenspot_pro-inventor_windows_60 [135.0, -1.0, 151.0, 19.0] -> " \
           "[135.0, 0.0, 151.0, 19.0])" in out
    assert "screenshots fully decoded: 2 of 2" in out


def test_data_check_fails_on_a_malformed_box_and_names_it(tmp_path, capsys):
    from gui_tasks.commands.cli import main

    rc = main(["data", "check", "screenspot_pro", str(_release_copy(tmp_path, [3900, 10])), "--partial"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "inventor_windows.json, row 0, field 'bbox': expected 4 numbers, got [3900, 10]" in out


def test_data_check_counts_the_rows_kept_as_the_scorer_scores_them(tmp_path, capsys):
    from gui_tasks.commands.cli import main

    rc = main(["data", "check", "screenspot_pro", str(_release_copy(tmp_path, [3900, 10, 3950, 40])), "--partial"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert ("rows kept and scored as the official scorer does (warnings): box off the image: 2, zero-width or "
            "zero-height box: 1") in out


def test_v2_variants_layout_with_group_null_loads():
    assert screenspot.layout("screenspot_v2", VARIANTS) == "variants"
    docs = screenspot.load_docs("screenspot_v2", VARIANTS)
    assert len(docs) == 6
    assert sorted(d["split"] for d in docs) == sorted(f"{p}_{t}" for p in ("desktop", "mobile", "web") for t in ("icon", "text"))
    d = next(x for x in docs if x["id"] == "screenspot_v2-mobile_1")
    assert d["target_box"] == [50.0, 40.0, 90.0, 60.0]  # [x1, y1, x2, y2] pixels, as the Pro scorer reads it
    assert (d["width"], d["height"]) == (200, 320)
    assert json.loads(d["meta"])["layout"] == "variants"


def test_v2_seeclick_layout_still_reads_xywh():
    assert screenspot.layout("screenspot_v2", FIX / "screenspot_v2") == "seeclick"
    first = next(d for d in screenspot.load_docs("screenspot_v2", FIX / "screenspot_v2") if d["id"] == "screenspot_v2-desktop-0000")
    assert first["target_box"] == [20.0, 40.0, 60.0, 60.0]


# --- 2. the official rule by default ----------------------------------------------------------------------------

DOC = {"id": "s", "source": "screenspot_pro", "instruction": "x", "image": "/none", "width": 1000, "height": 500,
       "target_box": [400, 200, 500, 300], "other_boxes": None, "split": "cad_icon", "meta": "{}"}


def test_screenspot_tasks_count_a_point_on_the_edge_as_inside():
    params = score_params({"source": "screenspot_pro", "prompt": "relative"})
    assert params.inside_rule == "inclusive"
    on_edge = score_response(DOC, "[0.4, 0.5]", params)  # x = 400 px: the box's left edge
    assert on_edge["correct"] and on_edge["response_type"] == "correct"
    assert on_edge["params"]["inside_rule"] == "inclusive"
    strict = score_response(DOC, "[0.4, 0.5]", ScoreParams(inside_rule="strict"))
    assert not strict["correct"] and strict["response_type"] == "biased"  # PSS Algorithm 1: strictly inside


def test_icon_boards_keep_the_papers_strict_rule():
    assert score_params({"source": "synthetic", "prompt": "relative"}).inside_rule == "strict"
    assert score_params({"source": "screenspot_pro", "prompt": "relative", "inside_rule": "strict"}).inside_rule == "strict"


def test_unknown_inside_rule_or_strictness_is_refused():
    with pytest.raises(ValueError, match="inside_rule"):
        ScoreParams.from_mapping({"inside_rule": "loose"})
    with pytest.raises(ValueError, match="strictness"):
        ScoreParams.from_mapping({"strictness": "sloppy"})


def test_generated_screenspot_yamls_record_the_rule_and_strictness():
    from gui_tasks.grounding.yaml_spec import render_all

    files = render_all()
    assert "  inside_rule: inclusive\n  strictness: official\n" in files["gui_screenspot_pro.yaml"]
    assert "  inside_rule: strict\n" in files["icon_localization_synth.yaml"]
    assert "  prompt: aguvis\n" in files["gui_screenspot_pro_aguvis.yaml"]


# The ScreenSpot-Pro repository's Qwen2.5-VL runner (models/qwen2_5vl.py) starts the answer with this guide text and
# keeps it in raw_response.
GUIDE = '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": ['


def test_official_qwen2_5_vl_reading_is_the_screenspot_pro_runners():
    answer = parse_point(GUIDE + '1250, 88]}}\n</tool_call>', "qwen2_5_vl")
    assert answer.status == "parsed" and answer.point == (1250.0, 88.0) and answer.frame == "resized_px"
    box = parse_point(GUIDE + '100, 50, 140, 70]}}\n</tool_call>', "qwen2_5_vl")
    assert box.point == (120.0, 60.0)  # a 4-number coordinate: its centre, as the runner reads it


def test_tool_call_with_bare_list_arguments_is_wrong_format_officially_but_read_leniently():
    text = '<tool_call>\n{"name": "computer_use", "arguments": ["left_click", [120, 60]]}\n</tool_call>'
    official = parse_point(text, "qwen2_5_vl")
    assert official.status == "malformed" and official.point is None
    lenient = parse_point(text, "qwen2_5_vl", "lenient")
    assert lenient.status == "parsed" and lenient.point == (120.0, 60.0)
    params = score_params({"source": "screenspot_pro", "prompt": "qwen2_5_vl"})
    assert params.strictness == "official"
    assert score_response(DOC, text, params)["status"] == "malformed"


@pytest.mark.parametrize("family", sorted(READERS))
def test_official_reading_refuses_what_is_not_the_familys_syntax(family):
    # prose with a bare pair: the lenient reading takes it, the family's own parser finds no answer
    text = "I think it is here: [0.5, 0.5] or there"
    if family in ("showui", "seeclick", "qwen2_vl"):  # their official parsers take any numbers; words alone give nothing
        text = "the settings icon"
    # the authors' code: no point, the click (0, 0) (GTA1, SE-GUI, UI-Venus-Ground-7B) or left out (Phi-Ground, UGround-V1)
    assert parse_point(text, family).status in ("malformed", "dropped")
    assert parse_point("the settings icon", family, "benchmark").status == "malformed"


# --- 3. the leaderboard's families, on their authors' examples ------------------------------------------------------

AUTHORS_EXAMPLES = [
    # (family, answer, frame, point); the answer as the family's repository / card / runner writes it
    ("aguvis", "pyautogui.click(x=0.1175, y=0.0725)", "relative", (0.1175, 0.0725)),  # Aguvis-7B published run (issue 26)
    ("opencua", "```python\npyautogui.click(x=1443, y=343)\n```", "resized_px", (1443.0, 343.0)),  # OpenCUA model/README.md
    ("opencua", "pyautogui.click(x=960, y=324)", "resized_px", (960.0, 324.0)),  # OpenCUA README coordinate notes
    ("qwen3_vl", '```json\n[\n\t{"point_2d": [346, 321], "label": "search box"}\n]\n```', "grid1000", (346.0, 321.0)),
    ("qwen3_vl", '```json\n[{"bbox_2d": [135, 114, 1016, 672], "label": "house"}]\n```', "grid1000", (575.5, 393.0)),
    ("qwen3_vl", '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [512, 88]}}\n'
                 "</tool_call>", "grid1000", (512.0, 88.0)),  # Qwen3-VL computer_use cookbook (0-1000 screen)
    ("uground_v1", "(523, 287)", "grid1000", (523.0, 287.0)),  # UGround-V1 card: a single string (x, y)
    ("qwen2_vl", "<|box_start|>(100,200),(300,400)<|box_end|><|im_end|>", "grid1000", (200.0, 300.0)),  # qwen2vl.py
    ("gta1", "(1246,532)", "resized_px", (1246.0, 532.0)),  # GTA1 prompt: "(x,y)"
    ("ui_venus", "[1052,332,1120,360]", "resized_px", (1086.0, 346.0)),  # UI-Venus prompt: only [x1,y1,x2,y2]
    ("infigui_g1", '[{"point_2d": [1203, 410]}, {"point_2d": [88, 20]}]', "resized_px", (1203.0, 410.0)),  # first one
    ("infigui_g1", '<think>the save icon</think>[{"point_2d": [640, 72]}]', "resized_px", (640.0, 72.0)),
    ("holo1_5", '{"action": "click_absolute", "x": 1240, "y": 410}', "resized_px", (1240.0, 410.0)),  # runner's schema
    ("showui", "[0.73, 0.21]", "relative", (0.73, 0.21)),  # ShowUI: [x, y] scaled from 0 to 1
    ("seeclick", "(0.49,0.40)", "relative", (0.49, 0.40)),  # SeeClick: (x,y) two decimals
    ("seeclick", "(0.10,0.20,0.30,0.40)", "relative", (0.2, 0.3)),  # SeeClick pred_2_point: a box -> its centre
    # JEDI (OSWorld mm_agents/jedi_7b_agent.py parse_jedi_response): a tool call, or the same between two "⚗"
    ("jedi", GUIDE + "1420, 88]}}\n</tool_call>", "resized_px", (1420.0, 88.0)),
    ("jedi", '\u2697{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [640, 212]}}\u2697',
     "resized_px", (640.0, 212.0)),
    # SE-GUI's logged model_output (src/eval/logs/rec_results_*.json): the tool call; its last two numbers
    ("se_gui", GUIDE + "1357, 86]}}\n</tool_call>", "resized_px", (1357.0, 86.0)),
    # Phi-Ground (benchmark/test_screenspot_pro.py, --output_format point): 0-1000 of the 1008x672 canvas -> canvas px
    ("phi_ground", "<point>500, 250</point>", "resized_px", (504.0, 168.0)),
    # the benchmark reading also takes Holo1.5's prompt syntax and Phi-Ground's --output_format xyxy box (its centre)
    ("holo1_5", "Click(352, 348)", "resized_px", (352.0, 348.0), "benchmark"),  # Holo1.5 prompt: 'Click(x, y)'
    ("phi_ground", "<box>100, 200, 300, 400</box>", "resized_px", (201.6, 201.6), "benchmark"),
]


@pytest.mark.parametrize("family, text, frame, point, strictness",
                         [e if len(e) == 5 else (*e, "official") for e in AUTHORS_EXAMPLES])
def test_family_reads_its_authors_example_in_its_frame(family, text, frame, point, strictness):
    answer = parse_point(text, family, strictness)
    assert answer.status == "parsed" and answer.frame == frame and family_record(family).frame == frame
    assert answer.point == pytest.approx(point)


def test_aguvis_scores_on_a_published_style_answer():
    # issue 26: without an Aguvis family the run scored 0.00; its relative point lands in the box
    doc = {**DOC, "target_box": [100, 30, 140, 40]}  # 0.1175 * 1000 = 117.5, 0.0725 * 500 = 36.25
    rec = score_response(doc, "pyautogui.click(x=0.1175, y=0.0725)", score_params({"source": "screenspot_pro", "prompt": "aguvis"}))
    assert rec["correct"] and rec["frame"] == "relative" and rec["point"] == pytest.approx([0.1175, 0.0725])


def test_opencua_pixels_are_read_with_its_smart_resize():
    g = Geometry.from_budget(3840, 1080, BUDGETS[family_record("opencua").budget])
    assert (g.resized_width, g.resized_height) == (3836, 1092)  # round(3840 / 28) * 28, round(1080 / 28) * 28
    doc = {**DOC, "width": 3840, "height": 1080, "target_box": [1900, 500, 2000, 600]}
    x, y = 1950 / 3840 * g.resized_width, 550 / 1080 * g.resized_height
    rec = score_response(doc, f"pyautogui.click(x={x:.0f}, y={y:.0f})", score_params({"source": "screenspot_pro", "prompt": "opencua"}))
    assert rec["correct"] and rec["frame_source"] == "budget:qwen2_5_vl" and rec["model_size"] == [g.resized_width, g.resized_height]


def test_gta1_prompt_names_the_resized_size():
    text = prompts.build_prompt("the save button", "gta1", 3840, 1080)
    w, h = BUDGETS[family_record("gta1").budget].resized(3840, 1080)  # GTA1 README: min 3136, max 4096 * 2160
    assert f"The image resolution is height {h} and width {w}." in text and text.endswith("(x,y)\nthe save button")
    with pytest.raises(ValueError, match="width and height"):
        prompts.build_prompt("x", "gta1")


def test_infigui_g1_official_reading_needs_a_json_list_of_point_2d():
    assert parse_point('{"point_2d": [640, 72]}', "infigui_g1").status == "malformed"  # not a list
    assert parse_point('[{"point": [640, 72]}]', "infigui_g1").status == "malformed"
    assert parse_point('[{"point_2d": [640, 72]}]', "infigui_g1").point == (640.0, 72.0)
    assert parse_point('<think>[{"point_2d": [1, 2]}]</think>[{"point_2d": [640, 72]}]', "infigui_g1").point == (640.0, 72.0)
    text = prompts.build_prompt("save", "infigui_g1_nothink", 1920, 1080)
    assert text.startswith("The screen's resolution is 1932x1092.\nLocate the UI element(s) for \"save\"")
    think = prompts.build_prompt("save", "infigui_g1", 3840, 2160)  # think mode, its default; shrunk to 5600*28*28 first
    assert think.startswith("You FIRST think") and "\nThe screen's resolution is 2800x1568.\n" in think


def test_jedi_official_reading_is_osworlds_parse_jedi_response():
    assert parse_point('<tool_call>\n{"name": "computer_use", "arguments": ["left_click", [120, 60]]}\n</tool_call>',
                       "jedi").status == "malformed"  # arguments not an object: its [-1, -1]
    assert parse_point(GUIDE + "120, 60]}}", "jedi").status == "malformed"  # start tag without an end tag
    assert parse_point('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click"}}</tool_call>',
                       "jedi").status == "malformed"  # no coordinate
    assert parse_point(GUIDE + "120, 60, 7]}}</tool_call>", "jedi").point == (120.0, 60.0)  # x, y: the first two
    lenient = parse_point("click at [120, 60]", "jedi", "lenient")
    assert lenient.status == "parsed" and parse_point("click at [120, 60]", "jedi").status == "malformed"


def test_jedi_budget_and_prompt_name_the_resized_screen():
    assert BUDGETS["jedi"].resized(1920, 1080) == (1932, 1092)  # under 2700*28*28: each side rounded to 28
    assert BUDGETS["jedi"].resized(3840, 2160) == (1932, 1064)  # above: floor(side / 1.9795 / 28) * 28
    text = prompts.build_prompt("the save button", "jedi", 3840, 2160)
    assert "* The screen's resolution is 1932x1064." in text and text.endswith("</tool_call>\n\nthe save button")


def test_se_gui_reads_the_last_two_numbers_of_its_first_tool_call():
    assert parse_point(GUIDE + "100, 50, 140, 70]}}\n</tool_call>", "se_gui").point == (140.0, 70.0)  # not a centre
    assert parse_point(GUIDE + "-5, 30]}}</tool_call>", "se_gui").point == (5.0, 30.0)  # r'\d+(?:\.\d+)?': no sign
    assert parse_point(GUIDE + "5, 30]}}", "se_gui").status == "malformed"  # no </tool_call>: its [0, 0]
    assert parse_point('{"coordinate": [5, 30]}', "se_gui").status == "malformed"  # no tool call: its [0, 0]
    assert parse_point('{"coordinate": [5, 30]}', "se_gui", "lenient").point == (5.0, 30.0)


def test_se_gui_budget_reproduces_the_resized_size_its_log_records():
    from gui_core.coords import budget

    # SE-GUI's logged run over 3840x2160 ScreenSpot-Pro screenshots records resized_size [1400, 2492] (h, w): its
    # ScreenSpot-v2 budget, max_pixels 3512320; the ScreenSpot-Pro script's own is 7049280
    assert budget("se_gui", max_pixels=3512320).resized(3840, 2160) == (2492, 1400)
    assert BUDGETS["se_gui"].resized(2560, 1440) == (2548, 1428)  # within 7049280: sides rounded to 28
    text = prompts.build_prompt("open the device manager", "se_gui", 2560, 1440)
    assert text.startswith("You are a helpful assistant.\n#Tools\n") and "The screen's resolution is 2548x1428." in text
    assert text.endswith("</tool_call>\nopen the device manager")


def test_phi_ground_point_is_read_on_its_canvas_not_on_the_screenshot():
    # 3840x2160 scaled into 1008x672: 1008x567 at the top left. The centre (1920, 1080) is canvas (504, 283.5),
    # written 0-1000 of the canvas as (500, 421.875); read 0-1000 of the screenshot it would be y = 911
    doc = {**DOC, "width": 3840, "height": 2160, "target_box": [1900, 1060, 1940, 1100]}
    assert BUDGETS["phi_ground"].resized(3840, 2160) == (1008, 567)
    rec = score_response(doc, "<point>500, 421.875</point>", score_params({"source": "screenspot_pro", "prompt": "phi_ground"}))
    assert rec["correct"] and rec["frame"] == "resized_px" and rec["model_size"] == [1008, 567]
    assert rec["point"] == pytest.approx([0.5, 0.5])
    assert rec["frame_check"]["grid1000"] is False
    assert parse_point("<point>500,421</point>", "phi_ground").status == "dropped"  # split(", ") gives one part: left out
    assert parse_point("<point>500,421</point>", "phi_ground", "benchmark").status == "malformed"  # counted
    assert prompts.build_prompt("the save button", "phi_ground") == (
        "\nThe description of the element: \nthe save button\n\n\nLocate the above described element in the image. The "
        "output should be bounding box using relative coordinates multiplying 1000.\n")
    with pytest.raises(ValueError, match="fixed 1008x672 canvas"):
        from gui_core.coords import budget

        budget("phi_ground", max_pixels=99999999)


def test_phi_ground_task_pastes_the_screenshot_into_its_canvas(tmp_path):
    from PIL import Image

    from gui_tasks.grounding.lmms_task import doc_to_visual_phi_ground

    path = tmp_path / "shot.png"
    Image.new("RGB", (200, 100), (200, 0, 0)).save(path)  # 2:1, wider than 3:2 -> 1008x504
    (canvas,) = doc_to_visual_phi_ground({**DOC, "image": str(path), "width": 200, "height": 100})
    assert canvas.size == (1008, 672)
    assert canvas.getpixel((1000, 500))[1] < 30 and canvas.getpixel((1000, 510)) == (255, 255, 255)


def test_every_family_has_a_prompt_and_every_resized_family_a_budget():
    families = {prompts.answer_family(p) for p in prompts.prompt_names()}
    assert set(FAMILIES) - families == {"gui_owl"}  # GUI-Owl is read (StaR) but has no grounding prompt of ours
    for rec in grounding_families():
        assert (rec.frame == "resized_px") == (rec.budget is not None), rec.name
    assert prompts.build_prompt("x", "aguvis").startswith("You are a GUI agent. You are given a task and a screenshot of the "
                                                          "screen. You need to perform a series of pyautogui actions")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FAMILIES)), st.sampled_from(["official", "benchmark", "lenient"]), st.text(max_size=200))
def test_parsers_classify_any_text_and_never_raise(family, strictness, text):
    answer = parse_point(text, family, strictness)
    assert answer.status in ("parsed", "malformed", "empty", "dropped")
    if answer.status == "parsed":
        assert answer.point is not None
    elif answer.point is not None:  # only an authors' fallback click: GTA1, SE-GUI, UI-Venus-Ground-7B, GUI-Owl-1.5 (0, 0)
        assert strictness == "official" and answer.point == (0.0, 0.0) and family in ("gta1", "se_gui", "ui_venus",
                                                                                  "gui_owl_1_5")


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1, allow_nan=False), st.floats(0, 1, allow_nan=False))
def test_aguvis_round_trips_any_relative_point(x, y):
    answer = parse_point(f"pyautogui.click(x={x:.4f}, y={y:.4f})", "aguvis")
    assert answer.point == pytest.approx((round(x, 4), round(y, 4)), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 1000), st.integers(0, 1000))
def test_phi_ground_maps_any_canvas_grid_point_to_canvas_pixels(x, y):
    answer = parse_point(f"<point>{x}, {y}</point>", "phi_ground")
    assert answer.literal == (x, y) and answer.point == pytest.approx((x * 1008 / 1000, y * 672 / 1000))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 5000), st.integers(0, 5000), st.sampled_from(["jedi", "se_gui"]))
def test_tool_call_families_read_any_pixel_point(x, y, family):
    assert parse_point(GUIDE + f"{x}, {y}]}}}}\n</tool_call>", family).point == (x, y)


# --- 4. the frame check -------------------------------------------------------------------------------------------


def test_frame_check_of_one_answer_in_every_frame():
    # 500, 250 on a 1000x500 image: on the 0-1000 grid (500, 125) misses; as original pixels it is the box's centre
    doc = {**DOC, "target_box": [450, 200, 550, 300]}
    rec = score_response(doc, "(500, 250)", score_params({"source": "screenspot_pro", "prompt": "uground_v1"}))
    assert rec["frame"] == "grid1000" and not rec["correct"]
    assert set(rec["frame_check"]) == set(FRAMES)
    assert rec["frame_check"]["original_px"] and not rec["frame_check"]["grid1000"]
    assert not rec["frame_check"]["relative"]


def test_report_warns_loudly_when_another_frame_scores_far_higher():
    doc = {**DOC, "target_box": [450, 200, 550, 300]}
    params = score_params({"source": "screenspot_pro", "prompt": "uground_v1"})
    records = [score_response(doc, "(500, 250)", params) for _ in range(9)] + [score_response(doc, "no answer", params)]
    summary = frame_check_summary(records)
    assert summary["declared"] == "grid1000"
    assert summary["accuracy_by_frame"]["grid1000"] == 0.0 and summary["accuracy_by_frame"]["original_px"] == pytest.approx(0.9)
    # on this small image the resized and the original pixels are nearly the same frame: both are named
    assert summary["warning"].startswith("WARNING: answers read as resized_px or original_px score 90.0%, read as the "
                                         "declared grid1000 0.0%")
    fine = frame_check_summary([score_response(doc, "(500, 500)", params)])  # grid (500, 500) -> centre
    assert fine["warning"] is None and fine["accuracy_by_frame"]["grid1000"] == 1.0
    assert FRAME_WARNING_MARGIN == 0.10


def test_pss_report_markdown_carries_the_frame_check():
    from gui_tasks.grounding.report import Series, markdown, summarise

    doc = {**DOC, "target_box": [450, 200, 550, 300]}
    params = score_params({"source": "screenspot_pro", "prompt": "uground_v1"})
    recs = [score_response(doc, "(500, 250)", params) for _ in range(4)]
    text = markdown([summarise(Series("m", "gui_screenspot_pro_uground_v1", "screenspot_pro", recs))])
    assert "**WARNING: answers read as resized_px or original_px score 100.0%, read as the declared grid1000 0.0%" in text
    assert "Frame check (accuracy if the answers were read in each frame; declared: grid1000): relative 0.000, " \
           "grid1000 0.000, resized_px " in text


def test_pss_report_says_how_the_release_was_loaded():
    from gui_tasks.grounding.report import Series, markdown, summarise

    recs = [score_response(DOC, "[0.45, 0.5]", score_params({"source": "screenspot_pro", "prompt": "relative"}))]
    s = summarise(Series("m", "gui_screenspot_pro", "screenspot_pro", recs, meta={"boxes_clipped": 1, "bad_rows_skipped": 2}))
    assert (s["boxes_clipped"], s["bad_rows_skipped"]) == (1, 2)
    assert ("Release as loaded: 1 target box(es) clipped to their image, 2 bad row(s) skipped on request "
            "(GUI_EVAL_SKIP_BAD_ROWS).") in markdown([s])


@pytest.mark.parametrize("benchmark, folder, layout, found", [
    ("screenspot", "screenspot", "seeclick", 6), ("screenspot_v2", "screenspot_v2", "seeclick", 6),
    ("screenspot_v2", "screenspot_v2_variants", "variants", 6), ("screenspot_pro", "screenspot_pro", "pro", 3)])
def test_data_check_reads_every_screenspot_layout(benchmark, folder, layout, found, capsys):
    from gui_tasks.commands.cli import main

    assert main(["data", "check", benchmark, str(FIX / folder), "--partial"]) == 0
    out = capsys.readouterr().out
    assert f"gui_{benchmark} [{layout} layout]" in out and f"  {found}  " in out
    assert "boxes clipped to their image: 0\n" in out and f"screenshots fully decoded: {found} of {found}" in out


def test_parser_inventory_lists_every_family_official_benchmark_and_lenient():
    from gui_tasks.commands.parser_inventory import GROUNDING_FAMILIES, PARSERS

    assert set(GROUNDING_FAMILIES) == set(FAMILIES)
    for fam in FAMILIES:
        assert all(f"grounding:{fam}{s}" in PARSERS for s in ("", ":benchmark", ":lenient"))


def test_strict_screenspot_tasks_name_the_papers_rule():
    from gui_tasks.grounding.yaml_spec import render_all

    files = render_all()
    for variant in screenspot.VARIANTS:
        text = files[f"gui_{variant}_strict.yaml"]
        assert f"task: gui_{variant}_strict\n" in text and "  inside_rule: strict\n" in text and "  prompt: relative\n" in text
    assert score_params({"source": "screenspot_v2", "prompt": "relative", "inside_rule": "strict"}).inside_rule == "strict"
