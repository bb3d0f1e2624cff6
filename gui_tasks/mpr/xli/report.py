"""With/without GUI-XLI tables in the layout of the seed's Table 4 (direct answers) and Table 6 (reasoning chains).

Runs are read from lmms-eval results files. A run is "with GUI-XLI" when its model args select
the ``gui_xli`` intervention, "without" when they select no intervention at all (runs with
other interventions are left out, with a note). Rows of both kinds are built by the MPR report
(``gui_tasks.mpr.report.build_table``: same merging of per-dimension tasks, same FPR-ACC) and
paired by model, source, prompt protocol and language; each pair prints as two lines, the
second with the gain per column. The prompt protocol picks the layout's title: ``mpr-cot-v1``
is Table 6, anything else Table 4.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from gui_tasks.mpr.prompts import REASONING
from gui_tasks.mpr.report import COLUMNS, Row, build_table
from gui_tasks.runs.results_io import RunResults, find_result_files, load_results


def model_arg_pairs(model_args: str) -> dict[str, str]:
    """``"a=1,b=2"`` -> ``{"a": "1", "b": "2"}`` (lmms-eval's model-args syntax)."""
    out: dict[str, str] = {}
    for part in model_args.split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


def xli_settings(model_args: str) -> dict[str, str] | None:
    """The ``gui_xli.*`` parameters of a run that selects gui_xli, ``{}``-like dict; None when it does not."""
    pairs = model_arg_pairs(model_args)
    if "gui_xli" not in [n.strip() for n in pairs.get("interventions", "").split("+")]:
        return None
    return {k.split(".", 1)[1]: v for k, v in pairs.items() if k.startswith("gui_xli.")}


@dataclass(frozen=True)
class Pair:
    """One language of one model: the row without and the row with GUI-XLI."""

    without: Row
    with_: Row
    settings: dict[str, str]

    def gain(self, column: str) -> float:
        return self.with_.values[column] - self.without.values[column]


@dataclass(frozen=True)
class XLITable:
    pairs: tuple[Pair, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def protocols(self) -> list[str]:
        found = list(dict.fromkeys(p.without.protocol for p in self.pairs))
        return sorted(found, key=lambda x: x == REASONING)  # Table 4 (direct) before Table 6 (reasoning)


def build_xli_table(results: Sequence[RunResults | str | Path], task_prefix: str | None = None) -> XLITable:
    """Pair rows without and with GUI-XLI (see the module docstring)."""
    runs = [r if isinstance(r, RunResults) else load_results(r) for r in results]
    plain, steered, other = [], [], []
    settings: dict[str, dict[str, str]] = {}
    base_label: dict[str, str] = {}  # a steered row's model label -> the label of the same model without interventions
    for run in runs:
        s = xli_settings(run.model_args)
        if s is not None:
            steered.append(run)
            base_label[run.model_label] = run.label(without_interventions=True)
            for task, res in run.tasks.items():
                settings[f"{run.model_label}|{res.metadata.get('prompt_protocol')}|{res.metadata.get('lang')}"] = s
        elif model_arg_pairs(run.model_args).get("interventions"):
            other.append(run)
        else:
            plain.append(run)
    base = {r.group + (r.lang,): r for r in build_table(plain, task_prefix).rows}
    with_rows = build_table(steered, task_prefix).rows

    def key(r: Row) -> tuple[str, ...]:
        return (base_label.get(r.model, r.model), *r.group[1:], r.lang)

    pairs = [Pair(base[key(r)], r, settings.get(f"{r.model}|{r.protocol}|{r.lang}", {})) for r in with_rows if key(r) in base]
    notes = []
    unpaired = [f"{r.model} {r.lang.upper()}" for r in with_rows if key(r) not in base]
    if unpaired:
        notes.append("with GUI-XLI but no run without it: " + ", ".join(unpaired))
    if other:
        notes.append(f"{len(other)} results file(s) with other interventions left out")
    for p in pairs:
        s = p.settings
        desc = ", ".join(f"{k}={s[k]}" for k in ("preset", "layer", "alpha", "k", "memory_size", "decode", "memory") if k in s)
        notes.append(f"GUI-XLI {p.with_.model} {p.with_.lang.upper()} ({p.with_.protocol}): {desc}")
        for row in (p.without, p.with_):
            if row.limited:
                notes.append(f"{row.model} {row.lang.upper()} ({'with' if row is p.with_ else 'without'}): "
                             f"run with --limit ({row.limited[0]} of {row.limited[1]} documents)")
    return XLITable(tuple(pairs), tuple(dict.fromkeys(notes)))


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1f}"


def _gain(x: float) -> str:
    if math.isnan(x):
        return ""
    return ("↑" if x >= 0 else "↓") + f"{abs(x):.1f}"


def title(protocol: str) -> str:
    return ("Table 6 layout: reasoning chains before the answer" if protocol == REASONING
            else "Table 4 layout: direct answers") + f" (prompt {protocol})"


def lines(table: XLITable) -> list[list[str]]:
    """Header plus two rows per pair: Model, Lang, GXI (x / v), columns (with gains on the second)."""
    out = [["Model", "Lang", "GXI", *COLUMNS]]
    for p in table.pairs:
        out.append([p.without.model, p.without.lang.upper(), "×", *(_fmt(p.without.values[c]) for c in COLUMNS)])
        out.append(["", "", "✓", *(f"{_fmt(p.with_.values[c])} {_gain(p.gain(c))}".strip() for c in COLUMNS)])
    return out


def render_text(table: XLITable) -> str:
    parts = []
    for protocol in table.protocols:
        sub = XLITable(tuple(p for p in table.pairs if p.without.protocol == protocol))
        data = lines(sub)
        widths = [max(len(r[i]) for r in data) for i in range(len(data[0]))]
        body = ["  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in data]
        body.insert(1, "  ".join("-" * w for w in widths))
        parts.append(title(protocol) + "\n" + "\n".join(body))
    return "\n\n".join(parts) + "\n" + "".join(f"Note: {n}\n" for n in table.notes)


def write_markdown(table: XLITable, path: Path) -> None:
    text = ""
    for protocol in table.protocols:
        data = lines(XLITable(tuple(p for p in table.pairs if p.without.protocol == protocol)))
        text += f"### {title(protocol)}\n\n| " + " | ".join(data[0]) + " |\n|---|---|:-:|" + "---:|" * len(COLUMNS) + "\n"
        text += "".join("| " + " | ".join(r) + " |\n" for r in data[1:]) + "\n"
    text += "".join(f"{n}\n\n" for n in table.notes)
    path.write_text(text, encoding="utf-8")


def write_csv(table: XLITable, path: Path) -> None:
    def num(x: float) -> str:
        return "" if math.isnan(x) else repr(round(x, 6))

    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "source", "prompt_protocol", "lang", "gui_xli", *COLUMNS, *(f"gain_{c}" for c in COLUMNS)])
        for p in table.pairs:
            r = p.without
            w.writerow([r.model, r.source, r.protocol, r.lang, 0, *(num(r.values[c]) for c in COLUMNS), *([""] * len(COLUMNS))])
            w.writerow([r.model, r.source, r.protocol, r.lang, 1, *(num(p.with_.values[c]) for c in COLUMNS),
                        *(num(p.gain(c)) for c in COLUMNS)])


