"""``gui-eval xli build|search|tsne|report``: GUI-XLI memories, the (l, alpha) search, the t-SNE plot, with/without tables."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from gui_core.help_text import plain
from gui_interventions.xli_memory import BASIC_DIMENSIONS, memory_root
from gui_tasks.synth.splits import SPLITS


def _ints(text: str | None) -> list[int] | None:
    """``"11-18"`` or ``"2,4,7"`` -> list of ints."""
    if not text:
        return None
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def _floats(text: str | None) -> list[float] | None:
    return [float(x) for x in text.split(",")] if text else None


def load_lm(args: argparse.Namespace) -> Any:
    """The gui_hf backend on the given checkpoint, without interventions."""
    from gui_models.hf_backend import GuiHF

    kwargs: dict[str, Any] = {"device": args.device, "batch_size": args.batch_size, "dtype": args.dtype}
    if getattr(args, "trust_remote_code", False):
        kwargs["trust_remote_code"] = True
    return GuiHF(pretrained=str(args.checkpoint), **kwargs)


def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--checkpoint", required=True, help="model folder or hub id (loaded with the gui_hf backend)")
    p.add_argument("--device", default=None)
    p.add_argument("--dtype", default="auto")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--trust-remote-code", action="store_true")


def _data_args(p: argparse.ArgumentParser, split: str, per_dimension: int) -> None:
    p.add_argument("--split", choices=[s for s in SPLITS if s != "eval"], default=split,
                   help=f"synthetic content split (default {split}; eval is what the synthetic tasks evaluate)")
    p.add_argument("--seed", type=int, default=0, help="synthetic set seed (seeds vary the draw within a split)")
    p.add_argument("--per-dimension", type=int, default=per_dimension, help="synthetic questions per dimension")
    p.add_argument("--data-dir", default=None, help="folder of canonical <lang>.jsonl files instead of the synthetic set")
    p.add_argument("--eval-seed", type=int, default=None, help="synthetic evaluation set to stay disjoint from (default 0)")
    p.add_argument("--eval-per-dimension", type=int, default=None)


def _specs(args: argparse.Namespace):
    from gui_tasks.mpr.xli.data import EVAL_PER_DIMENSION, EVAL_SEED, DataSpec

    eval_seed = EVAL_SEED if args.eval_seed is None else args.eval_seed
    eval_n = EVAL_PER_DIMENSION if args.eval_per_dimension is None else args.eval_per_dimension
    return (DataSpec(seed=args.seed, per_dimension=args.per_dimension, folder=args.data_dir, split=args.split),
            DataSpec(seed=eval_seed, per_dimension=eval_n, split="eval"))


def _build(args: argparse.Namespace) -> int:
    from gui_tasks.mpr.xli.build import build_memory

    spec, exclude = _specs(args)
    out = Path(args.out) if args.out else memory_root() / (args.name or f"{Path(str(args.checkpoint)).name}-{args.lang}")
    lm = load_lm(args)
    defaults = {k: v for k, v in (("layer", args.layer), ("alpha", args.alpha), ("k", args.k)) if v is not None}
    memory, report = build_memory(
        lm, spec, args.lang, layers=_ints(args.layers), memory_size=args.memory_size,
        dimensions=tuple(args.dimensions.split(",")), require_correctness=args.require_correctness,
        key_protocol=args.key_protocol, max_new_tokens=args.max_new_tokens, exclude=exclude, defaults=defaults,
        model_name=str(args.checkpoint), log=lambda s: print(f"[xli build] {s}", flush=True))
    for line in report.lines():
        print(f"[xli build] {line}")
    if memory is None:
        rule = "right in English and wrong in " + args.lang if args.require_correctness else "any"
        print(f"[xli build] no pair qualified ({rule}); no memory written", file=sys.stderr)
        return 1
    memory.save(out)
    print(f"[xli build] wrote {out} ({len(memory.entries)} entries, layers {memory.layers[0]}..{memory.layers[-1]})")
    return 0


def _search(args: argparse.Namespace) -> int:
    from gui_tasks.mpr.xli.search import run_search, write_outputs

    spec, _ = _specs(args)
    lm = load_lm(args)
    result = run_search(lm, spec, args.lang, args.memory, layers=_ints(args.layers) or list(range(11, 19)),
                        alphas=_floats(args.alphas), stage1_alpha=args.stage1_alpha, k=args.k, full_grid=args.full_grid,
                        dimensions=tuple(args.dimensions.split(",")) if args.dimensions else None,
                        max_new_tokens=args.max_new_tokens, protocol=args.protocol,
                        log=lambda s: print(f"[xli search] {s}", flush=True))
    paths = write_outputs(result, Path(args.out))
    print(result.render_text(), end="")
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _tsne(args: argparse.Namespace) -> int:
    from gui_tasks.mpr.xli.plots import collect_states, draw_states

    spec, _ = _specs(args)
    lm = load_lm(args)
    states = collect_states(lm, spec, args.memory, layer=args.layer, alpha=args.alpha, k=args.k,
                            dimensions=tuple(args.dimensions.split(",")) if args.dimensions else None)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = draw_states(states, out / "tsne.png", method=args.method, seed=args.plot_seed)
    (out / "tsne.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for lang, s in summary["alignment"].items():
        print(f"{lang}: mean cosine to the English counterpart {s['before']:.4f} before, {s['after']:.4f} after steering")
    print(f"wrote {out / 'tsne.png'} ({summary['method']}), {out / 'tsne.json'}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from gui_tasks.mpr.xli.report import main

    return main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gui-eval xli", description=plain(__doc__))
    sub = p.add_subparsers(dest="xli_command", required=True)

    s = sub.add_parser("build", help="build a GUI-XL-Memory from parallel en/target data (seed 4.2-4.3, B.1)")
    _model_args(s)
    s.add_argument("--lang", required=True, help="target language (zh, fr, ru, ja, th)")
    _data_args(s, split="memory", per_dimension=20)
    s.add_argument("--name", default=None, help=f"save under this name in {memory_root()}")
    s.add_argument("--out", default=None, help="save into this folder instead")
    s.add_argument("--layers", default=None, help="layers to store, e.g. 11-18 (default: all)")
    s.add_argument("--memory-size", type=int, default=10, help="entries per dimension (paper: 10)")
    s.add_argument("--dimensions", default=",".join(BASIC_DIMENSIONS))
    s.add_argument("--max-new-tokens", type=int, default=256, help="length of the reasoning chains")
    s.add_argument("--key-protocol", default="mpr-direct-v1", help="prompt of the keys h(Q_tgt, I_tgt): the evaluation's prompt")
    s.add_argument("--require-correctness", action=argparse.BooleanOptionalAction, default=True,
                   help="keep only pairs right in English and wrong in the target language (paper); "
                        "--no-require-correctness keeps every pair (smoke tests on random checkpoints)")
    s.add_argument("--layer", type=int, default=None, help="default layer recorded with the memory")
    s.add_argument("--alpha", type=float, default=None, help="default strength recorded with the memory")
    s.add_argument("--k", type=int, default=None, help="default top-k recorded with the memory")
    s.set_defaults(func=_build)

    s = sub.add_parser("search", help="two-stage (layer, alpha) search on a validation split (seed 6.2, Figure 5)")
    _model_args(s)
    s.add_argument("--lang", required=True)
    s.add_argument("--memory", required=True, help="memory name or folder")
    _data_args(s, split="search", per_dimension=4)
    s.add_argument("--layers", default="11-18", help="stage-1 layers (paper: 11-18)")
    s.add_argument("--stage1-alpha", type=float, default=0.1, help="alpha fixed in stage 1 (paper: 0.1)")
    s.add_argument("--alphas", default=None, help="stage-2 strengths (default 0.02,0.04,...,0.16)")
    s.add_argument("--k", type=int, default=3)
    s.add_argument("--full-grid", action="store_true", help="evaluate every (layer, alpha) pair for a full landscape")
    s.add_argument("--dimensions", default=None, help="validation dimensions (default: all eight)")
    s.add_argument("--protocol", default="mpr-direct-v1")
    s.add_argument("--max-new-tokens", type=int, default=16)
    s.add_argument("--out", required=True)
    s.set_defaults(func=_search)

    s = sub.add_parser("tsne", help="t-SNE/PCA of last-token states before and after steering (seed 6.1, Figure 4)")
    _model_args(s)
    s.add_argument("--memory", required=True, action="append", help="one per target language (repeat)")
    _data_args(s, split="search", per_dimension=4)
    s.add_argument("--layer", type=int, required=True)
    s.add_argument("--alpha", type=float, required=True)
    s.add_argument("--k", type=int, default=3)
    s.add_argument("--dimensions", default=None)
    s.add_argument("--method", choices=("tsne", "pca"), default="tsne", help="tsne falls back to pca without scikit-learn")
    s.add_argument("--plot-seed", type=int, default=0)
    s.add_argument("--out", required=True)
    s.set_defaults(func=_tsne)

    s = sub.add_parser("report", help="with/without GUI-XLI tables (Table 4 / Table 6 layout) from lmms-eval results")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_report)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["report"]:  # the report command parses its own arguments (and --help)
        from gui_tasks.mpr.xli.report import main as report_main

        return report_main(argv[1:])
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)
