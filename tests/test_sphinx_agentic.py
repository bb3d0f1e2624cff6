"""SPHINX simulator and StaR toggle tasks on backends without multi-round generation: lmms-eval's agentic loop.

lmms-eval's own ``openai`` backend raises NotImplementedError on multi-round requests; the tasks then run through
``_run_generate_until_agentic`` (one generate_until per round) with the same prompts, simulator and scores. A scripted
agent (tests/fake_openai.py) answers from the prompt alone, so both paths must give the same episodes.
"""

from __future__ import annotations

import hashlib
import json
import sys

import pytest

from fake_openai import FakeServer, last_text
from gui_tasks.harness.lmms_layout import INTERACTION_KEY, UNTIL_KEY, agentic_rounds, pack_rounds, rounds_of
from gui_tasks.sphinx import lmms_task
from gui_tasks.viewer.records import responses
from lmms_helpers import results, run, samples

TASKS = ["sphinx_sim", "sphinx_sim_toggle"]
# element ids, back, wait, stop and one answer that is no action: episodes of every length and outcome
CHOICES = ["click [1]", "click [2]", "click [3]", "click [5]", "press [back]", "press [wait]", "press [stop]", "I am not sure."]


def scripted_agent(body: dict) -> str:
    """A deterministic agent: its answer depends on the prompt text only (never on the order of requests)."""
    digest = hashlib.sha256(last_text(body).encode("utf-8")).digest()
    return f"Thought: scripted.\nAction: {CHOICES[digest[0] % len(CHOICES)]}"


def test_pack_rounds_survives_reasoning_tag_stripping_and_is_read_back():
    outs = ["<think>a", "b</think> Action: press [back]", "{\"x\": 1}"]
    packed = pack_rounds(outs)
    assert "<" not in packed and ">" not in packed  # lmms-eval's <think> stripping finds nothing to cut
    assert agentic_rounds([packed]) == outs and rounds_of([packed]) == outs
    full = json.dumps({**json.loads(packed), "agentic_trace_mode": "full", "agentic_rounds": [{"round_idx": 1}]})
    assert rounds_of([full]) == outs  # --agentic_trace_mode full adds keys around ours
    assert agentic_rounds([["a", "b"]]) is None and rounds_of([["a", "b"]]) == ["a", "b"]
    assert agentic_rounds(['{"other": 1}']) is None and rounds_of(['{"other": 1}']) == ['{"other": 1}']
    assert agentic_rounds(["{not json"]) is None


@pytest.mark.parametrize("agent,max_steps,want", [("ours", 5, 5), ("react", 3, 3), ("reflexion", 5, 10), ("llmplanner", 4, 8)])
def test_the_agentic_loop_is_bounded_by_the_agents_rounds(agent, max_steps, want):
    assert lmms_task.SphinxNavTask.agentic_rounds({"agent": agent, "max_steps": max_steps}) == want


