"""``gui-eval data check sphinx``: a copy read with the tasks' own row builders, counted against the published numbers.

Apart from :mod:`gui_tasks.sphinx.release` (the file loaders) because it needs the row builders of
:mod:`gui_tasks.sphinx.static_tasks`, which import the loaders: one direction, no import circle.
"""

from __future__ import annotations

from pathlib import Path

from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.sphinx import release, static_tasks


def data_check(root: Path | None) -> BenchmarkCheck:
    """Read a copy with the tasks' own loaders; count documents per task against the published numbers and
    collect every unreadable row (file, row, field) instead of stopping at the first."""
    check = BenchmarkCheck("sphinx", root)
    try:
        root = Path(root) if root is not None else release.data_root({})
        if not root.is_dir():
            raise DataError("not a folder", file=str(root))
    except DataError as exc:
        check.errors.append(exc)
        return check
    check.root = root
    src = "paper 3.3.2-3.3.4 / release (OFFICIAL_FORMATS)"
    for task, key, build in (
            ("sphinx_knowledge", "probes", lambda bad: static_tasks.knowledge_rows(root, bad)),
            ("sphinx_completion", "completion_steps", lambda bad: static_tasks.completion_rows(root, "screenshot", bad=bad)),
            ("sphinx_grounding", "grounding_tasks", lambda bad: static_tasks.grounding_rows(root, "screenshot", bad=bad))):
        bad = BadRows(skip=True)
        try:
            rows = build(bad)
            check.add_images(rows)  # decoded by BenchmarkCheck.decode_images
            found = len(rows)
        except DataError as exc:  # a whole file unreadable
            bad.add(exc)
            found = 0
        check.errors.extend(bad.errors)
        check.counts.append(TaskCount(task, found, release.EXPECTED[key], src))
    n = 0
    for path in sorted((root / "groundtruth").glob("*/*/evaluator.json")):
        try:
            release.load_evaluators(path)
            n += 1
        except DataError as exc:
            check.errors.append(exc)
    check.counts.append(TaskCount("sphinx evaluators (groundtruth/*/*/evaluator.json)", n, release.EXPECTED["evaluator_files"], src))
    return check
