"""Prints samples/s of gui_hf vs lmms-eval's own ``qwen2_vl`` backend, and the overhead of ``gui_wrap`` over the bare backend.

    python benchmarks/bench_backends.py [--checkpoint DIR] [--task mpr_gui_synth_en] [--samples 16] [--repeats 3]

Same tiny Qwen2-VL checkpoint (built offline when none is given), same task requests (the task's
own prompts and screenshots, 16 new tokens each), batch sizes 1 and 4, all backends loaded once in
this process; runs alternate so machine load hits every backend alike; the figure is the median over
repeats. Generated tokens per sample are printed too: the backends preprocess images differently
(lmms-eval's qwen2_vl re-encodes screenshots as JPEG), so a random model may stop at different lengths.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _requests(task_name: str, n: int):
    """The task's requests in the simple layout (qwen2_vl and gui_hf are simple backends), with a fixed budget."""
    from lmms_eval.api.instance import Instance
    from lmms_eval.tasks import TaskManager

    from gui_tasks.lmms_integration import attach

    attach()
    task = TaskManager("WARNING").load_task_or_group([task_name], "simple")[task_name]
    task.build_all_requests(limit=n, rank=0, world_size=1)
    gen = {"max_new_tokens": 16, "temperature": 0, "do_sample": False}
    reqs = [Instance("generate_until", (i.args[0], dict(gen)) + tuple(i.args[2:]), 0, i.metadata) for i in task.instances]
    return {task_name: task.dataset}, reqs


def _time(lm, task_dict, reqs) -> tuple[float, float]:
    """(samples/s, generated tokens per sample) of one pass."""
    lm.task_dict = task_dict
    batch = copy.copy(reqs)
    t0 = time.perf_counter()
    outs = lm.generate_until(batch)
    dt = time.perf_counter() - t0
    tok = getattr(lm, "tokenizer", None) or lm.inner.tokenizer
    texts = [o.text if hasattr(o, "text") else str(o) for o in outs]
    return len(reqs) / dt, statistics.mean(len(tok(t)["input_ids"]) for t in texts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint")
    ap.add_argument("--task", default="mpr_gui_synth_en")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: steadier on a shared machine)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)

    from lmms_eval.models import get_model

    from gui_models.hf_backend import GuiHF
    from gui_models.tiny_model import MAX_PIXELS, MIN_PIXELS, build_tiny_model
    from gui_models.wrap_backend import GuiWrap

    ckpt = Path(args.checkpoint) if args.checkpoint else build_tiny_model(Path(tempfile.mkdtemp()) / "tiny", family="qwen2_vl")
    task_dict, reqs = _requests(args.task, args.samples)
    qwen = dict(pretrained=str(ckpt), device="cpu", device_map="cpu", max_pixels=MAX_PIXELS, min_pixels=MIN_PIXELS)
    rows: dict[str, list[tuple[float, float]]] = {}
    for bs in (1, 4):
        backends = {
            f"gui_hf b{bs}": GuiHF(pretrained=str(ckpt), device="cpu", batch_size=bs),
            f"qwen2_vl b{bs}": get_model("qwen2_vl")(batch_size=bs, **qwen),
            f"gui_wrap(qwen2_vl) b{bs}": GuiWrap(backend="qwen2_vl", batch_size=bs, **qwen),
        }
        if bs == 1:
            backends["gui_wrap(qwen2_vl)+capture b1"] = GuiWrap(backend="qwen2_vl", batch_size=1, capture_logits="digits", **qwen)
        for name, lm in backends.items():
            _time(lm, task_dict, reqs[:2])  # warm-up
        for rep in range(args.repeats):
            order = list(backends.items())
            for name, lm in (order if rep % 2 == 0 else order[::-1]):  # alternate the order: no backend always runs first
                rows.setdefault(name, []).append(_time(lm, task_dict, reqs))
        del backends
    med = {k: (statistics.median(r for r, _ in v), statistics.median(t for _, t in v)) for k, v in rows.items()}
    print(f"{args.task}, {args.samples} samples, tiny Qwen2-VL at {ckpt}, median of {args.repeats}, {args.threads} torch thread(s)")
    print(f"{'backend':34s} {'samples/s':>10s} {'tokens/sample':>14s}")
    for name, (rate, toks) in med.items():
        print(f"{name:34s} {rate:10.2f} {toks:14.1f}")
    for bs in (1, 4):
        hf, q, w = med[f"gui_hf b{bs}"][0], med[f"qwen2_vl b{bs}"][0], med[f"gui_wrap(qwen2_vl) b{bs}"][0]
        print(f"batch {bs}: gui_hf / qwen2_vl = {hf / q:.2f}x; gui_wrap overhead over qwen2_vl = {(q / w - 1) * 100:+.1f}% time")
    cap = med["gui_wrap(qwen2_vl)+capture b1"][0]
    print(f"batch 1: gui_wrap with capture_logits=digits over bare qwen2_vl = {(med['qwen2_vl b1'][0] / cap - 1) * 100:+.1f}% time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
