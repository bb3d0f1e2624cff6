"""SPHINX end-to-end navigation through lmms-eval's generate_until_multi_round on the simulator."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from gui_tasks.cli import lmms_eval_command
from gui_tasks.sphinx import lmms_task
from gui_tasks.sphinx.actions import parse_action
from gui_tasks.sphinx.observation import interactables
from gui_tasks.sphinx.simulator import Simulator
from gui_tasks.sphinx.toggle_tasks import oracle_actions
from lmms_helpers import results, run, samples


def test_parse_action_classifies():
    assert parse_action("click [3]") == ("parsed", {"type": "click", "index": 3})
    assert parse_action("Thought: go\nclick [10, 20.5]") == ("parsed", {"type": "click", "point": (10.0, 20.5)})
    assert parse_action("text [1] [hello]") == ("parsed", {"type": "text", "index": 1, "text": "hello"})
    assert parse_action("STOP") == ("parsed", {"type": "stop"})
    assert parse_action("press back") == ("parsed", {"type": "back"})
    assert parse_action("  ") == ("empty", None)
    assert parse_action("tap the thing") == ("malformed", None)


@given(st.text(max_size=60))
def test_parse_action_never_raises(text):
    status, act = parse_action(text)
    assert status in ("parsed", "malformed", "empty") and (act is None) == (status != "parsed")


def _oracle_texts(doc):
    """The oracle's plan as model outputs (element ids -> interactable indices)."""
    task = lmms_task._task(doc)
    sim = Simulator()
    obs = sim.reset(task.initial)
    texts = []
    for a in oracle_actions(task):
        if a["type"] == "click":
            texts.append(f"click [{[e.id for e in interactables(obs.screen)].index(a['element'])}]")
            obs = sim.act(a)
        else:
            texts.append(a["type"])
            obs = sim.act(a)
    return texts


def test_rounds_replay_and_score_oracle_and_noise(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    rows = lmms_task.SphinxNavTask.rows({"subset": "all", "max_steps": 8})
    assert len(rows) == 25
    for doc in rows:
        texts = _oracle_texts(doc)
        assert isinstance(lmms_task.doc_to_text(doc), str)
        _v, prompt, terminal, _p, _i = lmms_task.doc_to_text(doc, round_idx=len(texts), previous_output=texts)
        assert terminal
        vals = lmms_task.process_results(doc, [texts])
        rec = vals["sphinx_sr"]
        assert all(rec["satisfied"]) and rec["format_errors"] == 0, doc["id"]
    doc = next(r for r in rows if r["id"] == "nav/CaptionsOn")
    rec = lmms_task.process_results(doc, [["nonsense", "click [99]", "wait"]])["sphinx_acp"]
    assert rec["format_errors"] == 1 and rec["satisfied"] == [False] and rec["n_actions"] == 3
    saved = json.loads((tmp_path / "sphinx_trajectories" / "nav__CaptionsOn.json").read_text())
    assert saved["steps"][-1]["action"] == {"type": "stop", "reason": "step_limit"}
    # the step limit ends the rounds
    assert lmms_task.doc_to_text(doc, round_idx=8, previous_output=["wait"] * 8)[2]
    assert not lmms_task.doc_to_text(doc, round_idx=2, previous_output=["wait"] * 2)[2]


@pytest.mark.slow
def test_simulator_navigation_end_to_end_on_tiny_checkpoint(tmp_path, tiny_checkpoint, subprocess_env):
    out = tmp_path / "run"
    env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache")}
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["sphinx_sim_nav"], out,
                                      limit=2, extra=["--gen_kwargs", "max_new_tokens=8"]), env)
    res = results(out)["results"]["sphinx_sim_nav"]
    rows = samples(out, "sphinx_sim_nav")
    assert len(rows) == 2, log[-3000:]
    recs = [r["sphinx_sr"] for r in rows]
    assert res["sphinx_sr,none"] == pytest.approx(sum(all(r["satisfied"]) for r in recs) / 2)
    files = sorted((tmp_path / "cache" / "sphinx_trajectories").glob("*.json"))
    assert len(files) == 2
    for f in files:
        traj = json.loads(f.read_text())
        assert 1 <= len(traj["outputs"]) <= lmms_task.MAX_STEPS and traj["steps"][-1]["action"]["type"] == "stop"
