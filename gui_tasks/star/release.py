"""Official StaR state-control benchmark: locating a copy, choosing its split file, reading its records.

The StaR repository (``ZrW00/StaR``; hub ``ZrW00/StaR_state_control_benchmark``) keeps one JSON array
per split, ``data/state/state_control_benchmark_{train,test,sample}.json``, whose ``images`` are paths
relative to the repository root (``GUIData/stateControlBenchmark/...``). ``$STAR_DATA_DIR`` names that
root; ``$STAR_DATA_FILE`` picks any split file (a name or path below the root, or an absolute path:
then the screenshots are looked for from the file's folder upwards), overriding the task's
``metadata.data_file`` / ``metadata.data_split`` (default ``test``). The 23-record ``sample`` split
is a legitimate set to run. ``bbox`` and the ``posAtlasAction`` point are on the 0-1000 grid (the
point is the box centre in the published files).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from gui_core.family import default_agent
from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.runs.input_files import read_json

DATA_FILE_ENV = "STAR_DATA_FILE"
SPLIT_FILES = {"test": "state_control_benchmark_test.json", "train": "state_control_benchmark_train.json",
               "sample": "state_control_benchmark_sample.json"}


def _record():
    """StaR's record (gui_tasks/star/benchmark.py): its variable, hub release and published counts."""
    from gui_core.benchmark import benchmark

    return benchmark("star")


def data_root() -> Path:
    """The local copy named by ``$STAR_DATA_DIR``, else a hub snapshot (needs network; ``gui_core.benchmark.data_root``)."""
    from gui_core.benchmark import data_root as root_of

    return root_of("star")


def split_file(root: Path, split: str) -> Path:
    """The file of a named split (``test``, ``train``, ``sample``) under ``root``."""
    if split not in SPLIT_FILES:
        raise DataError(f"unknown split {split!r}; known: {sorted(SPLIT_FILES)} (or set ${DATA_FILE_ENV})", file=str(root),
                        field="metadata.data_split")
    return find_file(root, SPLIT_FILES[split])


def find_file(root: Path, name: str) -> Path:
    """``name`` (a file name or a path) below ``root``: as given, else the first match anywhere below it."""
    for cand in (root / name, root / "data" / "state" / name):
        if cand.is_file():
            return cand
    found = sorted(root.rglob(Path(name).name))
    if not found:
        raise DataError(f"{name} not found under {root}", file=str(root / name))
    return found[0]


def selected_file(meta: Mapping[str, Any]) -> tuple[Path | None, Path]:
    """(image root or None, split file) for a task: ``$STAR_DATA_FILE``, else ``data_file``, else ``data_split``."""
    chosen = os.environ.get(DATA_FILE_ENV) or meta.get("data_file")
    if chosen and Path(str(chosen)).expanduser().is_absolute():
        path = Path(str(chosen)).expanduser()
        if not path.is_file():
            raise DataError(f"${DATA_FILE_ENV} / data_file {path} is not a file", file=str(path))
        return (data_root() if os.environ.get(_record().data.env) else None), path
    root = data_root()
    return root, (find_file(root, str(chosen)) if chosen else split_file(root, str(meta.get("data_split", "test"))))


def resolve_image(root: Path | None, rel: str, *, file: str, row: int) -> str:
    """An absolute screenshot path: relative to the data root, else to the split file's folder or one above it."""
    bases = ([root] if root is not None else []) + [Path(file).parent, *list(Path(file).parent.parents)[:3]]
    for base in bases:
        p = (base / rel).resolve()
        if p.is_file():
            return str(p)
    raise DataError(f"screenshot {rel!r} not found under {', '.join(str(b) for b in bases)}", file=file, row=row,
                    field="images")


def read_records(path: Path, root: Path | None, bad: BadRows | None = None) -> Iterator[tuple[str, int, dict[str, Any], str]]:
    """Yield (file, row, raw record, absolute image path) for every record of the split file ``path``."""
    bad = bad if bad is not None else BadRows(skip=False)
    records = read_json(path)
    if not isinstance(records, list):
        raise DataError("expected a JSON array of records", file=str(path))
    if not records:
        raise DataError("no records", file=str(path))
    for i, raw in enumerate(records):
        try:
            if not isinstance(raw, dict):
                raise DataError("record is not an object", file=str(path), row=i)
            images = raw.get("images")
            if not (isinstance(images, list) and len(images) == 1 and isinstance(images[0], str)):
                raise DataError(f"expected one screenshot path, got {images!r}", file=str(path), row=i, field="images")
            image = resolve_image(root, images[0], file=str(path), row=i)
        except DataError as exc:
            bad.add(exc)
            continue
        yield str(path), i, raw, image


def data_check(root: Path | None = None) -> BenchmarkCheck:
    """Every ``state_control_benchmark_*.json`` of a copy, read with the task loader: documents (records x 2), bad rows."""
    from gui_core.action_match import STAR_STATE_CONTROL
    from gui_tasks.star.schema import official_pair

    root = Path(root).expanduser() if root is not None else data_root()
    check = BenchmarkCheck("star", root)
    files = sorted(root.rglob("state_control_benchmark_*.json")) if root.is_dir() else []
    if not files:
        check.errors.append(DataError("no state_control_benchmark_*.json split file found (expected data/state/)",
                                      file=str(root)))
    for path in files:
        bad = BadRows(skip=True)
        docs = 0
        try:
            for file, i, raw, image in read_records(path, root, bad):
                try:
                    pair = official_pair(raw, file=file, row=i, image_path=image, agent_family=default_agent("star").name,
                                         match_rule=STAR_STATE_CONTROL.name)
                    check.add_images(pair)
                    docs += len(pair)
                except DataError as exc:
                    bad.add(exc)
        except DataError as exc:  # the whole file is unreadable
            bad.add(exc)
        check.errors.extend(bad.errors)
        expected = _record().published_docs.get(path.name)
        check.counts.append(TaskCount(f"star_state_control[{path.name}]", docs, expected,
                                      "records x 2" + (" (appendix A.1 / repository)" if expected else "")))
    return check
