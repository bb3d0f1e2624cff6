"""Every ``official`` grounding reading agrees with its authors' own parser on a hostile corpus (issue 35, item 3).

The corpora (tests/fixtures/differential/grounding/<family>.json) hold only inputs and the verdicts the authors' code
gave on them, run outside the project on the fetched file named in each corpus's ``source`` (repository, commit,
path; a documentation page: its address and the day it was read). The image is 1000x1000 and seen unresized, so resized pixels and the 0-1000 grid coincide; a point and its
boxes are in the family's answer frame. The text is what lmms-eval hands to ``process_results``: our grounding
YAMLs set ``reasoning_tags: none``, so lmms-eval 0.7.3 strips nothing and a ``<think>`` block reaches the reader.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gui_core.coords import MAX_COORD
from gui_core.grounding import parse_point

CORPORA = Path(__file__).parent / "fixtures" / "differential" / "grounding"
FAMILIES = sorted(p.stem for p in CORPORA.glob("*.json"))


def _corpus(family: str) -> dict:
    return json.loads((CORPORA / f"{family}.json").read_text(encoding="utf-8"))


def _inside(p: tuple[float, float], box: list[float], rule: str) -> bool:
    x, y = p
    if rule == "half_open":
        return box[0] <= x < box[2] and box[1] <= y < box[3]
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def our_verdicts(family: str, text: str, boxes: list[list[float]], rule: str) -> tuple[list[str], tuple | None]:
    """Our ``official`` reading's verdict per box, and its point (truncated to whole pixels where the authors do)."""
    answer = parse_point(text, family, "official")
    if answer.status == "dropped":
        return ["dropped"] * len(boxes), None
    p = answer.point
    if p is None or not all(math.isfinite(v) for v in p):
        return ["miss"] * len(boxes), None
    if answer.truncate:  # int() of original pixels, in the authors' order of operations (the image is 1000 wide)
        to_px = (lambda v: v / 1000 * 1000) if answer.frame == "grid1000" else (lambda v: v * 1000 / 1000)
        p = (float(int(to_px(p[0]))), float(int(to_px(p[1]))))
    return ["hit" if _inside(p, b, rule) else "miss" for b in boxes], p


def agreement(family: str) -> tuple[int, int, list[str]]:
    corpus = _corpus(family)
    agree, bad = 0, []
    for e in corpus["entries"]:
        ours, point = our_verdicts(family, e["text"], corpus["boxes"], corpus["rule"])
        theirs = ["miss" if v == "raises" else v for v in e["verdicts"]]  # the authors' run stops: no point, no hit
        same = ours == theirs
        plausible = "point" in e and all(abs(v) <= MAX_COORD for v in e["point"])  # beyond: a miss either way (issue 21)
        if same and plausible and "dropped" not in theirs:
            same = point is not None and all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) for a, b in zip(point, e["point"]))
        agree += same
        if not same:
            bad.append(f"{e['id']} {e['text']!r}: ours {ours} {point}, theirs {e['verdicts']} {e.get('point')}")
    return agree, len(corpus["entries"]), bad


def test_every_corpus_is_large_and_names_its_source():
    assert len(FAMILIES) >= 13
    for family in FAMILIES:
        corpus = _corpus(family)
        assert len(corpus["entries"]) >= 200, family
        source = corpus["source"]
        if "url" in source:  # the authors publish their reader only on a documentation page (Holo3's guide)
            assert source["url"].startswith("https://") and source["retrieved"], family
        else:
            assert len(source["commit"]) == 40 and source["path"], family
        assert corpus["family"] == family


@pytest.mark.parametrize("family", FAMILIES)
def test_official_reading_agrees_with_the_authors_parser(family):
    agree, total, bad = agreement(family)
    assert not bad, f"{family}: {agree}/{total} agree; first disagreements:\n" + "\n".join(bad[:15])


# --- what the official readings do to a score ------------------------------------------------------------------------

from gui_metrics.pss import accuracy, format_error_rate  # noqa: E402
from gui_tasks.grounding.score import ScoreParams, score_response  # noqa: E402


def _doc(box: list[float], width: int = 1000, height: int = 1000) -> dict:
    return {"id": "d", "split": "s", "source": "screenspot_pro", "width": width, "height": height, "target_box": box}


def _score(text: str, family: str, box: list[float], strictness: str = "official", **kw) -> dict:
    # the backend reports the size the model saw (1000x1000, unresized), so resized pixels are original pixels
    from gui_core.logit_capture import CapturedResponse

    response = CapturedResponse(text, extras={"model_image_sizes": [[1000, 1000]]})
    return score_response(_doc(box), response, ScoreParams(family=family, inside_rule=kw.pop("inside_rule", "inclusive"),
                                                           strictness=strictness, **kw))


