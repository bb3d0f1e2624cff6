"""Agents in their own formats on the SPHINX simulator and StaR toggle tasks (``agent_family``; StaR A.4-A.5).

The oracle's clicks are written in each family's own syntax and frame (``families.format_action``, the writer the
StaR step tasks use), read back by the family's parser and mapped to simulator actions: every task is solved.
"""

from __future__ import annotations

import pytest

from gui_core.actions import Action
from gui_core.coords import BUDGETS, Geometry
from gui_core.registry import UnknownName
from gui_core.errors import DataError
from gui_tasks.sphinx import family_agents, lmms_task
from gui_tasks.sphinx.simulator import Simulator
from gui_tasks.sphinx.toggle_tasks import oracle_actions
from gui_tasks.sphinx.yaml_spec import AGENT_FAMILIES
from gui_core.agents import format_action, prompt_geometry


def _rows(fam: str, subset: str = "toggle") -> list[dict]:
    return lmms_task.SphinxNavTask.rows({"subset": subset, "observation": "screenshot", "agent_family": fam})


def _family_oracle(doc: dict, fam: str) -> list[str]:
    """The oracle's actions as family ``fam`` writes them (clicks at the element's centre, in the family's frame)."""
    task = lmms_task._task(doc)
    sim = Simulator()
    obs = sim.reset(task.initial)
    texts = []
    for a in oracle_actions(task):
        w, h = obs.screen.size
        geo = prompt_geometry(fam, w, h)
        if a["type"] == "click":
            x1, y1, x2, y2 = obs.screen.get(a["element"]).box
            act = Action("CLICK", point=((x1 + x2) / 2, (y1 + y2) / 2), frame="original_px")
        elif a["type"] == "stop":
            act = Action("COMPLETE")
        else:
            act = {"back": Action("PRESS_BACK"), "home": Action("PRESS_HOME")}[a["type"]]
        texts.append(f"Thought: next.\nAction: {format_action(act, fam, geo)}" if fam.startswith("ui_tars") else format_action(act, fam, geo))
        obs = sim.act(a)
    return texts


@pytest.mark.parametrize("fam", AGENT_FAMILIES)
def test_each_family_solves_every_toggle_task_in_its_own_format(fam, tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    for doc in _rows(fam):
        doc = {**doc, "max_steps": 12}
        rec = lmms_task.process_results(doc, [_family_oracle(doc, fam)])["sphinx_sr"]
        assert all(rec["satisfied"]) and rec["format_errors"] == 0 and rec["agent_family"] == fam, (fam, doc["id"])


def test_ui_tars_actions_are_parsed_in_its_grid_and_its_prompt_and_history_are_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path))
    doc = next(d for d in _rows("ui_tars") if d["id"] == "toggle/SystemBluetoothTurnOn")
    sim = Simulator()
    obs = sim.reset(lmms_task._task(doc).initial)
    w, h = obs.screen.size
    el = next(e for e in obs.screen.elements if e.label == "settings")  # the launcher's settings icon
    x, y = (el.box[0] + el.box[2]) / 2, (el.box[1] + el.box[3]) / 2
    grid = (round(1000 * x / w), round(1000 * y / h))  # UI-TARS answers on the 0-1000 grid
    answer = f"Thought: open settings.\nAction: click(start_box='<|box_start|>({grid[0]},{grid[1]})<|box_end|>')"
    status, act = lmms_task.read_output(doc, answer, obs)
    assert status == "parsed" and act["type"] == "click"
    assert act["point"] == pytest.approx((grid[0] * w / 1000, grid[1] * h / 1000))
    first = lmms_task.doc_to_text(doc)
    assert first.startswith("\nYou are a GUI agent.") and "Turn bluetooth on." in first and "## Action History" not in first
    visuals, prompt, terminal, _o, _i = lmms_task.doc_to_text(doc, round_idx=1, previous_output=[answer])
    assert not terminal and f"Step 1: Action: click(start_box='<|box_start|>({grid[0]},{grid[1]})<|box_end|>')" in prompt
    assert len(visuals) == 2 and visuals[0].size == (w, h)  # the previous screenshot, then the current one (A.5)
    # SPHINX's own syntax is not UI-TARS's: a format error that ends the episode
    rec = lmms_task.process_results(doc, [["click [3]"]])["sphinx_sr"]
    assert (rec["format_errors"], rec["n_actions"]) == (1, 0)
    rec = lmms_task.process_results(doc, [["Thought: done.\nAction: finished()"]])["sphinx_sr"]
    assert (rec["format_errors"], rec["n_actions"], rec["satisfied"]) == (0, 1, [False])


