"""What a local copy of an official release holds: the types ``gui-eval data check`` prints.

Each benchmark exposes ``data_check(root: Path | None) -> BenchmarkCheck`` in its own module
(listed in :data:`CHECKERS`); it reads the copy with the SAME loaders its tasks use, counts the
documents each task would get and collects every unreadable row as a :class:`DataError`
instead of stopping at the first one. The CLI only prints and sets the exit status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gui_tasks.errors import DataError


@dataclass(frozen=True)
class TaskCount:
    """Documents one task (or one slice of it) gets from the copy, against the published count."""

    task: str            # lmms-eval task name or a slice label, e.g. "mpr_gui_zh" / "mpr_gui_zh_ri"
    found: int           # documents the loaders produced
    expected: int | None  # what the paper/release states (None: no published count)
    source: str = ""     # where ``expected`` comes from, e.g. "release: 2,245 per language (OFFICIAL_FORMATS)"

    @property
    def ok(self) -> bool:
        return self.expected is None or self.found == self.expected


@dataclass
class BenchmarkCheck:
    """The outcome of checking one benchmark's local copy."""

    benchmark: str
    root: Path | None
    counts: list[TaskCount] = field(default_factory=list)
    errors: list[DataError] = field(default_factory=list)  # every unreadable row, with file/row/field

    @property
    def ok(self) -> bool:
        return not self.errors and all(c.ok for c in self.counts)

    @classmethod
    def of_copy(cls, benchmark: str, root: Path | str | None, default: Callable[[], Path]) -> "BenchmarkCheck":
        """A check of ``root`` (else ``default()``, whose DataError propagates: no copy at all); a root that is not a
        directory is recorded as the check's error."""
        check = cls(benchmark, Path(root).expanduser() if root is not None else default())
        if not check.root.is_dir():
            check.errors.append(DataError("not a directory", file=str(check.root)))
        return check


# benchmark name -> "module:function" (imported lazily so one broken benchmark cannot hide the others)
CHECKERS: dict[str, str] = {
    "mpr_gui": "gui_tasks.mpr.official:data_check",
    "gui_knowledge": "gui_tasks.knowledge.official:data_check",
    "star": "gui_tasks.star.official:data_check",
    "sphinx": "gui_tasks.sphinx.check:data_check",
}


def load_checker(benchmark: str) -> Callable[[Path | None], BenchmarkCheck]:
    """The ``data_check`` function of ``benchmark``; a clear error for an unknown name."""
    import importlib

    if benchmark not in CHECKERS:
        raise SystemExit(f"gui-eval data check: unknown benchmark {benchmark!r}; choose one of {sorted(CHECKERS)}")
    module, attr = CHECKERS[benchmark].split(":")
    return getattr(importlib.import_module(module), attr)
