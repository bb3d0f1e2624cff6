"""The model's work per backend: what ``gui_hf`` and lmms-eval's ``qwen2_5_vl`` feed the same model (issue 45).

    python benchmarks/bench_model_work.py [--checkpoint DIR] [--samples 64] [--batch-size 8] [--threads 1]

Same set-up as ``bench_backends.py`` (same checkpoint, task, pixel budget, dtype, request layouts). One pass per
backend with forward hooks on the model and its vision tower; per backend it prints the dtype and attention
implementation, every prefill's ``input_ids`` shape and the vision tower's patches and ``grid_thw`` (image tokens
are patches / 4 after the 2x2 merge), the number of decoding steps and their shapes, and the seconds inside the
vision tower, the prefills and the decoding steps. Equal shapes on both sides mean equal model work; the seconds then
differ only by the machine's load.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_backends as bb  # noqa: E402


def work(lm: Any, task_dict: Any, reqs: list) -> dict[str, Any]:
    """One ``generate_until`` pass over ``reqs`` with the model's forwards and vision calls recorded."""
    model = getattr(lm, "model", None) or lm.inner.model
    vision = bb.vision_tower(model)
    forwards: list[dict[str, Any]] = []
    visions: list[dict[str, Any]] = []

    def pre(_m: Any, _args: Any, kwargs: dict) -> None:
        ids = kwargs.get("input_ids")
        forwards.append({"t": time.perf_counter(), "ids": tuple(ids.shape) if ids is not None else None})

    def post(_m: Any, _args: Any, _kwargs: dict, _out: Any) -> None:
        forwards[-1]["s"] = time.perf_counter() - forwards[-1]["t"]

    def vpre(_m: Any, args: Any, kwargs: dict) -> None:
        grid = kwargs.get("grid_thw")
        visions.append({"t": time.perf_counter(), "patches": int(args[0].shape[0]) if args else 0,
                        "grid": [tuple(g) for g in grid.tolist()] if grid is not None else []})

    def vpost(_m: Any, _args: Any, _kwargs: dict, _out: Any) -> None:
        visions[-1]["s"] = time.perf_counter() - visions[-1]["t"]

    handles = [model.register_forward_pre_hook(pre, with_kwargs=True), model.register_forward_hook(post, with_kwargs=True)]
    if vision is not None:
        handles += [vision.register_forward_pre_hook(vpre, with_kwargs=True), vision.register_forward_hook(vpost, with_kwargs=True)]
    lm.task_dict = task_dict
    try:
        t0 = time.perf_counter()
        lm.generate_until(copy.copy(reqs))
        wall = time.perf_counter() - t0
    finally:
        for h in handles:
            h.remove()
    prefills = [f for f in forwards if f["ids"] and f["ids"][1] > 1]
    steps = [f for f in forwards if not (f["ids"] and f["ids"][1] > 1)]
    return {"dtype": str(model.dtype), "attn": model.config._attn_implementation, "wall": wall,
            "prefills": sorted(f["ids"] for f in prefills), "steps": len(steps),
            "step_shapes": sorted({f["ids"] for f in steps}, key=str),
            "images": sorted((v["patches"], len(v["grid"]), tuple(sorted(set(v["grid"])))) for v in visions),
            "vision_s": sum(v["s"] for v in visions), "prefill_s": sum(f["s"] for f in prefills),
            "step_s": sum(f["s"] for f in steps)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", help="a Qwen2.5-VL checkpoint folder (default: a tiny random one, built offline)")
    ap.add_argument("--task", default="mpr_gui_synth_en")
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    from gui_models.tiny_model import build_tiny_model

    ckpt = Path(args.checkpoint) if args.checkpoint else build_tiny_model(Path(tempfile.mkdtemp()) / "tiny", family="qwen2_5_vl")
    layouts = {k: bb._requests(args.task, args.samples, k) for k in ("simple", "chat")}
    backends = bb.build_backends(ckpt, args.batch_size, args.device, bb.lmms_budget(), "bfloat16", False)
    found = {}
    for name, lm in backends.items():
        if " old " in name:
            continue
        task_dict, reqs = layouts["simple" if getattr(lm, "is_simple", True) else "chat"]
        found[name] = w = work(lm, task_dict, reqs)
        print(f"{name}: {w['dtype']}, attention {w['attn']}, {w['wall']:.2f} s in generate_until")
        print(f"  prefill input_ids shapes (sorted): {w['prefills']}; padded prefill tokens {sum(r * n for r, n in w['prefills'])}")
        print(f"  vision calls (patches, images, grids): {w['images']}")
        print(f"  decoding steps: {w['steps']}, shapes {w['step_shapes']}")
        print(f"  seconds: vision tower {w['vision_s']:.2f}, model forwards: prefills {w['prefill_s']:.2f}, steps {w['step_s']:.2f}")
    a, b = found.values()
    same = all(a[k] == b[k] for k in ("dtype", "attn", "steps", "step_shapes", "images"))
    print("same dtype, attention, images (patches, grids) and decoding steps:", "yes" if same else "NO")
    tokens = [sum(r * n for r, n in w["prefills"]) for w in (a, b)]
    print(f"padded prefill tokens: {tokens[0]} against {tokens[1]} ({tokens[0] / tokens[1]:.3f}x; batches are composed"
          " differently: gui_hf sorts by image size, lmms-eval's chat backend by prompt text)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
