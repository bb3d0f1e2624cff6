"""What lmms-eval must say plainly when a task does not run: bad data (``DataError``) and configuration mistakes
(``ConfigError``) met while it builds tasks are not retried and are repeated as the last output; a metric a task names
that no plugin registered stops that task with the metric's name. Installed by ``gui_tasks.harness.lmms_integration.attach``;
imports nothing heavy at module level (the integration loads at interpreter start)."""

from __future__ import annotations

import functools
import os
import sys

_MARK = "__gui_eval_patched__"  # the same mark as gui_tasks.harness.lmms_integration's patches (idempotent installs)


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

    from gui_core.errors import DataError
    from gui_tasks.runs.provenance import record_plugins

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
            record_plugins(self)  # gui_tasks.runs.provenance
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

    from gui_core.errors import ConfigError, DataError

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
    """A task stopped while it was built (``gui_tasks.harness.lmms_rows``): repeated plainly at the end of the run's log, once;
    a configuration mistake (an unset data variable...) is said to be one, not bad data."""
    from gui_core.registry import UnknownName

    from gui_core.errors import ConfigError
    from gui_core.hub_net import HubStall

    if exc is not None and _data_error_in(exc, (ConfigError, UnknownName)) is not None:
        _failed(f"task {task} did not run: configuration error: {why}")
        return
    if exc is not None and _data_error_in(exc, HubStall) is not None:  # the network, not the data: no bad-data hint
        _failed(f"task {task} did not run: {why}")
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
                    from gui_core.errors import ConfigError

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
