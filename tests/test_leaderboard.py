"""Leaderboard submissions from hand-built lmms-eval runs: a passing case, every refusal, re-validation."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from test_report_fixtures import task_config, write_run

from gui_tasks.leaderboard import SCHEMA, SubmissionError, build_submission, main, sample_hash, validate_submission

# Docs cycle AU AP WF WI AEL REL RI SI: the first eight right, then AU ok, AP ok, WF wrong, WI wrong,
# AEL malformed, REL malformed, RI ok, SI malformed.
OUTCOMES = ["ok"] * 8 + ["ok", "ok", "no", "no", "bad", "bad", "ok", "bad"]


def _tasks(*langs, **extra):
    return {f"mpr_gui_synth_{lang}": {"lang": lang, "outcomes": OUTCOMES, **extra} for lang in langs}


def test_sample_hash_is_sha256_of_canonical_json():
    sample = {"doc_id": 0, "doc_hash": "h", "target": "A", "filtered_resps": "Answer: A", "resps": "ignored", "input": "x"}
    expected = hashlib.sha256(b'{"doc_hash":"h","doc_id":0,"filtered_resps":"Answer: A","target":"A"}').hexdigest()
    assert sample_hash(sample) == expected


def test_passing_submission(tmp_path):
    write_run(tmp_path, _tasks("zh", "en"))
    sub = build_submission(tmp_path)
    assert sub["schema"] == SCHEMA
    assert sub["model"] == {"backend": "qwen2_5_vl", "name": "Org/Tiny-VL-2B", "args": "pretrained=Org/Tiny-VL-2B,device=cpu"}
    assert sub["versions"]["lmms_eval"] == "0.7.3" and sub["versions"]["lmms_eval_git"] == "main@abc1234"
    en = sub["tasks"][0]
    assert [t["task"] for t in sub["tasks"]] == ["mpr_gui_synth_en", "mpr_gui_synth_zh"]
    assert (en["version"], en["prompt_protocol"], en["parser_protocol"], en["n_samples"]) == ("1.0", "mpr-direct-v1", "mcq-letter-v1", 16)
    # hand-computed from OUTCOMES: 11 of 16 right, 3 of 16 malformed; FPR-ACC (4 + 1.5*1 + 2*0.5) / 9.5
    assert en["metrics"]["mcq_acc"] == 11 / 16 and en["metrics"]["format_error_rate"] == 3 / 16
    assert en["metrics"]["fpr_acc"] == pytest.approx(6.5 / 9.5) and en["metrics"]["mpr_acc_wf"] == 0.5
    assert [s["doc_id"] for s in en["samples"]] == list(range(16))
    assert len({s["sha256"] for s in en["samples"]}) == 16
    loaded = json.loads(json.dumps(sub))
    validate_submission(loaded)
    assert main([str(tmp_path), "--out", str(tmp_path / "out" / "sub.json")]) == 0
    assert json.loads((tmp_path / "out" / "sub.json").read_text())["submission_sha256"] == sub["submission_sha256"]


def test_same_run_gives_the_same_hash_and_a_changed_response_another(tmp_path):
    first = build_submission(write_run(tmp_path / "a", _tasks("en")).parent)
    again = build_submission(write_run(tmp_path / "b", _tasks("en")).parent)
    assert first["submission_sha256"] == again["submission_sha256"]
    path = write_run(tmp_path / "c", _tasks("en"))
    samples = path.with_name(path.name.replace("_results.json", "_samples_mpr_gui_synth_en.jsonl"))
    samples.write_text(samples.read_text().replace("Answer: A", "Answer:  A", 1))
    assert build_submission(path.parent)["submission_sha256"] != first["submission_sha256"]


@pytest.mark.parametrize(
    "tamper, message",
    [
        (lambda s: s["tasks"][0]["samples"][0].update(sha256="0" * 64), "does not match"),
        (lambda s: s["tasks"][0]["samples"].pop(), "15 sample hashes for 16 samples"),
        (lambda s: s["tasks"][0]["metrics"].update(mcq_acc=math.nan), "not finite"),
        (lambda s: s["tasks"][0].pop("parser_protocol"), "lacks 'parser_protocol'"),
        (lambda s: s.update(schema="other/9"), "unknown submission schema"),
        (lambda s: s["tasks"].append(s["tasks"][0]), "lists a task twice"),
    ],
)
def test_validate_rejects_edited_submissions(tmp_path, tamper, message):
    write_run(tmp_path, _tasks("en"))
    sub = json.loads(json.dumps(build_submission(tmp_path)))
    tamper(sub)
    with pytest.raises(SubmissionError, match=message):
        validate_submission(sub)


def _refused(tmp_path, message):
    with pytest.raises(SubmissionError, match=message):
        build_submission(tmp_path)
    assert main([str(tmp_path), "--out", str(tmp_path / "s.json")]) == 1 and not (tmp_path / "s.json").exists()


def test_refuses_missing_samples_file(tmp_path):
    write_run(tmp_path, {**_tasks("en"), **_tasks("zh", samples=False)})
    _refused(tmp_path, r"task mpr_gui_synth_zh: .*samples file not found \(was lmms-eval run with --log_samples\?\)")


def test_refuses_limit_in_config(tmp_path):
    write_run(tmp_path, _tasks("en"), limit=4)
    _refused(tmp_path, "run with --limit 4")


def test_refuses_fewer_effective_documents(tmp_path):
    write_run(tmp_path, _tasks("en", original=64))  # n-samples 16 of 64 although config has no limit
    _refused(tmp_path, "ran on 16 of 64 documents")


def test_refuses_mixed_models_and_model_args(tmp_path):
    write_run(tmp_path, _tasks("en"))
    write_run(tmp_path, _tasks("zh"), model_args="pretrained=Org/Tiny-VL-2B,device=cuda", stamp="20260101_000001")
    _refused(tmp_path, "several models or model args")


def test_refuses_missing_metric(tmp_path):
    metrics = {"mcq_acc": 0.5, "fpr_acc": 0.5, "format_error_rate": 0.0}  # no per-dimension accuracies
    write_run(tmp_path, {"mpr_gui_synth_en": {"lang": "en", "outcomes": OUTCOMES, "metrics": metrics}})
    _refused(tmp_path, r"metric\(s\) missing from the results: \['mpr_acc_au'")


def test_refuses_non_finite_metric(tmp_path):
    write_run(tmp_path, _tasks("en", outcomes=OUTCOMES[:6]))  # six docs: no RI and SI samples, so NaN
    _refused(tmp_path, r"not finite: \['mpr_acc_ri', 'mpr_acc_si'\]")


def test_refuses_sample_count_mismatch(tmp_path):
    path = write_run(tmp_path, _tasks("en"))
    samples = path.with_name(path.name.replace("_results.json", "_samples_mpr_gui_synth_en.jsonl"))
    samples.write_text("".join(samples.read_text().splitlines(keepends=True)[:-1]))
    _refused(tmp_path, "15 logged samples but n-samples says 16")


def test_refuses_duplicate_doc_ids(tmp_path):
    path = write_run(tmp_path, _tasks("en"))
    samples = path.with_name(path.name.replace("_results.json", "_samples_mpr_gui_synth_en.jsonl"))
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[:-1]) + lines[-1].replace('"doc_id": 15', '"doc_id": 3'))
    _refused(tmp_path, r"duplicate doc ids in the samples file: \[3\]")


@pytest.mark.parametrize("missing", ["prompt_protocol", "parser_protocol"])
def test_refuses_missing_protocol_metadata(tmp_path, missing):
    config = task_config("mpr_gui_synth_en", "en", **{"protocol" if missing == "prompt_protocol" else "parser": None})
    write_run(tmp_path, {"mpr_gui_synth_en": {"lang": "en", "outcomes": OUTCOMES, "config": config}})
    _refused(tmp_path, rf"task metadata lacks \['{missing}'\]")


def test_refuses_metrics_the_samples_do_not_reproduce(tmp_path):
    path = write_run(tmp_path, _tasks("en"))
    raw = json.loads(path.read_text())
    raw["results"]["mpr_gui_synth_en"]["mcq_acc,none"] = 0.75  # edited by hand; samples say 11/16
    path.write_text(json.dumps(raw))
    _refused(tmp_path, "mcq_acc is 0.75 in the results but 0.6875 from the logged samples")


def test_refuses_unreadable_and_empty_runs(tmp_path):
    (tmp_path / "empty").mkdir()
    _refused(tmp_path / "empty", "no lmms-eval \\*_results.json file found")
    path = write_run(tmp_path / "bad", _tasks("en"))
    samples = path.with_name(path.name.replace("_results.json", "_samples_mpr_gui_synth_en.jsonl"))
    samples.write_text(samples.read_text() + "{oops\n")
    _refused(tmp_path / "bad", r"row 16, field -: line 17: invalid JSON")