def test_gta1_decimal_answer_is_the_click_0_0_officially_and_a_format_error_by_the_benchmark_rule():
    official = _score("(500.5,300.2)", "gta1", [0, 0, 20, 20])
    assert official["status"] == "malformed" and official["correct"] and official["point"] == [0.0, 0.0]
    bench = _score("(500.5,300.2)", "gta1", [0, 0, 20, 20], "benchmark")
    assert bench["status"] == "parsed" and not bench["correct"]  # the benchmark reads the decimal point (500.5, 300.2)
    assert _score("(500.5,300.2)", "gta1", [490, 290, 510, 310], "benchmark")["correct"]


def test_official_reader_sees_the_reasoning_the_benchmark_reading_skips():
    text = "<think>(10,10)</think>(500,300)"
    assert _score(text, "gta1", [0, 0, 20, 20])["correct"]  # GTA1's regex takes the first (x,y), inside the reasoning
    assert _score(text, "gta1", [490, 290, 510, 310], "benchmark")["correct"]


def test_phi_ground_unparsed_answer_leaves_the_denominator_but_counts_as_a_format_error():
    records = [_score("<point>100, 100</point>", "phi_ground", [90, 60, 120, 80]),  # canvas (100.8, 67.2)
               _score("<box>1, 2, 3, 4</box>", "phi_ground", [0, 0, 10, 10])]
    assert records[0]["correct"] and records[1]["dropped"] and records[1]["status"] == "dropped"
    assert accuracy(records) == 1.0 and format_error_rate(records) == 0.5
    bench = [_score("<point>100, 100</point>", "phi_ground", [90, 60, 120, 80], "benchmark"),
             _score("<box>1, 2, 3, 4</box>", "phi_ground", [0, 0, 10, 10], "benchmark")]
    assert not bench[1].get("dropped") and accuracy(bench) == 1.0  # the box centre (2.016, 2.016) is read and inside


def test_uground_point_is_truncated_to_whole_original_pixels():
    # int(500.9 / 1000 * 1000) = 500: on the box's right edge; untruncated it would be outside
    assert _score("(500.9, 300.5)", "uground_v1", [0, 0, 500, 300])["correct"]
    assert not _score("(500.9, 300.5)", "uground_v1", [0, 0, 500, 300], "benchmark")["correct"]


def test_half_open_rule_is_se_guis_point_in_box():
    text = "<tool_call>600 300</tool_call>"
    assert _score(text, "se_gui", [400, 250, 600, 350])["correct"]
    assert not _score(text, "se_gui", [400, 250, 600, 350], inside_rule="half_open")["correct"]


def test_lmms_eval_hands_the_grounding_readers_the_whole_answer():
    # lmms-eval 0.7.3 strips reasoning blocks before process_results only where reasoning_tags is configured; a task's
    # value wins over the CLI's, and every grounding YAML says none: the official readers see what the model wrote
    from lmms_eval.api.reasoning import parse_reasoning_tags_config, strip_reasoning_tags

    from gui_tasks.grounding.yaml_spec import render_all

    files = render_all()
    assert files and all("\nreasoning_tags: none\n" in text for text in files.values())
    assert parse_reasoning_tags_config(cli_value='[["<think>", "</think>"]]', task_value="none") is None
    # what it would do otherwise: GTA1's first (x,y) would no longer be the one inside the reasoning
    assert strip_reasoning_tags("<think>(10,10)</think>(500,300)", [["<think>", "</think>"]]) == "(500,300)"


def test_eval_readers_never_run_code_in_an_answer(tmp_path):
    from gui_core.grounding_authors import python_eval

    marker = tmp_path / "ran"
    for text in (f"__import__('pathlib').Path({str(marker)!r}).touch()", "open('x')", "(lambda: 1)()"):
        with pytest.raises(Exception):
            python_eval(text)
        assert parse_point(text, "ui_venus").point == (0.0, 0.0)  # eval fails there too: its box [0, 0, 0, 0]
        assert parse_point(text, "uground_v1").status == "dropped"
    assert not marker.exists()
    assert python_eval("  (100, 200+1, [3][0], -4)") == (100, 201, 3, -4)  # eval's own leading-space strip, arithmetic


def test_a_dropped_answer_stays_out_of_the_official_report_too():
    import json as _json

    from gui_metrics.grounding_official import official_rows

    doc = {**_doc([0, 0, 10, 10]), "meta": _json.dumps({"report": {"group": "Dev", "ui_type": "icon"}})}
    params = ScoreParams(family="phi_ground", inside_rule="inclusive")
    kept, dropped = (score_response(doc, text, params) for text in ("<point>1, 1</point>", "<box>1, 2, 3, 4</box>"))
    assert kept["official"]["correctness"] == "correct" and "official" not in dropped and dropped["dropped"]
    assert len(official_rows([kept, dropped])) == 1
