"""Data parallelism: two real CPU ranks under accelerate give the single process's per-sample results.

``accelerate launch --cpu --num_processes 2`` starts ONE process with accelerate 1.x; two ranks on
CPU need ``ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2``. A probe
intervention (registered through an entry point, like any third-party plugin) writes the world
size each rank sees, so the test knows two ranks really ran.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest
import torch

from gui_tasks.commands.cli import find_results, lmms_eval_command
from tolerance import assert_close
from xli_helpers import hand_memory

pytestmark = pytest.mark.slow
TASKS = ("mpr_gui_synth_en", "mpr_gui_synth_ja", "icon_localization_synth", "sphinx_sim_toggle")
LIMIT = 4
PROBE = """\
import os
from gui_interventions import hookimpl


class RankProbe:
    @hookimpl
    def gui_intervention_request(self, request):
        import torch.distributed as dist

        world = dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1
        rank = dist.get_rank() if world > 1 else 0
        with open(os.environ["GUI_EVAL_RANK_PROBE"], "a", encoding="utf-8") as fh:
            fh.write(f"{rank} {world}\\n")
        return None
"""


def _probe_package(root):
    (root / "rank_probe.py").write_text(PROBE, encoding="utf-8")
    info = root / "rank_probe-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rank-probe\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gui_interventions]\nrank_probe = rank_probe:RankProbe\n", encoding="utf-8")


def _per_sample(out):
    """Per task: doc_id -> the sample's record (response, metric records), and the aggregate metrics."""
    files = find_results(out)
    assert files, f"lmms-eval wrote no results under {out}"
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"]
    found = {}
    for task in TASKS:
        samples_file = sorted(out.rglob(f"*_samples_{task}.jsonl"))[-1]
        rows = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        found[task] = {s["doc_id"]: {k: v for k, v in s.items() if k not in ("doc_hash",)} for s in rows}
    metrics = {t: {k: v for k, v in results[t].items() if not k.endswith("_stderr,none") and k != "alias"} for t in TASKS}
    return found, metrics


def _free_port() -> int:
    """A port free now on 127.0.0.1 (the system's pick), for the ranks' rendezvous: not accelerate's fixed default 29500,
    which another run of this test (another pytest-xdist worker, another checkout) may hold."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_ranks_match_one_process(tmp_path, tiny_checkpoint, subprocess_env):
    _probe_package(tmp_path)
    torch.manual_seed(5)
    mem = hand_memory(torch.randn(4, 64), torch.randn(4, 64), ["AU", "AP", "WF", "WI"], layers=(1, 2, 3, 4))
    memory = mem.save(tmp_path / "mem")
    args = (f"pretrained={tiny_checkpoint},device=cpu,capture_logits=digits,interventions=rank_probe+gui_xli,"
            f"gui_xli.memory={memory},gui_xli.layer=2,gui_xli.alpha=1.0")
    extra = ["--gen_kwargs", "max_new_tokens=8"]
    runs = {}
    for name, launcher, env_extra in (
        ("one", [], {}),
        ("two", [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                 "--main_process_port", str(_free_port()), "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "lmms_eval"], {"ACCELERATE_USE_CPU": "true"}),
    ):
        probe = tmp_path / f"probe-{name}.txt"
        env = {**subprocess_env, **env_extra, "GUI_EVAL_RANK_PROBE": str(probe),
               "PYTHONPATH": f"{tmp_path}:{subprocess_env.get('PYTHONPATH', '')}"}
        cmd = lmms_eval_command(args, list(TASKS), tmp_path / name, limit=LIMIT, extra=extra)
        cmd = launcher + cmd[3:] if launcher else cmd
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        assert find_results(tmp_path / name), (proc.stdout + proc.stderr)[-4000:]
        runs[name] = _per_sample(tmp_path / name)
        lines = probe.read_text(encoding="utf-8").split()
        runs[name + "_ranks"] = sorted(set(zip(lines[::2], lines[1::2])))
    assert runs["one_ranks"] == [("0", "1")]
    assert runs["two_ranks"] == [("0", "2"), ("1", "2")]  # both ranks ran requests, each in a world of two
    configs = json.loads(find_results(tmp_path / "two")[-1].read_text(encoding="utf-8"))["configs"]
    assert not [t for t, c in configs.items() if "processes" in (c.get("metadata") or {})]  # no shortfall recorded
    (one, metrics_one), (two, metrics_two) = runs["one"], runs["two"]
    # texts, ids and decisions exact; floats (perplexity, PSS) within the shared tolerance: one process and two
    # ranks run on different thread counts, which changes the last digits (tests/tolerance.py)
    for task in TASKS:
        assert len(one[task]) == LIMIT
        assert_close(two[task], one[task])
    assert_close(metrics_two, metrics_one)
    icon = next(iter(one["icon_localization_synth"].values()))
    assert icon["pss_mean"]["captured"] is True  # the digit capture crossed the gather
