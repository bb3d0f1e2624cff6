"""MMBench-GUI L2 against its official scorer: 216 answers over both levels, six platforms, icon and text, scored by
``GUIElementGrounding.evaluate`` / ``level2_calculate_scores`` (open-compass/MMBench-GUI @ 896ddf1, run unchanged
outside the project) on tests/fixtures/mmbench_gui_l2 (make_mmbench_gui_l2.py); verdicts in mmbench_gui_l2_verdicts.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gui_metrics.grounding_official import mmbench_l2_report
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.grounding import mmbench_gui
from gui_tasks.grounding.score import ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"
COPY = FIX / "mmbench_gui_l2"
OFFICIAL = json.loads((FIX / "mmbench_gui_l2_verdicts.json").read_text(encoding="utf-8"))


def _records() -> list[dict]:
    docs = {d["id"]: d for d in mmbench_gui.load_docs(COPY)}
    params = ScoreParams(family="relative", inside_rule="inclusive", strictness="official")
    return [score_response(docs[f"mmbench_gui_l2-{d['index']}"], d["raw_response"], params) for d in OFFICIAL["details"]]


def _flat(tree: dict, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in tree.items():
        out.update(_flat(v, f"{prefix}{k}/") if isinstance(v, dict) else {f"{prefix}{k}": float(v)})
    return out


def test_every_sample_and_every_figure_equal_the_official_scorer():
    records = _records()
    assert len(records) == 216
    assert [r["official"]["correctness"] for r in records] == [d["correctness"] for d in OFFICIAL["details"]]
    ours, theirs = _flat(mmbench_l2_report(records)), _flat(OFFICIAL["scores"])
    assert ours.keys() == theirs.keys() and ours == pytest.approx(theirs, abs=1e-9)
    # the levels are micro over their platforms, their mean is macro: hand-computed from the verdicts
    basic = [d for d, r in zip(OFFICIAL["details"], records) if r["split"].startswith("basic")]
    assert OFFICIAL["scores"]["Basic accuracy"] == pytest.approx(100 * sum(d["correctness"] == "correct" for d in basic) / len(basic))
    assert OFFICIAL["scores"]["Average accuracy"] == pytest.approx(
        (OFFICIAL["scores"]["Basic accuracy"] + OFFICIAL["scores"]["Advanced accuracy"]) / 2)


def test_the_constructed_set_covers_levels_platforms_types_and_edges():
    cases = {d["case"] for d in OFFICIAL["details"]}
    assert {"left_edge", "right_edge", "top_edge", "bottom_edge", "corner", "just_right_outside", "no_point"} <= cases
    assert {d["correctness"] for d in OFFICIAL["details"]} == {"correct", "wrong", "wrong_format"}
    assert set(OFFICIAL["scores"]["basic"]) == set(OFFICIAL["scores"]["advanced"]) == set(mmbench_gui.PLATFORMS)


def test_box_forms_as_the_scorer_reads_them():
    size, path = (1000, 500), Path("L2_annotations.json")
    assert mmbench_gui.relative_box([0.1, 0.2, 0.3, 0.4], size, path, 0) == [0.1, 0.2, 0.3, 0.4]
    assert mmbench_gui.relative_box([100, 100, 300, 200], size, path, 0) == [0.1, 0.2, 0.3, 0.4]
    assert mmbench_gui.relative_box("[100, 100, 300, 200]", size, path, 0) == [0.1, 0.2, 0.3, 0.4]
    assert mmbench_gui.relative_box([-1, 100, 300, 200], size, path, 0) == [0.0, 0.2, 0.3, 0.4]  # make_safe
    with pytest.raises(DataError, match="out of range") as err:
        mmbench_gui.relative_box([100, 100, 1300, 200], size, path, 5)
    assert (err.value.row, err.value.field) == (5, "bbox")


def test_a_level_missing_gives_nan_where_the_script_stops():
    records = [r for r in _records() if r["split"].startswith("basic")]
    report = mmbench_l2_report(records)
    assert math.isnan(report["Advanced accuracy"]) and not math.isnan(report["Basic accuracy"])


def test_a_row_without_image_is_a_bad_row(tmp_path):
    import shutil

    root = tmp_path / "mmb"
    shutil.copytree(COPY, root)
    rows = json.loads((root / "L2_annotations.json").read_text(encoding="utf-8"))
    rows[2]["image_path"] = None
    (root / "L2_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    assert len(mmbench_gui.load_docs(root, bad)) == 215 and (bad.errors[0].row, bad.errors[0].field) == (2, "image_path")


def test_pss_report_shows_level2_scores():
    from gui_tasks.grounding.report import Series, markdown, summarise

    summary = summarise(Series("m\ngui_mmbench_gui_l2", "gui_mmbench_gui_l2", "mmbench_gui_l2", _records()))
    assert summary["official_report"]["Average accuracy"] == pytest.approx(OFFICIAL["scores"]["Average accuracy"])
    ios = OFFICIAL["scores"]["basic"]["os_ios"]
    assert (f"| basic | os_ios | {ios['Total accuracy']:.2f} | {ios['Icon accuracy']:.2f} | {ios['Text accuracy']:.2f} | 18 |"
            in markdown([summary]))


def test_data_check_counts_levels_and_platforms():
    check = mmbench_gui.data_check(COPY)
    counts = {c.task.strip(): c.found for c in check.counts}
    assert check.ok and counts["gui_mmbench_gui_l2"] == 216 and counts["advanced os_web"] == 18
    assert "boxes published relative: 24, in pixels: 192; with a -1 corner (read as 0): 6" in check.notes[0]
