"""Re-scoring logged responses from the documents and the installed task (what a leaderboard checks).

lmms-eval 0.7.3 logs a ``doc_hash`` that is the sha256 of ``"null"`` for every sample
(``evaluator.py`` hashes ``requests[0].doc``, and ``api/task.py`` never sets ``Instance.doc``),
and its per-sample metric values are whatever the file says. Here the task is rebuilt
through lmms-eval's own ``TaskManager`` (our YAMLs, third-party task packages), each
document gets a content hash computed by us, and every response is scored again with the
task's own ``process_results`` and aggregations.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from typing import Any, Mapping


def canonical_json(obj: Any) -> str:
    """The one byte-stable JSON form hashes are taken over (sorted keys, no spaces, UTF-8)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _content(value: Any) -> Any:
    """``value`` with every absolute path to a file replaced by the file's sha256 (machine-independent)."""
    if isinstance(value, Mapping):
        return {str(k): _content(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_content(v) for v in value]
    if isinstance(value, str):
        if value.startswith("/") and len(value) < 4096 and os.path.isfile(value):
            st = os.stat(value)
            return "file-sha256:" + _file_sha256(value, st.st_size, st.st_mtime_ns)
        if value[:1] in "{[":  # JSON-encoded metadata (e.g. the canonical documents' ``meta``)
            try:
                return {"json": _content(json.loads(value))}
            except ValueError:
                return value
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def scores_sha256(values: Any) -> str:
    """sha256 of a response's per-sample values (as ``process_results`` returned them)."""
    return sha256_text(canonical_json(_content(values)))


def doc_sha256(doc: Mapping[str, Any]) -> str:
    """sha256 of a document's content: canonical JSON, files (screenshots, scene files) by their bytes' sha256."""
    return sha256_text(canonical_json(_content(dict(doc))))


@functools.lru_cache(maxsize=1)
def _task_manager():
    from lmms_eval.tasks import TaskManager

    from gui_tasks.lmms_integration import attach

    attach()  # our metrics in lmms-eval's registries; our (and third-party) task folders in the index
    return TaskManager(verbosity="ERROR", include_defaults=False)


@functools.lru_cache(maxsize=64)
def load_task(name: str):
    """The installed lmms-eval task ``name`` (documents loaded); a ValueError when it is not one of ours."""
    from lmms_eval.tasks import get_task_dict

    tm = _task_manager()
    if name not in tm.all_tasks:
        raise ValueError(f"task {name!r} is not an installed gui-eval task; it cannot be re-scored")
    task = get_task_dict([name], tm)[name]
    if isinstance(task, dict):  # a group
        raise ValueError(f"{name!r} is a group; submit its tasks")
    return task


def task_metadata(task) -> dict[str, Any]:
    from gui_tasks.lmms_rows import task_metadata as meta

    return meta(task.config)


def task_docs(task) -> list[dict[str, Any]]:
    """The evaluation documents in lmms-eval's order (doc_id = position)."""
    return [dict(d) for d in task.eval_docs]


def as_results(response: Any) -> list[Any]:
    """The ``results`` list ``process_results`` received for a logged (flattened) ``filtered_resps``."""
    return list(response) if isinstance(response, list) else [response]


def score(task, doc: Mapping[str, Any], response: Any) -> dict[str, Any]:
    """The task's own per-sample values for ``response`` to ``doc``."""
    return dict(task.process_results(doc, as_results(response)))


def aggregate(task, per_sample: list[dict[str, Any]]) -> dict[str, float]:
    """Every metric of the task aggregated over the per-sample values, as lmms-eval does."""
    aggregations = task.aggregation()
    out: dict[str, float] = {}
    for metric, fn in aggregations.items():
        values = [s[metric] for s in per_sample if metric in s]
        if values:
            out[metric] = float(fn(values))
    return out
