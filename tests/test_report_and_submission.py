"""The Table 2 report and leaderboard submissions, on lmms-eval-shaped result files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gui_tasks.leaderboard import SubmissionError, build_submission, main as submit_main, validate_submission
from gui_tasks.mpr.report import build_table, main as report_main, render_text
from gui_tasks.results_io import load_results

DIMS = ("au", "ap", "wf", "wi", "ael", "rel", "ri", "si")


def write_run(root: Path, langs_acc: dict[str, list[float]], *, limit=None, model_args="pretrained=/m/tiny,device=cpu",
              n=2, samples=True, stamp="20260101_000000") -> Path:
    """A results file (and samples files) in the layout lmms-eval writes."""
    out = root / "m__tiny"
    out.mkdir(parents=True, exist_ok=True)
    results, configs, nsamp, versions = {}, {}, {}, {}
    for lang, accs in langs_acc.items():
        task = f"mpr_gui_synth_{lang}"
        fpr = sum(w * a for w, a in zip((1, 1, 1, 1, 1, 1, 1.5, 2), accs)) / 9.5
        results[task] = {"alias": task, "mcq_acc,none": 0.5, "mcq_acc_stderr,none": "N/A", "fpr_acc,none": fpr,
                         "format_error_rate,none": 0.25, **{f"mpr_acc_{d},none": a for d, a in zip(DIMS, accs)}}
        configs[task] = {"task": task, "metadata": {"version": "1.0", "benchmark": "mpr_gui", "lang": lang, "source": "synthetic",
                                                    "dimensions": [d.upper() for d in DIMS], "prompt_protocol": "mpr-direct-v1",
                                                    "parser_protocol": "mcq-letter-v1"}}
        nsamp[task] = {"original": n, "effective": n}
        versions[task] = "1.0"
        if samples:
            lines = [{"doc_id": i, "doc_hash": f"h{i}", "target": "A", "filtered_resps": ["B"]} for i in range(n)]
            (out / f"{stamp}_samples_{task}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    raw = {"results": results, "configs": configs, "versions": versions, "n-samples": nsamp,
           "config": {"model": "gui_hf", "model_args": model_args, "limit": limit}}
    path = out / f"{stamp}_results.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


EN = [0.812, 0.899, 0.795, 0.921, 0.82, 0.82, 0.8, 0.44]  # paper Table 2, Intern2.5VL-8B EN
ZH = [0.724, 0.855, 0.751, 0.88, 0.784, 0.678, 0.64, 0.6]  # and ZH


def test_table_rows_values_and_gap(tmp_path):
    run = load_results(write_run(tmp_path, {"zh": ZH, "en": EN}))
    table = build_table([run])
    assert [r.lang for r in table.rows] == ["en", "zh"]  # paper order, EN first
    en, zh = table.rows
    assert round(en.values["FPR-ACC"], 1) == 75.2 and round(zh.values["FPR-ACC"], 1) == 71.9  # Table 2
    assert zh.gap_to_en == pytest.approx(zh.values["FPR-ACC"] - en.values["FPR-ACC"])
    assert en.gap_to_en is None and en.format_error == 25.0


def test_rendered_text_layout(tmp_path):
    table = build_table([load_results(write_run(tmp_path, {"en": EN, "zh": ZH}))])
    lines = render_text(table).splitlines()
    assert lines[0].split() == ["Model", "Source", "Lang", "AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI", "FPR-ACC", "Gap", "to", "EN", "Format", "err."]
    assert lines[2].split() == ["tiny", "synthetic", "EN", "81.2", "89.9", "79.5", "92.1", "82.0", "82.0", "80.0", "44.0", "75.2", "25.0"]
    assert lines[3].split() == ["tiny", "synthetic", "ZH", "72.4", "85.5", "75.1", "88.0", "78.4", "67.8", "64.0", "60.0", "71.9", "-3.3", "25.0"]


def test_missing_dimension_shows_a_dash(tmp_path):
    acc = list(EN)
    acc[6] = math.nan
    table = build_table([load_results(write_run(tmp_path, {"en": acc}))])
    assert render_text(table).splitlines()[2].split()[9] == "-"


def test_report_command_writes_files_and_fails_without_results(tmp_path, capsys):
    write_run(tmp_path / "run", {"en": EN, "zh": ZH})
    assert report_main([str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0
    for name in ("table.md", "table.csv", "table.png"):
        assert (tmp_path / "rep" / name).stat().st_size > 0
    (tmp_path / "empty").mkdir()
    assert report_main([str(tmp_path / "empty")]) == 1
    assert "no MPR-GUI result" in capsys.readouterr().err


def test_submission_round_trip(tmp_path):
    write_run(tmp_path, {"en": EN, "zh": ZH})
    sub = build_submission(tmp_path)
    assert sub["model_args"] == "pretrained=/m/tiny,device=cpu"
    assert [t["task"] for t in sub["tasks"]] == ["mpr_gui_synth_en", "mpr_gui_synth_zh"]
    assert sub["tasks"][0]["metadata"]["parser_protocol"] == "mcq-letter-v1"
    assert len(sub["tasks"][0]["sample_hashes"]) == 2
    validate_submission(json.loads(json.dumps(sub)))
    tampered = json.loads(json.dumps(sub))
    tampered["tasks"][0]["sample_hashes"][0] = "0" * 64
    with pytest.raises(SubmissionError, match="does not match"):
        validate_submission(tampered)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"limit": 16}, "--limit"), ({"samples": False}, "samples file not found")],
)
def test_submission_refuses_incomplete_runs(tmp_path, kwargs, message):
    write_run(tmp_path, {"en": EN}, **kwargs)
    with pytest.raises(ValueError, match=message):
        build_submission(tmp_path)


def test_submission_refuses_mixed_models_and_bad_metrics(tmp_path):
    write_run(tmp_path / "a", {"en": EN})
    write_run(tmp_path / "a", {"zh": ZH}, model_args="pretrained=/m/other", stamp="20260101_000001")
    with pytest.raises(SubmissionError, match="several models"):
        build_submission(tmp_path / "a")
    bad = list(EN)
    bad[0] = math.nan
    write_run(tmp_path / "b", {"en": bad})
    with pytest.raises(SubmissionError, match="not finite"):
        build_submission(tmp_path / "b")


def test_submission_refuses_sample_count_mismatch_and_duplicates(tmp_path):
    path = write_run(tmp_path, {"en": EN})
    samples = path.with_name(path.name.replace("_results.json", "_samples_mpr_gui_synth_en.jsonl"))
    samples.write_text(samples.read_text() + json.dumps({"doc_id": 0, "doc_hash": "h0", "target": "A", "filtered_resps": ["B"]}) + "\n")
    with pytest.raises(SubmissionError, match="3 logged samples"):
        build_submission(tmp_path)
    raw = json.loads(path.read_text())
    raw["n-samples"]["mpr_gui_synth_en"] = {"original": 3, "effective": 3}
    path.write_text(json.dumps(raw))
    with pytest.raises(SubmissionError, match="duplicate doc ids"):
        build_submission(tmp_path)


def test_submit_command_exit_codes(tmp_path, capsys):
    write_run(tmp_path / "ok", {"en": EN})
    assert submit_main([str(tmp_path / "ok"), "--out", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["schema"] == "gui-eval-submission/1"
    write_run(tmp_path / "lim", {"en": EN}, limit=4)
    assert submit_main([str(tmp_path / "lim"), "--out", str(tmp_path / "t.json")]) == 1
    assert "refused" in capsys.readouterr().err and not (tmp_path / "t.json").exists()
