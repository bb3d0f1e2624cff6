"""SPHINX invariants (section 3.2.5): repetition and format errors over a navigation run.

Repetition follows the official instruction-following script (PKU-ASE-RISE/Sphinx ``eval_instr.py``):
every action after the first is looked at, and it is a repetition when it equals *any* earlier action of
the run; once three consecutive actions are equal the run is stuck and counting stops. Two actions are
equal when their types are equal and, for element actions, the view they landed on has the same
``resource-id, class, text, content-desc, bounds`` (and a text action the same message).
Format errors: a run ends at the first output that is not an action (the official agent stops there),
and the rate is errors / (actions taken + errors).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

SAME_VIEW_KEYS = ("resource-id", "class", "text", "content-desc", "bounds")
PARAMETERLESS = ("back", "home", "restart", "wait", "enter", "stop", "none")


def same_action(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """The official equality of two recorded actions (evaluator form, ``action_type`` key)."""
    ta, tb = str(a.get("action_type", "")).lower(), str(b.get("action_type", "")).lower()
    if ta != tb:
        return False
    if ta in PARAMETERLESS:
        return True
    if ta in ("input", "text") and a.get("message") != b.get("message"):
        return False
    ea, eb = a.get("element"), b.get("element")
    if isinstance(ea, Mapping) and isinstance(eb, Mapping):
        return all(ea.get(k) == eb.get(k) for k in SAME_VIEW_KEYS)
    return ea is None and eb is None and a.get("coords") == b.get("coords")


def repetitions(actions: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """``(repeated, looked_at)`` for one run."""
    repeated = looked = 0
    for i in range(1, len(actions)):
        looked += 1
        if any(same_action(actions[j], actions[i]) for j in range(i)):
            repeated += 1
        if i >= 2 and same_action(actions[i], actions[i - 1]) and same_action(actions[i], actions[i - 2]):
            break
    return repeated, looked
