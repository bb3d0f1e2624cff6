"""Simulator text entry, enter, swipes and malformed actions (Table 2 beyond click/back/home)."""

from __future__ import annotations

import pytest

from gui_tasks.sphinx.simulator import (FINGER_MOTION, LIST_ID, ROOTS, Observation, Simulator, max_scroll, resolve,
                                        ui_key)
from gui_tasks.sphinx.toggle_tasks import OPEN_PAGE, ToggleTask, oracle_actions, oracle_policy, run, table5_tasks
from gui_tasks.synth import i18n
from gui_tasks.synth.scene import ROW_H


def _texts(obs: Observation) -> list[str]:
    return [n.get("text") for n in obs.hierarchy.nodes if n.get("text")]


def _node(obs: Observation, eid: str):
    return obs.hierarchy.find({"resource-id": f"com.sim.{obs.screen.app}:id/{eid}"})


def _centre(obs: Observation, eid: str) -> tuple[float, float]:
    x1, y1, x2, y2 = obs.screen.get(eid).box
    return (x1 + x2) / 2, (y1 + y2) / 2


def test_typing_sets_the_edit_text_and_state():
    sim = Simulator()
    obs = sim.reset({}, app="chrome")
    assert _node(obs, "input").get("text") == "" and _node(obs, "input").get("class") == "android.widget.EditText"
    obs = sim.act({"type": "text", "element": "input", "text": "weather"})
    assert _node(obs, "input").get("text") == "weather"
    assert sim.state == {ui_key("text", "chrome", "start"): "weather"}
    # by point, replacing what was there (set-text semantics)
    obs = sim.act({"type": "text", "point": _centre(obs, "input"), "text": "rain radar"})
    assert _node(obs, "input").get("text") == "rain radar"
    # typing on something that is not an input field changes nothing
    before = obs.hierarchy.to_xml()
    obs = sim.act({"type": "text", "element": "row_news", "text": "x"})
    assert obs.hierarchy.to_xml() == before and sim.state == {ui_key("text", "chrome", "start"): "rain radar"}


def test_enter_submits_search_and_back_returns():
    sim = Simulator()
    sim.reset({}, app="chrome")
    assert sim.act({"type": "enter"}).screen.page == "start"  # nothing typed: nothing to submit
    sim.act({"type": "text", "element": "input", "text": "weather"})
    obs = sim.act({"type": "enter"})
    assert (sim.app, sim.page) == ("chrome", "results")
    assert obs.activity == ("com.sim.chrome", "com.sim.chrome.results")
    # the query is shown verbatim (never as the i18n label "Weather"), as title, in the field and as a row
    assert _node(obs, "title").get("text") == "weather"
    assert _node(obs, "input").get("text") == "weather"
    assert _node(obs, "row_weather_label").get("text") == "weather"
    before = set(i18n.VERBATIM)
    assert obs.screenshot().size == obs.screen.size
    assert i18n.VERBATIM == before
    # a new search from the results page replaces the query
    sim.act({"type": "text", "element": "input", "text": "snow"})
    obs = sim.act({"type": "enter"})
    assert _node(obs, "title").get("text") == "snow" and "weather" not in _texts(obs)
    obs = sim.act({"type": "back"})
    assert (sim.app, sim.page) == ("chrome", "start")
    assert _node(obs, "input").get("text") == "" and sim.state == {}


def test_enter_elsewhere_does_nothing():
    sim = Simulator()
    sim.reset({"wifi": True}, app="settings")
    sim.act({"type": "enter"})
    assert (sim.app, sim.page, sim.state) == ("settings", "root", {"wifi": True})


