"""Hook specifications of the ``gui_metrics`` plugin manager."""

from __future__ import annotations

import pluggy

from gui_metrics.spec import MetricSpec

hookspec = pluggy.HookspecMarker("gui_metrics")


# --- registration ----------------------------------------------------------------


@hookspec
def gui_metrics_register() -> list[MetricSpec]:
    """Called once when the manager is built; return the metrics this plugin defines.

    Names must be unique across all plugins: a collision is an error naming both plugins.
    """
