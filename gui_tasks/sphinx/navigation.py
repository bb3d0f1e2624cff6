"""Goal-based SPHINX navigation in the simulator: episodes recorded as evaluator trajectories.

Built-in tasks carry evaluators in the official file layout (``evaluator.json`` nodes), so the same
loader and semantics score the simulator and the official material; between them they use every
assertion type, both match types and the three orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gui_tasks.sphinx.evaluator import Assertion, Evaluator, Step, evaluators_from_json, score_trajectory
from gui_tasks.sphinx.invariants import repetitions
from gui_tasks.sphinx.simulator import Observation, Simulator, package_of
from gui_tasks.sphinx.toggle_tasks import OPEN_PAGE, ToggleTask


def eval_action(obs: Observation, action: Mapping[str, Any]) -> dict[str, Any]:
    """A simulator action in the evaluator's form: ``action_type``, the view it landed on, ``coords``, ``message``."""
    t = str(action.get("type", ""))
    out: dict[str, Any] = {"action_type": "input" if t == "text" else t}
    if action.get("text") is not None:
        out["message"] = str(action["text"])
    if isinstance(action.get("element"), str):
        rid = f"{package_of(obs.screen.app)}:id/{action['element']}"
        node = obs.hierarchy.find({"resource-id": rid})
        if node is not None:
            out["element"] = dict(node.attrib)
    if "point" in action:
        out["coords"] = [tuple(action["point"])] + ([tuple(action["to"])] if "to" in action else [])
    if action.get("reason"):
        out["reason"] = action["reason"]
    return out


def to_step(obs: Observation, action: Mapping[str, Any]) -> Step:
    return Step(obs.hierarchy, obs.activity, eval_action(obs, action))


@dataclass(frozen=True)
class NavTask:
    """A goal with its evaluators (section 3.2.1) and a state goal the oracle plans towards."""

    task: ToggleTask
    evaluators: tuple[Assertion | Evaluator, ...]


Policy = Callable[[str, Observation], dict]


def run_episode(task: ToggleTask, policy: Policy, *, max_steps: int = 10) -> tuple[list[Step], Simulator]:
    """Drive a policy; the trajectory ends with a stop step on the final screen."""
    sim = Simulator()
    obs = sim.reset(task.initial)
    traj: list[Step] = []
    for _ in range(max_steps):
        a = policy(task.instruction, obs)
        traj.append(to_step(obs, a))
        if a.get("type") == "stop":
            return traj, sim
        obs = sim.act(a)
    traj.append(to_step(obs, {"type": "stop", "reason": "step_limit"}))
    return traj, sim


def _rid(app: str, eid: str) -> str:
    return f"{package_of(app)}:id/{eid}"


