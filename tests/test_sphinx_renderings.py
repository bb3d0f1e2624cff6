"""SPHINX screens as the official code sees them: system UI excluded, breadth-first first match and numbering,
the two named renderings, and the official answer readers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from gui_tasks.sphinx.evaluator import Step, evaluators_from_json, score_trajectory
from gui_tasks.sphinx.hierarchy import RENDERINGS, Hierarchy
from gui_tasks.sphinx.observation import official_set_of_mark, official_simplified_text, render_images, render_text
from gui_tasks.sphinx.official_parse import judge_completion_official, parse_official_action
from gui_tasks.sphinx.simulator import Simulator
from gui_tasks.sphinx.toggle_tasks import oracle_actions, table5_tasks

FIX = Path(__file__).parent / "fixtures" / "sphinx"
SCREEN = Hierarchy.from_file(FIX / "hierarchy" / "status_clock.xml")
ACT = ("com.yelp.android", "com.yelp.android.ui.ReviewsActivity")


def rid(name: str) -> str:
    return f"com.yelp.android:id/{name}"


def satisfied(evaluator: dict, action: dict | None = None) -> bool:
    """One evaluator on a two-step trajectory of the fixture screen: ``action`` then stop."""
    traj = [Step(SCREEN, ACT, action or {"action_type": "back"}), Step(SCREEN, ACT, {"action_type": "stop"})]
    return score_trajectory(evaluators_from_json([evaluator]), traj)[0]


CLOCK_TAP = {"action_type": "click", "coords": [(700, 24)]}  # on the clock, in the status bar


@pytest.mark.parametrize("evaluator, action", [
    ({"type": "findelement", "match_type": "equal", "match_rules": {"text": "11:00"}, "check_type": "equal", "check_rules": {}}, None),
    ({"type": "findelement", "match_type": "include", "match_rules": {"text": "11"}, "check_type": "equal", "check_rules": {}}, None),
    ({"type": "findelement", "match_type": "include", "match_rules": {"content-desc": "4 new"}, "check_type": "equal",
      "check_rules": {}}, None),
    ({"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": "com.android.systemui:id/clock"},
      "check_type": "include", "check_rules": {"text": "11"}}, None),
    ({"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click", "text": "11:00"},
      "check_type": "equal", "check_rules": {}}, CLOCK_TAP),
    ({"type": "lastaction", "check_type": "include", "check_rules": {"action_type": "click", "text": "11"}}, CLOCK_TAP),
    ({"type": "findelementbyaction", "action_match_type": "equal", "action_match_rules": {"action_type": "click"},
      "element_match_type": "equal", "element_match_rules": {"resource-id": "com.android.systemui:id/clock"},
      "check_type": "equal", "check_rules": {"text": "11:00"}}, CLOCK_TAP),
])
def test_a_status_bar_clock_never_satisfies_an_assertion(evaluator, action):
    assert not satisfied(evaluator, action)
    # the same views moved into the app window would satisfy every one of these
    xml = (FIX / "hierarchy" / "status_clock.xml").read_text().replace('package="com.android.systemui"', 'package="com.yelp.android"')
    app_screen = Hierarchy.from_xml(xml)
    traj = [Step(app_screen, ACT, action or {"action_type": "back"}), Step(app_screen, ACT, {"action_type": "stop"})]
    assert score_trajectory(evaluators_from_json([evaluator]), traj)[0]


def test_first_match_is_breadth_first_and_a_point_takes_the_first_view_containing_it():
    # document order would give "4 stars" (deep in the list); breadth-first reaches the footer first
    assert SCREEN.find({"class": "android.widget.TextView"}).get("text") == "12 reviews"
    assert SCREEN.find({"class": "android.widget.LinearLayout"}, point=(384, 280)).get("resource-id") == rid("review_0")
    assert SCREEN.find({"text": "11:00"}) is None and SCREEN.find({"content-desc": "Back"}) is None  # both bars dropped
    tap = {"action_type": "click", "coords": [(384, 280)]}
    assert satisfied({"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click"}, "check_type": "equal",
                      "check_rules": {"resource-id": rid("review_0")}}, tap)


def test_activity_rule_counts_only_where_the_official_evaluator_reads_it():
    tap = {"action_type": "click", "coords": [(384, 280)]}
    by_action = {"type": "findelementbyaction", "action_match_type": "equal", "action_match_rules": {"action_type": "click"},
                 "element_match_type": "equal", "element_match_rules": {"resource-id": rid("footer")}, "check_type": "equal"}
    assert satisfied({**by_action, "check_rules": {"text": "12 reviews"}}, tap)
    assert not satisfied({**by_action, "check_rules": {"text": "12 reviews", "activity": ACT[1]}}, tap)  # official: never
    assert satisfied({"type": "findelement", "match_type": "equal", "match_rules": {"resource-id": rid("footer"), "activity": ACT[1]},
                      "check_type": "equal", "check_rules": {"activity": ACT[1]}})
    assert satisfied({"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": rid("footer")},
                      "check_type": "equal", "check_rules": {"activity": ACT[1]}})


def test_official_numbering_is_breadth_first_and_lists_every_interactable():
    official = [SCREEN.nodes[i].get("resource-id").split("/")[-1] for i in SCREEN.element_ids("official")]
    prose = [SCREEN.nodes[i].get("resource-id").split("/")[-1] for i in SCREEN.element_ids("paper-prose")]
    assert official == ["reviews", "search", "up", "review_0", "review_1"]
    assert prose == ["up", "reviews", "review_0", "review_1", "search"]  # document order
    assert official_simplified_text(SCREEN).splitlines()[1] == (
        "[1] a View (resource-id: search, text: Search reviews, class: android.widget.EditText) to text")
    assert "11:00" not in render_text(SCREEN, "full_text") and "11:00" not in render_text(SCREEN, "full_text", rendering="paper-prose")
    prose_simple = render_text(SCREEN, "simplified_text", rendering="paper-prose").splitlines()
    assert [line.split("]")[0] + "]" for line in prose_simple] == ["[0]", "[2]", "[3]", "[4]"]  # leaves only; the list holds rows


def test_official_set_of_mark_draws_coloured_boxes_and_nothing_on_the_bars():
    from PIL import Image

    blank = Image.new("RGB", (768, 1280), (255, 255, 255))
    img = official_set_of_mark(blank, SCREEN)
    assert img.getpixel((1, 1140)) == (0, 0, 255)  # the EditText's left edge: blue, a text action
    assert img.getpixel((300, 399)) == (255, 0, 0)  # first review's bottom edge: the red box (click wins over longclick)
    assert img.getpixel((767, 800)) == (0, 255, 0)  # the scrollable list: green
    assert all(img.getpixel((x, 24)) == (255, 255, 255) for x in range(0, 768, 8))  # status bar untouched
    assert all(img.getpixel((x, 1232)) == (255, 255, 255) for x in range(0, 768, 8))  # navigation bar untouched


def test_simulator_screens_number_the_same_elements_and_show_the_same_screenshot_under_both_renderings():
    sim = Simulator()
    task = table5_tasks()[0]
    obs = sim.reset(task.initial)
    for a in oracle_actions(task)[:4]:
        h = obs.hierarchy
        assert sorted(h.element_ids("official")) == sorted(h.element_ids("paper-prose"))
        shots = [render_images(obs.screenshot(), h, "screenshot", rendering=r)[0].tobytes() for r in RENDERINGS]
        assert shots[0] == shots[1]
        if a["type"] == "stop":
            break
        obs = sim.act(a)


def test_official_readers():
    say = "Reasoning... In summary, the next action I will perform is ```{}```"
    assert parse_official_action(say.format("swipe [2] [direction=down]")) == ("parsed", {"type": "swipe", "index": 2, "direction": "down"})
    assert parse_official_action(say.format("swipe [2] [sideways]")) == ("malformed", None)
    assert parse_official_action(say.format("press [none]")) == ("parsed", {"type": "wait"})
    assert parse_official_action(say.format("text [3] [hello] world]")) == ("parsed", {"type": "text", "index": 3, "text": "hello] world"})
    assert parse_official_action(say.format("click [10,20]"), by_point=True) == ("parsed", {"type": "click", "point": (10, 20)})
    assert parse_official_action(say.format("click [10, 20]"), by_point=True) == ("malformed", None)
    assert parse_official_action("") == ("empty", None)
    assert judge_completion_official("YES") == ("parsed", True) and judge_completion_official("Yes. Not done? no") == ("parsed", False)
    assert judge_completion_official("noted, yes") == ("parsed", True) and judge_completion_official("?") == ("malformed", False)


@given(st.text(max_size=120), st.booleans())
def test_official_readers_never_raise(text, by_point):
    status, act = parse_official_action(text, by_point=by_point)
    assert status in ("parsed", "malformed", "empty") and (act is None) == (status != "parsed")
    assert judge_completion_official(text)[0] in ("parsed", "malformed", "empty")
    assert parse_official_action(f"```{text}```")[0] in ("parsed", "malformed", "empty")


@st.composite
def trees(draw):
    """Random view trees as (depth, attrib) in document order; some windows and subtrees are system UI."""
    flat, depth = [], 0
    for k in range(draw(st.integers(1, 25))):
        depth = 0 if k == 0 else draw(st.integers(0, depth + 1))
        pkg = "com.android.systemui" if draw(st.integers(0, 5)) == 0 else "com.app"
        flags = {f: str(draw(st.booleans())).lower() for f in ("clickable", "scrollable")}
        flat.append((depth, {"package": pkg, "class": "android.widget.View", "bounds": "[0,0][10,10]", "resource-id": f"com.app:id/v{k}",
                             **flags}))
    return Hierarchy.build(flat)


@given(trees())
def test_breadth_first_order_visits_every_app_view_once_parents_first(h):
    order = h.bfs()
    sys_ui = h.system_ui()
    assert sorted(order) == [i for i in range(len(h.nodes)) if i not in sys_ui]
    pos = {i: k for k, i in enumerate(order)}
    for i in order:
        p = h.nodes[i].parent
        assert p is None or pos[p] < pos[i]
    assert all(h.nodes[i].get("package") != "com.android.systemui" for i in order)
    assert set(h.element_ids("official")) <= set(order) and set(h.element_ids("paper-prose")) <= set(order)
    assert sorted(h.element_ids("official")) == sorted(h.element_ids("paper-prose"))  # same views, other order here
    first = h.find({"class": "android.widget.View"})
    assert (first is None) == (not order) and (first is None or first is h.nodes[order[0]])
