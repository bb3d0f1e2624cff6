"""The statistics core: intervals, paired tests and correlations every report and ``gui-eval compare`` use.

API (all seeded, all pure functions of their inputs; docs/statistics.md says what each number means):

- ``clt_se(values)``, ``clustered_se(values, clusters)``: the standard errors lmms-eval prints (``Stderr_CLT``,
  ``Stderr_Clustered``), computed independently of it.
- ``cluster_bootstrap(items, statistic, clusters)`` -> ``Interval``: any statistic of a list of per-sample items
  (FPR-ACC, a pooled ratio, episode success), resampling whole clusters; ``cluster_bootstrap_mean(values, clusters)``
  is the same for a mean, fast (identical draws, so identical numbers).
- ``paired_cluster_bootstrap(a, b, clusters, statistic)`` -> ``Interval`` of ``statistic(a) - statistic(b)``, the
  two runs' items matched by position.
- ``mcnemar_exact(a, b)`` (0/1 scores; equals statsmodels' ``mcnemar(table, exact=True)``),
  ``paired_permutation(a, b, clusters)`` (any scores; ``paired_permutation_statistic`` for a composite statistic),
  ``holm(pvalues)`` (Holm-Bonferroni adjusted p-values).
- ``pearson(x, y)``, ``spearman(x, y)`` -> ``Correlation`` (r, two-sided p, n, ``too_small``).
- ``with_interval(value, (low, high))`` -> ``"0.3250 [0.2000, 0.4700]"``; ``TaskResult.interval(metric)``
  (``gui_tasks.runs.results_io``) reads a run's recorded interval.
- Older helpers kept for the PSS report: ``welch_t_test``, ``wasserstein_distance``, ``bootstrap_ci``.

``None`` and NaN values mean "this sample is not in the population" (another dimension, a polarity that does not
apply) and are left out everywhere.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from typing import Any, Callable, Hashable, Sequence

# Defaults recorded with every interval (docs/statistics.md): resamples of the cluster bootstrap and its seed.
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
PERMUTATIONS = 10000
CONFIDENCE = 0.95
# Below this many pairs a correlation is reported with ``too_small`` set (p-values from 3 or 4 models mean little).
MIN_CORRELATION_N = 5


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



# ---------------------------------------------------------------------------------------------------------------
# Standard errors (the formulas lmms-eval 0.7.3 prints, evaluator_utils.calculate_clt_aggregate_metric)


def _present(values: Sequence[Any], clusters: Sequence[Hashable] | None = None) -> tuple[list[float], list[Hashable]]:
    """Finite values and their clusters (each sample its own cluster when ``clusters`` is None)."""
    cl = list(range(len(values))) if clusters is None else list(clusters)
    if len(cl) != len(values):
        raise ValueError(f"{len(values)} values but {len(cl)} cluster ids")
    keep = [(float(v), c) for v, c in zip(values, cl) if v is not None and math.isfinite(float(v))]
    return [v for v, _ in keep], [c for _, c in keep]


def clt_se(values: Sequence[Any]) -> float:
    """sd(values, ddof=1) / sqrt(n): the standard error of a mean of independent samples; NaN below two values."""
    xs, _ = _present(values)
    return math.sqrt(_var(xs) / len(xs)) if len(xs) > 1 else math.nan


def clustered_se(values: Sequence[Any], clusters: Sequence[Hashable]) -> float:
    """Cluster-robust standard error of a mean (Miller 2024, "Adding Error Bars to Evals", Eq. 4).

    SE^2 = SE_CLT^2 + (1/n^2) * sum over clusters of sum_{i != j} (s_i - mean)(s_j - mean): the within-cluster
    covariance is added to the independent-sample variance. NaN below two values.
    """
    xs, cl = _present(values, clusters)
    n = len(xs)
    if n < 2:
        return math.nan
    mean = sum(xs) / n
    sums: dict[Hashable, float] = {}
    squares: dict[Hashable, float] = {}
    for x, c in zip(xs, cl):
        sums[c] = sums.get(c, 0.0) + (x - mean)
        squares[c] = squares.get(c, 0.0) + (x - mean) ** 2
    cross = sum(sums[c] ** 2 - squares[c] for c in sums) / n ** 2
    return math.sqrt(max(_var(xs) / n + cross, 0.0))


# ---------------------------------------------------------------------------------------------------------------
# Cluster bootstrap


@dataclass(frozen=True)
class Interval:
    """A figure with its uncertainty: the estimate, a percentile interval and the bootstrap standard error."""

    estimate: float
    low: float
    high: float
    se: float
    n: int  # samples that entered the estimate
    n_clusters: int
    method: str  # "cluster_bootstrap", "cluster_bootstrap_mean", "paired_cluster_bootstrap"
    confidence: float = CONFIDENCE
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    failed_resamples: int = 0  # resamples whose statistic was NaN (e.g. a dimension drawn empty), left out

    def as_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}

    def __str__(self) -> str:
        return f"{_fmt(self.estimate)} [{_fmt(self.low)}, {_fmt(self.high)}]"


def with_interval(value: float, interval: tuple[float, float] | None, digits: int = 4) -> str:
    """``0.3250 [0.2000, 0.4700]``: a figure and its 95% interval as every report and the viewer print them."""
    if value is None or not math.isfinite(float(value)):
        return "nan"
    text = f"{value:.{digits}f}"
    if interval is None or not all(math.isfinite(x) for x in interval):
        return text
    return f"{text} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def _fmt(x: float) -> str:
    return "nan" if not math.isfinite(x) else f"{x:.4f}"


def _draws(n_clusters: int, resamples: int, seed: int):
    """Cluster indices of every resample (resamples x n_clusters), one numpy generator seeded with ``seed``."""
    import numpy as np

    return np.random.default_rng(seed).integers(0, n_clusters, size=(resamples, n_clusters))


def _codes(clusters: Sequence[Hashable]) -> tuple[list[int], int]:
    index: dict[Hashable, int] = {}
    codes = [index.setdefault(c, len(index)) for c in clusters]
    return codes, len(index)


def _summarise(estimate: float, reps: Sequence[float], n: int, n_clusters: int, method: str, *, confidence: float,
               resamples: int, seed: int) -> Interval:
    import numpy as np

    arr = np.asarray(reps, dtype=float)
    ok = arr[np.isfinite(arr)]
    failed = int(len(arr) - len(ok))
    if len(ok) < 2 or not math.isfinite(estimate):
        return Interval(estimate, math.nan, math.nan, math.nan, n, n_clusters, method, confidence, resamples, seed, failed)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(ok, [alpha, 1 - alpha])
    return Interval(float(estimate), float(low), float(high), float(np.std(ok, ddof=1)), n, n_clusters, method,
                    confidence, resamples, seed, failed)


def cluster_bootstrap(items: Sequence[Any], statistic: Callable[[list[Any]], float], clusters: Sequence[Hashable] | None = None,
                      *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                      confidence: float = CONFIDENCE) -> Interval:
    """Percentile interval of ``statistic(items)`` from resampling whole clusters with replacement (seeded).

    Each resample draws as many clusters as there are, with replacement, and keeps every item of each drawn cluster
    (a cluster drawn twice counts twice). ``clusters`` None: every item is its own cluster (the ordinary bootstrap).
    """
    items = list(items)
    cl = list(range(len(items))) if clusters is None else list(clusters)
    if len(cl) != len(items):
        raise ValueError(f"{len(items)} items but {len(cl)} cluster ids")
    estimate = _float(statistic(items))
    codes, k = _codes(cl)
    if k == 0:
        return _summarise(estimate, [], 0, 0, "cluster_bootstrap", confidence=confidence, resamples=resamples, seed=seed)
    members: list[list[Any]] = [[] for _ in range(k)]
    for item, c in zip(items, codes):
        members[c].append(item)
    reps = [_float(statistic([it for c in row for it in members[c]])) for row in _draws(k, resamples, seed).tolist()]
    return _summarise(estimate, reps, len(items), k, "cluster_bootstrap", confidence=confidence, resamples=resamples, seed=seed)


def _float(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def cluster_bootstrap_mean(values: Sequence[Any], clusters: Sequence[Hashable] | None = None, *,
                           resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                           confidence: float = CONFIDENCE, method: str = "cluster_bootstrap_mean") -> Interval:
    """``cluster_bootstrap`` of the mean of ``values`` (None/NaN left out), vectorised; the same draws, so the same
    interval as ``cluster_bootstrap(values, mean, clusters)`` with the same seed."""
    import numpy as np

    cl_all = list(range(len(values))) if clusters is None else list(clusters)
    if len(cl_all) != len(values):
        raise ValueError(f"{len(values)} values but {len(cl_all)} cluster ids")
    codes, k = _codes(cl_all)  # clusters of every item, so the draws match cluster_bootstrap's
    x = np.array([math.nan if v is None else float(v) for v in values], dtype=float)
    ok = np.isfinite(x)
    n = int(ok.sum())
    if n == 0:
        return _summarise(math.nan, [], 0, k, method, confidence=confidence, resamples=resamples, seed=seed)
    sums = np.bincount(np.asarray(codes)[ok], weights=x[ok], minlength=k)
    counts = np.bincount(np.asarray(codes)[ok], minlength=k).astype(float)
    draws = _draws(k, resamples, seed)
    rows = np.repeat(np.arange(resamples), k)
    times = np.zeros((resamples, k))
    np.add.at(times, (rows, draws.ravel()), 1.0)
    num, den = times @ sums, times @ counts
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    n_clusters = len(set(np.asarray(codes)[ok].tolist()))
    return _summarise(float(x[ok].mean()), reps.tolist(), n, n_clusters, method, confidence=confidence,
                      resamples=resamples, seed=seed)


def paired_cluster_bootstrap(a: Sequence[Any], b: Sequence[Any], clusters: Sequence[Hashable] | None = None,
                             statistic: Callable[[list[Any]], float] | None = None, *,
                             resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                             confidence: float = CONFIDENCE) -> Interval:
    """Interval of ``statistic(a) - statistic(b)`` for two runs on the same samples (``a[i]``, ``b[i]`` one sample).

    Both runs are resampled with the same clusters, so what the samples share cancels. ``statistic`` None: the mean
    of numbers (pairs with a None/NaN on either side are left out), computed vectorised.
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples must match: {len(a)} against {len(b)}")
    if statistic is None:
        diffs = [None if _bad(x) or _bad(y) else float(x) - float(y) for x, y in zip(a, b)]
        return cluster_bootstrap_mean(diffs, clusters, resamples=resamples, seed=seed, confidence=confidence,
                                      method="paired_cluster_bootstrap")
    pairs = list(zip(a, b))

    def diff(ps: list[tuple[Any, Any]]) -> float:
        return _float(statistic([p[0] for p in ps])) - _float(statistic([p[1] for p in ps]))

    iv = cluster_bootstrap(pairs, diff, clusters, resamples=resamples, seed=seed, confidence=confidence)
    return Interval(iv.estimate, iv.low, iv.high, iv.se, iv.n, iv.n_clusters, "paired_cluster_bootstrap",
                    iv.confidence, iv.resamples, iv.seed, iv.failed_resamples)


