"""Reading what lmms-eval wrote: ``<date>_results.json`` and ``<date>_samples_<task>.jsonl``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui_tasks.errors import DataError

RESULTS_SUFFIX = "_results.json"


@dataclass(frozen=True)
class TaskResult:
    """One task's aggregate metrics (filter suffix stripped) and its YAML metadata."""

    task: str
    metrics: dict[str, float]
    metadata: dict[str, Any]
    version: Any
    n_samples: dict[str, int] | None


@dataclass(frozen=True)
class RunResults:
    """One lmms-eval results file."""

    path: Path
    model: str
    model_args: str
    tasks: dict[str, TaskResult]
    config: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def model_label(self) -> str:
        """A short model name: the ``pretrained`` argument's last path part, else the backend."""
        for part in self.model_args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "pretrained" and value:
                return value.rstrip("/").split("/")[-1]
        return self.model

    def samples_path(self, task: str) -> Path:
        prefix = self.path.name[: -len(RESULTS_SUFFIX)]
        return self.path.with_name(f"{prefix}_samples_{task}.jsonl")


def find_result_files(paths: list[str | Path] | str | Path) -> list[Path]:
    """Results files given directly or found recursively under directories, sorted."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    out: list[Path] = []
    for p in map(Path, items):
        if p.is_dir():
            out += sorted(p.rglob(f"*{RESULTS_SUFFIX}"))
        elif p.is_file():
            out.append(p)
        else:
            raise DataError("no such file or directory", file=str(p))
    return out


def _metric_value(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def load_results(path: str | Path) -> RunResults:
    """Parse one results file; a malformed file is a DataError naming it and the field."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"not a readable lmms-eval results file ({exc})", file=str(path)) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("results"), dict):
        raise DataError("missing 'results' object", file=str(path), field="results")
    config = raw.get("config") or {}
    tasks: dict[str, TaskResult] = {}
    for task, values in raw["results"].items():
        if not isinstance(values, dict):
            raise DataError("task entry is not an object", file=str(path), field=f"results.{task}")
        metrics = {}
        for key, value in values.items():
            name, _, _filter = key.partition(",")
            if name.endswith("_stderr") or name == "alias":
                continue
            v = _metric_value(value)
            if v is not None:
                metrics[name] = v
        meta = ((raw.get("configs") or {}).get(task) or {}).get("metadata") or {}
        if isinstance(meta, list):
            meta = {k: v for m in meta for k, v in (m or {}).items()}
        tasks[task] = TaskResult(task, metrics, dict(meta), (raw.get("versions") or {}).get(task), (raw.get("n-samples") or {}).get(task))
    return RunResults(path, str(config.get("model", raw.get("model_name", ""))), str(config.get("model_args", "")), tasks, config, raw)


def load_samples(path: str | Path) -> list[dict[str, Any]]:
    """Per-sample log lines; a bad line is a DataError naming file and line."""
    path = Path(path)
    if not path.is_file():
        raise DataError("samples file not found (run lmms-eval with --log_samples)", file=str(path))
    out = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON ({exc.msg})", file=str(path), row=i) from exc
    return out


def is_finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
