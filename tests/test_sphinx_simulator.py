"""SPHINX simulator, observation modes, StaR Table 5 dynamic toggle tasks, built-in navigation tasks."""

from __future__ import annotations

import pytest

from gui_metrics.sphinx import average_completion, success_rate
from gui_tasks.sphinx.navigation import nav_tasks, run_episode, trajectory_record
from gui_tasks.sphinx.hierarchy import Hierarchy
from gui_tasks.sphinx.observation import full_text, set_of_mark, simplified_text
from gui_tasks.sphinx.simulator import Simulator, element_at, element_of_index, resolve
from gui_tasks.sphinx.toggle_tasks import do_nothing, oracle_actions, oracle_policy, run, table5_tasks, score
from gui_tasks.synth import i18n

TASKS = table5_tasks()


def _play(actions, initial=None):
    sim = Simulator()
    obs = [sim.reset(initial or {"wifi": True})]
    for a in actions:
        obs.append(sim.act(a))
    return sim, obs


def test_table5_has_twenty_tasks_and_four_verify():
    assert len(TASKS) == 20 and len({t.name for t in TASKS}) == 20
    verify = [t for t in TASKS if t.name.endswith("Verify")]
    assert len(verify) == 4  # Bluetooth/Wi-Fi x on/off
    for t in verify:  # the state already matches
        assert all(t.initial[k] == w for k, w in t.goals)


def test_simulator_is_deterministic():
    plan = oracle_actions(TASKS[8])  # TurnOffWifiAndTurnOnBluetooth
    _, a = _play(plan, TASKS[8].initial)
    _, b = _play(plan, TASKS[8].initial)
    assert [o.screen for o in a] == [o.screen for o in b]
    assert [o.hierarchy.to_xml() for o in a] == [o.hierarchy.to_xml() for o in b]
    assert a[1].screenshot().tobytes() == b[1].screenshot().tobytes()


def test_back_home_and_coordinate_clicks():
    sim, _ = _play([{"type": "click", "element": "app_settings"}, {"type": "click", "element": "row_wifi"}])
    assert (sim.app, sim.page) == ("settings", "wifi_page")
    toggle = sim.observe().screen.get("row_wifi_toggle")
    x = (toggle.box[0] + toggle.box[2]) / 2
    y = (toggle.box[1] + toggle.box[3]) / 2
    assert element_at(sim.observe().screen, x, y).id == "row_wifi_toggle"
    sim.act({"type": "click", "point": (x, y)})
    assert sim.state["wifi"] is False
    sim.act({"type": "back"})
    assert sim.page == "root"
    sim.act({"type": "home"})
    assert sim.app == "launcher"
    sim.act({"type": "back"})  # back on the launcher stays there
    assert sim.app == "launcher"


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_oracle_solves_and_do_nothing_fails_unless_verify(task):
    assert run(task, oracle_policy(task))[0] == 1.0
    assert run(task, do_nothing)[0] == (1.0 if task.name.endswith("Verify") else 0.0)


def test_composite_task_partial_credit():
    task = next(t for t in TASKS if t.name == "TurnOffWifiAndTurnOnBluetooth")
    sim, _ = _play([{"type": "click", "element": "app_settings"}, {"type": "click", "element": "row_wifi"},
                    {"type": "click", "element": "row_wifi_toggle"}], task.initial)
    assert score(task, sim) == 0.5
    # a Verify task toggled needlessly (false positive) scores 0
    verify = next(t for t in TASKS if t.name == "SystemWifiTurnOnVerify")
    sim, _ = _play([{"type": "click", "element": "app_settings"}, {"type": "click", "element": "row_wifi"},
                    {"type": "click", "element": "row_wifi"}], verify.initial)
    assert score(verify, sim) == 0.0


