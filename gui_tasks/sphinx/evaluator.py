"""SPHINX trajectory-based evaluators (seed section 3.2.1): assertions composed by order.

An evaluator is a *list* of basic assertions or sub-evaluators plus an *order*
(sequential, consecutive, presence). Every node answers with the set of trajectory step
indices at which it is satisfied (where its last required item happened), so orders compose
recursively and alternative paths are accepted as long as the required steps occur.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from gui_tasks.errors import DataError

ORDERS = ("sequential", "consecutive", "presence")
MATCHES = ("equality", "inclusion")
ASSERTIONS = ("StopPage", "LastAction", "FindAction", "FindElement", "FindElementByAction")


@dataclass(frozen=True)
class Step:
    """One trajectory step: the screen observed, then the action taken on it."""

    page: str
    elements: tuple[Mapping[str, Any], ...]
    action: Mapping[str, Any]  # {"type": "click"|"text"|...|"stop", "element": {...}?, "text": str?}


Trajectory = Sequence[Step]


def _norm(v: Any) -> str:
    return " ".join(str(v).split()).lower()


def value_matches(expected: Any, actual: Any, match: str) -> bool:
    """Equality or inclusion (expected contained in actual), case- and space-insensitive."""
    if actual is None:
        return False
    e, a = _norm(expected), _norm(actual)
    return e == a if match == "equality" else e in a


def attrs_match(expected: Mapping[str, Any], actual: Mapping[str, Any] | None, match: str) -> bool:
    """Every expected attribute is present in ``actual`` and matches."""
    if actual is None:
        return False
    return all(value_matches(v, actual.get(k), match) for k, v in expected.items())


def _last_index(traj: Trajectory) -> int | None:
    """Index of the step holding the final screen (the stop step, or the last one)."""
    return len(traj) - 1 if traj else None


def _last_action_index(traj: Trajectory) -> int | None:
    """Index of the last action that is not ``stop``."""
    for i in range(len(traj) - 1, -1, -1):
        if traj[i].action.get("type") != "stop":
            return i
    return None


@dataclass(frozen=True)
class Assertion:
    """A basic assertion; ``kind`` is one of ASSERTIONS."""

    kind: str
    element: Mapping[str, Any] = field(default_factory=dict)  # element attributes to find
    action: Mapping[str, Any] = field(default_factory=dict)  # action fields ("type", "text")
    page: str | None = None  # StopPage: the terminal page
    match: str = "equality"

    def __post_init__(self) -> None:
        if self.kind not in ASSERTIONS:
            raise ValueError(f"unknown assertion {self.kind!r}")
        if self.match not in MATCHES:
            raise ValueError(f"unknown match {self.match!r}")

    def _action_ok(self, step: Step) -> bool:
        act = step.action
        if not attrs_match({k: v for k, v in self.action.items()}, act, self.match):
            return False
        return not self.element or attrs_match(self.element, act.get("element"), self.match)

    def _screen_ok(self, step: Step) -> bool:
        if self.page is not None and not value_matches(self.page, step.page, self.match):
            return False
        return not self.element or any(attrs_match(self.element, e, self.match) for e in step.elements)

    def positions(self, traj: Trajectory) -> set[int]:
        """Step indices where the assertion holds."""
        if self.kind == "StopPage":
            i = _last_index(traj)
            return {i} if i is not None and self._screen_ok(traj[i]) else set()
        if self.kind == "LastAction":
            i = _last_action_index(traj)
            return {i} if i is not None and self._action_ok(traj[i]) else set()
        if self.kind == "FindElement":
            return {i for i, s in enumerate(traj) if self._screen_ok(s)}
        # FindAction matches the action fields; FindElementByAction also the element acted on
        return {i for i, s in enumerate(traj) if s.action.get("type") != "stop" and self._action_ok(s)}


@dataclass(frozen=True)
class Evaluator:
    """A list of assertions / sub-evaluators checked in ``order``."""

    items: tuple["Assertion | Evaluator", ...]
    order: str = "sequential"

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"unknown order {self.order!r}")
        if not self.items:
            raise ValueError("an evaluator needs at least one item")

    def positions(self, traj: Trajectory) -> set[int]:
        """End indices of the ways the list can be satisfied in this order."""
        sets = [it.positions(traj) for it in self.items]
        if self.order == "presence":
            # every item somewhere; completion = when the last of them first happened
            return {max(min(s) for s in sets)} if all(sets) else set()
        ends = set(sets[0])
        for s in sets[1:]:
            if self.order == "sequential":
                ends = {j for j in s if any(j > p for p in ends)}
            else:
                ends = {j for j in s if j - 1 in ends}
            if not ends:
                return set()
        return ends

    def satisfied(self, traj: Trajectory) -> bool:
        return bool(self.positions(traj))


def score_trajectory(evaluators: Sequence[Evaluator], traj: Trajectory) -> list[bool]:
    """One boolean per evaluator; SR = all of them, ACP = their mean (section 3.2.1)."""
    return [ev.satisfied(traj) for ev in evaluators]


# --- loading evaluator JSON --------------------------------------------------------------
# Layout read by this harness (BENCHMARKS.md section 5; field names follow the paper's terms):
#   {"evaluators": [node, ...]}     node = {"order": ..., "list": [node | assertion, ...]}
#   assertion = {"type": "<ASSERTIONS>", "match": "equality"|"inclusion",
#                "element": {attr: value}, "action": {"type": ..., "text": ...}, "page": str}
# Bounds strings "[x1,y1][x2,y2]" inside element attributes are kept verbatim (compared as text).


def _node(obj: Any, *, file: str, row: int, path: str) -> Assertion | Evaluator:
    if not isinstance(obj, Mapping):
        raise DataError(f"expected an object at {path}", file=file, row=row, field=path)
    if "list" in obj:
        order = obj.get("order", "sequential")
        if order not in ORDERS:
            raise DataError(f"unknown order {order!r}", file=file, row=row, field=f"{path}.order")
        if not isinstance(obj["list"], list) or not obj["list"]:
            raise DataError("empty or non-list 'list'", file=file, row=row, field=f"{path}.list")
        kids = tuple(_node(x, file=file, row=row, path=f"{path}.list[{k}]") for k, x in enumerate(obj["list"]))
        return Evaluator(kids, order)
    kind = obj.get("type")
    if kind not in ASSERTIONS:
        raise DataError(f"unknown assertion type {kind!r}", file=file, row=row, field=f"{path}.type")
    match = obj.get("match", "equality")
    if match not in MATCHES:
        raise DataError(f"unknown match {match!r}", file=file, row=row, field=f"{path}.match")
    return Assertion(kind, dict(obj.get("element") or {}), dict(obj.get("action") or {}), obj.get("page"), match)


def evaluators_from_json(obj: Any, *, file: str = "<memory>") -> list[Evaluator]:
    """Evaluators of one task; a bare assertion at top level is wrapped in a presence list."""
    items = obj.get("evaluators") if isinstance(obj, Mapping) else obj
    if not isinstance(items, list) or not items:
        raise DataError("no evaluators", file=file, field="evaluators")
    out = []
    for row, x in enumerate(items):
        node = _node(x, file=file, row=row, path=f"evaluators[{row}]")
        out.append(node if isinstance(node, Evaluator) else Evaluator((node,), "presence"))
    return out


def load_evaluators(path: str | Path) -> list[Evaluator]:
    """Read one task's evaluator JSON file."""
    p = Path(path)
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc}", file=str(p)) from exc
    return evaluators_from_json(obj, file=str(p))


def parse_bounds(s: str, *, file: str = "<memory>", row: int | None = None) -> tuple[int, int, int, int]:
    """Official bounds string ``"[x1,y1][x2,y2]"`` (device pixels) to a box."""
    import re

    m = re.fullmatch(r"\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*", str(s))
    if not m:
        raise DataError(f"bad bounds {s!r}", file=file, row=row, field="bounds")
    x1, y1, x2, y2 = map(int, m.groups())
    return x1, y1, x2, y2
