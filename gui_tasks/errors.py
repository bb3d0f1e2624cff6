"""The one error type for bad input data: it always names the file, the row and the field."""

from __future__ import annotations


class DataError(ValueError):
    """Bad benchmark data (not a bad model output: those are classified, never raised)."""

    def __init__(self, message: str, *, file: str, row: int | None = None, field: str | None = None) -> None:
        self.file, self.row, self.field = file, row, field
        where = file + (f", row {row}" if row is not None else "") + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")
