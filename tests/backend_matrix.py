"""Which lmms-eval backends run which of our task families and analyses, measured on tiny checkpoints.

``python tests/backend_matrix.py [backend ...]`` runs, per backend, one lmms-eval CLI call with one task of
each benchmark family (the multi-round one in a call of its own), then one ``gui_wrap`` call on that backend
with digit capture, ``gui_xli``, a StaR prompting intervention and cropping (plus the multi-round task), and prints a Markdown table (the one in docs/engines.md). The slow test
``tests/test_backend_matrix.py`` runs the same function for the backends that must pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

TASKS = ("mpr_gui_synth_en", "star_state_control_synth", "icon_localization_synth", "gui_knowledge_synth_en_state",
         "sphinx_sim_toggle")
CPU = "device=cpu,device_map=cpu"
QWEN_PIXELS = "max_pixels=50176,min_pixels=3136"
# backend -> (tiny architecture, the backend's own model args besides pretrained)
BACKENDS = {
    "qwen2_vl": ("qwen2_vl", f"{CPU},{QWEN_PIXELS}"),
    "qwen2_5_vl": ("qwen2_5_vl", f"{CPU},{QWEN_PIXELS}"),
    "qwen3_vl": ("qwen3_vl", CPU),
    "llava_onevision": ("llava_onevision", CPU),
    "llava_hf": ("llava_onevision", CPU),
    "internvl_hf": ("internvl", CPU),
    "huggingface": ("qwen2_5_vl", CPU),
    "gemma3": ("gemma3", CPU),
}
GEN = ["--gen_kwargs", "max_new_tokens=8"]


def _memory(root: Path) -> Path:
    import torch

    from xli_helpers import hand_memory

    torch.manual_seed(5)
    mem = hand_memory(torch.randn(4, 64), torch.randn(4, 64), ["AU", "AP", "WF", "WI"], layers=(1, 2, 3, 4))
    return mem.save(root / "xli-mem")


def _run(model: str, args: str, tasks, out: Path, env: dict) -> tuple[dict, str]:
    from gui_tasks.commands.cli import find_results, lmms_eval_command

    cmd = lmms_eval_command(args, list(tasks), out, limit=1, model=model, extra=GEN)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    files = find_results(out)
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"] if files else {}
    log = proc.stdout + proc.stderr
    errors = [line for line in log.splitlines() if "Error during evaluation" in line or "has no multi-round generation" in line
              or line.startswith(("ValueError", "TypeError", "ModuleNotFoundError"))]
    # a task ran when it was scored: a multi-round task a backend cannot run is listed with its alias only
    scored = {t: r for t, r in results.items() if any("," in k for k in r)}
    return scored, (errors[-1] if errors else log[-300:]).strip()


def _samples(out: Path, task: str) -> list[dict]:
    files = sorted(out.rglob(f"*_samples_{task}.jsonl"))
    return [json.loads(x) for x in files[-1].read_text(encoding="utf-8").splitlines() if x.strip()] if files else []


def measure(backend: str, root: Path, env: dict) -> dict:
    """``{"tasks": {task: ok}, "analyses": {name: ok}, "error": str}`` for one backend."""
    from tiny_archs import build

    arch, extra = BACKENDS[backend]
    ckpt = build(arch, root / "ckpt" / arch)
    row: dict = {"arch": arch}
    # single-turn tasks in one call, the multi-round one apart: a backend without multi-round support fails only it
    results, err = _run(backend, f"pretrained={ckpt},{extra}", TASKS[:-1], root / backend, env)
    multi, merr = _run(backend, f"pretrained={ckpt},{extra}", TASKS[-1:], root / f"{backend}-multi", env)
    results = {**results, **multi}
    row["tasks"] = {t: t in results for t in TASKS}
    row["error"] = "; ".join(e for e, ok in ((err, all(row["tasks"][t] for t in TASKS[:-1])), (merr, TASKS[-1] in multi)) if not ok)
    mem = _memory(root)
    wrap_args = (f"backend={backend},pretrained={ckpt},{extra},capture_logits=digits,interventions=gui_xli+star_state_focused+crop,"
                 f"gui_xli.memory={mem},gui_xli.layer=2,gui_xli.alpha=1.0")
    out = root / f"wrap-{backend}"
    wrap, werr = _run("gui_wrap", wrap_args, ("icon_localization_synth", "star_state_control_synth"), out, env)
    multi, merr = _run("gui_wrap", wrap_args, ("sphinx_sim_toggle",), root / f"wrap-{backend}-multi", env)
    wrap = {**wrap, **multi}
    icon = _samples(out, "icon_localization_synth")
    star = _samples(out, "star_state_control_synth")
    rec = icon[0]["pss_mean"] if icon else {}
    row["analyses"] = {
        "capture": bool(rec.get("captured")),
        "gui_xli": "icon_localization_synth" in wrap,
        "star_prompting": bool(star) and "Supplementary Notes for State Reasoning" in star[0].get("input", ""),
        "crop": "crop" in rec,
        "multi_round": "sphinx_sim_toggle" in wrap,  # gui_wrap runs the rounds itself, one request each
    }
    row["wrap_error"] = "" if all(row["analyses"].values()) else "; ".join(e for e in (werr, merr) if e)
    return row


def table(rows: dict) -> str:
    head = "| backend (tiny arch) | " + " | ".join(TASKS) + " | gui_wrap: capture | gui_xli | StaR prompt | crop | sphinx_sim_toggle |"
    lines = [head, "|" + "---|" * (len(TASKS) + 6)]
    for backend, row in rows.items():
        marks = ["yes" if row["tasks"][t] else "no" for t in TASKS] + ["yes" if v else "no" for v in row["analyses"].values()]
        lines.append(f"| `{backend}` ({row['arch']}) | " + " | ".join(marks) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    names = argv or list(BACKENDS)
    root = Path(os.environ.get("GUI_EVAL_MATRIX_DIR") or tempfile.mkdtemp(prefix="gui-matrix-"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE), os.environ.get("PYTHONPATH", "")])}
    rows = {}
    for name in names:
        rows[name] = measure(name, root, env)
        print(name, json.dumps(rows[name]), flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
