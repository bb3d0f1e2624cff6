"""Cost of the statistics: the intervals added at the end of a run, and ``gui-eval compare`` (docs/statistics.md).

Prints seconds for (1) every metric's cluster-bootstrap interval of one MPR-GUI language at the release's size
(2,245 questions, three per screenshot), (2) every step metric of an own-history StaR run (500 episodes of 1-8 steps,
items are episodes) and (3) ``compare_tasks`` of two such MPR-GUI runs. Records are made up; only the sizes matter.

Run: python benchmarks/bench_intervals.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gui_metrics.lmms_bridge import sample_values  # noqa: E402
from gui_metrics.manager import all_metrics  # noqa: E402
from gui_tasks.reports.compare import TaskSamples, compare_tasks  # noqa: E402
from gui_tasks.harness.lmms_stats import interval  # noqa: E402

DIMS = ("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI")


def mpr_samples(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec = {"id": str(i), "lang": "en", "dimension": DIMS[i % 8], "answer": "A", "pred": rng.choice("AB"),
               "status": "parsed", "rule": "bare"}
        rec["correct"] = rec["pred"] == "A"
        values = sample_values(("mcq", "mpr"), rec)
        for v in values.values():
            v["screenshot"] = f"en/{i // 3}.png"
        out.append({"doc_id": i, **values})
    return out


def star_episodes(n: int) -> list[dict]:
    rng = random.Random(1)
    out = []
    for e in range(n):
        steps = [{"category": rng.choice(("CLICK", "TYPE", "SCROLL", "COMPLETE")), "type_match": rng.random() < 0.7,
                  "exact": rng.random() < 0.5, "status": "parsed", "judge": "star", "judge_type": "CLICK",
                  "episode_id": f"e{e}", "dataset": "d"} for _ in range(rng.randint(1, 8))]
        values = sample_values(("step",), {"id": f"e{e}", "episode_id": f"e{e}", "dataset": "d", "steps": steps})
        for v in values.values():
            v["episode"] = f"d/e{e}"
        out.append(values)
    return out


def timed(label: str, fn) -> None:
    t = time.perf_counter()
    fn()
    print(f"{label}: {time.perf_counter() - t:.2f} s", flush=True)


def main() -> None:
    specs = all_metrics()
    mpr = mpr_samples(2245, 0)
    names = [k for k in mpr[0] if k != "doc_id" and k != "score"]
    timed(f"intervals, MPR-GUI one language (2,245 samples, {len(names)} metrics)",
          lambda: [interval([s[m] for s in mpr], specs[m], "screenshot") for m in names])
    eps = star_episodes(500)
    step_names = list(eps[0])
    timed(f"intervals, StaR own history (500 episodes, {len(step_names)} metrics)",
          lambda: [interval([e[m] for e in eps], specs[m], "episode") for m in step_names if m in specs])
    other = mpr_samples(2245, 1)
    a = {"t": TaskSamples("t", {s["doc_id"]: s for s in mpr}, "screenshot", ["mcq_acc", "fpr_acc"])}
    b = {"t": TaskSamples("t", {s["doc_id"]: s for s in other}, "screenshot", ["mcq_acc", "fpr_acc"])}
    timed("gui-eval compare, MPR-GUI one language (2,245 pairs)", lambda: compare_tasks(a, b))


if __name__ == "__main__":
    main()
