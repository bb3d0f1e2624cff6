"""Builds the ``gui_metrics`` plugin manager and the name -> MetricSpec table."""

from __future__ import annotations

import difflib
import threading
import warnings

import pluggy

from gui_metrics import hookspecs
from gui_metrics.spec import MetricSpec

_LOCK = threading.Lock()
_PM: pluggy.PluginManager | None = None
_METRICS: dict[str, MetricSpec] | None = None


def get_plugin_manager(*, fresh: bool = False) -> pluggy.PluginManager:
    """The process-wide manager with every ``gui_metrics`` entry point loaded."""
    global _PM, _METRICS
    with _LOCK:
        if _PM is None or fresh:
            pm = pluggy.PluginManager("gui_metrics")
            pm.add_hookspecs(hookspecs)
            try:
                pm.load_setuptools_entrypoints("gui_metrics")
            except Exception as exc:  # a broken third-party plugin must not take the harness down
                warnings.warn(f"gui_metrics: failed to load a plugin entry point: {exc!r}", stacklevel=2)
            try:
                pm.check_pending()
            except pluggy.PluginValidationError as exc:
                warnings.warn(f"gui_metrics: a plugin implements an unknown hook: {exc}", stacklevel=2)
            _PM, _METRICS = pm, None
        return _PM


def all_metrics(*, fresh: bool = False) -> dict[str, MetricSpec]:
    """Every registered metric by name; raises on a name defined by two plugins."""
    global _METRICS
    pm = get_plugin_manager(fresh=fresh)
    with _LOCK:
        if _METRICS is None:
            table: dict[str, MetricSpec] = {}
            owner: dict[str, str] = {}
            for impl in pm.hook.gui_metrics_register.get_hookimpls():
                plugin_name = pm.get_name(impl.plugin) or repr(impl.plugin)
                for spec in impl.function() or []:
                    if not isinstance(spec, MetricSpec):
                        raise TypeError(f"gui_metrics plugin {plugin_name!r} returned {type(spec).__name__}, expected MetricSpec")
                    if spec.name in table:
                        raise ValueError(f"metric {spec.name!r} is defined by both {owner[spec.name]!r} and {plugin_name!r}")
                    table[spec.name] = spec
                    owner[spec.name] = plugin_name
            _METRICS = table
        return dict(_METRICS)


def get_metric(name: str) -> MetricSpec:
    """The metric called ``name``, with a did-you-mean error for unknown names."""
    table = all_metrics()
    if name not in table:
        close = difflib.get_close_matches(name, table, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown gui metric {name!r}.{hint} Known: {', '.join(sorted(table))}")
    return table[name]


def metrics_for(kind: str) -> list[MetricSpec]:
    """Metrics that understand per-sample records of ``kind`` (e.g. ``"mcq"``), by name."""
    return [m for _, m in sorted(all_metrics().items()) if kind in m.applies_to]
