"""StaR's 20 dynamic toggle tasks (appendix A.4, Table 5) on the SPHINX simulator.

Each task has an initial state and subtasks (state key -> wanted value, or the app that must
be open at the end). Score = fraction of subtasks satisfied by the final state (A.4: 0.5 when
one of two subtasks of a composite task fails). Verify variants start in the wanted state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from gui_tasks.sphinx.simulator import HOME, Observation, Simulator, build_screen

OPEN_APP = "__open_app__"
OPEN_PAGE = "__open_page__"  # wanted "app/page" on screen at the end


@dataclass(frozen=True)
class ToggleTask:
    name: str
    instruction: str
    initial: Mapping[str, Any]
    goals: tuple[tuple[str, Any], ...]  # (state key, wanted) or (OPEN_APP, app)
    meta: Mapping[str, Any] = field(default_factory=dict)


def _pair(name: str, instr: str, key: str, on: bool) -> list[ToggleTask]:
    base = {"wifi": True, "bt": False, "dnd": False, "alarm_0900": False, "yt_captions": False, "chrome_payment": False, "chrome_https": False}
    start = {**base, key: not on}
    return [ToggleTask(name, instr, start, ((key, on),)), ToggleTask(name + "Verify", instr, {**base, key: on}, ((key, on),))]


def table5_tasks(app_name: str = "clock") -> list[ToggleTask]:
    """The 20 Table 5 tasks (instruction templates verbatim, typos included)."""
    t: list[ToggleTask] = []
    t += _pair("SystemBluetoothTurnOff", "Turn bluetooth off.", "bt", False)
    t += _pair("SystemBluetoothTurnOn", "Turn bluetooth on.", "bt", True)
    t += _pair("SystemWifiTurnOff", "Turn wifi off.", "wifi", False)
    t += _pair("SystemWifiTurnOn", "Turn wifi on.", "wifi", True)
    base = {"wifi": True, "bt": False, "dnd": False, "alarm_0900": False, "yt_captions": False, "chrome_payment": False, "chrome_https": False}
    t.append(ToggleTask("TurnOffWifiAndTurnOnBluetooth", "Turn off WiFi, then enable bluetooth", base, (("wifi", False), ("bt", True))))
    t.append(ToggleTask("TurnOnWifiAndOpenApp", f"Turn on Wifi, then open the {app_name} app", {**base, "wifi": False},
                        (("wifi", True), (OPEN_APP, app_name)), {"app_name": app_name}))
    singles = [("TurnOnAlarm9AM", "Trun on alarm at 9:00 AM.", "alarm_0900", True),
               ("TurnOffAlarm9AM", "Trun off alarm at 9:00 AM.", "alarm_0900", False),
               ("TurnOnCaptionYoutube", "Turn on captions in Youtube’s settings.", "yt_captions", True),
               ("TurnOffCaptionYoutube", "Turn off captions in Youtube’s settings.", "yt_captions", False),
               ("TurnOnDoNotDisturb", "Turn on Do not Disturb", "dnd", True),
               ("TurnOffDoNotDisturb", "Turn off Do not Disturb", "dnd", False),
               ("TurnOnSaveAndFillPaymentMethodsChrome", "Turn on save and fill payment methods in Chrome’s settings.", "chrome_payment", True),
               ("TurnOffSaveAndFillPaymentMethodsChrome", "Turn off save and fill payment methods in Chrome’s settings.", "chrome_payment", False),
               ("TurnOnAlwaysSecureConnChrome", "Turn on Always use the secure connections in Chrome’s settings.", "chrome_https", True),
               ("TurnOffAlwaysSecureConnChrome", "Turn off Always use the secure connections in Chrome’s settings.", "chrome_https", False)]
    for name, instr, key, on in singles:
        t.append(ToggleTask(name, instr, {**base, key: not on}, ((key, on),)))
    return t


def subtask_scores(task: ToggleTask, sim: Simulator) -> list[bool]:
    def ok(key: str, want: Any) -> bool:
        if key == OPEN_APP:
            return sim.app == want
        if key == OPEN_PAGE:
            return f"{sim.app}/{sim.page}" == want
        return bool(sim.state.get(key)) == want

    return [ok(k, w) for k, w in task.goals]


TOGGLE_KINDS = ("normal", "verify", "composite")


def toggle_kind(task: ToggleTask) -> str:
    """``composite`` (several subtasks, partial credit), ``verify`` (the initial state already satisfies the goal:
    StaR's Verify variants, passed by doing nothing) or ``normal`` (one subtask, the state must change)."""
    if len(task.goals) > 1:
        return "composite"
    sim = Simulator()
    sim.reset(task.initial)
    return "verify" if all(subtask_scores(task, sim)) else "normal"


def score(task: ToggleTask, sim: Simulator) -> float:
    """A.4 task success in [0, 1]: fraction of satisfied subtasks in the final state."""
    s = subtask_scores(task, sim)
    return sum(s) / len(s)


Policy = Callable[[str, Observation], dict]


def run(task: ToggleTask, policy: Policy, *, max_steps: int = 20) -> tuple[float, list[dict]]:
    """Drive ``policy`` until it stops or ``max_steps``; returns the score and the actions."""
    sim = Simulator()
    obs = sim.reset(task.initial)
    actions: list[dict] = []
    for _ in range(max_steps):
        a = policy(task.instruction, obs)
        actions.append(a)
        if a.get("type") == "stop":
            break
        obs = sim.act(a)
    return score(task, sim), actions


def do_nothing(instruction: str, obs: Observation) -> dict:
    return {"type": "stop"}


def oracle_actions(task: ToggleTask, *, goal_check: Callable[[Simulator], bool] | None = None) -> list[dict]:
    """Shortest click sequence reaching the goals, by breadth-first search over simulator states.

    Subtasks are reached in their listed order ("then" in Table 5 instructions)."""
    sim = Simulator()
    sim.reset(task.initial)
    plan: list[dict] = []
    for i in range(len(task.goals)):
        sub = ToggleTask(task.name, task.instruction, {}, task.goals[: i + 1])
        check = goal_check or (lambda s, sub=sub: all(subtask_scores(sub, s)))
        plan += _bfs(sim, check, text=task.meta.get("text"))
    return plan + [{"type": "stop"}]


def _snapshot(sim: Simulator):
    return (sim.app, sim.page, tuple(sorted(sim.state.items())))


def _moves(sim: Simulator, text: str | None) -> list[dict]:
    """What the oracle tries from a screen: every click, swiping a list either way, typing the task's text into an
    input and pressing enter (when the task has a text to type), back and home."""
    els = build_screen(sim.app, sim.page, sim.state).elements
    moves = [{"type": "click", "element": e.id} for e in els]
    moves += [{"type": "swipe", "element": e.id, "direction": d} for e in els if e.role == "list" for d in ("up", "down")]
    if text:
        moves += [{"type": "text", "element": e.id, "text": text} for e in els if e.role == "input"] + [{"type": "enter"}]
    return moves + [{"type": "back"}, {"type": "home"}]


def _bfs(sim: Simulator, check: Callable[[Simulator], bool], limit: int = 5000, text: str | None = None) -> list[dict]:
    start = _snapshot(sim)
    prev: dict[Any, tuple[Any, dict] | None] = {start: None}
    q = deque([start])
    while q:
        snap = q.popleft()
        _restore(sim, snap)
        if check(sim):
            path = []
            while prev[snap] is not None:
                snap, a = prev[snap]
                path.append(a)
            return path[::-1]
        for a in _moves(sim, text):
            _restore(sim, snap)
            sim.act(a)
            nxt = _snapshot(sim)
            if nxt not in prev:
                prev[nxt] = (snap, a)
                q.append(nxt)
        if len(prev) > limit:
            break
    raise RuntimeError("goal unreachable")


def _restore(sim: Simulator, snap) -> None:
    sim.app, sim.page, st = snap
    sim.state = dict(st)


def oracle_policy(task: ToggleTask) -> Policy:
    plan = iter(oracle_actions(task))
    return lambda instruction, obs: next(plan, {"type": "stop"})


__all__ = ["ToggleTask", "TOGGLE_KINDS", "toggle_kind", "table5_tasks", "score", "run", "do_nothing", "oracle_actions", "oracle_policy", "HOME"]
