"""Reading what lmms-eval wrote: ``<model_dir>/<date>_results.json`` and ``<date>_samples_<task>.jsonl``.

The layout and keys follow ``lmms_eval/loggers/evaluation_tracker.py`` and
``lmms_eval/evaluator.py`` (0.7.3). Report and submission commands read runs only through
these loaders, so a change of lmms-eval's layout is handled in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from gui_core.bounds import is_finite  # also imported from here by the reports
from gui_core.errors import ConfigError, DataError
from gui_core.logit_capture import SIDE_KEY
from gui_core.reasoning import REASONING_KEY
from gui_tasks.runs.input_files import read_jsonl, read_text

RESULTS_SUFFIX = "_results.json"
# lmms-eval's own keys of a samples line (evaluator.py 0.7.3); every other dict value is a metric's value.
# SIDE_KEY: a grounding response's logged side channel (gui_core.logit_capture.response_side), not a record;
# REASONING_KEY: a thinking model's reading of the response (gui_core.reasoning.logged_record), not a record either.
LOG_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "token_counts", "doc_hash",
                      "prompt_hash", "target_hash", "input", "input_media", SIDE_KEY, REASONING_KEY})
NO_FILTER = "none"  # lmms-eval's name for "no filter": metric keys read "mcq_acc,none"


@dataclass(frozen=True)
class TaskResult:
    """One task (or group) of a results file: aggregate metrics and what describes the task."""

    task: str
    metrics: dict[str, float]  # "mcq_acc" (",none" stripped); other filters keep "metric,filter"
    stderr: dict[str, float]  # "mcq_acc_stderr" etc., numeric ones only
    metadata: dict[str, Any]  # the YAML ``metadata`` (benchmark, lang, source, protocols, version)
    version: Any  # ``versions[task]``
    n_samples: dict[str, int] | None  # {"original": N, "effective": n}; None for groups
    higher_is_better: dict[str, bool | None]
    config: dict[str, Any]  # the task's full config as lmms-eval dumped it
    subtasks: tuple[str, ...] = ()  # non-empty for a group

    @property
    def is_group(self) -> bool:
        return bool(self.subtasks)

    def interval(self, metric: str) -> tuple[float, float] | None:
        """The metric's 95% interval (cluster bootstrap, ``gui_tasks.harness.lmms_stats``) as recorded with the results, if any."""
        rec = (self.metadata.get("intervals") or {}).get(metric if "," in metric else f"{metric},{NO_FILTER}")
        if not isinstance(rec, Mapping) or not is_finite(rec.get("low")) or not is_finite(rec.get("high")):
            return None
        return float(rec["low"]), float(rec["high"])


@dataclass(frozen=True)
class RunResults:
    """One lmms-eval results file."""

    path: Path
    model: str  # the backend, e.g. "gui_hf" or "qwen2_5_vl" (``config.model``)
    model_name: str  # the checkpoint, e.g. "Qwen/Qwen2.5-VL-7B-Instruct" (top-level ``model_name``)
    model_args: str
    tasks: dict[str, TaskResult]
    lmms_eval_version: str | None = None  # lmms-eval's "branch@sha" string, when it wrote one
    date: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def checkpoint(self) -> str:
        """A short model name: the checkpoint's last path part, else the backend."""
        name = self.model_name or _pretrained(self.model_args) or self.model
        return name.rstrip("/").split("/")[-1] or self.model

    @property
    def model_label(self) -> str:
        """The row key of every report: checkpoint plus the model args that change results (interventions...).

        Runs of one checkpoint with different settings (``interventions=gui_xli``, ``dtype``...) never
        share a row; only operational arguments (device, batch size) are left out of the key.
        """
        return self.label()

    def label(self, *, without_interventions: bool = False) -> str:
        """:attr:`model_label`, optionally without ``interventions`` and their ``name.param`` arguments."""
        args = setting_args(self.model_args)
        if without_interventions:
            chosen = {n.strip() for a in args if a.startswith("interventions=") for n in a.partition("=")[2].split("+")}
            args = [a for a in args if not a.startswith("interventions=") and a.partition(".")[0] not in chosen]
        return self.checkpoint + (f" [{','.join(args)}]" if args else "")

    @property
    def limit(self) -> float | None:
        """The ``--limit`` the run was made with, or None."""
        value = self.config.get("limit")
        return None if value in (None, "None", "") else value

    def samples_path(self, task: str) -> Path:
        """Where lmms-eval wrote this task's samples (with ``--log_samples``) beside this file."""
        prefix = self.path.name[: -len(RESULTS_SUFFIX)]
        return self.path.with_name(f"{prefix}_samples_{task}.jsonl")



def skipped_rows_notes(runs: Iterable[RunResults], benchmark: str) -> list[str]:
    """One report note per task of ``benchmark`` that skipped bad data rows on request (never silent)."""
    notes = []
    for run in runs:
        for task, res in sorted(run.tasks.items()):
            skipped = res.metadata.get("bad_rows_skipped")
            if res.metadata.get("benchmark") == benchmark and skipped:
                notes.append(f"{run.model_label} {task}: {skipped} bad data row(s) skipped on request "
                             "(GUI_EVAL_SKIP_BAD_ROWS); not the whole benchmark")
    return notes


