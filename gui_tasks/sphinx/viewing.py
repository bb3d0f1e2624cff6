"""How ``gui-eval view`` shows a SPHINX sample and run: the viewer's ``gui_viewer`` hooks for the SPHINX benchmarks
(their records name this module as ``viewing``; ``gui_tasks.viewer.hookspecs``).

A simulator episode (a record with ``satisfied`` evaluators): its outcome from the evaluators, one response per round,
the app as its group, and the episode step by step: the screen before each action, the action drawn on it, the
verdicts. The episode is replayed from the logged outputs in a fresh simulator (deterministic) by the scorer's own
``gui_tasks.sphinx.lmms_task.replay``: same agent reading, same ``resolve`` by the document's rendering, same stop at a
format error (``on_format_error``) and at the step limit. A device episode (its document names a ``package``) has no
replay. A run: the report of Tables 4-9.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gui_core.viewing import DIRECTION_VECTORS as SWIPE_VECTORS
from gui_core.viewing import Report, RunView, SampleFacts, SampleView, Shape, Step, Trajectory, hookimpl


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
    """One view per round the task scored, plus the final screen.

    Each round is read off ``lmms_task.replay`` of the outputs up to it, the scorer's own replay, so every agent
    (ours, the official ReAct, Reflexion and LLM-Planner) is read as the task reads it: the action a round took is
    the one the replay added, a reflection or plan round takes none."""
    from gui_tasks.sphinx.evaluator import score_trajectory
    from gui_tasks.sphinx.lmms_task import _rendering, _tasks, read_output, replay
    from gui_tasks.sphinx.navigation import NavTask
    from gui_tasks.sphinx.simulator import resolve
    from gui_tasks.sphinx.toggle_tasks import subtask_scores

    spec = _tasks()[doc["id"]]
    outs = [str(t) for t in outputs]

    def verdicts(r) -> list[bool]:  # the evaluators on the trajectory so far (it ends with a stop step)
        return score_trajectory(spec.evaluators, r.steps) if isinstance(spec, NavTask) else subtask_scores(spec, r.sim)

    views: list[StepView] = []
    before = replay(doc, [])
    for k, text in enumerate(outs):
        if before.ended or before.calls >= doc["max_steps"]:
            break  # the task asked no further round
        obs = before.sim.observe()
        after = replay(doc, outs[: k + 1])
        new = after.taken[len(before.taken):]
        act = dict(new[0]) if new else None
        if act is not None:
            status = "parsed"
        elif after.errors > before.errors:
            status = read_output(doc, text, obs)[0] if before.phase in ("act", "ground") else "malformed"
        else:
            status = before.phase  # a Reflexion reflection or an LLM-Planner plan: no action on the device
        view = StepView(k, obs.screenshot(), text, status, act, verdicts=verdicts(after))
        if act is not None:
            view.shapes = _action_shapes(obs, act, resolve(obs, act, _rendering(doc)))
        views.append(view)
        before = after
    views.append(StepView(len(views), before.sim.observe().screenshot(), "", "final", None, [], verdicts(before)))
    return views


def _episode_record(record: Mapping[str, Any]) -> bool:
    return "satisfied" in record


@hookimpl
def gui_viewer_sample_facts(record: Mapping[str, Any], doc: Mapping[str, Any] | None) -> SampleFacts | None:
    """A simulator or device episode: succeeded when every evaluator (sub-goal) is satisfied; its app as the group."""
    if not record or not _episode_record(record):
        return None
    group = str((doc or {}).get("id", "")).partition("/")[0]
    if record.get("not_run"):  # a device episode that could not run (device dropped, app missing)
        return SampleFacts("unscored", f"not run: {record['not_run']}", group, multi_round=True)
    sat = list(record.get("satisfied") or [])
    ok = bool(sat) and all(sat)
    if not ok and record.get("format_errors"):
        return SampleFacts("format_error", "format error", group, multi_round=True)
    return SampleFacts("correct" if ok else "wrong", f"{sum(map(bool, sat))}/{len(sat)} evaluators", group,
                       multi_round=True)


@hookimpl
def gui_viewer_sample_media(sample: SampleView) -> list[Trajectory] | None:
    """A simulator episode replayed screen by screen (a device episode, whose document names its package, has none)."""
    doc = sample.doc
    if doc is None or "package" in doc or not _episode_record(sample.record):
        return None
    steps = []
    for v in sphinx_episode(doc, sample.responses):
        verdict = "" if v.verdicts is None else " ".join("✓" if ok else "✗" for ok in v.verdicts)
        caption = ("final screen" if v.status == "final" else f"step {v.index}: {v.status}") + (f"; verdicts {verdict}" if verdict else "")
        steps.append(Step(v.index, v.image, v.shapes, caption, v.output, v.action, final=v.status == "final"))
    return [Trajectory(steps)]


@hookimpl
def gui_viewer_run_reports(run: RunView) -> list[Report]:
    from gui_tasks.sphinx import report as sphinx

    return [Report("SPHINX: Tables 4-9", lambda: "\n".join(f"### {k}\n{v}" for k, v in sphinx.build_report(run.runs).items()))]
