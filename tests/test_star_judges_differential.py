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
from PIL import Image

from gui_tasks.star import agentic, agentic_task

FIX = Path(__file__).parent / "fixtures" / "star_judges_differential"
FILES = sorted(p.stem for p in FIX.glob("*.jsonl"))
AGREEMENT = 0.99


def _cases(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIX / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def _write_androidcontrol(root: Path, cases: list[dict]) -> None:
    (root / "jsons").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "layouts").mkdir()
    for c in cases:
        ep, actions = c["episode"], [c["action"]] if c["action"] else []
        shots = [f"shot_{i}.png" for i in range(len(actions) + 1)]
        trees = [f"tree_{i}.jsonl" for i in range(len(actions) + 1)]
        meta = {"episode_id": int(ep), "goal": "Do the task", "screenshots": shots, "accessibility_trees": trees,
                "screenshot_widths": [c["width"]] * len(shots), "screenshot_heights": [c["height"]] * len(shots),
                "actions": actions, "step_instructions": ["Do the step"] * len(actions)}
        (root / "jsons" / f"metadata_episode_{ep}.json").write_text(json.dumps(meta))
        for s, t in zip(shots, trees):
            (root / "images" / f"episode_{ep}_{s}").write_bytes(b"")
            (root / "layouts" / f"episode_{ep}_{t}").write_text("\n".join(json.dumps(el) for el in c["layout"]))
    (root / "android_control_splits.json").write_text(json.dumps({"test": [int(c["episode"]) for c in cases]}))


def _write_aitz(root: Path, cases: list[dict]) -> None:
    sizes: dict[tuple[int, int], Path] = {}
    for c in cases:
        step = c["raw"]
        folder = root / Path(step["image_path"]).parent
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{c['episode']}.json").write_text(json.dumps([step]))
        size = (c["width"], c["height"])
        if size not in sizes:
            sizes[size] = root / f"blank_{size[0]}x{size[1]}.png"
            Image.new("RGB", size).save(sizes[size])
        (root / step["image_path"]).hardlink_to(sizes[size])


def _write_odyssey(root: Path, cases: list[dict]) -> None:
    for sub in ("annotations", "screenshots", "splits"):
        (root / sub).mkdir(parents=True)
    for c in cases:
        ann = {"episode_id": c["episode"], "step_length": 1, "steps": [c["raw"]],
               "device_info": {"product": "x", "release_version": "33", "sdk_version": "x", "h": 2400, "w": 1080,
                               "device_name": "Medium Phone"},
               "task_info": {"category": "General_Tool", "app": ["x"], "meta_task": "x", "task": "x", "instruction": "Do it"}}
        (root / "annotations" / f"{c['episode']}.json").write_text(json.dumps(ann))
        (root / "screenshots" / c["raw"]["screenshot"]).write_bytes(b"")
    (root / "splits" / "random_split.json").write_text(json.dumps({"train": [], "test": [f"{c['episode']}.json" for c in cases]}))


WRITERS = {"androidcontrol": _write_androidcontrol, "aitz": _write_aitz, "gui_odyssey": _write_odyssey}


@pytest.mark.parametrize("name", FILES)
def test_our_judge_agrees_with_the_official_code(name, tmp_path, monkeypatch):
    cases = _cases(name)
    judge, dataset = cases[0]["judge"], cases[0]["dataset"]
    WRITERS[dataset](tmp_path, cases)
    monkeypatch.delenv(agentic_task.JUDGE_ENV, raising=False)
    monkeypatch.setenv(agentic.DATA_DIR_ENVS[dataset], str(tmp_path))
    families = sorted({fam for c in cases for fam, _, _ in c["pairs"]})
    docs = {}
    for fam in families:
        for d in agentic_task.task_rows({"dataset": dataset, "agent_family": fam, "judge": judge}):
            # the case's step is the episode's first (AndroidControl closes each episode with a COMPLETE step)
            if d["step"] == 0:
                docs.setdefault(fam, {})[str(d["episode_id"])] = d
    n = type_ok = exact_ok = 0
    wrong = []
    for c in cases:
        for fam, response, expected in c["pairs"]:
            n += 1
            doc = docs.get(fam, {}).get(str(c["episode"]))
            if expected == "dropped" or doc is None:
                hit = expected == "dropped" and doc is None
                type_ok += hit
                exact_ok += hit
                if not hit:
                    wrong.append((c["episode"], fam, response, expected, "kept" if doc else "dropped"))
                continue
            rec = agentic_task.score_response(doc, response)
            type_ok += rec["type_match"] == expected[0]
            exact_ok += rec["exact"] == expected[1]
            if [rec["type_match"], rec["exact"]] != expected:
                wrong.append((c["episode"], fam, response, expected, [rec["type_match"], rec["exact"]], rec["judge_gold"]))
    detail = "\n".join(map(str, wrong[:15]))
    assert n > 400, n
    assert type_ok / n >= AGREEMENT and exact_ok / n >= AGREEMENT, f"{name}: type {type_ok}/{n}, exact {exact_ok}/{n}\n{detail}"
