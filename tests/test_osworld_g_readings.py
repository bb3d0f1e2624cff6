"""Every OSWorld-G reading equals its harness's code on a corpus built to break them (issue 52, items 1 and 4).

The corpus (tests/fixtures/differential/osworld_g/corpus.json, tests/fixtures/make_osworld_g_corpus.py, seeded) holds
rows, answers and the verdict of each harness's code: lmms-eval 0.7.3's ``osworld_g_process_results`` (called, the
package is installed), VLMEvalKit PR #1020's ``OSWorldG.evaluate`` @ d47d6c7 and ``GroundingEval._eval`` as the
authors' scripts feed it (re-stated in tests/osworld_g_harnesses.py). Checked here: the stored verdicts are what that
code gives today; each reading (``gui_metrics.osworld_g_readings``, and the task pipeline ``score_response`` with
``reading`` set) gives the same verdict on every answer, and stops on no row the code scores.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import osworld_g_harnesses as H
from gui_core.errors import ConfigError
from gui_metrics import osworld_g_readings as rd
from gui_metrics.grounding_official import osworld_g_report
from gui_tasks.grounding.score import ScoreParams, score_response

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "differential" / "osworld_g" / "corpus.json")
                    .read_text(encoding="utf-8"))
ROWS = {r["id"]: r for r in CORPUS["rows"]}
ENTRIES = CORPUS["entries"]
PARAMS = ScoreParams(family="relative", inside_rule="inclusive", strictness="official")
LOADABLE = ("bbox", "polygon", "refusal")  # the box types the release (and our loader) has


def _label(v: rd.Verdict) -> str:
    return "error" if v.status == "error" else "correct" if v.correct else "wrong"


def _scorer_text(reading: str, text: str) -> str:
    return rd.strip_reasoning(text) if reading == "lmms_eval" else text


def test_the_stored_verdicts_are_what_the_harness_code_gives_today():
    strip = [list(p) for p in rd.REASONING_TAGS]
    from lmms_eval.api.reasoning import strip_reasoning_tags

    for e in ENTRIES[::7]:  # a seventh of the corpus: the code is slow to import per row, the rest is the same code
        row = ROWS[e["row"]]
        assert H.lmms_eval_verdict(strip_reasoning_tags(e["text"], strip), row) == e["verdicts"]["lmms_eval"], e
        assert H.vlmevalkit_verdict(e["text"], row) == e["verdicts"]["vlmevalkit"], e


@pytest.mark.parametrize("reading", rd.READINGS)
def test_each_reading_agrees_with_its_code_on_every_answer(reading):
    differ = [(e["row"], e["text"], _label(rd.READERS[reading](_scorer_text(reading, e["text"]), ROWS[e["row"]])),
               e["verdicts"][reading]) for e in ENTRIES
              if _label(rd.READERS[reading](_scorer_text(reading, e["text"]), ROWS[e["row"]])) != e["verdicts"][reading]]
    assert len(ENTRIES) >= 3000 and differ == []


def _doc(row: dict) -> dict:
    w, h = row["image_size"]
    meta = {"osworld_g": {"box_type": row["box_type"], "box_coordinates": row["box_coordinates"], "refusal_phrase": False},
            "report": {"box_type": row["box_type"], "groups": row["groups"] or ["unclassified"]}}
    return {"id": row["id"], "source": "osworld_g", "instruction": "x", "image": "", "width": w, "height": h,
            "target_box": [0, 0, 1, 1], "other_boxes": None, "split": row["box_type"], "meta": json.dumps(meta)}


@pytest.mark.parametrize("reading", rd.READINGS)
def test_the_task_pipeline_scores_every_answer_as_its_code(reading):
    params = replace(PARAMS, reading=reading)
    got = Counter()
    for e in ENTRIES:
        row = ROWS[e["row"]]
        if row["box_type"] not in LOADABLE:
            continue
        rec = score_response(_doc(row), e["text"], params)
        label = "error" if rec["osworld_g_correctness"] == "error" else "correct" if rec["correct"] else "wrong"
        got[label == e["verdicts"][reading]] += 1
        assert rec["params"]["reading"] == reading and rec["official"]["reading"] == reading
    assert got[False] == 0 and got[True] > 3000


def test_the_corpus_separates_the_harnesses_and_covers_every_answer_form():
    verdicts = Counter(tuple(e["verdicts"][r] for r in rd.READINGS) for e in ENTRIES)
    assert len(verdicts) >= 8  # every pair of harnesses disagrees somewhere
    status = {r: Counter(rd.READERS[r](_scorer_text(r, e["text"]), ROWS[e["row"]]).status for e in ENTRIES)
              for r in rd.READINGS}
    assert {"parsed", "refusal", "unreadable", "skipped", "error"} <= set(status["vlmevalkit"])
    assert {"parsed", "unreadable"} <= set(status["lmms_eval"]) and {"parsed", "unreadable"} <= set(status["official"])
    lengths = {len(r["box_coordinates"]) for r in CORPUS["rows"] if r["box_type"] == "polygon"}
    assert {4, 6} <= lengths and any(n % 2 for n in lengths)
    assert any(r["box_type"] == "refusal" and r["box_coordinates"] == [] for r in CORPUS["rows"])
    assert any(not r["groups"] for r in CORPUS["rows"])


def test_vlmevalkit_report_counts_categories_as_its_evaluate():
    rows = [r for r in CORPUS["rows"] if r["box_type"] in LOADABLE and r["box_coordinates"]]
    keep = {r["id"] for r in rows}
    entries = [e for e in ENTRIES if e["row"] in keep][:400]
    official = H.vlmevalkit_evaluate([H.tsv_line(e["text"], ROWS[e["row"]]) for e in entries])
    params = replace(PARAMS, reading="vlmevalkit")
    ours = osworld_g_report([score_response(_doc(ROWS[e["row"]]), e["text"], params) for e in entries])
    assert (ours["total"], ours["correct"]) == (official["total"], official["correct"])
    assert {g: (v["total"], v["correct"]) for g, v in ours["accuracy_dict_group"].items()} == \
        {g: (v["total"], v["correct"]) for g, v in official["accuracy_dict_group"].items()}
    assert "" in ours["accuracy_dict_group"]  # an item in no category: VLMEvalKit's "[]" reads as the category ""


def test_readings_read_out_of_range_values_as_pixels_and_unreadable_answers_as_the_harness_does():
    row = {"box_type": "bbox", "box_coordinates": [0, 0, 40, 30], "image_size": [1920, 1080], "groups": []}
    assert rd.official("[20, 10]", row).correct and rd.lmms_eval("[20, 10]", row).correct  # pixels, not 20 x width
    assert rd.official("nothing here", row).correct  # the scripts' [0, 0, 0, 0]: a click at the origin
    assert not rd.lmms_eval("nothing here", row).correct and rd.lmms_eval("nothing here", row).status == "unreadable"
    assert rd.vlmevalkit("nothing here", row).correct and rd.vlmevalkit("wait", row).status == "refusal"
    refusal = {"box_type": "refusal", "box_coordinates": [], "image_size": [1920, 1080], "groups": ["refusal"]}
    assert rd.vlmevalkit("wait", refusal).status == "error"  # get_float_list('[]'): evaluate stops
    assert rd.vlmevalkit("pyautogui.click(x=a, y=1)", refusal).status == "skipped"  # the parse fails first: continue
    assert rd.official("[-1, -1]", refusal).correct and rd.lmms_eval("[-1, -1]", refusal).correct


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.,-% []()<>/xyXY:=\"'bboxrect\n", max_size=40))
def test_lmms_eval_reader_is_its_parse_point(text):
    from lmms_eval.tasks.osworld_g.utils import _parse_point

    try:
        expected = _parse_point(text)
    except ValueError:  # float("-.") and kin raise there: process_results raises, so does ours
        with pytest.raises(ValueError):
            rd.lmms_eval_point(text)
        return
    assert rd.lmms_eval_point(text) == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.,-+ ()\nxy=waitpyautogui.clickmoveTo", max_size=50))
def test_vlmevalkit_reader_is_parse_aguvis_coordinates(text):
    try:
        expected = [float(v) for v in H.parse_aguvis_coordinates(text)]
    except ValueError:
        with pytest.raises(ValueError):
            rd.aguvis_coordinates(text)
        return
    assert rd.aguvis_coordinates(text)[0] == expected


def test_one_key_selects_the_reading_and_the_old_polygon_rule_is_refused_unless_it_agrees():
    from gui_tasks.grounding.lmms_task import score_params

    meta = {"source": "osworld_g", "prompt": "relative"}
    assert score_params(meta).reading == "official"
    assert score_params({**meta, "reading": "vlmevalkit", "polygon_rule": "official"}).reading == "vlmevalkit"
    with pytest.raises(ConfigError, match="folded into 'reading'"):
        score_params({**meta, "polygon_rule": "lmms_eval"})
    with pytest.raises(ConfigError, match="reading 'vlmevalkt' unknown"):
        score_params({**meta, "reading": "vlmevalkt"})
    with pytest.raises(ConfigError, match="has only official"):
        score_params({"source": "uivision", "prompt": "relative", "reading": "lmms_eval"})  # ScreenSpot has readings too


def test_the_osworld_g_yamls_name_the_reading_and_their_own_version():
    from gui_tasks.grounding.yaml_spec import VERSION, render_all

    files = render_all()
    osw = {k: v for k, v in files.items() if k.startswith("gui_osworld_g")}
    assert len(osw) >= 2 and all('version: "1.3"' in v and "reading: official" in v and "polygon_rule" not in v
                                 for v in osw.values())
    assert f'version: "{VERSION}"' in files["gui_screenspot_pro.yaml"] and VERSION != "1.3"


def test_the_report_names_the_reading_and_the_rows_its_code_stops_on():
    row = {"id": "r", "box_type": "refusal", "box_coordinates": [], "image_size": [100, 100], "groups": []}
    ok = {**row, "id": "s", "box_coordinates": [-1, -1, -1, -1]}
    recs = [score_response(_doc(r), "wait", replace(PARAMS, reading="vlmevalkit")) for r in (row, ok)]
    rep = osworld_g_report(recs)
    assert (rep["reading"], rep["rows_the_code_stops_on"], rep["correct"]) == ("vlmevalkit", 1, 1)
    assert recs[0]["osworld_g_detail"].startswith("get_float_list raised")


@pytest.mark.parametrize("family", ["uground_v1", "aguvis"])
def test_official_hands_a_grid_familys_point_in_pixels_and_a_fraction_familys_numbers_as_written(family):
    row = {"id": "r", "box_type": "bbox", "box_coordinates": [950, 530, 20, 20], "image_size": [1920, 1080], "groups": []}
    text = "(500, 500)" if family == "uground_v1" else "pyautogui.click(x=960, y=540)"
    v = rd.official(text, row, family)
    rec = score_response(_doc(row), text, replace(PARAMS, family=family))
    assert v.correct and rec["correct"] and rec["osworld_g_point"] == pytest.approx([960, 540])
    frac = "(0.5, 0.5)" if family == "uground_v1" else "pyautogui.click(x=0.5, y=0.5)"
    # a fraction family's 0.5 is the centre; UGround-V1's (0.5, 0.5) on its grid is 0.96 x 0.54 pixels, clicked as
    # whole pixels (int, as its code does): the origin
    got = rd.official(frac, row, family)
    assert got.correct == (family == "aguvis")
    assert got.point == pytest.approx((960, 540) if family == "aguvis" else (0, 0))


def test_official_function_and_pipeline_agree_for_every_familys_published_outputs():
    """The conformance outputs of every grounding family (gui_core/conformance), on boxes round their points."""
    conformance = Path(__file__).resolve().parents[1] / "gui_core" / "conformance"
    n = 0
    for path in sorted(conformance.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data["entries"]:
            if entry.get("kind") != "grounding":
                continue
            for box in ([0, 0, 40, 30], [900, 500, 200, 100], [-1, -1, -1, -1]):
                row = {"id": "r", "box_type": "bbox" if box[2] > 0 else "refusal", "box_coordinates": box,
                       "image_size": [1920, 1080], "groups": ["text_matching"]}
                v = rd.official(entry["output"], row, data["family"])
                rec = score_response(_doc(row), entry["output"], replace(PARAMS, family=data["family"]))
                assert (rec["correct"], rec["osworld_g_answer"]) == (v.correct, v.status), (path.name, entry["id"])
                n += 1
    assert n > 200
