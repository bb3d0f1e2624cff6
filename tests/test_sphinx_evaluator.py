"""SPHINX trajectory evaluators (section 3.2.1) on hand-written trajectories."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_metrics.sphinx import average_completion, success_rate
from gui_tasks.errors import DataError
from gui_tasks.sphinx.evaluator import (
    Assertion, Evaluator, Step, evaluators_from_json, load_evaluators, parse_bounds, score_trajectory,
)

FIX = Path(__file__).parent / "fixtures" / "sphinx"

HOME = ({"text": "Settings", "resource-id": "app_settings"}, {"text": "Clock"})
SETTINGS = ({"text": "Wi-Fi"}, {"text": "Bluetooth"}, {"text": "Search", "resource-id": "search"})
WIFI_OFF = ({"text": "Wi-Fi", "checked": "false"}, {"resource-id": "wifi_switch", "bounds": "[900,300][1040,380]"})
WIFI_ON = ({"text": "Wi-Fi", "checked": "true"}, {"resource-id": "wifi_switch", "bounds": "[900,300][1040,380]"})
SEARCH = ({"text": "Wi-Fi"}, {"resource-id": "search_box"})


def click(**el):
    return {"type": "click", "element": el}


def step(page, elements, action):
    return Step(page, elements, action)


# main path: home -> settings -> Wi-Fi -> switch -> stop
MAIN = [
    step("home", HOME, click(text="Settings")),
    step("settings", SETTINGS, click(text="Wi-Fi")),
    step("wifi", WIFI_OFF, click(**{"resource-id": "wifi_switch", "bounds": "[900,300][1040,380]"})),
    step("wifi", WIFI_ON, {"type": "stop"}),
]
# alternative path: search inside settings, type "wifi", then the Wi-Fi result
ALT = [
    step("home", HOME, click(text="Settings")),
    step("settings", SETTINGS, click(text="Search", **{"resource-id": "search"})),
    step("search", SEARCH, {"type": "text", "text": "wifi", "element": {"resource-id": "search_box"}}),
    step("search", SEARCH, click(text="Wi-Fi")),
    step("wifi", WIFI_OFF, click(**{"resource-id": "wifi_switch", "bounds": "[900,300][1040,380]"})),
    step("wifi", WIFI_ON, {"type": "stop"}),
]
NOTHING = [step("home", HOME, {"type": "stop"})]


def test_stop_page_checks_final_screen_only():
    a = Assertion("StopPage", element={"text": "Wi-Fi", "checked": "true"}, page="wifi")
    assert a.positions(MAIN) == {3}
    assert a.positions(MAIN[:3]) == set()  # last screen has Wi-Fi off
    assert a.positions(NOTHING) == set()


def test_last_action_ignores_the_stop():
    a = Assertion("LastAction", element={"resource-id": "wifi_switch"}, action={"type": "click"})
    assert a.positions(MAIN) == {2}
    assert Assertion("LastAction", action={"type": "text"}).positions(MAIN) == set()
    assert a.positions(NOTHING) == set()


def test_find_action_and_find_element_by_action():
    assert Assertion("FindAction", action={"type": "text", "text": "wifi"}).positions(ALT) == {2}
    assert Assertion("FindAction", action={"type": "text"}).positions(MAIN) == set()
    fea = Assertion("FindElementByAction", element={"text": "Wi-Fi"}, action={"type": "click"})
    assert fea.positions(MAIN) == {1}
    assert fea.positions(ALT) == {3}


def test_find_element_any_screen():
    a = Assertion("FindElement", element={"text": "Bluetooth"})
    assert a.positions(MAIN) == {1}
    assert a.positions(NOTHING) == set()


def test_equality_versus_inclusion():
    eq = Assertion("FindElement", element={"text": "wi"}, match="equality")
    inc = Assertion("FindElement", element={"text": "wi"}, match="inclusion")
    assert eq.positions(MAIN) == set()
    assert inc.positions(MAIN) == {1, 2, 3}
    # case and whitespace do not matter for equality
    assert Assertion("FindElement", element={"text": " WI-FI "}).positions(MAIN) == {1, 2, 3}


SETTINGS_OPEN = Assertion("FindElement", element={"text": "Bluetooth"})
WIFI_CLICK = Assertion("FindElementByAction", element={"text": "Wi-Fi"}, action={"type": "click"})
SWITCH = Assertion("FindElementByAction", element={"resource-id": "wifi_switch"}, action={"type": "click"})


def test_sequential_order():
    assert Evaluator((WIFI_CLICK, SWITCH), "sequential").positions(MAIN) == {2}
    assert Evaluator((SWITCH, WIFI_CLICK), "sequential").positions(MAIN) == set()


def test_consecutive_order_needs_adjacent_steps():
    assert Evaluator((WIFI_CLICK, SWITCH), "consecutive").satisfied(MAIN)
    # the alternative path has the Wi-Fi click at 3 and the switch at 4: still adjacent
    assert Evaluator((WIFI_CLICK, SWITCH), "consecutive").satisfied(ALT)
    # settings screen (1) then switch (4) are not adjacent in ALT, but are ordered
    assert not Evaluator((SETTINGS_OPEN, SWITCH), "consecutive").satisfied(ALT)
    assert Evaluator((SETTINGS_OPEN, SWITCH), "sequential").satisfied(ALT)


def test_presence_order_ignores_order():
    assert Evaluator((SWITCH, WIFI_CLICK), "presence").positions(MAIN) == {2}
    assert not Evaluator((SWITCH, Assertion("FindAction", action={"type": "text"})), "presence").satisfied(MAIN)


def test_recursive_sub_evaluators():
    inner = Evaluator((WIFI_CLICK, SWITCH), "consecutive")
    stop = Assertion("StopPage", element={"checked": "true"})
    outer = Evaluator((SETTINGS_OPEN, inner, stop), "sequential")
    assert outer.positions(MAIN) == {3}
    assert outer.satisfied(ALT)
    assert not outer.satisfied(MAIN[:3])


def test_alternative_path_only_through_search():
    """The typed search is in ALT only; the switch must follow it: only ALT satisfies."""
    ev = Evaluator((Assertion("FindAction", action={"type": "text", "text": "wi"}, match="inclusion"), SWITCH), "sequential")
    assert ev.satisfied(ALT) and not ev.satisfied(MAIN)


def test_official_fixture_loads_and_scores_sr_acp():
    evs = load_evaluators(FIX / "evaluator_wifi.json")
    assert [e.order for e in evs] == ["sequential", "presence"]
    recs = [{"satisfied": score_trajectory(evs, t)} for t in (MAIN, ALT, NOTHING, MAIN[:3])]
    assert [r["satisfied"] for r in recs] == [[True, True], [True, True], [False, False], [True, False]]
    assert success_rate(recs) == 0.5
    assert average_completion(recs) == pytest.approx((1 + 1 + 0 + 0.5) / 4)


def test_bad_evaluator_json_names_the_field(tmp_path):
    with pytest.raises(DataError, match=r"evaluators\[0\]\.list\[1\]\.type"):
        evaluators_from_json({"evaluators": [{"order": "sequential", "list": [{"type": "StopPage"}, {"type": "Nope"}]}]}, file="x.json")
    with pytest.raises(DataError, match="order"):
        evaluators_from_json({"evaluators": [{"order": "random", "list": [{"type": "StopPage"}]}]})
    p = tmp_path / "bad.json"
    p.write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match="bad.json"):
        load_evaluators(p)


def test_bare_assertion_is_wrapped_and_bounds_parse():
    evs = evaluators_from_json({"evaluators": [{"type": "FindElement", "element": {"text": "Clock"}}]})
    assert evs[0].order == "presence" and evs[0].satisfied(MAIN)
    assert parse_bounds("[900,300][1040,380]") == (900, 300, 1040, 380)
    with pytest.raises(DataError, match="bounds"):
        parse_bounds("900,300,1040,380")


from hypothesis import given, strategies as st  # noqa: E402

from gui_metrics.sphinx import gui_metrics_register  # noqa: E402


@given(st.lists(st.lists(st.booleans(), min_size=1, max_size=5), min_size=1, max_size=20))
def test_sr_never_exceeds_acp(sats):
    recs = [{"satisfied": s} for s in sats]
    assert 0.0 <= success_rate(recs) <= average_completion(recs) + 1e-12 <= 1.0 + 1e-12


def test_plugin_registers_sr_acp_and_invariants():
    specs = {s.name: s for s in gui_metrics_register()}
    assert set(specs) == {"sphinx_sr", "sphinx_acp", "sphinx_repetition_rate", "sphinx_format_error_rate"}
    recs = [{"satisfied": [True], "n_actions": 4, "repeated": 1, "format_errors": 0},
            {"satisfied": [False], "n_actions": 6, "repeated": 2, "format_errors": 3}]
    assert specs["sphinx_repetition_rate"].aggregate(recs) == pytest.approx(0.3)
    assert specs["sphinx_format_error_rate"].aggregate(recs) == pytest.approx(0.3)
    assert not specs["sphinx_repetition_rate"].higher_is_better
