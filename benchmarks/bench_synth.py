"""Synthetic GUI world throughput: screens rendered per second, and time to build the default set.

Run: python benchmarks/bench_synth.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gui_tasks.mpr.schema import LANGS  # noqa: E402
from gui_tasks.mpr.synth import build_mpr_synth, build_questions  # noqa: E402
from gui_tasks.synth.questions import random_screen  # noqa: E402
from gui_tasks.synth.render import render  # noqa: E402


def screens_per_second(seconds: float) -> tuple[float, float]:
    """(screens laid out and rendered per second, of which PNG-encoded per second) over ``seconds``."""
    rng = random.Random(0)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        render(random_screen(rng), LANGS[n % len(LANGS)])
        n += 1
    raw = n / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        m, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            render(random_screen(rng), LANGS[m % len(LANGS)]).save(os.path.join(tmp, "x.png"), compress_level=1)
            m += 1
        encoded = m / (time.perf_counter() - start)
    return raw, encoded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="duration of each throughput measurement")
    ap.add_argument("--per-dimension", type=int, default=8)
    args = ap.parse_args()
    render(random_screen(random.Random(1)), "en")  # load fonts once, outside the timings
    raw, encoded = screens_per_second(args.seconds)
    print(f"render only:        {raw:8.1f} screens/s (360x720, six languages in turn)")
    print(f"render + PNG write: {encoded:8.1f} screens/s")
    start = time.perf_counter()
    qs = build_questions(0, args.per_dimension)
    print(f"questions only:     {time.perf_counter() - start:8.3f} s for {len(qs)} language-independent questions")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        files = build_mpr_synth(Path(tmp), seed=0, per_dimension=args.per_dimension)
        took = time.perf_counter() - start
        pngs = sum(1 for _ in Path(tmp).rglob("*.png"))
        size = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    print(f"default set:        {took:8.2f} s (seed 0, {args.per_dimension}/dimension, {len(files)} languages, "
          f"{pngs} PNGs, {size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
