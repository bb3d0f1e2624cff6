"""MMBench-GUI L2's whole table (issue 52): every row the official ``evaluate`` scores is scored here as it scores it.

The corpus (tests/fixtures/mmbench_gui_l2_whole, make_mmbench_gui_l2_whole.py, our own generator) holds every
data_type form, other levels, boxes in pixels / relative / beyond 0-1 / at the image edge, row image sizes that differ
from the PNG's, and rows that stop the official run. The oracle is tests/mmbench_l2_restated.py, a line-by-line
re-statement of ``evaluate`` and ``level2_calculate_scores`` (open-compass/MMBench-GUI @ 896ddf1). Asserted: the rows
we refuse are exactly the rows that stop it, every other row's verdict is equal, and every per-slice figure is equal.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import mmbench_l2_restated as official
from gui_core.errors import DataError
from gui_metrics.grounding_official import mmbench_l2_report
from gui_tasks.grounding import mmbench_gui
from gui_tasks.grounding.score import ScoreParams, score_response
from gui_tasks.harness.bad_rows import BadRows

ROOT = Path(__file__).parent / "fixtures" / "mmbench_gui_l2_whole"
ROWS = json.loads((ROOT / "L2_annotations.json").read_text(encoding="utf-8"))
ANSWERS = json.loads((ROOT / "answers.json").read_text(encoding="utf-8"))
VERDICT = {"correct": 1, "wrong": 0, "wrong_format": -1}
FAMILIES = ("relative", "ui_tars_1_5")


def _ours(family: str) -> tuple[set[int], dict[int, dict]]:
    bad = BadRows(skip=True)
    docs = mmbench_gui.load_docs(ROOT, bad)
    params = ScoreParams(family=family, inside_rule="inclusive", strictness="official")
    records = {}
    for d in docs:
        i = json.loads(d["meta"])["row"]
        records[i] = score_response(d, ANSWERS[family][i], params)
    return {e.row for e in bad.errors}, records


def _flat(tree: dict, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in tree.items():
        name = "None" if isinstance(k, float) and math.isnan(k) else str(k)  # pandas' NaN level is our None
        out.update(_flat(v, f"{prefix}{name}/") if isinstance(v, dict) else {f"{prefix}{name}": float(v)})
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_refused_rows_are_exactly_the_rows_the_official_run_cannot_get_past(family):
    theirs = official.evaluate(ROWS, ANSWERS[family], ROOT / "offline_images", family, stop_on_raise=False)
    refused, records = _ours(family)
    assert refused == set(theirs["stopped"]) and 50 <= len(refused) <= 120
    assert set(records) == set(theirs["verdicts"]) and len(records) + len(refused) == len(ROWS)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_verdict_and_every_per_slice_figure_equal_the_official_evaluate(family):
    theirs = official.evaluate(ROWS, ANSWERS[family], ROOT / "offline_images", family, stop_on_raise=False)
    _, records = _ours(family)
    bad = [(i, ROWS[i]["bbox"], ANSWERS[family][i], r["official"]["correctness"], theirs["verdicts"][i])
           for i, r in records.items() if VERDICT[r["official"]["correctness"]] != theirs["verdicts"][i]]
    assert not bad, bad[:10]
    ours, scores = _flat(mmbench_l2_report(list(records.values()))), _flat(official.level2_calculate_scores(theirs["stats"]))
    assert ours.keys() == scores.keys()
    assert ours == pytest.approx(scores, abs=1e-9, rel=1e-12)
    # the forms the issue names are there and scored: other data types in Total, other levels as their own
    assert {"expert", "None"} <= {k.split("/")[0] for k in ours}
    web = official.level2_calculate_scores(theirs["stats"])["basic"]["os_web"]
    assert web["Total num"] > web["Icon num"] + web["Text num"]


def test_the_corpus_holds_the_forms_of_the_issue():
    kinds = {r["instruction"].split("(")[-1].rstrip(")") for r in ROWS if isinstance(r.get("instruction"), str)}
    assert {"px_int", "rel", "beyond_fraction", "edge_px", "minus_one", "off_image", "five", "bools"} <= kinds
    assert {str(r.get("data_type")) for r in ROWS} >= {"icon", "text", "widget", "Icon", "None", "3", "['icon']"}
    sizes = {str(r.get("image_size")) for r in ROWS}
    assert any(s.startswith("[0, 0]") for s in sizes) and "None" in sizes


def test_ui_tars_reads_with_the_rows_image_size_not_the_pngs():
    from gui_core.grounding_wrappers import read_mmbench_ui_tars_1_5

    # a 1000x1000 PNG whose row says 2000x2000: (700, 700) over the row's smart-resize (1988) is 0.352, not 0.7
    got = read_mmbench_ui_tars_1_5("(700,700)", 1000, 1000, row_image_size="[2000, 2000]")
    assert got.point == pytest.approx((700 / 1988, 700 / 1988))
    assert read_mmbench_ui_tars_1_5("(700,700)", 1000, 1000).point == pytest.approx((700 / 1008, 700 / 1008))
    for cell in (None, "[0, 0]", "[1, 2, 3]", "nan"):  # evaluate's try: wrong_format
        assert read_mmbench_ui_tars_1_5("(700,700)", 1000, 1000, row_image_size=cell).status == "malformed"


def test_a_category_column_keys_every_row_and_a_row_without_one_stops(tmp_path):
    import shutil

    root = tmp_path / "mmb"
    shutil.copytree(ROOT, root)
    rows = [r for r in ROWS if r.get("data_type") in ("icon", "text")][:20]
    for k, r in enumerate(rows):
        if k != 3:
            r["category"] = "c"
    (root / "L2_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = mmbench_gui.load_docs(root, bad)
    theirs = official.evaluate(rows, ["(0.5, 0.5)"] * len(rows), root / "offline_images", "relative", stop_on_raise=False)
    assert {e.row for e in bad.errors} == set(theirs["stopped"]) and 3 in theirs["stopped"]
    assert {json.loads(d["meta"])["report"]["data_type"] for d in docs} <= {"c:icon", "c:text"}


def test_a_non_finite_box_value_is_refused_by_the_house_bound(tmp_path):
    """The one named departure: NaN / Infinity in a row is refused before reading (gui_core.bounds); the official
    evaluate keeps a NaN box (never hit) and stops on an infinite one."""
    import shutil

    root = tmp_path / "mmb"
    shutil.copytree(ROOT, root)
    rows = [dict(ROWS[0], bbox=[1, "NaN", 3, 4])]
    (root / "L2_annotations.json").write_text(json.dumps(rows).replace('"NaN"', "NaN"), encoding="utf-8")
    bad = BadRows(skip=True)
    assert mmbench_gui.load_docs(root, bad) == [] and "not a finite number" in str(bad.errors[0])


def test_stopping_rows_name_the_official_statement():
    with pytest.raises(DataError, match="bbox out of range") as err:
        mmbench_gui.relative_box([100, 100, 1300, 200], (1000, 500), Path("L2_annotations.json"), 5)
    assert "l2_element_grounding.py" in str(err.value) and (err.value.row, err.value.field) == (5, "bbox")
    with pytest.raises(DataError, match="fewer than four"):
        mmbench_gui.relative_box([1, 2, 3], (10, 10), Path("x"), 0)
    # five values: is_normalized reads them all, the first four are the box
    assert mmbench_gui.relative_box([0.1, 0.2, 0.3, 0.4, 0.9], (10, 10), Path("x"), 0) == [0.1, 0.2, 0.3, 0.4]
    assert mmbench_gui.relative_box([0.1, 0.2, 0.3, 0.4, 7], (10, 10), Path("x"), 0) == pytest.approx([0.01, 0.02, 0.03, 0.04])


def test_the_report_shows_every_level_and_counts_other_types_in_total():
    from gui_tasks.grounding.report import Series, markdown, summarise

    _, records = _ours("relative")
    summary = summarise(Series("m\ngui_mmbench_gui_l2", "gui_mmbench_gui_l2", "mmbench_gui_l2", list(records.values())))
    table = markdown([summary])
    assert "| expert | os_web | 66.67 |" in table and "| None | os_web |" in table
    web = summary["official_report"]["expert"]["os_web"]
    assert (web["Total num"], web["Icon num"], web["Text num"]) == (3, 1, 1)  # the widget row counts in Total only
