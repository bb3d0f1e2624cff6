"""lmms-eval task for end-to-end SPHINX navigation in the simulator (``generate_until_multi_round``).

Round k's prompt is rebuilt by replaying the model's k previous outputs in a fresh simulator
(the world is deterministic), so the task keeps no state between rounds. The episode ends at
``stop`` or after ``max_steps`` rounds; the trajectory is written to ``cache_dir()/sphinx_trajectories``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from gui_metrics.lmms_bridge import sample_values
from gui_tasks.lmms_rows import RowsTask
from gui_tasks.paths import cache_dir
from gui_tasks.sphinx.actions import parse_action
from gui_tasks.sphinx.navigation import NavTask, nav_tasks, to_step, trajectory_record
from gui_tasks.sphinx.observation import interactables, simplified_text
from gui_tasks.sphinx.simulator import Simulator
from gui_tasks.sphinx.toggle_tasks import score, table5_tasks

PROMPT = ("You operate a phone. Goal: {goal}\nStep {step} of at most {max_steps}.\nScreen elements (index: element):\n{tree}\n"
          "Answer with one action: click [index], click [x,y], text [index] [string], back, home, wait, stop.")
MAX_STEPS = 5  # a named parameter recorded in metadata (the paper leaves the limit to the runner)


def _tasks() -> dict[str, Any]:
    out: dict[str, Any] = {f"nav/{n.task.name}": n for n in nav_tasks()}
    out.update({f"toggle/{t.name}": t for t in table5_tasks()})
    return out


class SphinxNavTask(RowsTask):
    KIND = "sphinx_nav"

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        sel = meta.get("subset", "all")
        ids = [k for k in _tasks() if sel == "all" or k.startswith(sel + "/")]
        return [{"id": k, "max_steps": int(meta.get("max_steps", MAX_STEPS)), "images": []} for k in ids]


def _task(doc: Mapping[str, Any]):
    t = _tasks()[doc["id"]]
    return t.task if isinstance(t, NavTask) else t


def replay(doc: Mapping[str, Any], outputs: Sequence[str]):
    """Simulator, trajectory steps and format-error count after applying ``outputs``."""
    task = _task(doc)
    sim = Simulator()
    obs = sim.reset(task.initial)
    steps, errors, stopped = [], 0, False
    for text in outputs:
        status, act = parse_action(text)
        if status != "parsed":
            errors += 1
            continue
        if "index" in act:
            items = interactables(obs.screen)
            act = {**{k: v for k, v in act.items() if k != "index"},
                   "element": items[act["index"]].id if act["index"] < len(items) else f"missing_{act['index']}"}
        steps.append(to_step(obs.screen, act))
        if act["type"] == "stop":
            stopped = True
            break
        obs = sim.act(act)
    if not stopped:
        steps.append(to_step(obs.screen, {"type": "stop", "reason": "step_limit"}))
    return sim, steps, errors, stopped


def _prompt(doc, sim, k):
    return PROMPT.format(goal=_task(doc).instruction, step=k + 1, max_steps=doc["max_steps"], tree=simplified_text(sim.observe().screen))


def doc_to_visual(doc: Mapping[str, Any]) -> list:
    sim = Simulator()
    return [sim.reset(_task(doc).initial).screenshot().convert("RGB")]


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None, previous_output: Sequence[str] | None = None,
                round_idx: int | None = None, **_: Any):
    """Round 0: the first prompt. Later rounds: ``(visuals, text, terminal, previous_output, info)``."""
    outs = list(previous_output or [])
    sim, _steps, _err, stopped = replay(doc, outs)
    if round_idx is None:
        return _prompt(doc, sim, 0)
    terminal = stopped or len(outs) >= doc["max_steps"]
    return [sim.observe().screenshot().convert("RGB")], _prompt(doc, sim, len(outs)), terminal, outs, None


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return doc["id"]


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    outs = results[0] if results and isinstance(results[0], list) else results
    outs = [str(o) for o in outs][: doc["max_steps"]]
    sim, steps, errors, _ = replay(doc, outs)
    t = _tasks()[doc["id"]]
    if isinstance(t, NavTask):
        rec = trajectory_record(t, steps, format_errors=errors)
    else:
        # StaR A.4: one evaluator per subtask, scored on the final state (partial credit = ACP)
        from gui_tasks.sphinx.toggle_tasks import subtask_scores

        rec = trajectory_record(NavTask(t, ()), steps, format_errors=errors)
        rec["satisfied"] = subtask_scores(t, sim)
        assert abs(sum(rec["satisfied"]) / len(rec["satisfied"]) - score(t, sim)) < 1e-9
    out = cache_dir() / "sphinx_trajectories"
    out.mkdir(parents=True, exist_ok=True)
    (out / (doc["id"].replace("/", "__") + ".json")).write_text(json.dumps(
        {"id": doc["id"], "outputs": outs, "record": rec,
         "steps": [{"page": s.page, "action": s.action} for s in steps]}, indent=1, default=list), encoding="utf-8")
    return sample_values({"trajectory"}, rec)
