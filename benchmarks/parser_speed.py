"""Worst time per parser of model output on adversarial texts (gui_tasks.commands.parser_inventory).

    PYTHONPATH=. python benchmarks/parser_speed.py [--chars 20000] [--repeat 3]

Target (issue 21): under 5 ms per parser and text at 20k characters (best of ``--repeat``); linear growth with the length.
"""

from __future__ import annotations

import argparse
import time

from gui_tasks.commands.parser_inventory import PARSERS, adversarial_inputs, clear_caches


def worst_times(chars: int, repeat: int = 1) -> dict[str, tuple[float, str]]:
    """Parser name -> (worst seconds over the adversarial texts, the text that took it)."""
    texts = adversarial_inputs(chars)
    out: dict[str, tuple[float, str]] = {}
    for name, fn in PARSERS.items():
        fn("warm up")  # imports and regex compilation are not reading time
        worst = (0.0, "")
        for label, text in texts.items():
            best = float("inf")
            for _ in range(repeat):
                clear_caches()  # each time a first reading of the text
                t0 = time.perf_counter()
                fn(text)
                best = min(best, time.perf_counter() - t0)
            worst = max(worst, (best, label))
        out[name] = worst
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--chars", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = worst_times(args.chars, args.repeat)
    print(f"{'parser':40s} {'worst ms':>9s}  text ({args.chars} chars)")
    for name, (sec, label) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        print(f"{name:40s} {sec * 1000:9.2f}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
