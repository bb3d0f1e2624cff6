"""Local OpenAI-compatible servers for tests and benchmarks (vLLM, ``transformers serve``): on 127.0.0.1, stopped by process id.

Both run in the virtualenv ``scripts/setup_vllm.sh`` builds (``.venv-vllm``: vLLM's CPU build, whose
transformers, FastAPI and Uvicorn also make ``transformers serve`` work), vLLM with the flags
docs/ENGINES.md found to work on a CPU machine. Waiting is bounded in time; a server that exits or
does not become healthy is stopped and reported with the tail of its log.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PORTS = range(18000, 19000)


def vllm_python() -> Path | None:
    """The interpreter of the vLLM virtualenv (``GUI_EVAL_VLLM_VENV`` or ``.venv-vllm``), or None when it is not built."""
    venv = Path(os.environ.get("GUI_EVAL_VLLM_VENV") or REPO / ".venv-vllm")
    python = venv / "bin" / "python"
    return python if python.is_file() and (venv / ".gui-eval-vllm-installed").is_file() else None


def free_port(ports: range = PORTS) -> int:
    """A port in ``ports`` that nothing listens on at 127.0.0.1 now."""
    start = os.getpid() % len(ports)
    for i in range(len(ports)):
        port = ports[(start + i) % len(ports)]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1} on 127.0.0.1")


@dataclass
class VLLMServer:
    """A running local server (vLLM or ``transformers serve``): its base URL, process and log file."""

    url: str
    process: subprocess.Popen
    log: Path
    model: str

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def metric(self, name: str) -> float:
        """The sum of a Prometheus counter from ``/metrics`` (e.g. ``vllm:request_success_total``)."""
        text = urllib.request.urlopen(self.url + "/metrics", timeout=10).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name + "{") or line.startswith(name + " "))

    def stop(self) -> None:
        """Stop the server and its engine processes (its own process group, by the server's id)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.process.wait(timeout=30)


def start_vllm(checkpoint: str | Path, log: Path, *, port: int | None = None, ready_s: float = 420.0,
               python: Path | None = None, extra: list[str] | None = None) -> VLLMServer:
    """Start ``python -m vllm.entrypoints.openai.api_server`` on ``checkpoint``; return once ``/health`` answers 200."""
    python = python or vllm_python()
    if python is None:
        raise RuntimeError("the vLLM virtualenv is not built: run `bash scripts/setup_vllm.sh`")
    port = port or free_port()
    cmd = [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint), "--host", "127.0.0.1",
           "--port", str(port), "--dtype", "float32", "--max-model-len", "4096", "--max-logprobs", "20", *(extra or [])]
    return _start(cmd, port, checkpoint, log, ready_s)


def start_transformers_serve(checkpoint: str | Path, log: Path, *, port: int | None = None, ready_s: float = 180.0,
                             python: Path | None = None) -> VLLMServer:
    """Start ``transformers serve`` with ``checkpoint`` preloaded (it returns no logprobs: docs/ENGINES.md)."""
    python = python or vllm_python()
    if python is None:
        raise RuntimeError("the served-engine virtualenv is not built: run `bash scripts/setup_vllm.sh`")
    port = port or free_port()
    cmd = [str(python.with_name("transformers")), "serve", "--host", "127.0.0.1", "--port", str(port), str(checkpoint)]
    return _start(cmd, port, checkpoint, log, ready_s)


def _start(cmd: list[str], port: int, checkpoint: str | Path, log: Path, ready_s: float) -> VLLMServer:
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "2", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
    env.pop("PYTHONPATH", None)  # the server runs its own environment, not the caller's path
    log = Path(log)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=str(log.parent))
    server = VLLMServer(f"http://127.0.0.1:{port}", proc, log, str(checkpoint))
    deadline = time.monotonic() + ready_s
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server {cmd[:3]} exited ({proc.returncode}) before it was ready; log {log}:\n{_tail(log)}")
            try:
                if urllib.request.urlopen(server.url + "/health", timeout=5).status == 200:
                    return server
            except OSError:
                pass
            time.sleep(2)
        raise RuntimeError(f"server {cmd[:3]} not ready after {ready_s:.0f} s; log {log}:\n{_tail(log)}")
    except BaseException:
        server.stop()
        raise


def _tail(path: Path, n: int = 3000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-n:]
    except OSError:
        return "(no log)"
