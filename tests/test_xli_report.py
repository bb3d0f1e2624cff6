"""With/without GUI-XLI tables (Table 4 / Table 6 layout) from hand-built lmms-eval results with the paper's numbers."""

from __future__ import annotations

import csv

import pytest
from test_report_fixtures import paper_metrics, task_config, write_run

from gui_tasks.runs.results_io import find_result_files, load_results
from gui_tasks.mpr.xli.report import build_xli_table, main, render_text, xli_settings

# Seed Table 4, Qwen-2.5-VL-Instruct (without, with), and Table 6 ZH (reasoning chains).
ZH = ((83.6, 88.8, 77.8, 88.8, 79.2, 74.3, 68.0, 68.0), (86.2, 89.2, 78.1, 91.5, 79.6, 74.6, 84.0, 76.0))
JA = ((81.7, 87.7, 79.2, 90.2, 77.3, 69.1, 88.0, 68.0), (83.6, 88.3, 81.7, 93.5, 77.1, 69.3, 92.0, 80.0))
ZH_COT = ((77.8, 72.9, 69.8, 67.8, 73.7, 80.6, 84.0, 68.0), (82.1, 83.5, 74.4, 67.7, 78.3, 85.5, 80.0, 72.0))
BASE = "pretrained=Qwen/Qwen2.5-VL-7B-Instruct"
XLI = BASE + ",interventions=gui_xli,gui_xli.memory=qwen-zh,gui_xli.preset=qwen2.5-vl-7b/zh"


def _run(root, model_args, rows, protocol="mpr-direct-v1", stamp="20260101_000000"):
    tasks = {f"mpr_gui_{lang}": {"lang": lang, "metrics": paper_metrics(dims),
                                 "config": task_config(f"mpr_gui_{lang}", lang, source="official", protocol=protocol)}
             for lang, dims in rows.items()}
    return write_run(root, tasks, model="gui_hf", model_args=model_args, stamp=stamp)


def _files(tmp_path):
    _run(tmp_path / "without", BASE, {"zh": ZH[0], "ja": JA[0], "en": ZH[0]})
    _run(tmp_path / "with", XLI, {"zh": ZH[1], "ja": JA[1]}, stamp="20260101_000001")
    _run(tmp_path / "cot_without", BASE, {"zh": ZH_COT[0]}, protocol="mpr-cot-v1", stamp="20260101_000002")
    _run(tmp_path / "cot_with", XLI, {"zh": ZH_COT[1]}, protocol="mpr-cot-v1", stamp="20260101_000003")
    _run(tmp_path / "other", BASE + ",interventions=prompt_affix,prompt_affix.suffix=x", {"zh": ZH[1]}, stamp="20260101_000004")
    return [load_results(p) for p in find_result_files(tmp_path)]


def test_settings_are_read_from_model_args():
    assert xli_settings(XLI) == {"memory": "qwen-zh", "preset": "qwen2.5-vl-7b/zh"}
    assert xli_settings(BASE) is None
    assert xli_settings(BASE + ",interventions=prompt_affix+gui_xli") == {}


def test_table4_and_table6_layouts_with_gains(tmp_path):
    table = build_xli_table(_files(tmp_path))
    text = render_text(table)
    # FPR-ACC recomputed with the appendix A.7 weights: ZH (492.5 + 1.5*68 + 2*68) / 9.5 = 76.9 -> 777.2 / 9.5 = 81.8
    # Cells from the paper's Table 4; FPR-ACC recomputed with the appendix A.7 weights:
    # ZH (492.5 + 1.5*68 + 2*68) / 9.5 = 76.9 -> 777.2 / 9.5 = 81.8 (the paper prints 77.1 -> 83.1)
    assert text.splitlines()[:7] == [
        "Table 4 layout: direct answers (prompt mpr-direct-v1)",
        "Model                   Lang  GXI         AU         AP         WF         WI        AEL        REL          RI          SI    FPR-ACC",
        "----------------------  ----  ---  ---------  ---------  ---------  ---------  ---------  ---------  ----------  ----------  ---------",
        "Qwen2.5-VL-7B-Instruct  ZH    ×         83.6       88.8       77.8       88.8       79.2       74.3        68.0        68.0       76.9",
        "                              ✓    86.2 ↑2.6  89.2 ↑0.4  78.1 ↑0.3  91.5 ↑2.7  79.6 ↑0.4  74.6 ↑0.3  84.0 ↑16.0   76.0 ↑8.0  81.8 ↑4.9",
        "Qwen2.5-VL-7B-Instruct  JA    ×         81.7       87.7       79.2       90.2       77.3       69.1        88.0        68.0       79.3",
        "                              ✓    83.6 ↑1.9  88.3 ↑0.6  81.7 ↑2.5  93.5 ↑3.3  77.1 ↓0.2  69.3 ↑0.2   92.0 ↑4.0  80.0 ↑12.0  83.3 ↑4.0",
    ]
    # Table 6's RI cell reads "80.0 ↑0.3" for 84.0 -> 80.0 in the paper; recomputed it is a drop of 4.0
    assert "80.0 ↓4.0" in text.split("Table 6 layout")[1]
    zh_cot, zh, ja = table.pairs
    assert (zh.without.lang, ja.without.lang, zh_cot.without.protocol) == ("zh", "ja", "mpr-cot-v1")
    assert zh.gain("AU") == pytest.approx(2.6) and zh.gain("RI") == pytest.approx(16.0) and zh.gain("SI") == pytest.approx(8.0)
    assert zh.without.values["FPR-ACC"] == pytest.approx(730.5 / 9.5)
    assert zh.with_.values["FPR-ACC"] == pytest.approx(777.2 / 9.5)
    assert ja.gain("AEL") == pytest.approx(-0.2) and zh_cot.gain("WI") == pytest.approx(-0.1)
    assert zh.settings == {"memory": "qwen-zh", "preset": "qwen2.5-vl-7b/zh"}
    assert "Table 6 layout: reasoning chains before the answer (prompt mpr-cot-v1)" in text
    assert "↑2.6" in text and "↓0.2" in text and "↑16.0" in text
    assert "1 results file(s) with other interventions left out" in table.notes


def test_report_command_writes_files(tmp_path, capsys):
    _files(tmp_path / "runs")
    assert main([str(tmp_path / "runs"), "--out", str(tmp_path / "out")]) == 0
    with open(tmp_path / "out" / "xli_table.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["lang"], r["gui_xli"], r["prompt_protocol"]) for r in rows] == [
        ("zh", "0", "mpr-cot-v1"), ("zh", "1", "mpr-cot-v1"),
        ("zh", "0", "mpr-direct-v1"), ("zh", "1", "mpr-direct-v1"), ("ja", "0", "mpr-direct-v1"), ("ja", "1", "mpr-direct-v1")]
    assert float(rows[3]["gain_RI"]) == pytest.approx(16.0)
    assert (tmp_path / "out" / "xli_gains.png").stat().st_size > 1000
    assert "### Table 4 layout" in (tmp_path / "out" / "xli_table.md").read_text(encoding="utf-8")


def test_report_without_pairs_fails(tmp_path, capsys):
    _run(tmp_path, BASE, {"zh": ZH[0]})
    assert main([str(tmp_path)]) == 1
    assert "no language has runs both with and without GUI-XLI" in capsys.readouterr().err
