"""``gui-eval view`` on a huge run (issue 54 item 5): progress lines on stderr as samples are read, and at most
``--max-samples`` samples per task read and paged, the cut named with the bound and how to change it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from gui_tasks.runs.input_files import count_lines, read_jsonl
from gui_tasks.viewer.progress import Progress
from gui_tasks.viewer.site import main


def _run(root: Path, task: str, n: int) -> Path:
    """A results file and a samples file of ``n`` samples as lmms-eval writes them under ``root/model``."""
    d = root / "model"
    d.mkdir(parents=True)
    with (d / f"2026-01-01T00-00-00_samples_{task}.jsonl").open("w") as fh:
        for i in range(n):
            rec = {"status": "parsed", "pred": "A", "correct": i % 2 == 0}
            fh.write(json.dumps({"doc_id": i, "doc": {}, "target": "A", "arguments": [f"q{i}"], "resps": [["A"]],
                                 "filtered_resps": ["A"], "input": f"q{i}", "acc": rec}) + "\n")
    res = {"results": {task: {"alias": task, "acc,none": 0.5}}, "configs": {task: {"metadata": {"benchmark": "acme"}}},
           "versions": {task: 1}, "n-samples": {task: {"original": n, "effective": n}},
           "config": {"model": "gui_hf", "model_args": "pretrained=tiny"}}
    (d / "2026-01-01T00-00-00_results.json").write_text(json.dumps(res))
    return root


def test_a_run_over_the_bound_is_cut_down_and_says_so(tmp_path, capsys):
    run = _run(tmp_path / "run", "acme_task", 25)
    assert main([str(run), "--out", str(tmp_path / "site"), "--no-docs", "--max-samples", "10"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("gui-eval view: reading 1 run(s) ...\n")
    note = ("2026-01-01T00-00-00_results.json acme_task: showing the first 10 of 25 samples (the viewer's bound of 10 "
            "per task; --max-samples N changes it, --max-samples 0 shows all)")
    assert f"gui-eval view: {note}\n" in captured.err and f"note: {note}\n" in captured.err
    assert "wrote 10 sample page(s)" in captured.out
    assert main([str(run), "--out", str(tmp_path / "all"), "--no-docs", "--max-samples", "0"]) == 0
    captured = capsys.readouterr()
    assert "wrote 25 sample page(s)" in captured.out and "showing the first" not in captured.err


def test_a_run_within_the_bound_is_not_cut(tmp_path, capsys):
    run = _run(tmp_path / "run", "acme_task", 10)
    assert main([str(run), "--out", str(tmp_path / "site"), "--no-docs", "--max-samples", "10"]) == 0
    captured = capsys.readouterr()
    assert "wrote 10 sample page(s)" in captured.out and "showing the first" not in captured.err


def test_reading_reports_progress_and_stops_at_the_limit(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"i": i}) + "\n" for i in range(25_000)) + "not json\n")
    seen: list[int] = []
    rows = read_jsonl(path, limit=20_000, progress=seen.append)  # the bad line past the limit is never read
    assert len(rows) == 20_000 and rows[-1] == {"i": 19_999} and seen == [10_000, 20_000]
    assert count_lines(path) == 25_001
    path.write_text('{"i": 1}\n{"i": 2}')  # no final newline
    assert count_lines(path) == 2


def test_progress_lines_are_spaced_unless_forced():
    out = io.StringIO()
    say = Progress(out, every=3600)
    say("one")
    say("two")
    say("three", force=True)
    assert out.getvalue() == "gui-eval view: one\ngui-eval view: three\n"
