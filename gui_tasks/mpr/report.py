"""The paper's Table 2 from lmms-eval results: languages x dimensions, FPR-ACC and the gap to English.

Rows come from MPR-GUI tasks (``metadata.benchmark == "mpr_gui"``). Tasks of one model (checkpoint and
result-changing model args such as interventions: ``RunResults.model_label``),
source, prompt protocol and language are merged into one row, so the eight per-dimension
tasks (``mpr_gui_en_au`` ...) give the same row as ``mpr_gui_en``; when two files give the
same cell, the later file (by path, i.e. by date) wins. FPR-ACC is recomputed from the
eight dimension accuracies with the paper's weights (``gui_metrics.mpr.fpr_acc``) and left
blank unless all eight are present. Values in percent.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from gui_core.benchmark import results_names_of
from gui_metrics.mpr import DIMENSIONS, LETTER_PREFIX, fpr_acc
from gui_metrics.stats import MIN_CORRELATION_N, Correlation, pearson, spearman
from gui_tasks.mpr.schema import LANGS
from gui_tasks.reports import letter_bias_report, vision_gain
from gui_tasks.runs.results_io import RunResults, find_result_files, load_results

COLUMNS: tuple[str, ...] = (*DIMENSIONS, "FPR-ACC")
CIRCULAR_TAG = "+circular"  # appended to the prompt protocol of a row built from _circular tasks


@dataclass(frozen=True)
class Row:
    """One language of one model (and source and prompt protocol); values in percent, NaN = missing."""

    model: str
    source: str
    protocol: str
    lang: str
    values: dict[str, float]  # column (dimension or "FPR-ACC") -> percent
    gap_to_en: float | None  # FPR-ACC minus the same model's English FPR-ACC; None for EN or without EN
    format_error: float  # percent of responses with no extractable letter (NaN if not reported)
    tasks: tuple[str, ...]  # the lmms-eval tasks the row was built from
    limited: tuple[int, int] | None = None  # (effective, original) documents when run with --limit
    skipped: int = 0  # bad official rows skipped on request (GUI_EVAL_SKIP_BAD_ROWS), from the task metadata
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)  # column -> 95% interval, percent (recorded)

    @property
    def group(self) -> tuple[str, str, str]:
        return (self.model, self.source, self.protocol)


@dataclass(frozen=True)
class MPRTable:
    """Rows in display order: by model (source, protocol), then EN ZH FR RU JA TH."""

    rows: tuple[Row, ...]
    notes: tuple[str, ...] = field(default=())


def _pct(x: float | None) -> float:
    return math.nan if x is None or math.isnan(x) else 100.0 * x


def build_table(results: Sequence[RunResults | str | Path], task_prefix: str | None = None) -> MPRTable:
    """Collect MPR-GUI rows from results files, loaded or as paths (see the module docstring for the rules)."""
    results = [r if isinstance(r, RunResults) else load_results(r) for r in results]
    cells: dict[tuple[str, str, str, str], dict[str, float]] = {}
    fmt: dict[tuple[str, str, str, str], list[tuple[float, int]]] = {}
    tasks: dict[tuple[str, str, str, str], list[str]] = {}
    limited: dict[tuple[str, str, str, str], tuple[int, int]] = {}
    skipped: dict[tuple[str, str, str, str], int] = {}
    intervals: dict[tuple[str, str, str, str], dict[str, tuple[float, float]]] = {}
    for run in sorted(results, key=lambda r: str(r.path)):
        for task, res in run.tasks.items():
            meta = res.metadata
            if meta.get("benchmark") not in results_names_of(__package__) or meta.get("lang") not in LANGS or res.is_group:
                continue
            if task_prefix and not task.startswith(task_prefix):
                continue
            # a circular task (every rotation of the options, gui_tasks.harness.circular) scores differently: its own row
            protocol = str(meta.get("prompt_protocol", "")) + (CIRCULAR_TAG if meta.get("circular") else "")
            key = (run.model_label, str(meta.get("source", "")), protocol, str(meta["lang"]))
            row = cells.setdefault(key, {})
            for dim in meta.get("dimensions") or DIMENSIONS:
                value = res.metrics.get(f"mpr_acc_{str(dim).lower()}")
                if dim in DIMENSIONS and value is not None and not math.isnan(value):
                    row[dim] = value
                    ci = res.interval(f"mpr_acc_{str(dim).lower()}")
                    if ci is not None:
                        intervals.setdefault(key, {})[dim] = (_pct(ci[0]), _pct(ci[1]))
            ci = res.interval("fpr_acc")
            if ci is not None and set(meta.get("dimensions") or DIMENSIONS) >= set(DIMENSIONS):  # one task, all eight
                intervals.setdefault(key, {})["FPR-ACC"] = (_pct(ci[0]), _pct(ci[1]))
            n = res.n_samples or {}
            if "format_error_rate" in res.metrics:
                fmt.setdefault(key, []).append((res.metrics["format_error_rate"], int(n.get("effective") or 1)))
            if n.get("effective") is not None and n.get("effective") != n.get("original"):
                eff, orig = limited.get(key, (0, 0))
                limited[key] = (eff + int(n["effective"]), orig + int(n["original"]))
            tasks.setdefault(key, []).append(task)
            skipped[key] = skipped.get(key, 0) + int(meta.get("bad_rows_skipped") or 0)
    rows = []
    for key in sorted(cells, key=lambda k: (k[0], k[1], k[2], LANGS.index(k[3]))):
        dims = cells[key]
        values = {d: _pct(dims.get(d)) for d in DIMENSIONS}
        values["FPR-ACC"] = _pct(fpr_acc(dims)) if len(dims) == len(DIMENSIONS) else math.nan
        errs = fmt.get(key, [])
        fmt_err = _pct(sum(e * n for e, n in errs) / sum(n for _, n in errs)) if errs else math.nan
        rows.append(Row(*key, values, None, fmt_err, tuple(tasks[key]), limited.get(key), skipped.get(key, 0),
                        intervals.get(key, {})))
    en = {r.group: r.values["FPR-ACC"] for r in rows if r.lang == "en"}
    rows = [
        Row(**{**r.__dict__, "gap_to_en": r.values["FPR-ACC"] - en[r.group] if r.lang != "en" and r.group in en else None})
        for r in rows
    ]
    return MPRTable(tuple(rows), tuple(_notes(rows)))


def _notes(rows: Sequence[Row]) -> list[str]:
    notes = []
    for r in rows:
        if r.limited:
            notes.append(f"{_label(r, rows)} {r.lang.upper()}: run with --limit ({r.limited[0]} of {r.limited[1]} documents)")
        if r.skipped:
            notes.append(f"{_label(r, rows)} {r.lang.upper()}: {r.skipped} bad official row(s) skipped on request "
                         "(GUI_EVAL_SKIP_BAD_ROWS): fewer questions than the release")
    errs = [r for r in rows if not math.isnan(r.format_error) and r.format_error > 0]
    if errs:
        notes.append("format errors (% of responses with no option letter): "
                     + ", ".join(f"{_label(r, rows)} {r.lang.upper()} {r.format_error:.1f}" for r in errs))
    return notes


def _label(row: Row, rows: Sequence[Row]) -> str:
    """The model cell: the model name, plus source and protocol when they differ between rows."""
    extra = [x for x, i in ((row.source, 1), (row.protocol, 2)) if len({r.group[i] for r in rows}) > 1]
    return row.model + (f" [{', '.join(extra)}]" if extra else "")


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1f}"


def _gap(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else f"{x:+.1f}"


def _show_model(table: MPRTable, show_model: bool | None) -> bool:
    return len({r.group for r in table.rows}) > 1 if show_model is None else show_model


def header(table: MPRTable, show_model: bool | None = None) -> list[str]:
    """Column titles: [Model], Lang, the eight dimensions, FPR-ACC, Gap to EN."""
    return (["Model"] if _show_model(table, show_model) else []) + ["Lang", *COLUMNS, "Gap to EN"]


def cells(table: MPRTable, row: Row, show_model: bool | None = None) -> list[str]:
    """One row's cells as printed: one decimal, "-" for a missing value, a signed gap."""
    model = [_label(row, table.rows)] if _show_model(table, show_model) else []
    return model + [row.lang.upper(), *(_fmt(row.values[c]) for c in COLUMNS), _gap(row.gap_to_en)]


