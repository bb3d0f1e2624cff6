"""A named registry (model families, judges, ...): one record per name, collisions refused, unknown names answered
with "did you mean" and the accepted values. Modelled on lm-eval-harness's registry (``../shared/docs/STYLE.md``)."""

from __future__ import annotations

import difflib
from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class UnknownName(ValueError):
    """A configuration names something the registry does not hold; the message lists the accepted names."""


class Registry(Generic[T]):
    """Records by name, in registration order; aliases resolve to the record registered under another name."""

    def __init__(self, kind: str, *, loader: Callable[[], object] | None = None) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._loader = loader  # imports the module that registers the built-in records, on first use
        self._origin: dict[str, str | None] = {}  # name -> the plugin that registered it (None: built-in)
        self._loaded = loader is None

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            assert self._loader is not None
            self._loader()

    def register(self, name: str, item: T, *, aliases: tuple[str, ...] = ()) -> T:
        """Add ``item`` under ``name`` (and its aliases); a name already taken by another record is an error, and so
        is a record field whose value does not fit its declared type (``gui_core.record_types``)."""
        from gui_core.plugin_errors import current_plugin
        from gui_core.record_types import check_record

        check_record(item, self.kind)
        for key in (name, *aliases):
            if not isinstance(key, str) or not key:
                raise ValueError(f"a {self.kind} needs a non-empty string name, got {key!r}")
            clash = ((key in self._items and (key != name or self._items[key] is not item))
                     or (key in self._aliases and (key == name or self._aliases[key] != name)))
            if clash:
                raise ValueError(f"{self.kind} {key!r} is already registered")
        self._items[name] = item
        self._origin[name] = current_plugin()
        for alias in aliases:
            self._aliases[alias] = name
        return item

    def holds(self, name: str) -> bool:
        """Whether ``name`` is registered already, without loading the built-in records (for a register function that
        runs while they load)."""
        return name in self._items or name in self._aliases

    def canonical(self, name: str) -> str:
        """The registered name ``name`` stands for (itself, or the record an alias points to)."""
        self._load()
        key = self._aliases.get(name, name)
        if key not in self._items:
            raise UnknownName(self.unknown_message(name))
        return key

    def get(self, name: str) -> T:
        return self._items[self.canonical(name)]

    __getitem__ = get

    def origin(self, name: str) -> str | None:
        """The plugin that registered ``name`` (its label), or ``None`` for a built-in record."""
        return self._origin.get(self.canonical(name))

    def unknown_message(self, name: object) -> str:
        known = [*self._items, *self._aliases]
        close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        return f"unknown {self.kind} {name!r}{hint}; known: {', '.join(sorted(known))}"

    def names(self) -> list[str]:
        """Registered names in registration order (aliases left out)."""
        self._load()
        return list(self._items)

    def aliases(self) -> dict[str, str]:
        self._load()
        return dict(self._aliases)

    def values(self) -> list[T]:
        self._load()
        return list(self._items.values())

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._items or name in self._aliases

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._load()
        return len(self._items)


def load_records(group: str, what: str) -> None:
    """Import every module of the entry-point group ``group`` (``gui_core.plugin_groups``): gui-eval's own first (the
    built-in records, declared in its setup.cfg like any plugin's), then third parties'. A third-party plugin that fails
    to load (``SystemExit`` included) or registers a refused record is named on stderr and skipped
    (``gui_core.plugin_errors.load_contained``: one broken plugin must not hide the built-in records nor end the
    command); a built-in that fails raises, and finding none at all is an error naming ``pip install -e .`` (the
    metadata is missing)."""
    from gui_core.plugin_errors import load_contained
    from gui_core.plugin_groups import entry_points

    found = entry_points(group)
    if not any(ep.own for ep in found):
        raise RuntimeError(f"gui-eval: no built-in {what} found: the entry-point group {group!r} of the gui-eval "
                           "distribution is empty (its metadata is missing or stale); run `pip install -e .` in the "
                           "checkout (scripts/setup.sh does)")
    for ep in found:
        if ep.own:
            ep.load()
            continue
        load_contained(ep, what)
