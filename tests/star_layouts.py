"""The published layouts of AndroidControl, AITZ and GUI-Odyssey, written from differential-test cases into a folder
that our loaders read (so the loaders are part of what the judge differentials compare)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from gui_tasks.star import agentic, agentic_task


def data_envs() -> dict[str, str]:
    """Step-wise dataset -> the variable naming its local copy, read from the benchmark records."""
    from gui_core.benchmark import BENCHMARKS

    return {b.name: b.data.env for b in BENCHMARKS.values() if b.results_name == "star_agentic" and b.data.env}


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


def compare(cases: list[dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int, list[tuple]]:
    """Score every (family, answer) pair of ``cases`` with our loader and judge: (pairs, type verdicts equal, exact
    verdicts equal, the disagreements). Each case's step is its episode's first; an expected ``"dropped"`` means the
    official preparation writes no step, so our loader must not yield one either."""
    monkeypatch.delenv(agentic_task.JUDGE_ENV, raising=False)
    n = type_ok = exact_ok = 0
    wrong: list[tuple] = []
    for dataset in sorted({c["dataset"] for c in cases}):
        of = [c for c in cases if c["dataset"] == dataset]
        judge, root = of[0]["judge"], tmp_path / dataset
        WRITERS[dataset](root, of)
        monkeypatch.setenv(data_envs()[dataset], str(root))
        docs: dict[str, dict[str, dict]] = {}
        for fam in sorted({fam for c in of for fam, _, _ in c["pairs"]}):
            for d in agentic_task.task_rows({"dataset": dataset, "agent_family": fam, "judge": judge}):
                if d["step"] == 0:  # AndroidControl closes each episode with a COMPLETE step
                    docs.setdefault(fam, {})[str(d["episode_id"])] = d
        for c in of:
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
    return n, type_ok, exact_ok, wrong
