"""SPHINX user tasks on a device through adb (``sphinx_device*``), end to end with a fake adb executable.

``tests/fake_adb.py`` is a real executable backed by the simulator: the real adb command lines, uiautomator dumps,
``dumpsys window`` and PNG screencaps flow. The official layout comes from the synthetic corpus (same files).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from gui_tasks.sphinx import device_task, synth
from gui_tasks.sphinx.simulator import Simulator

SERIAL = "emulator-5554"


@pytest.fixture()
def fake_adb(tmp_path, monkeypatch):
    """A fake adb on disk, named by GUI_EVAL_ADB; its state and command log in tmp_path."""
    exe = tmp_path / "bin" / "adb"
    exe.parent.mkdir()
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).with_name("fake_adb.py")}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    env = {"GUI_EVAL_ADB": str(exe), "GUI_EVAL_ADB_SERIALS": SERIAL, "FAKE_ADB_SERIALS": SERIAL,
           "FAKE_ADB_STATE": str(tmp_path / "adb_state.json"), "FAKE_ADB_LOG": str(tmp_path / "adb_log.jsonl"),
           "SPHINX_DATA_DIR": str(synth.load_or_build(0)), "GUI_EVAL_CACHE": str(tmp_path / "cache")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(device_task, "_EPISODES", {})
    monkeypatch.setattr(device_task, "_PREFLIGHT", {})
    return env


def calls(env) -> list[list[str]]:
    path = Path(env["FAKE_ADB_LOG"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def _index(app: str, rid: str) -> int:
    """Element id ``[i]`` (official rendering) of view ``rid`` on ``app``'s first screen."""
    obs = Simulator().reset({}, app=app)
    ids = obs.hierarchy.element_ids("official")
    return next(k for k, i in enumerate(ids) if obs.hierarchy.nodes[i].get("resource-id") == rid)


def wifi_agent(prompt: str) -> str:
    """Opens settings, then the Wi-Fi row, then stops (solves task 1, "Open the Wi-Fi settings page.")."""
    if "Step 1 of" in prompt:
        return f"Action: click [{_index('launcher', 'com.sim.launcher:id/app_settings')}]"
    if "Step 2 of" in prompt:
        return f"Action: click [{_index('settings', 'com.sim.settings:id/row_wifi')}]"
    return "Action: press [stop]"


def test_preflight_names_a_missing_adb_or_an_unknown_serial(fake_adb, monkeypatch, tmp_path):
    assert device_task.preflight() is None
    monkeypatch.setenv("GUI_EVAL_ADB_SERIALS", "R58M123")
    assert "device 'R58M123' is not attached" in device_task.preflight()
    monkeypatch.setenv("GUI_EVAL_ADB", str(tmp_path / "nowhere" / "adb"))
    assert "adb not found" in device_task.preflight() and "GUI_EVAL_ADB" in device_task.preflight()
    monkeypatch.setenv("GUI_EVAL_ADB_SERIALS", f"{SERIAL},emulator-5556")
    monkeypatch.setenv("RANK", "1")
    assert device_task.serial_for() == "emulator-5556"  # under accelerate, rank r drives serial r
    monkeypatch.setenv("RANK", "2")
    with pytest.raises(ValueError, match="rank 2 has no device"):
        device_task.serial_for()


def _episode(doc, agent, rounds=4):
    outs = []
    prompt = device_task.doc_to_text(doc)
    for k in range(1, rounds + 1):
        outs.append(agent(prompt))
        visuals, prompt, terminal, final, _ = device_task.doc_to_text(doc, {}, previous_output=outs, round_idx=k)
        if terminal:
            return final
    raise AssertionError("no terminal round")


def test_an_episode_runs_on_the_device_and_is_scored_by_its_evaluator(fake_adb):
    docs = device_task.SphinxDeviceTask.rows({"observation": "set_of_mark"})
    assert docs[0]["id"] == "1/sim" and docs[0]["package"] == "com.sim.launcher"
    final = _episode(docs[0], wifi_agent)
    rec = device_task.process_results(docs[0], [final[-1]])["sphinx_sr"]
    assert rec["satisfied"] == [True] and rec["n_actions"] == 3 and rec["device"] == SERIAL
    log = calls(fake_adb)
    assert log[0] == ["devices"] and all(c[:2] == ["-s", SERIAL] for c in log[1:])  # checked once, then that device
    cmds = [" ".join(c[2:]) for c in log]
    # every observation: a dump, its text, the focused window; the ones the model saw: a screencap too
    assert cmds.count("shell uiautomator dump /sdcard/window_dump.xml") == 4  # first look, relaunch, two actions
    assert cmds.count("exec-out screencap -p") == 3
    assert cmds.count("shell monkey -p com.sim.launcher -c android.intent.category.LAUNCHER 1") == 2
    assert sum(c.startswith("shell input tap ") for c in cmds) == 2
    # resume: the finished episode is read back, the device is not touched again
    before = len(log)
    device_task._EPISODES.clear()
    again = _episode(docs[0], lambda p: "Action: press [back]")
    assert device_task.rounds_of([again[-1]]) == device_task.rounds_of([final[-1]])
    assert device_task.process_results(docs[0], [again[-1]])["sphinx_sr"]["satisfied"] == [True]
    assert len(calls(fake_adb)) == before


