"""``gui-eval data check`` for the step-wise agentic sets (AndroidControl, AITZ, GUI-Odyssey): the documents the
tasks' own loader (``gui_tasks.star.agentic.read_steps``) reads from a local copy and its screenshots.

The loader stops at the first bad row, so a bad row is the check's one error (named by file, row and field); no
published step count is pinned (the copies are exports whose splits differ), so the counts are reported as found."""

from __future__ import annotations

from pathlib import Path

from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount
from gui_tasks.star import agentic


def data_check(dataset: str, root: Path | None = None) -> BenchmarkCheck:
    check = BenchmarkCheck.of_copy(dataset, root, lambda: agentic.data_root(dataset))
    if check.errors:
        return check
    docs = check.read_docs(lambda bad: agentic.read_steps(dataset, check.root, None, gesture_to_scroll="same"))
    if docs is not None:
        check.counts.append(TaskCount(f"star_{dataset} (test steps)", len(docs), None, "no published count pinned"))
    return check


def data_check_androidcontrol(root: Path | None = None) -> BenchmarkCheck:
    return data_check("androidcontrol", root)


def data_check_aitz(root: Path | None = None) -> BenchmarkCheck:
    return data_check("aitz", root)


def data_check_gui_odyssey(root: Path | None = None) -> BenchmarkCheck:
    return data_check("gui_odyssey", root)
