"""CircularEval scoring (MMBench, Liu et al. 2023, section 3.2): a question asked once per rotation of its options
counts as right only if every rotation is answered right.

A circular task's documents are the rotations of each question (``gui_tasks.harness.circular.expand``); each per-sample
record carries the fields of ``ROTATION_FIELDS`` copied from its document. Before a metric aggregates, the records
of one question are collapsed into one (:func:`per_question`), so every metric of a benchmark scores questions, not
requests, without knowing about rotations. Records without ``circular_id`` (plain tasks) pass through unchanged.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

# Copied from a rotated document into its per-sample record (``circular_fields``).
ROTATION_FIELDS: tuple[str, ...] = ("circular_id", "rotation", "n_rotations")
# Record fields that hold on the question only if they hold on every rotation (all benchmarks' "right" flags).
ALL_ROTATIONS: tuple[str, ...] = ("correct", "correct_repaired")
STATUS_ORDER: tuple[str, ...] = ("parsed", "malformed", "empty")  # a question's status: its worst rotation's


def circular_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The rotation fields of a document (empty for a document of a plain task)."""
    return {k: doc[k] for k in ROTATION_FIELDS if k in doc}


def _worst(statuses: Sequence[Any]) -> Any:
    known = [s for s in statuses if s in STATUS_ORDER]
    other = [s for s in statuses if s not in STATUS_ORDER]
    return other[0] if other else max(known, key=STATUS_ORDER.index)


def collapse(rotations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One question's record from its rotations' records: rotation 0's (the original option order), with every
    ``ALL_ROTATIONS`` flag true only if true on every rotation and ``status`` the worst rotation's."""
    ordered = sorted(rotations, key=lambda r: int(r.get("rotation", 0)))
    out = dict(ordered[0])
    for key in ALL_ROTATIONS:
        if key in out:
            out[key] = all(bool(r.get(key)) for r in ordered)
    if "status" in out:
        out["status"] = _worst([r.get("status") for r in ordered])
    out["rotations_seen"] = len(ordered)
    return out


def group_rotations(items: Sequence[Any]) -> tuple[list[Any], dict[str, list[Mapping[str, Any]]]]:
    """(plain items, circular records by question id), in first-seen order."""
    plain: list[Any] = []
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:
        if isinstance(item, Mapping) and item.get("circular_id") is not None:
            groups.setdefault(str(item["circular_id"]), []).append(item)
        else:
            plain.append(item)
    return plain, groups


def complete(group: Sequence[Mapping[str, Any]]) -> bool:
    """Every rotation of the question was answered (a ``--limit`` can cut the last question's rotations short)."""
    want = int(group[0].get("n_rotations", len(group)))
    return len({int(r.get("rotation", 0)) for r in group}) >= want


def per_question(items: Sequence[Any]) -> list[Any]:
    """The items a per-question metric aggregates: plain items as they are, each complete circular question collapsed
    into one record; a question missing rotations is left out (it cannot be scored as CircularEval scores)."""
    plain, groups = group_rotations(items)
    if not groups:
        return list(items)
    return plain + [collapse(g) for g in groups.values() if complete(g)]


def question_count(items: Sequence[Any]) -> float:
    """How many complete circular questions the items hold (the requests are lmms-eval's sample count)."""
    _, groups = group_rotations(items)
    return float(sum(complete(g) for g in groups.values()))


def request_accuracy(items: Sequence[Mapping[str, Any]]) -> float:
    """Accuracy over every request (each rotation counts once): the non-circular score of the same answers."""
    return sum(bool(r["correct"]) for r in items) / len(items) if items else float("nan")
