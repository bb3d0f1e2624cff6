"""GUI Knowledge Bench report from lmms-eval results: Table 2 (accuracy per sub-task, grouped by knowledge
type), yes/no/unknown calibration, and the action-type confusion matrices of appendix A.5 drawn to PNG.

Rows come from tasks with ``metadata.benchmark == "gui_knowledge"``; tasks of one model, source,
variant and language merge into one row (the later file wins a cell). Knowledge-type columns pool the
questions of their sub-tasks (``gui_metrics.knowledge.TYPE_POOLING``). Calibration and confusion
matrices need the per-sample records (``--log_samples``); without them they are left out with a note.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gui_core.benchmark import results_names_of
from gui_metrics.knowledge import KNOWLEDGE_TYPES, SUBTASKS, UNPARSED, confusion_matrix, unknown_calibration
from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS
from gui_metrics.circular import per_question
from gui_metrics.knowledge import LETTER_PREFIX
from gui_tasks.reports import letter_bias_report, vision_gain
from gui_tasks.runs.results_io import (RunResults, find_result_files, interval_lines, is_finite, load_results, load_task_samples,
                                  skipped_rows_notes)

__all__ = ["vision_gains", "build_report", "render_text", "write_markdown", "write_csv", "draw_confusion", "find_result_files", "main"]

TYPE_LABELS = {"interface_perception": "Interface Perception", "interaction_prediction": "Interaction Prediction",
               "instruction_understanding": "Instruction Understanding"}
COLUMNS: tuple[str, ...] = (*SUBTASKS, *KNOWLEDGE_TYPES, "overall")
RECORD_METRIC = "gkb_acc"  # the samples file keeps the per-sample record under every metric name; read this one
CIRCULAR_TAG = "+circular"  # appended to the variant of a row built from _circular tasks


@dataclass(frozen=True)
class Row:
    """One model (source, variant, language): accuracies in percent, NaN = missing."""

    model: str
    source: str
    variant: str
    lang: str
    values: dict[str, float]
    n: dict[str, int]  # questions per sub-task
    format_error: float  # percent
    calibration: dict[str, float]  # unknown_calibration of the row's records (fractions), empty without samples
    tasks: tuple[str, ...]
    limited: bool = False


@dataclass(frozen=True)
class KnowledgeReport:
    rows: tuple[Row, ...]
    records: dict[tuple[str, str, str, str], list[dict[str, Any]]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def _pct(x: float | None) -> float:
    return math.nan if x is None or math.isnan(x) else 100.0 * x


def build_report(results: Sequence[RunResults | str | Path]) -> KnowledgeReport:
    """Collect rows and per-sample records from results files (loaded or as paths)."""
    runs = [r if isinstance(r, RunResults) else load_results(r) for r in results]
    acc: dict[tuple, dict[str, tuple[float, int]]] = {}
    fmt: dict[tuple, list[tuple[float, int]]] = {}
    tasks: dict[tuple, list[str]] = {}
    records: dict[tuple, list[dict[str, Any]]] = {}
    limited: set[tuple] = set()
    notes: list[str] = []
    for run in sorted(runs, key=lambda r: str(r.path)):
        for task, res in run.tasks.items():
            meta = res.metadata
            if meta.get("benchmark") not in results_names_of(__package__) or res.is_group:
                continue
            # a circular task (every rotation of the options, gui_tasks.harness.circular) scores differently: its own row
            variant = str(meta.get("variant", "plain")) + (CIRCULAR_TAG if meta.get("circular") else "")
            key = (run.model_label, str(meta.get("source", "")), variant, str(meta.get("lang", "en")))
            n_eff = int((res.n_samples or {}).get("effective") or 0)
            if meta.get("circular") and is_finite(res.metrics.get("gkb_circular_questions")):
                n_eff = int(res.metrics["gkb_circular_questions"])  # questions, not requests, weigh the pooled columns
            if res.n_samples and res.n_samples.get("effective") != res.n_samples.get("original"):
                limited.add(key)
            for sub in meta.get("subtasks") or SUBTASKS:
                value = res.metrics.get(f"gkb_{sub}_acc")
                if sub in SUBTASKS and value is not None and not math.isnan(value):
                    acc.setdefault(key, {})[sub] = (value, n_eff)
            if "gkb_format_error_rate" in res.metrics:
                fmt.setdefault(key, []).append((res.metrics["gkb_format_error_rate"], max(n_eff, 1)))
            tasks.setdefault(key, []).append(task)
            path = run.samples_path(task)
            if path.is_file():
                recs = [s[RECORD_METRIC] for s in load_task_samples(run, task) if RECORD_METRIC in s]
                records.setdefault(key, []).extend(per_question(recs))  # one record per question on a circular task
            else:
                notes.append(f"{task}: no samples file (run with --log_samples for calibration and confusion matrices)")
    rows = []
    for key in sorted(acc, key=lambda k: k[:3] + (k[3] != "en", k[3])):
        cells = acc[key]
        values = {s: _pct(cells[s][0]) if s in cells else math.nan for s in SUBTASKS}
        for kind, subs in KNOWLEDGE_TYPES.items():
            present = [cells[s] for s in subs if s in cells]
            values[kind] = _pct(_pooled(present))
        values["overall"] = _pct(_pooled(list(cells.values())))
        errs = fmt.get(key, [])
        fmt_err = _pct(sum(e * n for e, n in errs) / sum(n for _, n in errs)) if errs else math.nan
        calib = unknown_calibration(records[key]) if records.get(key) else {}
        rows.append(Row(*key, values, {s: cells[s][1] for s in cells}, fmt_err, calib, tuple(tasks[key]), key in limited))
    notes += [f"{r.model} [{r.source}, {r.variant}, {r.lang}]: run with --limit (not the full set)" for r in rows if r.limited]
    notes += skipped_rows_notes(runs, "gui_knowledge")
    return KnowledgeReport(tuple(rows), records, tuple(dict.fromkeys(notes)))


def _pooled(cells: list[tuple[float, int]]) -> float | None:
    """Questions pooled over sub-tasks (accuracy weighted by question count; equal weights if counts are unknown)."""
    if not cells:
        return None
    total = sum(n for _, n in cells)
    return sum(a * n for a, n in cells) / total if total else sum(a for a, _ in cells) / len(cells)


def _fmt(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.1f}"


def header() -> list[str]:
    return ["Model", "Source", "Variant", "Lang", *COLUMNS, "Format err", "Unknown chosen", "Unknown gold"]


def cells(row: Row) -> list[str]:
    cal = [_fmt(_pct(row.calibration.get(k))) for k in ("pred_rate", "gold_rate")]
    return [row.model, row.source, row.variant, row.lang.upper(), *(_fmt(row.values[c]) for c in COLUMNS), _fmt(row.format_error), *cal]


def render_text(report: KnowledgeReport) -> str:
    """Fixed-width text in the layout of the paper's Table 2, knowledge types beside their sub-tasks."""
    spans = "  ".join(f"{TYPE_LABELS[k]}: {', '.join(subs)}" for k, subs in KNOWLEDGE_TYPES.items())
    data = [header()] + [cells(r) for r in report.rows]
    widths = [max(len(r[i]) for r in data) for i in range(len(data[0]))]
    lines = ["  ".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in data]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([spans] + lines + [f"Note: {n}" for n in report.notes]) + "\n"


