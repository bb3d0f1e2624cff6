"""Times ``gui_hf`` against lmms-eval's own ``qwen2_5_vl`` on one checkpoint, task and pixel budget, in one run.

    python benchmarks/bench_backends.py [--checkpoint DIR] [--task mpr_gui_synth_en] [--samples 64]
        [--batch-sizes 8] [--repeats 3] [--threads 1] [--device cpu|cuda] [--wrap] [--json OUT]

Every backend is loaded once in this process and answers the same documents of the task (16 new tokens, greedy),
each in the request layout the lmms-eval CLI would give it (``gui_hf`` the simple one, lmms-eval's chat
``qwen2_5_vl`` the chat one), at lmms-eval's Qwen2.5-VL pixel budget (the ``min_pixels`` / ``max_pixels``
defaults of its ``qwen2_5_vl`` class, read from it: 256*28*28 and 1605632) and in lmms-eval's dtype (bfloat16,
which its ``qwen2_5_vl`` always loads; ``--gui-hf-dtype`` changes ours). Repeats alternate the order so machine
load hits every backend alike; figures are medians over repeats. Rows:

- ``gui_hf``: default settings (sorting windows of 8 batches; one batch prepared ahead on a GPU, none on the CPU;
  ``gui_models.hf_pipeline``);
- ``gui_hf old``: ``bucket=1,prefetch=0``: request order, each batch prepared when needed (the path before issue 45);
- ``qwen2_5_vl``: lmms-eval's backend; with ``--wrap`` also ``gui_wrap(qwen2_5_vl)``.

Per row: documents/s, generation seconds (``generate_until``), model seconds per document (the model's forward and
its vision tower, timed with forward hooks, with CUDA events on a GPU), host seconds per document (the rest:
everything outside the model's forward on the critical path), generated tokens per document (the backends
preprocess images differently, so a random model may stop at other lengths) and, on a GPU, the mean and peak
utilisation sampled every 0.2 s (pynvml when installed, else ``nvidia-smi``) and the peak memory.

Without ``--checkpoint`` a tiny random Qwen2.5-VL is built offline (``gui-eval make-tiny-model --family qwen2_5_vl``).
For a model of real size on a GPU see ``/work/shared/gpu/README.md``'s recipe (a random-weight checkpoint built from
Qwen2.5-VL-7B's config).
"""

from __future__ import annotations

import argparse
import copy
import inspect
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NEW_TOKENS = 16
GEN = {"max_new_tokens": NEW_TOKENS, "temperature": 0, "do_sample": False}


def _requests(task_name: str, n: int, layout: str = "simple"):
    """The task's first ``n`` requests in ``layout`` (lmms-eval's ``task_type``), 16 greedy new tokens each."""
    from lmms_eval.api.instance import Instance
    from lmms_eval.tasks import TaskManager

    from gui_tasks.harness.lmms_integration import attach

    attach()
    task = TaskManager("WARNING").load_task_or_group([task_name], layout)[task_name]
    task.build_all_requests(limit=n, rank=0, world_size=1)
    at = 2 if layout == "chat" else 1  # where gen_kwargs sit in the request's arguments
    reqs = []
    for inst in task.instances:
        args = list(inst.args)
        args[at] = dict(GEN)
        reqs.append(Instance("generate_until", tuple(args), 0, inst.metadata))
    return {task_name: task.dataset}, reqs


def lmms_budget() -> tuple[int, int]:
    """(min_pixels, max_pixels): the defaults of lmms-eval's ``qwen2_5_vl`` class, read from its signature."""
    from lmms_eval.models.simple.qwen2_5_vl import Qwen2_5_VL

    params = inspect.signature(Qwen2_5_VL.__init__).parameters
    return int(params["min_pixels"].default), int(params["max_pixels"].default)


def vision_tower(model: Any) -> Any:
    """The model's vision encoder module (Qwen-family ``visual``), or None."""
    for holder in (model, getattr(model, "model", None)):
        for name in ("visual", "vision_tower", "vision_model"):
            found = getattr(holder, name, None) if holder is not None else None
            if found is not None:
                return found
    return None


