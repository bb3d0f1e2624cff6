"""Several processes that silently are one (issue 53): a run asked for N processes that started fewer says so, once on
stderr and in its results; the count asked for is read from the launching ``accelerate launch`` command line."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from gui_tasks.harness import lmms_processes
from gui_tasks.runs.results_io import task_definition


@pytest.mark.parametrize("argv, expected", [
    (["/v/bin/python", "/v/bin/accelerate", "launch", "--cpu", "--num_processes", "2", "-m", "lmms_eval"], 2),
    (["python", "-m", "accelerate.commands.launch", "--num_processes=4", "-m", "lmms_eval", "--num_processes", "9"], 4),
    (["python", "-m", "accelerate.commands.launch", "--multi_gpu", "--num-processes", "8", "run.py"], 8),
    (["python", "-m", "accelerate.commands.launch", "-m", "lmms_eval", "--num_processes", "2"], None),  # the program's
    (["python", "-m", "lmms_eval", "--num_processes", "2"], None),  # not a launcher
    (["/v/bin/python", "/v/bin/accelerate", "launch", "--num_processes", "two"], None),
])
def test_the_requested_count_is_the_launchers_num_processes(argv, expected):
    assert lmms_processes.num_processes_arg(argv) == expected


def test_a_shortfall_is_said_once_and_recorded_as_a_run_result(monkeypatch, capsys):
    monkeypatch.setenv("ACCELERATE_NUM_PROCESSES", "2")
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setattr(lmms_processes, "_SAID", [])
    lmms_processes.warn_once()
    lmms_processes.warn_once()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gui-eval: warning: asked for 2 processes ($ACCELERATE_NUM_PROCESSES) "
                                               "but 1 started")
    assert "ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2" in err[0]
    out = SimpleNamespace(task_config={"metadata": {"version": "1"}})
    lmms_processes.record(out)
    assert {k: v for k, v in out.task_config["metadata"]["processes"].items() if k != "message"} == {
        "requested": 2, "started": 2 - 1, "read_from": "$ACCELERATE_NUM_PROCESSES"}
    assert task_definition(out.task_config["metadata"]) == {"version": "1"}  # a result of the run, not the task
    monkeypatch.setenv("WORLD_SIZE", "2")  # every rank started: nothing said, nothing recorded
    assert lmms_processes.shortfall() is None


PROBE = "from gui_tasks.harness.lmms_processes import shortfall; s = shortfall(); print('PROBE', s and (s['requested'], s['started'], s['read_from']))\n"


@pytest.mark.parametrize("launcher, expected", [
    (["--cpu", "--num_processes", "2"], ["PROBE (2, 1, 'accelerate launch --num_processes')"]),
    (["--multi_gpu", "--num_processes", "2"], ["PROBE None", "PROBE None"]),  # with ACCELERATE_USE_CPU=true: two ranks
])
def test_accelerate_cpu_flag_starts_one_process_and_it_is_named(tmp_path, launcher, expected):
    import socket

    script = tmp_path / "probe.py"
    script.write_text(PROBE, encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "ACCELERATE_USE_CPU": "true"}
    env.pop("ACCELERATE_NUM_PROCESSES", None)
    env.pop("WORLD_SIZE", None)
    proc = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", *launcher, "--num_machines", "1",
                           "--main_process_port", str(port), "--mixed_precision", "no", "--dynamo_backend", "no",
                           str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("PROBE")) == expected
