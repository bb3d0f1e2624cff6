"""SPHINX trajectory-based evaluators (seed section 3.2.1), with the semantics of the official files.

An evaluator is a *list* of basic assertions or sub-evaluators plus an *order* (sequential, consecutive,
presence). Assertions: StopPage and LastAction (the end of the navigation), FindAction, FindElement and
FindElementByAction (something present along the way); values match by equality or inclusion.

The official evaluator files (PKU-ASE-RISE/Sphinx ``groundtruth/<task>/<app>/evaluator.json``) are a
list of nodes ``{"type": "stoppage" | "lastaction" | "findaction" | "findelement" |
"findelementbyaction" | "rule", ...}``: an assertion first *matches* (``match_rules``/``match_type``:
which view or action to look at) and then *checks* it (``check_rules``/``check_type``); a ``rule`` node
holds ``order`` (``sequential``, ``consecutive`` or ``present``) and ``evaluators``. A rule key
``activity`` tests the foreground activity instead of a view attribute, but only where the official code
reads it that way: StopPage ``check_rules`` and FindElement ``match_rules``/``check_rules``. Anywhere else
(FindElementByAction, FindAction, LastAction) it is looked up as a view attribute that no view has, so the
assertion fails - the official behaviour, kept so scores compare (``ACTIVITY_KEY_HONOURED``). Action rules use the keys
``action_type`` (click, longclick, input, swipe, back, ...) and ``message``; other keys are attributes of
the view the action landed on.

A trajectory is read as the official trace: for each step its screen entry and then its action entry,
the last action being ``stop``. Every node answers ``(satisfied, offset)``; ``sequential`` runs its items
on the trace from the previous item's offset on (the same entry may serve two items), ``consecutive``
looks for each next item within three entries of the previous one, ``presence`` anywhere. An assertion
looks at the *first* match only, first in breadth-first order with the status and navigation bars left out
(``Hierarchy.find``; a view an action landed on is the first such view containing its point). These choices
follow the official evaluator (``infra/evaluator.py``); the paper states none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gui_core.errors import DataError
from gui_tasks.sphinx.hierarchy import Hierarchy, Node, center, parse_bounds, rules_match

ORDERS = ("sequential", "consecutive", "presence")
MATCHES = ("equal", "include")
ASSERTIONS = ("StopPage", "LastAction", "FindAction", "FindElement", "FindElementByAction")
ACTION_KEYS = ("action_type", "message")
ACTIVITY_KEY_HONOURED = {"StopPage": ("check",), "FindElement": ("match", "check")}  # official evaluator.py
_ORDER_ALIASES = {"present": "presence"}  # the official files spell "present"
_MATCH_ALIASES = {"equality": "equal", "inclusion": "include"}  # the paper's words


@dataclass(frozen=True)
class Step:
    """One trajectory step: the screen (view hierarchy and foreground activity), then the action taken on it.

    ``action``: ``{"action_type": "click" | "longclick" | "input" | "swipe" | "back" | "home" | "restart" |
    "wait" | "enter" | "stop", "element": {view attributes}?, "coords": [(x, y), ...]?, "message": str?}``."""

    hierarchy: Hierarchy
    activity: tuple[str, str]
    action: Mapping[str, Any]


Trajectory = Sequence[Step]


def _entries(traj: Trajectory) -> list[tuple[str, Step]]:
    """The official interleaved trace: (screen, step), (action, step) per step."""
    return [e for s in traj for e in (("screen", s), ("action", s))]


def _action_view(step: Step, rules: Mapping[str, str], match_type: str) -> dict[str, str] | None:
    """The action's own fields, plus the attributes of the view it landed on when ``rules`` name any."""
    act = step.action
    fields = {"action_type": str(act.get("action_type", "")).lower()}
    if fields["action_type"] == "text":
        fields["action_type"] = "input"
    if act.get("message") is not None:
        fields["message"] = str(act["message"])
    view_rules = {k: v for k, v in rules.items() if k not in ACTION_KEYS}
    if not view_rules:
        return fields
    point = None
    if isinstance(act.get("element"), Mapping) and act["element"].get("bounds"):
        point = center(parse_bounds(act["element"]["bounds"]))
    elif act.get("coords"):
        point = tuple(act["coords"][0])
    if point is None:
        return None
    node = step.hierarchy.find(view_rules, match_type, point)
    return None if node is None else {**fields, **node.attrib}


