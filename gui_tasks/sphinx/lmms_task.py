"""lmms-eval task for end-to-end SPHINX navigation in the simulator (``generate_until_multi_round``).

Round k's prompt is rebuilt by replaying the model's k previous outputs in a fresh simulator (the world
is deterministic), so the task keeps no state between rounds. An episode ends at ``press [stop]``, at the
first output that is not an action (the official agent stops there; ``on_format_error: skip`` ignores it
instead), or after ``max_steps`` rounds. The trajectory is written to the run's ``<--output_path>/sphinx_trajectories``.
The observation mode (section 3.4.1), its rendering (``official`` / ``paper-prose``, which also numbers the
elements the answers name), the step limit and the agent are task metadata, recorded with the results.

Agents (metadata ``agent``): ``ours`` (``prompts.REACT_PROMPT``, answers read by the Table 2 parser) and ``react``,
the official ReAct agent the paper benchmarks (section 4.2; ``Agents/ReAct.py`` with ``Agents/prompts/react_prompt_*``):
its prompt per modality (text modes: ``react_prompt_text`` with the mode's rendering as the observation; screenshot:
``react_prompt_image``; Set-of-Mark: ``react_prompt_annotated_image``), its previous action (``run_benchmark.py``:
the official description of the last action for element ids, the action text for coordinates, "None" first) and
its answer reading (``official_parse.parse_react_action``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

from gui_core.run_folder import run_folder
from gui_metrics.lmms_bridge import sample_values
from gui_models.generation_core import cut_at_stops
from gui_tasks.harness.lmms_layout import INTERACTION_KEY, UNTIL_KEY, agentic_rounds, pack_rounds, rounds_of
from gui_tasks.harness.lmms_rows import RowsTask
from gui_core.errors import DataError
from gui_core.paths import cache_dir
from gui_tasks.sphinx import family_agents
from gui_tasks.sphinx.actions import format_action, parse_action
from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, RENDERINGS
from gui_tasks.sphinx.navigation import NavTask, nav_tasks, to_step, trajectory_record
from gui_tasks.sphinx.observation import TEXT_MODES, render_images, render_text
from gui_tasks.sphinx.official_parse import parse_plan, parse_react_action, react_block
from gui_tasks.sphinx.prompts import (MODE_HEADERS, REACT_PROMPT, planner_grounding_prompt, planner_planning_prompt,
                                      react_prompt, reflexion_action_prompt, reflexion_reflection_prompt)
from gui_tasks.sphinx.simulator import Simulator, resolve
from gui_tasks.sphinx.static_tasks import official_description
from gui_tasks.sphinx.toggle_tasks import ToggleTask, subtask_scores, table5_tasks, toggle_kind

MAX_STEPS = 5  # a named parameter recorded in metadata (the paper leaves the limit to the runner)
ON_FORMAT_ERROR = ("stop", "skip")
AGENTS = ("ours", "react", "reflexion", "llmplanner")
PLANNER_REPLAN, PLANNER_WAIT = "press [replan]", "press [none]"  # AgentLLMPlanner_*: replan_action, empty_action
DEFAULT_AGENT = "ours"  # the simulator is ours, so no paper number depends on the choice; react is the paper's agent


def _tasks() -> dict[str, NavTask | ToggleTask]:
    out: dict[str, NavTask | ToggleTask] = {f"nav/{n.task.name}": n for n in nav_tasks()}
    out.update({f"toggle/{t.name}": t for t in table5_tasks()})
    return out


class SphinxNavTask(RowsTask):
    KIND = "sphinx_nav"
    # the simulator episode's settings; prompt_protocol / parser_protocol record the agent's
    METADATA_KEYS = frozenset({"subset", "max_steps", "observation", "rendering", "on_format_error", "agent", "agent_family",
                               "prompt_protocol", "parser_protocol"})

    CLUSTER_KEY = "episode"  # one document is one episode: every sample its own cluster

    def cluster_of(self, doc: Mapping[str, Any]) -> Any:
        return doc["id"]

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        sel = meta.get("subset", "all")
        on_error = meta.get("on_format_error", "stop")
        if on_error not in ON_FORMAT_ERROR:
            raise ValueError(f"on_format_error must be one of {ON_FORMAT_ERROR}, got {on_error!r}")
        ids = [k for k in _tasks() if sel == "all" or k.startswith(sel + "/")]
        rendering = meta.get("rendering", DEFAULT_RENDERING)
        if rendering not in RENDERINGS:
            raise ValueError(f"rendering must be one of {RENDERINGS}, got {rendering!r}")
        agent = meta.get("agent", DEFAULT_AGENT)
        if agent not in AGENTS:
            raise ValueError(f"agent must be one of {AGENTS}, got {agent!r}")
        if agent in ("reflexion", "llmplanner") and meta.get("observation", "full_text") not in TEXT_MODES:
            raise ValueError(f"agent {agent} reads text observations only (its official image variant cannot be assembled)")
        fam = str(meta.get("agent_family") or "")
        extra: dict[str, Any] = {}
        if fam:  # an agent in its own format (StaR A.4-A.5): its prompt, parser and frame, on screenshots
            family_agents.check_family(fam)  # an unknown family: UnknownName with did-you-mean (a configuration error)
            if agent != "ours" or meta.get("observation", "full_text") != family_agents.OBSERVATION:
                raise DataError(f"agent_family {fam!r} answers on screenshots in its own format: it needs observation "
                                f"{family_agents.OBSERVATION!r} and agent 'ours' (got {meta.get('observation')!r}, {agent!r})",
                                file="<task yaml>", field="metadata.agent_family")
            extra["agent_family"] = fam  # only then: the documents of the other tasks keep their content (and hashes)
        # the rendering is recorded per document: it numbers the elements of the prompt and so parses the answers
        return [{"id": k, "max_steps": int(meta.get("max_steps", MAX_STEPS)), "observation": meta.get("observation", "full_text"),
                 "rendering": rendering, "on_format_error": on_error, "agent": agent, "images": [], **extra} for k in ids]

    @classmethod
    def agentic_rounds(cls, meta: Mapping[str, Any]) -> int:
        return round_limit(int(meta.get("max_steps", MAX_STEPS)), meta.get("agent", DEFAULT_AGENT))


def round_limit(max_steps: int, agent: str) -> int:
    """Most model calls of one episode: one per step (ours, ReAct); Reflexion reflects after each action and
    LLM-Planner plans at most once per grounded step, so two per step. Bounds lmms-eval's agentic loop
    (``max_agentic_steps``), which otherwise stops at 12 rounds without telling the task."""
    return max_steps if agent in ("ours", "react") else 2 * max_steps


def _agent(doc: Mapping[str, Any]) -> str:
    return doc.get("agent") or DEFAULT_AGENT


def read_output(doc: Mapping[str, Any], text: str, obs: Any = None):
    """``(status, action)`` of one model output, read the way the document's agent reads it (an agent family reads its
    points on the observation ``obs`` it answered: the screen's size and, for typing, its editable field)."""
    if doc.get("agent_family"):
        return family_agents.read(doc["agent_family"], text, obs.hierarchy, _size(obs))
    if _agent(doc) != "ours":  # the official agents read AgentBase.parse_action's fenced action
        return parse_react_action(text, by_point=doc["observation"] == "screenshot")
    return parse_action(text)


