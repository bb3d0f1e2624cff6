"""Conformance corpus: per agent family, outputs written in the family's published format, the action (or
grounding point) the parser must return, and the document or code each entry follows (``<family>.json``).

``check(entry)`` runs one entry through the project's parser and says whether it conforms; the corpus tests
and ``gui-eval``-independent tools use the same function, so a changed parser is checked against the sources.
Grounding entries are read with the ``benchmark`` strictness (the family's syntax by the benchmark's rule) unless an
entry's ``options`` name another; the ``official`` reading (the authors' own parser) is checked against the authors'
code on the differential corpora (tests/fixtures/differential/grounding, tests/test_grounding_differential.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gui_core.family import FAMILIES as _REGISTRY

# Every registered model family has a corpus (the PSS paper's prompt family "relative" is a prompt, not a model: its
# format is the paper's, tested in tests/test_grounding_*.py).
NO_CORPUS = frozenset({"relative"})
FAMILIES: tuple[str, ...] = tuple(name for name in _REGISTRY.names() if name not in NO_CORPUS)
ROOT = Path(__file__).resolve().parent


def load(family: str) -> list[dict[str, Any]]:
    """The entries of ``family``'s corpus file."""
    doc = json.loads((ROOT / f"{family}.json").read_text(encoding="utf-8"))
    if doc.get("family") != family:
        raise ValueError(f"{family}.json names family {doc.get('family')!r}")
    return list(doc["entries"])


def expected_action(expected: dict[str, Any]):
    """The typed ``Action`` an entry expects (None for a format error)."""
    from gui_core.actions import Action

    if expected["status"] != "parsed":
        return None
    fields = {k: v for k, v in expected.items() if k not in ("status",)}
    for key in ("point", "end_point"):
        if key in fields:
            fields[key] = tuple(float(v) for v in fields[key])
    return Action(**fields)


def check(entry: dict[str, Any], family: str) -> tuple[bool, str]:
    """Whether the parser returns what ``entry`` expects, and what it returned."""
    options = entry.get("options", {})
    want = entry["expected"]
    if entry.get("kind", "action") == "grounding":
        from gui_core.grounding import parse_point

        got = parse_point(entry["output"], family, options.get("strictness", "benchmark"))
        ok = got.status == want["status"] and (
            got.status != "parsed" or (list(got.point) == [float(v) for v in want["point"]] and got.frame == want["frame"]))
        return ok, f"{got.status} {got.point} {got.frame} ({got.detail})"
    from gui_core.action_parsers import parse_action

    got = parse_action(entry["output"], family, **options)
    ok = got.status == want["status"] and got.action == expected_action(want)
    return ok, f"{got.status} {got.action} ({got.detail})"