def test_long_alarm_list_scrolls_with_a_swipe_and_back():
    sim = Simulator()
    obs = sim.reset({}, app="clock")
    start = obs.hierarchy.to_xml()
    shown = _texts(obs)
    assert {"07:00", "09:00", "22:15"} <= set(shown) and "23:00" not in shown
    lst = _node(obs, LIST_ID)
    assert lst.flag("scrollable") and lst.get("class").endswith("RecyclerView")
    nodes = obs.hierarchy.nodes
    assert nodes[_node(obs, "row_0700").parent] == lst  # rows sit inside the scrollable container
    assert sim.act({"type": "click", "element": "row_2300_toggle"}).hierarchy.to_xml() == start  # not on screen yet
    obs = sim.act({"type": "swipe", "element": LIST_ID, "direction": "up"})  # finger up: content scrolls down
    assert "23:00" in _texts(obs) and "07:00" not in _texts(obs)
    assert sim.state[ui_key("scroll", "clock", "alarms")] == max_scroll("clock", "alarms", {}) == 4
    obs = sim.act({"type": "swipe", "element": LIST_ID, "direction": "down"})
    assert obs.hierarchy.to_xml() == start and sim.state == {}


def test_revealed_rows_can_be_toggled():
    sim = Simulator()
    sim.reset({}, app="clock")
    sim.act({"type": "swipe", "element": "row_2215", "direction": "up"})
    obs = sim.act({"type": "click", "element": "row_2300_toggle"})
    assert sim.state["alarm_2300"] is True
    assert _node(obs, "row_2300_toggle").get("checked") == "true"


def test_agent_index_names_the_list_for_a_swipe():
    sim = Simulator()
    obs = sim.reset({}, app="clock")
    k = next(k for k, i in enumerate(obs.hierarchy.interactables()) if obs.hierarchy.nodes[i].flag("scrollable"))
    act = resolve(obs, {"type": "swipe", "index": k, "direction": "up"})
    assert act == {"type": "swipe", "element": LIST_ID, "direction": "up"}
    assert "23:00" in _texts(sim.act(act))


def test_point_swipe_follows_the_finger():
    assert FINGER_MOTION["up"] == (0, -1) and FINGER_MOTION["down"] == (0, 1)
    sim = Simulator()
    sim.reset({}, app="clock")
    key = ui_key("scroll", "clock", "alarms")
    sim.act({"type": "swipe", "point": (180, 600), "to": (180, 600 - 2 * ROW_H)})  # drag up two rows
    assert sim.state[key] == 2
    sim.act({"type": "swipe", "point": (180, 600), "to": (180, 600 - ROW_H + 1)})  # less than a row: no scroll
    assert sim.state[key] == 2
    sim.act({"type": "swipe", "point": (180, 300), "to": (180, 300 + ROW_H)})  # drag down one row
    assert sim.state[key] == 1
    sim.act({"type": "swipe", "point": (180, 200), "to": (180, 700)})  # far down: clamped at the top
    assert key not in sim.state
    sim.act({"type": "swipe", "point": (180, 700), "to": (180, -5000)})  # far up: clamped at the end
    assert sim.state[key] == 4


def test_swipes_that_move_no_list_do_nothing():
    sim = Simulator()
    sim.reset({}, app="clock")
    for a in ({"type": "swipe", "element": LIST_ID, "direction": "left"},
              {"type": "swipe", "element": LIST_ID, "direction": "right"},
              {"type": "swipe", "element": "title", "direction": "up"},  # starts above the list
              {"type": "swipe", "point": (180, 40), "to": (180, 10)}):
        sim.act(a)
        assert sim.state == {}, a
    sim.reset({"wifi": True}, app="settings")  # a list that fits has no scroll container
    obs = sim.act({"type": "swipe", "point": (180, 300), "direction": "up"})
    assert _node(obs, LIST_ID) is None and sim.state == {"wifi": True}


