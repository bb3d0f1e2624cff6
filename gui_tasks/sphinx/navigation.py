"""Goal-based SPHINX navigation in the simulator: episodes recorded as evaluator trajectories."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gui_tasks.sphinx.evaluator import Evaluator, Step, evaluators_from_json, score_trajectory
from gui_tasks.sphinx.observation import _text
from gui_tasks.sphinx.simulator import Observation, Simulator
from gui_tasks.sphinx.toggle_tasks import OPEN_PAGE, ToggleTask
from gui_tasks.synth.scene import Element, Screen


def element_attrs(e: Element, lang: str = "en") -> dict[str, str]:
    """Evaluator-facing attributes of an element (names follow Android view hierarchies)."""
    out = {"resource-id": e.id, "class": e.role, "text": _text(e, lang),
           "bounds": "[{},{}][{},{}]".format(*e.box)}
    if e.state is not None:
        out["checked"] = str(bool(e.state)).lower()
    return out


def to_step(scr: Screen, action: Mapping[str, Any]) -> Step:
    act = dict(action)
    if isinstance(act.get("element"), str):
        el = next((e for e in scr.elements if e.id == act["element"]), None)
        act["element"] = element_attrs(el) if el else {"resource-id": act["element"]}
    return Step(f"{scr.app}/{scr.page}", tuple(element_attrs(e) for e in scr.elements), act)


@dataclass(frozen=True)
class NavTask:
    """A goal with its evaluators (section 3.2.1) and a state goal the oracle plans towards."""

    task: ToggleTask
    evaluators: tuple[Evaluator, ...]


Policy = Callable[[str, Observation], dict]


def run_episode(task: ToggleTask, policy: Policy, *, max_steps: int = 10) -> tuple[list[Step], Simulator]:
    """Drive a policy; the trajectory ends with a stop step on the final screen."""
    sim = Simulator()
    obs = sim.reset(task.initial)
    traj: list[Step] = []
    for _ in range(max_steps):
        a = policy(task.instruction, obs)
        traj.append(to_step(obs.screen, a))
        if a.get("type") == "stop":
            return traj, sim
        obs = sim.act(a)
    traj.append(to_step(obs.screen, {"type": "stop", "reason": "step_limit"}))
    return traj, sim


def _fe(match="equality", **el):
    return {"type": "FindElement", "element": el, "match": match}


BASE = {"wifi": True, "bt": False, "dnd": False, "alarm_0900": False, "yt_captions": False, "chrome_payment": False, "chrome_https": False}
_SPECS = [
    ("OpenWifiSettings", "Open the Wi-Fi settings page.", {}, ((OPEN_PAGE, "settings/wifi_page"),),
     [{"type": "StopPage", "page": "settings/wifi_page"}]),
    ("DndOn", "Turn on Do not Disturb.", {}, (("dnd", True),),
     # either the settings root row or the Sound page row: alternative paths
     [{"order": "presence", "list": [_fe(**{"resource-id": "row_dnd_toggle", "checked": "true"})]}]),
    ("CaptionsOn", "Turn on captions in YouTube's settings.", {}, (("yt_captions", True),),
     [{"order": "sequential", "list": [{"type": "FindElementByAction", "action": {"type": "click"}, "element": {"text": "Captions"}},
                                       _fe(text="Show captions", checked="true")]}]),
    ("WifiOffBtOn", "Turn off WiFi, then enable bluetooth.", {}, (("wifi", False), ("bt", True)),
     [{"order": "presence", "list": [_fe(**{"resource-id": "row_wifi_toggle", "checked": "false"})]},
      {"order": "presence", "list": [_fe(**{"resource-id": "row_bluetooth_toggle", "checked": "true"})]}]),
    ("AlarmNineOn", "Turn on the 9:00 alarm.", {}, (("alarm_0900", True),),
     [{"order": "sequential", "list": [{"type": "FindElementByAction", "action": {"type": "click"}, "element": {"text": "09:00"}},
                                       {"type": "StopPage", "element": {"text": "09:00", "checked": "true"}}]}]),
]


def nav_tasks() -> list[NavTask]:
    """The built-in goal-based navigation tasks of the simulator."""
    return [NavTask(ToggleTask(n, instr, {**BASE, **init}, goals), tuple(evaluators_from_json({"evaluators": ev}, file=f"builtin:{n}")))
            for n, instr, init, goals, ev in _SPECS]


def trajectory_record(nav: NavTask, traj: Sequence[Step], *, format_errors: int = 0) -> dict[str, Any]:
    """Metric record (kind ``trajectory``) for gui_metrics.sphinx."""
    acts = [(s.page, s.elements, s.action) for s in traj if s.action.get("type") != "stop"]
    # a repetition = the same action taken again on an identical screen (it changed nothing)
    repeated = sum(1 for a, b in zip(acts, acts[1:]) if a == b)
    return {"satisfied": score_trajectory(nav.evaluators, traj), "n_actions": len(acts) + format_errors,
            "repeated": repeated, "format_errors": format_errors}
