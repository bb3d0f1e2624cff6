"""What a local copy of an official release holds: the types ``gui-eval data check`` prints.

Each benchmark exposes ``data_check(root: Path | None) -> BenchmarkCheck`` in its own module
(named by its ``gui_core.benchmark`` record: :func:`checkers`); it reads the copy with the SAME loaders its tasks use, counts the
documents each task would get and collects every unreadable row as a :class:`DataError`
instead of stopping at the first one. The screenshots its documents name are registered
(``add_images``) and then fully decoded with the tasks' own ``gui_tasks.harness.lmms_rows.load_image``
(``decode_images``), so a truncated screenshot fails the check, not the run. The CLI only prints
and sets the exit status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows


@dataclass(frozen=True)
class TaskCount:
    """Documents one task (or one slice of it) gets from the copy, against the published count."""

    task: str            # lmms-eval task name or a slice label, e.g. "mpr_gui_zh" / "mpr_gui_zh_ri"
    found: int           # documents the loaders produced
    expected: int | None  # what the paper/release states (None: no published count)
    source: str = ""     # where ``expected`` comes from, e.g. "release: 2,245 per language (OFFICIAL_FORMATS)"

    @property
    def ok(self) -> bool:
        return self.expected is None or self.found == self.expected


@dataclass
class BenchmarkCheck:
    """The outcome of checking one benchmark's local copy."""

    benchmark: str
    root: Path | None
    counts: list[TaskCount] = field(default_factory=list)
    errors: list[DataError] = field(default_factory=list)  # every unreadable row, with file/row/field
    # screenshot path -> (id of the first document naming it, its field)
    images: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    images_decoded: int | None = None  # set by decode_images
    notes: list[str] = field(default_factory=list)  # facts to print that are not problems (e.g. boxes clipped)

    @property
    def ok(self) -> bool:
        return not self.errors and all(c.ok for c in self.counts)

    def add_images(self, docs: Iterable[Mapping[str, Any]]) -> None:
        """Register the screenshots of documents (fields ``IMAGE_FIELDS``) for :meth:`decode_images`."""
        for doc in docs:
            doc_id = None if doc.get("id") is None else str(doc.get("id"))
            for name, path in image_paths(doc):
                self.images.setdefault(path, (doc_id, name))

    def read_docs(self, load: Callable[[BadRows], list[dict[str, Any]]]) -> list[dict[str, Any]] | None:
        """``load(bad)`` with every bad row collected: its rows' errors join the check's, its screenshots are registered;
        a whole file missing or unreadable (a DataError out of ``load``) is the check's error and gives None."""
        bad = BadRows(skip=True)
        try:
            docs = load(bad)
        except DataError as exc:
            self.errors.append(exc)
            return None
        self.errors.extend(bad.errors)
        self.add_images(docs)
        return docs

    def decode_images(self) -> None:
        """Fully decode every registered screenshot, as the tasks will; each failure is an error naming the file."""
        if not self.images:
            return
        from gui_tasks.harness.lmms_rows import load_image  # the tasks' decoder (imports lmms-eval: only when there are images)

        decoded = 0
        for path, (doc_id, name) in sorted(self.images.items()):
            try:
                load_image(path, doc_id=doc_id, field=name).close()
                decoded += 1
            except DataError as exc:
                self.errors.append(exc)
        self.images_decoded = decoded

    @classmethod
    def of_copy(cls, benchmark: str, root: Path | str | None, default: Callable[[], Path]) -> "BenchmarkCheck":
        """A check of ``root`` (else ``default()``, whose DataError propagates: no copy at all); a root that is not a
        directory is recorded as the check's error."""
        check = cls(benchmark, Path(root).expanduser() if root is not None else default())
        if not check.root.is_dir():
            check.errors.append(DataError("not a directory", file=str(check.root)))
        return check


# Document fields holding screenshot paths (canonical documents of every benchmark).
IMAGE_FIELDS = ("images", "option_images", "image")


def image_paths(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, path)`` of every screenshot a document names (``IMAGE_FIELDS``: a path or a list; empty ones skipped)."""
    out = []
    for name in IMAGE_FIELDS:
        value = doc.get(name)
        for path in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(path, (str, Path)) and str(path):
                out.append((name, str(path)))
    return out


def checkers() -> dict[str, str]:
    """Benchmark name -> ``"module:function"`` of its data check: every ``gui_core.benchmark`` record that has one
    (imported lazily so one broken benchmark cannot hide the others)."""
    from gui_core.benchmark import BENCHMARKS

    return {b.name: b.data_check for b in BENCHMARKS.values() if b.data_check}


def load_checker(benchmark: str) -> Callable[[Path | None], BenchmarkCheck]:
    """The ``data_check`` function of ``benchmark`` (its record's); a clear error for an unknown name."""
    from gui_core.benchmark import BENCHMARKS, resolve

    known = checkers()
    if benchmark not in known:
        hint = BENCHMARKS.unknown_message(benchmark) if benchmark not in BENCHMARKS else \
            f"benchmark {benchmark!r} has no data check (a generated set)"
        raise SystemExit(f"gui-eval data check: {hint}; choose one of {sorted(known)}")
    return resolve(known[benchmark])


def error_groups(errors: Iterable[Exception]) -> list[tuple[Exception, int]]:
    """Problems that say the same thing about different rows or files (48 screenshots "not found"), grouped: each
    group's first problem and how many there are, in order of first appearance. Two problems are alike when their
    field and reason agree once numbers, quoted text and paths are blanked."""
    import re

    blank = re.compile(r"'[^']*'|\"[^\"]*\"|\S*[/\\]\S*|\d+")
    groups: dict[tuple[str, str], list[Any]] = {}
    for err in errors:
        reason = getattr(err, "reason", None) or str(err)
        key = (str(getattr(err, "field", "")), blank.sub("_", str(reason)))
        groups.setdefault(key, [err, 0])[1] += 1
    return [(first, n) for first, n in groups.values()]


def error_lines(errors: list[Exception], max_kinds: int) -> list[str]:
    """What ``gui-eval data check`` prints of the problems: their count, then each kind once with how many more."""
    groups = error_groups(errors)
    out = [f"  {len(errors)} problem(s) (unreadable rows and files, missing items), with file, row and field"
           + (f", in {len(groups)} kind(s)" if len(groups) < len(errors) else "") + ":"]
    out += [f"    {err}" + (f"  (and {n - 1} more like it)" if n > 1 else "") for err, n in groups[:max_kinds]]
    if len(groups) > max_kinds:
        out.append(f"    ... and {len(groups) - max_kinds} more kind(s) (--max-errors)")
    return out
