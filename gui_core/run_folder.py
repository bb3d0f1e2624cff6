"""Where a run's own files go: beside lmms-eval's outputs (``--output_path``), never a shared folder keyed by task.

Per-run artefacts (SPHINX trajectories, device episode records, the images interventions sent) belong to one run of
one model: two runs writing into one shared folder would overwrite each other's files, and a report would show
whichever wrote last. They go to ``<--output_path>/<name>`` of the lmms-eval command line of this process (lmms-eval
also takes a results file name as ``--output_path``: its folder), else to ``$GUI_EVAL_RUN_DIR/<name>``, else (a
process that is not an lmms-eval run, such as a test calling a task function) to ``<fallback>/run-<start>-<pid>/<name>``,
a folder keyed by this process.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

RUN_DIR_ENV = "GUI_EVAL_RUN_DIR"
_STARTED = time.strftime("%Y%m%dT%H%M%S", time.gmtime())


def argv_option(argv: Sequence[str], name: str) -> str | None:
    """The value of ``name`` on a command line (``--name VALUE`` or ``--name=VALUE``), or None."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def is_lmms_eval_cli(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is the lmms-eval command line (``python -m lmms_eval`` or the ``lmms-eval`` script)."""
    head = Path(argv[0]).as_posix() if argv else ""
    return "lmms_eval" in head or Path(head).name == "lmms-eval"


def output_path(argv: Sequence[str] | None = None) -> Path | None:
    """The folder of this lmms-eval run's ``--output_path``, or None when this process is not such a run."""
    argv = sys.argv if argv is None else argv
    out = argv_option(argv, "--output_path") if is_lmms_eval_cli(argv) else None
    if not out:
        return None
    base = Path(out).expanduser()
    return base.parent if base.suffix == ".json" else base


def run_folder(name: str, fallback: Path, argv: Sequence[str] | None = None, environ: Any = None) -> Path:
    """The folder of this run's ``name`` files (module docstring): not created here."""
    environ = os.environ if environ is None else environ
    base = output_path(argv)
    if base is None and environ.get(RUN_DIR_ENV, "").strip():
        base = Path(environ[RUN_DIR_ENV]).expanduser()
    if base is None:
        base = Path(fallback) / f"run-{_STARTED}-{os.getpid()}"
    return base / name
