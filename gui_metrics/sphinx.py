"""SPHINX end-to-end metrics (seed section 3.2.1, 3.2.5) as metric plugins.

Trajectory records (kind ``"trajectory"``) carry ``satisfied`` (one bool per evaluator), ``n_actions``
(actions taken), ``repeated`` / ``repeat_looked`` (actions equal to an earlier one of the run / actions
looked at, as the official ``eval_instr.py`` counts them) and ``format_errors`` (outputs that were not an
action; the run ends at the first). Rates pool the counts over runs, as the official script does. StaR toggle
episodes add ``toggle_kind`` (``normal``, ``verify``, ``composite``; ``gui_tasks.sphinx.toggle_tasks.toggle_kind``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.letter_bias import letter_bias_specs
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]
# Letter-bias report labels (gui_metrics.letter_bias): knowledge probing's MCQ letters and T/F answers, completion's two
# answers; metric names sphinx_probe_pred_share_a, sphinx_completion_gold_share_stop, ...
PROBE_LABELS: tuple[str, ...] = ("A", "B", "C", "D", "T", "F")
COMPLETION_LABELS: tuple[str, ...] = ("continue", "stop")


def ran(records: Sequence[Record]) -> list[Record]:
    """The episodes that ran: a device episode that could not (``not_run``: device dropped, app missing) is left out."""
    return [r for r in records if not r.get("not_run")]


def success_rate(records: Sequence[Record]) -> float:
    """SR: fraction of trajectories satisfying all their evaluators."""
    records = ran(records)
    return sum(all(r["satisfied"]) for r in records) / len(records) if records else math.nan


def average_completion(records: Sequence[Record]) -> float:
    """ACP: mean over trajectories of the fraction of evaluators satisfied."""
    records = ran(records)
    if not records:
        return math.nan
    return sum(sum(r["satisfied"]) / len(r["satisfied"]) for r in records) / len(records)


def repetition_rate(records: Sequence[Record]) -> float:
    """Repeated actions / actions looked at, pooled over runs."""
    records = ran(records)
    n = sum(r.get("repeat_looked", 0) for r in records)
    return sum(r.get("repeated", 0) for r in records) / n if n else math.nan


def format_error_rate(records: Sequence[Record]) -> float:
    """Format errors / (actions taken + format errors), pooled over runs."""
    records = ran(records)
    n = sum(r.get("n_actions", 0) + r.get("format_errors", 0) for r in records)
    return sum(r.get("format_errors", 0) for r in records) / n if n else math.nan


def toggle_success(records: Sequence[Record], kind: str) -> float:
    """SR over the StaR toggle episodes of one ``toggle_kind`` (``normal``: the state must change; ``verify``: it is
    already right, so doing nothing passes; StaR A.4 / Table 5 lists them apart)."""
    return success_rate([r for r in records if r.get("toggle_kind") == kind])


def composite_score(records: Sequence[Record]) -> float:
    """StaR A.4 success of composite toggle tasks, in [0, 1] with partial credit (0.5: one of two subtasks done)."""
    return average_completion([r for r in records if r.get("toggle_kind") == "composite"])


def _mean(records: Sequence[Record], key: str, **where: Any) -> float:
    rs = [r for r in records if all(r.get(k) == v for k, v in where.items())]
    return sum(bool(r[key]) for r in rs) / len(rs) if rs else math.nan


def _format_errors(records: Sequence[Record]) -> float:
    return sum(r["status"] != "parsed" for r in records) / len(records) if records else math.nan


def perfect_rate(records: Sequence[Record], key: str = "correct") -> float:
    """Table 7 "Perfect.": fraction of navigation tasks whose every completion-judgment step is right."""
    tasks: dict[str, bool] = {}
    for r in records:
        tasks[r["task"]] = tasks.get(r["task"], True) and bool(r[key])
    return sum(tasks.values()) / len(tasks) if tasks else math.nan


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    probe, comp, grd, foc = (frozenset({k}) for k in ("sphinx_probe", "sphinx_completion", "sphinx_grounding", "sphinx_focused"))
    static = [
        # Table 6 (official extractor.py calc_final): per capability, right items / items, the MCQ and its four T/F probes alike
        MetricSpec("sphinx_goal_acc_original", lambda rs: _mean(rs, "correct", capability="goal"), True, probe,
                   "SPHINX Table 6 goal understanding, answers as written"),
        MetricSpec("sphinx_goal_acc_repaired", lambda rs: _mean(rs, "correct_repaired", capability="goal"), True, probe,
                   "SPHINX Table 6 goal understanding, answers after the rule-based repair"),
        MetricSpec("sphinx_app_acc_original", lambda rs: _mean(rs, "correct", capability="app"), True, probe,
                   "SPHINX Table 6 app knowledge, answers as written"),
        MetricSpec("sphinx_app_acc_repaired", lambda rs: _mean(rs, "correct_repaired", capability="app"), True, probe,
                   "SPHINX Table 6 app knowledge, answers after the rule-based repair"),
        MetricSpec("sphinx_probe_format_error_rate", _format_errors, False, probe, "knowledge probes not answered in the asked form"),
        # Table 7 (3.3.3): continue / stop accuracy per step, Perfect per task
        MetricSpec("sphinx_continue_acc", lambda rs: _mean(rs, "correct", answer="continue"), True, comp,
                   "SPHINX Table 7 Continue.: steps labelled continue judged right"),
        MetricSpec("sphinx_stop_acc", lambda rs: _mean(rs, "correct", answer="stop"), True, comp,
                   "SPHINX Table 7 Stop.: final steps judged right"),
        MetricSpec("sphinx_perfect", perfect_rate, True, comp, "SPHINX Table 7 Perfect.: tasks with every step judged right",
                   composite=True),  # a rate over tasks, the samples are steps
        MetricSpec("sphinx_completion_format_error_rate", _format_errors, False, comp, "completion answers other than one word"),
        # Table 8 (3.3.4)
        MetricSpec("sphinx_grounding_acc_original", lambda rs: _mean(rs, "correct"), True, grd, "SPHINX Table 8 grounding, as written"),
        MetricSpec("sphinx_grounding_acc_repaired", lambda rs: _mean(rs, "correct_repaired"), True, grd,
                   "SPHINX Table 8 grounding, after the rule-based repair"),
        MetricSpec("sphinx_grounding_format_error_rate", _format_errors, False, grd, "grounding answers not in the Table 2 format"),
        # Table 9 Focused Context (3.3.5): failure rate
        MetricSpec("sphinx_focused_failure_rate", lambda rs: _mean(rs, "violation"), False, foc,
                   "SPHINX Table 9 focused context: responses other than exactly the requested action"),
    ]
    static += letter_bias_specs("sphinx_probe", probe, PROBE_LABELS, with_accuracy=True)
    static += letter_bias_specs("sphinx_completion", comp, COMPLETION_LABELS, with_accuracy=True)
    kinds = frozenset({"trajectory"})
    return static + [
        MetricSpec("sphinx_sr", success_rate, True, kinds, "SPHINX 3.2.1 success rate: all evaluators satisfied"),
        MetricSpec("sphinx_acp", average_completion, True, kinds, "SPHINX 3.2.1 average completion proportion"),
        MetricSpec("sphinx_repetition_rate", repetition_rate, False, kinds,
                   "SPHINX 3.2.5 invariant: actions repeating an earlier action of the run", composite=True),  # pooled ratio
        MetricSpec("sphinx_format_error_rate", format_error_rate, False, kinds,
                   "SPHINX 3.2.5 invariant: outputs not in the action format", composite=True),  # pooled ratio
        # StaR A.4 toggle tasks read per kind: a model that never acts passes every Verify task and no other
        MetricSpec("toggle_normal_sr", lambda rs: toggle_success(rs, "normal"), True, kinds,
                   "StaR A.4 toggle tasks whose state must change: success rate"),
        MetricSpec("toggle_verify_sr", lambda rs: toggle_success(rs, "verify"), True, kinds,
                   "StaR A.4 Verify toggle tasks (state already right): success rate"),
        MetricSpec("toggle_composite_score", composite_score, True, kinds,
                   "StaR A.4 composite toggle tasks: mean success with partial credit"),
    ]