def test_a_dropped_device_or_a_missing_app_is_that_episode_not_run(fake_adb, monkeypatch):
    docs = device_task.SphinxDeviceTask.rows({"observation": "full_text"})
    monkeypatch.setenv("FAKE_ADB_DROP_AFTER", "6")  # the first look and a bit more, then offline
    final = _episode(docs[1], wifi_agent)
    rec = device_task.process_results(docs[1], [final[-1]])["sphinx_sr"]
    assert "device error" in rec["not_run"] and "device offline" in rec["not_run"]
    monkeypatch.delenv("FAKE_ADB_DROP_AFTER")
    Path(fake_adb["FAKE_ADB_STATE"]).unlink()
    missing = {**docs[2], "package": "com.example.absent"}
    final = _episode(missing, wifi_agent)
    rec = device_task.process_results(missing, [final[-1]])["sphinx_sr"]
    assert rec["not_run"].startswith("app 'com.example.absent' is not installed")
    from gui_metrics import get_metric

    ok = {"satisfied": [True], "n_actions": 2, "format_errors": 0}
    assert get_metric("sphinx_sr").aggregate([rec, ok]) == 1.0  # not-run episodes are left out, not counted as failures


@pytest.mark.slow
def test_sphinx_device_end_to_end_through_lmms_eval(fake_adb, tmp_path, subprocess_env):
    from fake_openai import FakeServer, last_text
    from lmms_helpers import results, run_openai, samples

    server = FakeServer(["ok"], reply=lambda body: wifi_agent(last_text(body)))
    out = tmp_path / "run"
    env = {**subprocess_env, **fake_adb, "OPENAI_API_KEY": "EMPTY"}
    try:
        proc, log = run_openai(server.base_url, "sphinx_device_som", out, env, "--limit", "2")
    finally:
        server.stop()
    res = results(out)
    meta = res["configs"]["sphinx_device_som"]["metadata"]
    assert meta["interaction"] == "agentic" and "not_run" not in meta, log[-3000:]
    recs = [s["sphinx_sr"] for s in samples(out, "sphinx_device_som")]
    assert [(r["id"], r["satisfied"], r["n_actions"]) for r in recs] == [("1/sim", [True], 3), ("2/sim", [False], 3)]
    assert res["results"]["sphinx_device_som"]["sphinx_sr,none"] == pytest.approx(0.5)
    cmds = [" ".join(c[2:]) for c in calls(fake_adb)]
    assert cmds.count("exec-out screencap -p") == 6 and cmds.count("shell uiautomator dump /sdcard/window_dump.xml") == 8
    # the model saw each screen: one image per request (Set-of-Mark screenshot)
    assert all(sum(p["type"] == "image_url" for p in b["messages"][-1]["content"]) == 1 for b in server.bodies)


@pytest.mark.slow
def test_an_unknown_serial_leaves_the_task_unrun_and_the_run_going(fake_adb, tmp_path, subprocess_env):
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai

    server = FakeServer(["ok"], text="B")
    out = tmp_path / "run"
    env = {**subprocess_env, **fake_adb, "OPENAI_API_KEY": "EMPTY", "GUI_EVAL_ADB_SERIALS": "R58M123"}
    try:
        proc, log = run_openai(server.base_url, "sphinx_device,mpr_gui_synth_en", out, env, "--limit", "2",
                               log_samples=False)
    finally:
        server.stop()
    res = results(out)
    assert "device 'R58M123' is not attached" in res["configs"]["sphinx_device"]["metadata"]["not_run"], log[-3000:]
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None and server.hits == 2
    assert not [c for c in calls(fake_adb) if c[:1] != ["devices"]]  # nothing but the device list was asked


def test_the_viewer_counts_a_not_run_episode_as_unscored():
    from gui_tasks.viewer.records import outcome

    assert outcome("sphinx_sim", {"not_run": "device error: offline", "satisfied": [], "n_actions": 0}) == \
        ("unscored", "not run: device error: offline")
    assert outcome("sphinx_sim", {"satisfied": [True], "n_actions": 2})[0] == "correct"


def test_a_ui_tars_episode_on_the_device_reads_its_grid_and_sees_its_previous_screenshots(fake_adb):
    doc = device_task.SphinxDeviceTask.rows({"observation": "screenshot", "agent_family": "ui_tars"})[0]
    obs = Simulator().reset({})
    w, h = obs.screen.size
    el = next(e for e in obs.screen.elements if e.label == "settings")
    x, y = round(1000 * (el.box[0] + el.box[2]) / 2 / w), round(1000 * (el.box[1] + el.box[3]) / 2 / h)
    assert device_task.doc_to_text(doc).startswith("\nYou are a GUI agent.")  # StaR's template
    assert len(device_task.doc_to_visual(doc)) == 1
    answer = f"Thought: settings.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
    visuals, prompt, terminal, _o, _i = device_task.doc_to_text(doc, {}, previous_output=[answer], round_idx=1)
    assert not terminal and "Step 1: Action: click(" in prompt and len(visuals) == 2  # the screen it acted on, then now
    taps = [c[2:] for c in calls(fake_adb) if c[2:4] == ["shell", "input"]]
    assert taps == [["shell", "input", "tap", str(round(x * w / 1000)), str(round(y * h / 1000))]]  # grid -> device pixels
    final = device_task.doc_to_text(doc, {}, previous_output=[answer, "Action: finished()"], round_idx=2)
    rec = device_task.process_results(doc, [final[3][-1]])["sphinx_sr"]
    assert rec["agent_family"] == "ui_tars" and rec["n_actions"] == 2 and rec["format_errors"] == 0
