"""What the benchmark records (``gui_core.benchmark``: ``submission``) ask of a submission: the metrics each task must
report, the tasks a benchmark refuses (a per-dimension MPR-GUI task), and when a set of tasks is complete
(docs/submissions.md). ``gui_tasks.submit.leaderboard`` applies them while it builds and validates submissions."""

from __future__ import annotations

from typing import Any, Sequence

from gui_tasks.submit.submission_input import SubmissionError

SUBMISSIONS_PAGE = "docs/submissions.md"


def _rules(meta: dict[str, Any]) -> Any:
    """The submission rules of the benchmark a task with this metadata belongs to (``gui_core.benchmark``), or None."""
    from gui_core.benchmark import benchmark_of

    rec = benchmark_of(meta)
    return rec.submission if rec is not None else None


def _required_metrics(meta: dict[str, Any], metric_list: Sequence[Any] = ()) -> list[str]:
    """What the task must report: its benchmark record's list (MPR-GUI: every dimension's accuracy), else its
    metric_list."""
    from gui_core.benchmark import resolve

    rules = _rules(meta)
    if rules is not None and rules.required_metrics:
        return list(resolve(rules.required_metrics))
    return [m["metric"] for m in metric_list or [] if isinstance(m, dict) and "metric" in m]


def _task_problem(meta: dict[str, Any], docs: Sequence[Any] | None = None) -> str | None:
    """Why the benchmark's rules refuse this task (a per-dimension MPR-GUI task; data lacking a dimension), or None."""
    from gui_core.benchmark import resolve

    rules = _rules(meta)
    return resolve(rules.task_check)(meta, docs) if rules is not None and rules.task_check else None


def thinking_of(model_args: str) -> str:
    """The run's thinking setting from its model args: ``on``, ``off`` or ``default`` (unset: the model's own)."""
    from lmms_eval.utils import simple_parse_args_string

    from gui_core.reasoning import thinking_mode

    try:
        value = simple_parse_args_string(model_args or "").get("thinking")
        return thinking_mode(value, "model args") or "default"
    except ValueError:
        return "default"  # unreadable args are refused by the model-args check, with its own message


def thinking_entry(model_args: str) -> dict[str, Any]:
    """``{"thinking": "on"|"off"}`` for a run that set the thinking switch (gui_core.reasoning); nothing when unset."""
    setting = thinking_of(model_args)
    return {} if setting == "default" else {"thinking": setting}


def _thinking_problem(meta: dict[str, Any], model_args: str) -> str | None:
    """Why the benchmark's rules refuse a run with this thinking setting (its record's ``submission.thinking``)."""
    rules = _rules(meta)
    setting = thinking_of(model_args)
    if rules is None or setting in rules.thinking:
        return None
    return (f"thinking={setting} is not accepted by this benchmark's leaderboard (its rules accept "
            f"{', '.join(rules.thinking)}; {SUBMISSIONS_PAGE})")


def completeness_gaps(tasks: Sequence[dict[str, Any]]) -> list[str]:
    """What a complete submission lacks, each saying what to add: the rule of each task's benchmark record
    (``gui_core.benchmark``: ``submission.completeness``). MPR-GUI is ranked per language set, GUI Knowledge Bench per
    set of sub-tasks (docs/submissions.md); every other benchmark's task is complete on its own (all its documents,
    checked per task)."""
    from gui_core.benchmark import BENCHMARKS, benchmark_of, resolve

    rules = list(dict.fromkeys(b.submission.completeness for b in BENCHMARKS.values()
                               if b.submission.completeness != "task"))
    by_rule: dict[str, list[dict[str, Any]]] = {r: [] for r in rules}
    for t in tasks:
        rec = benchmark_of(t.get("metadata") or {})
        if rec is not None and rec.submission.completeness in by_rule:
            by_rule[rec.submission.completeness].append(t)
    return [gap for rule, entries in by_rule.items() if entries for gap in resolve(rule)(entries)]


def _check_complete(tasks: Sequence[dict[str, Any]], partial: Any = None) -> None:
    """A full submission holds complete benchmark sets (:func:`completeness_gaps`); a partial one says what it lacks."""
    gaps = completeness_gaps(tasks)
    if partial is not None:
        recorded = list(partial.get("incomplete") or []) if isinstance(partial, dict) else []
        if recorded != gaps:
            raise SubmissionError(f"the partial submission records {recorded or 'no gaps'} as missing, the tasks lack {gaps or 'nothing'}")
        return
    if gaps:
        raise SubmissionError("; ".join(gaps) + f" (or submit it marked as partial with --partial: {SUBMISSIONS_PAGE})")


CAPTURE_METRIC_PREFIXES = ("pss_", "perplexity_")
"""Metrics read from the digit capture (``gui_metrics.pss``: PSS and its figures, perplexity)."""
HEADLINE = ("pss_mean", "perplexity_mean")


def capture_gap(model_args: str, metrics: Sequence[str], samples: Sequence[dict[str, Any]]) -> str | None:
    """Why a task's capture-based metrics cannot be trusted, or None: the run asked for ``capture_logits=digits`` and
    reports PSS / perplexity, but some answers were logged without their digit capture (``response_side``), e.g. answers
    lmms-eval's ``--use_cache`` replayed as plain text: their PSS would be missing, the figures drawn from the rest."""
    from gui_core.logit_capture import SIDE_KEY
    from gui_tasks.runs.fingerprint import model_arg

    if str(model_arg(model_args, "capture_logits") or "none").strip().lower() != "digits":
        return None
    named = sorted({m.split(",")[0] for m in metrics if m.split(",")[0].startswith(CAPTURE_METRIC_PREFIXES)},
                   key=lambda m: (HEADLINE.index(m) if m in HEADLINE else len(HEADLINE), m))  # the headline figures first
    if not named:
        return None
    bare = [s.get("doc_id") for s in samples
            if not (isinstance(s.get(SIDE_KEY), dict) and s[SIDE_KEY].get("capture"))]
    if not bare:
        return None
    return (f"{len(bare)} of {len(samples)} answers of this capture_logits=digits run carry no digit capture (doc ids "
            f"{bare[:8]}{' ...' if len(bare) > 8 else ''}; replayed by lmms-eval's --use_cache?): "
            f"{', '.join(named[:2])}{f' and {len(named) - 2} other capture figure(s)' if len(named) > 2 else ''} would be "
            "missing for them. Run again without "
            "--use_cache (the run journal resumes it: docs/running.md, 'Resume a long run')")
