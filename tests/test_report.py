"""The Table 2 report on hand-built lmms-eval run folders: values, layout, merging, files, exit codes."""

from __future__ import annotations

import csv
import math

import pytest
from test_report_fixtures import paper_metrics, task_config, write_run

from gui_tasks.mpr.report import build_table, main, render_text, write_markdown
from gui_tasks.runs.results_io import find_result_files, load_results

# Paper Table 2 rows (percent): Intern2.5VL-8B EN, ZH, TH and Gemini-2.5-Pro EN, JA.
INTERN = {"en": (81.2, 89.9, 79.5, 92.1, 82.0, 82.0, 80.0, 44.0), "zh": (72.4, 85.5, 75.1, 88.0, 78.4, 67.8, 64.0, 60.0),
          "th": (57.9, 67.5, 52.6, 72.7, 42.9, 38.3, 80.0, 52.0)}
GEMINI = {"en": (85.0, 90.7, 85.0, 93.2, 84.7, 93.2, 96.0, 80.0), "ja": (85.2, 84.7, 53.4, 65.0, 60.1, 62.3, 68.0, 76.0)}


def _run(root, model_args, rows, *, model="qwen2_5_vl", fmt_err=0.0, stamp="20260101_000000", prefix="mpr_gui"):
    tasks = {f"{prefix}_{lang}": {"lang": lang, "metrics": paper_metrics(dims, fmt_err),
                                  "config": task_config(f"{prefix}_{lang}", lang, source="official")}
             for lang, dims in rows.items()}
    return write_run(root, tasks, model=model, model_args=model_args, stamp=stamp)


def test_two_models_exact_text(tmp_path):
    # Hand-computed: Intern EN (506.7 + 1.5*80 + 2*44) / 9.5 = 75.23; ZH 683.2/9.5 = 71.92 (gap -3.32);
    # TH 555.9/9.5 = 58.52 (gap -16.72). Gemini EN 835.8/9.5 = 87.98; JA 664.7/9.5 = 69.97 (gap -18.01).
    _run(tmp_path / "a", "pretrained=OpenGVLab/InternVL2_5-8B", {"th": INTERN["th"], "en": INTERN["en"], "zh": INTERN["zh"]})
    _run(tmp_path / "b", "model_version=gemini-2.5-pro", GEMINI, model="gemini_api")
    table = build_table([load_results(p) for p in find_result_files(tmp_path)])
    assert render_text(table) == (
        "Model           Lang    AU    AP    WF    WI   AEL   REL    RI    SI  FPR-ACC  Gap to EN\n"
        "--------------  ----  ----  ----  ----  ----  ----  ----  ----  ----  -------  ---------\n"
        "InternVL2_5-8B  EN    81.2  89.9  79.5  92.1  82.0  82.0  80.0  44.0     75.2\n"
        "InternVL2_5-8B  ZH    72.4  85.5  75.1  88.0  78.4  67.8  64.0  60.0     71.9       -3.3\n"
        "InternVL2_5-8B  TH    57.9  67.5  52.6  72.7  42.9  38.3  80.0  52.0     58.5      -16.7\n"
        "gemini-2.5-pro  EN    85.0  90.7  85.0  93.2  84.7  93.2  96.0  80.0     88.0\n"
        "gemini-2.5-pro  JA    85.2  84.7  53.4  65.0  60.1  62.3  68.0  76.0     70.0      -18.0\n"
    )
    zh = table.rows[1]
    assert zh.values["FPR-ACC"] == pytest.approx(683.2 / 9.5) and zh.gap_to_en == pytest.approx((683.2 - 714.7) / 9.5)


def test_one_model_without_model_column_missing_dimension_and_notes(tmp_path):
    en = list(INTERN["en"])
    en[6] = math.nan  # no RI samples: RI and FPR-ACC show "-", and ZH has no gap
    _run(tmp_path, "pretrained=OpenGVLab/InternVL2_5-8B", {"en": en, "zh": INTERN["zh"]}, fmt_err=0.125)
    table = build_table([load_results(p) for p in find_result_files(tmp_path)])
    assert render_text(table) == (
        "Lang    AU    AP    WF    WI   AEL   REL    RI    SI  FPR-ACC  Gap to EN\n"
        "----  ----  ----  ----  ----  ----  ----  ----  ----  -------  ---------\n"
        "EN    81.2  89.9  79.5  92.1  82.0  82.0     -  44.0        -\n"
        "ZH    72.4  85.5  75.1  88.0  78.4  67.8  64.0  60.0     71.9\n"
        "Note: format errors (% of responses with no option letter): InternVL2_5-8B EN 12.5, InternVL2_5-8B ZH 12.5\n"
    )
    assert render_text(table, show_model=True).splitlines()[2] == (
        "InternVL2_5-8B  EN    81.2  89.9  79.5  92.1  82.0  82.0     -  44.0        -")


