"""Held-out check of issue 46: answers the wrapper readers were not built from agree with the official code, 100%.

The corpora (tests/fixtures/differential/wrappers_heldout/) come from a generator written apart from the one behind
tests/fixtures/differential/wrappers/ (hand-made hostile forms; seeded fuzz of signs, exponents, unicode and
full-width digits, full-width commas, nested brackets, several pairs, think blocks, box tags and refusal phrases in
several positions; values 1 ulp around box edges and image borders, huge and subnormal values) and from their own
cases (point, reversed, off-image, full-image, 7x5 and 4K images). They hold only inputs and the verdicts of the
official files named in each corpus's ``source`` (repository, commit, wrapper, scorer), run with the model runtime
stubbed. A verdict ``raises:<Error>`` is a run the official code stops: here that answer is ``wrong_format``, the one
named departure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from test_grounding_wrappers import _doc, our_verdict, scorer_box

from gui_core.grounding_wrappers import wrappers, wrapper_for
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.grounding import mmbench_gui, screenspot, uivision
from gui_tasks.grounding.schema import validate_doc
from gui_tasks.grounding.score import ScoreParams, score_response

HELDOUT = Path(__file__).parent / "fixtures" / "differential" / "wrappers_heldout"
NAMES = sorted(p.stem for p in HELDOUT.glob("*.json"))


def _corpus(name: str) -> dict:
    return json.loads((HELDOUT / f"{name}.json").read_text(encoding="utf-8"))


def _expected(verdict: str) -> str:
    return "wrong_format" if verdict.startswith("raises:") else verdict


def test_every_wrapper_has_a_heldout_corpus():
    assert {f"{b}_{f}" + ("_negative" if n else "") for b, f, n in wrappers()} == set(NAMES)
    for name in NAMES:
        corpus = _corpus(name)
        assert 150 <= len(corpus["entries"]) <= 400 and len(corpus["source"]["commit"]) == 40, name
        assert len({e["text"] for e in corpus["entries"]}) == len(corpus["entries"]), name


@pytest.mark.parametrize("name", NAMES)
def test_heldout_answers_read_as_the_official_code_reads_them(name):
    corpus = _corpus(name)
    family = name[len(corpus["benchmark"]) + 1:].removesuffix("_negative")
    wrapper = wrapper_for(corpus["benchmark"], family, corpus["negative"])
    assert wrapper is not None and wrapper.commit == corpus["source"]["commit"], name
    params = ScoreParams(family=family, inside_rule="inclusive", strictness="official")
    bad = []
    for k, (w, h, b) in enumerate(corpus["cases"]):
        box = scorer_box(corpus["benchmark"], w, h, b)
        doc = _doc(corpus["benchmark"], w, h, box, corpus["negative"])
        for e in corpus["entries"]:
            theirs = _expected(e["verdicts"][k])
            ours = our_verdict(wrapper, e["text"], w, h, box)
            task = score_response(doc, e["text"], params)["official"]["correctness"] if k == 0 else theirs
            if ours != theirs or task != theirs:
                bad.append(f"{e['id']} {e['text'][:80]!r} on {w}x{h} {b}: reader {ours}, task {task}, official {theirs}")
    assert not bad, f"{name}: {len(bad)} disagreements:\n" + "\n".join(bad[:15])


# --- the held-out cases as dataset rows: the loaders refuse none of the rows the official scorers score ----------------

CASES = _corpus("uivision_ui_tars")["cases"]
MMB_CASES = _corpus("mmbench_gui_l2_relative")["cases"]  # the MMBench scorer stops on the others


def _pngs(folder: Path, cases: list) -> dict[tuple[int, int], str]:
    folder.mkdir(parents=True, exist_ok=True)
    for w, h, _ in cases:
        Image.new("1", (w, h), 1).save(folder / f"{w}x{h}.png")
    return {(w, h): f"{w}x{h}.png" for w, h, _ in cases}


def test_no_heldout_probe_row_is_refused(tmp_path):
    names = _pngs(tmp_path / "ss" / "images" / "app", CASES)
    rows = [{"img_filename": f"app/{names[(w, h)]}", "bbox": b, "instruction": "open", "instruction_cn": "打开",
             "id": f"h{k}", "application": "app", "platform": "macos", "img_size": [w, h], "ui_type": "icon",
             "group": "Office"} for k, (w, h, b) in enumerate(CASES)]
    (tmp_path / "ss" / "annotations").mkdir()
    (tmp_path / "ss" / "annotations" / "app_macos.json").write_text(json.dumps(rows), encoding="utf-8")
    for kw in ({}, {"language": "cn"}, {"gt_type": "negative"}):
        bad = BadRows(skip=True)
        docs = screenspot.load_pro(tmp_path / "ss", bad, **kw)
        assert not bad.errors and len(docs) == len(CASES), kw
        for i, d in enumerate(docs):
            validate_doc(d, file="heldout", row=i)
    for d, (w, h, b) in zip(screenspot.load_pro(tmp_path / "ss"), CASES):
        assert json.loads(d["meta"])["target_relative"] == scorer_box("screenspot_pro", w, h, b)

    root = tmp_path / "uiv"
    names = _pngs(root / "images", CASES)
    path = uivision.annotation_file(root, "functional")
    path.parent.mkdir(parents=True)
    rows = [{"image_path": names[(w, h)], "image_size": [w, h], "bbox": b, "prompt_to_evaluate": "open",
             "platform": "p", "element_type": "text", "category": "c"} for w, h, b in CASES]
    path.write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = uivision.load_docs(root, "functional", bad)
    assert not bad.errors and len(docs) == len(CASES)
    for d, (w, h, b) in zip(docs, CASES):
        assert json.loads(d["meta"])["target_relative"] == scorer_box("uivision", w, h, b)

    root = tmp_path / "mmb"
    names = _pngs(root / "offline_images" / "os_mac", MMB_CASES)
    rows = [{"index": k, "image_path": names[(w, h)], "platform": "os_mac", "instruction": "open", "bbox": b,
             "data_type": "text", "grounding_type": "advanced", "app_name": "a"} for k, (w, h, b) in enumerate(MMB_CASES)]
    (root / "L2_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    bad = BadRows(skip=True)
    docs = mmbench_gui.load_docs(root, bad)
    assert not bad.errors and len(docs) == len(MMB_CASES)
    for d, (w, h, b) in zip(docs, MMB_CASES):
        assert json.loads(d["meta"])["target_relative"] == scorer_box("mmbench_gui_l2", w, h, b)