@dataclass(frozen=True)
class Assertion:
    """A basic assertion (one of ASSERTIONS) with its match and check rules."""

    kind: str
    match_rules: Mapping[str, str] = field(default_factory=dict)
    check_rules: Mapping[str, str] = field(default_factory=dict)
    match_type: str = "equal"
    check_type: str = "equal"
    element_match_rules: Mapping[str, str] = field(default_factory=dict)  # FindElementByAction only
    element_match_type: str = "equal"

    def __post_init__(self) -> None:
        if self.kind not in ASSERTIONS:
            raise ValueError(f"unknown assertion {self.kind!r}")
        for t in (self.match_type, self.check_type, self.element_match_type):
            if t not in MATCHES:
                raise ValueError(f"match/check type must be one of {MATCHES}, got {t!r}")
        if self.kind == "StopPage" and "activity" in self.match_rules:
            raise ValueError("StopPage: 'activity' belongs in check_rules, not match_rules")

    def _check_view(self, node: Node | None, activity: tuple[str, str]) -> bool:
        if node is None:
            return False
        if "check" not in ACTIVITY_KEY_HONOURED.get(self.kind, ()):
            return rules_match(self.check_rules, node.attrib, self.check_type)  # an 'activity' key never matches a view
        rules = {k: v for k, v in self.check_rules.items() if k != "activity"}
        want = self.check_rules.get("activity")
        return rules_match(rules, node.attrib, self.check_type) and (want is None or want == activity[1])

    def _first_action(self, ents: list[tuple[str, Step]], lo: int, hi: int) -> int | None:
        for i in range(lo, hi):
            kind, step = ents[i]
            if kind == "action":
                view = _action_view(step, self.match_rules, self.match_type)
                if view is not None and rules_match(self.match_rules, view, self.match_type):
                    return i
        return None

    def evaluate(self, ents: list[tuple[str, Step]], lo: int, hi: int) -> tuple[bool, int]:
        """``(satisfied, offset from lo of the entry it was decided at)`` on the trace window ``[lo, hi)``."""
        n = hi - lo
        if self.kind == "StopPage":
            if n < 2:
                return False, 0
            step = ents[hi - 2][1]
            return self._check_view(step.hierarchy.find(self.match_rules, self.match_type), step.activity), n - 2
        if self.kind == "LastAction":
            if n < 3 or ents[hi - 3][0] != "action":
                return False, 0
            step = ents[hi - 3][1]
            view = _action_view(step, self.check_rules, self.check_type)
            return view is not None and rules_match(self.check_rules, view, self.check_type), n - 3
        if self.kind == "FindElement":
            want_act = self.match_rules.get("activity")
            rules = {k: v for k, v in self.match_rules.items() if k != "activity"}
            for i in range(lo, hi):
                kind, step = ents[i]
                if kind != "screen" or (want_act is not None and want_act != step.activity[1]):
                    continue
                node = step.hierarchy.find(rules, self.match_type)
                if node is not None:
                    return self._check_view(node, step.activity), i - lo
            return False, 0
        i = self._first_action(ents, lo, hi)
        if i is None:
            return False, 0
        step = ents[i][1]
        if self.kind == "FindAction":
            view = _action_view(step, self.check_rules, self.check_type)
            return view is not None and rules_match(self.check_rules, view, self.check_type), i - lo
        # FindElementByAction: once the action is found, a view of that same screen is checked
        node = step.hierarchy.find(self.element_match_rules, self.element_match_type)
        return self._check_view(node, step.activity), i - lo


