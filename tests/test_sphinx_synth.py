"""The synthetic SPHINX corpus: official layout, deterministic, and right by construction."""

from __future__ import annotations

import filecmp
import json
import re

from gui_tasks.sphinx import release, synth
from gui_tasks.sphinx.evaluator import Step, score_trajectory
from gui_tasks.sphinx.simulator import SIM_APPS, label_text
from gui_tasks.synth.scene import Element


def test_corpus_is_byte_identical_across_builds(tmp_path):
    synth.write_corpus(tmp_path / "a")
    synth.write_corpus(tmp_path / "b")
    cmp = filecmp.dircmp(tmp_path / "a", tmp_path / "b")
    assert not cmp.diff_files and not cmp.left_only and not cmp.right_only
    for sub in ("groundtruth/3/sim", "groundtruth/8/sim"):
        c = filecmp.dircmp(tmp_path / "a" / sub, tmp_path / "b" / sub)
        assert not c.diff_files and c.common_files


def test_reference_trajectories_satisfy_their_evaluators_and_stopping_early_does_not(tmp_path):
    root = tmp_path / "c"
    synth.write_corpus(root)
    scored = 0
    for task, _app, folder in release.nav_folders(root):
        if not (folder / "evaluator.json").is_file():
            continue
        evs, traj = release.evaluators_of(folder), release.reference_trajectory(folder)
        assert all(score_trajectory(evs, traj)), task["name"]
        stop_at_once = [Step(traj[0].hierarchy, traj[0].activity, {"action_type": "stop"})]
        assert not any(score_trajectory(evs, stop_at_once)), task["name"]
        scored += 1
    assert scored == 8  # the built-in goal tasks; the 20 toggle tasks are scored by final state


def test_knowledge_answers_are_right_by_the_world(tmp_path):
    root = tmp_path / "c"
    synth.write_corpus(root)
    qs = release.load_questions(root / "questions.json")
    assert {q["capability"] for q in qs} == {"app", "goal"}
    for q in qs:
        assert len(set(q["options"].values())) == 4
        if q["capability"] != "app":
            continue
        switch = re.search(r"switch '(.+)'\?", q["question"]).group(1)
        holders = {label_text(Element("t", "title", (0, 0, 1, 1), label=p.title))
                   for pages in SIM_APPS.values() for p in pages.values()
                   if any(r.trailing == "toggle" and label_text(Element("r", "row", (0, 0, 1, 1), label=r.label)) == switch for r in p.rows)}
        right = [text for text in q["options"].values() if text in holders]
        assert right == [q["options"][q["answer"]]], q  # exactly one option holds the switch, and it is the answer
    low = json.loads((root / "lowlevel_tasks.json").read_text())
    assert [r["id"] for r in low] == list(range(1, len(low) + 1))
    assert all((root / "lowlevel_tasks" / f"{r['id']}.{ext}").is_file() for r in low for ext in ("xml", "png"))
