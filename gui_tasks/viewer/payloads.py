"""Frozen payloads of the viewer's plugin hooks (``gui_tasks.viewer.hookspecs``), kept importable from here; they live
on the floor (``gui_core.viewing``) so that benchmark folders implement the hooks without importing the viewer."""

from __future__ import annotations

from gui_core.viewing import RunView, SampleView, Section

__all__ = ["RunView", "SampleView", "Section"]
