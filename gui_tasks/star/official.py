"""Official StaR state-control benchmark: locating a copy and reading its records.

The benchmark (dataset hub id ``ZrW00/StaR_state_control_benchmark``) is a JSON array per
split, ``state_control_benchmark_{test,train}.json``, whose ``images`` are paths relative to
the data root (``GUIData/stateControlBenchmark/...``), see the StaR repository README.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from gui_tasks.errors import DataError

HUB_ID = "ZrW00/StaR_state_control_benchmark"
DATA_DIR_ENV = "STAR_DATA_DIR"
SPLIT_FILES = {"test": "state_control_benchmark_test.json", "train": "state_control_benchmark_train.json"}


def data_root() -> Path:
    """The local copy named by ``$STAR_DATA_DIR``, else a hub snapshot (needs network)."""
    local = os.environ.get(DATA_DIR_ENV)
    if local:
        root = Path(local).expanduser()
        if not root.is_dir():
            raise DataError(f"${DATA_DIR_ENV} points to {root}, which is not a directory", file=str(root))
        return root
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=HUB_ID, repo_type="dataset"))
    except Exception as exc:  # offline, gated, missing: one actionable message
        raise DataError(
            f"cannot fetch the official StaR benchmark from the hub ({exc.__class__.__name__}: {exc}). "
            f"Download {HUB_ID} yourself and set {DATA_DIR_ENV}=<folder>, or use the star_state_control_synth* tasks.",
            file=HUB_ID,
        ) from exc


def split_file(root: Path, split: str) -> Path:
    if split not in SPLIT_FILES:
        raise DataError(f"unknown split {split!r}; known: {sorted(SPLIT_FILES)}", file=str(root), field="metadata.data_split")
    name = SPLIT_FILES[split]
    found = [root / name] if (root / name).is_file() else sorted(root.rglob(name))
    if not found:
        raise DataError(f"{name} not found under {root}", file=str(root / name))
    return found[0]


def resolve_image(root: Path, rel: str, *, file: str, row: int) -> str:
    """An absolute screenshot path; the record's path is relative to the data root (or to the file's folder)."""
    for base in (root, Path(file).parent):
        p = (base / rel).resolve()
        if p.is_file():
            return str(p)
    raise DataError(f"screenshot {rel!r} not found under {root}", file=file, row=row, field="images")


def read_records(root: Path, split: str = "test") -> Iterator[tuple[str, int, dict[str, Any], str]]:
    """Yield (file, row, raw record, absolute image path) for every record of ``split``."""
    path = split_file(root, split)
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise DataError(f"not valid JSON: {exc}", file=str(path)) from exc
    if not isinstance(records, list):
        raise DataError("expected a JSON array of records", file=str(path))
    for i, raw in enumerate(records):
        if not isinstance(raw, dict):
            raise DataError("record is not an object", file=str(path), row=i)
        images = raw.get("images")
        if not (isinstance(images, list) and len(images) == 1 and isinstance(images[0], str)):
            raise DataError(f"expected one screenshot path, got {images!r}", file=str(path), row=i, field="images")
        yield str(path), i, raw, resolve_image(root, images[0], file=str(path), row=i)
