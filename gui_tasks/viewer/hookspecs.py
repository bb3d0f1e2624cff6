"""Hook specifications of the viewer (pluggy project and entry-point group ``gui_viewer``): overlays and page sections.

Hooks are called with keyword arguments; an implementation may accept fewer arguments than the spec, so specs can
grow. Each implementation is called on its own: one that raises or returns something else than the spec says is
named in the site's notes and skipped for the rest of the build; the site is always written.
"""

from __future__ import annotations

import pluggy

from gui_tasks.viewer.payloads import RunView, SampleView, Section
from gui_tasks.viewer.overlays import Shape

hookspec = pluggy.HookspecMarker("gui_viewer")


# --- sample pages ----------------------------------------------------------------------------------------------


@hookspec
def gui_viewer_overlays(sample: SampleView) -> list[Shape] | None:
    """Called once per sample page; return shapes to draw on the sample's main image, or None.

    Shapes (``gui_tasks.viewer.overlays.Shape``: ``rect``, ``point``, ``arrow``, ``text``) are in pixels of the
    original image (``sample.image_size``); each is drawn with ``data-role`` = its ``role`` (CSS class ``ov-<role>``).
    """


@hookspec
def gui_viewer_sample_sections(sample: SampleView) -> list[Section] | None:
    """Called once per sample page; return sections added after the score (text and key-value rows, escaped)."""


# --- index page ------------------------------------------------------------------------------------------------


@hookspec
def gui_viewer_run_sections(run: RunView) -> list[Section] | None:
    """Called once per run (side) on the index page; return report sections added to that run's part."""
