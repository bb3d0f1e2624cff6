"""Where task YAMLs live: our installed ``yaml_tasks`` folder and the folders of third-party task packages (entry-point
group ``gui_eval.tasks``). Read by the lmms-eval integration (``gui_tasks.harness.lmms_integration``) and by provenance records
(``gui_tasks.runs.provenance``); imports nothing heavy (the integration loads at interpreter start)."""

from __future__ import annotations

import os
import sys
TYPE_CHECKING = False  # not typing.TYPE_CHECKING: imported at every interpreter start (.pth hook)
if TYPE_CHECKING:
    from pathlib import Path


def yaml_tasks_dir() -> Path:
    """The installed folder of our lmms-eval task YAMLs."""
    from pathlib import Path

    import yaml_tasks

    return Path(yaml_tasks.__file__).resolve().parent


TASKS_GROUP = "gui_eval.tasks"
# task name -> YAML file, of the index lmms-eval built last (gui_tasks.harness.lmms_integration fills it; provenance reads it
# when a task is built)
YAML_PATHS: dict[str, str] = {}


def _folder_of(payload) -> list[str]:
    """An entry point's payload -> YAML folders: a package (its folder), a path, or a callable returning path(s)."""
    import inspect

    if inspect.ismodule(payload):
        if not getattr(payload, "__file__", None):
            return [str(p) for p in getattr(payload, "__path__", [])]
        return [os.path.dirname(os.path.abspath(payload.__file__))]
    if callable(payload):
        payload = payload()
    items = [payload] if isinstance(payload, (str, os.PathLike)) else list(payload)
    return [os.fspath(p) for p in items]


def plugin_task_folders() -> list[tuple]:
    """``(label, folder, entry-point name, distribution)`` for every YAML folder of an installed third-party task
    package (entry-point group ``gui_eval.tasks``); the label names the plugin in messages.

    A package that fails to load, or names no folder, is reported on stderr by name, file and line, and skipped.
    """
    from importlib.metadata import entry_points

    from gui_core.plugin_errors import describe

    out: list[tuple] = []
    for ep in sorted(entry_points(group=TASKS_GROUP), key=lambda e: e.name):
        try:
            folders = _folder_of(ep.load())
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit at import too: one plugin never ends lmms-eval
            _report(f"task plugin {ep.name!r} ({ep.value}) failed to load: {describe(exc)}")
            continue
        missing = [f for f in folders if not os.path.isdir(f)]
        if missing or not folders:
            _report(f"task plugin {ep.name!r} ({ep.value}) names no folder of task YAMLs: {missing or folders}")
            continue
        dist = getattr(ep, "dist", None)
        label = f"task plugin {ep.name!r} ({dist.metadata['Name'] if dist is not None else '?'}: {ep.value})"
        out += [(label, f, ep.name, dist) for f in folders]
    return out


def plugin_task_dirs() -> list[str]:
    """YAML folders of installed third-party task packages (:func:`plugin_task_folders` without labels)."""
    return [folder for _label, folder, _ep, _dist in plugin_task_folders()]


_REPORTED: set[str] = set()  # each plugin message once per process (lmms-eval builds several TaskManagers)


def _report(message: str) -> None:
    if message not in _REPORTED:
        _REPORTED.add(message)
        print(f"gui-eval: {message}", file=sys.stderr, flush=True)
