"""``gui-eval validate`` time against the length of the plugin lists it reads (issue 37: 20,000 entries took 80 s).

Builds the honest synthetic MPR-GUI submission of the tests (six languages, 384 responses), adds N third-party plugin
records to ``versions.plugins`` and to one task's metadata, and times the checks that read those lists
(``validate_submission`` without re-scoring, then the plugin cross-check) for N = 0, 5,000 and 20,000. Prints the
figures; the target is under 2 s at 20,000 entries (linear time).

    PYTHONPATH=.:tests python benchmarks/bench_validate_lists.py
"""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def plugins(n: int) -> list[dict]:
    return [{"kind": "metric", "entry_point": f"acme_metric_{i}", "distribution": f"acme-metrics-{i}", "version": "1.0",
             "files_sha256": f"{i:064x}"} for i in range(n)]


def main() -> None:
    from submission_helpers import honest_run

    from gui_tasks.submit.leaderboard import _check_plugins, build_submission, submission_hash, validate_submission

    with tempfile.TemporaryDirectory() as tmp:
        honest_run(Path(tmp))
        base = build_submission(Path(tmp))
    for n in (0, 5_000, 20_000):
        sub = copy.deepcopy(base)
        sub["versions"]["plugins"] = plugins(n)
        sub["tasks"][0]["metadata"]["plugins"] = plugins(n)
        sub["submission_sha256"] = submission_hash(sub)
        start = time.perf_counter()
        validate_submission(sub, rescore=False)
        _check_plugins(sub)
        print(f"plugin entries {n:>6} (in versions.plugins and in one task's metadata): "
              f"{time.perf_counter() - start:6.2f} s")


if __name__ == "__main__":
    main()