def write_markdown(report: KnowledgeReport, path: str | Path) -> None:
    head = header()
    group = ["", "", "", ""] + [TYPE_LABELS[k] if i == 0 else "" for k, subs in KNOWLEDGE_TYPES.items() for i, _ in enumerate(subs)]
    group += ["Knowledge type (pooled)", "", "", "", "", "", ""]
    text = "| " + " | ".join(group) + " |\n|" + "---|" * 4 + "---:|" * (len(head) - 4) + "\n"
    text += "| " + " | ".join(head) + " |\n"
    text += "".join("| " + " | ".join(cells(r)) + " |\n" for r in report.rows)
    text += "".join(f"\n{n}\n" for n in report.notes)
    Path(path).write_text(text, encoding="utf-8")


def write_csv(report: KnowledgeReport, path: str | Path) -> None:
    def num(x: float | None) -> str:
        return "" if x is None or math.isnan(x) else repr(round(x, 6))

    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "source", "variant", "lang", *COLUMNS, "format_error", "unknown_pred_rate", "unknown_gold_rate",
                    "unknown_precision", "unknown_recall", "tasks"])
        for r in report.rows:
            w.writerow([r.model, r.source, r.variant, r.lang, *(num(r.values[c]) for c in COLUMNS), num(r.format_error),
                        *(num(_pct(r.calibration.get(k))) for k in ("pred_rate", "gold_rate", "precision", "recall")),
                        " ".join(r.tasks)])


