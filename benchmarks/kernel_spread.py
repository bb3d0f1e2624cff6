"""How far the floats a tiny model computes move between CPU kernel paths and thread counts (issue 55).

The recorded-answer tests (tests/test_hf_pipeline.py, fixtures/hf_batch1_recorded.json) compare token ids and texts
exactly and the captured floats (digit logits, log-Z, log-probs, entropies) within tests/tolerance.py's model
tolerance. ATen and oneDNN pick their kernels by machine (AVX-512, AVX2 or scalar code), so a recording made on one
CPU holds on another only within the spread measured here. This script answers the documents of the recording under
every kernel path the CPU offers (``ATEN_CPU_CAPABILITY=default|avx2|avx512``) at 1 and 2 threads, each in its own
process, and prints per field the largest absolute and relative difference from the recording and between the
paths, and whether any token id or text differed.

    PYTHONPATH=. python benchmarks/kernel_spread.py [--threads 1 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("logprob", "entropy", "logz", "digits")


def cpu_paths() -> list[str]:
    """The ATEN_CPU_CAPABILITY values this CPU can run (default = the scalar path, always there)."""
    flags = ""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        pass
    paths = ["default"]
    if " avx2" in flags:
        paths.append("avx2")
    if " avx512f" in flags and " avx512bw" in flags and " avx512vl" in flags and " avx512dq" in flags:
        paths.append("avx512")
    return paths


def answer(checkpoints: dict[str, str], threads: int, out: Path) -> None:
    """In this process: the recording's documents answered on each family's checkpoint (the recording's own code)."""
    import torch

    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    import make_hf_batch1_recorded as recorded

    torch.set_num_threads(threads)
    got = {family: recorded.record(family, Path(path)) for family, path in checkpoints.items()}
    out.write_text(json.dumps({"capability": os.environ.get("ATEN_CPU_CAPABILITY", ""), "threads": threads,
                               "families": got}), encoding="utf-8")


def run_path(capability: str, threads: int, checkpoints: dict[str, str], tmp: Path) -> dict:
    """One kernel path and thread count, answered in a fresh process (the capability is read at torch's start)."""
    out = tmp / f"{capability}-{threads}.json"
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability, "OMP_NUM_THREADS": str(threads),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    code = ("import json, sys; from pathlib import Path; sys.path.insert(0, 'benchmarks'); import kernel_spread as k; "
            f"k.answer(json.loads({json.dumps(json.dumps(checkpoints))}), {threads}, Path({str(out)!r}))")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def build_checkpoints(tmp: Path) -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    import make_hf_batch1_recorded as recorded
    from tiny_archs import build

    return {family: str(build(family, tmp / family)) for family in recorded.FAMILIES}


def spread(a: dict, b: dict) -> dict:
    """Per field the largest |a - b| and |a - b| / |b|; and whether token ids and texts are all equal."""
    worst = {f: {"abs": 0.0, "rel": 0.0} for f in FIELDS}
    same_tokens = True
    for family, docs in b["families"].items():
        for da, db in zip(a["families"][family], docs):
            same_tokens &= da["text"] == db["text"] and [s["token_id"] for s in da["steps"] or []] == \
                [s["token_id"] for s in db["steps"] or []]
            for sa, sb in zip(da["steps"] or [], db["steps"] or []):
                for field in FIELDS:
                    xs, ys = (sa[field], sb[field]) if field == "digits" else ([sa[field]], [sb[field]])
                    for x, y in zip(xs, ys):
                        if x is None or y is None or (math.isinf(x) and x == y):
                            continue
                        d = abs(x - y)
                        worst[field]["abs"] = max(worst[field]["abs"], d)
                        worst[field]["rel"] = max(worst[field]["rel"], d / abs(y) if y else 0.0)
    return {"fields": worst, "same_tokens_and_texts": same_tokens}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    recording = json.loads((ROOT / "tests" / "fixtures" / "hf_batch1_recorded.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        checkpoints = build_checkpoints(Path(tmp))
        runs = [run_path(cap, t, checkpoints, Path(tmp)) for cap in cpu_paths() for t in args.threads]
    rows = [(f"{r['capability']}/{r['threads']}t vs recording", spread(r, recording)) for r in runs]
    rows += [(f"{a['capability']}/{a['threads']}t vs {b['capability']}/{b['threads']}t", spread(a, b))
             for i, a in enumerate(runs) for b in runs[i + 1:]]
    print(f"kernel paths on this CPU: {', '.join(cpu_paths())}; recording made at {recording.get('recorded_at')}")
    print(f"{'comparison':<36} {'tokens':>6} " + " ".join(f"{f + ' abs':>12} {f + ' rel':>12}" for f in FIELDS))
    for name, s in rows:
        print(f"{name:<36} {'same' if s['same_tokens_and_texts'] else 'DIFF':>6} "
              + " ".join(f"{s['fields'][f]['abs']:>12.2e} {s['fields'][f]['rel']:>12.2e}" for f in FIELDS))
    worst_abs = max(s["fields"][f]["abs"] for _n, s in rows for f in FIELDS)
    worst_rel = max(s["fields"][f]["rel"] for _n, s in rows for f in FIELDS if f != "digits")
    print(f"largest absolute difference: {worst_abs:.2e}; largest relative (log-probs, entropies, log-Z): {worst_rel:.2e}")
    if args.json:
        args.json.write_text(json.dumps({"paths": cpu_paths(), "rows": dict(rows)}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
