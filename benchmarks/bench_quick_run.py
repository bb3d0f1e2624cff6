"""Wall time of a newcomer's quick run: ``lmms-eval --tasks gui_knowledge_synth --limit 2`` (16 documents, the
synthetic sub-tasks' own generation budget) on the tiny checkpoint, on CPU; prints the figure (target: under 2 min).

    python benchmarks/bench_quick_run.py [--tasks gui_knowledge_synth] [--limit 2] [--checkpoint DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="gui_knowledge_synth")
    ap.add_argument("--limit", type=int, default=2)
    ap.add_argument("--checkpoint", default=None, help="default: build the tiny checkpoint in a temporary folder")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = args.checkpoint
        if ckpt is None:
            from gui_models.tiny_model import build_tiny_model

            ckpt = str(build_tiny_model(Path(tmp) / "tiny", family="qwen2_vl", seed=0))
        from gui_tasks.commands.cli import find_results, lmms_eval_command

        out = Path(tmp) / "runs"
        cmd = lmms_eval_command(f"pretrained={ckpt},device=cpu", args.tasks.split(","), out, limit=args.limit)
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode or not find_results(out):
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
    print(f"lmms-eval --tasks {args.tasks} --limit {args.limit} on the tiny checkpoint (CPU): {wall:.1f} s wall "
          f"(target < 120 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
