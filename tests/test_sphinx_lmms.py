"""SPHINX through lmms-eval: the Table 2 parser, multi-round simulator navigation and the static tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from gui_tasks.commands.cli import lmms_eval_command
from gui_tasks.sphinx import lmms_task
from gui_tasks.sphinx.actions import format_action, is_exact, parse_action, repair_action
from gui_tasks.sphinx.simulator import Simulator
from gui_tasks.sphinx.toggle_tasks import oracle_actions
from lmms_helpers import results, run, samples

FIX = Path(__file__).parent / "fixtures" / "sphinx"


@pytest.mark.parametrize("text, want", [
    ("click [3]", {"type": "click", "index": 3}),
    ("longclick [12]", {"type": "longclick", "index": 12}),
    ("Thought: go\nAction: click [10, 20.5]", {"type": "click", "point": (10, 20.5)}),
    ("text [1] [hello world]", {"type": "text", "index": 1, "text": "hello world"}),
    ("input [123] [some text]", {"type": "text", "index": 123, "text": "some text"}),
    ("text [5,6] [hi]", {"type": "text", "point": (5, 6), "text": "hi"}),
    ("swipe [4] [UP]", {"type": "swipe", "index": 4, "direction": "up"}),
    ("swipe [1,2] [3,4]", {"type": "swipe", "point": (1, 2), "to": (3, 4)}),
    ("press [back]", {"type": "back"}),
    ("`press [stop]`", {"type": "stop"}),
    ("home", {"type": "home"}),
])
def test_parse_action_reads_every_table2_form(text, want):
    assert parse_action(text) == ("parsed", want)


def test_parse_action_classifies_and_repair_reads_prose():
    assert parse_action("  ") == ("empty", None)
    assert parse_action("tap the thing") == ("malformed", None)
    assert parse_action("I will click [3] now") == ("malformed", None)
    assert repair_action("I will click [3] now") == ("parsed", {"type": "click", "index": 3})
    assert repair_action("then press [back] please") == ("parsed", {"type": "back"})
    assert repair_action("go back") == ("malformed", None)  # a bare word inside prose is not an action
    assert is_exact("click [3]") and not is_exact("Action: click [3]\nok") and not is_exact("")


@given(st.text(max_size=80))
def test_parsers_never_raise(text):
    for fn in (parse_action, repair_action):
        status, act = fn(text)
        assert status in ("parsed", "malformed", "empty") and (act is None) == (status != "parsed")


@given(st.sampled_from(["click", "longclick", "text", "swipe", "back", "enter", "stop"]), st.integers(0, 999),
       st.integers(0, 2000), st.integers(0, 2000), st.text(alphabet=st.characters(blacklist_characters="[]\n\r", blacklist_categories=("Cs",)),
                                                         min_size=1, max_size=12).filter(str.strip), st.booleans())
def test_format_then_parse_is_identity(kind, index, x, y, msg, by_point):
    where = {"point": (x, y)} if by_point else {"index": index}
    act = {"type": kind} if kind in ("back", "enter", "stop") else {"type": kind, **where}
    if kind == "text":
        act["text"] = msg.strip()
    if kind == "swipe":
        act.update({"to": (y, x)} if by_point else {"direction": "left"})
    assert parse_action(format_action(act)) == ("parsed", act)


def _oracle_texts(doc):
    """The oracle's plan as model outputs (simulator element ids -> element ids [i] of the observation)."""
    sim = Simulator()
    obs = sim.reset(lmms_task._task(doc).initial)
    texts = []
    for a in oracle_actions(lmms_task._task(doc)):
        act = dict(a)
        if "element" in act:
            ids = [obs.hierarchy.nodes[i].get("resource-id").split(":id/")[1] for i in obs.hierarchy.element_ids(doc["rendering"])]
            act["index"] = ids.index(act.pop("element"))
        texts.append(f"Thought: next.\nAction: {format_action(act)}")
        obs = sim.act(a)
    return texts


