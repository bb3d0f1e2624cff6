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


def yaml_tasks_dir() -> Path:
    """The installed folder of our lmms-eval task YAMLs."""
    from pathlib import Path

    import yaml_tasks

    return Path(yaml_tasks.__file__).resolve().parent


TASKS_GROUP = "gui_eval.tasks"


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
    _YAML_PATHS.clear()
    _YAML_PATHS.update({name: e["yaml_path"] for name, e in out.items() if isinstance(e.get("yaml_path"), str)})
    return out


_YAML_PATHS: dict[str, str] = {}  # task name -> YAML file, of the index built last (for provenance at task build)


def record_plugins(task) -> None:
    """Add the third-party plugins the task runs with (:mod:`gui_tasks.provenance`) to its metadata as ``plugins``
    (only when there are any: results without plugins stay as they were)."""
    from gui_tasks.provenance import task_plugins

    config = getattr(task, "config", None)
    name = getattr(config, "task", None)
    if config is None or not isinstance(name, str):
        return
    try:
        plugins = task_plugins(_YAML_PATHS.get(name))
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
    from gui_tasks.lmms_layout import install_layout_hook

    install_task_path()
    install_layout_hook()
    register_with_lmms_eval()
    install_data_error_report()
    install_metric_check()
    from gui_tasks.lmms_stats import install_stats_hook

    install_stats_hook()


_DATA_ERRORS: list[str] = []  # "task: message" of every bad-data error met while building tasks


def install_data_error_report() -> None:
    """Bad data (``DataError``) met while lmms-eval builds a task: not retried, and repeated plainly as the last output.

    lmms-eval runs ``ConfigurableTask.download`` (where ``process_docs`` runs) under a tenacity retry,
    five attempts, and then shows only ``RetryError[...]`` inside a traceback before exiting 0. We
    (1) tell that retry not to retry a ``DataError`` and (2) wrap ``ConfigurableTask.__init__`` so the
    error's file/row/field message is printed again at interpreter exit, after everything else.
    """
    import inspect

    from lmms_eval.api.task import ConfigurableTask

    from gui_tasks.errors import DataError

    init = ConfigurableTask.__init__
    if getattr(init, _MARK, False):
        return
    retrying = getattr(ConfigurableTask.download, "retry", None)
    if retrying is not None and hasattr(retrying, "retry"):
        from tenacity import retry_if_exception

        retrying.retry = retry_if_exception(lambda exc: not isinstance(exc, DataError)) & retrying.retry

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            init(self, *args, **kwargs)
            record_plugins(self)
        except Exception as exc:
            try:  # subclasses (ConfigurableMessagesTask) pass config positionally
                config = inspect.signature(init).bind_partial(self, *args, **kwargs).arguments.get("config") or {}
            except TypeError:
                config = kwargs.get("config") or {}
            name = config.get("task") if isinstance(config, dict) else getattr(config, "task", None)
            _task_failed(name, exc)
            raise

    setattr(__init__, _MARK, True)
    ConfigurableTask.__init__ = __init__


def _task_failed(name, exc) -> None:
    """Record why task ``name`` did not run (:func:`_failed`): a configuration mistake (ConfigError, an unknown
    registry name), bad data (DataError, also listed in the bad-data report), or any other exception, one line each."""
    from gui_core.registry import UnknownName

    from gui_tasks.errors import ConfigError, DataError

    config_error = _data_error_in(exc, (ConfigError, UnknownName))
    data_error = _data_error_in(exc, DataError)
    if config_error is not None:
        _failed(f"task {name or '?'} did not run: configuration error: {config_error}")
    elif data_error is not None:
        _DATA_ERRORS.append(f"task {name or '?'}: {data_error}")
        _failed(f"task {name or '?'} did not run: bad benchmark data: {data_error}")
    elif not isinstance(exc, TaskConfigError):  # anything else lmms-eval would show only inside a traceback
        _failed(f"task {name or '?'} did not run: {exc.__class__.__name__}: {' '.join(str(exc).split())[:300]}")


def note_stopped(task: str, why: str, exc: BaseException | None = None) -> None:
    """A task stopped while it was built (``gui_tasks.lmms_rows``): repeated plainly at the end of the run's log, once;
    a configuration mistake (an unset data variable...) is said to be one, not bad data."""
    from gui_core.registry import UnknownName

    from gui_tasks.errors import ConfigError

    if exc is not None and _data_error_in(exc, (ConfigError, UnknownName)) is not None:
        _failed(f"task {task} did not run: configuration error: {why}")
        return
    _DATA_ERRORS.append(f"task {task}: {why}")
    _failed(f"task {task} did not run: {why}")


