"""The one place where this package attaches itself to an unmodified lmms-eval.

lmms-eval has no entry-point group for tasks, but it loads the ``lmms_eval.models``
entry points when ``lmms_eval.models`` is imported, which every CLI path does before it
builds a ``TaskManager``. Our entry point (``manifests``) therefore (1) returns the
``gui_hf``, ``gui_wrap`` and ``gui_openai`` model manifests, (2) registers every gui metric with lmms-eval's registries
and (3) makes ``TaskManager`` index our installed ``yaml_tasks`` folder, and the YAML
folder of every package in our entry-point group ``gui_eval.tasks`` (third-party tasks),
as if they had been passed with ``--include_path``. An explicit ``--include_path`` to the
same folder is de-duplicated, so both forms work.

One lmms-eval path builds a ``TaskManager`` without importing its models
(``lmms-eval tasks list``). For it, ``gui-eval install-lmms-hook`` writes a one-line
``.pth`` file into site-packages that registers a post-import hook: when
``lmms_eval.tasks`` is first imported, the same patch is applied. ``setup.sh`` runs it;
``gui-eval install-lmms-hook --remove`` undoes it.
"""

from __future__ import annotations

import functools
import os
import sys
TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module loads at every interpreter start (.pth hook)
if TYPE_CHECKING:
    from pathlib import Path

_MARK = "__gui_eval_patched__"

# where task YAMLs live, and how a task that does not run is reported: their own modules (re-exported here)
from gui_tasks.runs.task_folders import (TASKS_GROUP, YAML_PATHS, _folder_of, _report, plugin_task_dirs,  # noqa: E402,F401
                                    plugin_task_folders, yaml_tasks_dir)
from gui_tasks.harness.lmms_failures import (TaskConfigError, _data_error_in, _failed, _print_data_errors,  # noqa: E402,F401
                                     _print_failures, _task_failed, check_task_metrics, install_data_error_report,
                                     install_metric_check, note_stopped, unresolved_metrics)


def _same_folder(a: str, b: str) -> bool:
    return os.path.realpath(a).rstrip("/") == os.path.realpath(b).rstrip("/")


def _with_our_path(include_path) -> list[str]:
    paths = [] if include_path is None else [include_path] if isinstance(include_path, (str, os.PathLike)) else list(include_path)
    if not any(_same_folder(str(p), str(yaml_tasks_dir())) for p in paths):
        paths.append(str(yaml_tasks_dir()))
    return [str(p) for p in paths]


def _owner(entry: dict) -> str:
    """Who indexed a task-index entry: lmms-eval's own tasks, gui-eval's, a plugin folder or an --include_path."""
    path = entry.get("yaml_path")
    if not isinstance(path, str):
        return f"a {entry.get('type', 'task')} built from configs"
    if os.path.realpath(path).startswith(os.path.realpath(os.path.dirname(_lmms_tasks_file())) + os.sep):
        return f"lmms-eval's own {path}"
    if os.path.realpath(path).startswith(os.path.realpath(str(yaml_tasks_dir())) + os.sep):
        return f"gui-eval's built-in {path}"
    return f"{path} (--include_path)"


def _lmms_tasks_file() -> str:
    import lmms_eval.tasks

    return lmms_eval.tasks.__file__


def index_plugin_folder(tm, folder: str, label: str) -> dict:
    """lmms-eval's index of one plugin folder, each YAML file on its own: a file that does not parse is reported
    (file, line) and left out; the folder's other tasks are indexed. lmms-eval's YAML reader is wrapped only while
    this folder is walked (undone in ``finally``)."""
    from lmms_eval import utils

    from gui_core.plugin_errors import describe

    original = utils.load_yaml_config
    depth = [0]

    def guarded(*args, **kwargs):  # only the outermost read of a file is guarded: an include error names the file too
        if depth[0]:
            return original(*args, **kwargs)
        depth[0] += 1
        try:
            return original(*args, **kwargs)
        except Exception as exc:
            path = kwargs.get("yaml_path", args[0] if args else None)
            _report(f"{label}: task file {path} left out (it does not load): {describe(exc)}")
            return {}
        finally:
            depth[0] -= 1

    utils.load_yaml_config = guarded
    try:
        return tm._get_task_and_group(folder)
    finally:
        utils.load_yaml_config = original


