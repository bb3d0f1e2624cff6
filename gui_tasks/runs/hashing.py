"""Content hashes: canonical JSON, text, files (cached by path, size and modification time), documents (file paths and
images replaced by the hashes of their bytes or pixels) and scores. Below everything that records them: provenance,
submissions, re-scoring, the viewer's image store and the protocol labels."""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import math
import os
from typing import Any, Mapping

from gui_core.file_hash import sha256_file


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
    return sha256_file(path)  # size and mtime key the cache only


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
    from gui_tasks.runs.doc_images import resolve_path

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