BASE = {"wifi": True, "bt": False, "dnd": False, "alarm_0900": False, "yt_captions": False, "chrome_payment": False, "chrome_https": False}
NAV_SPECS: list[tuple[str, str, dict, tuple, list]] = [  # (name, instruction, initial state, oracle goals, evaluators)
    ("OpenWifiSettings", "Open the Wi-Fi settings page.", {}, ((OPEN_PAGE, "settings/wifi_page"),),
     [{"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": _rid("settings", "title")},
       "check_type": "equal", "check_rules": {"text": "Wi-Fi", "activity": "com.sim.settings.wifi_page"}}]),
    ("DndOn", "Turn on Do not Disturb.", {}, (("dnd", True),),
     # the switch sits on the settings root and on the Sound page: either path satisfies it
     [{"type": "findelement", "match_type": "equal", "match_rules": {"resource-id": _rid("settings", "row_dnd_toggle"), "checked": "true"},
       "check_type": "equal", "check_rules": {}}]),
    ("CaptionsOn", "Turn on captions in YouTube's settings.", {}, (("yt_captions", True),),
     [{"type": "rule", "order": "sequential", "evaluators": [
         {"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click", "text": "Captions"},
          "check_type": "equal", "check_rules": {}},
         {"type": "findelementbyaction", "action_match_type": "include",
          "action_match_rules": {"action_type": "click", "resource-id": _rid("youtube", "row_Show_captions")},
          "element_match_type": "equal", "element_match_rules": {"resource-id": _rid("youtube", "row_Show_captions_toggle")},
          "check_type": "equal", "check_rules": {"checked": "false"}}]},
      {"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": _rid("youtube", "row_Show_captions_toggle")},
       "check_type": "equal", "check_rules": {"checked": "true"}}]),
    ("WifiOffBtOn", "Turn off WiFi, then enable bluetooth.", {}, (("wifi", False), ("bt", True)),
     [{"type": "findelement", "match_type": "equal", "match_rules": {"resource-id": _rid("settings", "row_wifi_toggle"), "checked": "false"},
       "check_type": "equal", "check_rules": {}},
      {"type": "findelement", "match_type": "equal", "match_rules": {"resource-id": _rid("settings", "row_bluetooth_toggle"), "checked": "true"},
       "check_type": "equal", "check_rules": {}}]),
    ("AlarmNineOn", "Turn on the 9:00 alarm.", {}, (("alarm_0900", True),),
     [{"type": "rule", "order": "present", "evaluators": [
         # the row and its switch both toggle the alarm: "include" accepts either view id
         {"type": "lastaction", "check_type": "include", "check_rules": {"action_type": "click", "resource-id": _rid("clock", "row_0900")}},
         {"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": _rid("clock", "row_0900_toggle")},
          "check_type": "equal", "check_rules": {"checked": "true", "activity": "com.sim.clock.alarms"}}]}]),
    ("OpenChromePayment", "Open the payment methods page of Chrome's settings.", {}, ((OPEN_PAGE, "chrome/payment_page"),),
     [{"type": "rule", "order": "consecutive", "evaluators": [
         {"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click", "text": "Payment methods"},
          "check_type": "equal", "check_rules": {}},
         {"type": "findelement", "match_type": "equal",
          "match_rules": {"activity": "com.sim.chrome.payment_page", "resource-id": _rid("chrome", "title")},
          "check_type": "equal", "check_rules": {"text": "Payment methods"}}]}]),
    ("SearchWeather", "Search the web for weather in Chrome.", {}, ((OPEN_PAGE, "chrome/results"),),
     [{"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "input"},
       "check_type": "include", "check_rules": {"message": "weather"}},
      {"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": _rid("chrome", "title")},
       "check_type": "include", "check_rules": {"text": "weather", "activity": "com.sim.chrome.results"}}]),
    ("LateAlarmOn", "Turn on the 23:00 alarm.", {}, (("alarm_2300", True),),
     # 23:00 is below the first screen: a swipe is needed before the tap
     [{"type": "rule", "order": "sequential", "evaluators": [
         {"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "swipe"}, "check_type": "equal", "check_rules": {}},
         {"type": "lastaction", "check_type": "include", "check_rules": {"action_type": "click", "resource-id": _rid("clock", "row_2300")}}]},
      {"type": "stoppage", "match_type": "equal", "match_rules": {"resource-id": _rid("clock", "row_2300_toggle")},
       "check_type": "equal", "check_rules": {"checked": "true"}}]),
]
_TEXT = {"SearchWeather": "weather"}  # what the oracle types


def nav_tasks() -> list[NavTask]:
    """The built-in goal-based navigation tasks of the simulator."""
    return [NavTask(ToggleTask(n, instr, {**BASE, **init}, goals, {"text": _TEXT[n]} if n in _TEXT else {}),
                    tuple(evaluators_from_json(ev, file=f"builtin:{n}"))) for n, instr, init, goals, ev in NAV_SPECS]


def trajectory_record(nav: NavTask, traj: Sequence[Step], *, format_errors: int = 0) -> dict[str, Any]:
    """Metric record (kind ``trajectory``) for gui_metrics.sphinx: evaluators satisfied and the invariants.

    ``n_actions`` counts the actions the agent took (its own ``stop`` included; the stop the harness adds at
    the step limit or a format error, marked with a ``reason``, not)."""
    acts = [dict(s.action) for s in traj if not s.action.get("reason")]
    repeated, looked = repetitions(acts)
    return {"satisfied": score_trajectory(nav.evaluators, traj), "n_actions": len(acts), "repeated": repeated,
            "repeat_looked": looked, "format_errors": format_errors}
