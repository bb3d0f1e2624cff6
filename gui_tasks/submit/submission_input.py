"""Reading a submission file safely: bounded in bytes, JSON values and nesting, strict JSON (no NaN, no duplicate keys,
UTF-8, an object). Every malformed input is a :class:`SubmissionError` naming what is wrong, never another exception.
``gui_tasks.submit.leaderboard`` builds and validates submissions on top of this."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 30  # a submission file larger than this is refused before it is read
# JSON values (counted from the separators before parsing; commas inside strings count too, so this over-counts):
# parsed JSON takes 25-50x its size in memory in small objects, so the count, not the bytes, bounds the memory.
# A full submission of every benchmark holds well under a million values.
MAX_VALUES = 5_000_000
MAX_DEPTH = 64  # JSON nesting; the schema needs 6 levels, task metadata and responses a few more


class SubmissionError(ValueError):
    """The run cannot become a submission (or a loaded submission is invalid); the message says why."""


def _reject_constant(name: str) -> Any:
    raise SubmissionError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise SubmissionError(f"key {key!r} appears twice in one object (readers would disagree on its value)")
        out[key] = value
    return out


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value`` nests lists and objects, counted without recursion; stops past ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_submission(text: str | bytes) -> dict[str, Any]:
    """A submission's JSON text as an object; any malformed input (truncated, nested too deeply, NaN, duplicate
    keys, not UTF-8, not an object, more than ``MAX_VALUES`` values) is a SubmissionError naming what is wrong,
    never another exception."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    values = raw.count(b",") + raw.count(b"[") + raw.count(b"{") + 1
    if values > MAX_VALUES:
        raise SubmissionError(f"about {values} JSON values, more than the {MAX_VALUES} a submission may hold (memory "
                              "bound); not parsed")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SubmissionError(f"not UTF-8 text: byte {exc.start} cannot be decoded") from None
    try:
        sub = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys)
    except RecursionError:
        raise SubmissionError(f"JSON nested too deeply to read (a submission nests at most {MAX_DEPTH} levels)") from None
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
                              f"(truncated or edited file?)") from None
    if not isinstance(sub, dict):
        raise SubmissionError(f"a submission is a JSON object, this file holds a {type(sub).__name__}")
    return sub


def load_submission(path: str | Path) -> dict[str, Any]:
    """Read ``path`` (at most ``MAX_BYTES``) with :func:`parse_submission`; unreadable files are SubmissionErrors."""
    path = Path(path)
    from gui_core.errors import DataError
    from gui_tasks.runs.input_files import regular_file

    try:
        regular_file(path)  # a FIFO or device is refused before it is opened (opening a FIFO blocks)
    except DataError as exc:
        raise SubmissionError(str(exc)) from None
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SubmissionError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise SubmissionError(f"larger than {MAX_BYTES} bytes; not read")
    return parse_submission(data)
