"""Shared glue of the ``class:`` tasks: reading a task's YAML ``metadata`` and writing its rows to a JSONL.

A task's ``download`` gathers the rows its metadata names (official copy or synthetic world) and
hands lmms-eval one content-addressed JSONL; the same rows always give the same file, written
atomically, so several ranks may do it at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

from gui_tasks.errors import DataError
from gui_tasks.paths import cache_dir


def task_metadata(config: Any) -> dict[str, Any]:
    """The YAML ``metadata`` of a task config as one dict (lmms-eval may keep a list of them)."""
    meta = getattr(config, "metadata", None) or {}
    if isinstance(meta, list):
        merged: dict[str, Any] = {}
        for m in meta:
            merged.update(m or {})
        meta = merged
    return dict(meta)


def write_rows(rows: Sequence[Mapping[str, Any]], *, folder: str, name: str, meta: Mapping[str, Any]) -> Path:
    """Write ``rows`` to ``cache_dir()/folder/<name>-<digest>.jsonl`` (no rows: a DataError naming the metadata)."""
    if not rows:
        raise DataError(f"no rows for task metadata {dict(meta)}", file="<task yaml>", field="metadata")
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    out_dir = cache_dir() / folder
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{digest}.jsonl"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    return path