def limited_notes(runs: Iterable[RunResults], benchmarks: Iterable[str]) -> list[str]:
    """One report note per task of ``benchmarks`` run with ``--limit`` (fewer documents than the task has)."""
    wanted, notes = set(benchmarks), []
    for run in runs:
        for task, res in sorted(run.tasks.items()):
            n = res.n_samples or {}
            if res.is_group or res.metadata.get("benchmark") not in wanted:
                continue
            eff, orig = n.get("effective"), n.get("original")
            if (eff is not None and orig is not None and eff != orig) or (run.limit is not None and eff is None):
                counts = f" ({eff} of {orig} documents)" if eff is not None and orig is not None else ""
                notes.append(f"{run.model_label} {task}: run with --limit {run.limit}{counts}: not the whole benchmark, "
                             "numbers are not comparable with the paper")
    return notes


CHECKPOINT_ARGS = ("pretrained", "model", "model_version", "model_name", "path")
# Model args that do not change what a model answers (where it runs, how requests are batched).
OPERATIONAL_ARGS = frozenset({*CHECKPOINT_ARGS, "device", "device_map", "batch_size", "parallelize", "trust_remote_code",
                              "num_processes", "max_batch_size"})


def setting_args(model_args: str) -> list[str]:
    """The ``key=value`` parts of ``model_args`` that can change results, in their order (empty values dropped)."""
    out = []
    for part in (model_args or "").split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip() and key.strip() not in OPERATIONAL_ARGS and value.strip():
            out.append(f"{key.strip()}={value.strip()}")
    return out


def _pretrained(model_args: str) -> str:
    for part in model_args.split(","):
        key, _, value = part.partition("=")
        if key.strip() in CHECKPOINT_ARGS and value.strip():
            return value.strip()
    return ""


def find_result_files(paths: Iterable[str | Path] | str | Path) -> list[Path]:
    """Results files given directly, or found recursively under directories; sorted, no duplicates."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    out: list[Path] = []
    for p in map(Path, items):
        if p.is_dir():
            out += sorted(p.rglob(f"*{RESULTS_SUFFIX}"))
        elif p.is_file():
            out.append(p)
        else:  # a mistyped path is a configuration mistake, not bad data
            raise ConfigError("run folder", None, page="docs/running.md", message=f"{p}: no such file or directory (give "
                              "the --output_path folder of an lmms-eval run, or one of its *_results.json files)")
    return list(dict.fromkeys(out))


def reports() -> dict[str, str]:
    """The report command for each benchmark (results metadata ``benchmark``), from the ``gui_core.benchmark``
    records."""
    from gui_core.benchmark import BENCHMARKS

    out: dict[str, str] = {}
    for b in BENCHMARKS.values():
        out.setdefault(b.results_name, b.report_command)
    return out


def wrong_run_type(command: str, paths: Iterable[str | Path], wanted: Iterable[str], page: str) -> "ConfigError":
    """The error for a report given runs of none of the ``wanted`` benchmarks: what the runs hold and which command
    reads them."""
    held: dict[str, list[str]] = {}
    for f in find_result_files(paths):
        try:
            run = load_results(f)
        except ValueError:
            continue
        for res in run.tasks.values():
            if not res.is_group:
                held.setdefault(str(res.metadata.get("benchmark") or "?"), []).append(res.task)
    where = ", ".join(map(str, paths))
    if not held:
        return ConfigError("runs", None, page=page, message=f"{command}: no lmms-eval *_results.json file under {where}")
    commands = reports()
    found = "; ".join(f"{b} ({', '.join(sorted(set(t))[:3])}): use gui-eval {commands.get(b, '?')}" for b, t in sorted(held.items()))
    return ConfigError("runs", None, page=page, message=f"{command} reads runs of {', '.join(sorted(set(wanted)))}; "
                                                        f"{where} holds {found}")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _split_metrics(values: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    metrics: dict[str, float] = {}
    stderr: dict[str, float] = {}
    for key, value in values.items():
        name, _, filt = key.partition(",")
        if name == "alias" or not filt:
            continue
        number = _number(value)
        if number is None:  # "N/A" stderrs, strings
            continue
        name = name if filt == NO_FILTER else f"{name},{filt}"
        (stderr if "_stderr" in name else metrics)[name] = number
    return metrics, stderr


# Task-metadata keys a run adds after evaluating (gui_tasks.harness.lmms_stats): results, not the task's definition.
# "processes": fewer processes started than were asked for (gui_tasks.harness.lmms_processes)
RUN_RESULT_KEYS = frozenset({"intervals", "repeats", "repeats_refused", "processes"})


def task_definition(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A task's metadata without what the run added after evaluating (``RUN_RESULT_KEYS``): what defines the task."""
    return {k: v for k, v in metadata.items() if k not in RUN_RESULT_KEYS}


