"""The one error type for bad input data: it always names the file, the row and the field."""

from __future__ import annotations


class DataError(ValueError):
    """Bad benchmark data (not a bad model output: those are classified, never raised).

    ``file``, ``row`` (0-based index, None for a whole-file problem) and ``field`` (None when
    no single field is at fault) are kept as attributes and all named in the message.
    """

    def __init__(self, message: str, *, file: str, row: int | None = None, field: str | None = None) -> None:
        self.file, self.row, self.field, self.reason = str(file), row, field, message
        row_part = f"row {row}" if row is not None else "row -"
        field_part = f"field {field!r}" if field else "field -"
        super().__init__(f"{self.file}, {row_part}, {field_part}: {message}")