@dataclass(frozen=True)
class Evaluator:
    """A list of assertions / sub-evaluators checked in ``order`` (the official ``rule`` node)."""

    items: tuple["Assertion | Evaluator", ...]
    order: str = "sequential"

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"unknown order {self.order!r}")
        if not self.items:
            raise ValueError("an evaluator needs at least one item")

    def evaluate(self, ents: list[tuple[str, Step]], lo: int, hi: int) -> tuple[bool, int]:
        if self.order == "sequential":
            idx = 0
            for it in self.items:
                ok, off = it.evaluate(ents, lo + idx, hi)
                idx += off
                if not ok:
                    return False, idx
            return True, idx
        if self.order == "consecutive":
            for start in range(hi - lo):
                idx, ok = start, True
                for it in self.items:
                    ok, off = it.evaluate(ents, lo + idx, min(lo + idx + 3, hi))
                    idx += off
                    if not ok:
                        break
                if ok:
                    return True, idx
            return False, 0
        last = -1
        for it in self.items:
            ok, off = it.evaluate(ents, lo, hi)
            last = max(last, off)
            if not ok:
                return False, last
        return True, last

    def satisfied(self, traj: Trajectory) -> bool:
        ents = _entries(traj)
        return self.evaluate(ents, 0, len(ents))[0]


def score_trajectory(evaluators: Sequence[Assertion | Evaluator], traj: Trajectory) -> list[bool]:
    """One boolean per top-level evaluator; SR = all of them, ACP = their mean (section 3.2.1)."""
    ents = _entries(traj)
    return [ev.evaluate(ents, 0, len(ents))[0] for ev in evaluators]


# --- loading the official evaluator files ---------------------------------------------------------
_KINDS = {k.lower(): k for k in ASSERTIONS}


def _rules(obj: Mapping[str, Any], key: str, *, file: str, path: str) -> dict[str, str]:
    val = obj.get(key, {})
    if not isinstance(val, Mapping):
        raise DataError(f"{key} must be an object", file=file, field=f"{path}.{key}")
    return {str(k): str(v) for k, v in val.items()}


def _mtype(obj: Mapping[str, Any], key: str, *, file: str, path: str) -> str:
    val = _MATCH_ALIASES.get(obj.get(key, "equal"), obj.get(key, "equal"))
    if val not in MATCHES:
        raise DataError(f"{key} must be one of {MATCHES}, got {val!r}", file=file, field=f"{path}.{key}")
    return val


def node_from_json(obj: Any, *, file: str = "<memory>", path: str = "evaluators[0]") -> Assertion | Evaluator:
    """One official evaluator node (recursively); DataError names the file and the node's path."""
    if not isinstance(obj, Mapping):
        raise DataError("expected an object", file=file, field=path)
    kind = str(obj.get("type", "")).lower()
    if kind == "rule":
        order = _ORDER_ALIASES.get(obj.get("order"), obj.get("order"))
        if order not in ORDERS:
            raise DataError(f"unknown order {obj.get('order')!r}", file=file, field=f"{path}.order")
        kids = obj.get("evaluators")
        if not isinstance(kids, list) or not kids:
            raise DataError("a rule needs a non-empty 'evaluators' list", file=file, field=f"{path}.evaluators")
        return Evaluator(tuple(node_from_json(x, file=file, path=f"{path}.evaluators[{k}]") for k, x in enumerate(kids)), order)
    if kind not in _KINDS:
        raise DataError(f"unknown evaluator type {obj.get('type')!r}", file=file, field=f"{path}.type")
    name = _KINDS[kind]
    try:
        if name == "FindElementByAction":
            return Assertion(name, _rules(obj, "action_match_rules", file=file, path=path), _rules(obj, "check_rules", file=file, path=path),
                             _mtype(obj, "action_match_type", file=file, path=path), _mtype(obj, "check_type", file=file, path=path),
                             _rules(obj, "element_match_rules", file=file, path=path), _mtype(obj, "element_match_type", file=file, path=path))
        match = {} if name == "LastAction" else _rules(obj, "match_rules", file=file, path=path)
        return Assertion(name, match, _rules(obj, "check_rules", file=file, path=path),
                         _mtype(obj, "match_type", file=file, path=path), _mtype(obj, "check_type", file=file, path=path))
    except DataError:
        raise
    except ValueError as exc:
        raise DataError(str(exc), file=file, field=path) from exc


def evaluators_from_json(obj: Any, *, file: str = "<memory>") -> list[Assertion | Evaluator]:
    """A task's evaluators: the official top-level list of nodes."""
    if not isinstance(obj, list) or not obj:
        raise DataError("expected a non-empty list of evaluators", file=file, field="evaluators")
    return [node_from_json(x, file=file, path=f"evaluators[{k}]") for k, x in enumerate(obj)]

