"""Several processes that silently are one: the number of processes a run asked for against the number that started.

With accelerate 1.x, ``accelerate launch --cpu --num_processes 2 -m lmms_eval ...`` starts ONE process (its simple
launcher; ``accelerate/utils/launch.py`` ``prepare_simple_launcher_cmd_env`` sets no world size) and lmms-eval runs on
one rank, exit 0, no word said. Two CPU ranks need ``ACCELERATE_USE_CPU=true accelerate launch --multi_gpu
--num_processes 2`` (docs/running.md). Here the requested count is read from ``$ACCELERATE_NUM_PROCESSES`` (set it to
state it) or the launching ``accelerate launch`` command line (the parent process's), the started count from the world
size (``$WORLD_SIZE``, set for every rank by torch's launcher; torch.distributed once initialised). A shortfall is said
once on stderr when lmms-eval matches its tasks (before the model loads) and recorded in every task's results metadata
(``processes``: requested, started, why), a result of the run, not part of the task's definition
(``gui_tasks.runs.results_io.RUN_RESULT_KEYS``).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

REQUEST_ENV = "ACCELERATE_NUM_PROCESSES"
PAGE = "docs/running.md#several-processes"
_SAID: list[str] = []


def num_processes_arg(argv: Sequence[str]) -> int | None:
    """``--num_processes N`` (or ``--num-processes``, ``=N``) of an ``accelerate launch`` command line, else None."""
    args = list(argv)
    start = next((i + 1 for i, a in enumerate(args[:4]) if "accelerate" in os.path.basename(a)), None)
    if start is None:
        return None
    for i, arg in enumerate(args[start:], start):
        for flag in ("--num_processes", "--num-processes"):
            value = args[i + 1] if arg == flag and i + 1 < len(args) else arg[len(flag) + 1:] if arg.startswith(flag + "=") else None
            if value is not None:
                return int(value) if value.strip().isdigit() else None
        if arg in ("-m", "--module") or arg.endswith(".py"):  # the launched program's own arguments follow
            break
    return None


def _parent_argv() -> list[str]:
    try:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as fh:
            return [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
    except OSError:  # not Linux, or the parent is gone
        return []


def requested() -> tuple[int | None, str]:
    """The number of processes asked for and where it was read, or (None, "")."""
    value = os.environ.get(REQUEST_ENV, "").strip()
    if value.isdigit():
        return int(value), f"${REQUEST_ENV}"
    n = num_processes_arg(_parent_argv())
    return (n, "accelerate launch --num_processes") if n is not None else (None, "")


def started() -> int:
    """The world size: torch.distributed's once initialised, else ``$WORLD_SIZE``, else 1."""
    torch = sys.modules.get("torch")
    dist = getattr(torch, "distributed", None) if torch is not None else None
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    value = os.environ.get("WORLD_SIZE", "").strip()
    return int(value) if value.isdigit() else 1


def shortfall() -> dict[str, Any] | None:
    """``{"requested", "started", "read_from", "message"}`` when fewer processes started than were asked for."""
    want, where = requested()
    got = started()
    if want is None or got >= want:
        return None
    message = (f"asked for {want} processes ({where}) but {got} started: the run goes on with {got}; on CPU, "
               f"`ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes {want}` starts every rank "
               f"(`--cpu` starts one), see {PAGE}")
    return {"requested": want, "started": got, "read_from": where, "message": message}


def warn_once() -> None:
    """Say a shortfall on stderr, once per process."""
    found = shortfall()
    if found and not _SAID:
        _SAID.append(found["message"])
        print(f"gui-eval: warning: {found['message']}", file=sys.stderr, flush=True)


def record(task_output: Any) -> None:
    """``metadata.processes`` of a task's results when fewer processes started than were asked for."""
    found = shortfall()
    config = getattr(task_output, "task_config", None)
    if found and isinstance(config, dict) and isinstance(config.get("metadata"), dict):
        config["metadata"]["processes"] = {k: found[k] for k in ("requested", "started", "read_from", "message")}
