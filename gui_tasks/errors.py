"""The one error type for bad input data: it always names the file, the row and the field."""

from __future__ import annotations

from typing import Any, Callable, Iterable


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

    def keep(self, normalise: Callable[[Any], Any], rows: Iterable[Any]) -> list:
        """``normalise(row)`` for every row; a row whose normalising raises DataError goes to :meth:`add`."""
        out = []
        for row in rows:
            try:
                out.append(normalise(row))
            except DataError as exc:
                self.add(exc)
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


def did_you_mean(value: Any, accepted: Iterable[Any], n: int = 3) -> list[str]:
    """The accepted values closest to ``value`` (difflib), best first; none when nothing is close."""
    import difflib

    return difflib.get_close_matches(str(value), [str(a) for a in accepted], n=n, cutoff=0.6)


class ConfigError(ValueError):
    """A configuration mistake (a setting given a value it does not take, a missing variable or folder), not bad data.

    One line: the setting and its value, the closest accepted values ("did you mean"), the accepted values when
    they are few, and the docs page to read. Commands print it without a traceback and exit non-zero; a task that
    raises it does not run, and lmms-eval's log ends with it (``gui_tasks.lmms_integration``).
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


# The name ``gui-eval data fetch NAME`` takes for the release each data variable names (the data checkers' names).
DATA_FETCH_NAMES = {"SCREENSPOT_DATA_DIR": "screenspot", "SCREENSPOT_V2_DATA_DIR": "screenspot_v2",
                    "SCREENSPOT_PRO_DATA_DIR": "screenspot_pro", "UIVISION_DATA_DIR": "uivision",
                    "MMBENCH_GUI_DATA_DIR": "mmbench_gui_l2", "OSWORLD_G_DATA_DIR": "osworld_g", "SPHINX_DATA_DIR": "sphinx",
                    "GUI_KNOWLEDGE_DATA_DIR": "gui_knowledge", "STAR_DATA_DIR": "star"}


def fetch_hint(env: str) -> str:
    """The clause an unset data variable's message ends with: the command that fetches a copy (empty: none)."""
    name = DATA_FETCH_NAMES.get(env)
    return f", or fetch a copy with `gui-eval data fetch {name}` and point ${env} at it" if name else ""


# --- per-sample faults: the names live on the floor (gui_core.sample_faults) ---------------------------------------
from gui_core.sample_faults import DOC_ERROR, SAMPLE_ERROR, describe_fault  # noqa: E402,F401
