"""Questions of every dimension: answers recomputed from the world, plausible distractors, letter balance (any seed)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gui_tasks.mpr.schema import DIMENSIONS, LANGS
from gui_tasks.mpr.synth import build_questions
from gui_tasks.synth.questions import (BOX, INTERACTION_OF, TASKS, _goal_reached, _outcome_ref, find, generate, localise,
                                       option_text, perform, play, positional, region_of, relation_of, stem_text)
from gui_tasks.synth.scene import APPS, ICON_FUNCTIONS, screen, tap


def _check(q) -> None:
    scr = q.frames[0][0]
    correct = q.options[q.answer]
    assert len(set(q.options)) == 4
    if q.dimension == "AEL":
        assert correct == ("region", region_of(scr.get(q.facts["element"]).box))
    elif q.dimension == "REL":
        a, b = scr.get(q.facts["element"]).box, scr.get(q.facts["reference"]).box
        assert correct == ("relation", relation_of(a, b))
        assert relation_of(b, a) != relation_of(a, b)
    elif q.dimension == "WF":
        assert correct == ("function", ICON_FUNCTIONS[scr.get(q.facts["element"]).icon])
    elif q.dimension == "WI":
        e = scr.get(q.facts["element"])
        assert correct[1] == INTERACTION_OF["chevron" if e.role == "row" else e.role]
    elif q.dimension == "AU":
        assert tap(scr, q.facts["element"])[2] == q.facts["outcome"] == correct[1]
        # every option is what tapping some element of this screen does (the options do not tell which is boxed)
        outcomes = {_outcome_ref(scr, e) for e in scr.elements if scr.active(e)}
        assert set(q.options) <= outcomes
    elif q.dimension == "AP":
        # exactly one option achieves the goal when replayed through the transition table; options name rows by number
        reached = [_goal_reached(q.facts["goal_state"], perform(scr, steps)) for steps in q.facts["option_steps"]]
        assert reached == [i == q.answer for i in range(4)]
        assert [positional(scr, steps) for steps in q.facts["option_steps"]] == [o[1] for o in q.options]
        assert q.stem["goal"][1] == q.facts["goal"]
    elif q.dimension in ("RI", "SI"):
        assert correct[0] == "goal" and correct not in q.options[:q.answer] + q.options[q.answer + 1:]
        assert len(q.frames) == 2 if q.dimension == "SI" else len(q.frames) >= 3
        assert _goal_reached(q.facts["goal_state"], q.frames[-1][0])
    if q.dimension in ("AEL", "WF", "WI", "AU"):  # the element asked about is in the red box, the screen named by its title
        assert q.frames[0][1] == BOX + q.facts["element"] and q.stem == {"t": ("q", scr.get("title").label)}


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_any_seed_gives_balanced_questions_whose_answers_hold(seed):
    qs = build_questions(seed, per_dimension=4)
    for dim in DIMENSIONS:
        assert sorted(q.answer for q in qs if q.dimension == dim) == [0, 1, 2, 3]
    for q in qs:
        _check(q)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 13), seed=st.integers(0, 1000))
def test_balance_is_deterministic_for_any_count(n, seed):
    for dim in ("AEL", "AP"):
        qs = generate(dim, n, random.Random(seed))
        assert [q.answer for q in qs] == [i % 4 for i in range(n)]
        assert [q.answer for q in generate(dim, n, random.Random(seed))] == [q.answer for q in qs]


def test_every_question_renders_in_every_language():
    for q in build_questions(5, per_dimension=4):
        for lang in LANGS:
            stem = stem_text(q, lang)
            assert stem and "{" not in stem
            opts = [option_text(q, i, lang) for i in range(4)]
            assert len(set(opts)) == 4 and all(o and "{" not in o for o in opts)


def test_scripted_tasks_reach_their_goal():
    for task in TASKS:
        frames = play(task)
        assert len(frames) == len(task[2]) + 1 and frames[-1][1] is None
        last = frames[-1][0]
        state, goal = dict(last.state), task[3]
        if goal[1] in ("goal_on", "goal_off"):
            switch = find(last, ("switch", goal[2][1]))
            assert switch is not None and switch.state == (goal[1] == "goal_on")
        elif goal[1] == "goal_add":
            assert state[f"cart_{goal[2][1]}"]
        elif goal[1] == "goal_delete":
            assert goal[2][1] not in {e.label for e in last.elements if e.role == "row"}
        else:
            assert last.page == goal[1].removeprefix("goal_")


def test_every_page_of_every_app_lays_out_and_every_tap_lands_on_a_page():
    for app, pages in APPS.items():
        for page in pages:
            scr = screen(app, page, {})
            for e in scr.elements:
                x1, y1, x2, y2 = e.box
                assert 0 <= x1 < x2 <= scr.size[0] and 0 <= y1 < y2 <= scr.size[1], (app, page, e.id)
                nxt, state, _ = tap(scr, e.id)
                assert nxt in pages
                screen(app, nxt, state)


def test_references_name_one_element_and_localise():
    scr = screen("settings", "wifi_page", {"wifi": True})
    assert find(scr, ("switch", "wifi")).role == "toggle"
    assert find(scr, ("q", "wifi")).role == "row"
    assert localise(("switch", "wifi"), "fr") == "l'interrupteur « Wi-Fi »"
    assert find(scr, ("q", "missing")) is None


def test_large_sets_vary_the_screens_of_sequences():
    """RI/SI questions come from plans on many screens (brands, row orders, states), far more than their goals."""
    qs = [q for q in build_questions(7, per_dimension=40) if q.dimension == "RI"]
    assert len({(q.frames[0][0].key, q.options[q.answer]) for q in qs}) == 40  # one screen may start several goals
    assert len({q.frames[0][0].key for q in qs}) > len({q.options[q.answer] for q in qs})
    for q in qs:  # consecutive frames: tapping the marked element of one frame gives the next
        for (scr, tapped), (nxt, _) in zip(q.frames, q.frames[1:]):
            page, state, _ = tap(scr, tapped)
            assert screen(scr.app, page, state).key == nxt.key


def test_positional_steps_name_rows_by_number():
    scr = screen("settings", "root", {"order_root": "7,6,5,4,3,2,1,0"})  # battery row first, wifi row last
    steps = (("action", "act_tap", ("q", "wifi")), ("action", "act_tap", ("switch", "wifi")))
    assert positional(scr, steps) == (("pos", "act_row", 8), ("pos", "act_row_switch", 1))
    assert localise(("steps", positional(scr, steps)), "en") == "Tap row 8 → Tap the switch in row 1"
    assert localise(("pos", "act_row_check", 2), "ja") == "2行目のチェックボックスをタップする"