def _size(obs: Any) -> tuple[int, int]:
    """The screen size in pixels of an observation (the simulator's screen; a device's hierarchy)."""
    screen = getattr(obs, "screen", None)
    if screen is not None:
        return tuple(screen.size)  # type: ignore[return-value]
    return tuple(obs.hierarchy.size)  # type: ignore[return-value]


def _task(doc: Mapping[str, Any]) -> ToggleTask:
    t = _tasks()[doc["id"]]
    return t.task if isinstance(t, NavTask) else t


class Replay(NamedTuple):
    """The state after replaying a document's outputs in a fresh simulator.

    ``ended``: the agent stopped or the run ended at a format error (no further rounds). ``calls``: the agent's
    steps so far (``act`` calls of the official agents; one output each, but a Reflexion step is a reflection
    round and an action round). ``phase``: what the next round asks (``act`` or, Reflexion, ``reflect``);
    ``before``: the observation text before the last action, ``said``: the last action as the agent wrote it."""

    sim: Simulator
    steps: list
    errors: int
    ended: bool
    taken: list
    calls: int
    phase: str
    before: str
    said: str
    plans: tuple = ()
    plan_idx: int = 0
    seen: tuple = ()  # the observation before each action taken (an agent family's history screenshots)


def replay(doc: Mapping[str, Any], outputs: Sequence[str]) -> Replay:
    """Apply ``outputs`` (at most ``max_steps`` agent steps) to a fresh simulator."""
    sim = Simulator()
    obs = sim.reset(_task(doc).initial)
    reflexion, planner = _agent(doc) == "reflexion", _agent(doc) == "llmplanner"
    steps, taken, errors, ended, reason = [], [], 0, False, "step_limit"
    calls, phase, before, said = 0, "plan" if planner else "act", "", "None"
    plans: list[str] = []
    plan_idx = 0
    seen: list = []
    for text in outputs:
        if calls >= doc["max_steps"]:
            break
        if phase == "plan":  # LLM-Planner: a new high-level plan, then one grounding round per step of it
            found = parse_plan(text)
            if found is None:
                errors += 1
                ended, reason = True, "format_error"  # the agent indexes an empty plan: the run ends
                break
            plans, plan_idx, phase = found, 0, "ground"
            continue
        if phase == "ground" and react_block(str(text)) == PLANNER_REPLAN:
            calls += 1
            said, plans, plan_idx, phase = PLANNER_WAIT, [], 0, "plan"  # the step waits ('press [none]'), then plans again
            wait = {"type": "wait"}
            steps.append(to_step(obs, wait))
            taken.append(wait)
            obs = sim.act(wait)
            continue
        if phase == "reflect":  # Reflexion: was the previous action successful? (a fenced answer; 'yes' in it)
            block = react_block(str(text)) if str(text).strip() else None
            phase = "act"
            if block is None:
                errors += 1
                if doc.get("on_format_error", "stop") == "stop":
                    ended, reason = True, "format_error"
                    break
                calls += 1
            elif "yes" not in block.lower():
                calls += 1  # the agent returns 'press [replan]' for this step: no device action, no reflection next
            continue
        calls += 1
        status, act = read_output(doc, text, obs)
        if status != "parsed":
            errors += 1
            if doc.get("on_format_error", "stop") == "stop":
                ended, reason = True, "format_error"
                break
            continue
        sim_act = resolve(obs, act, _rendering(doc))
        steps.append(to_step(obs, sim_act))
        taken.append(act)
        seen.append(obs)
        if act["type"] == "stop":
            return Replay(sim, steps, errors, True, taken, calls, phase, before, said, tuple(plans), plan_idx, tuple(seen))
        if reflexion:
            before, said, phase = render_text(obs.hierarchy, doc["observation"], rendering=_rendering(doc)), react_block(str(text)), "reflect"
        if planner:
            said, plan_idx = react_block(str(text)) or "None", plan_idx + 1
            phase = "plan" if plan_idx >= len(plans) else "ground"
        obs = sim.act(sim_act)
    steps.append(to_step(obs, {"type": "stop", "reason": reason}))
    return Replay(sim, steps, errors, ended, taken, calls, phase, before, said, tuple(plans), plan_idx, tuple(seen))