def test_rounds_replay_and_score_oracle_and_noise(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    monkeypatch.setenv("GUI_EVAL_RUN_DIR", str(tmp_path))  # this run's files (gui_core.run_folder)
    rows = lmms_task.SphinxNavTask.rows({"subset": "all", "max_steps": 8, "observation": "simplified_text"})
    assert len(rows) == 28 and {r["rendering"] for r in rows} == {"official"}
    prose = lmms_task.SphinxNavTask.rows({"subset": "all", "max_steps": 8, "observation": "simplified_text", "rendering": "paper-prose"})
    for doc in rows + prose:
        texts = _oracle_texts(doc)
        assert "Previous actions: none" in lmms_task.doc_to_text(doc)
        visuals, prompt, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=len(texts), previous_output=texts)
        assert terminal and visuals == []  # a text mode shows no image
        rec = lmms_task.process_results(doc, [texts])["sphinx_sr"]
        assert all(rec["satisfied"]) and rec["format_errors"] == 0, doc["id"]
    doc = next(r for r in rows if r["id"] == "nav/CaptionsOn")
    # the first output that is not an action ends the run (official agent); "click [99]" is an action on nothing
    rec = lmms_task.process_results(doc, [["click [99]", "nonsense", "press [wait]"]])["sphinx_acp"]
    assert (rec["format_errors"], rec["n_actions"], rec["satisfied"]) == (1, 1, [False, False])
    assert lmms_task.doc_to_text(doc, round_idx=2, previous_output=["click [99]", "nonsense"])[2]  # terminal
    saved = json.loads((tmp_path / "sphinx_trajectories" / "nav__CaptionsOn__simplified_text__official.json").read_text())
    assert saved["steps"][-1]["action"] == {"action_type": "stop", "reason": "format_error"}
    skip = {**doc, "on_format_error": "skip"}
    rec = lmms_task.process_results(skip, [["click [99]", "nonsense", "press [wait]"]])["sphinx_acp"]
    assert (rec["format_errors"], rec["n_actions"]) == (1, 2)
    # the step limit ends the rounds; the prompt lists the actions taken so far
    _v, prompt, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=2, previous_output=["press [wait]"] * 2)
    assert not terminal and "Previous actions: press [wait]; press [wait]" in prompt and "Step 3 of at most 8" in prompt
    assert lmms_task.doc_to_text(doc, round_idx=8, previous_output=["press [wait]"] * 8)[2]


def test_image_modes_send_the_screenshot_or_the_marks():
    doc = {**lmms_task.SphinxNavTask.rows({"subset": "nav"})[0], "observation": "set_of_mark"}
    marked = lmms_task.doc_to_visual(doc)
    plain = lmms_task.doc_to_visual({**doc, "observation": "screenshot"})
    assert len(marked) == len(plain) == 1 and marked[0].size == plain[0].size and marked[0].tobytes() != plain[0].tobytes()
    assert "360x720 screenshot" in lmms_task.doc_to_text({**doc, "observation": "screenshot"})


@pytest.mark.slow
def test_simulator_navigation_end_to_end_on_tiny_checkpoint(tmp_path, tiny_checkpoint, subprocess_env):
    out = tmp_path / "run"
    env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache")}
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["sphinx_sim_nav_som"], out,
                                      limit=2, extra=["--gen_kwargs", "max_new_tokens=8"]), env)
    res = results(out)["results"]["sphinx_sim_nav_som"]
    rows = samples(out, "sphinx_sim_nav_som")
    assert len(rows) == 2, log[-3000:]
    recs = [r["sphinx_sr"] for r in rows]
    assert res["sphinx_sr,none"] == pytest.approx(sum(all(r["satisfied"]) for r in recs) / 2)
    files = sorted((out / "sphinx_trajectories").glob("*__set_of_mark__official.json"))  # the run's own folder
    assert len(files) == 2
    for f in files:
        traj = json.loads(f.read_text())
        assert 1 <= len(traj["outputs"]) <= lmms_task.MAX_STEPS and traj["steps"][-1]["action"]["action_type"] == "stop"


