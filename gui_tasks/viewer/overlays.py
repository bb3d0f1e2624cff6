"""Overlay shapes in pixels of the screenshot as scored (``gui_core.viewing.Shape``, re-exported here for plugins).

Which shapes a sample gets is its benchmark's viewing module's and the viewer plugins' answer to hook
``gui_viewer_overlays`` (e.g. ``gui_tasks.grounding.viewing``: target boxes, predicted points, crop windows); the
viewer draws them (``gui_tasks.viewer.site_model._svg``).
"""

from __future__ import annotations

from gui_core.viewing import SHAPES, Shape

__all__ = ["SHAPES", "Shape"]