GARBAGE = [None, "click [3]", {}, {"type": "fly"}, {"type": ["click"]}, {"type": "click", "point": "ab"},
           {"type": "click", "point": (1e9, 1e9)}, {"type": "click", "point": (float("nan"), 100)}, {"type": "click", "point": (1,)},
           {"type": "click", "element": "nope"}, {"type": "click", "element": ["row_0700"]}, {"type": "longclick"},
           {"type": "text", "element": "input"}, {"type": "text", "element": "input", "text": 5}, {"type": "text", "point": (-5, -5), "text": "x"},
           {"type": "swipe"}, {"type": "swipe", "element": LIST_ID}, {"type": "swipe", "element": LIST_ID, "direction": "diagonal"},
           {"type": "swipe", "element": LIST_ID, "direction": ["up"]}, {"type": "swipe", "point": (180, 400), "to": "x"},
           {"type": "swipe", "point": (9999, 400), "to": (9999, 0)}, {"type": "enter"}, {"type": "wait"}, {"type": "stop"}]


@pytest.mark.parametrize("app", ["clock", "chrome"])
def test_garbage_and_out_of_range_actions_are_no_ops(app):
    sim = Simulator()
    obs = sim.reset({"alarm_0900": True}, app=app)
    before = (sim.app, sim.page, dict(sim.state), obs.hierarchy.to_xml())
    for a in GARBAGE:
        obs = sim.act(a)
        assert (sim.app, sim.page, sim.state, obs.hierarchy.to_xml()) == before, a
    assert sim.steps == len(GARBAGE)


def test_longclick_acts_as_click():
    sim = Simulator()
    sim.reset({}, app="clock")
    sim.act({"type": "longclick", "element": "row_0900"})
    assert sim.state == {"alarm_0900": True}


def test_home_keeps_transient_state_restart_and_back_clear_it():
    sim = Simulator()
    sim.reset({}, app="clock")
    sim.act({"type": "swipe", "element": LIST_ID, "direction": "up"})
    sim.act({"type": "home"})
    sim.act({"type": "click", "element": "app_clock"})
    assert sim.state == {ui_key("scroll", "clock", "alarms"): 4}
    sim.act({"type": "restart"})
    assert sim.state == {} and sim.page == ROOTS["clock"]
    sim.act({"type": "swipe", "element": LIST_ID, "direction": "up"})
    sim.act({"type": "back"})
    assert sim.app == "launcher" and sim.state == {}


PLAN = [{"type": "click", "element": "app_chrome"}, {"type": "text", "element": "input", "text": "weather today"},
        {"type": "enter"}, {"type": "longclick", "point": (180, 170)}, {"type": "back"}, {"type": "home"},
        {"type": "click", "element": "app_clock"}, {"type": "swipe", "element": LIST_ID, "direction": "up"},
        {"type": "click", "element": "row_1845_toggle"}, {"type": "swipe", "point": (180, 300), "to": (180, 420)},
        {"type": "text", "element": "row_0900", "text": "nope"}, {"type": "restart"}, {"type": "wait"}]


def test_same_actions_give_identical_screens_and_trees():
    def play():
        sim = Simulator()
        obs = [sim.reset({"wifi": True})] + [sim.act(a) for a in PLAN]
        return [o.hierarchy.to_xml() for o in obs], [o.screen for o in obs], dict(sim.state)

    a, b = play(), play()
    assert a == b
    assert len(set(a[0])) > 5  # the plan really moves through different screens
    assert a[2] == {"wifi": True, "alarm_1845": True}


def test_table5_tasks_still_solved_by_click_only_oracle():
    for task in table5_tasks():
        assert run(task, oracle_policy(task))[0] == 1.0, task.name
    nine = next(t for t in table5_tasks() if t.name == "TurnOnAlarm9AM")
    assert [a.get("element") for a in oracle_actions(nine)] == ["app_clock", "row_0900", None]  # 09:00 on the first screen
    wifi_page = ToggleTask("OpenWifiSettings", "", {}, ((OPEN_PAGE, "settings/wifi_page"),))
    assert run(wifi_page, oracle_policy(wifi_page))[0] == 1.0
