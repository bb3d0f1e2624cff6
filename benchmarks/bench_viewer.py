"""How long ``gui-eval view`` takes on a run of 20,000 samples, and how fast its index opens and filters.

Writes a synthetic lmms-eval run (a results file and a samples file of grounding records on one icon board,
under a task name no installation has, so no documents are rebuilt: this measures the site, not lmms-eval),
builds the site, then opens ``index.html`` from ``file://`` in headless Chromium and times the first
rendered page and a filter (outcome) plus a free-text search. Prints the figures; asserts nothing.

    PYTHONPATH=. python benchmarks/bench_viewer.py [--n 20000] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TASK = "bench_grounding_synthetic"


def write_run(root: Path, n: int, image: str | None) -> Path:
    """A results file and ``n`` logged samples in lmms-eval 0.7.3's layout; outcomes drawn at random (seed 0)."""
    rng = random.Random(0)
    run = root / "bench__model"
    run.mkdir(parents=True, exist_ok=True)
    prefix = "20260101_000000"
    types = ["correct", "biased", "misleading", "confusion", "invalid"]
    with open(run / f"{prefix}_samples_{TASK}.jsonl", "w", encoding="utf-8") as fh:
        for i in range(n):
            rtype = rng.choice(types)
            x, y = rng.random(), rng.random()
            rec = {"id": f"bench-{i:05d}", "split": rng.choice(["common", "uncommon"]), "source": "synthetic",
                   "status": "malformed" if rtype == "invalid" else "parsed", "detail": "point",
                   "point": None if rtype == "invalid" else [x, y], "correct": rtype == "correct", "response_type": rtype,
                   "frame": "relative", "captured": False}
            fh.write(json.dumps({"doc_id": i, "target": "[1, 2, 3, 4]", "filtered_resps": f"[{x:.3f}, {y:.3f}]",
                                 "input": f"Where is icon number {i}?", "input_media": [image] if image else [],
                                 "grounding_acc": rec}) + "\n")
    results = {"results": {TASK: {"alias": TASK, "grounding_acc,none": 0.2}},
               "configs": {TASK: {"task": TASK, "metadata": {"benchmark": "icon_localization", "prompt_protocol": "bench"}}},
               "versions": {TASK: 1.0}, "n-samples": {TASK: {"original": n, "effective": n}},
               "config": {"model": "gui_hf", "model_args": "pretrained=bench/model"}, "model_name": "bench/model"}
    (run / f"{prefix}_results.json").write_text(json.dumps(results), encoding="utf-8")
    return root


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    args = ap.parse_args()
    work = Path(args.out or tempfile.mkdtemp(prefix="bench_viewer_"))
    from gui_tasks.synth.icon_board import load_or_build

    boards = load_or_build(seed=0, n=4)
    image = json.loads(Path(boards).read_text(encoding="utf-8").splitlines()[0])["image"]
    write_run(work / "run", args.n, image)
    from gui_tasks.viewer.site import build_site

    t0 = time.perf_counter()
    build_site([work / "run"], work / "site")
    build_s = time.perf_counter() - t0
    print(f"site for {args.n} samples written in {build_s:.1f} s ({work / 'site'})")

    from browser import browser, missing

    why = missing()
    if why:
        print(f"browser timings skipped: {why}")
        return 0
    from selenium.webdriver.support.ui import Select

    with browser() as d:
        t0 = time.perf_counter()
        d.get((work / "site" / "index.html").as_uri())
        d.execute_script("return document.body.getAttribute('data-ready')")
        open_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        Select(d.find_element("id", "f-outcome")).select_by_visible_text("wrong")
        count = d.find_element("id", "count").text
        filter_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        d.find_element("id", "f-text").send_keys("12345")
        text_count = d.find_element("id", "count").text
        text_s = time.perf_counter() - t0
    print(f"index opened (first page rendered) in {open_s:.2f} s")
    print(f"outcome filter 'wrong' in {filter_s:.3f} s -> {count}")
    print(f"free text '12345' (5 keystrokes, one filter each) in {text_s:.3f} s -> {text_count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
