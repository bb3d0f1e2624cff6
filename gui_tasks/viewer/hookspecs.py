"""Hook specifications of the viewer (pluggy project and entry-point group ``gui_viewer``): how a benchmark reads its
samples, what a sample page shows, and the sections and reports of the index page.

Hooks are called with keyword arguments; an implementation may accept fewer arguments than the spec, so specs can
grow. The payloads and blocks are ``gui_core.viewing``'s. Two kinds of implementers:

- a benchmark's own viewing module (``Benchmark.viewing``: each built-in benchmark folder's ``viewing.py``, a plugin
  benchmark's module alike) is called for its own benchmark's samples and runs only, first; a fault there is that
  sample's (its page shows a note) or that report's;
- a viewer plugin (entry-point group ``gui_viewer``) is called for every sample and run; one that raises or returns
  something else than the spec says is named in the site's notes and skipped for the rest of the build.

The site is always written.
"""

from __future__ import annotations

from typing import Any, Mapping

import pluggy

from gui_core.viewing import Figure, Report, RunView, SampleFacts, SampleView, Section, Shape, Table, Trajectory

hookspec = pluggy.HookspecMarker("gui_viewer")


# --- reading a sample ------------------------------------------------------------------------------------------


@hookspec
def gui_viewer_sample_facts(benchmark: str, record: Mapping[str, Any], doc: Mapping[str, Any] | None,
                            metadata: Mapping[str, Any]) -> SampleFacts | None:
    """Called once per logged sample while the runs are read; the first answer counts (the sample's benchmark's own
    viewing module first). Return how this sample's outcome, kind, group, rounds, image size and episode are read
    (``gui_core.viewing.SampleFacts``), or None."""


# --- sample pages ----------------------------------------------------------------------------------------------


@hookspec
def gui_viewer_sample_media(sample: SampleView) -> list[Figure | Trajectory | Table] | None:
    """Called once per sample page; the first answer counts (the benchmark's own viewing module first). Return the
    page's main image (a ``Figure``, drawn with the overlays) or replayed ``Trajectory``, then any further blocks
    (e.g. a ``Table`` of the episode), or None: the document's images are shown."""


@hookspec
def gui_viewer_overlays(sample: SampleView) -> list[Shape] | None:
    """Called once per sample page; return shapes to draw on the sample's main image, or None.

    Shapes (``gui_core.viewing.Shape``: ``rect``, ``point``, ``arrow``, ``text``) are in pixels of the
    original image (``sample.image_size``); each is drawn with ``data-role`` = its ``role`` (CSS class ``ov-<role>``).
    """


@hookspec
def gui_viewer_sample_sections(sample: SampleView) -> list[Section] | None:
    """Called once per sample page; return sections added after the score (text and key-value rows, escaped)."""


# --- index page ------------------------------------------------------------------------------------------------


@hookspec
def gui_viewer_run_reports(run: RunView) -> list[Table | Report] | None:
    """Called once per run (side) on the index page, for each benchmark the side ran (its viewing module, in the order
    of the benchmark registry) and each viewer plugin; return tables and folded reports shown after the run's tasks."""


@hookspec
def gui_viewer_run_sections(run: RunView) -> list[Section] | None:
    """Called once per run (side) on the index page; return report sections added to that run's part."""


__all__ = ["Figure", "Report", "RunView", "SampleFacts", "SampleView", "Section", "Shape", "Table", "Trajectory"]