def draw(table: XLITable, path: Path) -> None:
    """Gains (points) per language and column, green up, red down, each cell annotated."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[p.gain(c) for c in COLUMNS] for p in table.pairs], dtype=float)
    labels = [f"{p.without.model} {p.without.lang.upper()}" + (" (CoT)" if p.without.protocol == REASONING else "")
              for p in table.pairs]
    fig, ax = plt.subplots(figsize=(len(COLUMNS) * 0.85 + 3, 0.55 * len(labels) + 1.6))
    finite = np.abs(data[np.isfinite(data)])
    lim = max(1.0, float(finite.max()) if finite.size else 1.0)
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#e0e0e0")
    im = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(COLUMNS)), COLUMNS)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(labels)), labels)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            ax.text(j, i, _gain(data[i, j]) or "-", ha="center", va="center", fontsize=9,
                    fontweight="bold" if COLUMNS[j] == "FPR-ACC" else "normal")
    ax.set_title("GUI-XLI gain in accuracy points (with minus without)", fontsize=10, pad=22)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="points")
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval xli report PATH... [--out DIR] [--task-prefix PREFIX]``."""
    ap = argparse.ArgumentParser(prog="gui-eval xli report", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", help="lmms-eval *_results.json files or folders holding them")
    ap.add_argument("--out", default=None, help="also write xli_table.md, xli_table.csv and xli_gains.png here")
    ap.add_argument("--task-prefix", default=None)
    args = ap.parse_args(argv)
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)]
    except ValueError as exc:
        print(f"gui-eval xli report: {exc}", file=sys.stderr)
        return 2
    table = build_xli_table(runs, args.task_prefix)
    if not table.pairs:
        print(f"gui-eval xli report: no language has runs both with and without GUI-XLI ({len(runs)} results file(s) read)",
              file=sys.stderr)
        for n in table.notes:
            print(f"Note: {n}", file=sys.stderr)
        return 1
    print(render_text(table), end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_markdown(table, out / "xli_table.md")
        write_csv(table, out / "xli_table.csv")
        draw(table, out / "xli_gains.png")
        print(f"wrote {out / 'xli_table.md'}, {out / 'xli_table.csv'}, {out / 'xli_gains.png'}")
    return 0
