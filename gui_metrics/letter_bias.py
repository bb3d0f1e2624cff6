"""Answer-letter bias of multiple-choice tasks: how often each letter (or label: yes/no/unknown, T/F, stop/continue)
is answered against how often it is the gold, and the always-the-most-frequent-gold-letter baseline.

Per-sample records carry ``answer`` (the gold label), ``pred`` (the label answered, None when none was read; SPHINX
records name it ``predicted``) and ``choices`` (the labels the question offers; questions with the same choices
share one majority letter, so a task mixing A-D questions with T/F probes gets one baseline letter per kind). Each
benchmark's metric plugin registers these metrics under its own prefix (:func:`letter_bias_specs`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from gui_metrics.circular import per_question, question_count, request_accuracy
from gui_metrics.spec import MetricSpec

Record = Mapping[str, Any]
PRED_KEYS: tuple[str, ...] = ("pred", "predicted")


def answered(record: Record) -> Any:
    """The label a record's response chose (None: no label read)."""
    for key in PRED_KEYS:
        if key in record:
            return record[key]
    return None


def _choices(record: Record) -> tuple[str, ...]:
    return tuple(record.get("choices") or ())


def _labelled(records: Iterable[Any]) -> list[Record]:
    return [r for r in records if isinstance(r, Mapping) and r.get("answer") is not None]


def gold_shares(records: Sequence[Record]) -> dict[str, float]:
    """Share of questions (requests, on a circular task) whose gold is each label."""
    rs = _labelled(records)
    counts = Counter(str(r["answer"]) for r in rs)
    return {label: n / len(rs) for label, n in counts.items()}


def answer_shares(records: Sequence[Record]) -> dict[str, float]:
    """Share of the read answers that chose each label (responses with no label read are left out)."""
    said = [str(answered(r)) for r in _labelled(records) if answered(r) is not None]
    counts = Counter(said)
    return {label: n / len(said) for label, n in counts.items()}


def total_variation(records: Sequence[Record]) -> float:
    """Half the summed absolute difference of answer and gold shares: 0 = letters answered as often as they are
    right, 1 = never the gold's letters. NaN without a read answer."""
    gold, said = gold_shares(records), answer_shares(records)
    if not said:
        return math.nan
    return 0.5 * sum(abs(said.get(k, 0.0) - gold.get(k, 0.0)) for k in set(gold) | set(said))


def majority_letters(records: Sequence[Record]) -> dict[tuple[str, ...], str]:
    """The most frequent gold label per set of choices (a tie goes to the label first in the choices, then by name)."""
    by_set: dict[tuple[str, ...], Counter] = {}
    for r in _labelled(records):
        by_set.setdefault(_choices(r), Counter())[str(r["answer"])] += 1
    out = {}
    for choices, counts in by_set.items():
        order = {c: i for i, c in enumerate(choices)}
        out[choices] = min(counts, key=lambda c: (-counts[c], order.get(c, len(order)), c))
    return out


def majority_baseline_accuracy(records: Sequence[Record]) -> float:
    """Accuracy of always answering the most frequent gold letter, scored as the task scores the model (on a circular
    task a question is right only if every rotation is: 0 for any question with two or more options)."""
    rs = _labelled(records)
    if not rs:
        return math.nan
    major = majority_letters(rs)
    baseline = [{**r, "correct": str(r["answer"]) == major[_choices(r)]} for r in rs]
    questions = per_question(baseline)
    return sum(bool(r["correct"]) for r in questions) / len(questions) if questions else math.nan


def _share(fn, label: str):
    def agg(records: Sequence[Record]) -> float:
        return fn(_labelled(records)).get(label, 0.0) if _labelled(records) else math.nan

    return agg


def _chose(label: str):
    """A read answer's own value for a pred share: 1 if it chose ``label``, else 0; None when no label was read."""

    def one(record: Record) -> float | None:
        said = answered(record) if isinstance(record, Mapping) else None
        return None if said is None or record.get("answer") is None else float(str(said) == label)

    return one


def label_suffix(label: str) -> str:
    """A label as it appears in a metric name (``A`` -> ``a``)."""
    return label.lower()


def accuracy(records: Sequence[Record]) -> float:
    """Share of questions answered right (as written: ``correct``), the score the baseline is set beside."""
    return sum(bool(r["correct"]) for r in records) / len(records) if records else math.nan


def letter_bias_specs(prefix: str, kinds: Iterable[str], labels: Sequence[str], *, with_accuracy: bool = False
                      ) -> list[MetricSpec]:
    """The letter-bias metrics of one benchmark: ``<prefix>_letter_tv``, ``<prefix>_letter_baseline_acc``,
    ``<prefix>_pred_share_<label>`` and ``<prefix>_gold_share_<label>`` for each label; plus, for circular tasks,
    ``<prefix>_circular_questions`` and ``<prefix>_request_acc``; ``with_accuracy`` adds ``<prefix>_acc`` for a
    benchmark without an accuracy over all its questions."""
    kinds = frozenset(kinds)
    specs = [MetricSpec(f"{prefix}_acc", accuracy, True, kinds, "Accuracy over every question (as written).")] if with_accuracy else []
    specs += [
        MetricSpec(f"{prefix}_letter_tv", total_variation, False, kinds,
                   "Letter bias: total variation distance between answered and gold letter shares (0 = none).",
                   per_request=True, composite=True),
        MetricSpec(f"{prefix}_letter_baseline_acc", majority_baseline_accuracy, True, kinds,
                   "Accuracy of always answering the most frequent gold letter, scored as the task scores the model.",
                   per_request=True, composite=True),
        MetricSpec(f"{prefix}_circular_questions", question_count, True, kinds,
                   "Circular tasks: questions scored (every rotation answered); the sample count is the requests.",
                   per_request=True, composite=True),
        MetricSpec(f"{prefix}_request_acc", request_accuracy, True, kinds,
                   "Circular tasks: accuracy over every request (each rotation once), beside the all-rotations score.",
                   per_request=True),
    ]
    for label in labels:
        s = label_suffix(label)
        specs.append(MetricSpec(f"{prefix}_pred_share_{s}", _share(answer_shares, label), False, kinds,
                                f"Share of read answers choosing {label!r}.", per_request=True,
                                per_sample=_chose(label)))
        specs.append(MetricSpec(f"{prefix}_gold_share_{s}", _share(gold_shares, label), False, kinds,
                                f"Share of questions whose gold is {label!r}.", per_request=True))
    return specs


def lower_is_better(name: str) -> bool:
    """Whether a letter-bias metric name is one where lower is better (the bias; shares are read, not ranked)."""
    return name.endswith("_letter_tv") or "_share_" in name


def bias_metric_names(prefix: str, labels: Sequence[str], circular: bool = False) -> list[str]:
    """The metric names a task YAML lists for its letter-bias report (circular tasks add two)."""
    names = [f"{prefix}_letter_tv", f"{prefix}_letter_baseline_acc"]
    names += [f"{prefix}_{kind}_share_{label_suffix(lab)}" for lab in labels for kind in ("pred", "gold")]
    return names + ([f"{prefix}_circular_questions", f"{prefix}_request_acc"] if circular else [])