@pytest.mark.slow
def test_static_tasks_end_to_end_on_tiny_checkpoint(tmp_path, tiny_checkpoint, subprocess_env):
    """One run: synthetic knowledge and focused tasks, and completion (both renderings) and grounding (every mode)
    on the official-layout fixture, whose document counts lmms-eval reports before ``--limit``."""
    out = tmp_path / "run"
    env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache"), "SPHINX_DATA_DIR": str(FIX)}
    grounding = ["sphinx_grounding", "sphinx_grounding_simplified", "sphinx_grounding_image", "sphinx_grounding_som"]
    tasks = ["sphinx_knowledge_synth", "sphinx_focused_synth", "sphinx_completion", "sphinx_completion_prose"] + grounding
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", tasks, out, limit=2,
                                      extra=["--gen_kwargs", "max_new_tokens=6"]), env)
    report = results(out)
    res = report["results"]
    metrics = {"sphinx_knowledge_synth": "sphinx_app_acc_original", "sphinx_focused_synth": "sphinx_focused_failure_rate",
               "sphinx_completion": "sphinx_continue_acc", "sphinx_completion_prose": "sphinx_continue_acc",
               **{t: "sphinx_grounding_acc_original" for t in grounding}}
    for task, metric in metrics.items():
        rows = samples(out, task)
        assert len(rows) == 2, (task, log[-3000:])
        assert f"{metric},none" in res[task], res[task]
    # the fixture's documents: 6 completion steps (task_info_all.json), 4 grounding tasks (ids 1, 4, 7, 9)
    assert report["n-samples"]["sphinx_completion"]["original"] == 6
    assert all(report["n-samples"][t]["original"] == 4 for t in grounding)
    assert report["configs"]["sphinx_grounding_som"]["metadata"]["rendering"] == "official"
    assert report["configs"]["sphinx_completion_prose"]["metadata"]["rendering"] == "paper-prose"
    # each sample records the rendering that wrote its prompt and read its answer
    assert {r["sphinx_continue_acc"]["rendering"] for r in samples(out, "sphinx_completion_prose")} == {"paper-prose"}
    assert {r["sphinx_grounding_acc_original"]["rendering"] for r in samples(out, "sphinx_grounding_image")} == {"official"}
    assert [r["sphinx_grounding_acc_original"]["id"] for r in samples(out, "sphinx_grounding")] == ["1", "4"]
    assert res["sphinx_focused_synth"]["sphinx_focused_failure_rate,none"] == pytest.approx(
        sum(r["sphinx_focused_failure_rate"]["violation"] for r in samples(out, "sphinx_focused_synth")) / 2)


# --- the official ReAct agent (PKU-ASE-RISE/Sphinx Agents/ReAct.py, Agents/prompts/react_prompt_*.py) ----------------
def _react_doc(mode="simplified_text", task="nav/CaptionsOn"):
    rows = lmms_task.SphinxNavTask.rows({"subset": "all", "max_steps": 8, "observation": mode, "agent": "react"})
    return next(r for r in rows if r["id"] == task)


def _as_react(text: str) -> str:
    """An oracle action written the way the official prompt asks for it (reasoning, the phrase, the fenced action)."""
    action = text.split("Action: ")[-1]
    return f"Let's think step-by-step. The target is visible. In summary, the next action I will perform is ```{action}```"


@pytest.mark.parametrize("text, want", [
    ("Let's think. In summary, the next action I will perform is ```click [3]```", ("parsed", {"type": "click", "index": 3})),
    ("In summary, the next action I will perform is ```click [3]``` then ```press [back]```", ("parsed", {"type": "click", "index": 3})),
    ("I see it. ```\ntext [2] [weather]\n```", ("parsed", {"type": "text", "index": 2, "text": "weather"})),  # no phrase: whole text
    ("In summary, the next action I will perform is ```press [none]```", ("parsed", {"type": "wait"})),
    ("In summary, the next action I will perform is click [3]", ("malformed", None)),  # ActionParsingError: episode ends
    ("In summary, the next action I will perform is ```click [ 3]```", ("malformed", None)),  # the env's pattern
    ("Action: click [3]", ("malformed", None)),  # our format is not the official agent's
    ("", ("empty", None)),
])
def test_react_answers_are_read_as_the_official_agent_reads_them(text, want):
    from gui_tasks.sphinx.official_parse import parse_react_action

    assert parse_react_action(text) == want


def test_react_prompt_is_the_official_agents_and_tracks_the_previous_action(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    monkeypatch.setenv("GUI_EVAL_RUN_DIR", str(tmp_path))
    doc = _react_doc()
    first = lmms_task.doc_to_text(doc)
    assert first.startswith("You are an autonomous intelligent agent tasked with navigating a mobile app. You will be given "
                            "app-based tasks.")
    assert "The OBSERVATION: This is a simplified representation of the UI screen, providing key information.\n" in first
    assert 'For example, "In summary, the next action I will perform is ```text [12] [some text]```".' in first
    assert "`press [home]`:  Press to return to the desktop.\n" in first  # two spaces, as published
    assert first.endswith("TASK: Turn on captions in YouTube's settings.\nPREVIOUS ACTION: None")
    assert "Previous actions" not in first and "Step 1 of" not in first  # not our prompt
    texts = [_as_react(t) for t in _oracle_texts(doc)]
    _v, second, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=1, previous_output=texts[:1])
    assert not terminal and second.endswith(
        "PREVIOUS ACTION: Click on a View (resource-id: app_youtube, class: android.widget.LinearLayout).")  # get_description
    rec = lmms_task.process_results(doc, [texts])["sphinx_sr"]
    assert all(rec["satisfied"]) and rec["format_errors"] == 0 and rec["agent"] == "react"
    # our answer format is a format error for the official agent: the episode ends at once
    rec = lmms_task.process_results(doc, [_oracle_texts(doc)])["sphinx_sr"]
    assert (rec["format_errors"], rec["n_actions"]) == (1, 0)
    saved = json.loads((tmp_path / "sphinx_trajectories" / "nav__CaptionsOn__simplified_text__official__react.json").read_text())
    assert saved["agent"] == "react"