def _metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    meta = config.get("metadata") or {}
    if isinstance(meta, list):  # lmms-eval may keep several metadata dicts
        meta = {k: v for m in meta if isinstance(m, dict) for k, v in m.items()}
    return dict(meta) if isinstance(meta, dict) else {}


def load_results(path: str | Path) -> RunResults:
    """Parse one results file; a malformed file is a DataError naming it and the field."""
    path = Path(path)
    try:
        raw = json.loads(read_text(path))
    except (RecursionError, ValueError) as exc:  # not JSON, or an integer Python refuses to convert (> 4,300 digits)
        if isinstance(exc, DataError):
            raise
        raise DataError(f"not a readable lmms-eval results file ({str(exc)[:200]})", file=str(path)) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("results"), dict):
        raise DataError("missing 'results' object: not an lmms-eval results file", file=str(path), field="results")
    for key in ("configs", "versions", "n-samples", "higher_is_better", "group_subtasks", "config"):
        if not isinstance(raw.get(key, {}), dict):
            raise DataError("must be an object", file=str(path), field=key)
    config = raw.get("config") or {}
    configs, subtasks = raw.get("configs") or {}, raw.get("group_subtasks") or {}
    tasks: dict[str, TaskResult] = {}
    for task, values in raw["results"].items():
        if not isinstance(values, dict):
            raise DataError("task entry is not an object", file=str(path), field=f"results.{task}")
        task_config = configs.get(task) if isinstance(configs.get(task), dict) else {}
        counts = (raw.get("n-samples") or {}).get(task)
        if counts is not None and not (isinstance(counts, dict) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in counts.values())):
            raise DataError("expected {\"original\": N, \"effective\": n} (whole numbers)", file=str(path),
                            field=f"n-samples.{task}")
        metrics, stderr = _split_metrics(values)
        tasks[task] = TaskResult(
            task=task,
            metrics=metrics,
            stderr=stderr,
            metadata=_metadata(task_config),
            version=(raw.get("versions") or {}).get(task),
            n_samples=(raw.get("n-samples") or {}).get(task),
            higher_is_better=dict((raw.get("higher_is_better") or {}).get(task) or {}),
            config=dict(task_config),
            subtasks=tuple(subtasks.get(task) or ()),
        )
    return RunResults(
        path=path,
        model=str(config.get("model", "")),
        model_name=str(raw.get("model_name") or _pretrained(str(config.get("model_args", ""))) or ""),
        model_args=str(config.get("model_args", "")),
        tasks=tasks,
        lmms_eval_version=raw.get("lmms_eval_version"),
        date=raw.get("date"),
        config=dict(config),
        raw=raw,
    )


def load_samples(path: str | Path, *, limit: int | None = None,
                 progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Per-sample log lines (one JSON object each); a bad line is a DataError naming file and line. ``limit``: the
    first that many samples only (the rest left unread); ``progress(n)``: called as they are read (``read_jsonl``)."""
    path = Path(path)
    if not path.exists():
        raise DataError("samples file not found (was lmms-eval run with --log_samples?)", file=str(path))
    rows = read_jsonl(path, limit=limit, progress=progress)
    for i, row in enumerate(rows):  # every reader keys samples by doc_id: a whole number (lmms-eval's index)
        did = row.get("doc_id")
        if did is not None and (isinstance(did, bool) or not isinstance(did, int)):
            raise DataError(f"sample {i + 1}: doc_id is a {type(did).__name__}, not a whole number", file=str(path),
                            row=i, field="doc_id")
    return rows


def load_task_samples(run: RunResults, task: str, *, limit: int | None = None,
                      progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """The samples lmms-eval logged for ``task`` of ``run`` (the first ``limit`` of them when given)."""
    return load_samples(run.samples_path(task), limit=limit, progress=progress)


def interval_lines(runs: Iterable[RunResults], benchmarks: Iterable[str] | None = None,
                   metrics: Iterable[str] | None = None) -> list[str]:
    """Every figure of these runs' tasks with its recorded 95% interval, one line per task (docs/statistics.md):
    ``model task: metric value [low, high], ...``; tasks of other ``benchmarks`` and runs without intervals are skipped."""
    wanted = set(benchmarks) if benchmarks is not None else None
    keep = list(metrics) if metrics is not None else None
    lines = []
    for run in runs:
        for task, res in sorted(run.tasks.items()):
            if res.is_group or (wanted is not None and res.metadata.get("benchmark") not in wanted):
                continue
            names = [m for m in (keep if keep is not None else sorted(res.metrics)) if m in res.metrics]
            parts = []
            for m in names:
                ci = res.interval(m)
                if ci is not None and is_finite(res.metrics[m]):
                    parts.append(f"{m} {res.metrics[m]:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]")
            if parts:
                lines.append(f"{run.model_label} {task}: " + ", ".join(parts))
    if lines:
        lines.insert(0, "95% intervals (cluster bootstrap, docs/statistics.md):")
    return lines