class ModelClock:
    """Seconds spent inside the model (its forward and its vision tower, outermost calls only) while active."""

    def __init__(self, model: Any) -> None:
        import torch

        self.cuda = next(model.parameters()).device.type == "cuda"
        self.modules = [m for m in (model, vision_tower(model)) if m is not None]
        self.depth = 0
        self.cpu_s = 0.0
        self.events: list[tuple[Any, Any]] = []
        self._start: Any = None
        self._torch = torch

    def _pre(self, *_a: Any, **_k: Any) -> None:
        self.depth += 1
        if self.depth == 1:
            if self.cuda:
                self._start = self._torch.cuda.Event(enable_timing=True)
                self._start.record()
            else:
                self._start = time.perf_counter()

    def _post(self, *_a: Any, **_k: Any) -> None:
        self.depth -= 1
        if self.depth == 0:
            if self.cuda:
                end = self._torch.cuda.Event(enable_timing=True)
                end.record()
                self.events.append((self._start, end))
            else:
                self.cpu_s += time.perf_counter() - self._start

    @contextmanager
    def running(self) -> Iterator["ModelClock"]:
        handles = []
        for m in self.modules:
            handles.append(m.register_forward_pre_hook(self._pre))
            handles.append(m.register_forward_hook(self._post))
        try:
            yield self
        finally:
            for h in handles:
                h.remove()

    def seconds(self) -> float:
        if self.cuda:
            self._torch.cuda.synchronize()
            return sum(a.elapsed_time(b) for a, b in self.events) / 1000.0
        return self.cpu_s


class GpuSampler:
    """Utilisation (%) and memory (MiB) of GPU 0 every ``period_s`` while active (pynvml, else nvidia-smi)."""

    def __init__(self, period_s: float = 0.2) -> None:
        self.period_s = period_s
        self.util: list[float] = []
        self.mem: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._read = self._reader()

    def _reader(self):
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)

            def read() -> tuple[float, float]:
                rates = pynvml.nvmlDeviceGetUtilizationRates(handle)
                return float(rates.gpu), pynvml.nvmlDeviceGetMemoryInfo(handle).used / 2**20

            return read
        except Exception:  # noqa: BLE001 - no pynvml: nvidia-smi, or nothing
            if not shutil.which("nvidia-smi"):
                return None

            def read() -> tuple[float, float]:
                out = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits",
                                      "-i", "0"], capture_output=True, text=True, timeout=10).stdout.strip().split(",")
                return float(out[0]), float(out[1])

            return read

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                u, m = self._read()
                self.util.append(u)
                self.mem.append(m)
            except Exception:  # noqa: BLE001 - a missed sample
                pass
            self._stop.wait(self.period_s)

    @contextmanager
    def running(self) -> Iterator["GpuSampler"]:
        if self._read is None:
            yield self
            return
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(5)


def _time(lm, task_dict, reqs, gpu: bool) -> dict[str, float]:
    """One pass over ``reqs``: wall and model seconds, tokens per document, GPU utilisation."""
    import torch

    lm.task_dict = task_dict
    model = getattr(lm, "model", None) or lm.inner.model
    tok = getattr(lm, "tokenizer", None) or lm.inner.tokenizer
    clock = ModelClock(model)
    sampler = GpuSampler()
    if gpu:
        torch.cuda.synchronize()
    with clock.running(), sampler.running():
        t0 = time.perf_counter()
        outs = lm.generate_until(copy.copy(reqs))
        if gpu:
            torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    texts = [o.text if hasattr(o, "text") else str(o) for o in outs]
    inside = clock.seconds()
    n = len(reqs)
    row = {"docs_per_s": n / wall, "seconds": wall, "model_s_per_doc": inside / n, "host_s_per_doc": (wall - inside) / n,
           "tokens_per_doc": statistics.mean(len(tok(t)["input_ids"]) for t in texts)}
    if sampler.util:
        row.update(gpu_util_mean=statistics.mean(sampler.util), gpu_util_peak=max(sampler.util), gpu_mem_peak_mib=max(sampler.mem))
    return row


