"""gui-eval's plugin groups and the one way to read them: built-in and third-party plugins alike.

Every extension point is an entry-point group spelled ``gui_eval.<thing>`` (:data:`GROUPS`); the built-ins are entry
points of the ``gui-eval`` distribution itself (``setup.cfg``), found the way a third party's are, as pytest finds its
own plugins. Three groups had other spellings before (``gui_metrics``, ``gui_interventions``, ``gui_viewer``): they are still read
(:data:`OLD_SPELLINGS`), so an installed plugin keeps working.

A source checkout whose metadata is missing or older than its code (never ``pip install -e .``-ed, or a setup.cfg
changed since) still finds its built-ins: when a ``setup.cfg`` of the ``gui-eval`` project lies beside the packages,
its ``[options.entry_points]`` are this distribution's entry points, in place of the installed ones. A registry that
finds no built-in record at all says so, naming ``pip install -e .`` (:func:`load_records` in ``gui_core.registry``).
"""

from __future__ import annotations

import configparser
import functools
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from gui_core.plugin_dists import OWN_DIST, dist_name, is_own

# kind -> entry-point group (recorded by gui_tasks.runs.provenance; docs/plugins.md lists them)
GROUPS: dict[str, str] = {
    "benchmark": "gui_eval.benchmarks",
    "family": "gui_eval.families",
    "judge": "gui_eval.judges",
    "task": "gui_eval.tasks",
    "metric": "gui_eval.metrics",
    "intervention": "gui_eval.interventions",
    "viewer": "gui_eval.viewers",
}
# group -> its former spellings, still read
OLD_SPELLINGS: dict[str, tuple[str, ...]] = {"gui_eval.metrics": ("gui_metrics",),
                                             "gui_eval.interventions": ("gui_interventions",),
                                             "gui_eval.viewers": ("gui_viewer",)}
SOURCE_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the packages (and, in a checkout, setup.cfg)


@dataclass(frozen=True)
class Entry:
    """One entry point: like ``importlib.metadata.EntryPoint`` (name, value, group, dist, load), plus ``own`` (one of
    gui-eval's built-ins, also when read from a checkout's setup.cfg)."""

    name: str
    value: str
    group: str
    dist: Any = None
    own: bool = False

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def load(self) -> Any:
        return metadata.EntryPoint(self.name, self.value, self.group).load()


def source_entry_points(root: Path | None = None) -> dict[str, tuple[tuple[str, str], ...]] | None:
    """group -> ((name, value), ...) of the ``gui-eval`` project's ``setup.cfg`` in ``root`` (default: beside the
    packages, :data:`SOURCE_ROOT`); None when there is none (an installed wheel: the metadata is the truth)."""
    return _read_setup_cfg(root or SOURCE_ROOT)


@functools.lru_cache(maxsize=4)
def _read_setup_cfg(root: Path) -> dict[str, tuple[tuple[str, str], ...]] | None:
    path = root / "setup.cfg"
    if not path.is_file():
        return None
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(path, encoding="utf-8")
    if cfg.get("metadata", "name", fallback="").strip().replace("_", "-").lower() != OWN_DIST:
        return None
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for group, text in (cfg.items("options.entry_points") if cfg.has_section("options.entry_points") else []):
        pairs = [line.split("=", 1) for line in text.splitlines() if "=" in line and not line.strip().startswith("#")]
        out[group] = tuple((k.strip(), v.strip()) for k, v in pairs)
    return out


def _own_dist() -> Any:
    try:
        return metadata.distribution(OWN_DIST)
    except metadata.PackageNotFoundError:
        return None


def entry_points(group: str) -> list[Entry]:
    """Every entry point of ``group`` (and of its old spellings): gui-eval's own first, then third parties', each by
    name (and distribution: the same order from a setup.cfg as from installed metadata, which setuptools sorts); one
    declared under both spellings is listed once."""
    groups = (group, *OLD_SPELLINGS.get(group, ()))
    installed = [ep for g in groups for ep in metadata.entry_points(group=g)]
    source = source_entry_points()
    if source is not None:  # a checkout: its setup.cfg names the built-ins, whatever metadata is installed
        dist = _own_dist()
        own = [Entry(n, v, g, dist, True) for g in groups for n, v in source.get(g, ())]
    else:
        own = [Entry(ep.name, ep.value, ep.group, getattr(ep, "dist", None), True) for ep in installed if is_own(ep)]
    third = [Entry(ep.name, ep.value, ep.group, getattr(ep, "dist", None)) for ep in installed if not is_own(ep)]
    out: dict[tuple[str, str, str], Entry] = {}
    for e in sorted(own, key=lambda e: e.name) + sorted(third, key=lambda e: (e.name, dist_name(e.dist))):
        out.setdefault((e.name, e.value, "" if e.own else dist_name(e.dist)), e)
    return list(out.values())
