"""Prints samples/s of HF generate against a served vLLM on the same checkpoint and task, and gui_openai's own cost per request.

    python benchmarks/bench_engines.py [--checkpoint DIR] [--task mpr_gui_synth_en] [--samples 32] [--repeats 2]

Rows: ``gui_hf`` (batch 1 and 8), lmms-eval's ``qwen2_vl`` (batch 1), and ``gui_openai`` against a
vLLM OpenAI-compatible server (the CPU build from ``scripts/setup_vllm.sh``, started here on
127.0.0.1 and stopped by its process id) with 1, 8 and 32 requests in flight. Same tiny Qwen2-VL
checkpoint with head_dim 32 (what vLLM's CPU attention serves; built offline when none is given),
same task requests, 16 new tokens each, greedy; no response cache. Runs alternate between
repeats; figures are medians. Then the client's own cost per request, without a server: encoding
the screenshot and building the body, hashing it for the cache key, and parsing a response with
a digit capture (``logprob_token_ids``), in ms.
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

from bench_backends import _requests  # noqa: E402  (the task's requests, simple layout, fixed budget)


def _rate(lm, task_dict, reqs) -> float:
    lm.task_dict = task_dict
    t0 = time.perf_counter()
    lm.generate_until(copy.copy(reqs))
    return len(reqs) / (time.perf_counter() - t0)


def _client_cost(oa, task_dict, reqs, n: int = 50) -> dict[str, float]:
    """ms per request of gui_openai's own work (no network): body with PNG encoding, cache key, response parsing."""
    from gui_models.generation_core import parse_request
    from gui_models.served_client import body_key

    req = parse_request(reqs[0].args, task_dict)
    t0 = time.perf_counter()
    for _ in range(n):
        body, sent = oa.body(req)
    encode = (time.perf_counter() - t0) / n * 1e3
    t0 = time.perf_counter()
    for _ in range(n):
        body_key(body)
    key = (time.perf_counter() - t0) / n * 1e3
    ids = sorted({i for g in oa.groups for i in g})
    step = {"token": "token_id:15", "logprob": -0.5,
            "top_logprobs": [{"token": f"token_id:{i}", "logprob": -2.0 - (i % 7) / 10} for i in ids]}
    response = {"choices": [{"message": {"content": "[0.51, 0.27]"}, "finish_reason": "stop",
                             "logprobs": {"content": [step] * 16}}], "usage": {"prompt_tokens": 100, "completion_tokens": 16}}
    t0 = time.perf_counter()
    for _ in range(n):
        oa._parse(response, body, sent, "bench")
    parse = (time.perf_counter() - t0) / n * 1e3
    return {"encode+body": encode, "cache key": key, "parse 16 steps + capture": parse}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint")
    ap.add_argument("--task", default="mpr_gui_synth_en")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="torch threads of the in-process backends")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    from lmms_eval.models import get_model

    from gui_models.hf_backend import GuiHF
    from gui_models.openai_backend import GuiOpenAI
    from gui_models.tiny_model import MAX_PIXELS, MIN_PIXELS, build_tiny_model
    from gui_models.local_server import start_vllm, vllm_python

    work = Path(tempfile.mkdtemp(prefix="bench_engines_"))
    ckpt = Path(args.checkpoint) if args.checkpoint else build_tiny_model(work / "tiny-hd32", family="qwen2_vl", head_dim=32)
    task_dict, reqs = _requests(args.task, args.samples)
    qwen = dict(pretrained=str(ckpt), device="cpu", device_map="cpu", max_pixels=MAX_PIXELS, min_pixels=MIN_PIXELS)
    backends = {"gui_hf b1": GuiHF(pretrained=str(ckpt), device="cpu", batch_size=1),
                "gui_hf b8": GuiHF(pretrained=str(ckpt), device="cpu", batch_size=8),
                "lmms-eval qwen2_vl b1": get_model("qwen2_vl")(batch_size=1, **qwen)}
    server = None
    if vllm_python() is None:
        print("vLLM virtualenv not built (bash scripts/setup_vllm.sh): gui_openai rows skipped", file=sys.stderr)
    else:
        t0 = time.perf_counter()
        server = start_vllm(ckpt, work / "vllm.log")
        print(f"vLLM server ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        for c in (1, 8, 32):
            backends[f"gui_openai -> vLLM, {c} in flight"] = GuiOpenAI(base_url=server.base_url, model=str(ckpt), concurrency=c,
                                                                        response_cache="none")
    rows: dict[str, list[float]] = {}
    try:
        for lm in backends.values():
            _rate(lm, task_dict, reqs[:2])  # warm-up
        for rep in range(args.repeats):
            order = list(backends.items())
            for name, lm in (order if rep % 2 == 0 else order[::-1]):
                rows.setdefault(name, []).append(_rate(lm, task_dict, reqs))
    finally:
        if server is not None:
            server.stop()
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{args.task}, {args.samples} samples x 16 new tokens, tiny Qwen2-VL (head_dim 32) at {ckpt}, "
          f"median of {args.repeats}, {args.threads} torch thread(s) in process, {torch.get_num_threads()} available")
    print(f"{'engine':34s} {'samples/s':>10s} {'vs gui_hf b1':>13s}")
    for name, rate in med.items():
        print(f"{name:34s} {rate:10.2f} {rate / med['gui_hf b1']:12.2f}x")
    oa = GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model=str(ckpt), capture_logits="digits", response_cache="none")
    print("gui_openai client cost per request (ms, no network): " +
          ", ".join(f"{k} {v:.2f}" for k, v in _client_cost(oa, task_dict, reqs).items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
