"""UI-Vision element grounding against its official scorer: 210 answers (basic, functional, spatial) scored by
``eval_uivision.py`` (uivision/UI-Vision @ 2b79355, run unchanged outside the project with a stub model) on the copy
in tests/fixtures/uivision_official (make_uivision_official.py), verdicts in uivision_official_verdicts.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_metrics.grounding_official import uivision_report
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.grounding import uivision
from gui_tasks.grounding.score import ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"
COPY = FIX / "uivision_official"
OFFICIAL = json.loads((FIX / "uivision_official_verdicts.json").read_text(encoding="utf-8"))
PARAMS = ScoreParams(family="relative", inside_rule="inclusive", strictness="official")


def _records(setting: str) -> list[dict]:
    docs = uivision.load_docs(COPY, setting)
    return [score_response(docs[d["row"]], d["raw_response"], PARAMS) for d in OFFICIAL["runs"][setting]["details"]]


@pytest.mark.parametrize("setting", uivision.SETTINGS)
def test_every_sample_and_the_figure_equal_the_official_scorer(setting):
    run = OFFICIAL["runs"][setting]
    records = _records(setting)
    assert [r["official"]["correctness"] for r in records] == [d["correctness"] for d in run["details"]]
    report = uivision_report(records)
    assert report["overall_simple"] == pytest.approx(run["metrics"]["overall_simple"])
    by_type = report["breakdown_not_in_official_script"]["element_type"]
    assert sum(f["num_total"] for f in by_type.values()) == 70


def test_the_constructed_set_covers_settings_verdicts_and_edges():
    details = [d for r in OFFICIAL["runs"].values() for d in r["details"]]
    assert len(details) >= 200 and {d["correctness"] for d in details} == {"correct", "wrong", "wrong_format"}
    assert {"left_edge", "right_edge", "top_edge", "bottom_edge", "bottom_right_corner", "just_left_outside",
            "just_below_outside"} <= {d["case"] for d in details}


def test_reversed_corners_are_swapped_as_the_scorer_does():
    doc = uivision.load_docs(COPY, "basic")[17]
    meta = json.loads(doc["meta"])
    assert meta["bbox_reversed"] == [2135.0, 850.0, 2088.0, 828.0] and doc["target_box"] == [2088.0, 828.0, 2135.0, 850.0]
    assert doc["split"] == "icon" and meta["report"]["setting"] == "basic"


def test_image_size_that_differs_from_the_screenshot_is_scored_as_the_scorer_does(tmp_path):
    # issue 46: eval_sample_positive_gt divides the box by image_size, whatever the PNG's size; the row is kept
    import shutil

    root = tmp_path / "uiv"
    shutil.copytree(COPY, root)
    path = uivision.annotation_file(root, "spatial")
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[3]["image_size"] = [100, 100]
    path.write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = uivision.load_docs(root, "spatial", bad)
    assert len(docs) == 70 and not bad.errors
    meta = json.loads(docs[3]["meta"])
    x1, y1, x2, y2 = rows[3]["bbox"]
    assert meta["target_relative"] == [min(x1, x2) / 100, min(y1, y2) / 100, max(x1, x2) / 100, max(y1, y2) / 100]
    assert "image_size differs from the PNG" in meta["row_warnings"]


def test_pss_report_shows_the_official_figure_and_the_breakdown():
    from gui_tasks.grounding.report import Series, markdown, summarise

    records = _records("spatial")
    summary = summarise(Series("m\ngui_uivision_spatial", "gui_uivision_spatial", "uivision", records))
    assert summary["official_report"]["overall_simple"]["action_acc"] == pytest.approx(0.5)
    text = markdown([summary])
    assert "eval_uivision.py overall_simple): action_acc 0.500, wrong format 10 of 70" in text
    assert "| category | Menu |" in text


def test_final_avg_is_the_plain_mean_of_the_three_settings():
    from gui_tasks.grounding.report import Series, markdown, summarise, uivision_final_avg

    summaries = [summarise(Series(f"m\ngui_uivision_{s}", f"gui_uivision_{s}", "uivision", _records(s)[: 10 + 20 * i]))
                 for i, s in enumerate(uivision.SETTINGS)]
    figures = [x["official_report"]["overall_simple"]["action_acc"] for x in summaries]
    uivision_final_avg(summaries)
    assert summaries[0]["uivision_final_avg"]["final_avg"] == pytest.approx(sum(figures) / 3)
    assert "UI-Vision Final Avg (mean of the three settings)" in markdown(summaries[:1])
    alone = uivision_final_avg([summarise(Series("m\ngui_uivision_basic", "gui_uivision_basic", "uivision", _records("basic")))])
    assert "uivision_final_avg" not in alone[0]


def test_data_check_counts_each_setting_and_names_the_reversed_box():
    check = uivision.data_check(COPY)
    assert check.ok and [(c.task, c.found) for c in check.counts] == [
        ("gui_uivision_basic", 70), ("gui_uivision_functional", 70), ("gui_uivision_spatial", 70)]
    assert check.notes[0] == ("basic: rows kept and scored as the official scorer does (warnings): reversed box "
                              "(swapped, as the scorer does): 1")
    assert "reversed corners (swapped, as the scorer does): 1 (uivision_basic-00017" in check.notes[1]
