"""The StaR step table: rows without any scored step are folded into one note; an empty category cell is explained."""

from __future__ import annotations

import math

from gui_tasks.star.report import EMPTY_STEP_NOTE, STEP_COLUMNS, StepRow, render_step_text


def _row(task: str, value: float) -> StepRow:
    values = {c: math.nan for c in STEP_COLUMNS} | ({"step_type_acc": value, "step_action_acc": value} if not math.isnan(value) else {})
    return StepRow(task, "tiny", "Zero-shot", values, math.nan if math.isnan(value) else 1.0, 2, "paper", "ground_truth")


def test_rows_without_scored_steps_are_folded_and_dashes_explained():
    text = render_step_text([_row("star_agentic_synth", 0.0), _row("star_agentic_synth_fr", math.nan),
                             _row("star_agentic_synth_ja", math.nan)])
    lines = text.strip().split("\n")
    assert len([x for x in lines if x.startswith("| star_")]) == 1
    assert lines[-2] == f"Note: {EMPTY_STEP_NOTE}"
    assert lines[-1] == ("Note: 2 task run(s) with no scored step (every step dropped by the judge, or no sample), left out: "
                         "star_agentic_synth_fr (tiny), star_agentic_synth_ja (tiny)")
