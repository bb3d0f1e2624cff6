"""Extracting an archive of a data release with bounds (MMBench-GUI's images zip; issue 54).

A zip's header says how large each member is; a hostile one lies or tells the truth about a bomb (a 1 MB zip holding
a 1 GiB member). Every member is checked against the header before anything is written (its name relative and
inside the folder, its size within :data:`gui_core.bounds.MAX_ZIP_MEMBER_BYTES`, the total within
``MAX_ZIP_TOTAL_BYTES``, its compression ratio within ``MAX_ZIP_RATIO``, no member twice, no link), then again while
it streams (bytes counted against the same bounds and against the header's own size). Only regular files are written,
with ``O_EXCL | O_NOFOLLOW`` below a folder the caller made for it: the caller extracts into a temporary folder and
removes it on any error, so a refused archive leaves nothing.
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from gui_core import bounds
from gui_core.errors import DataError

_CHUNK = 1 << 20


def _problem(info: zipfile.ZipInfo) -> str | None:
    from gui_core.hub_net import name_problem

    name = info.filename.rstrip("/") if info.is_dir() else info.filename
    why = name_problem(name)
    if why:
        return f"zip member {info.filename[:120]!r} leaves the folder or is not a plain name ({why})"
    if stat.S_ISLNK(info.external_attr >> 16):
        return f"zip member {name!r} is a symbolic link"
    if info.file_size > bounds.MAX_ZIP_RATIO_FLOOR and info.file_size > bounds.MAX_ZIP_RATIO * max(info.compress_size, 1):
        return (f"zip member {name!r} expands {info.compress_size} bytes to {info.file_size}, a ratio above "
                f"{bounds.MAX_ZIP_RATIO}:1 (a zip bomb)")
    if info.file_size > bounds.MAX_ZIP_MEMBER_BYTES:
        return f"zip member {name!r} is {info.file_size} bytes, above the bound of {bounds.MAX_ZIP_MEMBER_BYTES}"
    return None


def check_zip(zf: zipfile.ZipFile, label: str, archive_bytes: int) -> list[zipfile.ZipInfo]:
    """The archive's file members, every one checked against the header; ``DataError`` naming the first fault."""
    infos = zf.infolist()
    if len(infos) > bounds.MAX_ZIP_MEMBERS:
        raise DataError(f"{len(infos)} zip members, above the bound of {bounds.MAX_ZIP_MEMBERS}", file=label)
    seen: set[str] = set()
    total = 0
    for info in infos:
        why = _problem(info)
        if why:
            raise DataError(why, file=label)
        key = info.filename.rstrip("/")
        if key in seen:
            raise DataError(f"zip member {key!r} appears twice", file=label)
        seen.add(key)
        total += info.file_size
    if total > bounds.MAX_ZIP_TOTAL_BYTES:
        raise DataError(f"the zip expands to {total} bytes, above the bound of {bounds.MAX_ZIP_TOTAL_BYTES}", file=label)
    if total > bounds.MAX_ZIP_RATIO_FLOOR and total > bounds.MAX_ZIP_RATIO * max(archive_bytes, 1):
        raise DataError(f"the zip ({archive_bytes} bytes) expands to {total}, a ratio above {bounds.MAX_ZIP_RATIO}:1",
                        file=label)
    return [i for i in infos if not i.is_dir()]


def extract_zip(archive: Path, dest: Path, label: str, keep: Callable[[str], bool] = lambda name: True) -> int:
    """Extract the members of ``archive`` whose name ``keep`` accepts into ``dest`` (created); returns the bytes
    written. ``DataError`` naming ``label`` and the member for any fault; the caller removes ``dest`` then."""
    size = archive.stat().st_size
    written = 0
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"not a readable zip ({exc})", file=label) from None
    with zf:
        members = [i for i in check_zip(zf, label, size) if keep(i.filename)]
        dest.mkdir(parents=True, exist_ok=True)
        for info in members:
            target = dest / PurePosixPath(info.filename)
            target.parent.mkdir(parents=True, exist_ok=True)
            if os.path.realpath(target.parent) != os.path.join(os.path.realpath(dest), *PurePosixPath(info.filename).parts[:-1]):
                raise DataError(f"zip member {info.filename!r} would be written through a link", file=label)
            n = 0
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
            try:
                with os.fdopen(fd, "wb") as out, zf.open(info) as src:
                    while chunk := src.read(_CHUNK):
                        n += len(chunk)
                        written += len(chunk)
                        if n > info.file_size or n > bounds.MAX_ZIP_MEMBER_BYTES or written > bounds.MAX_ZIP_TOTAL_BYTES:
                            raise DataError(f"zip member {info.filename!r} streams past its header's {info.file_size} "
                                            "bytes or a bound: refused", file=label)
                        out.write(chunk)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as exc:
                raise DataError(f"zip member {info.filename!r} cannot be read ({exc})", file=label) from None
    return written


__all__ = ["check_zip", "extract_zip"]