def test_accessibility_text_modes():
    sim, obs = _play([{"type": "click", "element": "app_settings"}, {"type": "click", "element": "row_wifi"}])
    h = obs[-1].hierarchy
    assert full_text(h).splitlines() == [
        'FrameLayout id=content',
        '  [0] ImageButton desc="Navigate up" id=back clickable',
        '  TextView "Wi-Fi" id=title',
        '  [1] LinearLayout id=row_wifi clickable long-clickable',
        '    TextView "Wi-Fi" id=row_wifi_label',
        '    [2] Switch desc="Wi-Fi" id=row_wifi_toggle checked=true clickable',
        '  [3] LinearLayout id=row_Home_5G clickable long-clickable',
        '    TextView "Home-5G" id=row_Home_5G_label']
    # simplified: leaf interactables only (the Wi-Fi row holds its switch), same [i] as the full tree
    assert simplified_text(h).splitlines() == ['[0] ImageButton desc="Navigate up" id=back clickable',
                                               '[2] Switch desc="Wi-Fi" id=row_wifi_toggle checked=true clickable',
                                               '[3] LinearLayout id=row_Home_5G clickable long-clickable text="Home-5G"']
    shot = obs[-1].screenshot()
    img = set_of_mark(shot, h)
    assert img.size == shot.size and img.tobytes() != shot.tobytes()
    cx, cy = (h.nodes[h.interactables()[2]].box[0] + h.nodes[h.interactables()[2]].box[2]) // 2, 10 + (h.nodes[h.interactables()[2]].box[1] + h.nodes[h.interactables()[2]].box[3]) // 2 - 10
    assert img.getpixel((cx, cy)) == (230, 30, 30)  # a mark at the switch's centre
    assert element_of_index(obs[-1], 2, "paper-prose") == "row_wifi_toggle" and element_of_index(obs[-1], 9, "paper-prose") is None
    # official numbering is breadth-first: the rows' children come after every row
    assert [element_of_index(obs[-1], k) for k in range(5)] == ["back", "row_wifi", "row_Home_5G", "row_wifi_toggle", None]
    assert resolve(obs[-1], {"type": "click", "index": 9}) == {"type": "click", "element": "__missing__"}


def test_hierarchy_round_trips_through_uiautomator_xml():
    _, obs = _play([{"type": "click", "element": "app_settings"}])
    h = obs[-1].hierarchy
    again = Hierarchy.from_xml(h.to_xml())
    assert [n.attrib for n in again.nodes] == [dict(n.attrib) for n in h.nodes] and full_text(again) == full_text(h)
    assert obs[-1].activity == ("com.sim.settings", "com.sim.settings.root")
    assert h.nodes[0].get("package") == "com.android.systemui" and "status_bar" not in full_text(h)


def test_rendering_restores_i18n_table():
    before = set(i18n.VERBATIM)
    Simulator().reset({}, app="youtube").screenshot()
    assert i18n.VERBATIM == before


def test_navigation_oracle_sr_one_do_nothing_zero():
    ok, none = [], []
    for nav in nav_tasks():
        traj, _ = run_episode(nav.task, oracle_policy(nav.task))
        ok.append(trajectory_record(nav, traj))
        traj, _ = run_episode(nav.task, do_nothing)
        none.append(trajectory_record(nav, traj))
    assert success_rate(ok) == 1.0 and average_completion(ok) == 1.0
    assert success_rate(none) == 0.0 and average_completion(none) == 0.0
    # the official action equality ignores the screen: the Wi-Fi row of the settings root and the switch row of the
    # Wi-Fi page share id, class, text and bounds, so WifiOffBtOn's oracle "repeats" once (the Bluetooth rows sit
    # at different heights)
    assert [r["repeated"] for r in ok] == [0, 0, 0, 1, 0, 0, 0, 0]


def test_dnd_alternative_path_through_sound_page():
    nav = next(n for n in nav_tasks() if n.task.name == "DndOn")
    plan = [{"type": "click", "element": "app_settings"}, {"type": "click", "element": "row_sound"},
            {"type": "click", "element": "row_dnd_toggle"}, {"type": "stop"}]
    it = iter(plan)
    traj, sim = run_episode(nav.task, lambda i, o: next(it))
    assert sim.page == "sound_page" and trajectory_record(nav, traj)["satisfied"] == [True]


def test_step_limit_ends_episode_and_counts_repetition():
    nav = nav_tasks()[0]
    traj, _ = run_episode(nav.task, lambda i, o: {"type": "wait"}, max_steps=3)
    rec = trajectory_record(nav, traj)
    assert len(traj) == 4 and traj[-1].action == {"action_type": "stop", "reason": "step_limit"}
    # official repetition: actions 2 and 3 equal an earlier one; three equal in a row end the count
    assert rec["n_actions"] == 3 and (rec["repeated"], rec["repeat_looked"]) == (2, 2) and rec["satisfied"] == [False]