def render_text(table: MPRTable, show_model: bool | None = None) -> str:
    """A fixed-width text table in the layout of the paper's Table 2 (model column when several models)."""
    data = [header(table, show_model)] + [cells(table, r, show_model) for r in table.rows]
    n_text = 2 if _show_model(table, show_model) else 1  # left-aligned text columns
    widths = [max(len(r[i]) for r in data) for i in range(len(data[0]))]
    lines = ["  ".join(c.ljust(w) if i < n_text else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in data]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + [f"Note: {n}" for n in table.notes] + interval_notes(table)) + "\n"


def interval_notes(table: MPRTable) -> list[str]:
    """Each row's 95% intervals as the run recorded them (cluster bootstrap over screenshots, docs/statistics.md)."""
    out = []
    for r in table.rows:
        parts = [f"{c} {r.values[c]:.1f} [{r.intervals[c][0]:.1f}, {r.intervals[c][1]:.1f}]" for c in COLUMNS
                 if c in r.intervals and not math.isnan(r.values[c])]
        if parts:
            out.append(f"{_label(r, table.rows)} {r.lang.upper()}: " + ", ".join(parts))
    return ["95% intervals (cluster bootstrap over screenshots, docs/statistics.md):", *out] if out else []


def write_markdown(table: MPRTable, path: str | Path, show_model: bool | None = None) -> None:
    """The same table as GitHub markdown, with the notes below it."""
    head = header(table, show_model)
    n_text = len(head) - len(COLUMNS) - 1
    text = "| " + " | ".join(head) + " |\n|" + "---|" * n_text + "---:|" * (len(head) - n_text) + "\n"
    text += "".join("| " + " | ".join(cells(table, r, show_model)) + " |\n" for r in table.rows)
    text += "".join(f"\n{n}\n" for n in table.notes)
    text += "".join(f"\n{n}\n" for n in interval_notes(table))
    Path(path).write_text(text, encoding="utf-8")


