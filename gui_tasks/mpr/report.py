"""The paper's Table 2 layout from lmms-eval results: languages x dimensions, FPR-ACC, gap to EN.

Rows come from MPR-GUI tasks (``metadata.benchmark == "mpr_gui"``) covering all eight
dimensions; one row per (model, source, prompt protocol, language). Values in percent.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gui_metrics.mpr import DIMENSIONS
from gui_tasks.mpr.schema import LANGS
from gui_tasks.results_io import RunResults, find_result_files, load_results

COLUMNS = (*DIMENSIONS, "FPR-ACC")


@dataclass(frozen=True)
class Row:
    model: str
    source: str
    protocol: str
    lang: str
    task: str
    values: dict[str, float]  # column -> percent (NaN when missing)
    format_error: float
    gap_to_en: float | None


@dataclass(frozen=True)
class MPRTable:
    rows: tuple[Row, ...]


def _pct(x: float | None) -> float:
    return math.nan if x is None or (isinstance(x, float) and math.isnan(x)) else 100.0 * x


def build_table(runs: Sequence[RunResults], task_prefix: str | None = None) -> MPRTable:
    """Collect MPR-GUI rows from results; the gap is FPR-ACC minus English's in the same group."""
    found: dict[tuple[str, str, str, str], Row] = {}
    for run in runs:
        for task, res in run.tasks.items():
            meta = res.metadata
            if meta.get("benchmark") != "mpr_gui" or (task_prefix and not task.startswith(task_prefix)):
                continue
            if list(meta.get("dimensions") or DIMENSIONS) != list(DIMENSIONS) or meta.get("lang") not in LANGS:
                continue
            values = {d: _pct(res.metrics.get(f"mpr_acc_{d.lower()}")) for d in DIMENSIONS}
            values["FPR-ACC"] = _pct(res.metrics.get("fpr_acc"))
            key = (run.model_label, str(meta.get("source", "")), str(meta.get("prompt_protocol", "")), meta["lang"])
            found[key] = Row(*key, task, values, _pct(res.metrics.get("format_error_rate")), None)
    rows = []
    for key in sorted(found, key=lambda k: (k[0], k[1], k[2], LANGS.index(k[3]))):
        row = found[key]
        en = found.get((*key[:3], "en"))
        gap = row.values["FPR-ACC"] - en.values["FPR-ACC"] if en is not None and row.lang != "en" else None
        rows.append(Row(**{**row.__dict__, "gap_to_en": gap}))
    return MPRTable(tuple(rows))


def _fmt(x: float | None) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.1f}"


def _gap(x: float | None) -> str:
    return "" if x is None or math.isnan(x) else f"{x:+.1f}"


def header() -> list[str]:
    return ["Model", "Source", "Lang", *COLUMNS, "Gap to EN", "Format err."]


def cells(row: Row) -> list[str]:
    return [row.model, row.source, row.lang.upper(), *(_fmt(row.values[c]) for c in COLUMNS), _gap(row.gap_to_en), _fmt(row.format_error)]


def render_text(table: MPRTable) -> str:
    """A fixed-width text table in the layout of the paper's Table 2."""
    data = [header()] + [cells(r) for r in table.rows]
    widths = [max(len(r[i]) for r in data) for i in range(len(data[0]))]
    lines = ["  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in data]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def write_markdown(table: MPRTable, path: Path) -> None:
    rows = [header()] + [cells(r) for r in table.rows]
    text = "| " + " | ".join(rows[0]) + " |\n|" + "---|" * len(rows[0]) + "\n"
    text += "".join("| " + " | ".join(r) + " |\n" for r in rows[1:])
    path.write_text(text, encoding="utf-8")


def write_csv(table: MPRTable, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "source", "protocol", "lang", "task", *COLUMNS, "gap_to_en", "format_error"])
        for r in table.rows:
            w.writerow([r.model, r.source, r.protocol, r.lang, r.task, *(r.values[c] for c in COLUMNS),
                        "" if r.gap_to_en is None else r.gap_to_en, r.format_error])


def draw(table: MPRTable, path: Path) -> None:
    """Heatmap: one row per (model, language), one column per dimension plus FPR-ACC."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[r.values[c] for c in COLUMNS] for r in table.rows], dtype=float)
    several_sources = len({r.source for r in table.rows}) > 1
    labels = [f"{r.model}{f' [{r.source}]' if several_sources else ''} {r.lang.upper()}"
              + (f" ({r.gap_to_en:+.1f})" if r.gap_to_en is not None else "") for r in table.rows]
    fig, ax = plt.subplots(figsize=(1.0 * len(COLUMNS) + 3, 0.45 * len(labels) + 1.8))
    masked = np.ma.masked_invalid(data)
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    im = ax.imshow(masked, cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(COLUMNS)), COLUMNS)
    ax.set_yticks(range(len(labels)), labels)
    ax.axvline(len(DIMENSIONS) - 0.5, color="black", linewidth=1.5)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            ax.text(j, i, _fmt(data[i, j]), ha="center", va="center", fontsize=8)
    ax.set_title("MPR-GUI accuracy (%) by language and dimension; FPR-ACC with gap to EN")
    fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gui-eval report", description=__doc__)
    ap.add_argument("paths", nargs="+", help="lmms-eval results files or folders holding them")
    ap.add_argument("--out", default=None, help="write table.md, table.csv and table.png here")
    ap.add_argument("--task-prefix", default=None, help="only tasks whose name starts with this")
    args = ap.parse_args(argv)
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)]
    except ValueError as exc:
        print(f"gui-eval report: {exc}", file=sys.stderr)
        return 2
    table = build_table(runs, args.task_prefix)
    if not table.rows:
        print(f"gui-eval report: no MPR-GUI result covering all eight dimensions in {', '.join(args.paths)}", file=sys.stderr)
        return 1
    print(render_text(table), end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_markdown(table, out / "table.md")
        write_csv(table, out / "table.csv")
        draw(table, out / "table.png")
        print(f"wrote {out / 'table.md'}, {out / 'table.csv'}, {out / 'table.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