def _index_with_plugins(tm, index: dict, user_paths: list[str]) -> dict:
    """``index`` plus the tasks of every plugin folder; names already taken (lmms-eval's, ours, --include_path, an
    earlier plugin) win and each shadowing is reported."""
    out = dict(index)
    owner = {name: _owner(entry) for name, entry in index.items()}
    for label, folder, _ep, _dist in plugin_task_folders():
        if any(_same_folder(folder, p) for p in user_paths):
            continue  # already indexed through --include_path
        for name, entry in index_plugin_folder(tm, folder, label).items():
            if name in out:
                kind = "task" if entry.get("type") in ("task", "python_task") else entry.get("type", "task")
                _report(f"{label}: {kind} {name!r} ({entry.get('yaml_path')}) is shadowed by "
                        f"{owner[name]} and left out; that one runs under this name: rename yours")
                continue
            out[name] = entry
            owner[name] = f"{label} ({entry.get('yaml_path')})"
    YAML_PATHS.clear()
    YAML_PATHS.update({name: e["yaml_path"] for name, e in out.items() if isinstance(e.get("yaml_path"), str)})
    return out


def _index_folder(tm, ours: str, task_dir: str) -> dict:
    """lmms-eval's index of one folder; ours is read with :func:`index_reader` (the others as lmms-eval reads them)."""
    walk = type(tm)._get_task_and_group
    if not _same_folder(task_dir, ours):
        return walk(tm, task_dir)
    from lmms_eval import utils

    original = utils.load_yaml_config
    utils.load_yaml_config = index_reader(original)
    try:
        return walk(tm, task_dir)
    finally:
        utils.load_yaml_config = original


def index_reader(original):
    """lmms-eval's ``load_yaml_config`` for one index walk of our folder, with its result unchanged but cheaper.

    The index reads every ``*.yaml`` with ``mode="simple"`` through PyYAML's pure-Python ``FullLoader``, and
    re-reads a task's ``include:`` bases for every task. Here each file is parsed once per walk, by the same
    loader compiled (libyaml's ``CFullLoader``, when PyYAML has it), ``!function`` left unresolved as lmms-eval's
    simple mode leaves it; include resolution stays lmms-eval's own (``original`` with the parsed dict). Any other
    call (``mode="full"``, a dict) goes to ``original``.
    """
    import yaml
    from lmms_eval import utils

    class Loader(getattr(yaml, "CFullLoader", yaml.FullLoader)):  # type: ignore[misc]
        pass

    Loader.add_constructor("!function", utils.ignore_constructor)
    cache: dict[str, dict] = {}

    def load_yaml_config(yaml_path=None, yaml_config=None, yaml_dir=None, mode="full"):
        if mode != "simple" or yaml_config is not None or yaml_path is None:
            return original(yaml_path=yaml_path, yaml_config=yaml_config, yaml_dir=yaml_dir, mode=mode)
        key = os.path.abspath(yaml_path)
        if key not in cache:
            with open(yaml_path, "rb") as file:
                config = yaml.load(file, Loader=Loader)
            cache[key] = original(yaml_config=config, yaml_dir=yaml_dir or os.path.dirname(yaml_path), mode=mode)
        return dict(cache[key])  # a copy: the caller may pop keys ("include")

    return load_yaml_config