def write_csv(table: MPRTable, path: str | Path) -> None:
    """Machine-readable: full precision percentages, empty cells for missing values."""

    def num(x: float | None) -> str:
        return "" if x is None or math.isnan(x) else repr(round(x, 6))

    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "source", "prompt_protocol", "lang", *COLUMNS, "gap_to_en", "format_error", "tasks", "limited"])
        for r in table.rows:
            w.writerow([r.model, r.source, r.protocol, r.lang, *(num(r.values[c]) for c in COLUMNS), num(r.gap_to_en),
                        num(r.format_error), " ".join(r.tasks), f"{r.limited[0]}/{r.limited[1]}" if r.limited else ""])


def draw(table: MPRTable, path: str | Path) -> None:
    """Heatmap per model: languages down, dimensions and FPR-ACC across, every cell annotated."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    groups = list(dict.fromkeys(r.group for r in table.rows))
    heights = [sum(r.group == g for r in table.rows) for g in groups]
    fig, axes = plt.subplots(len(groups), 1, squeeze=False, figsize=(len(COLUMNS) * 0.85 + 2.6, 0.5 * sum(heights) + 1.3 * len(groups) + 0.6),
                             gridspec_kw={"height_ratios": heights, "hspace": 0.9})
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#e0e0e0")
    image = None
    for ax, group in zip(axes[:, 0], groups):
        rows = [r for r in table.rows if r.group == group]
        data = np.array([[r.values[c] for c in COLUMNS] for r in rows], dtype=float)
        image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0, vmax=100, aspect="auto")
        ax.set_xticks(range(len(COLUMNS)), COLUMNS)
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(rows)), [r.lang.upper() + (f"  ({_gap(r.gap_to_en)} vs EN)" if _gap(r.gap_to_en) else "")
                                         for r in rows])
        ax.axvline(len(DIMENSIONS) - 0.5, color="white", linewidth=3)
        ax.axvline(3.5, color="white", linewidth=1)  # perception | reasoning (seed Table 2)
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                value = data[i, j]
                dark = math.isnan(value) or value > 60
                ax.text(j, i, _fmt(value), ha="center", va="center", fontsize=9,
                        color="black" if dark else "white", fontweight="bold" if j == len(DIMENSIONS) else "normal")
        ax.set_title(f"{_label(rows[0], table.rows)}: accuracy (%) per dimension; FPR-ACC gap to EN beside each language",
                     fontsize=10, pad=22)
    if image is not None:
        fig.colorbar(image, ax=axes[:, 0].tolist(), fraction=0.025, pad=0.02, label="%")
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)


# Seed Table 3: Pearson r of RI, SI and Avg. (their mean) with FPR-ACC. Recomputing it from the seed's Table 2 gives
# 0.7373, 0.7152 and 0.7795 exactly over its 42 model x language rows (tests/test_mpr_table3.py), so the points are the
# rows of Table 2, not one point per model.
TABLE3 = (("RI vs. FPR-ACC", lambda v: v["RI"]), ("SI vs. FPR-ACC", lambda v: v["SI"]),
          ("Avg. vs. FPR-ACC", lambda v: (v["RI"] + v["SI"]) / 2))


@dataclass(frozen=True)
class Table3Row:
    """One line of Table 3 for one (source, prompt protocol): Pearson and Spearman over the table's rows."""

    source: str
    protocol: str
    metric: str
    pearson: Correlation
    spearman: Correlation
    models: int  # distinct models among the points


