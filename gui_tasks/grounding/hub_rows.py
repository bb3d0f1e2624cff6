"""One hub row, one fault (issue 54 item 5): what the hub converters (``hub_layout``) check in a row before placing it.

A parquet row from the Hub is untrusted: a name with a ``/`` where one file name belongs, a name too long for the
file system, a NUL, bytes that are not UTF-8, JSON text nested 100,000 deep, a screenshot name two rows give with
different bytes. Each is a :class:`~gui_core.errors.DataError` naming the parquet file, the row and the field, and
goes through :class:`~gui_tasks.harness.bad_rows.BadRows`: the conversion stops at the first (default) or, with
``GUI_EVAL_SKIP_BAD_ROWS=1``, skips the row, counts it and says so on stderr. A row is checked whole before anything
of it is written, so a skipped row leaves no file behind.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from gui_core.bounds import MAX_JSON_DEPTH, row_problem
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows

NAME_MAX = 255  # bytes of one path component (Linux NAME_MAX, most file systems)
PATH_MAX = 1024  # bytes of a whole relative name


def text(value: Any, path: Path, i: int, field: str) -> Any:
    """A text field as ``str``: bytes are decoded as UTF-8 (else the row's error); other values are returned as
    they are."""
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"is not UTF-8 text (byte {exc.start}: {bytes(value)[exc.start:exc.start + 1]!r})",
                            file=str(path), row=i, field=field) from None
    return value


def name(value: Any, path: Path, i: int, field: str, *, single: bool = False) -> str:
    """A file name from a row as a relative POSIX path inside the copy (``single``: one component, no ``/``)."""
    value = text(value, path, i, field)
    where = {"file": str(path), "row": i, "field": field}
    if not isinstance(value, str) or not value:
        raise DataError(f"file name {value!r} must be a non-empty string", **where)
    shown = value if len(value) <= 80 else value[:80] + "..."
    if "\x00" in value:
        raise DataError(f"file name {shown!r} holds a NUL character", **where)
    if single and ("/" in value or "\\" in value):
        raise DataError(f"{field} {shown!r} names one file and may hold no '/' or '\\'", **where)
    rel = PurePosixPath(value)
    if rel.is_absolute() or ".." in rel.parts or "\\" in value:
        raise DataError(f"file name {shown!r} must be a relative path inside the copy", **where)
    longest = max((len(p.encode("utf-8")) for p in rel.parts), default=0)
    if longest > NAME_MAX or len(value.encode("utf-8")) > PATH_MAX:
        raise DataError(f"file name {shown!r} is too long ({longest} bytes in one part, at most {NAME_MAX}; "
                        f"{len(value.encode('utf-8'))} in all, at most {PATH_MAX})", **where)
    return rel.as_posix()


def _depth(text_: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON text, strings skipped (a linear scan: no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text_:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def json_value(value: Any, path: Path, i: int, field: str) -> Any:
    """A list column as published (``bbox`` may be a list or its JSON text): JSON text nested past
    ``MAX_JSON_DEPTH`` is the row's error, never a RecursionError; text that is no JSON is kept as text."""
    value = text(value, path, i, field)
    if isinstance(value, str):
        if _depth(value) > MAX_JSON_DEPTH:
            raise DataError(f"JSON text nested deeper than {MAX_JSON_DEPTH} levels", file=str(path), row=i,
                            field=field)
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def check_row(row: Any, path: Path, i: int) -> dict[str, Any]:
    """The row, once it is known readable (``parquet_rows`` hands an unreadable one as its DataError) and within the
    bounds of ``gui_core.bounds.row_problem`` (non-finite numbers, lists nested too deep; the screenshot left out)."""
    if isinstance(row, DataError):
        raise row
    if not isinstance(row, dict):
        raise DataError(f"expected a row of named fields, got {type(row).__name__}", file=str(path), row=i)
    problem = row_problem({k: v for k, v in row.items() if k != "image"})
    if problem is not None:
        raise DataError(problem[1], file=str(path), row=i, field=problem[0])
    return row


class RowGuard:
    """The bad rows of one conversion and the screenshots already placed (name -> digest, file, row)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bad = BadRows(skip_bad_rows())
        self.placed: dict[str, tuple[str, Path, int]] = {}

    @contextmanager
    def row(self, path: Path, i: int, row: Any) -> Iterator[None]:
        """The body converts one row, calling :func:`check_row` first: its DataError (or any other fault) is that
        row's, skipped on request."""
        from gui_core.sample_faults import describe_fault

        try:
            yield
        except DataError as exc:
            self.bad.add(exc)
        except (KeyboardInterrupt, SystemExit, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - whatever converting one row meets costs that row only
            self.bad.add(DataError(describe_fault("converting the row", exc), file=str(path), row=i))

    def claim(self, rel: str, data: bytes, path: Path, i: int, field: str) -> bool:
        """Whether ``rel`` is new (write it); the same bytes again are fine (one screenshot, several rows), other
        bytes under a name an earlier row placed are an error naming both rows."""
        digest = hashlib.sha256(data).hexdigest()
        first = self.placed.get(rel)
        if first is None:
            self.placed[rel] = (digest, path, i)
            return True
        if first[0] != digest:
            raise DataError(f"screenshot {rel!r} has other bytes than the one row {first[2]} of {first[1]} placed "
                            f"under that name", file=str(path), row=i, field=field)
        return False

    def done(self) -> int:
        """Announce the skipped rows (stderr, tallied for the task's results); their count."""
        announce_skipped(self.bad, self.what)
        return self.bad.count
