"""Every benchmark repository's own wrapper reading agrees with that wrapper and its scorer (issue 46, items 1, 2, 4, 5).

The corpora (tests/fixtures/differential/wrappers/<benchmark>_<family>.json) hold only inputs and the verdicts the
official code gave on them: the wrapper class's own method, run from the decoded response on (the model runtime
stubbed), and the benchmark's scorer (UI-Vision ``eval_sample_positive_gt``, ScreenSpot-Pro ``eval_sample_positive_gt``
/ ``eval_sample_negative_gt``, MMBench-GUI ``GUIElementGrounding.evaluate`` with the named parse function), on the
repository, commit and path each corpus names. Each answer meets every case (image size, box as published: degenerate,
reversed, off-image and 1-ulp edges included). A verdict ``raises:<Error>`` is a run the official code stops: here
that answer is no point (wrong_format), the one named departure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gui_core.grounding_wrappers import WRAPPERS, mmbench_parse, wrapper_for

CORPORA = Path(__file__).parent / "fixtures" / "differential" / "wrappers"
NAMES = sorted(p.stem for p in CORPORA.glob("*.json"))


def _corpus(name: str) -> dict:
    return json.loads((CORPORA / f"{name}.json").read_text(encoding="utf-8"))


def scorer_box(benchmark: str, w: int, h: int, b: list[float]) -> list[float]:
    """The relative box each scorer tests against, in its own arithmetic."""
    b = list(b)
    if benchmark == "uivision":  # eval_sample_positive_gt swaps reversed corners
        if b[0] > b[2]:
            b[0], b[2] = b[2], b[0]
        if b[1] > b[3]:
            b[1], b[3] = b[3], b[1]
    if benchmark == "mmbench_gui_l2":
        from gui_tasks.grounding.mmbench_gui import relative_box

        return relative_box(b, (w, h), Path("corpus"), 0)
    return [b[0] / w, b[1] / h, b[2] / w, b[3] / h]


def our_verdict(wrapper, text: str, w: int, h: int, box: list[float]) -> str:
    found = wrapper.reader(text, w, h)
    if wrapper.negative:
        result = found.detail.split(":", 1)[0]
        return {"negative": "correct", "positive": "wrong"}.get(result, "wrong_format")
    if found.point is None:
        return "wrong_format"
    x, y = found.point
    return "correct" if box[0] <= x <= box[2] and box[1] <= y <= box[3] else "wrong"


def agreement(name: str) -> tuple[int, int, list[str]]:
    corpus = _corpus(name)
    family = name[len(corpus["benchmark"]) + 1:].removesuffix("_negative")
    wrapper = wrapper_for(corpus["benchmark"], family, corpus["negative"])
    assert wrapper is not None and wrapper.commit == corpus["source"]["commit"], name
    boxes = [scorer_box(corpus["benchmark"], w, h, b) for w, h, b in corpus["cases"]]
    agree, total, bad = 0, 0, []
    for e in corpus["entries"]:
        for (w, h, _), box, theirs in zip(corpus["cases"], boxes, e["verdicts"]):
            ours = our_verdict(wrapper, e["text"], w, h, box)
            expected = "wrong_format" if theirs.startswith("raises:") else theirs
            total += 1
            if ours == expected:
                agree += 1
            else:
                bad.append(f"{e['id']} {e['text'][:80]!r} on {w}x{h} {box}: ours {ours}, theirs {theirs}")
    return agree, total, bad


def test_every_wrapper_has_a_corpus_that_names_its_source():
    assert {f"{b}_{f}" + ("_negative" if n else "") for b, f, n in WRAPPERS} == set(NAMES)
    for name in NAMES:
        corpus = _corpus(name)
        assert len(corpus["entries"]) >= 200 and len(corpus["source"]["commit"]) == 40, name
        assert len({e["text"] for e in corpus["entries"]}) == len(corpus["entries"])


@pytest.mark.parametrize("name", NAMES)
def test_wrapper_reading_agrees_with_the_official_code(name):
    agree, total, bad = agreement(name)
    assert not bad, f"{name}: {agree}/{total} agree; first disagreements:\n" + "\n".join(bad[:15])


# --- the same answers through the task path (score_response: wrapper lookup, official verdict) ---------------------

from gui_tasks.grounding.score import ScoreParams, score_response  # noqa: E402


def _doc(benchmark: str, w: int, h: int, rel: list[float], negative: bool = False) -> dict:
    meta = {"target_relative": rel, "report": {}, **({"gt_type": "negative"} if negative else {})}
    return {"id": "d", "split": "s", "source": benchmark, "width": w, "height": h,
            "target_box": [0, 0, w, h], "other_boxes": None, "meta": json.dumps(meta)}


@pytest.mark.parametrize("name", NAMES)
def test_task_path_gives_the_official_verdict(name):
    corpus = _corpus(name)
    family = name[len(corpus["benchmark"]) + 1:].removesuffix("_negative")
    (w, h, b) = corpus["cases"][0]
    doc = _doc(corpus["benchmark"], w, h, scorer_box(corpus["benchmark"], w, h, b), corpus["negative"])
    params = ScoreParams(family=family, inside_rule="inclusive", strictness="official")
    for e in corpus["entries"][:: max(1, len(corpus["entries"]) // 150)]:
        theirs = e["verdicts"][0]
        rec = score_response(doc, e["text"], params)
        assert rec["official"]["correctness"] == ("wrong_format" if theirs.startswith("raises:") else theirs), e
        assert rec["reading"].startswith(corpus["source"]["repo"])


def test_authors_strictness_keeps_the_family_reading():
    doc = _doc("uivision", 1000, 1000, [0.0, 0.0, 0.02, 0.02])
    text = "I cannot tell"  # UI-Vision's UI-TARS wrapper: the click (0, 0), on this box's corner
    official = score_response(doc, text, ScoreParams(family="ui_tars", inside_rule="inclusive"))
    assert official["correct"] and official["status"] == "parsed" and official["official"]["correctness"] == "correct"
    authors = score_response(doc, text, ScoreParams(family="ui_tars", inside_rule="inclusive", strictness="authors"))
    assert authors["status"] == "malformed" and authors["official"]["correctness"] == "wrong_format"
    assert authors["params"]["strictness"] == "authors" and "reading" not in authors


def test_mmbench_parser_forms_of_the_issue():
    assert mmbench_parse("[166, 108]") == (166.0, 108.0)
    assert mmbench_parse("x=0.5, y=0.5") == (0.5, 0.5) and mmbench_parse("(0.5, 0.5") == (0.5, 0.5)
    assert mmbench_parse("<think>[0.0001,0.0001]</think>[0.5,0.5]") == (0.0001, 0.0001)
    assert mmbench_parse("Step 1, 2: click [0.5,0.5]") == (1.0, 2.0)
    assert mmbench_parse("1.2.3, 4") == (2.3, 4.0) and mmbench_parse("0.5") is None


def test_mmbench_parser_is_linear_where_the_regex_is_cubic():
    import time

    start = time.perf_counter()
    for text in ("1" + " " * 200_000 + "a", "1" * 200_000, ".5" * 100_000, "1, y" * 50_000):
        mmbench_parse(text)
    assert time.perf_counter() - start < 5


def test_a_non_finite_point_is_wrong_not_a_format_error():
    doc = _doc("mmbench_gui_l2", 1000, 1000, [0.1, 0.1, 0.2, 0.2])
    rec = score_response(doc, "1" * 400 + ", 5", ScoreParams(family="relative", inside_rule="inclusive"))
    assert rec["point_not_finite"] and rec["official"]["correctness"] == "wrong"
    assert math.isnan(float("nan")) and not rec["correct"]
