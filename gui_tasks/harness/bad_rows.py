"""Bad rows while loading (skip on request, count, announce); the error types live on the floor (``gui_core.errors``)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from gui_core.errors import DataError


SKIP_BAD_ROWS_ENV = "GUI_EVAL_SKIP_BAD_ROWS"


def skip_bad_rows(meta: "dict | None" = None) -> bool:
    """Whether a task may drop bad rows (opt-in: ``$GUI_EVAL_SKIP_BAD_ROWS=1`` or metadata ``skip_bad_rows: true``).

    The default is to stop at the first bad row; a task that skips must report how many it dropped
    (``BadRows.count``) in its results.
    """
    import os

    flag = (meta or {}).get("skip_bad_rows")
    if flag is None:
        flag = os.environ.get(SKIP_BAD_ROWS_ENV, "")
    return str(flag).strip().lower() in {"1", "true", "yes"}


class BadRows:
    """Collects bad rows while loading: raises at once unless skipping is on, then keeps every error."""

    def __init__(self, skip: bool) -> None:
        self.skip = skip
        self.errors: list[DataError] = []

    def add(self, error: DataError) -> None:
        if not self.skip:
            raise error
        self.errors.append(error)

    def keep(self, normalise: Callable[[Any], Any], rows: Iterable[Any], file: str | None = None) -> list:
        """``normalise(row)`` for every row; a row whose normalising raises goes to :meth:`add` as a DataError naming
        the file (``file``; else ``<rows>``), the row and the field: a row holding a number past the bounds
        (``gui_core.bounds.row_problem``: NaN, Infinity, a 5,000-digit integer, a 900-deep list) is refused before it
        is read, and any other exception while reading it is that row's error, never the task's.

        Rows may be given as ``(index, row)`` pairs (the index names the row) or alone (their position does)."""
        from gui_core.bounds import row_problem
        from gui_core.sample_faults import describe_fault

        out = []
        for at, item in enumerate(rows):
            index, row = (item[0], item[1]) if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int)) \
                else (at, item)
            where = file or (str(row.get("file")) if isinstance(row, dict) and row.get("file") else "<rows>")
            index = int(row["row"]) if isinstance(row, dict) and isinstance(row.get("row"), int) and not file else index
            try:
                problem = row_problem(row)
                if problem is not None:
                    raise DataError(problem[1], file=where, row=index, field=problem[0])
                out.append(normalise(item))
            except DataError as exc:
                self.add(exc)
            except Exception as exc:  # noqa: BLE001 - whatever reading one row meets costs that row only
                self.add(DataError(describe_fault("reading the row", exc), file=where, row=index))
        return out

    @property
    def count(self) -> int:
        return len(self.errors)


_SKIPPED: list[int] = []  # bad rows skipped since the last take_skipped() (one process builds its tasks in turn)


def announce_skipped(bad: BadRows, what: str) -> None:
    """Say loudly (stderr) that ``what`` skipped bad rows, naming the first, and tally them for the task's results."""
    import sys

    if bad.count:
        _SKIPPED.append(bad.count)
        print(f"gui-eval: WARNING: {what}: skipped {bad.count} bad row(s) (${SKIP_BAD_ROWS_ENV} / metadata skip_bad_rows); "
              f"first: {bad.errors[0]}", file=sys.stderr, flush=True)


def take_skipped() -> int:
    """Bad rows skipped since the last call (the task records the number in its metadata, hence in the results)."""
    n = sum(_SKIPPED)
    _SKIPPED.clear()
    return n