def _bad(x: Any) -> bool:
    return x is None or not math.isfinite(float(x))


# ---------------------------------------------------------------------------------------------------------------
# Paired tests and multiple comparisons


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test of two runs' 0/1 scores on the same samples."""

    a_only: int  # samples run A got right and run B wrong
    b_only: int  # samples run B got right and run A wrong
    p_value: float  # two-sided


def mcnemar_exact(a: Sequence[Any], b: Sequence[Any]) -> McNemar:
    """p = min(1, 2 * BinomCDF(min(a_only, b_only); a_only + b_only, 1/2)), as statsmodels'
    ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``; pairs with a None/NaN are left out."""
    from scipy.stats import binom

    if len(a) != len(b):
        raise ValueError(f"paired samples must match: {len(a)} against {len(b)}")
    a_only = b_only = 0
    for x, y in zip(a, b):
        if _bad(x) or _bad(y):
            continue
        if float(x) not in (0.0, 1.0) or float(y) not in (0.0, 1.0):
            raise ValueError(f"McNemar needs 0/1 scores, got {x!r} and {y!r}")
        a_only += x == 1 and y == 0
        b_only += x == 0 and y == 1
    p = min(1.0, 2.0 * float(binom.cdf(min(a_only, b_only), a_only + b_only, 0.5)))
    return McNemar(int(a_only), int(b_only), p)


