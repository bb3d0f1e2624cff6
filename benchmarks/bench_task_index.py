"""Prints what lmms-eval's task index costs at every start, and our YAML folder's share of it, in one run.

    python benchmarks/bench_task_index.py [--repeats 3]

Figures (medians over the repeats): the full index as ``lmms-eval`` builds it with gui-eval attached (lmms-eval's
own tasks, our ``yaml_tasks``, installed task plugins) and the part spent on our folder (target: at most 10%);
then our folder read the way lmms-eval reads any ``--include_path`` folder (PyYAML's pure-Python loader, every
``include:`` re-read per task), as thin files and as the full copies the generator wrote before
(``gui_tasks/harness/thin_yaml.py``), for comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _full_copies(folder: Path) -> int:
    """The generator's full (unfactored) task texts, written under ``folder``; returns their line count."""
    spec = importlib.util.spec_from_file_location("gen_yaml_tasks", ROOT / "scripts" / "gen_yaml_tasks.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    lines = 0
    for out, files in gen.folders().items():
        (folder / out.name).mkdir(parents=True)
        for name, text in files.items():
            (folder / out.name / name).write_text(text, encoding="utf-8")
            lines += text.count("\n")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    import lmms_eval.tasks as lt
    from loguru import logger

    logger.remove()  # lmms-eval logs a debug line for every file it does not index
    logger.add(sys.stderr, level="WARNING")

    from gui_tasks.harness.lmms_integration import _same_folder, attach, yaml_tasks_dir

    attach()  # what lmms-eval's CLI does when it imports its models (our entry point)
    ours = str(yaml_tasks_dir())
    walk = lt.TaskManager._get_task_and_group
    spent: dict[str, list[float]] = defaultdict(list)

    def timed(self, task_dir):
        t = time.perf_counter()
        try:
            return walk(self, task_dir)
        finally:
            spent["ours" if _same_folder(task_dir, ours) else "others"].append(time.perf_counter() - t)

    lt.TaskManager._get_task_and_group = timed
    full, share, n_ours, n_all = [], [], 0, 0
    try:
        for _ in range(args.repeats):
            spent.clear()
            t = time.perf_counter()
            tm = lt.TaskManager("ERROR")
            full.append(time.perf_counter() - t)
            share.append(sum(spent["ours"]))
            n_all = len(tm.all_tasks)
            n_ours = sum(1 for e in tm.task_index.values() if isinstance(e.get("yaml_path"), str)
                         and e["yaml_path"].startswith(ours))
    finally:
        lt.TaskManager._get_task_and_group = walk
    f, o = statistics.median(full), statistics.median(share)
    print(f"lmms-eval task index with gui-eval attached: {n_all} entries in {f:.2f} s; our folder ({n_ours} entries): "
          f"{o:.3f} s = {100 * o / f:.1f}% (target <= 10%)")

    tm = lt.TaskManager.__new__(lt.TaskManager)  # lmms-eval's plain walk of one folder, as for any --include_path
    tm.logger = lt.eval_logger
    others = f - o
    with tempfile.TemporaryDirectory() as tmp:
        lines = _full_copies(Path(tmp))
        for label, folder in (("thin files over shared bases", ours), (f"full copies ({lines} lines)", tmp)):
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                walk(tm, folder)
                times.append(time.perf_counter() - t)
            s = statistics.median(times)
            print(f"our folder read as lmms-eval reads an --include_path folder, {label}: {s:.2f} s "
                  f"(= {100 * s / (others + s):.0f}% of an index of {others + s:.2f} s)")


if __name__ == "__main__":
    main()
