"""Running the real lmms-eval CLI in a subprocess and reading what it wrote (it exits 0 even on failure)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gui_tasks.commands.cli import find_results


def run(cmd, env, timeout=600):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc, proc.stdout + proc.stderr


def run_openai(base_url: str, tasks: str, out: Path, env, *args: str, log_samples: bool = True):
    """lmms-eval's own ``openai`` backend (its default mode) against a served model at ``base_url``."""
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "openai", "--model_args", f"model_version=m,base_url={base_url}",
           "--tasks", tasks, *args, "--output_path", str(out), "--verbosity", "WARNING"]
    return run(cmd + (["--log_samples"] if log_samples else []), {**env, "OPENAI_API_KEY": "EMPTY"})


def results(out: Path) -> dict:
    files = find_results(out)
    assert files, f"lmms-eval wrote no results under {out}"
    return json.loads(files[-1].read_text(encoding="utf-8"))


def samples(out: Path, task: str) -> list[dict]:
    files = sorted(out.rglob(f"*_samples_{task}.jsonl"))
    assert files, f"no samples file for {task} under {out}"
    return [json.loads(line) for line in files[-1].read_text(encoding="utf-8").splitlines() if line.strip()]
