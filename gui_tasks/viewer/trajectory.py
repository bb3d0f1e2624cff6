"""SPHINX simulator episodes step by step: the screen before each action, the action drawn on it, the verdicts.

The episode is replayed from the logged outputs in a fresh simulator (deterministic), exactly as
``gui_tasks.sphinx.lmms_task.replay`` scores it: same parser, same ``resolve`` by the document's rendering,
same stop at a format error (``on_format_error``) and at the step limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gui_tasks.viewer.overlays import Shape

SWIPE_VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


@dataclass
class StepView:
    index: int
    image: Any  # PIL image of the screen the action was taken on (the final screen for the last view)
    output: str  # the model's raw output ("" for the final screen)
    status: str  # parsed | malformed | empty | final
    action: dict[str, Any] | None
    shapes: list[Shape] = field(default_factory=list)
    verdicts: list[bool] | None = None  # per evaluator (navigation) or sub-goal (toggle), after this step


def _action_shapes(obs, act: Mapping[str, Any], sim_act: Mapping[str, Any]) -> list[Shape]:
    out: list[Shape] = []
    centre = None
    el = sim_act.get("element")
    if isinstance(el, str) and el != "__missing__":
        box = tuple(float(v) for v in obs.screen.get(el).box)
        out.append(Shape("action", "rect", box, f"{act['type']} [{act.get('index', el)}]"))
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    elif act.get("point") is not None:
        centre = tuple(float(v) for v in act["point"])
        out.append(Shape("action", "point", centre, act["type"]))
    if act["type"] == "swipe" and act.get("direction") in SWIPE_VECTORS:
        w, h = obs.screen.size
        cx, cy = centre or (w / 2, h / 2)
        dx, dy = SWIPE_VECTORS[act["direction"]]
        out.append(Shape("swipe", "arrow", (cx, cy, cx + dx * w / 4, cy + dy * h / 4), f"swipe {act['direction']}"))
    if act["type"] == "text" and act.get("text") is not None:
        cx, cy = centre or (8.0, 24.0)
        out.append(Shape("typed", "text", (cx, cy), str(act["text"])))
    return out


def sphinx_episode(doc: Mapping[str, Any], outputs: Sequence[str]) -> list[StepView]:
    """One view per round the task scored, plus the final screen."""
    from gui_tasks.sphinx.actions import parse_action
    from gui_tasks.sphinx.evaluator import score_trajectory
    from gui_tasks.sphinx.lmms_task import _rendering, _task, _tasks
    from gui_tasks.sphinx.navigation import NavTask, to_step
    from gui_tasks.sphinx.simulator import Simulator, resolve
    from gui_tasks.sphinx.toggle_tasks import subtask_scores

    spec = _tasks()[doc["id"]]
    sim = Simulator()
    obs = sim.reset(_task(doc).initial)
    steps, views = [], []

    def verdicts() -> list[bool]:
        if isinstance(spec, NavTask):  # the evaluators as if the agent stopped here
            return score_trajectory(spec.evaluators, steps + [to_step(sim.observe(), {"type": "stop", "reason": "viewer"})])
        return subtask_scores(spec, sim)

    for k, text in enumerate(list(outputs)[: int(doc.get("max_steps", len(outputs)))]):
        status, act = parse_action(text)
        view = StepView(k, obs.screenshot(), str(text), status, act)
        views.append(view)
        if act is None:
            if doc.get("on_format_error", "stop") == "stop":
                break
            continue
        sim_act = resolve(obs, act, _rendering(doc))
        view.shapes = _action_shapes(obs, act, sim_act)
        steps.append(to_step(obs, sim_act))
        if act["type"] == "stop":
            view.verdicts = verdicts()
            break
        obs = sim.act(sim_act)
        view.verdicts = verdicts()
    views.append(StepView(len(views), sim.observe().screenshot(), "", "final", None, [], verdicts()))
    return views
