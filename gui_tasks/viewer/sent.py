"""Reading the images a run's interventions sent (``gui_interventions.sent_images``) back for the viewer.

A run's logs lie in ``sent_images/`` beside its results file or one folder up (lmms-eval writes results under
``<--output_path>/<model>/``; the logs go to ``<--output_path>/sent_images``). A log belongs to a results file when
its header's ``model_args`` are the run's; several such logs (the same command run again into the same folder):
for each sample the latest log that has it. Logs come from a run folder that may be hostile: a bad line is skipped
with a note, an image is used only as ``img/<sha256>.png`` inside the same, non-symlinked ``sent_images`` folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gui_core.errors import DataError
from gui_tasks.runs.input_files import lines, parse_json_line
from gui_tasks.runs.results_io import RunResults

FOLDER = "sent_images"
IMAGE_FILE = re.compile(r"img/[0-9a-f]{64}\.png")


@dataclass(frozen=True)
class SentImage:
    """One image of a request as sent: ``path`` (None when unchanged or not stored), ``size``, ``note``."""

    index: int
    path: Path | None
    size: tuple[int, int] | None
    unchanged: bool
    note: str = ""


@dataclass(frozen=True)
class SentRequest:
    """One request an intervention changed: which round and pass (``request``, ``rerun-1``...), its images."""

    round: int
    stage: str
    images: tuple[SentImage, ...]
    removed: int


def _folders(run: RunResults) -> list[Path]:
    out = []
    for base in (run.path.parent, run.path.parent.parent):
        f = base / FOLDER
        if f.is_dir() and not f.is_symlink() and f not in out:
            out.append(f)
    return out


def _request(folder: Path, line: dict[str, Any]) -> SentRequest:
    images = []
    for i, im in enumerate(line.get("images") or []):
        if not isinstance(im, dict):
            raise ValueError(f"images[{i}] is not an object")
        if im.get("unchanged") is True:
            images.append(SentImage(i, None, None, True))
            continue
        rel = im.get("file")
        if not (isinstance(rel, str) and IMAGE_FILE.fullmatch(rel)):
            images.append(SentImage(i, None, None, False, str(im.get("note") or "not stored")))
            continue
        path = folder / rel
        real = path.resolve()
        if path.is_symlink() or folder.resolve() not in real.parents:
            raise ValueError(f"images[{i}].file leaves the {FOLDER} folder")
        w, h = im.get("width"), im.get("height")
        size = (w, h) if isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0 else None
        images.append(SentImage(i, real, size, False))
    removed = line.get("removed")
    return SentRequest(int(line.get("round") or 0), str(line.get("pass") or "request"), tuple(images),
                       removed if isinstance(removed, int) and removed > 0 else 0)


def sent_images(run: RunResults, notes: list[str]) -> dict[tuple[str, int], list[SentRequest]]:
    """(task, doc_id) -> the requests of that sample whose images an intervention changed, in log order."""
    logs = []
    for folder in _folders(run):
        for log in sorted(folder.glob("*.jsonl")):
            rows = []
            try:
                for i, text in lines(log):
                    try:
                        rows.append((i, parse_json_line(text, file=str(log), row=i)))
                    except DataError as exc:  # one bad line is skipped, the rest of the log is read
                        notes.append(f"sent images: {exc}")
            except DataError as exc:  # not a regular file, too large
                notes.append(f"sent images: {exc}")
                continue
            header = rows[0][1] if rows and isinstance(rows[0][1], dict) and rows[0][1].get("kind") == "header" else None
            if header is None or header.get("model_args") != run.model_args:
                continue
            started = header.get("started")
            logs.append((started if isinstance(started, (int, float)) else 0.0, str(log), folder, rows[1:]))
    out: dict[tuple[str, int], list[SentRequest]] = {}
    for _started, name, folder, rows in sorted(logs, key=lambda x: (x[0], x[1])):
        mine: dict[tuple[str, int], list[SentRequest]] = {}
        for i, line in rows:
            try:
                if not isinstance(line, dict) or line.get("kind") != "sent":
                    raise ValueError("not a 'sent' line")
                key = (str(line["task"]), int(line["doc_id"]))
                mine.setdefault(key, []).append(_request(folder, line))
            except (KeyError, TypeError, ValueError) as exc:
                notes.append(f"sent images: {name} line {i + 1} skipped ({exc})")
        out.update(mine)  # a later log of the same command supersedes an earlier one, sample by sample
    return out
