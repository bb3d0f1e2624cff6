"""Builds the ``gui_metrics`` plugin manager and the name -> MetricSpec table.

Every entry point of the group loads, registers and runs on its own: a plugin that fails
(import error, any BaseException but KeyboardInterrupt such as ``sys.exit`` at import, bad hook, a register hook that raises or returns something else than
MetricSpecs, a metric name another plugin already defines) is left out, printed to stderr and
recorded in :func:`plugin_failures` with its name and exception; the others keep working. Built-in and
third-party plugins take this same path.
"""

from __future__ import annotations

import difflib
import sys
import threading
from dataclasses import dataclass

import pluggy

from gui_metrics import hookspecs
from gui_core.plugin_dists import ep_dist_name as _dist_name
from gui_core.plugin_dists import is_own as _is_own
from gui_core.plugin_errors import describe
from gui_core.plugin_groups import GROUPS, entry_points
from gui_metrics.spec import MetricSpec

GROUP = GROUPS["metric"]  # gui_eval.metrics (the old spelling gui_metrics is read too: gui_core.plugin_groups)
PROJECT = "gui_metrics"  # the pluggy project name of the hooks (gui_metrics.hookspecs)

_LOCK = threading.Lock()
_PM: pluggy.PluginManager | None = None
_METRICS: dict[str, MetricSpec] | None = None
_FAILURES: list["PluginFailure"] = []
_SOURCES: dict[str, str] = {}  # plugin name -> "distribution: entry-point value", in registration order
_OWNERS: dict[str, str] = {}  # metric name -> "'plugin' (distribution: value)"


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that was left out, and why."""

    plugin: str  # entry-point name
    source: str  # "distribution: module[:attr]"
    error: str

    def __str__(self) -> str:
        return f"gui_metrics plugin {self.plugin!r} ({self.source}) left out: {self.error}"


def _source(ep) -> str:
    return f"{_dist_name(ep)}: {ep.value}"


def _fail(plugin: str, source: str, error: str) -> None:
    """Record and print the failure (stderr, not ``warnings``: lmms-eval ignores every warning)."""
    failure = PluginFailure(plugin, source, error)
    _FAILURES.append(failure)
    print(f"gui-eval: {failure}", file=sys.stderr, flush=True)


def _load_entry_points(pm: pluggy.PluginManager) -> dict[str, str]:
    """Load and register every entry point separately; returns plugin name -> source."""
    eps = sorted(entry_points(GROUP), key=lambda ep: (not _is_own(ep), ep.name))
    sources: dict[str, str] = {}
    for ep in eps:
        if ep.name in sources:
            _fail(ep.name, _source(ep), f"entry-point name {ep.name!r} is already taken by {sources[ep.name]}")
            continue
        try:
            plugin = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit at import too: one plugin never ends the process
            _fail(ep.name, _source(ep), f"import failed: {describe(exc)}")
            continue
        try:
            pm.register(plugin, name=ep.name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # PluginValidationError (bad hook signature), ValueError (registered twice)
            _fail(ep.name, _source(ep), f"registration failed: {exc}")
            continue
        unknown = [i.function.__name__ for hook in pm.get_hookcallers(plugin) or [] if not hook.has_spec()
                   for i in hook.get_hookimpls() if i.plugin is plugin]
        if unknown:
            pm.unregister(plugin)
            _fail(ep.name, _source(ep), f"implements unknown hook(s) {unknown}")
            continue
        if plugin not in [i.plugin for i in pm.hook.gui_metrics_register.get_hookimpls()]:
            pm.unregister(plugin)
            _fail(ep.name, _source(ep), "implements no gui_metrics_register hook (is the entry point the right module?)")
            continue
        if getattr(ep, "dist", None) is not None:
            pm._plugin_distinfo.append((plugin, ep.dist))  # what list_plugin_distinfo reports (pluggy keeps it so)
        sources[ep.name] = _source(ep)
    return sources


def get_plugin_manager(*, fresh: bool = False) -> pluggy.PluginManager:
    """The process-wide manager with every loadable ``gui_metrics`` entry point registered."""
    global _PM, _METRICS
    with _LOCK:
        if _PM is None or fresh:
            pm = pluggy.PluginManager(PROJECT)
            pm.add_hookspecs(hookspecs)
            _FAILURES.clear()
            _SOURCES.clear()
            _SOURCES.update(_load_entry_points(pm))
            _PM, _METRICS = pm, None
        return _PM


def all_metrics(*, fresh: bool = False) -> dict[str, MetricSpec]:
    """Every registered metric by name; plugins that fail or collide are left out (see :func:`plugin_failures`)."""
    global _METRICS
    pm = get_plugin_manager(fresh=fresh)
    with _LOCK:
        if _METRICS is None:
            table: dict[str, MetricSpec] = {}
            owner: dict[str, str] = {}
            impls = {i.plugin_name: i for i in pm.hook.gui_metrics_register.get_hookimpls()}
            for plugin_name, source in _SOURCES.items():  # built-ins first, then by name
                impl = impls.get(plugin_name)
                if impl is None:
                    continue
                try:
                    specs = list(impl.function() or [])
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit included
                    _fail(plugin_name, source, f"gui_metrics_register raised {describe(exc)}")
                    continue
                wrong = [type(s).__name__ for s in specs if not isinstance(s, MetricSpec)]
                taken = [s.name for s in specs if isinstance(s, MetricSpec) and s.name in table]
                names = [s.name for s in specs if isinstance(s, MetricSpec)]
                twice = sorted({n for n in names if names.count(n) > 1})
                if wrong:
                    _fail(plugin_name, source, f"gui_metrics_register returned {wrong[0]}, expected MetricSpec")
                elif taken:
                    _fail(plugin_name, source, f"metric {taken[0]!r} is defined by both {owner[taken[0]]} and "
                                               f"{plugin_name!r} ({source}); rename one of them")
                elif twice:
                    _fail(plugin_name, source, f"metric {twice[0]!r} is defined twice by the same plugin")
                else:
                    for spec in specs:
                        table[spec.name] = spec
                        owner[spec.name] = f"{plugin_name!r} ({source})"
            _OWNERS.clear()
            _OWNERS.update(owner)
            _METRICS = table
        return dict(_METRICS)


def metric_owner(name: str) -> str:
    """Which plugin defines metric ``name`` (for messages)."""
    all_metrics()
    return _OWNERS.get(name, "?")


def plugin_failures() -> list[PluginFailure]:
    """The plugins left out of the current manager (after :func:`all_metrics` has run)."""
    all_metrics()
    return list(_FAILURES)


def get_metric(name: str) -> MetricSpec:
    """The metric called ``name``, with a did-you-mean error for unknown names."""
    table = all_metrics()
    if name not in table:
        close = difflib.get_close_matches(name, table, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        broken = "".join(f"\n  {f}" for f in _FAILURES)
        raise KeyError(f"unknown gui metric {name!r}.{hint} Known: {', '.join(sorted(table))}"
                       + (f"\nPlugins left out:{broken}" if broken else ""))
    return table[name]


def metrics_for(kind: str) -> list[MetricSpec]:
    """Metrics that understand per-sample records of ``kind`` (e.g. ``"mcq"``), by name."""
    return [m for _, m in sorted(all_metrics().items()) if kind in m.applies_to]