def test_react_image_prompts_give_the_screen_size_and_the_action_text():
    shot = _react_doc("screenshot", "nav/OpenWifiSettings")
    text = lmms_task.doc_to_text(shot)
    assert "The resolution of the screenshot is 360 * 720.\nTASK: Open the Wi-Fi settings page.\nPREVIOUS ACTION: None" in text
    assert "`click [x,y]`: This action clicks on a coordination (x,y) on the screen." in text
    said = "In summary, the next action I will perform is ```click [180,300]```"
    assert lmms_task.doc_to_text(shot, round_idx=1, previous_output=[said])[1].endswith("PREVIOUS ACTION: click [180,300]")
    som = lmms_task.doc_to_text(_react_doc("set_of_mark", "nav/OpenWifiSettings"))
    assert "green indicates swipe action.\nTASK: Open the Wi-Fi settings page.\nPREVIOUS ACTION: None" in som
    with pytest.raises(ValueError, match="agent must be one of"):
        lmms_task.SphinxNavTask.rows({"agent": "appagent"})


def test_reflexion_alternates_reflection_and_action_rounds(tmp_path, monkeypatch):
    """Agents/Reflexion.py: after an action, a step first asks whether it succeeded (```Yes``` / ```No```)."""
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    rows = lmms_task.SphinxNavTask.rows({"subset": "nav", "max_steps": 8, "observation": "simplified_text", "agent": "reflexion"})
    doc = next(r for r in rows if r["id"] == "nav/CaptionsOn")
    first = lmms_task.doc_to_text(doc)
    assert first.endswith("TASK: Turn on captions in YouTube's settings.\nPREVIOUS ACTION: None")
    # no empty examples line between the rules and the template (ReAct has one)
    assert "```text [12] [some text]```" in first and "after stop.\n\nOBSERVATION:\n[0]" in first
    assert "after stop.\n\n\nOBSERVATION:" in lmms_task.doc_to_text({**doc, "agent": "react"})
    acts = [_as_react(t) for t in _oracle_texts(doc)]
    yes = "The screen changed as intended. ```Yes```"
    _v, second, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=1, previous_output=acts[:1])
    assert not terminal and "You will now reflect on the action you just performed." in second
    assert "PREVIOUS ACTION: click [" in second and "\nCURRENT OBSERVATION: [" in second
    _v, third, _t, _p, _i = lmms_task.doc_to_text(doc, round_idx=2, previous_output=[acts[0], yes])
    assert third.startswith("You are an autonomous intelligent agent") and "PREVIOUS ACTION: click [" in third
    outputs = [acts[0]] + [x for a in acts[1:] for x in (yes, a)]
    rec = lmms_task.process_results(doc, [outputs])["sphinx_sr"]
    assert all(rec["satisfied"]) and rec["format_errors"] == 0 and rec["n_actions"] == len(acts)
    # "No": the step ends with press [replan] (no device action) and the next step acts without reflecting
    _v, after_no, _t, _p, _i = lmms_task.doc_to_text(doc, round_idx=2, previous_output=[acts[0], "Nothing happened. ```No```"])
    assert after_no.startswith("You are an autonomous intelligent agent")
    replay = lmms_task.replay(doc, [acts[0], "```No```"])
    assert (replay.calls, replay.phase, len(replay.taken)) == (2, "act", 1)
    # a reflection without a fenced answer is the agent's ActionParsingError: the episode ends
    rec = lmms_task.process_results(doc, [[acts[0], "yes it worked", acts[1]]])["sphinx_sr"]
    assert (rec["format_errors"], rec["n_actions"]) == (1, 1)
    # max_steps counts the agent's steps, not the rounds: 8 steps = 15 rounds here
    assert lmms_task.replay(doc, ["```press [none]```"] + [yes, "```press [none]```"] * 7).calls == 8
    with pytest.raises(ValueError, match="agent reflexion reads text observations only"):
        lmms_task.SphinxNavTask.rows({"agent": "reflexion", "observation": "screenshot"})


