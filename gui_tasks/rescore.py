"""Re-scoring logged responses from the documents and the installed task (what a leaderboard checks).

lmms-eval 0.7.3 logs a ``doc_hash`` that is the sha256 of ``"null"`` for every sample
(``evaluator.py`` hashes ``requests[0].doc``, and ``api/task.py`` never sets ``Instance.doc``),
and its per-sample metric values are whatever the file says. Here the task is rebuilt
through lmms-eval's own ``TaskManager`` (our YAMLs, third-party task packages), each
document gets a content hash computed by us, and every response is scored again with the
task's own ``process_results`` and aggregations.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import math
import os
from typing import Any, Mapping


class UnhashableValue(TypeError):
    """A document (or score) value with no canonical form; the message names the field."""


def _json_default(obj: Any) -> Any:
    """The only non-JSON values a canonical form accepts as they are: dates (ISO 8601) and paths (their text)."""
    if isinstance(obj, (datetime.date, datetime.time)):
        return obj.isoformat()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise UnhashableValue(f"a {type(obj).__module__}.{type(obj).__qualname__} has no canonical JSON form")


def canonical_json(obj: Any) -> str:
    """The one byte-stable JSON form hashes are taken over (sorted keys, no spaces, UTF-8); never ``str()`` of an object."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes (cached by path, size and modification time)."""
    st = os.stat(path)
    return _file_sha256(os.fspath(path), st.st_size, st.st_mtime_ns)


def _content(value: Any, base_dir: str | os.PathLike | None = None, where: str = "") -> Any:
    """``value`` in a machine-independent canonical form: files (absolute paths, or paths relative to ``base_dir``,
    the task's folder) by the sha256 of their bytes, PIL images by the sha256 of their decoded pixels (mode and size
    included), bytes by their sha256; any object without a canonical form is an :class:`UnhashableValue` naming the
    field (``where``)."""
    from gui_core.pixels import pixels_sha256
    from gui_tasks.doc_images import resolve_path

    if isinstance(value, Mapping):
        return {str(k): _content(v, base_dir, f"{where}.{k}" if where else str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_content(v, base_dir, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = [_content(v, base_dir, f"{where}{{}}") for v in value]
        return {"set": sorted(items, key=canonical_json)}
    if isinstance(value, (str, os.PathLike)):
        path = resolve_path(value, base_dir)
        if path is not None:
            return "file-sha256:" + file_sha256(path)
        value = os.fspath(value)
        if value[:1] in "{[":  # JSON-encoded metadata (e.g. the canonical documents' ``meta``)
            try:
                return {"json": _content(json.loads(value), base_dir, where)}
            except ValueError:
                return value
        return value
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes-sha256:" + hashlib.sha256(bytes(value)).hexdigest()
    from PIL import Image

    if isinstance(value, Image.Image):
        return "pixels-sha256:" + pixels_sha256(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if hasattr(value, "dtype") and hasattr(value, "tobytes") and hasattr(value, "shape"):  # numpy arrays and scalars
        if getattr(value, "shape", None) == () and hasattr(value, "item"):
            return _content(value.item(), base_dir, where)
        return {"array": str(value.dtype), "shape": list(value.shape), "sha256": hashlib.sha256(value.tobytes()).hexdigest()}
    raise UnhashableValue(f"field {where or '(top level)'!r} holds a {type(value).__module__}.{type(value).__qualname__}, "
                          "which has no canonical form to hash; documents may hold JSON values, PIL images, bytes, "
                          "file paths, dates and numpy arrays (docs/plugins.md#documents-images-and-paths)")


def scores_sha256(values: Any) -> str:
    """sha256 of a response's per-sample values (as ``process_results`` returned them)."""
    return sha256_text(canonical_json(_content(values)))


def doc_sha256(doc: Mapping[str, Any], base_dir: str | os.PathLike | None = None) -> str:
    """sha256 of a document's content (:func:`_content`): files by their bytes, images by their pixels; relative
    paths are resolved against ``base_dir`` (the task's folder, :func:`task_folder`)."""
    return sha256_text(canonical_json(_content(dict(doc), base_dir)))


@functools.lru_cache(maxsize=1)
def _task_manager():
    from lmms_eval.tasks import TaskManager

    from gui_tasks.lmms_integration import attach

    attach()  # our metrics in lmms-eval's registries; our (and third-party) task folders in the index
    return TaskManager(verbosity="ERROR", include_defaults=False)


_FOLDER_ATTR = "gui_eval_task_folder"  # set on every task load_task returns: where its relative paths point


@functools.lru_cache(maxsize=64)
def load_task(name: str):
    """The installed lmms-eval task ``name`` (documents loaded); a ValueError when it is not one of ours."""
    from lmms_eval.tasks import get_task_dict

    tm = _task_manager()
    if name not in tm.all_tasks:
        raise ValueError(f"task {name!r} is not in the task index gui-eval re-scores from (its own yaml_tasks and the "
                         "task folders of installed packages with a `gui_eval.tasks` entry point); a task found only "
                         "through lmms-eval's --include_path cannot be re-scored or submitted: put its folder in a "
                         "package with that entry point and pip-install it (docs/plugins.md#re-scoring-and-submissions)")
    task = get_task_dict([name], tm)[name]
    if isinstance(task, dict):  # a group
        raise ValueError(f"{name!r} is a group; submit its tasks")
    setattr(task, _FOLDER_ATTR, yaml_folder(name))
    return task


def yaml_folder(name: str) -> str | None:
    """The folder of installed task ``name``'s YAML file (None: not indexed or no file): where relative paths in its
    documents point, for the content hash and the viewer alike."""
    entry = _task_manager().task_index.get(name) or {}
    yaml_path = entry.get("yaml_path") if isinstance(entry, dict) else None
    return os.path.dirname(os.path.abspath(yaml_path)) if isinstance(yaml_path, (str, os.PathLike)) else None


def task_folder(task) -> str | None:
    """The folder of the task's YAML file, against which relative paths in its documents are resolved (None: unknown)."""
    return getattr(task, _FOLDER_ATTR, None)


def task_metadata(task) -> dict[str, Any]:
    from gui_tasks.lmms_rows import task_metadata as meta

    return meta(task.config)


def task_docs(task) -> list[dict[str, Any]]:
    """The evaluation documents in lmms-eval's order (doc_id = position)."""
    return [dict(d) for d in task.eval_docs]


def as_results(response: Any) -> list[Any]:
    """The ``results`` list ``process_results`` received for a logged (flattened) ``filtered_resps``."""
    return list(response) if isinstance(response, list) else [response]


def score(task, doc: Mapping[str, Any], response: Any, side: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The task's own per-sample values for ``response`` to ``doc``; ``side``: what the run logged of the response
    beyond its text (``gui_core.logit_capture.response_side``: digit capture, image sizes, crop), attached again."""
    from gui_core.logit_capture import with_side

    return dict(task.process_results(doc, as_results(with_side(response, side))))


def aggregate(task, per_sample: list[dict[str, Any]]) -> dict[str, float]:
    """Every metric of the task aggregated over the per-sample values, as lmms-eval does."""
    aggregations = task.aggregation()
    out: dict[str, float] = {}
    for metric, fn in aggregations.items():
        values = [s[metric] for s in per_sample if metric in s]
        if values:
            out[metric] = float(fn(values))
    return out
