"""How ``gui-eval view`` shows an MPR-GUI run: the viewer's ``gui_viewer`` hooks for the MPR-GUI benchmarks (their
records name this module as ``viewing``; ``gui_tasks.viewer.hookspecs``): the language x dimension table of
``gui_tasks.mpr.report.build_table`` as a heatmap (accuracy in %, FPR-ACC and the gap to EN)."""

from __future__ import annotations

import math

from gui_core.viewing import Cell, Row, RunView, Table, hookimpl


@hookimpl
def gui_viewer_run_reports(run: RunView) -> list[Table]:
    from gui_tasks.mpr.report import COLUMNS, build_table, header

    table = build_table(run.runs)
    if not table.rows:
        return []
    rows = []
    for r in table.rows:
        cells = [Cell(r.model), Cell(r.lang.upper())]
        for c in COLUMNS:
            v = r.values[c]
            cells.append(Cell("-" if math.isnan(v) else f"{v:.1f}", cls="num", shade=v))
        gap = "" if r.gap_to_en is None or math.isnan(r.gap_to_en) else f"{r.gap_to_en:+.1f}"
        cells.append(Cell(gap, cls="num"))
        rows.append(Row(cells))
    return [Table("MPR-GUI: accuracy (%) per language and dimension, FPR-ACC and gap to EN",
                  header(table, show_model=True), rows, cls="heat", level=3, notes=tuple(table.notes))]
