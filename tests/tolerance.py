"""The one tolerance for floats that a model computed (stated once, used by every test that compares model outputs).

Decisions, texts and ids are compared exactly; floats within ``REL_TOL`` / ``ABS_TOL``: the same model on another
thread count (one process vs two ranks, OMP_NUM_THREADS=1 vs 2) sums in another order and changes the last digits
(a perplexity of 15.527371579321189 vs 15.52736787730776 is 2.4e-7 relative).
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-5
ABS_TOL = 1e-6


def differences(actual: Any, expected: Any, path: str = "$") -> list[str]:
    """Where two JSON-like values differ beyond the tolerance: ``path: actual != expected`` lines (empty: equal).

    Numbers (not bools) within the tolerance are equal; strings (a model's text, even one that holds numbers),
    bools, None, ints and keys must match exactly.
    """
    if isinstance(actual, bool) or isinstance(expected, bool) or actual is None or expected is None:
        return [] if actual is expected or (actual == expected and type(actual) is type(expected)) else [f"{path}: {actual!r} != {expected!r}"]
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        if isinstance(actual, int) and isinstance(expected, int):
            return [] if actual == expected else [f"{path}: {actual} != {expected}"]
        if math.isnan(actual) and math.isnan(expected):
            return []
        return [] if math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL) else [f"{path}: {actual!r} != {expected!r}"]
    if isinstance(actual, str) and isinstance(expected, str):
        return [] if actual == expected else [f"{path}: {actual[:200]!r} != {expected[:200]!r}"]
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            return [f"{path}: keys {sorted(map(str, set(actual) ^ set(expected)))} in only one"]
        return [d for k in sorted(actual, key=str) for d in differences(actual[k], expected[k], f"{path}.{k}")]
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return [f"{path}: length {len(actual)} != {len(expected)}"]
        return [d for i, (a, e) in enumerate(zip(actual, expected)) for d in differences(a, e, f"{path}[{i}]")]
    return [] if actual == expected else [f"{path}: {actual!r} != {expected!r} ({type(actual).__name__} vs {type(expected).__name__})"]


def assert_close(actual: Any, expected: Any) -> None:
    """``actual`` equals ``expected``: exactly but for floats within the tolerance; the failure lists every place."""
    diff = differences(actual, expected)
    assert not diff, "\n".join(diff[:20])
