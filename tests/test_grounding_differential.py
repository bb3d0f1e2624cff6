"""Every ``official`` grounding reading agrees with its authors' own parser on a hostile corpus (issue 35, item 3).

The corpora (tests/fixtures/differential/grounding/<family>.json) hold only inputs and the verdicts the authors' code
gave on them, run outside the project on the fetched file named in each corpus's ``source`` (repository, commit,
path). The image is 1000x1000 and seen unresized, so resized pixels and the 0-1000 grid coincide; a point and its
boxes are in the family's answer frame. The text is what lmms-eval hands to ``process_results``: our grounding
YAMLs set ``reasoning_tags: none``, so lmms-eval 0.7.3 strips nothing and a ``<think>`` block reaches the reader.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gui_models.coords import MAX_COORD
from gui_models.grounding import parse_point

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
        assert len(corpus["source"]["commit"]) == 40 and corpus["source"]["path"], family
        assert corpus["family"] == family


@pytest.mark.parametrize("family", FAMILIES)
def test_official_reading_agrees_with_the_authors_parser(family):
    agree, total, bad = agreement(family)
    assert not bad, f"{family}: {agree}/{total} agree; first disagreements:\n" + "\n".join(bad[:15])
