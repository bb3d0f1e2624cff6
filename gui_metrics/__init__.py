"""Metric plugins for the GUI-agent harness (pluggy project ``gui_metrics``).

Third parties add metrics with an entry point in the ``gui_metrics`` group; built-in
metrics go through the same path (see ``setup.cfg``).
"""

import pluggy

PROJECT = "gui_metrics"
hookimpl = pluggy.HookimplMarker(PROJECT)

from gui_metrics.spec import MetricSpec  # noqa: E402
from gui_metrics.manager import PluginFailure, all_metrics, get_metric, get_plugin_manager, metrics_for, plugin_failures  # noqa: E402

__all__ = ["PROJECT", "hookimpl", "MetricSpec", "PluginFailure", "all_metrics", "get_metric", "get_plugin_manager", "metrics_for",
           "plugin_failures"]
