"""The synthetic GUI Knowledge Bench set: deterministic, aligned across languages, answers re-derived from the world."""

from __future__ import annotations

import json
import random

import datasets
import pytest

from gui_metrics.knowledge import SUBTASKS
from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS, from_call
from gui_tasks.knowledge import lmms_task
from gui_tasks.mpr.schema import LANGS
from gui_tasks.knowledge.synth import GENERATOR_VERSION, build_knowledge_synth, load_or_build, set_name
from gui_tasks.knowledge.synth_questions import _visible_state, generate, looks
from gui_tasks.synth.scene import (DESKTOP_APPS, desktop_click, double_click, drag, hotkey, long_press, right_click, screen,
                                   scroll, tap, type_text)

LETTERS = "ABCD"


@pytest.fixture(scope="module")
def questions():
    rng = random.Random("test")
    return {s: generate(s, 12, rng) for s in SUBTASKS}


@pytest.fixture(scope="module")
def synth_set(tmp_path_factory):
    return build_knowledge_synth(tmp_path_factory.mktemp("gkb"), per_subtask=3)


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_same_seed_same_bytes(tmp_path):
    a = build_knowledge_synth(tmp_path / "a", per_subtask=2, langs=("en",))["en"]
    b = build_knowledge_synth(tmp_path / "b", per_subtask=2, langs=("en",))["en"]
    assert a.read_text().replace(str(tmp_path / "a"), "") == b.read_text().replace(str(tmp_path / "b"), "")
    for img in sorted((tmp_path / "a" / "images" / "en").iterdir()):
        assert img.read_bytes() == (tmp_path / "b" / "images" / "en" / img.name).read_bytes()


def test_every_subtask_in_every_language_aligned(synth_set):
    by_lang = {lang: _rows(synth_set[lang]) for lang in LANGS}
    en = by_lang["en"]
    assert [r["subtask"] for r in en] == [s for s in SUBTASKS for _ in range(3)]
    for lang in LANGS:
        assert [(r["id"], r["answer"]) for r in by_lang[lang]] == [(r["id"], r["answer"]) for r in en]
    # language-bearing questions are translated; the screenshots are rendered per language
    zh = {r["id"]: r for r in by_lang["zh"]}
    for r in en:
        if r["subtask"] in ("widget", "layout", "plan"):
            assert r["question"] != zh[r["id"]]["question"]
        assert r["images"] != zh[r["id"]]["images"]


def test_state_answers_are_the_element_states(questions):
    for q in questions["state"]:
        if q.answer == "unknown":
            assert all(e.label != q.facts["label"] for e in q.frames[0].elements)
        else:
            el = q.frames[0].get(q.facts["element"])
            assert bool(el.state) == (q.answer == "yes")


def _under(scr, point):
    hit = [e for e in scr.elements if e.role != "status" and scr.active(e)
           and e.box[0] <= point[0] <= e.box[2] and e.box[1] <= point[1] <= e.box[3]]
    return min(hit, key=lambda e: (e.box[2] - e.box[0]) * (e.box[3] - e.box[1])) if hit else None  # the innermost element


def _apply(scr, call):
    """Re-apply an action call to a screen with the world's transition functions."""
    act = from_call(call, "original_px")
    if act.type == "SCROLL":
        return screen(scr.app, *scroll(scr, act.direction)[:2])
    if act.type == "HOTKEY":
        return screen(scr.app, *hotkey(scr, act.text)[:2])
    if act.type == "TYPE":
        key = next(k for k, v in __import__("gui_tasks.synth.i18n", fromlist=["x"]).TYPED_TEXTS.items() if v["en"] == act.text)
        return screen(scr.app, *type_text(scr, key)[:2])
    el = _under(scr, act.point)
    if el is None:
        return scr
    if act.type == "DRAG":
        dst = _under(scr, act.end_point)
        return screen(scr.app, *drag(scr, el.id, dst.id)[:2]) if dst else scr
    desktop = scr.app in DESKTOP_APPS
    fn = {"CLICK": desktop_click if desktop else tap, "LONG_PRESS": long_press, "DOUBLE_CLICK": double_click,
          "RIGHT_CLICK": right_click}[act.type]
    page, state, _ = fn(scr, el.id)
    return screen(scr.app, page, state)


