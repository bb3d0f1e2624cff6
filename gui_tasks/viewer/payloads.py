"""Frozen payloads of the viewer's plugin hooks (``gui_tasks.viewer.hookspecs``): free to grow fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class SampleView:
    """One logged sample as its page shows it."""

    task: str
    benchmark: str
    """The task's ``metadata.benchmark`` ("" when it has none)."""
    doc_id: Any
    doc: Mapping[str, Any] | None
    """The document rebuilt by the installed task (None when it could not be)."""
    record: Mapping[str, Any]
    """The per-sample record as logged (``gui_tasks.viewer.records.sample_record``)."""
    sample: Mapping[str, Any]
    """The whole samples-file line."""
    responses: Sequence[str]
    outcome: str
    """One of ``gui_tasks.viewer.records.OUTCOMES``."""
    image_size: tuple[int, int] | None
    """Width and height of the main image the overlays are drawn on (None when the page shows none)."""
    run_label: str


@dataclass(frozen=True)
class RunView:
    """One side of the viewer (the runs of one RUN_DIR)."""

    label: str
    runs: Sequence[Any]
    """``gui_tasks.runs.results_io.RunResults`` of this side."""
    samples: Sequence[SampleView]


@dataclass(frozen=True)
class Section:
    """A section a plugin adds to a page: a title, a text (shown preformatted) and/or key-value rows; all escaped."""

    title: str
    text: str = ""
    rows: Sequence[tuple[str, Any]] = ()
