"""SPHINX trajectory evaluators (section 3.2.1) with the official file semantics, on hand-written trajectories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gui_metrics.sphinx import average_completion, success_rate
from gui_core.errors import DataError
from gui_tasks.sphinx import release
from gui_tasks.sphinx.evaluator import (Assertion, Evaluator, Step, evaluators_from_json, node_from_json,
                                        score_trajectory)
from gui_tasks.sphinx.hierarchy import Hierarchy
from gui_tasks.sphinx.release import load_evaluators

FIX = Path(__file__).parent / "fixtures" / "sphinx"
PKG = "com.android.settings"


def view(rid: str, bounds: str, text: str = "", **flags: str) -> dict[str, str]:
    return {"resource-id": f"{PKG}:id/{rid}", "class": flags.pop("cls", "android.widget.TextView"), "text": text,
            "content-desc": "", "package": PKG, "checked": flags.pop("checked", "false"), "clickable": flags.pop("clickable", "true"),
            "bounds": bounds, **flags}


def screen(*views: dict[str, str]) -> Hierarchy:
    return Hierarchy.build([(0, view("root", "[0,0][1080,2400]", clickable="false"))] + [(1, v) for v in views])


HOME = screen(view("settings_icon", "[0,200][200,400]", "Settings"), view("clock_icon", "[200,200][400,400]", "Clock"))
SETTINGS = screen(view("wifi_row", "[0,300][1080,400]", "Wi-Fi"), view("bt_row", "[0,400][1080,500]", "Bluetooth"),
                  view("search", "[900,100][1000,200]", "Search"))
WIFI_OFF = screen(view("title", "[0,100][800,200]", "Wi-Fi", clickable="false"), view("switch", "[900,300][1040,380]", cls="android.widget.Switch"))
WIFI_ON = screen(view("title", "[0,100][800,200]", "Wi-Fi", clickable="false"),
                 view("switch", "[900,300][1040,380]", cls="android.widget.Switch", checked="true"))
SEARCH = screen(view("search_box", "[0,100][1080,200]", cls="android.widget.EditText"), view("result", "[0,300][1080,400]", "Wi-Fi"))
A_HOME, A_SET, A_WIFI, A_SEARCH = ("launcher", "Launcher"), (PKG, "Settings"), (PKG, "WifiSettings"), (PKG, "SearchActivity")


def click(h: Hierarchy, rid: str) -> dict:
    return {"action_type": "click", "element": dict(h.find({"resource-id": f"{PKG}:id/{rid}"}).attrib)}


STOP = {"action_type": "stop"}
# main path: home -> settings -> Wi-Fi -> switch -> stop
MAIN = [Step(HOME, A_HOME, click(HOME, "settings_icon")), Step(SETTINGS, A_SET, click(SETTINGS, "wifi_row")),
        Step(WIFI_OFF, A_WIFI, click(WIFI_OFF, "switch")), Step(WIFI_ON, A_WIFI, STOP)]
# alternative path: search inside settings, type "wifi", tap the result (coordinates), then the switch
ALT = [Step(HOME, A_HOME, click(HOME, "settings_icon")), Step(SETTINGS, A_SET, click(SETTINGS, "search")),
       Step(SEARCH, A_SEARCH, {**click(SEARCH, "search_box"), "action_type": "text", "message": "wifi"}),
       Step(SEARCH, A_SEARCH, {"action_type": "click", "coords": [(500, 350)]}),
       Step(WIFI_OFF, A_WIFI, click(WIFI_OFF, "switch")), Step(WIFI_ON, A_WIFI, STOP)]
NOTHING = [Step(HOME, A_HOME, STOP)]


def ev(node: dict, traj) -> tuple[bool, int]:
    from gui_tasks.sphinx.evaluator import _entries

    ents = _entries(traj)
    return node_from_json(node).evaluate(ents, 0, len(ents))


def test_stop_page_checks_the_final_screen_and_activity():
    node = {"type": "stoppage", "match_rules": {"resource-id": f"{PKG}:id/switch"}, "check_rules": {"checked": "true", "activity": "WifiSettings"}}
    assert ev(node, MAIN) == (True, 6)  # entries: 8; the last screen is entry 6
    assert ev(node, MAIN[:3] + [Step(WIFI_OFF, A_WIFI, STOP)])[0] is False
    assert ev({**node, "check_rules": {"checked": "true", "activity": "Other"}}, MAIN)[0] is False
    assert ev(node, NOTHING)[0] is False
    with pytest.raises(DataError, match="activity"):
        node_from_json({**node, "match_rules": {"activity": "WifiSettings"}}, file="e.json")


def test_last_action_is_the_one_before_stop_and_reads_the_view_it_hit():
    node = {"type": "lastaction", "check_rules": {"action_type": "click", "resource-id": f"{PKG}:id/switch"}}
    assert ev(node, MAIN) == (True, 5)
    assert ev({**node, "check_rules": {"action_type": "input"}}, MAIN)[0] is False
    assert ev(node, NOTHING) == (False, 0)  # fewer than three entries


def test_find_action_text_message_and_view_by_coordinates():
    typed = {"type": "findaction", "match_rules": {"action_type": "input"}, "check_rules": {"message": "wifi"}}
    assert ev(typed, ALT) == (True, 5)
    assert ev(typed, MAIN)[0] is False
    by_point = {"type": "findaction", "match_rules": {"action_type": "click", "text": "Wi-Fi"}, "check_rules": {}}
    assert ev(by_point, ALT) == (True, 7)  # the coordinate tap lands on the "Wi-Fi" result
    assert ev(by_point, MAIN) == (True, 3)  # the Wi-Fi row of the settings page


def test_find_element_takes_the_first_match_only():
    switch_on = {"type": "findelement", "match_rules": {"resource-id": f"{PKG}:id/switch"}, "check_rules": {"checked": "true"}}
    # the switch is first seen off (step 2): the check fails although it is on later (official semantics)
    assert ev(switch_on, MAIN) == (False, 4)
    direct = {"type": "findelement", "match_rules": {"resource-id": f"{PKG}:id/switch", "checked": "true"}, "check_rules": {}}
    assert ev(direct, MAIN) == (True, 6)
    with_activity = {"type": "findelement", "match_rules": {"activity": "SearchActivity", "text": "Wi-Fi"}, "check_rules": {}}
    assert ev(with_activity, ALT) == (True, 4) and ev(with_activity, MAIN)[0] is False


def test_find_element_by_action_checks_the_screen_of_the_action():
    node = {"type": "findelementbyaction", "action_match_rules": {"action_type": "click", "resource-id": f"{PKG}:id/switch"},
            "element_match_rules": {"resource-id": f"{PKG}:id/switch"}, "check_rules": {"checked": "false"}}
    assert ev(node, MAIN) == (True, 5)  # clicked while it was off
    assert ev({**node, "check_rules": {"checked": "true"}}, MAIN)[0] is False


def test_equal_versus_include():
    eq = {"type": "findelement", "match_type": "equal", "match_rules": {"text": "Wi"}, "check_rules": {}}
    inc = {**eq, "match_type": "include"}
    assert ev(eq, MAIN)[0] is False and ev(inc, MAIN)[0] is True
    assert ev({**inc, "match_rules": {"text": "wi-fi"}}, MAIN)[0] is False  # case-sensitive, as the official files are


def test_orders_sequential_consecutive_presence():
    tap_wifi = {"type": "findaction", "match_rules": {"action_type": "click", "text": "Wi-Fi"}, "check_rules": {}}
    on = {"type": "findelement", "match_rules": {"resource-id": f"{PKG}:id/switch", "checked": "true"}, "check_rules": {}}
    bt = {"type": "findelement", "match_rules": {"text": "Bluetooth"}, "check_rules": {}}
    seq = {"type": "rule", "order": "sequential", "evaluators": [tap_wifi, on]}
    assert ev(seq, MAIN) == (True, 6) and ev(seq, ALT)[0] is True
    # Bluetooth is shown only before the Wi-Fi tap: sequential fails in this order, presence does not
    assert ev({**seq, "evaluators": [tap_wifi, bt]}, MAIN)[0] is False
    assert ev({"type": "rule", "order": "present", "evaluators": [tap_wifi, bt]}, MAIN) == (True, 3)
    # consecutive: the switch must come on within three entries of the tap (MAIN: tap at 3, on at 6 -> no)
    cons = {"type": "rule", "order": "consecutive", "evaluators": [tap_wifi, {**on, "match_rules": {"resource-id": f"{PKG}:id/title"}}]}
    assert ev(cons, MAIN) == (True, 4)  # the Wi-Fi page appears right after the tap
    assert ev({**cons, "evaluators": [tap_wifi, on]}, MAIN)[0] is False
    # rules nest
    nested = {"type": "rule", "order": "present", "evaluators": [seq, {"type": "rule", "order": "sequential", "evaluators": [bt]}]}
    assert ev(nested, MAIN)[0] is True


def test_alternative_path_satisfies_the_same_evaluators_and_sr_acp():
    evs = evaluators_from_json([
        {"type": "stoppage", "match_rules": {"resource-id": f"{PKG}:id/switch"}, "check_rules": {"checked": "true"}},
        {"type": "lastaction", "check_rules": {"action_type": "click", "resource-id": f"{PKG}:id/switch"}},
        {"type": "findaction", "match_rules": {"action_type": "click", "text": "Wi-Fi"}, "check_rules": {}},
        {"type": "findaction", "match_rules": {"action_type": "input"}, "check_rules": {"message": "wifi"}}])
    recs = [{"satisfied": score_trajectory(evs, t)} for t in (MAIN, ALT, NOTHING)]
    assert [r["satisfied"] for r in recs] == [[True, True, True, False], [True, True, True, True], [False, False, False, False]]
    assert success_rate(recs) == pytest.approx(1 / 3)
    assert average_completion(recs) == pytest.approx((0.75 + 1 + 0) / 3)


def test_official_fixture_scores_its_reference_trajectory():
    folder = FIX / "groundtruth" / "101" / "money"
    evs = load_evaluators(folder / "evaluator.json")
    traj = release.reference_trajectory(folder)
    assert len(traj) == 4 and traj[-1].action == {"action_type": "stop"}
    assert score_trajectory(evs, traj) == [True, True, True]
    # cut before the amount is typed: the typed-amount assertion and the stop page fail, the category tap holds
    assert score_trajectory(evs, traj[:1] + [Step(traj[1].hierarchy, traj[1].activity, {"action_type": "stop"})]) == [False, True, False]


@pytest.mark.parametrize("bad, field", [
    ([{"type": "gotopage"}], "evaluators[0].type"),
    ([{"type": "rule", "order": "random", "evaluators": []}], "evaluators[0].order"),
    ([{"type": "rule", "order": "present", "evaluators": []}], "evaluators[0].evaluators"),
    ([{"type": "findelement", "match_type": "regex", "match_rules": {}}], "evaluators[0].match_type"),
    ([{"type": "rule", "order": "sequential", "evaluators": [{"type": "stoppage", "match_rules": "x"}]}], "evaluators[0].evaluators[0].match_rules"),
])
def test_bad_evaluator_files_name_the_node(tmp_path, bad, field):
    p = tmp_path / "evaluator.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(DataError, match=re.escape(f"evaluator.json, row -, field {field!r}")):
        load_evaluators(p)


def test_unreadable_evaluator_file(tmp_path):
    p = tmp_path / "evaluator.json"
    p.write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match="invalid JSON|cannot read"):
        load_evaluators(p)
    with pytest.raises(DataError, match="non-empty list"):
        evaluators_from_json({"evaluators": []})


def test_assertion_and_order_names_are_closed():
    with pytest.raises(ValueError):
        Assertion("GoToPage")
    with pytest.raises(ValueError):
        Evaluator((Assertion("FindElement"),), "random")
