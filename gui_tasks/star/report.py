"""StaR reports: state control in the layout of Table 7 (settings, models, the eight rates, deltas to
zero-shot), and step-wise agentic results with the action match per Table 4 category.

A row is one (task, model, setting) of lmms-eval results; the setting is read from the run's
``interventions=`` model argument (the prompting baselines of appendix B.1). Deltas are in
percentage points against the zero-shot run of the same model and task, or against an
explicit ``--baseline`` results file. The figure colours each cell by whether the change is
an improvement (the direction each metric's arrow in Table 7 says is better).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gui_core.benchmark import results_names_of
from gui_metrics.agentic import CATEGORIES
from gui_metrics.star import STAR_METRICS
from gui_tasks.runs.results_io import (RunResults, find_result_files, interval_lines, limited_notes, load_results, setting_args,
                                  skipped_rows_notes)

COLUMNS = ("star_o_tmr", "star_o_amr", "star_p_tmr", "star_p_amr", "star_p_fnr", "star_n_amr", "star_n_fptr", "star_n_fpr")
HEADERS = ("O-TMR", "O-AMR", "P-TMR", "P-AMR", "P-FNR", "N-AMR", "N-FPTR", "N-FPR")
HIGHER_IS_BETTER = {c: STAR_METRICS[c][1] for c in COLUMNS}
ZERO_SHOT = "Zero-shot"
# Table 7 section titles for the prompting-baseline plugins.
SETTINGS = {
    "": ZERO_SHOT,
    "star_state_focused": "w/ State-focused Prompt Engineering",
    "star_style": "w/ StaR-style Prompting",
    "star_gt_state": "w/ Ground Truth Toggle State Prompting",
    "star_gt_state_star": "w/ Ground Truth Toggle State and StaR-style Prompting",
}


@dataclass(frozen=True)
class Row:
    task: str
    model: str
    setting: str
    values: dict[str, float]  # percentages
    deltas: dict[str, float | None]  # percentage points against the baseline row, None without one
    format_error: float
    n: int | None


def setting_of(model_args: str) -> str:
    """The Table 7 setting named by a run's ``interventions=a+b`` model argument, with the plugins' parameters.

    Parameters (``star_style.x=1``) are part of the setting, so runs that differ in them never share a row.
    """
    value = ""
    for part in (model_args or "").split(","):
        key, _, val = part.partition("=")
        if key.strip() == "interventions":
            value = val.strip()
    chosen = [n.strip() for n in value.split("+") if n.strip()]
    params = [a for a in setting_args(model_args) if a.partition(".")[0] in chosen and "." in a.partition("=")[0]]
    name = SETTINGS.get(value, f"w/ {value.replace('+', ' + ')}")
    return name + (f" ({', '.join(params)})" if params else "")


def _pct(x: float | None) -> float:
    return math.nan if x is None or not math.isfinite(x) else 100.0 * x


def _rows(run: RunResults) -> list[tuple[str, str, str, dict[str, float], float, int | None]]:
    out = []
    for name, task in run.tasks.items():
        if task.is_group or task.metadata.get("benchmark") not in results_names_of(f"{__package__}.lmms_task"):
            continue
        values = {c: _pct(task.metrics.get(c)) for c in COLUMNS}
        n = (task.n_samples or {}).get("effective")
        out.append((name, run.label(without_interventions=True), setting_of(run.model_args), values, _pct(task.metrics.get("star_format_error_rate")), n))
    return out


def build_table(runs: Sequence[RunResults], baseline: Sequence[RunResults] = ()) -> list[Row]:
    """Rows in Table 7 order (settings in SETTINGS order, then models as met), with deltas to the baseline."""
    raw = [r for run in runs for r in _rows(run)]
    base = {(t, m): v for t, m, _, v, _, _ in (r for run in baseline for r in _rows(run))}
    if not base:
        base = {(t, m): v for t, m, s, v, _, _ in raw if s == ZERO_SHOT}
    order = list(SETTINGS.values())
    raw.sort(key=lambda r: (order.index(r[2]) if r[2] in order else len(order), r[2], r[0]))
    rows = []
    for task, model, setting, values, fmt, n in raw:
        ref = base.get((task, model))
        is_ref = not baseline and setting == ZERO_SHOT
        deltas = {c: (None if ref is None or is_ref else values[c] - ref[c]) for c in COLUMNS}
        rows.append(Row(task, model, setting, values, deltas, fmt, n))
    return rows


def _cell(value: float, delta: float | None) -> str:
    if math.isnan(value):
        return "-"
    if delta is None or math.isnan(delta):
        return f"{value:.2f}"
    arrow = "↑" if delta > 0 else ("↓" if delta < 0 else "=")
    return f"{value:.2f} {arrow}{abs(delta):.2f}"


def render_text(rows: Sequence[Row]) -> str:
    head = ["Model", *(f"{h} {'↑' if HIGHER_IS_BETTER[c] else '↓'}" for c, h in zip(COLUMNS, HEADERS)), "Format err"]
    lines = []
    for setting in dict.fromkeys(r.setting for r in rows):
        lines.append(f"| *{setting}* |" + " |" * (len(head) - 1))
        for r in (r for r in rows if r.setting == setting):
            label = r.model if len({x.task for x in rows}) == 1 else f"{r.model} ({r.task})"
            lines.append("| " + " | ".join([label, *(_cell(r.values[c], r.deltas[c]) for c in COLUMNS), f"{r.format_error:.2f}"]) + " |")
    return "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n" + "\n".join(lines) + "\n"


def write_csv(rows: Sequence[Row], path: str | Path) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["task", "model", "setting", *HEADERS, *(f"delta_{h}" for h in HEADERS), "format_error", "n"])
        for r in rows:
            w.writerow([r.task, r.model, r.setting, *(f"{r.values[c]:.4f}" for c in COLUMNS),
                        *("" if r.deltas[c] is None else f"{r.deltas[c]:.4f}" for c in COLUMNS), f"{r.format_error:.4f}", r.n or ""])


def draw(rows: Sequence[Row], path: str | Path) -> None:
    """Table 7 as a picture: one line per (setting, model), cells coloured by improvement over the baseline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    good = np.array([[(d if HIGHER_IS_BETTER[c] else -d) if d is not None else np.nan for c, d in ((c, r.deltas[c]) for c in COLUMNS)]
                     for r in rows], dtype=float)
    lim = max(5.0, float(np.nanmax(np.abs(good))) if np.isfinite(good).any() else 5.0)
    fig, ax = plt.subplots(figsize=(len(COLUMNS) * 1.25 + 3.5, 0.45 * len(rows) + 1.4))
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#f2f2f2")
    ax.imshow(np.ma.masked_invalid(good), cmap=cmap, vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(COLUMNS)), [f"{h} {'↑' if HIGHER_IS_BETTER[c] else '↓'}" for c, h in zip(COLUMNS, HEADERS)])
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(rows)), [f"{r.setting.replace('w/ ', '')} | {r.model}" for r in rows], fontsize=8)
    for i, r in enumerate(rows):
        for j, c in enumerate(COLUMNS):
            ax.text(j, i, _cell(r.values[c], r.deltas[c]), ha="center", va="center", fontsize=7.5)
    ax.set_title("StaR state control (Table 7 layout): % and change vs zero-shot; green = better", fontsize=10, pad=26)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)