def _data_error_in(exc, kind):
    """The ``kind`` error behind ``exc``: itself, a tenacity ``RetryError``'s last attempt, or a cause/context."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, kind):
            return exc
        last = getattr(exc, "last_attempt", None)
        inner = last.exception() if last is not None and getattr(last, "failed", False) else None
        exc = inner or exc.__cause__ or exc.__context__
    return None


def _print_data_errors() -> None:
    """The bad-data hint, once; the tasks it concerns follow in the did-not-run lines (each said once)."""
    print("\ngui-eval: bad benchmark data (fix the copy, or opt in to skipping bad rows with GUI_EVAL_SKIP_BAD_ROWS=1; "
          "`gui-eval data check BENCHMARK DIR` lists every bad row); the tasks below did not run (the run's other tasks did):",
          file=sys.stderr, flush=True)


_FAILURES: list[str] = []  # one line per task that did not run (or name that matched no task), printed last at exit


def _failed(line: str) -> None:
    """Remember why a task did not run; lmms-eval catches the exception and exits 0, so the log's last lines say it."""
    _FAILURES.append(line)
    if len(_FAILURES) == 1:
        import atexit

        atexit.register(_print_failures)


def _print_failures() -> None:
    """The bad-data report, then one line per failed task: the log's last lines."""
    if _DATA_ERRORS:
        _print_data_errors()
        _DATA_ERRORS.clear()
    elif _FAILURES:
        print("", file=sys.stderr)
    for line in dict.fromkeys(_FAILURES):
        print(f"gui-eval: {line}", file=sys.stderr, flush=True)
    _FAILURES.clear()


class TaskConfigError(ValueError):
    """A task whose metrics cannot be scored or aggregated; refused before the model generates anything."""


def unresolved_metrics(metric_list) -> list[str]:
    """What in a task's ``metric_list`` lmms-eval cannot resolve: unknown aggregations, metrics without one."""
    import difflib

    from lmms_eval.api import registry as reg

    from gui_metrics import plugin_failures

    problems = []
    for entry in metric_list or []:
        if not isinstance(entry, dict) or "metric" not in entry:
            problems.append(f"metric_list entry {entry!r} has no 'metric'")
            continue
        metric, agg = entry["metric"], entry.get("aggregation")
        if callable(metric) or callable(agg):
            continue
        if agg is None:
            if metric not in reg.METRIC_AGGREGATION_REGISTRY:
                problems.append(f"metric {metric!r} has no aggregation: name one with 'aggregation:' (no metric of "
                                "that name is registered with a default aggregation)")
            continue
        if agg not in reg.AGGREGATION_REGISTRY:
            close = difflib.get_close_matches(str(agg), list(reg.AGGREGATION_REGISTRY), n=3)
            problems.append(f"metric {metric!r}: aggregation {agg!r} is not registered"
                            + (f" (did you mean {', '.join(close)}?)" if close else ""))
    if problems:
        failures = plugin_failures()
        if failures:
            problems.append("metric plugins left out: " + "; ".join(str(f) for f in failures))
    return problems


def check_task_metrics(task: str, metric_list) -> None:
    """Refuse (:class:`TaskConfigError`) a task whose metrics :func:`unresolved_metrics` cannot resolve."""
    problems = unresolved_metrics(metric_list)
    if problems:
        message = f"task {task}: refused before any model time is spent: " + "; ".join(problems)
        _failed(message + " (docs/plugins.md)")
        raise TaskConfigError(message)


def install_metric_check() -> None:
    """Check every selected task's metrics (1) when lmms-eval's CLI matches the task names, before it loads the model,
    and (2) when a task is built (any other path); both wraps are marked and installed once."""
    from lmms_eval.api.task import ConfigurableTask
    from lmms_eval.tasks import TaskManager

    match = TaskManager.match_tasks
    if not getattr(match, _MARK, False):
        @functools.wraps(match)
        def match_tasks(self, task_list):
            names = match(self, task_list)
            for name in task_list:  # lmms-eval raises "Tasks not found" inside a traceback and exits 0
                if name not in names and "*" not in name and not os.path.isfile(name):
                    from gui_tasks.errors import ConfigError

                    error = ConfigError("--tasks", name, self.all_tasks, "docs/running.md",
                                        message=f"--tasks: {name!r} is not a task, group or tag (`lmms-eval --tasks list`)")
                    _failed(str(error))
            for name in names:
                entry = self.task_index.get(name) or {}
                if entry.get("type") not in ("task", "python_task"):
                    continue
                try:
                    config = self._get_config(name)
                except Exception:  # lmms-eval reports a config that does not load when it builds the task
                    continue
                if isinstance(config, dict):
                    check_task_metrics(name, config.get("metric_list"))
            return names

        setattr(match_tasks, _MARK, True)
        TaskManager.match_tasks = match_tasks

    prepare = ConfigurableTask._prepare_metric_and_aggregation
    if not getattr(prepare, _MARK, False):
        @functools.wraps(prepare)
        def _prepare_metric_and_aggregation(self):
            name = getattr(self.config, "task", "?")
            check_task_metrics(name, self.config.metric_list)
            return prepare(self)

        setattr(_prepare_metric_and_aggregation, _MARK, True)
        ConfigurableTask._prepare_metric_and_aggregation = _prepare_metric_and_aggregation


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
            '__import__("gui_tasks.lmms_integration").lmms_integration.register_import_hook()\n'
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