def _rendering(doc: Mapping[str, Any]) -> str:
    return doc.get("rendering") or DEFAULT_RENDERING


def _react_previous(doc: Mapping[str, Any], steps: Sequence[Any], outputs: Sequence[str]) -> str:
    """run_benchmark.py's previous action: "None", the official description of the last action (element ids) or the
    action text the agent returned (coordinates)."""
    acted = [st for st in steps if not st.action.get("reason")]
    if not acted:
        return "None"
    if doc["observation"] == "screenshot":
        said = [react_block(str(o)) for o in outputs if read_output(doc, o)[0] == "parsed"]
        return said[-1] if said else "None"
    return official_description(acted[-1].action) or "None"


def _react_prompt(doc: Mapping[str, Any], sim: Simulator, steps: Sequence[Any], outputs: Sequence[str]) -> str:
    obs = sim.observe()
    mode = doc["observation"]
    modality = "text" if mode in TEXT_MODES else "image" if mode == "screenshot" else "annotated_image"
    body = render_text(obs.hierarchy, mode, rendering=_rendering(doc)) if mode in TEXT_MODES else ""
    return react_prompt(modality, instruction=_task(doc).instruction, previous_action=_react_previous(doc, steps, outputs),
                        observation=body, size=obs.screen.size)


def _planner_prompt(doc: Mapping[str, Any], r: Replay) -> str:
    """LLM-Planner's round: planning (no plan, or its steps used up), else grounding of the current step."""
    now = render_text(r.sim.observe().hierarchy, doc["observation"], rendering=_rendering(doc))
    instruction = _task(doc).instruction
    if r.phase == "plan":
        return planner_planning_prompt(instruction=instruction, previous_action=r.said, observation=now)
    return planner_grounding_prompt(instruction=instruction, current_plan=r.plans[r.plan_idx], observation=now)


