"""MPR-GUI Table 3: RI, SI and their mean correlated with FPR-ACC over the model x language rows of Table 2."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from gui_metrics.mpr import DIMENSIONS
from gui_tasks.mpr.report import COLUMNS, MPRTable, Row, main, render_table3, table3

# The seed paper's Table 2 (model x language, percent), transcribed from /work/shared/seeds/mpr-gui-bench_gui-xli.txt.
TABLE2 = Path(__file__).parent / "fixtures" / "mpr_seed" / "table2.tsv"


def _seed_rows() -> list[Row]:
    lines = [r for r in csv.reader(TABLE2.open(encoding="utf-8"), delimiter="\t") if r and not r[0].startswith("#")]
    head = lines[0]
    return [Row(r[0], "paper", "printed", r[1], {c: float(r[head.index(c)]) for c in COLUMNS}, None, math.nan, ())
            for r in lines[1:]]


def test_table3_of_the_paper_is_pearson_over_its_42_model_language_rows():
    rows = {r.metric: r for r in table3(MPRTable(tuple(_seed_rows())))}
    # seed Table 3: RI 0.7373, SI 0.7152, Avg. 0.7795 (from the printed FPR-ACC column)
    assert rows["RI vs. FPR-ACC"].pearson.r == pytest.approx(0.7373, abs=5e-5)
    assert rows["SI vs. FPR-ACC"].pearson.r == pytest.approx(0.7152, abs=5e-5)
    assert rows["Avg. vs. FPR-ACC"].pearson.r == pytest.approx(0.7795, abs=5e-5)
    assert {(r.pearson.n, r.models, r.pearson.too_small) for r in rows.values()} == {(42, 7, False)}
    assert all(r.pearson.p_value < 1e-6 for r in rows.values())
    assert "Note" not in render_table3(list(rows.values()))


def _results(path: Path, model: str, cells: dict[str, dict[str, float]], bias: dict[str, float] | None = None) -> None:
    """A results file as lmms-eval writes it: one MPR-GUI task per language with its eight dimension accuracies."""
    raw = {"results": {}, "configs": {}, "n-samples": {}, "config": {"model": "gui_hf", "model_args": f"pretrained={model}"},
           "model_name": model}
    for lang, dims in cells.items():
        task = f"mpr_gui_synth_{lang}"
        raw["results"][task] = {f"mpr_acc_{d.lower()},none": v for d, v in dims.items()} | {
            f"{k},none": v for k, v in (bias or {}).items()}
        raw["configs"][task] = {"task": task, "metadata": {"benchmark": "mpr_gui", "lang": lang, "source": "synthetic",
                                                          "prompt_protocol": "mpr-direct-v1", "dimensions": list(DIMENSIONS)}}
        raw["n-samples"][task] = {"original": 64, "effective": 64}
    path.mkdir(parents=True, exist_ok=True)
    (path / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")


def test_report_over_runs_prints_table3_and_says_four_points_are_too_few(tmp_path, capsys):
    flat = {d: 0.5 for d in DIMENSIONS}
    bias = {"mcq_acc": 0.25, "mcq_letter_tv": 0.75, "mcq_letter_baseline_acc": 0.25, "mcq_pred_share_a": 1.0,
            "mcq_gold_share_a": 0.25, "mcq_pred_share_b": 0.0, "mcq_gold_share_b": 0.75}
    _results(tmp_path / "m1", "Org/M1", {"en": {**flat, "RI": 0.2, "SI": 0.3}, "zh": {**flat, "RI": 0.4, "SI": 0.2}}, bias)
    _results(tmp_path / "m2", "Org/M2", {"en": {**flat, "RI": 0.9, "SI": 0.8}, "zh": {**flat, "RI": 0.6, "SI": 0.7}})
    assert main([str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    # four points (2 models x 2 languages): reported, with the note that they are too few
    si = next(line for line in out.splitlines() if line.startswith("synthetic") and "SI vs. FPR-ACC" in line)
    assert si.split()[-2:] == ["4", "2"]  # n, models
    assert "n = 4 < 5 points, too few to read" in out
    # letter bias of M1's task: always A, answered 100% against 25% gold
    bias_line = next(line for line in out.splitlines() if line.startswith("M1") and "mpr_gui_synth_en" in line)
    assert bias_line.split()[2:] == ["25.0", "25.0", "75.0", "100.0/25.0", "0.0/75.0"]
    assert (tmp_path / "out" / "table3.csv").is_file() and (tmp_path / "out" / "letter_bias.png").stat().st_size > 0
