"""Reading a huge run's samples within a bound, saying so as it goes (issue 54 item 5).

``gui-eval view`` on a run of a million samples would read every line before writing a word and then write a million
sample pages. Here each task's samples are read up to :data:`MAX_SAMPLES` (``--max-samples N``; 0 reads all), the
rest of the file left unread; a task cut down is a note naming the bound and how to change it, and a line goes to
stderr every :data:`EVERY_SECONDS` while a file is read.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, TextIO

from gui_tasks.runs.input_files import count_lines
from gui_tasks.runs.results_io import RunResults, load_task_samples

MAX_SAMPLES = 20_000  # samples shown per task: more than any benchmark here logs (the largest has about 13,500)
EVERY_SECONDS = 2.0


class Progress:
    """``gui-eval view: ...`` lines on a stream, at most one every ``every`` seconds unless forced."""

    def __init__(self, stream: TextIO | None = None, every: float = EVERY_SECONDS) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.last = float("-inf")

    def __call__(self, text: str, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last >= self.every:
            self.last = now
            print(f"gui-eval view: {text}", file=self.stream, flush=True)


def cut_note(run: RunResults, task: str, shown: int, total: int) -> str:
    return (f"{run.path.name} {task}: showing the first {shown:,} of {total:,} samples (the viewer's bound of "
            f"{shown:,} per task; --max-samples N changes it, --max-samples 0 shows all)")


def read_samples(run: RunResults, task: str, notes: list[str], max_samples: int = MAX_SAMPLES,
                 say: Callable[..., Any] | None = None) -> list[dict[str, Any]]:
    """The task's samples, the first ``max_samples`` of them (0: all); a cut is added to ``notes`` and said."""
    limit = max_samples if max_samples and max_samples > 0 else None
    tell = say if say is not None else (lambda *_a, **_k: None)
    tell(f"reading {run.path.name} {task} ...", force=True)
    samples = load_task_samples(run, task, limit=limit,
                                progress=lambda n: tell(f"{run.path.name} {task}: {n:,} sample(s) read"))
    if limit is not None and len(samples) >= limit:
        total = count_lines(run.samples_path(task))
        if total > len(samples):
            notes.append(cut_note(run, task, len(samples), total))
            tell(notes[-1], force=True)
    return samples