def test_markdown_and_gap_blank_without_english(tmp_path):
    _run(tmp_path, "pretrained=x/M", {"zh": INTERN["zh"]})
    table = build_table([load_results(p) for p in find_result_files(tmp_path)])
    write_markdown(table, tmp_path / "t.md")
    assert (tmp_path / "t.md").read_text() == (
        "| Lang | AU | AP | WF | WI | AEL | REL | RI | SI | FPR-ACC | Gap to EN |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| ZH | 72.4 | 85.5 | 75.1 | 88.0 | 78.4 | 67.8 | 64.0 | 60.0 | 71.9 |  |\n"
    )


def test_per_dimension_tasks_merge_into_one_row(tmp_path):
    tasks = {}
    for dim, value in zip(("au", "ap", "wf", "wi", "ael", "rel", "ri", "si"), INTERN["en"]):
        config = task_config(f"mpr_gui_en_{dim}", "en", source="official")
        config["metadata"]["dimensions"] = [dim.upper()]
        tasks[f"mpr_gui_en_{dim}"] = {"lang": "en", "config": config,
                                      "metrics": {"mcq_acc": value / 100, "fpr_acc": value / 100, f"mpr_acc_{dim}": value / 100}}
    write_run(tmp_path, tasks)
    (row,) = build_table([load_results(p) for p in find_result_files(tmp_path)]).rows
    assert [round(row.values[c], 1) for c in ("AU", "RI", "SI", "FPR-ACC")] == [81.2, 80.0, 44.0, 75.2]
    assert len(row.tasks) == 8 and math.isnan(row.format_error)


def test_sources_and_protocols_stay_apart_and_prefix_filters(tmp_path):
    synth = {f"mpr_gui_synth_{lang}": {"lang": lang, "metrics": paper_metrics(dims)} for lang, dims in INTERN.items()}
    cot_cfg = task_config("mpr_gui_synth_cot_en", "en", protocol="mpr-cot-v1")
    synth["mpr_gui_synth_cot_en"] = {"lang": "en", "metrics": paper_metrics(GEMINI["en"]), "config": cot_cfg}
    synth["mpr_gui_en"] = {"lang": "en", "metrics": paper_metrics(GEMINI["ja"]),
                           "config": task_config("mpr_gui_en", "en", source="official")}
    run = load_results(write_run(tmp_path, synth))
    table = build_table([run])
    assert [(r.source, r.protocol, r.lang) for r in table.rows] == [
        ("official", "mpr-direct-v1", "en"), ("synthetic", "mpr-cot-v1", "en"),
        ("synthetic", "mpr-direct-v1", "en"), ("synthetic", "mpr-direct-v1", "zh"), ("synthetic", "mpr-direct-v1", "th")]
    assert render_text(table).splitlines()[2].split("  ")[0] == "Tiny-VL-2B [official, mpr-direct-v1]"
    only = build_table([run], task_prefix="mpr_gui_synth_cot")
    assert [r.tasks for r in only.rows] == [("mpr_gui_synth_cot_en",)]


def test_report_command_writes_files(tmp_path, capsys):
    _run(tmp_path / "run", "pretrained=x/M", INTERN, prefix="mpr_gui_synth")
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--task-prefix", "mpr_gui_synth"]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[3].split() == ["ZH", "72.4", "85.5", "75.1", "88.0", "78.4", "67.8", "64.0", "60.0", "71.9", "-3.3"]
    assert (tmp_path / "rep" / "table.md").read_text().count("\n| ") == 3
    with (tmp_path / "rep" / "table.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["lang"] for r in rows] == ["en", "zh", "th"] and float(rows[2]["gap_to_en"]) == pytest.approx((555.9 - 714.7) / 9.5)
    assert (tmp_path / "rep" / "table.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_command_fails_clearly(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 1
    assert "no MPR-GUI result in" in capsys.readouterr().err
    _run(tmp_path / "run", "pretrained=x/M", INTERN)
    assert main([str(tmp_path / "run"), "--task-prefix", "mpr_gui_synth"]) == 1
    assert "with task prefix 'mpr_gui_synth'" in capsys.readouterr().err
    assert main([str(tmp_path / "missing")]) == 2
    (tmp_path / "bad_results.json").write_text("{not json")
    assert main([str(tmp_path / "bad_results.json")]) == 2
    assert "bad_results.json" in capsys.readouterr().err


def test_skipped_bad_rows_are_noted_under_the_table(tmp_path):
    config = task_config("mpr_gui_zh", "zh", source="official")
    config["metadata"]["bad_rows_skipped"] = 3  # written by the task when GUI_EVAL_SKIP_BAD_ROWS=1 dropped rows
    write_run(tmp_path, {"mpr_gui_zh": {"lang": "zh", "metrics": paper_metrics(INTERN["zh"]), "config": config}})
    table = build_table([load_results(p) for p in find_result_files(tmp_path)])
    assert table.rows[0].skipped == 3
    assert any("ZH: 3 bad official row(s) skipped on request (GUI_EVAL_SKIP_BAD_ROWS)" in n for n in table.notes)