def _reflexion_prompt(doc: Mapping[str, Any], r: Replay) -> str:
    """The Reflexion agent's round: the reflection prompt after an action, else its action prompt."""
    obs = r.sim.observe()
    now = render_text(obs.hierarchy, doc["observation"], rendering=_rendering(doc))
    instruction = _task(doc).instruction
    if r.phase == "reflect":
        return reflexion_reflection_prompt(instruction=instruction, previous_action=r.said, before=r.before, now=now)
    return reflexion_action_prompt(instruction=instruction, previous_action=r.said, observation=now)


def _prompt(doc: Mapping[str, Any], sim: Simulator, taken: Sequence[Mapping[str, Any]]) -> str:
    obs = sim.observe()
    mode = doc["observation"]
    history = "; ".join(format_action(a) for a in taken) or "none"
    body = render_text(obs.hierarchy, mode, rendering=_rendering(doc))
    return REACT_PROMPT.format(goal=_task(doc).instruction, step=len(taken) + 1, max_steps=doc["max_steps"], history=history,
                               header=MODE_HEADERS[mode].format(w=obs.screen.size[0], h=obs.screen.size[1]), observation=body)


def _images(doc: Mapping[str, Any], sim: Simulator, seen: Sequence[Any] = ()) -> list:
    obs = sim.observe()
    mode = doc["observation"]
    if doc.get("agent_family"):  # the family's earlier screenshots (UI-TARS: four, A.5), then the current one
        keep = family_agents.history_images(doc["agent_family"])
        return [o.screenshot() for o in (list(seen)[-keep:] if keep else [])] + [obs.screenshot()]
    return render_images(obs.screenshot() if mode not in TEXT_MODES else None, obs.hierarchy, mode, rendering=_rendering(doc))


