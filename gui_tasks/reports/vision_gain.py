"""Sighted versus blind (issue 22): how much of a benchmark a model answers only with the screenshot.

A run with ``interventions=blind`` (``gui_interventions.blind``: blank or removed images) is paired with the same
model's run without it (same checkpoint and other settings, same source, protocol or variant, same language); the
gain from vision is sighted minus blind accuracy, per language and per column (dimension or sub-task). The MPR-GUI
and GUI Knowledge Bench reports print these tables and draw them (``vision_gain.png``) when both runs are present.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from gui_tasks.runs.protocols import protocol_label

BLIND = "blind"


def split_blind(label: str) -> tuple[str, str | None]:
    """``(label of the same run without blind, blind setting)`` of a report row label (``RunResults.model_label``);
    the setting is None for a sighted run, else ``"blind"`` plus its parameters (``"blind[mode=remove]"``)."""
    m = re.fullmatch(r"(.*?) \[(.*)\]", label)
    if m is None:
        return label, None
    base, args = m.group(1), [a for a in m.group(2).split(",") if a]
    kept, params, blind = [], [], False
    for arg in args:
        key, _, value = arg.partition("=")
        if key == "interventions":
            names = [n for n in value.split("+") if n]
            blind = blind or BLIND in names
            names = [n for n in names if n != BLIND]
            if names:
                kept.append("interventions=" + "+".join(names))
        elif key.startswith(BLIND + "."):
            params.append(f"{key[len(BLIND) + 1:]}={value}")
        else:
            kept.append(arg)
    if not blind:
        return label, None
    return base + (f" [{','.join(kept)}]" if kept else ""), BLIND + (f"[{','.join(params)}]" if params else "")


@dataclass(frozen=True)
class GainRow:
    """One language of one model: sighted and blind accuracies in percent (NaN = missing) and their difference."""

    model: str  # the sighted run's label
    blind: str  # the blind setting ("blind", "blind[mode=remove]")
    context: tuple[str, ...]  # what else must match: (source, protocol) for MPR-GUI, (source, variant) for GUI-KB
    lang: str
    sighted: dict[str, float]
    without: dict[str, float]

    def gain(self, column: str) -> float:
        s, b = self.sighted.get(column, math.nan), self.without.get(column, math.nan)
        return s - b if not (math.isnan(s) or math.isnan(b)) else math.nan


def pair(rows: Iterable[Any], context: Callable[[Any], tuple[str, ...]]) -> list[GainRow]:
    """Every blind row (``row.model`` names blind) with its sighted counterpart; rows need ``model``, ``lang``,
    ``values``. Blind rows without a sighted run are left out."""
    rows = list(rows)
    sighted = {(r.model, context(r), r.lang): r for r in rows if split_blind(r.model)[1] is None}
    out = []
    for r in rows:
        base, setting = split_blind(r.model)
        twin = sighted.get((base, context(r), r.lang)) if setting else None
        if twin is not None:
            out.append(GainRow(base, setting, context(r), r.lang, dict(twin.values), dict(r.values)))
    return out


def _blocks(gains: Sequence[GainRow]) -> list[tuple[tuple[str, str, tuple[str, ...]], list[GainRow]]]:
    keys = list(dict.fromkeys((g.model, g.blind, g.context) for g in gains))
    return [(k, [g for g in gains if (g.model, g.blind, g.context) == k]) for k in keys]


def _f(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.1f}"


def _cell(g: GainRow, c: str) -> str:
    s, b, d = g.sighted.get(c, math.nan), g.without.get(c, math.nan), g.gain(c)
    if math.isnan(s) and math.isnan(b):
        return ""
    return f"{_f(s) or '-'}/{_f(b) or '-'} ({d:+.1f})" if not math.isnan(d) else f"{_f(s) or '-'}/{_f(b) or '-'}"


def title(key: tuple[str, str, tuple[str, ...]]) -> str:
    model, blind, context = key
    ctx = list(context)
    if len(ctx) >= 2 and ctx[1].startswith(("mpr-", "gkb-")):  # a prompt protocol: say how the blind run is labelled
        ctx[1] = f"{ctx[1]} vs {protocol_label(ctx[1], [blind])}"
    return f"{model} | {' | '.join(ctx)} | sighted/blind (gain from vision), %"


def render_text(gains: Sequence[GainRow], columns: Sequence[str]) -> str:
    """Plain-text tables, one per model and blind setting: ``sighted/blind (gain)`` per language and column."""
    lines = []
    for key, rows in _blocks(gains):
        lines.append(title(key))
        table = [["lang", *columns]] + [[g.lang.upper(), *(_cell(g, c) for c in columns)] for g in rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in table]
        lines.append("")
    return "\n".join(lines)


def write_markdown(gains: Sequence[GainRow], columns: Sequence[str], path: str | Path) -> None:
    out = []
    for key, rows in _blocks(gains):
        out += [f"### {title(key)}", "", "| lang | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
        out += ["| " + g.lang.upper() + " | " + " | ".join(_cell(g, c) for c in columns) + " |" for g in rows]
        out.append("")
    Path(path).write_text("\n".join(out), encoding="utf-8")


def write_csv(gains: Sequence[GainRow], columns: Sequence[str], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "blind", "context", "lang", "column", "sighted", "blind_acc", "gain"])
        for g in gains:
            for c in columns:
                w.writerow([g.model, g.blind, "|".join(g.context), g.lang, c, _f(g.sighted.get(c, math.nan)),
                            _f(g.without.get(c, math.nan)), _f(g.gain(c))])


def draw(gains: Sequence[GainRow], columns: Sequence[str], path: str | Path) -> None:
    """Heatmap per model and blind setting: gain from vision (points) per language and column, each cell annotated
    with the gain and sighted/blind accuracy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    blocks = _blocks(gains)
    heights = [len(rows) for _, rows in blocks]
    fig, axes = plt.subplots(len(blocks), 1, squeeze=False, figsize=(len(columns) * 1.05 + 2.4, 0.62 * sum(heights) + 1.4 * len(blocks) + 0.6),
                             gridspec_kw={"height_ratios": heights, "hspace": 0.9})
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e0e0e0")
    image = None
    for ax, (key, rows) in zip(axes[:, 0], blocks):
        data = np.array([[g.gain(c) for c in columns] for g in rows], dtype=float)
        image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=-50, vmax=50, aspect="auto")
        ax.set_xticks(range(len(columns)), columns, fontsize=8)
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(rows)), [g.lang.upper() for g in rows])
        for i, g in enumerate(rows):
            for j, c in enumerate(columns):
                s, b = g.sighted.get(c, math.nan), g.without.get(c, math.nan)
                text = "" if math.isnan(data[i, j]) else f"{data[i, j]:+.1f}\n{s:.0f}/{b:.0f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=7)
        ax.set_title(title(key), fontsize=9, pad=20)
    if image is not None:
        fig.colorbar(image, ax=axes[:, 0].tolist(), fraction=0.025, pad=0.02, label="gain from vision (points)")
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)


def write_all(gains: Sequence[GainRow], columns: Sequence[str], out: Path) -> list[Path]:
    """``vision_gain.md``, ``.csv`` and ``.png`` in ``out``."""
    paths = [out / "vision_gain.md", out / "vision_gain.csv", out / "vision_gain.png"]
    write_markdown(gains, columns, paths[0])
    write_csv(gains, columns, paths[1])
    draw(gains, columns, paths[2])
    return paths


__all__ = ["GainRow", "split_blind", "pair", "render_text", "write_markdown", "write_csv", "draw", "write_all"]