def paired_permutation(a: Sequence[Any], b: Sequence[Any], clusters: Sequence[Hashable] | None = None, *,
                       permutations: int = PERMUTATIONS, seed: int = BOOTSTRAP_SEED) -> float:
    """Two-sided p-value of the mean difference ``a - b`` under exchangeability of the two runs within each cluster.

    Each permutation swaps the runs' scores of a whole cluster at random (a sign flip of its summed differences);
    p = (1 + #{|permuted mean| >= |observed mean|}) / (1 + permutations). 1.0 when every difference is zero.
    """
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"paired samples must match: {len(a)} against {len(b)}")
    cl = list(range(len(a))) if clusters is None else list(clusters)
    keep = [(float(x) - float(y), c) for x, y, c in zip(a, b, cl) if not (_bad(x) or _bad(y))]
    if not keep:
        return math.nan
    codes, k = _codes([c for _, c in keep])
    d = np.bincount(codes, weights=[v for v, _ in keep], minlength=k)
    observed = abs(d.sum())
    if not np.any(d):
        return 1.0
    signs = np.random.default_rng(seed).choice((-1.0, 1.0), size=(permutations, k))
    hits = int(np.sum(np.abs(signs @ d) >= observed - 1e-12 * max(1.0, observed)))
    return (1 + hits) / (1 + permutations)