def doc_to_visual(doc: Mapping[str, Any]) -> list:
    sim = Simulator()
    sim.reset(_task(doc).initial)
    return _images(doc, sim)


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None, previous_output: Sequence[str] | None = None,
                round_idx: int | None = None, **_: Any):
    """Round 0: the first prompt. Later rounds: ``(visuals, text, terminal, previous_output, info)``.

    Under lmms-eval's agentic loop (``lmms_eval_specific_kwargs[INTERACTION_KEY] == "agentic"``, set by ``RowsTask``
    for backends without multi-round generation) the terminal round also appends ``pack_rounds(outputs)``."""
    outs = list(previous_output or [])
    kwargs = lmms_eval_specific_kwargs if isinstance(lmms_eval_specific_kwargs, Mapping) else {}
    agentic = kwargs.get(INTERACTION_KEY) == "agentic"
    if agentic:  # the backend may have ignored the task's stop strings; our multi-round backends cut at them
        outs = [cut_at_stops(str(o), kwargs.get(UNTIL_KEY)) for o in outs]
    r = replay(doc, outs)
    agent = _agent(doc)
    if doc.get("agent_family"):
        text = family_agents.prompt(doc["agent_family"], _task(doc).instruction, outs[: r.calls], _size(r.sim.observe()))
    elif agent == "reflexion":
        text = _reflexion_prompt(doc, r)
    elif agent == "llmplanner":
        text = _planner_prompt(doc, r)
    elif agent == "react":
        text = _react_prompt(doc, r.sim, r.steps, outs)
    else:
        text = _prompt(doc, r.sim, r.taken)
    if round_idx is None:
        return text
    terminal = r.ended or r.calls >= doc["max_steps"]
    # lmms-eval's agentic loop keeps only its last output: the terminal round hands it every round (pack_rounds)
    if agentic and (terminal or len(outs) >= round_limit(doc["max_steps"], agent)):
        return [], "", True, [*outs, pack_rounds(outs)], None
    return _images(doc, r.sim, r.seen), text, terminal, outs, None


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return doc["id"]


def trajectories_folder() -> Path:
    """This run's trajectory files: ``<--output_path>/sphinx_trajectories`` (``gui_core.run_folder``), never a folder
    shared by runs (two models' runs of one task would overwrite each other's)."""
    return run_folder("sphinx_trajectories", cache_dir() / "sphinx_trajectories")


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    outs = rounds_of(results)  # a list, a tuple, lmms-eval's text of a tuple, or the agentic loop's pack_rounds
    interaction = "agentic" if agentic_rounds(results) is not None else "multi_round"
    if _agent(doc) == "ours" or _agent(doc) == "react":  # one round per step; the other agents' extra rounds: replay
        outs = outs[: doc["max_steps"]]
    sim, steps, errors = replay(doc, outs)[:3]
    t = _tasks()[doc["id"]]
    if isinstance(t, NavTask):
        rec = trajectory_record(t, steps, format_errors=errors)
    else:
        # StaR A.4: one check per subtask on the final state (partial credit = ACP)
        rec = trajectory_record(NavTask(t, ()), steps, format_errors=errors)
        rec["satisfied"] = subtask_scores(t, sim)
        rec["toggle_kind"] = toggle_kind(t)  # StaR Table 5 reads Verify, normal and composite tasks apart
    rec["observation"] = doc["observation"]
    rec["rendering"] = _rendering(doc)
    rec["agent"] = _agent(doc)
    rec["interaction"] = interaction
    if doc.get("agent_family"):
        rec["agent_family"] = doc["agent_family"]
        rec.update(family_agents.frames(doc["agent_family"], _size(sim.observe()))[2])  # frame, frame_source (budget)
    out = trajectories_folder()
    out.mkdir(parents=True, exist_ok=True)
    name = (doc["id"].replace("/", "__") + f"__{doc['observation']}__{_rendering(doc)}" + ("" if _agent(doc) == "ours" else f"__{_agent(doc)}")
            + (f"__{doc['agent_family']}" if doc.get("agent_family") else "") + ".json")
    (out / name).write_text(json.dumps({"id": doc["id"], "observation": doc["observation"], "rendering": _rendering(doc), "agent": _agent(doc),
                                        "agent_family": doc.get("agent_family", ""), "outputs": outs, "record": rec,
                                        "steps": [{"activity": s.activity, "action": s.action} for s in steps]},
                                       indent=1, default=list), encoding="utf-8")
    return sample_values({"trajectory"}, rec)
