"""Statistics for comparing response-type groups: Welch t-test (Table 3), Wasserstein distance (Table 5), bootstrap CIs."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class TTest:
    """Welch's unequal-variance t-test of two samples."""

    t: float
    df: float
    p_value: float
    """Two-sided."""
    mean_a: float
    mean_b: float

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


def _clean(xs: Sequence[float]) -> list[float]:
    return [float(x) for x in xs if x is not None and math.isfinite(float(x))]


def _var(xs: list[float]) -> float:
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> TTest:
    """t = (mean_a - mean_b) / sqrt(s_a^2/n_a + s_b^2/n_b), Welch-Satterthwaite df, two-sided p.

    Needs at least two finite values per group; NaN results when both variances are zero.
    """
    from scipy.special import stdtr

    xa, xb = _clean(a), _clean(b)
    if len(xa) < 2 or len(xb) < 2:
        raise ValueError(f"Welch's t-test needs >= 2 values per group, got {len(xa)} and {len(xb)}")
    ma, mb = sum(xa) / len(xa), sum(xb) / len(xb)
    va, vb = _var(xa) / len(xa), _var(xb) / len(xb)
    if va + vb == 0:
        return TTest(math.nan, math.nan, math.nan, ma, mb)
    t = (ma - mb) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(xa) - 1) + vb ** 2 / (len(xb) - 1))
    p = 2 * float(stdtr(df, -abs(t)))
    return TTest(t, df, p, ma, mb)


def wasserstein_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """1-Wasserstein distance between two empirical distributions: the integral of |F_a - F_b|."""
    xa, xb = sorted(_clean(a)), sorted(_clean(b))
    if not xa or not xb:
        raise ValueError("Wasserstein distance needs two non-empty samples")
    points = sorted(set(xa) | set(xb))
    total, ia, ib = 0.0, 0, 0
    for lo, hi in zip(points, points[1:]):
        while ia < len(xa) and xa[ia] <= lo:
            ia += 1
        while ib < len(xb) and xb[ib] <= lo:
            ib += 1
        total += abs(ia / len(xa) - ib / len(xb)) * (hi - lo)
    return total


def bootstrap_ci(values: Sequence[float], statistic: Callable[[Sequence[float]], float] | None = None, *,
                 n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of ``statistic`` (default: the mean), seeded."""
    xs = _clean(values)
    if not xs:
        return math.nan, math.nan
    stat = statistic or (lambda s: sum(s) / len(s))
    rng = random.Random(seed)
    draws = sorted(stat([xs[rng.randrange(len(xs))] for _ in xs]) for _ in range(n_resamples))
    lo_q, hi_q = (1 - confidence) / 2, 1 - (1 - confidence) / 2
    return draws[int(lo_q * (n_resamples - 1))], draws[int(math.ceil(hi_q * (n_resamples - 1)))]
