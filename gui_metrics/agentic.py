"""Step-wise action metrics for agentic benchmarks (StaR appendix A.2-A.3) as metric plugins.

Per-step records (kind ``"step"``) carry ``category`` (the gold action's Table 4 column:
CLICK, COMPLETE, SCROLL, TYPE, OPENAPP, PRESS, Others), ``type_match``, ``exact`` (the A.2
action match under the rule in ``rule``) and ``status`` of the parse. Overall rates and one
rate per category; a category with no steps aggregates to NaN (absent, not zero).

Records also carry ``judge`` (``gui_tasks.star.judges``), ``episode_id``, ``judge_type`` (the judge's own action type
of the gold: StaR's ``ActionType`` names under ``star``) and, on GUI-Odyssey, ``episode_category``. From them: the episode success rate (every scored step of the episode exact: StaR's "Task Success Rate",
GUI-Odyssey's SR, AgentCPM-GUI's success_rate), its mean over
GUI-Odyssey's six task categories (``evaluate_GUIOdyssey.py`` metric "micro"), OS-Atlas's grounding accuracy (exact
over type-matched steps whose gold is a click), and StaR's per-type TMR / AMR with its PRESS and SCROLL aggregates
(``evaluator/evaluators.py computeMetricsWithJudgement``).

A per-sample value is one step's record, or, when an episode is one document (UI-TARS's own history, StaR A.5), a
record ``{"steps": [...]}`` holding the episode's step records; every metric reads the steps (``step_records``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]
# gui_tasks.star.agentic.CATEGORIES (gui_metrics may not import gui_tasks; a test keeps them equal)
CATEGORIES = ("CLICK", "COMPLETE", "SCROLL", "TYPE", "OPENAPP", "PRESS", "Others")


def step_records(items: Sequence[Record]) -> list[Record]:
    """The step records of per-sample values: a step record as it is, an episode's ``steps`` in order."""
    out: list[Record] = []
    for r in items:
        steps = r.get("steps") if isinstance(r, Mapping) else None
        out.extend(steps if isinstance(steps, list) else [r])
    return out


def _over_steps(agg):
    return lambda items: agg(step_records(items))


def _rate(records: Sequence[Record], hit) -> float:
    return sum(bool(hit(r)) for r in records) / len(records) if records else math.nan


def _in(cat: str):
    return lambda rs: [r for r in rs if r["category"] == cat]


def _metrics() -> dict[str, tuple[Any, bool, str]]:
    out: dict[str, tuple[Any, bool, str]] = {
        "step_type_acc": (lambda rs: _rate(rs, lambda r: r["type_match"]), True, "type match rate over steps (TMR)"),
        "step_action_acc": (lambda rs: _rate(rs, lambda r: r["exact"]), True, "exact action match over steps (AMR, A.2)"),
        "step_format_error_rate": (lambda rs: _rate(rs, lambda r: r.get("status", "parsed") != "parsed"), False,
                                   "outputs that are not an action of the agent's format"),
    }
    for cat in CATEGORIES:
        type_rate, exact_rate = _match_rates(_in(cat))
        out[f"step_action_acc_{cat.lower()}"] = (exact_rate, True, f"exact action match on {cat} steps (Table 4 column)")
        out[f"step_type_acc_{cat.lower()}"] = (type_rate, True, f"type match on {cat} steps (Table 4 column)")
    return out


def _match_rates(sel):
    """(type match rate, exact match rate) over the steps ``sel`` keeps: the TMR/AMR pair of a step subset."""
    return (lambda rs: _rate(sel(rs), lambda r: r["type_match"]), lambda rs: _rate(sel(rs), lambda r: r["exact"]))


# StaR's ActionType names (evaluator/utils.py) that get a column; PRESS = PRESSBACK + PRESSHOME (ENTER is its own
# type and not in PRESS), SCROLL = the four SCROLL<direction> types
STAR_TYPE_COLUMNS = ("CLICK", "LONGCLICK", "TYPE", "OPENAPP", "PRESSBACK", "PRESSHOME", "ENTER", "WAIT", "TASKCOMPLETE",
                     "TASKIMPOSSIBLE", "SCROLLUP", "SCROLLDOWN", "SCROLLLEFT", "SCROLLRIGHT")