# --- agentic benchmarks: type / action match overall and per Table 4 category -------------------------

STEP_COLUMNS = ("step_type_acc", "step_action_acc", "step_success_rate", *(f"step_action_acc_{c.lower()}" for c in CATEGORIES))
STEP_HEADERS = ("TMR", "AMR", "SR", *(f"AMR {c}" for c in CATEGORIES))


@dataclass(frozen=True)
class StepRow:
    task: str
    model: str
    setting: str
    values: dict[str, float]
    format_error: float
    n: int | None
    judge: str = ""  # the judge that produced the row (gui_tasks.star.judges); "" in results older than it
    history: str = ""  # whose actions filled the history: ground_truth | own (StaR A.5, UI-TARS); "" when not recorded


def build_step_table(runs: Sequence[RunResults]) -> list[StepRow]:
    rows = []
    for run in runs:
        for name, task in run.tasks.items():
            if task.is_group or task.metadata.get("benchmark") not in results_names_of(f"{__package__}.agentic_task"):
                continue
            rows.append(StepRow(name, run.label(without_interventions=True), setting_of(run.model_args), {c: _pct(task.metrics.get(c)) for c in STEP_COLUMNS},
                                _pct(task.metrics.get("step_format_error_rate")), (task.n_samples or {}).get("effective"),
                                str(task.metadata.get("judge") or ""), str(task.metadata.get("history") or "")))
    return rows


