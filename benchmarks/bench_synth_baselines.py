"""Text-only baselines on the synthetic MPR-GUI world (issue 22): fitted on ``train``, scored on ``eval``, per language
and dimension. Chance is 25%; a figure far from it means the questions answer themselves without the screenshot.

    python benchmarks/bench_synth_baselines.py --per-dimension 128 --langs en,zh
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gui_tasks.mpr.schema import DIMENSIONS, LANGS  # noqa: E402
from gui_tasks.synth.baselines import BASELINES, score  # noqa: E402
from gui_tasks.mpr.synth import text_docs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-dimension", type=int, default=128)
    p.add_argument("--seed", type=int, default=0, help="seed of both sets (they differ by split)")
    p.add_argument("--fit", default="train", help="split the baselines are fitted on")
    p.add_argument("--test", default="eval", help="split they are scored on")
    p.add_argument("--langs", default=",".join(LANGS))
    p.add_argument("--benchmark", choices=("mpr", "knowledge"), default="mpr",
                   help="knowledge: the synthetic GUI Knowledge Bench (--per-dimension is per sub-task; chance differs "
                        "per question: 3 options for yes/no, 4 or 7 action types)")
    args = p.parse_args(argv)
    langs = tuple(args.langs.split(","))
    if args.benchmark == "knowledge":
        return knowledge(args, langs)
    t0 = time.perf_counter()
    fit_docs = text_docs(args.fit, args.seed, args.per_dimension, langs)
    test_docs = text_docs(args.test, args.seed, args.per_dimension, langs)
    print(f"# built {args.fit} and {args.test} ({args.per_dimension} per dimension, {len(langs)} languages) "
          f"in {time.perf_counter() - t0:.1f}s; accuracy in %, chance 25")
    cols = ("all",) + tuple(DIMENSIONS)
    print(f"{'lang':<5}{'baseline':<14}" + "".join(f"{c:>6}" for c in cols))
    worst = 0.0
    for lang in langs:
        res = score(fit_docs[lang], test_docs[lang])
        for name in BASELINES:
            print(f"{lang:<5}{name:<14}" + "".join(f"{100 * res[name][c]:6.1f}" for c in cols))
            worst = max(worst, abs(res[name]["all"] - 0.25))
    print(f"# largest overall distance from chance: {100 * worst:.1f} points")
    return 0


def knowledge(args: argparse.Namespace, langs: tuple[str, ...]) -> int:
    from gui_metrics.knowledge import SUBTASKS
    from gui_tasks.synth.baselines import chance
    from gui_tasks.knowledge.synth import text_docs as gkb_docs

    n = args.per_dimension
    t0 = time.perf_counter()
    fit_docs = gkb_docs(args.fit, args.seed, n, langs)
    test_docs = gkb_docs(args.test, args.seed, n, langs)
    cols = ("all",) + tuple(SUBTASKS)
    print(f"# GUI Knowledge Bench synthetic: built {args.fit} and {args.test} ({n} per sub-task, {len(langs)} languages) "
          f"in {time.perf_counter() - t0:.1f}s; fitted on {args.fit}, scored on {args.test}; accuracy in %")
    print(f"{'lang':<5}{'baseline':<14}" + "".join(f"{c[:9]:>10}" for c in cols))
    worst = 0.0
    for lang in langs:
        expect = chance(test_docs[lang])
        print(f"{lang:<5}{'chance':<14}" + "".join(f"{100 * expect[c]:10.1f}" for c in cols))
        res = score(fit_docs[lang], test_docs[lang])
        for name in BASELINES:
            print(f"{lang:<5}{name:<14}" + "".join(f"{100 * res[name].get(c, float('nan')):10.1f}" for c in cols))
            worst = max(worst, abs(res[name]["all"] - expect["all"]))
    print(f"# largest overall distance from chance: {100 * worst:.1f} points")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
