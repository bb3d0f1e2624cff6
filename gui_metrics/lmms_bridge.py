"""Exposes every registered gui metric to lmms-eval's metric registries by name.

After :func:`register_with_lmms_eval`, a task YAML can list ``- metric: fpr_acc`` and
lmms-eval finds its aggregation and direction; the task's ``process_results`` supplies
the per-sample values through :func:`sample_values`.
"""

from __future__ import annotations

import sys
from typing import Any, Hashable, Iterable, Mapping, Sequence

from gui_metrics.manager import all_metrics, metric_owner, metrics_for

_REGISTERED: set[str] = set()


def register_with_lmms_eval() -> list[str]:
    """Register all gui metrics (idempotent); returns the names newly registered."""
    from lmms_eval.api import registry as reg

    added = []
    for name, spec in all_metrics().items():
        if name in _REGISTERED:
            continue
        existing = reg.AGGREGATION_REGISTRY.get(name)
        existing = existing or reg.METRIC_AGGREGATION_REGISTRY.get(name) or (name in reg.HIGHER_IS_BETTER_REGISTRY and name)
        if existing and getattr(existing, "__gui_metric__", None) is None:  # left out, the others still register
            print(f"gui-eval: metric {name!r} of plugin {metric_owner(name)} left out: lmms-eval already has an "
                  "aggregation of that name; rename the metric", file=sys.stderr, flush=True)
            continue
        agg = _aggregation(spec.name, spec.aggregate_items)
        reg.AGGREGATION_REGISTRY[name] = agg
        reg.METRIC_AGGREGATION_REGISTRY[name] = agg
        reg.HIGHER_IS_BETTER_REGISTRY[name] = spec.higher_is_better
        _REGISTERED.add(name)
        added.append(name)
    return added


def _aggregation(name: str, fn):
    def aggregate(items):
        return fn(list(items))

    aggregate.__name__ = f"gui_metric_{name}"
    aggregate.__gui_metric__ = name  # marks ours, so re-registration is not a collision
    return aggregate


# The per-sample field lmms-eval reads for its standard errors, --baseline and --repeats (TaskConfig.score_key).
SCORE_KEY = "score"


def sample_values(kinds: Iterable[str], record: Mapping[str, Any], *, cluster: tuple[str, Hashable] | None = None,
                  primary: Sequence[str] = ()) -> dict[str, Any]:
    """``process_results`` output: the per-sample value of every metric for these kinds, in lmms-eval's shape.

    Each metric's value is the record plus ``score`` (``MetricSpec.sample_score``: the sample's own value for that
    metric; absent when the sample is outside its population or the metric is composite) plus the cluster field
    (``cluster = (cluster_key, id)``: the screenshot, episode or application the sample shares with others).
    lmms-eval's ``calculate_clt_aggregate_metric`` reads ``score`` and the task's ``cluster_key`` from these.
    A top-level ``score`` (no metric: logged, not aggregated) is the first of ``primary`` that has one, which
    lmms-eval's ``--baseline`` reads from both runs' samples.
    """
    out: dict[str, Any] = {}
    for kind in kinds:
        for spec in metrics_for(kind):
            value = spec.score(record)
            if isinstance(value, Mapping):
                value = {k: v for k, v in value.items() if k != SCORE_KEY}
                if cluster is not None:
                    value[cluster[0]] = cluster[1]
                score = spec.sample_score(record)
                if score is not None:
                    value[SCORE_KEY] = score
            out[spec.name] = value
    for name in primary:
        value = out.get(name)
        if isinstance(value, Mapping) and SCORE_KEY in value:
            out[SCORE_KEY] = value[SCORE_KEY]
            break
    return out


def metric_list_yaml(names: Iterable[str]) -> str:
    """The ``metric_list`` entries of a task YAML for these gui metrics: each aggregated by its own name, its
    ``higher_is_better`` read from the metric's definition (never restated by the YAML generator)."""
    from gui_metrics.manager import get_metric

    return "\n".join(f"  - metric: {n}\n    aggregation: {n}\n    higher_is_better: "
                     f"{'true' if get_metric(n).higher_is_better else 'false'}" for n in names)