def test_action_effect_answer_is_the_screen_the_action_produces(questions):
    from gui_tasks.knowledge.synth_questions import call_text

    for q in questions["effect"]:
        truth = _apply(q.frames[0], call_text(q.action[1], "en"))
        opts = [looks(s) for s in q.option_frames]
        assert opts.count(looks(truth)) == 1 and opts.index(looks(truth)) == LETTERS.index(q.answer)
        assert looks(q.frames[0]) in opts  # the unchanged screen is always a distractor


def test_action_type_answer_names_the_transition_on_each_platform(questions):
    kinds = {"mobile": set(), "desktop": set()}
    for q in questions["type"]:
        calls = DESKTOP_CALLS if q.platform == "desktop" else MOBILE_CALLS
        kind = calls["ABCDEFG".index(q.answer)]
        kinds[q.platform].add(kind)
        assert q.option_actions == calls and q.facts["call"] == kind
        assert (q.frames[0].app in DESKTOP_APPS) == (q.platform == "desktop")
        assert looks(q.frames[0]) != looks(q.frames[1])
    assert kinds["mobile"] == set(MOBILE_CALLS)  # all four mobile action types occur
    assert kinds["desktop"] == set(DESKTOP_CALLS[:6])  # 6 desktop questions of 12: the first six types, cycling


def test_action_parameter_only_the_answer_reproduces_the_second_screen(questions):
    checked = set()
    for q in questions["parameter"]:
        name = q.action[1]
        if name == "type":
            continue
        outcomes = [looks(_apply(q.frames[0], f"{name}({o[1]})")) for o in q.options]
        assert [o == looks(q.frames[1]) for o in outcomes] == [letter == q.answer for letter in LETTERS]
        checked.add(name)
    assert {"click", "right_single"} <= checked


def test_goal_answers_follow_the_last_screenshot_showing_the_switch(questions):
    from gui_tasks.synth.questions import TASKS

    for q in questions["goal"]:
        task = next(t for t in TASKS if [t[0], t[1], list(t[2])] == q.facts["task"] and t[3][1] == q.facts["goal"])
        (key, initial), = task[4].items()
        shown = [v for v in (_visible_state(s, key) for s in q.frames) if v is not None]
        expected = "unknown" if not shown else ("yes" if shown[-1] != initial else "no")
        assert q.answer == expected
    assert {q.answer for q in questions["goal"]} == {"yes", "no", "unknown"}


def test_plan_orderings_only_the_answer_reaches_the_goal(questions):
    """v3 (issue 22): every plan question is multiple choice; the seed's yes/no plan questions never had "unknown" for
    answer, so "not the longest option" answered them without the screenshot."""
    from gui_tasks.synth.questions import _goal_reached, perform

    for q in questions["plan"]:
        scr, pred = q.frames[0], q.facts["goal_state"]
        assert q.question_type == "multiple_choice"
        reached = [_goal_reached(pred, perform(scr, o[1])) for o in q.options]
        assert reached == [letter == q.answer for letter in LETTERS]


def test_augmented_variant_swaps_in_the_red_box_question(synth_set):
    rows = [r for r in _rows(synth_set["en"]) if r["subtask"] == "widget"]
    plain = lmms_task.process_docs_synthetic(datasets.Dataset.from_list([{**r, "variant": "plain"} for r in rows]))
    aug = lmms_task.process_docs_synthetic(datasets.Dataset.from_list([{**r, "variant": "augmented"} for r in rows]))
    assert all("red box" in d["question"] and json.loads(d["marks"])[0]["kind"] == "box" for d in aug)
    assert all("red box" not in d["question"] and d["marks"] == "[]" for d in plain)
    assert "augmented_question" not in plain.column_names