def test_family_actions_map_to_the_simulator_in_screen_pixels():
    sim = Simulator()
    obs = sim.reset({}, app="settings")
    h, size = obs.hierarchy, obs.screen.size
    geo = Geometry.identity(*size)
    scroll = family_agents.to_sphinx(Action("SCROLL", direction="DOWN"), h, size, geo)
    assert scroll["type"] == "swipe" and scroll["direction"] == "up"  # content below comes into view: the finger goes up
    assert family_agents.to_sphinx(Action("OPENAPP", text="Clock"), h, size, geo) == {"type": "open", "text": "Clock"}
    assert sim.act({"type": "open", "text": "Clock"}) and sim.app == "clock"
    assert family_agents.to_sphinx(Action("COMPLETE"), h, size, geo) == {"type": "stop"}
    assert family_agents.to_sphinx(Action("HOTKEY", text="ctrl c"), h, size, geo) is None  # no phone counterpart
    resized = Geometry.from_budget(*size, BUDGETS["qwen2_5_vl"])  # Qwen2.5-VL answers in pixels of its resized image
    _p, geo_q, rec = family_agents.frames("qwen2_5_vl", size)
    assert rec["frame"] == "resized_px" and rec["frame_source"] == "budget:qwen2_5_vl"
    click = family_agents.to_sphinx(Action("CLICK", point=(resized.resized_width / 2, resized.resized_height / 2),
                                           frame="resized_px"), h, size, geo_q)
    assert click["point"] == pytest.approx((size[0] / 2, size[1] / 2))


def test_a_family_needs_screenshots_and_a_known_name():
    with pytest.raises(DataError, match="agent_family"):
        lmms_task.SphinxNavTask.rows({"subset": "toggle", "observation": "full_text", "agent_family": "ui_tars"})
    with pytest.raises(UnknownName, match="unknown agent family 'nobody'"):
        lmms_task.SphinxNavTask.rows({"subset": "toggle", "observation": "screenshot", "agent_family": "nobody"})
    plain = lmms_task.SphinxNavTask.rows({"subset": "toggle", "observation": "screenshot"})
    assert all("agent_family" not in d for d in plain)  # the other tasks' documents (and hashes) are unchanged


@pytest.mark.slow
def test_a_ui_tars_toggle_run_through_lmms_eval_parses_ui_tars_actions(tmp_path, subprocess_env):
    """``sphinx_sim_toggle_ui_tars`` end to end (lmms-eval's openai backend, a scripted server): UI-TARS's finished()
    is read as its stop; the rounds carry the screenshot the family sees."""
    from fake_openai import FakeServer, last_text
    from lmms_helpers import results, run_openai, samples

    server = FakeServer(["ok"], text="Thought: the state is right.\nAction: finished()")
    out = tmp_path / "run"
    try:
        env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache"), "OPENAI_API_KEY": "EMPTY"}
        proc, log = run_openai(server.base_url, "sphinx_sim_toggle_ui_tars", out, env, "--limit", "2")
    finally:
        server.stop()
    res = results(out)
    meta = res["configs"]["sphinx_sim_toggle_ui_tars"]["metadata"]
    assert meta["agent_family"] == "ui_tars" and meta["parser_protocol"] == "star-families:ui_tars", log[-3000:]
    recs = [s["sphinx_sr"] for s in samples(out, "sphinx_sim_toggle_ui_tars")]
    # SystemBluetoothTurnOff and its Verify twin: finished() at once fails the first and passes the second
    assert [(r["agent_family"], r["format_errors"], r["n_actions"], r["toggle_kind"], r["satisfied"]) for r in recs] == \
        [("ui_tars", 0, 1, "normal", [False]), ("ui_tars", 0, 1, "verify", [True])]
    assert res["results"]["sphinx_sim_toggle_ui_tars"]["toggle_verify_sr,none"] == 1.0
    assert res["results"]["sphinx_sim_toggle_ui_tars"]["toggle_normal_sr,none"] == 0.0
    content = server.bodies[0]["messages"][-1]["content"]
    assert [c["type"] for c in content].count("image_url") == 1 and "You are a GUI agent." in last_text(server.bodies[0])
