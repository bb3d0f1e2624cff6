"""``gui-eval compare`` on samples files written directly (no model): a real difference is found, none is invented."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from gui_metrics.lmms_bridge import sample_values
from gui_tasks.commands.cli import main as cli_main
from gui_tasks.reports.compare import compare_runs

LETTERS = "ABCD"
N = 400
TASK = "mpr_gui_synth_en"
DIMS = ("AU", "AP", "WF", "WI", "AEL", "REL", "RI", "SI")


def _docs() -> list[dict]:
    rng = random.Random(7)
    return [{"id": f"synth-{i:04d}", "lang": "en", "dimension": DIMS[i % 8], "answer": rng.choice(LETTERS),
             "images": [f"/shots/{i // 4}.png"]} for i in range(N)]  # four questions per screenshot


def _samples(docs: list[dict], answers: list[str]) -> list[dict]:
    """Samples lines as lmms-eval logs them for an MPR-GUI task of ours (per-metric values from sample_values)."""
    out = []
    for i, (doc, pred) in enumerate(zip(docs, answers)):
        rec = {"id": doc["id"], "lang": doc["lang"], "dimension": doc["dimension"], "answer": doc["answer"], "pred": pred,
               "status": "parsed", "rule": "bare", "correct": pred == doc["answer"]}
        values = sample_values(("mcq", "mpr"), rec)
        for v in values.values():
            v["screenshot"] = doc["images"][0]
        values["score"] = values["mcq_acc"]["score"]  # the task's first metric with a score (RowsTask adds it)
        out.append({"doc_id": i, "doc": doc, "target": doc["answer"], "resps": [[pred]], "filtered_resps": [pred], **values})
    return out


def _write(path: Path, samples: list[dict]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    f = path / f"20260101_000000_samples_{TASK}.jsonl"
    f.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    return f


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run A answers right 60% of the time; run B is A with 20% of its answers changed to another letter."""
    root = tmp_path_factory.mktemp("compare")
    docs = _docs()
    rng = random.Random(11)
    a = [d["answer"] if rng.random() < 0.6 else rng.choice([x for x in LETTERS if x != d["answer"]]) for d in docs]
    flipped = set(rng.sample(range(N), N // 5))
    b = [rng.choice([x for x in LETTERS if x != a[i]]) if i in flipped else a[i] for i in range(N)]
    return {"a": _write(root / "a", _samples(docs, a)), "b": _write(root / "b", _samples(docs, b)),
            "a_again": _write(root / "a_again", _samples(docs, a)), "a_answers": a, "b_answers": b, "docs": docs}


def test_twenty_percent_flipped_answers_are_a_significant_difference(runs):
    c = compare_runs(runs["a"], runs["b"], permutations=2000)
    row = next(r for r in c.rows if r.metric == "mcq_acc" and r.slice == "all")
    docs, a, b = runs["docs"], runs["a_answers"], runs["b_answers"]
    ok_a = [x == d["answer"] for x, d in zip(a, docs)]
    ok_b = [x == d["answer"] for x, d in zip(b, docs)]
    a_only = sum(x and not y for x, y in zip(ok_a, ok_b))
    b_only = sum(y and not x for x, y in zip(ok_a, ok_b))
    assert row.n == N and (row.a_only, row.b_only) == (a_only, b_only) and row.test == "mcnemar_exact"
    assert row.diff == pytest.approx((a_only - b_only) / N)
    assert row.low < row.diff < row.high and row.low > 0  # A is better, and the interval says so
    assert row.p_value < 0.05 and row.p_adjusted < 0.05 and row.significant
    assert c.correction == "holm"
    # the composite FPR-ACC is compared too, by permutation of whole screenshots
    fpr = next(r for r in c.rows if r.metric == "fpr_acc" and r.slice == "all")
    assert fpr.test == "paired_permutation" and fpr.diff > 0 and fpr.p_value < 0.05
    # per dimension: each slice of the headline metric is a test of its own
    assert {r.slice for r in c.rows if r.metric == "mcq_acc"} >= {"all"} | {f"dimension={d}" for d in DIMS}


def test_mcnemar_of_the_comparison_matches_the_exact_binomial_by_hand(runs):
    from scipy.stats import binom

    c = compare_runs(runs["a"], runs["b"], permutations=200)
    row = next(r for r in c.rows if r.metric == "mcq_acc" and r.slice == "all")
    k, n = min(row.a_only, row.b_only), row.a_only + row.b_only
    assert row.p_value == pytest.approx(min(1.0, 2 * binom.cdf(k, n, 0.5)), rel=1e-12)


def test_two_identical_runs_differ_nowhere(runs):
    c = compare_runs(runs["a"], runs["a_again"], permutations=500)
    assert c.rows and not any(r.significant for r in c.rows)
    assert all(r.diff == 0 and r.p_value == 1.0 for r in c.rows)
    assert all((r.low, r.high) == (0.0, 0.0) for r in c.rows)


def test_compare_command_prints_the_table_and_names_the_correction(runs, tmp_path, capsys):
    out = tmp_path / "cmp.json"
    assert cli_main(["compare", str(runs["a"]), str(runs["b"]), "--permutations", "500", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "p (holm)" in text and "mcnemar_exact" in text and "95% CI" in text
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["correction"] == "holm" and data["interval"].startswith("95%")
    top = next(r for r in data["rows"] if r["metric"] == "mcq_acc" and r["slice"] == "all")
    assert top["significant"] is True and math.isfinite(top["p_value"])


def test_compare_reports_runs_without_a_common_task(runs, tmp_path, capsys):
    other = tmp_path / "o"
    other.mkdir()
    (other / "20260101_000000_samples_other_task.jsonl").write_text(
        (runs["a"]).read_text(encoding="utf-8"), encoding="utf-8")
    assert cli_main(["compare", str(runs["a"]), str(other)]) == 2
    assert "share no task" in capsys.readouterr().err


def _results_run(root: Path, samples: list[dict], version: str, reading: str | None) -> Path:
    """A results file (lmms-eval's layout) recording the task's version and metadata, its samples beside it."""
    root.mkdir(parents=True, exist_ok=True)
    meta = {"version": version, **({"reading": reading} if reading else {})}
    (root / "20260101_000000_results.json").write_text(json.dumps({
        "results": {TASK: {"mcq_acc,none": 0.5}}, "configs": {TASK: {"task": TASK, "metadata": meta}},
        "versions": {TASK: version}}), encoding="utf-8")
    (root / f"20260101_000000_samples_{TASK}.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples),
                                                                encoding="utf-8")
    return root


def test_runs_of_another_task_version_or_reading_are_refused_unless_allowed(runs, tmp_path, capsys):
    samples = _samples(runs["docs"], runs["a_answers"])
    old = _results_run(tmp_path / "old", samples, "1.2", None)
    new = _results_run(tmp_path / "new", samples, "1.3", "official")
    other = _results_run(tmp_path / "other", samples, "1.3", "lmms_eval")
    assert cli_main(["compare", str(old), str(new)]) == 2
    assert f"{TASK}: version 1.2 vs 1.3" in capsys.readouterr().err
    assert cli_main(["compare", str(new), str(other)]) == 2
    assert f"{TASK}: reading official vs lmms_eval" in capsys.readouterr().err
    c = compare_runs(old, new, permutations=50, allow_version_mismatch=True)
    assert any(r.metric == "mcq_acc" for r in c.rows)
    assert compare_runs(new, _results_run(tmp_path / "same", samples, "1.3", "official"), permutations=50).rows
