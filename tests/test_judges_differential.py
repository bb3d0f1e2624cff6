"""Adversarial differential test of the step judges (issue 35): answers in each judge's own format built to break
parsers, plus the boundary pairs of every action type, with the verdicts the authors' own pipelines gave.

``fixtures/differential/judges/<judge>.json`` holds the inputs (gold steps in each dataset's published fields, model
answers) and the official verdicts, with the source repository, files and commit they were produced with (the code ran
outside this project; only inputs and verdicts are kept). Agreement must be total, on type and exact verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from star_layouts import compare

FIX = Path(__file__).parent / "fixtures" / "differential" / "judges"
FILES = sorted(p.stem for p in FIX.glob("*.json"))


def test_every_corpus_names_its_source_and_holds_enough_pairs():
    assert FILES
    for name in FILES:
        data = json.loads((FIX / f"{name}.json").read_text())
        assert data["judge"] == name
        assert all(len(s["commit"]) == 40 and s["repo"] and s["files"] for s in data["sources"])
        assert sum(len(c["pairs"]) for c in data["cases"]) >= 200


@pytest.mark.parametrize("name", FILES)
def test_judge_agrees_with_the_authors_code_on_every_pair(name, tmp_path, monkeypatch):
    cases = json.loads((FIX / f"{name}.json").read_text())["cases"]
    n, type_ok, exact_ok, wrong = compare(cases, tmp_path, monkeypatch)
    detail = "\n".join(map(str, wrong[:20]))
    assert (type_ok, exact_ok) == (n, n), f"{name}: type {type_ok}/{n}, exact {exact_ok}/{n}\n{detail}"
