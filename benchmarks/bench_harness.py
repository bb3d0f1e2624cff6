"""Prints the harness's own costs on the synthetic MPR-GUI set (no model time).

    python benchmarks/bench_harness.py [--samples 400]

Figures: per-sample overhead of document preparation (process_docs + image loading),
prompt building, answer parsing and scoring (median and p95, ms); synthetic generator throughput
(screens/s). The task index has its own script: benchmarks/bench_task_index.py.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import datasets


def _ms(samples: list[float]) -> str:
    s = sorted(samples)
    return f"median {statistics.median(s) * 1e3:.3f} ms, p95 {s[int(0.95 * (len(s) - 1))] * 1e3:.3f} ms"


def per_sample_overhead(n: int) -> None:
    from gui_tasks.mpr import lmms_task

    meta = {"lang": "zh", "source": "synthetic", "seed": 0, "per_dimension": 8}
    rows = lmms_task.task_rows(meta)
    rows = (rows * (n // len(rows) + 1))[:n]
    t0 = time.perf_counter()
    docs = list(lmms_task.process_docs_synthetic(datasets.Dataset.from_list(rows)))
    prep = (time.perf_counter() - t0) / len(docs)
    stages = {"doc_to_visual": [], "doc_to_text": [], "parse+score": []}
    responses = ["B", "The correct answer is: (C)", "答案：D", "I am not sure", "A. " + docs[0]["options"][0]]
    for i, doc in enumerate(docs):
        t = time.perf_counter()
        lmms_task.doc_to_visual(doc)
        stages["doc_to_visual"].append(time.perf_counter() - t)
        t = time.perf_counter()
        lmms_task.doc_to_text(doc, {"prompt_protocol": "mpr-direct-v1"})
        stages["doc_to_text"].append(time.perf_counter() - t)
        t = time.perf_counter()
        lmms_task.process_results(doc, [responses[i % len(responses)]])
        stages["parse+score"].append(time.perf_counter() - t)
    total = [prep + sum(v[i] for v in stages.values()) for i in range(len(docs))]
    print(f"per-sample harness overhead over {len(docs)} samples (model time excluded)")
    print(f"  process_docs (amortised)  {prep * 1e3:.3f} ms")
    for name, v in stages.items():
        print(f"  {name:<25} {_ms(v)}")
    print(f"  total                     {_ms(total)}   (target: median < 2 ms)")


def generator_throughput() -> None:
    from gui_tasks.mpr.synth import build_mpr_synth

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        files = build_mpr_synth(Path(tmp), seed=1, per_dimension=8)
        dt = time.perf_counter() - t
        screens = sum(1 for _ in Path(tmp).rglob("*.png"))
    print(f"synthetic generator: {screens} screens for {len(files)} languages in {dt:.2f} s -> {screens / dt:.1f} screens/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=400)
    args = ap.parse_args()
    per_sample_overhead(args.samples)
    generator_throughput()


if __name__ == "__main__":
    main()
