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

from gui_core.grounding_wrappers import wrappers, mmbench_parse, wrapper_for

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
    assert {f"{b}_{f}" + ("_negative" if n else "") for b, f, n in wrappers()} == set(NAMES)
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


# --- item 3: no row an official scorer scores is refused; the loaders hand scoring the scorer's own box ---------------

from PIL import Image  # noqa: E402

from gui_tasks.harness.bad_rows import BadRows  # noqa: E402
from gui_tasks.grounding import mmbench_gui, screenspot, uivision  # noqa: E402
from gui_tasks.grounding.schema import validate_doc  # noqa: E402

PROBE_CASES = _corpus("uivision_ui_tars")["cases"]  # degenerate, reversed, off-image, odd sizes: run through the scorers


def _pngs(folder: Path) -> dict[tuple[int, int], str]:
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for w, h, _ in PROBE_CASES:
        names[(w, h)] = f"{w}x{h}.png"
        Image.new("1", (w, h), 1).save(folder / names[(w, h)])
    return names


def _sspro_copy(root: Path) -> None:
    names = _pngs(root / "images" / "app")
    rows = [{"img_filename": f"app/{names[(w, h)]}", "bbox": b, "instruction": "save", "instruction_cn": "保存",
             "id": f"p{k}", "application": "app", "platform": "windows", "img_size": [w, h], "ui_type": "text",
             "group": "Dev"} for k, (w, h, b) in enumerate(PROBE_CASES)]
    rows += [  # fields the scorer does not read, or reads without refusing
        {**rows[0], "id": "q1", "instruction": "", "instruction_cn": ""}, {**rows[0], "id": "q2", "ui_type": "button"},
        {k: v for k, v in rows[0].items() if k != "group"} | {"id": "q3"}, {**rows[0], "id": "q4", "img_size": [500, 500]}]
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "app_windows.json").write_text(json.dumps(rows), encoding="utf-8")


def test_no_screenspot_pro_probe_row_is_refused_and_each_box_is_the_scorers(tmp_path):
    _sspro_copy(tmp_path)
    for kw in ({}, {"language": "cn"}, {"gt_type": "negative"}):
        bad = BadRows(skip=True)
        docs = screenspot.load_pro(tmp_path, bad, **kw)
        assert not bad.errors and len(docs) == len(PROBE_CASES) + 4, kw
    docs = {d["id"]: d for d in screenspot.load_pro(tmp_path)}
    for i, d in enumerate(docs.values()):
        validate_doc(d, file="probe", row=i)  # process_docs takes them too
    for k, (w, h, b) in enumerate(PROBE_CASES):
        assert json.loads(docs[f"screenspot_pro-p{k}"]["meta"])["target_relative"] == scorer_box("screenspot_pro", w, h, b)
    odd = json.loads(docs["screenspot_pro-q4"]["meta"])
    assert odd["target_relative"] == scorer_box("screenspot_pro", 500, 500, PROBE_CASES[0][2])
    assert odd["row_warnings"] == ["img_size differs from the PNG"]
    rows = json.loads((tmp_path / "annotations" / "app_windows.json").read_text(encoding="utf-8"))
    for row in rows:
        row.pop("bbox")  # a negative row's bbox is never read
    (tmp_path / "annotations" / "app_windows.json").write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    assert len(screenspot.load_pro(tmp_path, bad, gt_type="negative")) == len(rows) and not bad.errors


def test_no_uivision_or_mmbench_probe_row_is_refused(tmp_path):
    root = tmp_path / "uiv"
    names = _pngs(root / "images")
    path = uivision.annotation_file(root, "basic")
    path.parent.mkdir(parents=True)
    rows = [{"image_path": names[(w, h)], "image_size": [w, h], "bbox": b, "prompt_to_evaluate": "save",
             "platform": "p", "element_type": "icon", "category": "c"} for w, h, b in PROBE_CASES]
    rows.append({**rows[0], "prompt_to_evaluate": "", "image_size": [10, 10], "element_type": "widget"})
    path.write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = uivision.load_docs(root, "basic", bad)
    assert not bad.errors and len(docs) == len(rows)
    for i, d in enumerate(docs):
        validate_doc(d, file="probe", row=i)
    for d, (w, h, b) in zip(docs, PROBE_CASES):
        assert json.loads(d["meta"])["target_relative"] == scorer_box("uivision", w, h, b)

    root = tmp_path / "mmb"
    names = _pngs(root / "offline_images" / "os_web")
    inside = [(w, h, b) for w, h, b in _corpus("mmbench_gui_l2_relative")["cases"]]  # the scorer stops on the others
    rows = [{"index": k, "image_path": names[(w, h)], "platform": "os_web", "instruction": "save" if k else "",
             "bbox": b, "data_type": "icon", "grounding_type": "basic", "app_name": "a"} for k, (w, h, b) in enumerate(inside)]
    (root / "L2_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = mmbench_gui.load_docs(root, bad)
    assert not bad.errors and len(docs) == len(rows)
    for i, d in enumerate(docs):
        validate_doc(d, file="probe", row=i)
    for d, (w, h, b) in zip(docs, inside):
        assert json.loads(d["meta"])["target_relative"] == scorer_box("mmbench_gui_l2", w, h, b)