PLATFORM_LABELS = {"desktop": DESKTOP_CALLS, "mobile": MOBILE_CALLS}


def draw_confusion(report: KnowledgeReport, platform: str, path: str | Path) -> bool:
    """Appendix A.5: one confusion matrix per row with action-type records on ``platform``; False if none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    panels = []
    for key, recs in report.records.items():
        labels, cols, matrix = confusion_matrix(recs, PLATFORM_LABELS[platform], platform)
        if sum(map(sum, matrix)):
            panels.append((key, labels, cols, np.array(matrix, dtype=float)))
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), squeeze=False, figsize=(1.0 * len(panels[0][2]) * len(panels) + 1.5, 0.9 * len(panels[0][1]) + 1.8))
    for ax, (key, labels, cols, m) in zip(axes[0], panels):
        rows = m.sum(axis=1, keepdims=True)
        share = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(len(cols)), [c if c != UNPARSED else "none" for c in cols], rotation=45, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("predicted")
        ax.set_ylabel("ground truth")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=8, color="white" if share[i, j] > 0.5 else "black")
        model, source, variant, lang = key
        ax.set_title(f"{model} [{source}, {variant}, {lang}]\n{platform} action types (row-normalised colour)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return True


def vision_gains(report: KnowledgeReport) -> list[vision_gain.GainRow]:
    """Blind rows beside their sighted rows (same model settings, source, variant, language)."""
    return vision_gain.pair(report.rows, lambda r: (r.source, r.variant))


def letter_bias(runs: Sequence[RunResults]) -> list[letter_bias_report.BiasRow]:
    """The letter-bias rows of the GUI Knowledge Bench tasks (the model's accuracy: ``gkb_acc``)."""
    return letter_bias_report.collect(runs, LETTER_PREFIX, "gkb_acc",
                                      lambda task, res: res.metadata.get("benchmark") in results_names_of(__package__))


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval knowledge-report PATH... [--out DIR]``."""
    ap = argparse.ArgumentParser(prog="gui-eval knowledge-report", description="GUI Knowledge Bench report (Table 2, A.5).")
    ap.add_argument("paths", nargs="+", help="lmms-eval *_results.json files or folders holding them (searched recursively)")
    ap.add_argument("--out", default=None, help="write table.md, table.csv and confusion_{desktop,mobile}.png into this folder")
    args = ap.parse_args(argv)
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)]
    except ValueError as exc:
        print(f"gui-eval knowledge-report: {exc}", file=sys.stderr)
        return 2
    report = build_report(runs)
    if not report.rows:
        print(f"gui-eval knowledge-report: no GUI Knowledge Bench result in {', '.join(args.paths)} ({len(runs)} results file(s))",
              file=sys.stderr)
        return 1
    print(render_text(report), end="")
    for line in interval_lines(runs, ("gui_knowledge",)):
        print(line)
    gains = vision_gains(report)
    if gains:
        print("\nGain from vision (interventions=blind runs beside the same model's sighted runs):")
        print(vision_gain.render_text(gains, COLUMNS), end="")
    bias = letter_bias(runs)
    if bias:
        print("\nLetter bias (answered vs. gold share of each option letter and yes/no/unknown answer):")
        print(letter_bias_report.render_text(bias, "gkb_acc"), end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_markdown(report, out / "table.md")
        write_csv(report, out / "table.csv")
        written = [str(out / n) for n in ("table.md", "table.csv")]
        for platform in PLATFORM_LABELS:
            if draw_confusion(report, platform, out / f"confusion_{platform}.png"):
                written.append(str(out / f"confusion_{platform}.png"))
        if gains:
            written += [str(p) for p in vision_gain.write_all(gains, COLUMNS, out)]
        if bias:
            letter_bias_report.draw(bias, out / "letter_bias.png")
            written.append(str(out / "letter_bias.png"))
        print("wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
