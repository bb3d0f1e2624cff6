"""The viewer's plugin vocabulary (pluggy project ``gui_viewer``): the hook marker and the frozen payloads and page blocks
that hooks receive and return.

It lies on the floor so that a benchmark folder can implement the viewer's hooks for its own samples (each built-in
benchmark's ``viewing`` module, named by its ``Benchmark.viewing``) without importing the viewer above it; a third-party
viewer plugin imports the same names (also re-exported by ``gui_tasks.viewer.plugins``). The hook specifications are
``gui_tasks.viewer.hookspecs``. Every text in a payload a plugin returns is escaped when the page is written; no block
carries HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import pluggy

from gui_core.bounds import is_finite

PROJECT = "gui_viewer"
hookimpl = pluggy.HookimplMarker(PROJECT)

SHAPES = ("rect", "point", "arrow", "text")
# a scroll or swipe direction as a unit vector in screen pixels (y down): how an arrow for it is drawn
DIRECTION_VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
OUTCOMES = ("correct", "wrong", "format_error", "unscored")


@dataclass(frozen=True)
class Shape:
    """One overlay element. ``xy``: (x1, y1, x2, y2) for rect/arrow, (x, y) for point/text; original pixels."""

    role: str  # target, other, pred, first_pred, crop_window, toggle_box, gold, action, swipe, typed
    shape: str
    xy: tuple[float, ...]
    label: str = ""


def finite(values: Sequence[Any]) -> bool:
    """Every value a finite number (no bool): a shape is drawn only from such coordinates."""
    return all(is_finite(v) for v in values)


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
    """One of :data:`OUTCOMES`."""
    image_size: tuple[int, int] | None
    """Width and height of the main image the overlays are drawn on (None when the page shows none)."""
    run_label: str
    number: int = -1
    """The sample's page in the site: ``s/<number>.html`` (a :class:`Cell` links to it by this number)."""
    episode: Sequence["SampleView"] = ()
    """The samples of the same side and task that share this one's episode key (:class:`SampleFacts`), in order."""


@dataclass(frozen=True)
class RunView:
    """One side of the viewer (the runs of one RUN_DIR)."""

    label: str
    runs: Sequence[Any]
    """``gui_tasks.runs.results_io.RunResults`` of this side."""
    samples: Sequence[SampleView]
    benchmarks: Sequence[str] = ()
    """The ``metadata.benchmark`` values of this side's tasks."""


@dataclass(frozen=True)
class Section:
    """A section a plugin adds to a page: a title, a text (shown preformatted) and/or key-value rows; all escaped."""

    title: str
    text: str = ""
    rows: Sequence[tuple[str, Any]] = ()


@dataclass(frozen=True)
class SampleFacts:
    """How a benchmark reads its own logged sample (hook ``gui_viewer_sample_facts``); a field left None is read the
    viewer's generic way (``gui_tasks.viewer.records``).

    ``outcome`` and ``kind``: the sample's outcome (one of :data:`OUTCOMES`) and finer label; ``kind`` alone: the finer
    label beside the generic outcome. ``group``: the facet shown when the record and document name no dimension,
    sub-task, split or polarity. ``multi_round``: the logged output holds one response per round. ``image_size``: the
    size the benchmark's overlays are drawn in. ``episode``: ``(key, order)``: the samples of one task sharing a key
    are an episode, in that order (:attr:`SampleView.episode`)."""

    outcome: str | None = None
    kind: str | None = None
    group: str | None = None
    multi_round: bool = False
    image_size: tuple[int, int] | None = None
    episode: tuple[str, float] | None = None


@dataclass(frozen=True)
class Figure:
    """The sample's main image, drawn with the overlays of hook ``gui_viewer_overlays``: ``image`` is a document image
    value (a path, a path relative to the task's folder, PIL pixels, a Hugging Face ``{"bytes", "path"}`` dict) or None
    (the page says the document names none); ``size`` the original size the shapes are in."""

    image: Any
    caption: str
    size: tuple[int, int] | None = None


@dataclass(frozen=True)
class Step:
    """One screen of a trajectory: the PIL image the action was taken on, the action drawn on it, and (unless
    ``final``) the model's output and the action it was read as (shown as JSON)."""

    index: int
    image: Any
    shapes: Sequence[Shape]
    caption: str
    output: str = ""
    action: Any = None
    final: bool = False


@dataclass(frozen=True)
class Trajectory:
    """A replayed episode, screen by screen (written as images of the site)."""

    steps: Sequence[Step]
    title: str = "Trajectory"


@dataclass(frozen=True)
class Cell:
    """A table cell: its text, a CSS class, a page it links to (a sample's :attr:`SampleView.number`) and a ``shade``
    (a percentage 0-100 coloured red to green; NaN or None: none)."""

    text: Any
    cls: str = ""
    link: int | None = None
    shade: float | None = None


@dataclass(frozen=True)
class Row:
    cells: Sequence[Cell]
    cls: str = ""


@dataclass(frozen=True)
class Table:
    """A titled table (heading ``level`` 2 or 3), an optional text above it (preformatted; None: none), notes below."""

    title: str
    head: Sequence[str]
    rows: Sequence[Row]
    cls: str = ""
    text: str | None = None
    level: int = 2
    notes: Sequence[str] = ()


@dataclass(frozen=True)
class Report:
    """A benchmark report folded under its title on the index page: ``make()`` returns its text; one that raises shows
    why it is not available (the site goes on)."""

    title: str
    make: Callable[[], str] = field(repr=False)
