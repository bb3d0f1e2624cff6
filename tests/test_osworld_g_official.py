"""OSWorld-G on our fixture copy against the scorers we could run (the authors' own repository, xlang-ai/OSWorld-G,
is not in the stores: docs/osworld_g.md): 485 constructed answers on tests/fixtures/osworld_g (make_osworld_g.py)
scored by lmms-eval 0.7.3's ``tasks/osworld_g/utils.py`` (imported unchanged, outside the project) and by VLMEvalKit
PR #1020's ``OSWorldG._eval`` @ d47d6c7 (OSWorld-G's ``GroundingEval._eval``), verdicts in osworld_g_verdicts.json
(/tmp/osworldg-ref/run_ref.py). The readings on a seeded hostile corpus: test_osworld_g_readings.py."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from gui_core.benchmark import benchmark
from gui_metrics.grounding_official import osworld_g_report
from gui_tasks.grounding import osworld_g
from gui_tasks.grounding.score import ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"
COPY = FIX / "osworld_g"
REF = json.loads((FIX / "osworld_g_verdicts.json").read_text(encoding="utf-8"))
CASES = REF["cases"]
PARAMS = ScoreParams(family="relative", inside_rule="inclusive", strictness="official")
# the two polygons the scorers read differently: four numbers (a rectangle for lmms-eval, never hit by GroundingEval)
# and nine numbers (never hit by lmms-eval, four vertices for GroundingEval)
ODD_POLYGONS = {"07JVNIBSB9-2", "9GDGV3U5J4-2"}


def _verdicts(instructions: str = "original", reading: str = "official", **kw) -> list[bool]:
    docs = osworld_g.load_docs(COPY, instructions, **kw)
    params = replace(PARAMS, reading=reading)
    return [score_response(docs[c["row"]], c["answer"], params)["correct"] for c in CASES]


def test_lmms_eval_reading_agrees_with_lmms_eval_on_every_answer():
    ours = _verdicts(reading="lmms_eval")
    assert len(CASES) >= 200 and ours == [c["lmms_eval"] for c in CASES]


def test_official_reading_agrees_with_grounding_eval_on_every_answer():
    # VLMEvalKit's copy of GroundingEval._eval fed the answer's two numbers, or the readers' [0, 0, 0, 0] when
    # unreadable: the origin box is hit by an unreadable answer there, and so here (issue 52)
    assert _verdicts() == [c["vlmevalkit_eval"] for c in CASES]


def test_official_reading_departs_from_lmms_eval_on_odd_polygons_and_unreadable_answers():
    ours = _verdicts()
    differ = {(c["id"], c["case"]) for c, v in zip(CASES, ours) if v != c["lmms_eval"]}
    assert {i for i, _ in differ} == ODD_POLYGONS | {"0FOB4CLBT2-0"}
    assert {case for i, case in differ if i == "0FOB4CLBT2-0"} == {"unreadable", "refusal_phrase"}


def test_the_constructed_set_covers_box_types_categories_edges_and_refusals():
    assert {c["box_type"] for c in CASES} == set(osworld_g.BOX_TYPES)
    exact = {c["case"] for c in CASES if c["exact_edge"]}
    assert {"left_edge", "right_edge", "top_edge", "bottom_edge", "bottom_right_corner", "just_left_outside",
            "vertex", "edge_midpoint", "concave_notch", "refusal_minus_one", "mixed_sign", "zero_point"} <= exact
    assert {c["lmms_eval"] for c in CASES if c["box_type"] == "refusal"} == {True, False}
    groups = {g for d in osworld_g.load_docs(COPY) for g in json.loads(d["meta"])["report"]["groups"]}
    assert groups == {"text_matching", "element_recognition", "layout_understanding", "fine_grained_manipulation",
                      "refusal", "unclassified"}


def test_refined_instructions_keep_ids_targets_and_verdicts():
    original, refined = osworld_g.load_docs(COPY), osworld_g.load_docs(COPY, "refined")
    assert [d["target_box"] for d in original] == [d["target_box"] for d in refined]
    assert refined[0]["id"] == "osworld_g_refined-07JVNIBSB9-0" and original[0]["id"] == "osworld_g-07JVNIBSB9-0"
    assert sum(a["instruction"] != b["instruction"] for a, b in zip(original, refined)) == 42
    assert _verdicts("refined") == _verdicts()


def test_refusal_phrase_counts_only_on_refusal_items_when_selected():
    on = _verdicts(refusal_phrase=True)
    off = _verdicts()
    changed = [(c["id"], c["box_type"], c["case"], a) for c, a, b in zip(CASES, on, off) if a != b]
    # the phrase becomes the readers' [-1, -1, -1, -1]: right on the six refusal items, and no longer the unreadable
    # answer's click at (0, 0) on the box at the origin
    assert [x[1:] for x in changed if x[1] == "refusal"] == [("refusal", "refusal_phrase", True)] * 6
    assert [x for x in changed if x[1] != "refusal"] == [("0FOB4CLBT2-0", "bbox", "refusal_phrase", False)]


def test_refusal_item_is_correct_only_for_negative_coordinates():
    doc = osworld_g.load_docs(COPY)[6]
    assert json.loads(doc["meta"])["osworld_g"]["box_type"] == "refusal"
    got = {a: score_response(doc, a, PARAMS) for a in ("(-1, -1)", "(-0.5, -0.25)", "(-1, 0.5)", "(0, 0)", "none")}
    assert [r["correct"] for r in got.values()] == [True, True, False, False, False]
    assert got["(-1, -1)"]["response_type"] == "correct" and got["(0, 0)"]["response_type"] == "other"


def test_polygon_point_in_bounding_box_but_outside_the_notch_is_wrong():
    assert osworld_g.point_in_polygon(700, 250, [600, 200, 800, 200, 800, 400, 700, 300, 600, 400])
    assert not osworld_g.point_in_polygon(700, 390, [600, 200, 800, 200, 800, 400, 700, 300, 600, 400])
    assert osworld_g.hit(10, 20, "bbox", [10, 20, 0, 5]) and not osworld_g.hit(10.5, 20, "bbox", [10, 20, 0, 5])
    assert not osworld_g.hit(5, 22, "bbox", [10, 20, -30, 5])


def test_report_is_the_scripts_results_dict_with_multi_category_items():
    docs = osworld_g.load_docs(COPY)
    # every item answered at its region's first case: the refusal items with (-1, -1), all others at the center
    first = {}
    for c in CASES:
        first.setdefault(c["row"], c["answer"] if c["box_type"] != "refusal" else "(-1, -1)")
    records = [score_response(docs[i], a, PARAMS) for i, a in sorted(first.items())]
    rep = osworld_g_report(records)
    # never hit under GroundingEval: the negative-width box and the four-number polygon
    assert (rep["total"], rep["correct"]) == (48, 46)
    g = rep["accuracy_dict_group"]
    assert g["refusal"] == {"total": 6, "correct": 6, "accuracy": 1.0}
    assert sum(x["total"] for x in g.values()) > 48  # items in two categories count in both
    assert g["unclassified"]["total"] == 3
    assert rep["box_type_not_in_official_script"]["polygon"]["num_total"] == 10


def test_pss_report_shows_the_official_figure_and_categories():
    from gui_tasks.grounding.report import Series, markdown, summarise

    docs = osworld_g.load_docs(COPY)
    records = [score_response(docs[c["row"]], c["answer"], PARAMS) for c in CASES if c["case"] in ("center", "vertex")]
    summary = summarise(Series("m\ngui_osworld_g", "gui_osworld_g", "osworld_g", records))
    assert summary["official_report"]["total"] == len(records)
    text = markdown([summary])
    assert "Official report (OSWorld-G evaluation scripts, reading official): accuracy" in text
    assert "| layout_understanding |" in text


def test_data_check_counts_each_instruction_set_against_the_release_and_names_odd_polygons():
    check = osworld_g.data_check(COPY)
    assert not check.errors
    counts = {c.task: (c.found, c.expected) for c in check.counts}
    assert counts["gui_osworld_g"] == (48, 564) and counts["gui_osworld_g_refined"] == (48, 564)
    assert counts["  polygon"] == (10, None) and counts["  refusal"] == (6, None)
    assert "osworld_g-07JVNIBSB9-2 4 numbers" in check.notes[0]
    assert "refined instructions that differ from the original: 42 of 48" in check.notes[-1]


def test_bad_box_type_is_a_bad_row_naming_file_row_and_field(tmp_path):
    import shutil

    from gui_tasks.harness.bad_rows import BadRows

    root = tmp_path / "og"
    shutil.copytree(COPY, root)
    path = root / "OSWorld-G.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[5]["box_type"] = "circle"
    path.write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    assert len(osworld_g.load_docs(root, "original", bad)) == 47
    assert (bad.errors[0].row, bad.errors[0].field) == (5, "box_type")


def test_task_rows_load_the_named_instruction_set_as_valid_documents(monkeypatch):
    from gui_tasks.grounding.lmms_task import score_params, task_rows
    from gui_tasks.grounding.schema import validate_doc

    monkeypatch.setenv(benchmark("osworld_g").data.env, str(COPY))
    meta = {"source": "osworld_g", "instructions": "refined", "reading": "lmms_eval", "prompt": "relative"}
    docs = task_rows(meta)
    assert len(docs) == 48 and all(validate_doc(d, file="x", row=i) for i, d in enumerate(docs))
    assert "polygon_rule" not in json.loads(docs[0]["meta"])["osworld_g"]
    params = score_params(meta)
    assert (params.inside_rule, params.reading) == ("inclusive", "lmms_eval")
    assert score_params({**meta, "reading": None}).reading == "official"


_coord = st.integers(min_value=0, max_value=4000)


@settings(max_examples=200, deadline=None)
@given(x1=_coord, y1=_coord, w=st.integers(1, 500), h=st.integers(1, 500), px=_coord, py=_coord)
def test_an_axis_aligned_polygon_is_its_rectangle_away_from_the_edges(x1, y1, w, h, px, py):
    flat = [x1, y1, x1 + w, y1, x1 + w, y1 + h, x1, y1 + h]
    strictly_in = x1 < px < x1 + w and y1 < py < y1 + h
    strictly_out = not (x1 <= px <= x1 + w and y1 <= py <= y1 + h)
    for rule in ("official", "lmms_eval"):
        if strictly_in or strictly_out:
            assert osworld_g.point_in_polygon(px, py, flat, rule) == strictly_in
    # with three vertices or more and an even count, the two rules are one rule
    assert osworld_g.point_in_polygon(px, py, flat, "official") == osworld_g.point_in_polygon(px, py, flat, "lmms_eval")
