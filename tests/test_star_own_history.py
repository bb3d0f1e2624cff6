"""UI-TARS's own history (StaR A.5, ZrW00/StaR evaluator/evaluators.py updateHistory4UITARS): an episode is one
document whose steps run in order, each step's history the model's own four previous answers, every step scored."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from star_layouts import data_envs
from gui_metrics.agentic import step_rates
from gui_metrics.manager import metrics_for
from gui_core.errors import DataError
from gui_tasks.harness.lmms_layout import INTERACTION_KEY, pack_rounds
from gui_tasks.star import agentic, agentic_task, own_history

FIX = Path(__file__).parent / "fixtures" / "star_agentic"
# the androidcontrol fixture episode 42, as UI-TARS's reference answers: OPENAPP, CLICK, SCROLL, TYPE, BACK, COMPLETE
GOLD = ["open_app(app_name='Settings')", "click(start_box='<|box_start|>(879.6,250)<|box_end|>')", "scroll(direction='down')",
        "type(content='cafes nearby')", "press_back()", "finished()"]


@pytest.fixture()
def data(monkeypatch):
    for name, env in data_envs().items():
        monkeypatch.setenv(env, str(FIX / name))


def episode(**meta):
    eps = agentic_task.task_rows({"dataset": "androidcontrol", "agent_family": "ui_tars", "history": "own", **meta})
    assert len(eps) == 1
    return eps[0]


def answer(thought: str, action: str) -> str:
    return f"Thought: {thought}\nAction: {action}"


# --- StaR's reading of an answer into the history ---------------------------------------------------------------------

def test_history_entry_is_starts_thought_and_action_text():
    assert own_history.history_entry("Thought: open it\nAction: click(start_box='(1,2)')") == (
        "Thought: open it\nAction: click(start_box='(1,2)')")
    # no "Action:": extractUITARSPrediction asserts, generatePrediction returns "", "NoneAction"
    assert own_history.history_entry("I would tap the switch") == "Thought: \nAction: NoneAction"
    # no thought: None, written as Python writes it into the f-string
    assert own_history.history_entry("Action: press_back()") == "Thought: None\nAction: press_back()"
    # the action is everything after the LAST "Action: "
    assert own_history.history_entry("Thought: a Action: b\nAction: wait()") == "Thought: a\nAction: wait()"
    # low setting: a missing thought is the label's (the step's instruction)
    assert own_history.history_entry("Action: wait()", "Go back") == "Thought: Go back\nAction: wait()"
    assert own_history.history_entry("Reflection: r\nAction_Summary: s\nAction: wait()") == "Thought: s\nAction: wait()"


_OFFICIAL_THOUGHT = {  # extractUITARSPrediction's patterns (ZrW00/StaR evaluator/utils.py), the oracle of the test
    "Thought:": (re.compile(r"Thought: (.+?)(?=\s*Action: |$)", re.S), 1),
    "Reflection:": (re.compile(r"Reflection: (.+?)Action_Summary: (.+?)(?=\s*Action: |$)", re.S), 2),
    "Action_Summary:": (re.compile(r"Action_Summary: (.+?)(?=\s*Action: |$)", re.S), 1),
}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["Thought: ", "Reflection: ", "Action_Summary: ", "Action: ", "Thought:", "x", " ", "\n",
                                 "Act", "ion: "]), max_size=12))
def test_thought_reading_equals_the_official_pattern(parts):
    text = "".join(parts)
    key = next((k for k in ("Thought:", "Reflection:", "Action_Summary:") if text.startswith(k)), "Thought:")
    pattern, group = _OFFICIAL_THOUGHT[key]
    m = pattern.search(text)
    assert own_history.thought_of(text) == (m.group(group).strip() if m else None)


# --- prompts: the model's own answers, the last four, with their screenshots -----------------------------------------

def test_step_three_prompt_holds_the_models_own_wrong_predictions(data):
    doc = episode()
    wrong = [answer("Open the clock", "open_app(app_name='Clock')"),
             answer("Tap the top bar", "click(start_box='<|box_start|>(10,20)<|box_end|>')")]
    visuals, text, terminal, outs, info = agentic_task.doc_to_text(doc, {}, previous_output=wrong, round_idx=2)
    assert not terminal and outs == wrong and info is None
    assert text.endswith("## User Instruction\nTurn on Wi-Fi and search for cafes nearby\n\n## Action History\n"
                         "Step 1: Thought: Open the clock\nAction: open_app(app_name='Clock')\n"
                         "Step 2: Thought: Tap the top bar\nAction: click(start_box='<|box_start|>(10,20)<|box_end|>')\n")
    assert "Settings" not in text and "879.6" not in text  # no gold action leaks in
    assert len(visuals) == 3  # the two earlier screenshots, then the current one
    # the same step under the gold history lists the gold actions instead
    gold_doc = agentic_task.task_rows({"dataset": "androidcontrol", "agent_family": "ui_tars"})[2]
    assert "Step 1: Action: open_app(app_name='Settings')" in agentic_task.doc_to_text(gold_doc)
    # another earlier prediction changes the later step's prompt
    right = [answer("Open settings", GOLD[0]), wrong[1]]
    assert agentic_task.doc_to_text(doc, {}, previous_output=right, round_idx=2)[1] != text


def test_history_is_the_last_four_steps_and_their_screenshots(data):
    doc = episode()
    steps = own_history.steps_of(doc)
    outs = [answer(f"t{i}", GOLD[i]) for i in range(5)]
    text, paths = agentic_task.own_step_prompt(steps[5], steps, outs, 5)
    assert "Step 1:" not in text and [f"Step {i}: Thought: t{i - 1}" in text for i in (2, 3, 4, 5)] == [True] * 4
    assert paths == [s["images"][-1] for s in steps[1:6]]
    first = agentic_task.doc_to_text(doc)
    assert isinstance(first, str) and "## Action History" not in first  # round 0: step 1, nothing before it
    assert len(agentic_task.doc_to_visual(doc)) == 1


def test_low_setting_keeps_the_step_instruction_and_uses_it_as_the_missing_thought(data):
    doc = episode(setting="low")
    text = agentic_task.doc_to_text(doc, {}, previous_output=["Action: open_app(app_name='Settings')"], round_idx=1)[1]
    assert "Step 1: Thought: Open the Settings app\nAction: open_app(app_name='Settings')" in text
    # StaR's low setting: the assistant turn "Thought: {step instruction}\n", here the user text's last line
    assert text.endswith("')\n\nThought: Turn on the Wi-Fi switch\n")


def test_the_episode_ends_after_its_last_step_and_the_agentic_loop_gets_every_round(data):
    doc = episode()
    outs = [answer("x", g) for g in GOLD]
    assert agentic_task.doc_to_text(doc, {}, previous_output=outs, round_idx=6)[2]
    end = agentic_task.doc_to_text(doc, {INTERACTION_KEY: "agentic"}, previous_output=outs, round_idx=6)
    assert end[2] and end[3][-1] == pack_rounds(outs)


# --- scoring: every step by the judge ----------------------------------------------------------------------------------

def test_every_step_is_scored_by_the_judge_and_metrics_read_the_steps(data):
    doc = episode()
    outs = [answer("a", GOLD[0]), "no action here", answer("b", GOLD[2]), answer("c", "type(content='tea')"),
            answer("d", GOLD[4]), answer("e", GOLD[5])]
    values = agentic_task.process_results(doc, [outs])
    ep = values["step_action_acc"]
    assert [s["exact"] for s in ep["steps"]] == [True, False, True, False, True, True]
    assert [s["type_match"] for s in ep["steps"]] == [True, False, True, True, True, True]
    assert {s["judge"] for s in ep["steps"]} == {"star"} and {s["history"] for s in ep["steps"]} == {"own"}
    assert [s["step_index"] for s in ep["steps"]] == list(range(6)) and ep["interaction"] == "multi_round"
    agg = {spec.name: spec.aggregate for spec in metrics_for("step")}
    assert agg["step_action_acc"]([values["step_action_acc"]]) == pytest.approx(4 / 6)
    assert agg["step_type_acc"]([values["step_type_acc"]]) == pytest.approx(5 / 6)
    assert agg["step_success_rate"]([values["step_success_rate"]]) == 0.0
    assert step_rates([ep])["step_format_error_rate"] == pytest.approx(1 / 6)
    # the agentic loop's package reads the same
    packed = agentic_task.process_results(doc, [pack_rounds(outs)])["step_action_acc"]
    assert [s["exact"] for s in packed["steps"]] == [s["exact"] for s in ep["steps"]] and packed["interaction"] == "agentic"
    # a loop stopped early: the steps without a round are empty answers
    short = agentic_task.process_results(doc, [outs[:2]])["step_action_acc"]["steps"]
    assert [s["status"] for s in short[2:]] == ["empty"] * 4


def test_gold_history_records_say_so(data):
    doc = agentic_task.task_rows({"dataset": "androidcontrol", "agent_family": "ui_tars"})[1]
    assert agentic_task.process_results(doc, [answer("x", GOLD[1])])["step_action_acc"]["history"] == "ground_truth"


def test_own_history_is_refused_where_star_does_not_define_it(data):
    for fam in ("os_atlas", "proprietary"):  # StaR's gpt / gemini agents use the UI-TARS prompt without own history
        with pytest.raises(DataError, match="is not one of"):
            agentic_task.task_rows({"dataset": "androidcontrol", "agent_family": fam, "history": "own"})
    assert episode(agent_family="ui_tars_1_5")["n_steps"] == 6
    with pytest.raises(DataError, match="history must be one of"):
        agentic_task.task_rows({"dataset": "androidcontrol", "agent_family": "ui_tars", "history": "model"})
    with pytest.raises(DataError, match="max_episode_steps 5"):
        episode(max_episode_steps=5)
    assert agentic_task.StarAgenticTask.agentic_rounds({"history": "own", "max_episode_steps": 7}) == 7
    assert agentic_task.StarAgenticTask.agentic_rounds({}) is None


def test_generated_tasks_label_the_history_protocol():
    from gui_tasks.star.yaml_spec import render_all

    files = render_all()
    own = files["star_androidcontrol_high_ui_tars_own_history.yaml"]
    assert "output_type: generate_until_multi_round" in own and "  history: own\n" in own and "agent_family: ui_tars" in own
    gold = files["star_androidcontrol_high_ui_tars.yaml"]
    assert "output_type: generate_until\n" in gold and "  history: ground_truth\n" in gold


# --- the real lmms-eval CLI --------------------------------------------------------------------------------------------

TASK = "star_agentic_synth_ui_tars_own_history"


def scripted(body: dict) -> str:
    """Answers depend on the prompt only: a step that already has history clicks far off, the first step clicks once."""
    from fake_openai import last_text

    text = last_text(body)
    if "## Action History" in text:
        return answer("history seen", "click(start_box='<|box_start|>(999,999)<|box_end|>')")
    return answer("first step", "click(start_box='<|box_start|>(1,1)<|box_end|>')")


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gui_openai", "openai"])
def test_lmms_eval_runs_episodes_in_order_and_scores_every_step(model, tmp_path, subprocess_env):
    from fake_openai import FakeServer, last_text
    from lmms_helpers import results, run, samples

    server = FakeServer(["ok"], reply=scripted)
    env = {**subprocess_env, "OPENAI_API_KEY": "EMPTY"}
    args = (f"base_url={server.base_url},model=m,response_cache=none" if model == "gui_openai"
            else f"model_version=m,base_url={server.base_url}")
    cmd = [sys.executable, "-m", "lmms_eval", "--model", model, "--model_args", args, "--tasks", TASK, "--limit", "2",
           "--output_path", str(tmp_path), "--log_samples", "--verbosity", "WARNING"]
    try:
        _proc, log = run(cmd, env)
        bodies = list(server.bodies)
    finally:
        server.stop()
    res = results(tmp_path)
    meta = res["configs"][TASK]["metadata"]
    assert meta["history"] == "own" and meta["history_steps"] == 4 and meta["history_layout"] == "single_turn", log[-3000:]
    assert meta["interaction"] == ("multi_round" if model == "gui_openai" else "agentic")
    rows = samples(tmp_path, TASK)
    assert sorted(r["doc_id"] for r in rows) == [0, 1]
    n_steps = 0
    for r in rows:
        ep = r["step_action_acc"]
        steps = ep["steps"]
        n_steps += len(steps)
        assert len(steps) >= 2 and ep["rounds"] == len(steps)
        assert [s["step_index"] for s in steps] == list(range(len(steps)))
        assert all(s["history"] == "own" and s["judge"] == "paper" and s["status"] == "parsed" for s in steps)
        assert not any(s["exact"] for s in steps[1:])  # every later step answered (999, 999), seeing its history
    assert len(bodies) == n_steps  # one request per step, nothing else
    later = [b for b in bodies if "## Action History" in last_text(b)]
    assert len(later) == n_steps - len(rows)  # every step but the first of each episode sees its history
    for b in later:
        text = last_text(b)
        assert "Step 1: Thought: first step\nAction: click(start_box='<|box_start|>(1,1)<|box_end|>')" in text
        n_hist = len(re.findall(r"^Step \d+: Thought: ", text, re.M))
        images = [c for c in b["messages"][-1]["content"] if isinstance(c, dict) and c.get("type") == "image_url"]
        assert len(images) == n_hist + 1  # the history steps' screenshots, then the current one
    acc = res["results"][TASK]["step_action_acc,none"]
    assert acc == pytest.approx(sum(s["exact"] for r in rows for s in r["step_action_acc"]["steps"]) / n_steps)


def test_the_viewer_reads_an_episode_record_as_the_episode_success(data):
    from gui_tasks.viewer.records import outcome

    doc = episode()
    all_right = agentic_task.process_results(doc, [[answer("x", g) for g in GOLD]])["step_action_acc"]
    one_off = agentic_task.process_results(doc, [[answer("x", g) for g in GOLD[:5]] + ["nothing"]])["step_action_acc"]
    assert outcome("star_agentic", all_right) == ("correct", "6/6 steps exact")
    assert outcome("star_agentic", one_off) == ("wrong", "5/6 steps exact, 1 format errors")