EMPTY_STEP_NOTE = "-: no scored step of that action type in the task (the category's match rate is undefined)"


def render_step_text(rows: Sequence[StepRow]) -> str:
    """The step table; rows without any scored step (every value undefined) are folded into one note naming them."""
    head = ["Task", "Model", "Setting", "Judge", "History", *STEP_HEADERS, "Format err", "n"]
    empty = [r for r in rows if all(math.isnan(r.values[c]) for c in STEP_COLUMNS)]
    lines = ["| " + " | ".join([r.task, r.model, r.setting, r.judge or "?", r.history or "?", *(_cell(r.values[c], None) for c in STEP_COLUMNS),
                                _cell(r.format_error, None), str(r.n or "")]) + " |" for r in rows if r not in empty]
    notes = [EMPTY_STEP_NOTE] if any("| - |" in line for line in lines) else []
    if empty:
        notes.append(f"{len(empty)} task run(s) with no scored step (every step dropped by the judge, or no sample), "
                     f"left out: {', '.join(f'{r.task} ({r.model})' for r in empty)}")
    table = "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n" + "\n".join(lines) + "\n" if lines else ""
    return table + "".join(f"Note: {n}\n" for n in notes)


def draw_steps(rows: Sequence[StepRow], path: str | Path) -> None:
    """Action match per Table 4 category, one group of bars per task and model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cats = ["AMR", *CATEGORIES]
    cols = ["step_action_acc", *(f"step_action_acc_{c.lower()}" for c in CATEGORIES)]
    fig, ax = plt.subplots(figsize=(1.1 * len(cats) + 2, 3.6))
    width = 0.8 / max(1, len(rows))
    for i, r in enumerate(rows):
        vals = np.array([r.values[c] for c in cols], dtype=float)
        ax.bar(np.arange(len(cats)) + i * width, np.nan_to_num(vals), width,
               label=f"{r.task} | {r.model} | {r.setting} | judge {r.judge or '?'} | history {r.history or '?'}")
        for j, v in enumerate(vals):
            ax.text(j + i * width, (0 if np.isnan(v) else v) + 1, "n/a" if np.isnan(v) else f"{v:.0f}", ha="center", fontsize=7)
    ax.set_xticks(np.arange(len(cats)) + width * (len(rows) - 1) / 2, cats)
    ax.set_ylim(0, 105)
    ax.set_ylabel("exact action match (%)")
    ax.set_title("Step-wise action match per action type (StaR A.2-A.3; Table 4 categories)", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval star-report PATH... [--baseline PATH] [--out DIR]``."""
    ap = argparse.ArgumentParser(prog="gui-eval star-report", description="Table 7-style StaR state-control report and "
                                 "per-action-type step-wise agentic report.")
    ap.add_argument("paths", nargs="+", help="lmms-eval *_results.json files or folders holding them")
    ap.add_argument("--baseline", nargs="*", default=(), help="results to take deltas against (default: the zero-shot runs)")
    ap.add_argument("--out", default=None, help="also write table.md, table.csv and table.png into this folder")
    args = ap.parse_args(argv)
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)]
        base = [load_results(p) for p in find_result_files(args.baseline)] if args.baseline else []
    except ValueError as exc:
        print(f"gui-eval star-report: {exc}", file=sys.stderr)
        return 2
    rows, steps = build_table(runs, base), build_step_table(runs)
    if not rows and not steps:
        print(f"gui-eval star-report: no star_state_control or star_agentic result in {', '.join(args.paths)}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    notes = "".join(f"Note: {n}\n" for n in skipped_rows_notes(runs, "star_state_control") + skipped_rows_notes(runs, "star_agentic")
                    + limited_notes(runs, ("star_state_control", "star_agentic")))
    notes += "".join(f"{line}\n" for line in interval_lines(runs, ("star_state_control", "star_agentic")))
    if rows:
        text = render_text(rows) + notes
        print(text, end="")
        if out:
            (out / "table.md").write_text(text, encoding="utf-8")
            write_csv(rows, out / "table.csv")
            draw(rows, out / "table.png")
            print(f"wrote {out / 'table.md'}, {out / 'table.csv'}, {out / 'table.png'}")
    if steps:
        text = render_step_text(steps) + (notes if not rows else "")
        print(text, end="")
        if out:
            (out / "steps.md").write_text(text, encoding="utf-8")
            draw_steps(steps, out / "steps.png")
            print(f"wrote {out / 'steps.md'}, {out / 'steps.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