def install_task_path() -> None:
    """Patch ``TaskManager.initialize_tasks`` (once) to include our YAML folder and third-party task packages."""
    if os.environ.get("GUI_EVAL_NO_AUTO_TASKS"):
        return
    from lmms_eval.tasks import TaskManager

    original = TaskManager.initialize_tasks
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def initialize_tasks(self, include_path=None, include_defaults=True):
        paths = _with_our_path(include_path)
        self._get_task_and_group = functools.partial(_index_folder, self, str(yaml_tasks_dir()))
        try:
            index = original(self, include_path=paths, include_defaults=include_defaults)
        finally:
            del self._get_task_and_group  # the class's own method again
        return _index_with_plugins(self, index, paths)

    setattr(initialize_tasks, _MARK, True)
    TaskManager.initialize_tasks = initialize_tasks


def attach() -> None:
    """Everything lmms-eval needs from us before it builds tasks (idempotent)."""
    from gui_metrics.lmms_bridge import register_with_lmms_eval
    from gui_tasks.harness.lmms_layout import install_layout_hook

    install_task_path()
    install_layout_hook()
    register_with_lmms_eval()
    install_data_error_report()
    install_metric_check()
    from gui_tasks.harness.lmms_stats import install_stats_hook

    install_stats_hook()
    from gui_tasks.harness.lmms_dates import install_zoned_dates

    install_zoned_dates()  # run stamps with their UTC offset (lmms-eval writes UTC+8 without one)


class _TasksImportHook:  # a meta path finder (duck-typed: importlib.abc costs ~10 ms at start-up)
    """Runs :func:`attach` right after ``lmms_eval.tasks`` is imported."""

    TARGET = "lmms_eval.tasks"

    def find_spec(self, name, path, target=None):
        if name != self.TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _AttachingLoader(spec.loader)
                return spec
        return None


class _AttachingLoader:  # wraps the real loader of lmms_eval.tasks
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            attach()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # never break lmms-eval itself
            print(f"gui-eval: could not attach to lmms-eval: {exc!r}", file=sys.stderr)


def register_import_hook() -> None:
    """Called from the ``.pth`` line at interpreter start: cheap, imports nothing heavy."""
    if "lmms_eval.tasks" in sys.modules:
        attach()
    elif not any(isinstance(f, _TasksImportHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _TasksImportHook())


PTH_NAME = "gui_eval_lmms_hook.pth"


def install_lmms_hook(*, remove: bool = False, site_dir: str | None = None) -> Path:
    """Write (or remove) the ``.pth`` file that registers the import hook."""
    import sysconfig
    from pathlib import Path

    target = Path(site_dir or sysconfig.get_paths()["purelib"]) / PTH_NAME
    if remove:
        target.unlink(missing_ok=True)
    else:
        # One line starting with "import", so site.py executes it; a no-op once we are uninstalled.
        line = (
            'import importlib.util as _u; _u.find_spec("gui_tasks") and '
            '__import__("gui_tasks.harness.lmms_integration").harness.lmms_integration.register_import_hook()\n'
        )
        target.write_text(line, encoding="utf-8")
    return target


def manifests():
    """Entry point payload for ``lmms_eval.models``: our model backends."""
    from lmms_eval.models.registry_v2 import ModelManifest

    try:
        attach()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # still offer our backends: lmms-eval would otherwise say only "Model 'gui_hf' not found"
        print(f"gui-eval: could not attach to lmms-eval: {exc!r}", file=sys.stderr)
    return [ModelManifest(model_id="gui_hf", simple_class_path="gui_models.hf_backend.GuiHF"),
            # chat by default (like lmms-eval's own chat backends); --force_simple picks the simple class
            ModelManifest(model_id="gui_wrap", simple_class_path="gui_models.wrap_backend.GuiWrap",
                          chat_class_path="gui_models.wrap_backend.GuiWrapChat"),
            # served engines and hosted APIs; simple layout like gui_hf (the same prompt text and images)
            ModelManifest(model_id="gui_openai", simple_class_path="gui_models.openai_backend.GuiOpenAI")]