def table3(table: MPRTable) -> list[Table3Row]:
    """Seed Table 3 per (source, prompt protocol): each complete row (model x language with all eight dimensions) is
    a point; rows missing RI, SI or FPR-ACC are left out."""
    out = []
    for source, protocol in dict.fromkeys((r.source, r.protocol) for r in table.rows):
        pts = [r for r in table.rows if (r.source, r.protocol) == (source, protocol)
               and not any(math.isnan(r.values[c]) for c in ("RI", "SI", "FPR-ACC"))]
        fpr = [r.values["FPR-ACC"] for r in pts]
        models = len({r.model for r in pts})
        for name, fn in TABLE3:
            xs = [fn(r.values) for r in pts]
            out.append(Table3Row(source, protocol, name, pearson(xs, fpr), spearman(xs, fpr), models))
    return out


def _num(x: float, fmt: str = "{:.4f}") -> str:
    return "-" if x is None or math.isnan(x) else fmt.format(x)


def render_table3(rows: Sequence[Table3Row]) -> str:
    """Table 3 as text, with a note where the points are too few to read (``MIN_CORRELATION_N``) or all one model's."""
    head = ["Source", "Protocol", "Metric", "Pearson r", "p", "Spearman rho", "p", "n", "models"]
    data = [head] + [[r.source, r.protocol, r.metric, _num(r.pearson.r), _num(r.pearson.p_value, "{:.3g}"), _num(r.spearman.r),
                      _num(r.spearman.p_value, "{:.3g}"), str(r.pearson.n), str(r.models)] for r in rows]
    widths = [max(len(x[i]) for x in data) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(x, widths))).rstrip() for x in data]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = []
    for (source, protocol) in dict.fromkeys((r.source, r.protocol) for r in rows):
        first = next(r for r in rows if (r.source, r.protocol) == (source, protocol))
        n = first.pearson.n
        if n < MIN_CORRELATION_N:
            notes.append(f"{source} {protocol}: n = {n} < {MIN_CORRELATION_N} points, too few to read: with 4 or fewer "
                         "points no rank order can reach p < 0.05 (the exact two-sided Spearman p of a perfect order of 4 "
                         "is 2/4! = 0.083) and Pearson's test has at most 2 degrees of freedom; add models or languages")
        if first.models == 1:
            notes.append(f"{source} {protocol}: every point is one model's: this correlates languages, not models")
    return "\n".join(lines + [f"Note: {n}" for n in notes]) + "\n"


