"""The letter-bias report of the multiple-choice tasks, from lmms-eval results (``gui_metrics.letter_bias`` metrics).

One row per (model, task): the model's accuracy beside the always-the-most-frequent-gold-letter baseline, the total
variation distance between answered and gold letter shares, and each letter's answered / gold share. Used by
``gui-eval mpr-report`` (MPR-GUI), ``knowledge-report`` and ``sphinx-report``; ``draw`` writes the shares as a bar chart.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from gui_tasks.runs.results_io import RunResults, TaskResult


@dataclass(frozen=True)
class BiasRow:
    """One task of one model; shares and accuracies as fractions (NaN: not reported)."""

    model: str
    task: str
    accuracy: float  # the model's score on the task (its ``accuracy metric``), scored as the task scores
    baseline: float  # always the most frequent gold letter, scored the same way
    tv: float  # total variation distance between answered and gold letter shares
    pred: dict[str, float]  # label -> share of read answers
    gold: dict[str, float]  # label -> share of questions
    circular: bool


def _labels(metrics: dict[str, float], prefix: str) -> list[str]:
    """The labels a task reports shares of: option letters in order, then words (yes, no, unknown...) as listed."""
    pat = re.compile(rf"^{re.escape(prefix)}_gold_share_(\w+)$")
    found = [m.group(1) for k in metrics if (m := pat.match(k))]
    return sorted(found, key=lambda lab: (len(lab) > 1, lab if len(lab) == 1 else found.index(lab)))


def collect(runs: Iterable[RunResults], prefix: str, accuracy: str, keep: Callable[[str, TaskResult], bool]) -> list[BiasRow]:
    """Rows of every task ``keep`` accepts that reports ``<prefix>_letter_tv``; ``accuracy`` names the model's score."""
    rows = []
    for run in sorted(runs, key=lambda r: str(r.path)):
        for task, res in run.tasks.items():
            m = res.metrics
            if res.is_group or f"{prefix}_letter_tv" not in m or not keep(task, res):
                continue
            labels = _labels(m, prefix)
            rows.append(BiasRow(run.model_label, task, m.get(accuracy, math.nan), m.get(f"{prefix}_letter_baseline_acc", math.nan),
                                m[f"{prefix}_letter_tv"], {lab: m.get(f"{prefix}_pred_share_{lab}", math.nan) for lab in labels},
                                {lab: m.get(f"{prefix}_gold_share_{lab}", math.nan) for lab in labels},
                                bool(res.metadata.get("circular"))))
    return rows


def _pct(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.1f}"


def render_text(rows: Sequence[BiasRow], accuracy_name: str = "acc") -> str:
    """A fixed-width table: model, task, the model's accuracy, the majority-letter baseline, TV, then each label's
    answered/gold share in percent (labels never answered nor gold are left out)."""
    labels = list(dict.fromkeys(lab for r in rows for lab in r.gold))
    labels = [lab for lab in labels if any((r.pred.get(lab) or 0) > 0 or (r.gold.get(lab) or 0) > 0 for r in rows)]
    head = ["Model", "Task", accuracy_name, "baseline", "TV"] + [f"{lab.upper()} ans/gold" for lab in labels]
    data = [head] + [[r.model, r.task + (" (circular)" if r.circular else ""), _pct(r.accuracy), _pct(r.baseline), _pct(r.tv)]
                     + [f"{_pct(r.pred.get(lab, math.nan))}/{_pct(r.gold.get(lab, math.nan))}" for lab in labels] for r in rows]
    widths = [max(len(x[i]) for x in data) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(x, widths))).rstrip() for x in data]
    lines.insert(1, "  ".join("-" * w for w in widths))
    note = ("baseline: always the most frequent gold letter (per kind of question), scored as the task scores the model "
            "(0 on a circular task); TV: half the summed |answered share - gold share| (0 = no letter bias); shares in %")
    return "\n".join(lines) + f"\nNote: {note}\n"


def draw(rows: Sequence[BiasRow], path: str | Path) -> None:
    """One panel per (model, task): answered beside gold share of each label, the accuracies in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(3, max(1, len(rows)))
    nrows = math.ceil(len(rows) / cols) if rows else 1
    fig, axes = plt.subplots(nrows, cols, squeeze=False, figsize=(4.2 * cols, 3.0 * nrows))
    for ax, row in zip(axes.flat, rows):
        labels = [lab for lab in row.gold if (row.pred.get(lab) or 0) > 0 or (row.gold.get(lab) or 0) > 0] or list(row.gold)
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], [100 * (row.pred.get(lab) or 0) for lab in labels], 0.4, label="answered")
        ax.bar([x + 0.2 for x in xs], [100 * (row.gold.get(lab) or 0) for lab in labels], 0.4, label="gold")
        ax.set_xticks(list(xs), [lab.upper() for lab in labels])
        ax.set_ylim(0, 100)
        ax.set_ylabel("%")
        ax.set_title(f"{row.model}\n{row.task}{' (circular)' if row.circular else ''}\nacc {_pct(row.accuracy)}, "
                     f"baseline {_pct(row.baseline)}, TV {_pct(row.tv)}", fontsize=8)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
