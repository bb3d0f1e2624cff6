"""Smoke subset for the drift check (scripts/drift.sh): does this environment still run what users run?

One real lmms-eval run per benchmark family on the tiny locally built checkpoint (SPHINX's focused-context task in
full so that it can be submitted; the others with --limit), the viewer over all of them, and a submission built and
validated in a second process. Prints one line per step (ok / FAILED with the reason) and exits 1 when any step broke. Offline.
Usage: python scripts/drift_smoke.py OUT_DIR
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

# (task, --limit): one per benchmark family. The submitted task runs whole: `gui-eval submit` refuses --limit runs
# (and an MPR-GUI submission needs all six languages, too long for a smoke run). SPHINX's focused-context task has
# 141 documents; a GUI Knowledge Bench task would be smaller, but its submissions are refused while the tiny model
# never answers "unknown" (issue 29).
SUBMITTED = "sphinx_focused_synth"
RUNS: list[tuple[str, int | None]] = [
    ("mpr_gui_synth_en", 8),
    ("gui_knowledge_synth_en_state", 4),
    ("star_state_control_synth", 4),
    ("icon_localization_synth", 4),
    ("sphinx_sim_toggle", 2),
    (SUBMITTED, None),
]


def _run_lmms(ckpt: Path, task: str, limit: int | None, out: Path) -> Path:
    """One lmms-eval CLI run; returns its results file (the CLI exits 0 on failure, so the files are checked)."""
    from gui_tasks.commands.cli import find_results, lmms_eval_command

    run_dir = out / task
    cmd = lmms_eval_command(f"pretrained={ckpt},device=cpu", [task], run_dir, limit=limit,
                            extra=["--gen_kwargs", "max_new_tokens=32"])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = find_results(run_dir)
    if proc.returncode != 0 or not found:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-6:]
        raise RuntimeError(f"exit {proc.returncode}, {len(found)} results file(s); last lines:\n    " + "\n    ".join(tail))
    results = json.loads(found[-1].read_text(encoding="utf-8")).get("results", {})
    if task not in results:
        raise RuntimeError(f"{found[-1]} has no results for {task} (has {sorted(results)})")
    if not list(run_dir.rglob(f"*samples_{task}.jsonl")):
        raise RuntimeError(f"no per-sample file for {task} under {run_dir}")
    return found[-1]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for key in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ[key] = "1"
    failures: list[str] = []

    def step(name: str, fn: Callable[[], object]) -> object:
        t0 = time.monotonic()
        try:
            value = fn()
        except Exception as exc:  # noqa: BLE001 - every failure is reported, the other steps still run
            detail = str(exc) or traceback.format_exc(limit=3)
            print(f"[smoke] FAILED {name} ({time.monotonic() - t0:.0f} s): {type(exc).__name__}: {detail}", flush=True)
            failures.append(name)
            return None
        print(f"[smoke] ok     {name} ({time.monotonic() - t0:.0f} s)", flush=True)
        return value

    def build_inputs() -> Path:
        from gui_models.tiny_model import build_tiny_model
        from gui_tasks.knowledge import synth as knowledge
        from gui_tasks.mpr import synth as mpr

        ckpt = out / "tiny-qwen2-vl"
        if not (ckpt / "config.json").is_file():
            build_tiny_model(ckpt, family="qwen2_vl", seed=0)
        mpr.load_or_build(seed=0, per_dimension=8)
        knowledge.load_or_build(seed=0, per_subtask=8)
        return ckpt

    ckpt = step("tiny checkpoint and synthetic sets", build_inputs)
    if ckpt is None:
        print("[smoke] 1 step(s) failed: cannot go on without the checkpoint", flush=True)
        return 1
    ran: list[Path] = []
    for task, limit in RUNS:
        got = step(f"lmms-eval gui_hf {task}" + (f" --limit {limit}" if limit else ""),
                   lambda task=task, limit=limit: _run_lmms(ckpt, task, limit, out / "runs"))
        if got is not None:
            ran.append(out / "runs" / task)

    def view() -> None:
        proc = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", "view", *map(str, ran), "--out", str(out / "view")],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not (out / "view" / "index.html").is_file():
            raise RuntimeError(f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}")

    if ran:
        step("gui-eval view (every run above)", view)
    else:
        print("[smoke] FAILED gui-eval view: no run to view", flush=True)
        failures.append("view")

    def submit_and_validate() -> None:
        sub = out / "submission.json"
        for args in (["submit", str(out / "runs" / SUBMITTED), "--out", str(sub)], ["validate", str(sub)]):
            proc = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", *args], capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"gui-eval {args[0]}: exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-400:]}")

    if out / "runs" / SUBMITTED in ran:
        step(f"gui-eval submit + validate ({SUBMITTED})", submit_and_validate)
    else:
        print(f"[smoke] FAILED gui-eval submit + validate: no {SUBMITTED} run to submit", flush=True)
        failures.append("submit")
    print(f"[smoke] {len(failures)} step(s) failed" + (": " + "; ".join(failures) if failures else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