def test_load_or_build_caches_the_set(tmp_path):
    a = load_or_build(per_subtask=1, langs=("en", "th"), root=tmp_path)
    stamp = a["en"].stat().st_mtime_ns
    b = load_or_build(per_subtask=1, langs=("th",), root=tmp_path)
    assert b["th"] == a["th"] and a["en"].stat().st_mtime_ns == stamp
    assert a["en"].parent.name == set_name(0, 1) == f"gkb-v{GENERATOR_VERSION}-eval-seed0-n1"


def test_synth_command_builds_the_knowledge_set(tmp_path, capsys):
    from gui_tasks.commands.cli import main

    assert main(["synth", "--benchmark", "knowledge", "--per-dimension", "1", "--langs", "ja", "--out", str(tmp_path)]) == 0
    rows = _rows(tmp_path / "ja.jsonl")
    assert [r["subtask"] for r in rows] == list(SUBTASKS) and "ja\t" in capsys.readouterr().out


def test_scroll_and_drag_marks_point_the_way_the_finger_moves():
    from gui_core.actions import Action
    from gui_tasks.knowledge.marks import marks_for_action

    (down,) = marks_for_action(Action("SCROLL", point=(180, 360), frame="original_px", direction="DOWN"), (360, 720))
    assert down["kind"] == "arrow" and down["from"] == [180, 360] and down["to"][1] < 360  # content moves up under the finger
    (drag,) = marks_for_action(Action("DRAG", point=(1, 2), end_point=(3, 4), frame="original_px"), (10, 10), "B")
    assert drag == {"kind": "arrow", "from": [1, 2], "to": [3, 4], "label": "B"}
    assert marks_for_action(Action("TYPE", text="x"), (10, 10)) == []


def test_main_synthetic_tasks_follow_the_official_protocol(synth_set):
    rows = lmms_task.task_rows({"source": "synthetic", "lang": "en", "variant": "official"})
    docs = {d["id"]: d for d in lmms_task.process_docs_synthetic(datasets.Dataset.from_list(rows))}
    plain = {d["id"]: d for d in lmms_task.process_docs_synthetic(
        datasets.Dataset.from_list([{**r, "variant": "plain"} for r in rows]))}
    raw = {r["id"]: r for r in rows}
    for qid, doc in docs.items():
        if doc["subtask"] in ("state", "widget", "layout"):  # red box + augmented question on Interface Perception
            assert doc["question"] == raw[qid]["augmented_question"] and doc["marks"] == raw[qid]["augmented_marks"]
        else:
            assert (doc["question"], doc["marks"]) == (plain[qid]["question"], plain[qid]["marks"])


def test_synthetic_tasks_read_the_split_named_in_their_metadata():
    """The generated tasks evaluate ``eval``; ``synth_split`` in the task metadata picks another content split."""
    from pathlib import Path

    yamls = [p for p in sorted(Path(lmms_task.__file__).parents[2].glob("yaml_tasks/knowledge/gui_knowledge_synth_*.yaml"))
             if "process_docs_synthetic" in p.read_text(encoding="utf-8")]  # tasks, not groups
    assert len(yamls) >= len(SUBTASKS) * len(LANGS)
    assert all("  synth_split: eval\n" in p.read_text(encoding="utf-8") for p in yamls)
    meta = {"source": "synthetic", "lang": "en", "seed": 0, "per_subtask": 1, "subtasks": ["widget"]}
    splits = {s: lmms_task.task_rows({**meta, "synth_split": s}) for s in ("eval", "train")}
    assert [json.loads(r["meta"])["split"] for r in splits["eval"]] == ["eval"]
    assert [json.loads(r["meta"])["split"] for r in splits["train"]] == ["train"]
    assert lmms_task.task_rows(meta) == splits["eval"]
