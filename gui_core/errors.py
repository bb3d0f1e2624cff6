"""The two error types for bad input, on the floor so every layer (a ``Benchmark`` record's ``data_root`` too)
raises the same classes: ``DataError`` names file, row and field; ``ConfigError`` names a setting, its value, the
closest accepted values and the docs page. Every package imports them from here (one door)."""

from __future__ import annotations

from typing import Any, Iterable


class DataError(ValueError):
    """Bad benchmark data (not a bad model output: those are classified, never raised).

    ``file``, ``row`` (0-based index, None for a whole-file problem) and ``field`` (None when
    no single field is at fault) are kept as attributes; the message names those that are known.
    """

    def __init__(self, message: str, *, file: str, row: int | None = None, field: str | None = None) -> None:
        self.file, self.row, self.field, self.reason = str(file), row, field, message
        # only what is known is named: "FILE, row 3, field 'x': ...", "FILE, row 3: ...", "FILE: ..." (no placeholders)
        parts = [self.file] + ([f"row {row}"] if row is not None else []) + ([f"field {field!r}"] if field else [])
        super().__init__(f"{', '.join(parts)}: {message}")


def did_you_mean(value: Any, accepted: Iterable[Any], n: int = 3) -> list[str]:
    """The accepted values closest to ``value`` (difflib), best first; none when nothing is close."""
    import difflib

    return difflib.get_close_matches(str(value), [str(a) for a in accepted], n=n, cutoff=0.6)


class ConfigError(ValueError):
    """A configuration mistake (a setting given a value it does not take, a missing variable or folder), not bad data.

    One line: the setting and its value, the closest accepted values ("did you mean"), the accepted values when
    they are few, and the docs page to read. Commands print it without a traceback and exit non-zero; a task that
    raises it does not run, and lmms-eval's log ends with it (``gui_tasks.harness.lmms_integration``).
    """

    MAX_LISTED = 24  # accepted values listed in full up to this many; beyond, only the closest ones

    def __init__(self, setting: str, value: Any = None, accepted: Iterable[Any] = (), page: str = "", *,
                 message: str = "") -> None:
        self.setting, self.value, self.page = setting, value, page
        self.accepted = [str(a) for a in accepted]
        text = message or f"{setting} {value!r} is not accepted"
        close = did_you_mean(value, self.accepted) if value is not None else []
        if close:
            text += f"; did you mean {' or '.join(repr(c) for c in close)}?"
        if self.accepted and len(self.accepted) <= self.MAX_LISTED:
            text += f" (accepted: {', '.join(self.accepted)})"
        elif self.accepted and not close:
            text += f" ({len(self.accepted)} accepted values; none is close)"
        if page:
            text += f"; see {page}"
        super().__init__(" ".join(text.split()))