def build_backends(ckpt: Path, bs: int, device: str, budget: tuple[int, int], hf_dtype: str, wrap: bool) -> dict[str, Any]:
    from lmms_eval.models import get_model

    from gui_models.hf_backend import GuiHF

    lo, hi = budget
    hf = dict(pretrained=str(ckpt), device=device, batch_size=bs, dtype=hf_dtype, min_pixels=lo, max_pixels=hi)
    lmms = dict(pretrained=str(ckpt), device=device, device_map=device, min_pixels=lo, max_pixels=hi)
    backends = {f"gui_hf b{bs}": GuiHF(**hf), f"gui_hf old b{bs}": GuiHF(**hf, bucket=1, prefetch=0),
                f"qwen2_5_vl b{bs}": get_model("qwen2_5_vl")(batch_size=bs, **lmms)}
    if wrap:
        from gui_models.wrap_backend import GuiWrap

        backends[f"gui_wrap(qwen2_5_vl) b{bs}"] = GuiWrap(backend="qwen2_5_vl", batch_size=bs, **lmms)
    return backends


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", help="a Qwen2.5-VL checkpoint folder (default: a tiny random one, built offline)")
    ap.add_argument("--task", default="mpr_gui_synth_en")
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--batch-sizes", default="8", help="comma-separated, e.g. 1,8")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: steadier on a shared machine)")
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    ap.add_argument("--gui-hf-dtype", default="bfloat16", help="gui_hf's dtype (lmms-eval's qwen2_5_vl loads bfloat16)")
    ap.add_argument("--wrap", action="store_true", help="also time gui_wrap(qwen2_5_vl)")
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    gpu = device.startswith("cuda")
    from gui_models.tiny_model import build_tiny_model

    ckpt = Path(args.checkpoint) if args.checkpoint else build_tiny_model(Path(tempfile.mkdtemp()) / "tiny", family="qwen2_5_vl")
    budget = lmms_budget()
    layouts = {"simple": _requests(args.task, args.samples, "simple"), "chat": _requests(args.task, args.samples, "chat")}
    rows: dict[str, list[dict[str, float]]] = {}
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    for bs in sizes:
        backends = build_backends(ckpt, bs, device, budget, args.gui_hf_dtype, args.wrap)
        for lm in backends.values():  # warm-up, one batch
            task_dict, reqs = layouts["simple" if getattr(lm, "is_simple", True) else "chat"]
            _time(lm, task_dict, reqs[:bs], gpu)
        for rep in range(args.repeats):
            order = list(backends.items())
            for name, lm in (order if rep % 2 == 0 else order[::-1]):  # alternate: no backend always runs first
                task_dict, reqs = layouts["simple" if getattr(lm, "is_simple", True) else "chat"]
                rows.setdefault(name, []).append(_time(lm, task_dict, reqs, gpu))
        del backends
    med = {name: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for name, runs in rows.items()}
    where = torch.cuda.get_device_name(0) if gpu else f"cpu, {args.threads} torch thread(s)"
    print(f"{args.task}, {args.samples} documents x {NEW_TOKENS} new tokens, {ckpt}, pixel budget {budget[0]}..{budget[1]}, "
          f"gui_hf dtype {args.gui_hf_dtype}, {where}, median of {args.repeats}")
    head = f"{'backend':28s} {'docs/s':>8s} {'seconds':>8s} {'model s/doc':>12s} {'host s/doc':>11s} {'tokens/doc':>11s}"
    print(head + ("  GPU util mean/peak  peak MiB" if gpu else ""))
    for name, m in med.items():
        line = (f"{name:28s} {m['docs_per_s']:8.2f} {m['seconds']:8.2f} {m['model_s_per_doc']:12.4f} "
                f"{m['host_s_per_doc']:11.4f} {m['tokens_per_doc']:11.1f}")
        if "gpu_util_mean" in m:
            line += f"  {m['gpu_util_mean']:8.1f}% / {m['gpu_util_peak']:5.1f}%  {m['gpu_mem_peak_mib']:8.0f}"
        print(line)
    for bs in sizes:
        hf, old, q = med[f"gui_hf b{bs}"], med[f"gui_hf old b{bs}"], med[f"qwen2_5_vl b{bs}"]
        print(f"batch {bs}: gui_hf takes {hf['seconds'] / q['seconds']:.2f}x the time of qwen2_5_vl "
              f"({q['seconds'] / hf['seconds']:.2f}x its documents/s); gui_hf old {old['seconds'] / q['seconds']:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"task": args.task, "samples": args.samples, "device": where,
                                               "budget": budget, "medians": med, "runs": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
