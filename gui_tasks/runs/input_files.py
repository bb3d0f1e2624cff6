"""Reading input files with bounds: regular files only, a size and a line-length limit, each refusal names the file.

Every reader of a file a user hands us (official copies, caches, lmms-eval sample logs) goes through
here, so a question file that is a link to ``/dev/zero``, a pipe, or a multi-gigabyte line is a
``DataError`` naming it, not a read until memory runs out. ``read_jsonl`` is the one JSONL loop
(caches, sample logs, user folders), with a ``hint`` saying what to do about a damaged line.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any, Callable, Iterator

from gui_core.errors import DataError

# Bounds (one place). The largest official file we know is SPHINX's task_info_all.json (a few MB) and an lmms-eval
# sample log of 13,470 reasoning chains at ~20k characters each is ~0.3 GB; a line holds one row or one sample.
MAX_FILE_BYTES = 2 << 30  # 2 GiB per streamed (line by line) file
MAX_DOCUMENT_BYTES = 256 << 20  # 256 MiB per whole JSON / XML document, held in memory at once
MAX_LINE_BYTES = 64 << 20  # 64 MiB per JSONL line


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def regular_file(path: str | Path) -> Path:
    """``path`` if it is (a link to) a regular file; a device, pipe, socket, folder or missing file is a DataError."""
    path = Path(path)
    try:
        mode = path.stat().st_mode  # follows links: a link to /dev/zero is a character device
    except FileNotFoundError:
        raise DataError("file not found", file=str(path)) from None
    except OSError as exc:
        raise DataError(f"cannot read ({exc.strerror or exc})", file=str(path)) from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a device, pipe or socket"
        raise DataError(f"not a regular file ({kind}); refused", file=str(path))
    return path


def read_bytes(path: str | Path, *, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file, refusing one larger than ``max_bytes`` (default ``MAX_DOCUMENT_BYTES``) unread."""
    limit = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
    path = regular_file(path)
    if path.stat().st_size > limit:
        raise DataError(f"file is larger than the {_mib(limit)} bound; refused", file=str(path))
    with path.open("rb") as fh:
        data = fh.read(limit + 1)  # the size can change between stat and read
    if len(data) > limit:
        raise DataError(f"file is larger than the {_mib(limit)} bound; refused", file=str(path))
    return data


def read_text(path: str | Path, *, max_bytes: int | None = None) -> str:
    """UTF-8 text of a regular file within the size bound (BOM dropped); not UTF-8 is a DataError naming it."""
    data = read_bytes(path, max_bytes=max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path)) from None


def read_json(path: str | Path, *, max_bytes: int | None = None, rows: bool = False) -> Any:
    """One JSON document from a regular file within the size bound; invalid or absurdly nested JSON is a DataError.

    ``rows`` (a benchmark's file of rows): numbers past ``gui_core.bounds`` (NaN, Infinity, 5,000-digit integers) are
    kept as ``Refused`` markers, which ``BadRows.keep`` refuses row by row; otherwise an integer Python cannot convert
    is a DataError naming the file."""
    from gui_core.bounds import loads_marked

    text = read_text(path, max_bytes=max_bytes)
    try:
        return loads_marked(text) if rows else json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON ({exc.msg}, line {exc.lineno})", file=str(path), field="<file>") from None
    except RecursionError:
        raise DataError("invalid JSON (nested too deeply)", file=str(path), field="<file>") from None
    except ValueError as exc:  # an integer of more than 4,300 digits (Python's conversion limit)
        raise DataError(f"invalid JSON ({str(exc)[:200]})", file=str(path), field="<file>") from None


def lines(path: str | Path, *, max_bytes: int | None = None, max_line: int | None = None,
          on_bad_line: Callable[[DataError], None] | None = None) -> Iterator[tuple[int, str]]:
    """``(index, line)`` of a regular UTF-8 text file, read lazily within both bounds (index 0-based, blank lines too).

    A line that is not UTF-8 is a DataError naming it; with ``on_bad_line`` it is handed there and skipped, and the
    lines after it are read (one bad line costs one row, not the file)."""
    file_limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    line_limit = MAX_LINE_BYTES if max_line is None else max_line
    path = regular_file(path)
    total = 0
    with path.open("rb") as fh:
        for i in range(1 << 62):
            raw = fh.readline(line_limit + 1)
            if not raw:
                return
            total += len(raw)
            if len(raw) > line_limit:
                raise DataError(f"line {i + 1} is longer than the {_mib(line_limit)} bound; refused", file=str(path), row=i)
            if total > file_limit:
                raise DataError(f"file is larger than the {_mib(file_limit)} bound; refused", file=str(path))
            try:
                text = raw.decode("utf-8-sig" if i == 0 else "utf-8")
            except UnicodeDecodeError as exc:
                error = DataError(f"line {i + 1}: not UTF-8 text ({exc.reason})", file=str(path), row=i)
                if on_bad_line is None:
                    raise error from None
                on_bad_line(error)
                continue
            yield i, text


def parse_json_line(line: str, *, file: str, row: int, hint: str = "", field: str | None = None,
                    strict: bool = False) -> Any:
    """One JSONL line as JSON; invalid JSON is a DataError ``line N: invalid JSON (...)`` with the ``hint``.

    ``strict`` (benchmark data rows): ``gui_core.bounds.loads``, so NaN, Infinity, integers of more than 30 digits and
    values nested past its depth bound are refused by name. Either way an integer Python refuses to convert (over 4,300
    digits) is a DataError naming the line, never a bare ValueError."""
    from gui_core.bounds import loads

    try:
        return loads(line) if strict else json.loads(line)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and gui_core.bounds.BoundError are ValueErrors
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else (
            "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200])
        raise DataError(f"line {row + 1}: invalid JSON ({msg})" + (f"; {hint}" if hint else ""), file=file, row=row,
                        field=field) from None


def read_jsonl(path: str | Path, *, hint: str = "", max_bytes: int | None = None,
               max_line: int | None = None, limit: int | None = None,
               progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file (blank lines skipped), within the bounds of ``lines``.

    A line that is not JSON, or not an object, is a DataError naming the file and the line (``row`` = line index);
    ``hint`` says what the reader can do about it (e.g. "delete the file to rebuild it" for a cache). ``limit``: at
    most that many objects, the rest of the file left unread; ``progress(n)`` is called every
    :data:`PROGRESS_EVERY` objects (a caller's progress line on a huge file).
    """
    rows: list[dict[str, Any]] = []
    for i, line in lines(path, max_bytes=max_bytes, max_line=max_line):
        if not line.strip():
            continue
        if limit is not None and len(rows) >= limit:
            break
        row = parse_json_line(line, file=str(path), row=i, hint=hint)
        if not isinstance(row, dict):
            raise DataError(f"line {i + 1}: not a JSON object" + (f"; {hint}" if hint else ""), file=str(path), row=i)
        rows.append(row)
        if progress is not None and len(rows) % PROGRESS_EVERY == 0:
            progress(len(rows))
    return rows


PROGRESS_EVERY = 10_000


def count_lines(path: str | Path, chunk: int = 1 << 20) -> int:
    """Lines of a text file (newlines counted in binary chunks, nothing parsed: a huge file's length, fast)."""
    count, last = 0, b"\n"
    with regular_file(path).open("rb") as fh:
        while block := fh.read(chunk):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")
