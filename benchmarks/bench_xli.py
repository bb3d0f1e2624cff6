"""Prints GUI-XLI costs: generation latency with and without steering, memory lookup versus memory size, memory-building throughput.

    python benchmarks/bench_xli.py [--checkpoint DIR] [--prompts 16] [--repeats 3] [--max-new-tokens 16]

Without ``--checkpoint`` the tiny random Qwen2-VL checkpoint is built in the cache (its forward
pass is far cheaper than a 7B model's, so the relative overhead printed here is an upper bound
of what a real model sees; the absolute per-request overhead is the comparable figure). The
paper claims negligible latency (aim: at most 5% slower).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch


def _ms(x: float) -> str:
    return f"{x * 1e3:.2f} ms"


def latency(lm, docs, memory_path: str, layer: int, repeats: int, max_new_tokens: int) -> None:
    from gui_interventions import build_run
    from gui_tasks.mpr.lmms_task import doc_to_visual
    from gui_tasks.mpr.xli.search import score_docs

    images = {d["id"]: tuple(doc_to_visual(d)) for d in docs}
    plain = build_run(None)
    steered = build_run("gui_xli", {"gui_xli.memory": memory_path, "gui_xli.layer": layer, "gui_xli.alpha": 0.1, "gui_xli.k": 3})
    plugin = steered.plugins[0][1]
    timings: dict[str, list[float]] = {"without": [], "with": []}
    score_docs(lm, docs[:2], max_new_tokens=max_new_tokens, images=images)  # warm-up
    step = lm.batch_size
    for _ in range(repeats):
        for i in range(0, len(docs), step):  # alternate batch by batch, so load drift hits both alike
            for name, run in (("without", plain), ("with", steered)):
                lm.interventions = run
                t = time.perf_counter()
                score_docs(lm, docs[i:i + step], max_new_tokens=max_new_tokens, images=images)
                timings[name].append((time.perf_counter() - t) / len(docs[i:i + step]))
    lm.interventions = plain
    total_with = sum(timings["with"]) * step
    print(f"generation latency per request ({len(docs)} prompts x {repeats}, {max_new_tokens} new tokens, batch {step}):")
    for stat, f in (("median", statistics.median), ("min", min)):
        a, b = f(timings["without"]), f(timings["with"])
        print(f"  {stat:>6}: without {_ms(a)}, with {_ms(b)} ({100 * (b - a) / a:+.1f}%)")
    print(f"  time inside the steering hook: {_ms(plugin.hook_seconds / plugin.hook_calls)} per call, "
          f"{plugin.hook_calls} calls, {100 * plugin.hook_seconds / total_with:.2f}% of generation time with steering")


def lookup_cost(hidden: int = 3584, sizes=(10, 60, 600, 6000), k: int = 3) -> None:
    from gui_interventions.xli_memory import XLIMemory, entry_record

    print(f"memory lookup (Eq. 5 + mean of top-{k}, hidden {hidden} as Qwen2.5-VL-7B, one layer, CPU):")
    for n in sizes:
        mem = XLIMemory((1,), torch.randn(1, n, hidden), torch.randn(1, n, hidden),
                        [entry_record(f"e{i}", "AU") for i in range(n)])
        cands = mem.candidates("AU")
        h = torch.randn(hidden)
        times = []
        for _ in range(50):
            t = time.perf_counter()
            mem.retrieve(h, 1, cands, k)
            times.append(time.perf_counter() - t)
        print(f"  {n:>5} entries: median {_ms(statistics.median(times))}")


def build_throughput(lm, per_dimension: int, max_new_tokens: int) -> None:
    from gui_tasks.mpr.xli.build import build_memory
    from gui_tasks.mpr.xli.data import DataSpec

    t = time.perf_counter()
    memory, report = build_memory(lm, DataSpec(seed=1, per_dimension=per_dimension), "ja", require_correctness=False,
                                  max_new_tokens=max_new_tokens)
    total = time.perf_counter() - t
    n = report.candidates
    kept = len(memory.entries) if memory else 0
    print(f"memory building ({n} pairs, {max_new_tokens}-token chains, all {len(lm.layers)} layers stored, batch {lm.batch_size}):")
    print(f"  answering both languages: {n / report.generate_seconds:.2f} pairs/s; "
          f"states of kept entries: {kept / max(report.states_seconds, 1e-9):.2f} entries/s; total {total:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=4)
    args = ap.parse_args()
    from gui_models.hf_backend import GuiHF
    from gui_models.tiny_model import build_tiny_model
    from gui_interventions.xli_memory import XLIMemory, entry_record
    from gui_core.paths import cache_dir
    from gui_tasks.mpr.xli.data import DataSpec, lang_files, read_docs

    ckpt = Path(args.checkpoint) if args.checkpoint else cache_dir() / "tiny-qwen2-vl"
    if not (ckpt / "config.json").is_file():
        build_tiny_model(ckpt)
    lm = GuiHF(pretrained=str(ckpt), batch_size=args.batch_size)
    docs = read_docs(lang_files(DataSpec(seed=2, per_dimension=max(1, args.prompts // 8 + 1)), ("ja",))["ja"])[:args.prompts]
    hidden = int(lm.model.config.get_text_config().hidden_size)
    layer = max(1, len(lm.layers) // 2)
    n = 60  # the paper's memory: 10 entries for each of the six basic dimensions
    dims = ("AU", "AP", "WF", "WI", "AEL", "REL")
    memory = XLIMemory((layer,), torch.randn(1, n, hidden), 0.01 * torch.randn(1, n, hidden),
                       [entry_record(f"e{i}", dims[i % 6]) for i in range(n)], {"lang": "ja"})
    with tempfile.TemporaryDirectory() as tmp:
        latency(lm, docs, str(memory.save(Path(tmp) / "m")), layer, args.repeats, args.max_new_tokens)
    lookup_cost()
    build_throughput(lm, per_dimension=2, max_new_tokens=args.max_new_tokens)


if __name__ == "__main__":
    main()
