"""Site size and build time of ``gui-eval view`` per ``--images`` mode on a run of phone screenshots.

Writes an MPR-shaped lmms-eval run (a results file and a samples file whose ``input_media`` name 1080x2400 JPEG
screenshots of synthetic pixels, about 230 KB each; every eighth question of the RI dimension names two), under a
task name no installation has (``--no-docs``: this measures the site, not lmms-eval), then builds the site in each
mode and prints its size and build time. The figures in docs/viewer.md come from this (2,245 questions). Asserts
nothing.

    PYTHONPATH=. python benchmarks/bench_viewer_images.py [--n 2245] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASK = "bench_mpr_phone"
DIMS = ("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI")


def write_run(root: Path, n: int) -> int:
    """The run under ``root``; returns the number of screenshots written."""
    from PIL import Image, ImageDraw, ImageFilter

    rng = random.Random(0)
    model, shots = root / "bench__model", root / "images"
    model.mkdir(parents=True, exist_ok=True)
    shots.mkdir(exist_ok=True)
    texture = Image.effect_noise((1080, 2400), 22).filter(ImageFilter.GaussianBlur(1.5)).convert("RGB")
    lines, k = [], 0
    for i in range(n):
        dim = DIMS[i % len(DIMS)]
        paths = []
        for _ in range(2 if dim in ("RI", "SI") and i % 4 == 2 else 1):
            p = shots / f"shot_{k:05d}.jpg"
            k += 1
            im = texture.copy()
            draw = ImageDraw.Draw(im)
            for _ in range(30):
                x, y = rng.randrange(1000), rng.randrange(2300)
                draw.rectangle([x, y, x + rng.randrange(20, 400), y + rng.randrange(20, 200)],
                               fill=tuple(rng.randrange(256) for _ in range(3)))
            im.save(p, quality=85)
            paths.append(str(p))
        pred = "ABCD"[rng.randrange(4)]
        rec = {"id": f"q{i}", "lang": "en", "dimension": dim, "answer": "A", "pred": pred, "status": "parsed",
               "rule": "letter", "correct": pred == "A"}
        lines.append({"doc_id": i, "target": "A", "filtered_resps": [pred], "input": f"question {i}", "input_media": paths,
                      "mcq_acc": rec})
    prefix = "20260101_000000"
    (model / f"{prefix}_samples_{TASK}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    results = {"results": {TASK: {"alias": TASK, "mcq_acc,none": 0.25}},
               "configs": {TASK: {"task": TASK, "metadata": {"benchmark": "mpr_gui", "lang": "en"}}},
               "versions": {TASK: 1.0}, "n-samples": {TASK: {"original": n, "effective": n}},
               "config": {"model": "gui_openai", "model_args": "model=bench"}}
    (model / f"{prefix}_results.json").write_text(json.dumps(results), encoding="utf-8")
    return k


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2245)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    args = ap.parse_args()
    work = Path(args.out or tempfile.mkdtemp(prefix="bench_viewer_images_"))
    n_images = write_run(work / "run", args.n)
    print(f"{args.n} samples, {n_images} screenshots, {size_mb(work / 'run' / 'images'):.0f} MB in {work}")
    for mode in ("thumbs", "copy", "links"):
        site = work / f"site_{mode}"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gui_tasks.viewer.site", str(work / "run"), "--out", str(site), "--no-docs",
                        "--images", mode], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        print(f"--images {mode}: {size_mb(site):.0f} MB, {time.perf_counter() - t0:.1f} s (process included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