def paired_permutation_statistic(a: Sequence[Any], b: Sequence[Any], statistic: Callable[[list[Any]], float],
                                 clusters: Sequence[Hashable] | None = None, *, permutations: int = BOOTSTRAP_RESAMPLES,
                                 seed: int = BOOTSTRAP_SEED) -> float:
    """``paired_permutation`` for any statistic of per-sample items (a composite metric): each permutation swaps
    the two runs' items of whole clusters at random and recomputes ``statistic(a') - statistic(b')``."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"paired samples must match: {len(a)} against {len(b)}")
    cl = list(range(len(a))) if clusters is None else list(clusters)
    codes, k = _codes(cl)
    observed = _float(statistic(list(a))) - _float(statistic(list(b)))
    if not math.isfinite(observed):
        return math.nan
    if observed == 0 and all(x == y for x, y in zip(a, b)):
        return 1.0
    flips = np.random.default_rng(seed).integers(0, 2, size=(permutations, k)).astype(bool)
    hits = 0
    for row in flips.tolist():
        pa = [y if row[c] else x for x, y, c in zip(a, b, codes)]
        pb = [x if row[c] else y for x, y, c in zip(a, b, codes)]
        d = _float(statistic(pa)) - _float(statistic(pb))
        hits += math.isfinite(d) and abs(d) >= abs(observed) - 1e-12 * max(1.0, abs(observed))
    return (1 + hits) / (1 + permutations)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given; NaN stays NaN and does not count as a test)."""
    idx = sorted((i for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)), key=lambda i: pvalues[i])
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * float(pvalues[i])))
        out[i] = running
    return out


CORRECTIONS: dict[str, Callable[[Sequence[float]], list[float]]] = {"holm": holm, "none": lambda ps: list(ps)}


# ---------------------------------------------------------------------------------------------------------------
# Correlations (MPR-GUI Table 3: RI/SI against FPR-ACC across models)


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient with its two-sided p-value and the number of pairs it rests on."""

    method: str  # "pearson" | "spearman"
    r: float
    p_value: float
    n: int
    too_small: bool  # n < MIN_CORRELATION_N: report, but do not read the p-value

    def as_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}


def _pairs(x: Sequence[Any], y: Sequence[Any]) -> tuple[list[float], list[float]]:
    if len(x) != len(y):
        raise ValueError(f"correlation needs pairs: {len(x)} against {len(y)} values")
    keep = [(float(a), float(b)) for a, b in zip(x, y) if not (_bad(a) or _bad(b))]
    return [a for a, _ in keep], [b for _, b in keep]


def _correlation(method: str, x: Sequence[Any], y: Sequence[Any], min_n: int) -> Correlation:
    from scipy import stats as st

    xs, ys = _pairs(x, y)
    n = len(xs)
    if n < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:  # undefined: too few pairs or a constant side
        return Correlation(method, math.nan, math.nan, n, True)
    res = (st.pearsonr if method == "pearson" else st.spearmanr)(xs, ys)
    return Correlation(method, float(res[0]), float(res[1]), n, n < min_n)


def pearson(x: Sequence[Any], y: Sequence[Any], *, min_n: int = MIN_CORRELATION_N) -> Correlation:
    """Pearson's r with scipy's two-sided p-value (t distribution, n - 2 degrees of freedom)."""
    return _correlation("pearson", x, y, min_n)


def spearman(x: Sequence[Any], y: Sequence[Any], *, min_n: int = MIN_CORRELATION_N) -> Correlation:
    """Spearman's rank correlation (ties get average ranks) with scipy's two-sided p-value."""
    return _correlation("spearman", x, y, min_n)
