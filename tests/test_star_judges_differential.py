"""Held-out differential test: our judges against the official evaluators' verdicts (issue 27, "Done when").

``fixtures/star_judges_differential/<judge>_<dataset>.jsonl``: boundary-targeted gold steps in each dataset's
published fields (AndroidControl actions and layout elements, AITZ step rows, GUI-Odyssey steps with ``sam2_bbox``),
each with model answers and the verdict the official code gave, [type match, exact match] or ``"dropped"`` where the
official preprocessing writes no step for that family. The verdicts were produced by running the official code
(ZrW00/StaR ``evaluator/`` + ``dataPreprocessor/``; google-research AITW ``check_actions_match`` as CoAT ships it;
GUI-Odyssey ``GUIOdyssey_action_matching.py`` with its ``decode_action`` / ``simple_decode``; OS-Atlas
``eval/eval_scripts/{android_control,odyssey}/evaluation_unify.py`` run on one-pair prediction files; AgentCPM-GUI
``eval/utils/evaluator.py`` on rows prepared as ``process_{aitz,ac,odyssey}.py`` do;
xiaomi-research/guievalkit ``guieval/eval/evaluator.py`` with its ``data/process_ac.py``) outside this project;
only the pairs and verdicts are kept here. Boundaries: clicks at 140 grid units and on box edges, element centres at
the snapping radii (squared 40, 40, 0.04), taps at 0.04, drags with |dx| = |dy|, text case and similarity, app-name
forms, the exact output grammar.

The cases are written into the published layouts in a temporary folder and read by our loaders, so the loaders are
part of what is compared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from star_layouts import compare

FIX = Path(__file__).parent / "fixtures" / "star_judges_differential"
FILES = sorted(p.stem for p in FIX.glob("*.jsonl"))
AGREEMENT = 0.99


def _cases(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIX / f"{name}.jsonl").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name", FILES)
def test_our_judge_agrees_with_the_official_code(name, tmp_path, monkeypatch):
    n, type_ok, exact_ok, wrong = compare(_cases(name), tmp_path, monkeypatch)
    detail = "\n".join(map(str, wrong[:15]))
    assert n > 400, n
    assert type_ok / n >= AGREEMENT and exact_ok / n >= AGREEMENT, f"{name}: type {type_ok}/{n}, exact {exact_ok}/{n}\n{detail}"
