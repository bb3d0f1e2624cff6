"""The viewer's plugins: each benchmark's own viewing module and the installed viewer plugins, every hook call guarded.

A benchmark record names the module that implements the ``gui_viewer`` hooks for its samples and runs
(``Benchmark.viewing``; the built-in benchmarks' ``viewing.py``, a plugin benchmark's module alike): it is registered
from the benchmark registry and called for that benchmark's samples only, first. A fault there belongs to the sample it
was called for (its page shows a note).

Viewer plugins (entry-point group ``gui_viewer``) are loaded each on its own and called for every sample and run. A
plugin that fails to load, or a hook implementation that raises or returns the wrong type, is named in the site's
notes (plugin, hook, exception) and left out; every other plugin and the site itself are unaffected.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterable, Mapping, Sequence

import pluggy

from gui_core.benchmark import BENCHMARKS, benchmark_of
from gui_core.plugin_dists import ep_dist_name
from gui_core.plugin_groups import GROUPS, entry_points
from gui_core.viewing import (PROJECT, SHAPES, Figure, Report, RunView, SampleFacts, SampleView, Section, Shape, Table,
                              Trajectory, finite, hookimpl)
from gui_tasks.viewer import hookspecs

GROUP = GROUPS["viewer"]  # entry-point group (the old spelling gui_viewer, the hooks' project name, still read)


def _check_shapes(value: Any) -> list[Shape]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"returned {type(value).__name__}, expected a list of Shape")
    for s in value:
        if not isinstance(s, Shape) or s.shape not in SHAPES:
            raise TypeError(f"returned {s!r}, expected Shape with shape in {SHAPES}")
        want = 4 if s.shape in ("rect", "arrow") else 2
        if len(s.xy) != want or not finite(s.xy):
            raise TypeError(f"{s.shape} shape needs {want} finite numbers, got {s.xy!r}")
    return list(value)


def _check_list(*types: type) -> Any:
    names = " or ".join(t.__name__ for t in types)

    def check(value: Any) -> list[Any]:
        if not isinstance(value, (list, tuple)) or not all(isinstance(s, types) for s in value):
            raise TypeError(f"returned {type(value).__name__}, expected a list of {names}")
        return list(value)

    return check


def _check_facts(value: Any) -> SampleFacts:
    if not isinstance(value, SampleFacts):
        raise TypeError(f"returned {type(value).__name__}, expected SampleFacts")
    return value


CHECKS = {"gui_viewer_overlays": _check_shapes, "gui_viewer_sample_sections": _check_list(Section),
          "gui_viewer_run_sections": _check_list(Section), "gui_viewer_sample_facts": _check_facts,
          "gui_viewer_sample_media": _check_list(Figure, Trajectory, Table),
          "gui_viewer_run_reports": _check_list(Table, Report)}


class ViewerPlugins:
    """The benchmarks' viewing modules (from the registry) and the installed viewer plugins (and ``extra`` ones given
    directly), with guarded hook calls."""

    def __init__(self, extra: Iterable[tuple[str, Any]] = (), *, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.notes: list[str] = []
        self.disabled: set[tuple[str, str]] = set()  # (plugin, hook) that failed once: skipped from then on
        self.viewing: dict[str, str] = {}  # benchmark record name -> the plugin name of its viewing module
        for bench in BENCHMARKS.values():
            if bench.viewing and bench.viewing not in self.viewing.values():
                try:
                    self.pm.register(importlib.import_module(bench.viewing), name=bench.viewing)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit at import too: its pages fall back to the generic ones
                    self.notes.append(f"viewing module {bench.viewing!r} of benchmark {bench.name!r} left out: "
                                      f"{type(exc).__name__}: {exc}")
                    continue
            if bench.viewing and self.pm.get_plugin(bench.viewing) is not None:
                self.viewing[bench.name] = bench.viewing
        found = []
        if load_entry_points:
            for ep in entry_points(GROUP):
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
        """The viewer plugins (the benchmarks' viewing modules left out)."""
        own = set(self.viewing.values())
        return [n for n, p in self.pm.list_name_plugin() if p is not None and n not in own]

    # --- which viewing module a sample's or a run's benchmark has --------------------------------------------------
    def viewing_of(self, metadata: Mapping[str, Any] | str) -> str | None:
        """The viewing plugin of the benchmark a task's metadata (or its ``metadata.benchmark`` value) belongs to: its
        record's, else the one module every record of that ``metadata.benchmark`` value names; or None."""
        meta = {"benchmark": metadata} if isinstance(metadata, str) else metadata
        rec = benchmark_of(meta)
        if rec is not None and rec.name in self.viewing:
            return self.viewing[rec.name]
        mods = {self.viewing.get(b.name) for b in BENCHMARKS.values() if b.results_name == str(meta.get("benchmark"))}
        return mods.pop() if len(mods) == 1 else None

    def viewings_of(self, metadatas: Iterable[Mapping[str, Any]]) -> list[str]:
        """The viewing plugins of the benchmarks of these tasks, once each, in the order of the benchmark registry."""
        found = {v for m in metadatas if (v := self.viewing_of(m)) is not None}
        return [v for v in dict.fromkeys(self.viewing[b.name] for b in BENCHMARKS.values() if b.name in self.viewing)
                if v in found]

    # --- calls -----------------------------------------------------------------------------------------------------
    def _own(self, viewing: str | None, hook: str, **kwargs: Any) -> Any:
        """``hook`` of one benchmark's viewing module (None when it has none); unguarded: its fault is the sample's."""
        if viewing is None:
            return None
        for impl in getattr(self.pm.hook, hook).get_hookimpls():
            if impl.plugin_name == viewing:
                value = impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
                return None if value is None else CHECKS[hook](value)
        return None

    def _call(self, hook: str, where: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """``(plugin, checked result)`` of each viewer plugin's implementation of ``hook``, in registration order."""
        own = set(self.viewing.values())
        out = []
        for impl in reversed(getattr(self.pm.hook, hook).get_hookimpls()):  # pluggy keeps them last-registered first
            key = (impl.plugin_name, hook)
            if key in self.disabled or impl.plugin_name in own:
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

    def _first(self, viewing: str | None, hook: str, where: str, **kwargs: Any) -> Any:
        """The benchmark's own answer, else the first viewer plugin's, else None."""
        value = self._own(viewing, hook, **kwargs)
        if value is not None:
            return value
        found = self._call(hook, where, **kwargs)
        return found[0][1] if found else None

    def sample_facts(self, viewing: str | None, benchmark: str, record: Mapping[str, Any], doc: Mapping[str, Any] | None,
                     metadata: Mapping[str, Any], where: str) -> SampleFacts:
        return self._first(viewing, "gui_viewer_sample_facts", where, benchmark=benchmark, record=record, doc=doc,
                           metadata=metadata) or SampleFacts()

    def sample_media(self, viewing: str | None, sample: SampleView) -> list[Any] | None:
        return self._first(viewing, "gui_viewer_sample_media", f"{sample.task} doc {sample.doc_id!r}", sample=sample)

    def overlays(self, sample: SampleView, viewing: str | None = None) -> list[Shape]:
        own = self._own(viewing, "gui_viewer_overlays", sample=sample) or []
        return own + [s for _, shapes in self._call("gui_viewer_overlays", f"{sample.task} doc {sample.doc_id!r}",
                                                    sample=sample) for s in shapes]

    def sample_sections(self, sample: SampleView) -> list[tuple[str, Section]]:
        return [(name, s) for name, secs in self._call("gui_viewer_sample_sections", f"{sample.task} doc {sample.doc_id!r}",
                                                      sample=sample) for s in secs]

    def run_reports(self, run: RunView, viewings: Sequence[str]) -> list[Table | Report]:
        """The tables and reports of each benchmark the side ran (in registry order), then the viewer plugins'."""
        out = [b for v in viewings for b in (self._own(v, "gui_viewer_run_reports", run=run) or [])]
        return out + [b for _, blocks in self._call("gui_viewer_run_reports", f"run {run.label!r}", run=run) for b in blocks]

    def run_sections(self, run: RunView) -> list[tuple[str, Section]]:
        return [(name, s) for name, secs in self._call("gui_viewer_run_sections", f"run {run.label!r}", run=run) for s in secs]


def no_plugins() -> ViewerPlugins:
    """The benchmarks' own viewing modules only (no installed viewer plugin)."""
    return ViewerPlugins(load_entry_points=False)


_BUILTIN: ViewerPlugins | None = None


def builtin() -> ViewerPlugins:
    """One shared :func:`no_plugins` (reading a record without a site, e.g. ``records.outcome``)."""
    global _BUILTIN
    if _BUILTIN is None:
        _BUILTIN = no_plugins()
    return _BUILTIN


__all__: Sequence[str] = ["ViewerPlugins", "hookimpl", "SampleView", "RunView", "Section", "Shape"]
