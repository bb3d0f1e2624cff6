"""The one tolerance for floats that a model computed (stated once, used by every test that compares model outputs).

Decisions, texts and ids are compared exactly; floats within ``REL_TOL`` / ``ABS_TOL``: the same model on another
thread count (one process vs two ranks, OMP_NUM_THREADS=1 vs 2) sums in another order and changes the last digits
(a perplexity of 15.527371579321189 vs 15.52736787730776 is 2.4e-7 relative).

Raw float32 values a model computed and a fixture recorded on another machine (``fixtures/hf_batch1_recorded.json``:
digit logits, log-Z, log-probs, entropies of the tiny checkpoints) move further: ATen / oneDNN pick their kernels by
CPU (scalar, AVX2, AVX-512) and each sums in its own order. ``benchmarks/kernel_spread.py`` measured the spread
(issue 55; 2026-12-02, a 2-core x86_64 with AVX2 and no AVX-512, torch 2.14.1, ``ATEN_CPU_CAPABILITY=default|avx2``
at 1 and 2 threads, against the recording made on an AVX-512 machine): token ids and texts identical everywhere; the
largest absolute difference 9.8e-6 (a digit logit), the largest relative one 3.0e-6 on log-probs, entropies and
log-Z (digit logits near 0 have no meaningful relative difference: up to 8.2e-4 relative at 1e-5 absolute). A
second AVX2 machine saw 1.4e-5 to 5e-5 relative against the same recording. ``MODEL_ABS_TOL`` / ``MODEL_REL_TOL``
keep a margin of 10x over the measured absolute spread and 2x over the largest relative one ever seen; texts and ids
stay exact. Every other recorded float in the suite is computed by pure Python or SciPy from fixed inputs (the
wrapper corpora's coordinates, statsmodels' McNemar p-values), not by a model, and keeps ``REL_TOL`` / ``ABS_TOL``.
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-5
ABS_TOL = 1e-6
MODEL_REL_TOL = 1e-4
MODEL_ABS_TOL = 1e-4


def differences(actual: Any, expected: Any, path: str = "$", *, rel_tol: float = REL_TOL,
                abs_tol: float = ABS_TOL) -> list[str]:
    """Where two JSON-like values differ beyond the tolerance: ``path: actual != expected`` lines (empty: equal).
    ``rel_tol`` / ``abs_tol``: ``MODEL_REL_TOL`` / ``MODEL_ABS_TOL`` for raw model floats recorded on another machine.

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
        return [] if math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol) else [f"{path}: {actual!r} != {expected!r}"]
    if isinstance(actual, str) and isinstance(expected, str):
        return [] if actual == expected else [f"{path}: {actual[:200]!r} != {expected[:200]!r}"]
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            return [f"{path}: keys {sorted(map(str, set(actual) ^ set(expected)))} in only one"]
        return [d for k in sorted(actual, key=str)
                for d in differences(actual[k], expected[k], f"{path}.{k}", rel_tol=rel_tol, abs_tol=abs_tol)]
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return [f"{path}: length {len(actual)} != {len(expected)}"]
        return [d for i, (a, e) in enumerate(zip(actual, expected))
                for d in differences(a, e, f"{path}[{i}]", rel_tol=rel_tol, abs_tol=abs_tol)]
    return [] if actual == expected else [f"{path}: {actual!r} != {expected!r} ({type(actual).__name__} vs {type(expected).__name__})"]


def assert_close(actual: Any, expected: Any) -> None:
    """``actual`` equals ``expected``: exactly but for floats within the tolerance; the failure lists every place."""
    diff = differences(actual, expected)
    assert not diff, "\n".join(diff[:20])
