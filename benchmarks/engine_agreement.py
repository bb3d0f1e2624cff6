"""Which task families each engine path runs, and whether its answers and scores equal gui_hf's (the engine table of docs/engines.md).

    python benchmarks/engine_agreement.py [--limit 3] [--out DIR]

One tiny Qwen2-VL checkpoint with head_dim 32 (grounding-taught, so grounding answers parse), one
vLLM server (scripts/setup_vllm.sh's CPU build, 127.0.0.1, stopped by its process id). Paths:
``gui_hf`` (the reference), ``gui_openai`` -> vLLM, lmms-eval's ``openai`` -> vLLM (chat, no key:
``OPENAI_API_KEY=EMPTY`` given), lmms-eval's in-process ``vllm``, and ``gui_wrap`` around it. Per
task: "ran" (results written), answers equal to gui_hf's (filtered responses, per document) and the
task's main score. Each path runs all five tasks in one lmms-eval call, as a user would.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TASKS = {"mpr_gui_synth_en": "mcq_acc", "icon_localization_synth": "grounding_acc",
         "star_state_control_synth": "star_o_amr", "gui_knowledge_synth_en_state": "gkb_acc",
         "sphinx_sim_toggle": "sphinx_sr"}


def _run(lmms: str, model: str, args: str, out: Path, limit: int, env: dict, tasks=tuple(TASKS)) -> tuple[dict, dict, float]:
    t0 = time.perf_counter()
    proc = subprocess.run([lmms, "--model", model, "--model_args", args, "--tasks", ",".join(tasks), "--limit", str(limit),
                           "--output_path", str(out), "--log_samples"], env=env, capture_output=True, text=True, timeout=1800)
    dt = time.perf_counter() - t0
    (out / "log.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "log.txt").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    found = sorted(out.rglob("*_results.json"))
    res = json.loads(found[-1].read_text()) if found else {"results": {}}
    answers = {}
    for task in TASKS:
        files = sorted(out.rglob(f"*_samples_{task}.jsonl"))
        if files:
            rows = [json.loads(x) for x in files[-1].read_text().splitlines() if x.strip()]
            answers[task] = {int(r["doc_id"]): r.get("filtered_resps") for r in rows}
    return res["results"], answers, dt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    from gui_models.tiny_grounding import build_tiny_grounding_model
    from gui_models.local_server import start_vllm, vllm_python

    python = vllm_python()
    if python is None:
        print("the vLLM virtualenv is not built: bash scripts/setup_vllm.sh", file=sys.stderr)
        return 2
    work = Path(args.out or tempfile.mkdtemp(prefix="engine_agreement_"))
    ckpt = work / "tiny-grounding-hd32"
    if not (ckpt / "gui_eval_tiny_grounding.json").is_file():
        build_tiny_grounding_model(ckpt, steps=120, seed=0, head_dim=32)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "VLLM_CPU_KVCACHE_SPACE": "2", "VLLM_NO_USAGE_STATS": "1", "PYTHONPATH": str(REPO)}
    main_lmms = str(Path(sys.executable).with_name("lmms-eval"))
    vllm_lmms = str(python.with_name("lmms-eval"))
    inproc = f"model={ckpt},dtype=float32,max_model_len=4096,gpu_memory_utilization=0.5"
    server = start_vllm(ckpt, work / "vllm.log")
    try:
        paths = {
            "gui_hf": (main_lmms, "gui_hf", f"pretrained={ckpt}"),
            "gui_openai -> vLLM": (main_lmms, "gui_openai", f"base_url={server.base_url},model={ckpt},response_cache=none"),
            "openai (lmms-eval) -> vLLM": (main_lmms, "openai", f"model={ckpt},base_url={server.base_url},api_key=EMPTY"),
        }
        runs = {name: _run(lm, model, a, work / name.split()[0].replace("(", ""), args.limit, env)
                for name, (lm, model, a) in paths.items()}
        # lmms-eval's openai raises NotImplementedError on the multi-round task and the whole run has no
        # results: the four single-turn families on their own
        single = [t for t in TASKS if t != "sphinx_sim_toggle"]
        runs["openai (lmms-eval) -> vLLM, single-turn tasks only"] = _run(main_lmms, "openai", paths["openai (lmms-eval) -> vLLM"][2],
                                                                         work / "openai_single", args.limit, env, single)
    finally:
        server.stop()
    runs["vllm (lmms-eval, in process)"] = _run(vllm_lmms, "vllm", inproc, work / "vllm_inproc", args.limit, env)
    runs["gui_wrap(vllm)"] = _run(vllm_lmms, "gui_wrap", "backend=vllm," + inproc, work / "gui_wrap_vllm", args.limit, env)
    ref = runs["gui_hf"][1]
    print(f"tiny grounding-taught Qwen2-VL (head_dim 32), --limit {args.limit}, outputs under {work}")
    print("| path | " + " | ".join(TASKS) + " | wall s |")
    print("|---|" + "---|" * (len(TASKS) + 1))
    for name, (results, answers, dt) in runs.items():
        cells = []
        for task, metric in TASKS.items():
            if task not in results:
                cells.append("no result")
                continue
            score = next((v for k, v in results[task].items() if k.split(",")[0] == metric), None)
            same = answers.get(task) == ref.get(task)
            cells.append(f"ran, {metric}={score if score is None else round(float(score), 3)}, "
                         f"answers {'=' if same else '!='} gui_hf")
        print(f"| {name} | " + " | ".join(cells) + f" | {dt:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