def write_table3_csv(rows: Sequence[Table3Row], path: str | Path) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["source", "prompt_protocol", "metric", "pearson_r", "pearson_p", "spearman_rho", "spearman_p", "n", "models",
                    "too_small"])
        for r in rows:
            w.writerow([r.source, r.protocol, r.metric, _num(r.pearson.r, "{!r}"), _num(r.pearson.p_value, "{!r}"),
                        _num(r.spearman.r, "{!r}"), _num(r.spearman.p_value, "{!r}"), r.pearson.n, r.models, r.pearson.too_small])


def letter_bias(runs: Sequence[RunResults], task_prefix: str | None = None) -> list[letter_bias_report.BiasRow]:
    """The letter-bias rows of the MPR-GUI tasks (the model's accuracy: ``mcq_acc``)."""
    return letter_bias_report.collect(
        runs, LETTER_PREFIX, "mcq_acc",
        lambda task, res: res.metadata.get("benchmark") in results_names_of(__package__) and (not task_prefix or task.startswith(task_prefix)))


def vision_gains(table: MPRTable) -> list[vision_gain.GainRow]:
    """Blind rows beside their sighted rows (same model settings, source, prompt protocol, language)."""
    return vision_gain.pair(table.rows, lambda r: (r.source, r.protocol))


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval mpr-report PATH... [--out DIR] [--task-prefix PREFIX]``."""
    ap = argparse.ArgumentParser(prog="gui-eval mpr-report", description="Table 2-style MPR-GUI report from lmms-eval results.")
    ap.add_argument("paths", nargs="+", help="lmms-eval *_results.json files or folders holding them (searched recursively)")
    ap.add_argument("--out", default=None, help="also write table.md, table.csv and table.png into this folder")
    ap.add_argument("--task-prefix", default=None, help="only tasks whose name starts with this, e.g. mpr_gui_synth")
    ap.add_argument("--model-column", choices=("auto", "yes", "no"), default="auto",
                    help="show the model column (auto: when the table holds several models)")
    args = ap.parse_args(argv)
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)]
    except ValueError as exc:
        print(f"gui-eval mpr-report: {exc}", file=sys.stderr)
        return 2
    table = build_table(runs, args.task_prefix)
    if not table.rows:
        where = ", ".join(args.paths)
        prefix = f" with task prefix {args.task_prefix!r}" if args.task_prefix else ""
        print(f"gui-eval mpr-report: no MPR-GUI result{prefix} in {where} ({len(runs)} results file(s) read)", file=sys.stderr)
        return 1
    show = {"auto": None, "yes": True, "no": False}[args.model_column]
    print(render_text(table, show), end="")
    gains = vision_gains(table)
    if gains:
        print("\nGain from vision (interventions=blind runs beside the same model's sighted runs):")
        print(vision_gain.render_text(gains, COLUMNS), end="")
    corr = table3(table)
    if corr and len({r.model for r in table.rows}) > 1:
        print("\nTable 3: correlation of RI, SI and their mean (Avg.) with FPR-ACC; points: model x language rows")
        print(render_table3(corr), end="")
    bias = letter_bias(runs, args.task_prefix)
    if bias:
        print("\nLetter bias (answered vs. gold share of each option letter):")
        print(letter_bias_report.render_text(bias, "mcq_acc"), end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_markdown(table, out / "table.md", show)
        write_csv(table, out / "table.csv")
        draw(table, out / "table.png")
        print(f"wrote {out / 'table.md'}, {out / 'table.csv'}, {out / 'table.png'}")
        if corr and len({r.model for r in table.rows}) > 1:
            write_table3_csv(corr, out / "table3.csv")
            print(f"wrote {out / 'table3.csv'}")
        if bias:
            letter_bias_report.draw(bias, out / "letter_bias.png")
            print(f"wrote {out / 'letter_bias.png'}")
        if gains:
            print("wrote " + ", ".join(map(str, vision_gain.write_all(gains, COLUMNS, out))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