def test_llmplanner_plans_then_grounds_each_step(tmp_path, monkeypatch):
    """Agents/LLMPlanner.py: a plan of "[step]" lines, one grounding round per step, a new plan when it is used up."""
    from gui_tasks.sphinx.official_parse import parse_plan

    assert parse_plan("High-level Plan:\n[open YouTube]\n[open settings] then\nno step here\n[ turn on captions ]") == \
        ["open YouTube", "open settings", "turn on captions"]
    assert parse_plan("I would click things.") is None and parse_plan("") is None
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    rows = lmms_task.SphinxNavTask.rows({"subset": "nav", "max_steps": 8, "observation": "simplified_text", "agent": "llmplanner"})
    doc = next(r for r in rows if r["id"] == "nav/CaptionsOn")
    first = lmms_task.doc_to_text(doc)
    assert "You need to generate a high-level plan consisting of several concrete actions" in first
    assert first.endswith("\n    TASK: Turn on captions in YouTube's settings.\n    PREVIOUS ACTION: None")  # indented, as published
    acts = [_as_react(t) for t in _oracle_texts(doc)]
    plan = "High-level Plan:\n" + "".join(f"[step {k}]\n" for k in range(len(acts)))
    _v, second, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=1, previous_output=[plan])
    assert not terminal and second.endswith("\nTASK: Turn on captions in YouTube's settings.\nCURRENT PLAN: step 0")
    assert "`press [replan]`: Press the \"replan\" key for re-generate high-level plans." in second
    rec = lmms_task.process_results(doc, [[plan, *acts]])["sphinx_sr"]
    assert all(rec["satisfied"]) and rec["format_errors"] == 0 and rec["n_actions"] == len(acts)
    # a one-step plan: after its step, a new planning round whose previous action is the action written
    _v, again, _t, _p, _i = lmms_task.doc_to_text(doc, round_idx=2, previous_output=["High-level Plan:\n[open YouTube]", acts[0]])
    assert "generate a high-level plan" in again and again.endswith("PREVIOUS ACTION: " + acts[0].split("```")[1])
    # replan: the step waits (press [none]) and the next round plans again
    r = lmms_task.replay(doc, [plan, "In summary, the next action I will perform is ```press [replan]```"])
    assert (r.phase, r.calls, r.said, [a["type"] for a in r.taken]) == ("plan", 1, "press [none]", ["wait"])
    # no plan in the answer: the agent would index an empty plan, the episode ends
    rec = lmms_task.process_results(doc, [["I am not sure.", acts[0]]])["sphinx_sr"]
    assert (rec["format_errors"], rec["n_actions"]) == (1, 0)


@given(st.text(max_size=120), st.booleans())
def test_official_agent_readers_never_raise(text, by_point):
    from gui_tasks.sphinx.official_parse import parse_plan, parse_react_action

    for t in (text, f"In summary, the next action I will perform is ```{text}```", f"High-level Plan:\n[{text}]"):
        status, act = parse_react_action(t, by_point=by_point)
        assert status in ("parsed", "malformed", "empty") and (act is None) == (status != "parsed")
        plans = parse_plan(t)
        assert plans is None or (plans and all(isinstance(p, str) and "\n" not in p for p in plans))


def test_viewer_episode_reads_reflexion_rounds_as_the_scorer_does(tmp_path, monkeypatch):
    """gui-eval view draws a Reflexion episode from the scorer's replay: reflections take no action, actions are the
    replay's own, and the last view's verdicts are the task's."""
    from gui_tasks.sphinx.viewing import sphinx_episode

    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    rows = lmms_task.SphinxNavTask.rows({"subset": "nav", "max_steps": 8, "observation": "simplified_text", "agent": "reflexion"})
    doc = next(r for r in rows if r["id"] == "nav/CaptionsOn")
    acts = [_as_react(t) for t in _oracle_texts(doc)]
    outputs = [acts[0]] + [x for a in acts[1:] for x in ("```Yes```", a)]
    views = sphinx_episode(doc, outputs)
    assert [v.status for v in views] == ["parsed"] + ["reflect", "parsed"] * (len(acts) - 1) + ["final"]
    replayed = lmms_task.replay(doc, outputs).taken
    assert [v.action for v in views if v.status == "parsed"] == [dict(a) for a in replayed]
    assert all(v.shapes for v in views if v.status == "parsed" and v.action["type"] != "stop")
    assert views[-1].verdicts == lmms_task.process_results(doc, [outputs])["sphinx_sr"]["satisfied"]
    # an unfenced reflection ends the episode as a format error: no further round is drawn
    cut = sphinx_episode(doc, [acts[0], "yes it worked", acts[1]])
    assert [v.status for v in cut] == ["parsed", "malformed", "final"]
