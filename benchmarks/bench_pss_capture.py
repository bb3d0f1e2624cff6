"""Prints the cost of digit-logit capture in gui_hf: generation time with capture off and on, and memory per token.

    python benchmarks/bench_pss_capture.py [--checkpoint DIR] [--requests 8] [--repeats 3] [--max-new-tokens 16]

Without ``--checkpoint`` it builds the tiny Qwen2-VL checkpoint in a temporary folder (offline).
Off and on runs alternate so machine load affects both alike; the figure is the median over
repeats. Memory: bytes the recorder holds per generated token (ten digit values, entropy,
chosen log-prob, float32), the size of the finished ``Capture`` per token as Python objects and
as JSON, and the transient full-vocabulary row (one step, batch x vocab float32) that is never stored.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _requests(lm, n: int, max_new: int):
    from lmms_eval.api.instance import Instance
    from PIL import Image

    from gui_core.grounding_prompts import build_prompt

    docs = [{"img": [Image.new("RGB", (640, 400), (30 * i % 255, 120, 200 - 10 * i % 200))]} for i in range(n)]
    lm.task_dict = {"bench": {"test": docs}}
    return [Instance("generate_until", (build_prompt(f"the icon number {i}"), {"max_new_tokens": max_new, "until": []},
                                        lambda d: d["img"], i, "bench", "test"), i, {"task": "bench", "doc_id": i, "repeats": 1})
            for i in range(n)]


def _deep_size(obj, seen=None) -> int:
    seen = seen if seen is not None else set()
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(_deep_size(k, seen) + _deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set)):
        size += sum(_deep_size(x, seen) for x in obj)
    elif hasattr(obj, "__dict__"):
        size += _deep_size(vars(obj), seen)
    return size


def _instrument() -> list[float]:
    """Accumulate the CPU time spent in the recorder's hook and finish (a one-element list)."""
    from gui_core.logit_capture import DigitLogitsProcessor

    spent = [0.0]
    call, finish = DigitLogitsProcessor.__call__, DigitLogitsProcessor.finish

    def timed_call(self, input_ids, scores):  # transformers checks a logits processor's signature
        c = time.process_time()
        try:
            return call(self, input_ids, scores)
        finally:
            spent[0] += time.process_time() - c

    def timed_finish(self, *args, **kwargs):
        c = time.process_time()
        try:
            return finish(self, *args, **kwargs)
        finally:
            spent[0] += time.process_time() - c

    DigitLogitsProcessor.__call__, DigitLogitsProcessor.finish = timed_call, timed_finish
    return spent


def step_cost(vocab: int, steps: int = 200) -> None:
    """Recorder time per decoding step at a real vocabulary size (single-digit groups, as Qwen2 tokenizers have)."""
    import torch

    from gui_core.logit_capture import DigitLogitsProcessor

    rec = DigitLogitsProcessor([[100 + d] for d in range(10)], "cpu")
    scores = torch.randn(1, vocab)
    ids = torch.zeros(1, 1, dtype=torch.long)
    rec(ids, scores)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(steps):
            rec(ids, scores)
        best = min(best, (time.perf_counter() - t) / steps)
    print(f"recorder time per decoding step at vocab {vocab} on this CPU: {best * 1e3:.3f} ms (batch 1)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=1)
    args = ap.parse_args(argv)

    from gui_models.hf_backend import GuiHF
    from gui_core.logit_capture import DigitLogitsProcessor

    with tempfile.TemporaryDirectory() as tmp:
        ckpt = args.checkpoint
        if ckpt is None:
            from gui_models.tiny_model import build_tiny_model

            ckpt = str(build_tiny_model(Path(tmp) / "tiny"))
        # one model: capture is switched by the digit table, so both arms share weights, caches and allocator
        on = GuiHF(pretrained=ckpt, device="cpu", batch_size=args.batch_size, capture_logits="digits")
        groups = on._digit_groups
        on.generate_until(_requests(on, 2, args.max_new_tokens))  # warm-up
        times = {"off": [], "on": []}
        cpu = {"off": [], "on": []}
        outputs = []
        spent = _instrument()
        for _ in range(args.repeats):
            for name in ("off", "on"):
                on._digit_groups = groups if name == "on" else None
                reqs = _requests(on, args.requests, args.max_new_tokens)
                t, c = time.perf_counter(), time.process_time()
                out = on.generate_until(reqs)
                times[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - c)
                if name == "on":
                    outputs = out
        on._digit_groups = groups
        # the minimum is the least disturbed run on a shared machine
        t_off, t_on = min(times["off"]), min(times["on"])
        c_off, c_on = statistics.median(cpu["off"]), statistics.median(cpu["on"])
        tokens = sum(len(o.capture.steps) for o in outputs)
        vocab = on.model.get_output_embeddings().weight.shape[0]
        # what the recorder holds for one step of one row, measured on a real recorder
        rec = DigitLogitsProcessor(on._digit_groups, "cpu")
        import torch

        rec(torch.zeros(1, 1, dtype=torch.long), torch.zeros(1, vocab))
        rec(torch.zeros(1, 1, dtype=torch.long), torch.zeros(1, vocab))
        per_step = rec.stored_bytes() / 2
        py_bytes = sum(_deep_size(o.capture) for o in outputs) / max(tokens, 1)
        json_bytes = sum(len(json.dumps(o.capture.to_json())) for o in outputs) / max(tokens, 1)
        print(f"checkpoint: {ckpt} (vocab {vocab}); {args.requests} requests x {args.repeats} repeats, batch {args.batch_size}, "
              f"max_new_tokens {args.max_new_tokens}; {tokens} tokens generated per run")
        print(f"generation time, capture off: {t_off * 1e3 / args.requests:.1f} ms/request (best of {args.repeats}; median {statistics.median(times['off']) * 1e3 / args.requests:.1f})")
        print(f"generation time, capture on : {t_on * 1e3 / args.requests:.1f} ms/request "
              f"(median {statistics.median(times['on']) * 1e3 / args.requests:.1f})")
        print(f"capture overhead, wall time (best of {args.repeats}): {100 * (t_on / t_off - 1):+.1f} % (aim: at most +10 %)")
        print(f"capture overhead, process CPU time (median): {100 * (c_on / c_off - 1):+.1f} %")
        print(f"time inside the recorder (per-step hook + finish): {100 * spent[0] / sum(cpu['on']):.1f} % of the CPU time "
              f"of the capture-on runs")
        print(f"recorder memory per generated token: {per_step:.0f} bytes on the device (10 digit values, entropy, normaliser, log-prob; float32)")
        print(f"finished capture per token: {py_bytes:.0f} bytes as Python objects, {json_bytes:.0f} bytes as JSON")
        print(f"transient full-vocabulary row (not stored): {vocab * 4} bytes per batch row")
        step_cost(151_646)  # Qwen2-VL / Qwen2.5-VL vocabulary
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