# the vocabulary a step record's ``judge_type`` is written in (``judge_type_names``: the judge record's ``type_names``);
# records written before that field existed are read by the judge they name (only ``star`` wrote StaR's names)
STAR_TYPE_NAMES = "star-actiontype"
_RECORDS_BEFORE_TYPE_NAMES = {"star": STAR_TYPE_NAMES}


def _type_names(r: Record) -> str | None:
    return r.get("judge_type_names") or _RECORDS_BEFORE_TYPE_NAMES.get(str(r.get("judge")))


def _star_sel(name: str):
    if name == "PRESS":
        return lambda rs: [r for r in rs if _type_names(r) == STAR_TYPE_NAMES and str(r.get("judge_type", "")).startswith("PRESS")]
    if name == "SCROLL":
        return lambda rs: [r for r in rs if _type_names(r) == STAR_TYPE_NAMES and str(r.get("judge_type", "")).startswith("SCROLL")]
    return lambda rs: [r for r in rs if _type_names(r) == STAR_TYPE_NAMES and r.get("judge_type") == name]


def _episodes(records: Sequence[Record]) -> dict[tuple[str, str], list[Record]]:
    out: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        out.setdefault((str(r.get("dataset", "")), str(r.get("episode_id", ""))), []).append(r)
    return out


def _succeeded(steps: Sequence[Record]) -> bool:
    return all(bool(r["exact"]) for r in steps)


def episode_success(records: Sequence[Record]) -> float:
    """Share of episodes whose every scored step is an exact match (NaN without episode ids)."""
    eps = _episodes([r for r in records if r.get("episode_id") is not None])
    return sum(_succeeded(v) for v in eps.values()) / len(eps) if eps else math.nan


def episode_success_category_mean(records: Sequence[Record]) -> float:
    """GUI-Odyssey "micro": the episode success rate per task category, averaged over the categories present."""
    by_cat: dict[str, list[Record]] = {}
    for r in records:
        if r.get("episode_category"):
            by_cat.setdefault(str(r["episode_category"]), []).append(r)
    rates = [episode_success(v) for v in by_cat.values()]
    return sum(rates) / len(rates) if rates else math.nan


def grounding_accuracy(records: Sequence[Record]) -> float:
    """OS-Atlas: click steps matched exactly over click steps whose type matched."""
    hits = [r for r in records if r["category"] == "CLICK" and r["type_match"]]
    return _rate(hits, lambda r: r["exact"])


def _more_metrics() -> dict[str, tuple[Any, bool, str]]:
    out: dict[str, tuple[Any, bool, str]] = {
        "step_success_rate": (episode_success, True, "episodes with every scored step exact (Task Success Rate, SR)"),
        "step_category_mean_success_rate": (episode_success_category_mean, True,
                                               "episode success averaged over GUI-Odyssey task categories"),
        "step_grounding_acc": (grounding_accuracy, True, "OS-Atlas grounding accuracy: click exact over click type-matched"),
    }
    for name in (*STAR_TYPE_COLUMNS, "PRESS", "SCROLL"):
        type_rate, exact_rate = _match_rates(_star_sel(name))
        out[f"star_{name.lower()}_tmr"] = (type_rate, True, f"StaR judge: type match on gold {name} steps")
        out[f"star_{name.lower()}_amr"] = (exact_rate, True, f"StaR judge: action match on gold {name} steps")
    return out


STEP_METRICS = {**_metrics(), **_more_metrics()}


def step_rates(records: Sequence[Record]) -> dict[str, float]:
    steps = step_records(records)
    return {name: agg(steps) for name, (agg, _, _) in STEP_METRICS.items()}


def _is_episode(r: Record) -> bool:
    return isinstance(r.get("steps"), list)


def _per_sample(name: str, agg):
    """A sample's own value: a step rate is a mean over steps (a step item scores, an episode item does not: its
    share of steps is a ratio); episode success is a mean over episodes (an episode item scores, a step does not)."""
    if name == "step_success_rate":
        return lambda r: agg(step_records([r])) if _is_episode(r) else None
    return lambda r: None if _is_episode(r) else agg([r])


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    # the category mean averages per-category episode rates: composite (cluster bootstrap only)
    return [MetricSpec(name, _over_steps(agg), hib, frozenset({"step"}), f"StaR appendix A.2-A.3 {doc}",
                       per_sample=_per_sample(name, agg), composite=name == "step_category_mean_success_rate")
            for name, (agg, hib, doc) in STEP_METRICS.items()]
