"""The declared types of a record's fields, checked when the record is registered (issue 54 item 5).

A plugin's record with a number where a string is expected would otherwise pass its own checks and fail far away
(``gui-eval benchmarks --json`` sorting titles, a report formatting a name). :func:`type_problem` walks a dataclass
record (nested records and tuples of them too) against its annotations and names the first field that does not fit;
annotations it cannot check (callables' signatures, ``Any``) are left alone.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

_NOT_CHECKED = object()


@lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve is left unchecked
        return {}


def _fits(value: Any, hint: Any, path: str) -> str | None:
    """``None`` when ``value`` fits ``hint``; else what is wrong, naming ``path``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or isinstance(hint, typing.TypeVar):
        return None
    if origin in (typing.Union, types.UnionType):
        if any(_fits(value, a, path) is None for a in args):
            return None
        return f"{path} is {_shown(value)}, expected {_name(hint)}"
    if origin is typing.Literal:  # its type only: the record's own check names the accepted values
        kinds = tuple({type(a) for a in args})
        return None if isinstance(value, kinds) else f"{path} is {_shown(value)}, expected one of {list(args)}"
    if origin is tuple:
        if not isinstance(value, tuple):
            return f"{path} is {_shown(value)}, expected a tuple"
        each = args[:1] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        if args and len(each) != len(value):
            return f"{path} has {len(value)} items, expected {len(each)}"
        for i, (item, sub) in enumerate(zip(value, each)):
            problem = _fits(item, sub, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if origin in (Mapping, dict) or hint in (Mapping, dict):
        return None if isinstance(value, Mapping) else f"{path} is {_shown(value)}, expected a mapping"
    if origin is Callable or hint is Callable:
        return None if callable(value) else f"{path} is {_shown(value)}, expected a callable"
    if hint is type(None):
        return None if value is None else f"{path} is {_shown(value)}, expected None"
    if hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"{path} is {_shown(value)}, expected float"
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"{path} is {_shown(value)}, expected int"
    if isinstance(hint, type):
        if not isinstance(value, hint):
            return f"{path} is {_shown(value)}, expected {hint.__name__}"
        return record_problem(value, path) if dataclasses.is_dataclass(hint) else None
    return None  # a generic this checker does not read


def _name(hint: Any) -> str:
    return " or ".join(_name(a) for a in typing.get_args(hint)) if typing.get_origin(hint) in (
        typing.Union, types.UnionType) else getattr(hint, "__name__", str(hint))


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def record_problem(record: Any, path: str = "") -> str | None:
    """The first field of dataclass ``record`` whose value does not fit its annotation, in words; ``None`` if all do."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return None
    hints = _hints(type(record))
    for f in dataclasses.fields(record):
        if f.name in hints:
            problem = _fits(getattr(record, f.name), hints[f.name], f"{path}.{f.name}" if path else f.name)
            if problem:
                return problem
    return None


def check_record(record: Any, kind: str) -> None:
    """Raise ValueError naming the record and the field when a field does not fit its declared type."""
    problem = record_problem(record)
    if problem:
        name = getattr(record, "name", "?")
        raise ValueError(f"{kind} {name!r} refused: field {problem}")
