"""Which third-party plugins took part in a result: distribution name, version and a hash of its installed files.

Recorded per task in its metadata (``plugins``: the task package that holds the task, every loaded metric plugin,
since any of them may add per-sample values to the task's records, and every third-party benchmark, family and judge
plugin installed, since their records decide rows, prompts and verdicts) and per submission (those of every task plus
the selected intervention plugins): every plugin group of ``gui_core.plugin_groups.GROUPS``. Built-in plugins are covered by the ``gui_eval`` version. Changing a
plugin's code changes ``files_sha256``; re-scoring then refuses the run ("metadata differs ... ['plugins']").
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from importlib.metadata import Distribution
from pathlib import Path
from typing import Any, Iterable, Sequence

from gui_core.plugin_dists import dist_name, is_own
from gui_core.plugin_groups import GROUPS, OLD_SPELLINGS, entry_points

_ALL_GROUPS = frozenset([*GROUPS.values(), *(old for olds in OLD_SPELLINGS.values() for old in olds)])
_SKIP_NAMES = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})  # written by the installer, not the author


def _skip(rel: str) -> bool:
    parts = rel.replace(os.sep, "/").split("/")
    return "__pycache__" in parts or rel.endswith((".pyc", ".pyo")) or parts[-1] in _SKIP_NAMES


def _files(dist: Distribution) -> dict[str, Path]:
    """relative name -> file: the distribution's recorded files, plus the packages its entry points name (editable
    installs record only a ``.pth`` file)."""
    out: dict[str, Path] = {}
    for rel in dist.files or []:
        path = Path(dist.locate_file(rel))
        if not _skip(str(rel)) and path.is_file():
            out[str(rel).replace(os.sep, "/")] = path
    tops = {ep.module.split(".")[0] for ep in dist.entry_points if ep.group in _ALL_GROUPS}
    for top in sorted(tops):
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin:
            continue
        roots = list(spec.submodule_search_locations or [])
        if not roots and os.path.isfile(spec.origin):
            out.setdefault(os.path.basename(spec.origin), Path(spec.origin))
        for root in roots:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in filenames:
                    path = Path(dirpath) / name
                    rel = f"{top}/{path.relative_to(root).as_posix()}"
                    if not _skip(rel):
                        out.setdefault(rel, path)
    return out


@functools.lru_cache(maxsize=256)
def _files_sha256(key: tuple[tuple[str, str, int, int], ...]) -> str:
    from gui_tasks.runs.hashing import file_sha256

    h = hashlib.sha256()
    for rel, path, _size, _mtime in key:
        h.update(f"{rel}\0{file_sha256(path)}\n".encode("utf-8"))
    return h.hexdigest()


def files_sha256(dist: Distribution) -> str:
    """sha256 over (relative name, sha256 of the bytes) of every installed file of ``dist`` (no caches, no RECORD)."""
    key = []
    for rel, path in sorted(_files(dist).items()):
        st = path.stat()
        key.append((rel, str(path), st.st_size, st.st_mtime_ns))
    return _files_sha256(tuple(key))


def record(kind: str, entry_point: str, dist: Distribution | None) -> dict[str, Any]:
    """One plugin's provenance: kind, entry-point name, distribution, version, files_sha256."""
    return {"kind": kind, "entry_point": entry_point, "distribution": dist_name(dist),
            "version": dist.version if dist is not None else None,
            "files_sha256": files_sha256(dist) if dist is not None else None}


def _third_party(group: str, names: Iterable[str] | None = None) -> list[tuple[str, Distribution | None]]:
    wanted = None if names is None else set(names)
    return [(ep.name, getattr(ep, "dist", None)) for ep in sorted(entry_points(group), key=lambda e: e.name)
            if not is_own(ep) and (wanted is None or ep.name in wanted)]


def task_plugins(yaml_path: str | None) -> list[dict[str, Any]]:
    """The third-party plugins a task built from ``yaml_path`` runs with: its task package (when the file lies in a
    plugin folder) and every loaded metric plugin."""
    from gui_metrics.manager import plugin_failures
    from gui_tasks.runs.task_folders import plugin_task_folders

    out = []
    if isinstance(yaml_path, str):
        real = os.path.realpath(yaml_path)
        for _label, folder, entry_point, dist in plugin_task_folders():
            if real.startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep):
                out.append(record("task", entry_point, dist))
                break
    failed = {f.plugin for f in plugin_failures()}
    out += [record("metric", n, d) for n, d in _third_party(GROUPS["metric"]) if n not in failed]
    out += [record(kind, n, d) for kind in ("benchmark", "family", "judge") for n, d in _third_party(GROUPS[kind])]
    return out


def intervention_plugins(names: Sequence[str]) -> list[dict[str, Any]]:
    """The third-party intervention plugins among the selected ``names`` (built-in ones win a name: not listed)."""
    own = {ep.name for ep in entry_points(GROUPS["intervention"]) if is_own(ep)}
    return [record("intervention", n, d) for n, d in _third_party(GROUPS["intervention"], [x for x in names if x not in own])]


def merged(*lists: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Provenance records of several sources, each once, in a fixed order."""
    seen: dict[tuple, dict[str, Any]] = {}
    for items in lists:
        for r in items:
            seen.setdefault((r["kind"], r["entry_point"], r["distribution"]), r)
    return [seen[k] for k in sorted(seen)]


def record_plugins(task) -> None:
    """Add the third-party plugins the task runs with (:mod:`gui_tasks.runs.provenance`) to its metadata as ``plugins``
    (only when there are any: results without plugins stay as they were)."""
    from gui_tasks.runs.task_folders import YAML_PATHS, _report

    config = getattr(task, "config", None)
    name = getattr(config, "task", None)
    if config is None or not isinstance(name, str):
        return
    try:
        plugins = task_plugins(YAML_PATHS.get(name))
    except Exception as exc:  # provenance never stops a run; it is reported loudly instead
        from gui_core.plugin_errors import describe

        _report(f"task {name}: the plugins it runs with could not be recorded: {describe(exc)}")
        return
    if not plugins:
        return
    meta = getattr(config, "metadata", None)
    if isinstance(meta, list):
        meta.append({"plugins": plugins})
    elif isinstance(meta, dict):
        meta["plugins"] = plugins
    elif meta is None:
        config.metadata = {"plugins": plugins}
