"""Viewer plugins (entry-point group ``gui_viewer``): loaded each on its own, every hook call guarded.

A plugin that fails to load, or a hook implementation that raises or returns the wrong type, is named in the
site's notes (plugin, hook, exception) and left out; every other plugin and the site itself are unaffected.
"""

from __future__ import annotations

import math
from importlib.metadata import entry_points
from typing import Any, Iterable, Sequence

import pluggy

from gui_core.plugin_dists import ep_dist_name
from gui_tasks.viewer import hookspecs
from gui_tasks.viewer.overlays import SHAPES, Shape
from gui_tasks.viewer.payloads import RunView, SampleView, Section

PROJECT = GROUP = "gui_viewer"
hookimpl = pluggy.HookimplMarker(PROJECT)


def _check_shapes(value: Any) -> list[Shape]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"returned {type(value).__name__}, expected a list of Shape")
    for s in value:
        if not isinstance(s, Shape) or s.shape not in SHAPES:
            raise TypeError(f"returned {s!r}, expected Shape with shape in {SHAPES}")
        want = 4 if s.shape in ("rect", "arrow") else 2
        if len(s.xy) != want or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in s.xy):
            raise TypeError(f"{s.shape} shape needs {want} finite numbers, got {s.xy!r}")
    return list(value)


def _check_sections(value: Any) -> list[Section]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(s, Section) for s in value):
        raise TypeError(f"returned {type(value).__name__}, expected a list of Section")
    return list(value)


CHECKS = {"gui_viewer_overlays": _check_shapes, "gui_viewer_sample_sections": _check_sections,
          "gui_viewer_run_sections": _check_sections}


class ViewerPlugins:
    """The installed viewer plugins (and ``extra`` ones given directly), with guarded hook calls."""

    def __init__(self, extra: Iterable[tuple[str, Any]] = (), *, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.notes: list[str] = []
        self.disabled: set[tuple[str, str]] = set()  # (plugin, hook) that failed once: skipped from then on
        found = []
        if load_entry_points:
            for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
                try:
                    found.append((ep.name, ep.load()))
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit at import too: one plugin never ends the build
                    self.notes.append(f"viewer plugin {ep.name!r} ({ep_dist_name(ep)}: {ep.value}) left out: "
                                      f"failed to load: {type(exc).__name__}: {exc}")
        for name, obj in [*found, *extra]:
            try:
                self.pm.register(obj, name=name)
            except Exception as exc:  # noqa: BLE001 - a duplicate name, an unknown hook
                self.notes.append(f"viewer plugin {name!r} left out: {type(exc).__name__}: {exc}")
        known = sorted(CHECKS)
        for hook in sorted(vars(self.pm.hook)):  # pluggy's check_pending, but every typo named, none fatal
            caller = getattr(self.pm.hook, hook)
            if hook.startswith("_") or getattr(caller, "spec", True) is not None:
                continue
            for impl in caller.get_hookimpls():
                self.notes.append(f"viewer plugin {impl.plugin_name!r}: {hook} is not a gui_viewer hook, never called "
                                  f"(hooks: {', '.join(known)})")

    @property
    def names(self) -> list[str]:
        return [n for n, p in self.pm.list_name_plugin() if p is not None]

    def _call(self, hook: str, where: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """``(plugin, checked result)`` of each implementation of ``hook``, in registration order."""
        out = []
        for impl in reversed(getattr(self.pm.hook, hook).get_hookimpls()):  # pluggy keeps them last-registered first
            key = (impl.plugin_name, hook)
            if key in self.disabled:
                continue
            try:
                value = impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
                if value is not None:
                    out.append((impl.plugin_name, CHECKS[hook](value)))
            except Exception as exc:  # noqa: BLE001 - a broken plugin is named and skipped, never the site's end
                self.disabled.add(key)
                self.notes.append(f"viewer plugin {impl.plugin_name!r}: {hook} failed on {where} "
                                  f"({type(exc).__name__}: {str(exc)[:300]}); skipped for the rest of this build")
        return out

    def overlays(self, sample: SampleView) -> list[Shape]:
        return [s for _, shapes in self._call("gui_viewer_overlays", f"{sample.task} doc {sample.doc_id!r}", sample=sample)
                for s in shapes]

    def sample_sections(self, sample: SampleView) -> list[tuple[str, Section]]:
        return [(name, s) for name, secs in self._call("gui_viewer_sample_sections", f"{sample.task} doc {sample.doc_id!r}",
                                                      sample=sample) for s in secs]

    def run_sections(self, run: RunView) -> list[tuple[str, Section]]:
        return [(name, s) for name, secs in self._call("gui_viewer_run_sections", f"run {run.label!r}", run=run) for s in secs]


def no_plugins() -> ViewerPlugins:
    return ViewerPlugins(load_entry_points=False)


__all__: Sequence[str] = ["ViewerPlugins", "hookimpl", "SampleView", "RunView", "Section", "Shape"]