def test_terminal_round_hands_every_round_to_the_agentic_loop_only(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    doc = next(r for r in lmms_task.SphinxNavTask.rows({"subset": "toggle"}))
    outs = ["press [wait]", "press [stop]"]
    multi = lmms_task.doc_to_text(doc, round_idx=2, previous_output=outs)
    assert multi[2] and multi[3] == outs  # the multi-round path: outputs untouched (qwen2_5_vl keeps what we return)
    agentic = lmms_task.doc_to_text(doc, {INTERACTION_KEY: "agentic"}, round_idx=2, previous_output=outs)
    assert agentic[2] and agentic[3][:2] == outs and rounds_of([agentic[3][-1]]) == outs
    # not yet terminal: the loop goes on with the next prompt
    going = lmms_task.doc_to_text(doc, {INTERACTION_KEY: "agentic"}, round_idx=1, previous_output=["press [wait]"])
    assert not going[2] and going[3] == ["press [wait]"] and "Step 2 of at most" in going[1]
    a = lmms_task.process_results(doc, [agentic[3][-1]])["sphinx_sr"]
    m = lmms_task.process_results(doc, [outs])["sphinx_sr"]
    assert (a["interaction"], m["interaction"]) == ("agentic", "multi_round")
    assert {k: v for k, v in a.items() if k != "interaction"} == {k: v for k, v in m.items() if k != "interaction"}


def test_agentic_rounds_are_cut_at_the_tasks_stop_strings_as_our_backends_cut_them(tmp_path, monkeypatch):
    """lmms-eval's openai backend drops ``until``; gui_openai sends it as ``stop`` and cuts there too."""
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    doc = next(r for r in lmms_task.SphinxNavTask.rows({"subset": "toggle"}))
    kwargs = {INTERACTION_KEY: "agentic", UNTIL_KEY: ["\n\n"]}
    end = lmms_task.doc_to_text(doc, kwargs, round_idx=2, previous_output=["press [wait]\n\nAction: press [back]", "press [stop]"])
    assert end[2] and rounds_of([end[3][-1]]) == ["press [wait]", "press [stop]"]


def _lmms(model: str, model_args: str, out, env):
    cmd = [sys.executable, "-m", "lmms_eval", "--model", model, "--model_args", model_args, "--tasks", ",".join(TASKS),
           "--limit", "3", "--output_path", str(out), "--log_samples", "--verbosity", "WARNING"]
    return run(cmd, env)


def _episodes(out, task: str) -> dict[int, dict]:
    return {s["doc_id"]: s["sphinx_sr"] for s in samples(out, task)}


@pytest.mark.slow
def test_lmms_eval_openai_backend_scores_simulator_tasks_as_gui_openai_does(tmp_path, subprocess_env):
    server = FakeServer(["ok"], reply=scripted_agent)
    env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache"), "OPENAI_API_KEY": "EMPTY"}
    try:
        proc, log = _lmms("openai", f"model_version=m,base_url={server.base_url}", tmp_path / "agentic", env)
        agentic_hits = server.hits
        proc2, log2 = _lmms("gui_openai", f"base_url={server.base_url},model=m,response_cache=none", tmp_path / "multi", env)
    finally:
        server.stop()
    res = results(tmp_path / "agentic")
    for task in TASKS:
        meta = res["configs"][task]["metadata"]
        assert "not_run" not in meta and meta["interaction"] == "agentic", log[-3000:]
        assert "backend 'openai' has no multi-round generation" in meta["interaction_reason"]
        assert isinstance(res["results"][task]["sphinx_sr,none"], float)
    assert "sphinx_sim_toggle: backend 'openai' has no multi-round generation" in log
    multi = results(tmp_path / "multi")
    assert all(multi["configs"][t]["metadata"]["interaction"] == "multi_round" for t in TASKS), log2[-3000:]
    rounds = 0
    for task in TASKS:
        a, m = _episodes(tmp_path / "agentic", task), _episodes(tmp_path / "multi", task)
        assert sorted(a) == sorted(m) == [0, 1, 2]
        for doc_id in a:
            assert a[doc_id]["interaction"] == "agentic" and m[doc_id]["interaction"] == "multi_round"
            same = ("satisfied", "n_actions", "format_errors", "agent", "observation")
            assert {k: a[doc_id][k] for k in same} == {k: m[doc_id][k] for k in same}, (task, doc_id)
        # the viewer's reading of the logged samples: the same answers, round by round, on both paths
        logged = {s["doc_id"]: responses(s, multi_round=True) for s in samples(tmp_path / "agentic", task)}
        assert all(logged.values())
        for s in samples(tmp_path / "multi", task):
            assert responses(s, multi_round=True) == logged[s["doc_id"]], (task, s["doc_id"])
        rounds += sum(len(v) for v in logged.values())
        assert res["results"][task]["sphinx_sr,none"] == pytest.approx(multi["results"][task]["sphinx_sr,none"])
    assert agentic_hits == rounds  # one request per round, nothing else


def test_a_model_that_never_acts_passes_only_the_verify_toggle_tasks(tmp_path, monkeypatch):
    """StaR A.4: 20 tasks = 14 normal (4 of the Verify pairs + 10 singles), 4 Verify, 2 composite. Garbage passes the
    4 Verify tasks untouched: SR 4/20 overall, which only the per-kind split shows for what it is."""
    from gui_metrics import get_metric

    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    docs = lmms_task.SphinxNavTask.rows({"subset": "toggle"})
    recs = [lmms_task.process_results(d, [["no idea"]])["sphinx_sr"] for d in docs]
    assert [r["toggle_kind"] for r in recs].count("verify") == 4
    assert [r["toggle_kind"] for r in recs].count("composite") == 2
    got = {m: get_metric(m).aggregate(recs) for m in ("sphinx_sr", "sphinx_acp", "toggle_normal_sr", "toggle_verify_sr",
                                                       "toggle_composite_score")}
    assert got == pytest.approx({"sphinx_sr": 0.2, "sphinx_acp": 0.2, "toggle_normal_sr": 0.0, "toggle_verify_sr": 1.0,
                                 "toggle_composite_score": 0.0})
    # one of two subtasks done is half a composite task (A.4 partial credit); other kinds do not count there
    half = [{"toggle_kind": "composite", "satisfied": [True, False]}, {"toggle_kind": "composite", "satisfied": [True, True]},
            {"toggle_kind": "normal", "satisfied": [False]}]
    assert get_metric("toggle_composite_score").aggregate(half) == pytest.approx(0.75)
