"""icon_localization_synth through the real lmms-eval CLI on the tiny grounding checkpoint: logits recorded, report drawn; the same with crop."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from gui_metrics.pss import pss_from_logits
from gui_tasks.commands.cli import find_results, lmms_eval_command

pytestmark = pytest.mark.slow
TASK = "icon_localization_synth"


def _run(model_args: str, out: Path, env: dict, limit: int = 5) -> tuple[dict, list[dict]]:
    proc = subprocess.run(lmms_eval_command(model_args, [TASK], out, limit=limit), env=env, capture_output=True, text=True,
                          timeout=900)
    log = proc.stdout + proc.stderr
    files = find_results(out)
    assert files, log[-3000:]
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"][TASK]
    samples_file = sorted(out.rglob(f"*_samples_{TASK}.jsonl"))
    assert samples_file, log[-3000:]
    samples = [json.loads(line) for line in samples_file[-1].read_text(encoding="utf-8").splitlines() if line.strip()]
    return results, samples


def _check_record(rec: dict) -> None:
    assert rec["captured"] is True
    if rec["status"] == "parsed":
        assert rec["response_type"] in {"correct", "biased", "misleading", "confusion"}
        keys = [k for k in rec["key_tokens"] if not k["merged"]]
        if keys:  # PSS is recomputed from the logged key-token logits
            assert rec["pss"] == pytest.approx(sum(pss_from_logits(k["logits"]) for k in keys) / len(keys), rel=1e-3)
    else:
        assert rec["response_type"] == "invalid"


def test_icon_localization_with_logits_and_report(tmp_path, tiny_grounding_checkpoint, subprocess_env):
    args = f"pretrained={tiny_grounding_checkpoint},device=cpu,capture_logits=digits"
    res, samples = _run(args, tmp_path / "run", subprocess_env)
    assert len(samples) == 5
    records = [s["grounding_acc"] for s in samples]
    for rec in records:
        _check_record(rec)
        assert rec["params"]["tau"] == 0.05 and rec["params"]["pss_form"] == "probs"
    parsed = [r for r in records if r["status"] == "parsed"]
    assert parsed, "the tiny grounding checkpoint should answer in the [x, y] format"
    assert res["grounding_format_error_rate,none"] == pytest.approx(1 - len(parsed) / 5)
    with_pss = [r["pss"] for r in records if r["pss"] is not None]
    assert with_pss and res["pss_mean,none"] == pytest.approx(sum(with_pss) / len(with_pss))
    assert math.isfinite(res["perplexity_mean,none"]) and res["perplexity_mean,none"] >= 1.0
    shares = sum(res[f"share_{t},none"] for t in ("correct", "biased", "misleading", "confusion"))
    assert shares == pytest.approx(len(parsed) / 5)

    # results hold numbers only (issue 44): no `score,none: []`, no SS-Pro per-group lists on the icon task
    assert not [k for k, v in res.items() if isinstance(v, (list, dict))]
    assert "score,none" not in res and "sspro_avg_dev,none" not in res
    assert all("response_side" in s and s["response_side"]["capture"]["form"] == "key-digits-v1" for s in samples)

    _submit_validate_verify(tmp_path, tiny_grounding_checkpoint, res)

    from gui_tasks.reports.summary import main as summary_main

    assert summary_main([str(tmp_path / "run")]) == 0  # every task ran: exit 0, figures with their intervals

    from gui_tasks.grounding.report import build_report

    files = build_report([tmp_path / "run"], tmp_path / "report")
    names = {f.name for f in files}
    assert {"pss_by_type.png", "response_types.png", "pss_vs_entropy.png", "report.md", "report.json"} <= names
    assert all(f.stat().st_size > 0 for f in files)
    summary = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))[0]
    assert summary["n"] == 5 and summary["accuracy"] == pytest.approx(res["grounding_acc,none"])


def _top_k_with_a_forged_floor(capture: dict) -> None:
    capture["kind"] = "top_logprobs"
    step = capture["steps"][0]
    step["missing"], step["floor"] = [0, 1], 0.0
    step["digits"][0] = step["digits"][1] = 0.0


FORGERIES = [
    (lambda c: c.update(kind="top_logprobs"), "does not produce"),  # gui_hf captures exactly
    (_top_k_with_a_forged_floor, "does not produce"),
    (lambda c: c["steps"][0].update(missing=[3], floor=-0.5), "an exact capture has no missing digits"),
    (lambda c: c.update(logprob_sum=None), "logprob_sum: null"),
    (lambda c: c["steps"][0].update(digits=[0.0] * 2_000_000), "exactly ten finite values, got 2000000"),
    (lambda c: c["steps"][0]["digits"].__setitem__(2, "0.5"), "exactly ten finite values"),  # JSON has no inf
    (lambda c: c.update(version="digits-v0"), "version"),
]


def _submit_validate_verify(tmp_path: Path, checkpoint: Path, res: dict) -> None:
    """The PSS run submits (--partial: a --limit run), validates (PSS re-derived from the logged key-digit captures) and
    verifies (re-captured digits within the stated tolerance); another checkpoint is named as differing first."""
    from gui_tasks.submit.leaderboard import build_submission, validate_submission
    from gui_tasks.submit.verify import rerun_args, run_differences, verify

    sub = build_submission(tmp_path / "run", partial=True)
    task = next(t for t in sub["tasks"] if t["task"] == TASK)
    assert task["metrics"]["pss_mean"] == pytest.approx(res["pss_mean,none"], rel=1e-12)
    assert all("side" in s for s in task["samples"]) and sub["model"]["checkpoint"]["weights"]
    validate_submission(json.loads(json.dumps(sub)))
    edited = json.loads(json.dumps(sub))  # a digit value changed and every hash re-computed: re-scoring differs
    sample = next(s for s in edited["tasks"][0]["samples"] if s["side"]["capture"]["steps"])
    sample["side"]["capture"]["steps"][0]["digits"][0] += 5.0
    from gui_tasks.submit.leaderboard import SubmissionError, sample_hash, submission_hash

    sample["sha256"] = sample_hash(sample)
    edited["submission_sha256"] = submission_hash(edited)
    with pytest.raises(SubmissionError, match="scores differ"):
        validate_submission(edited)
    for forge, said in FORGERIES:  # issue 54: each forged side channel, every hash re-computed, is refused by its form
        forged = json.loads(json.dumps(sub))
        sample = next(s for s in forged["tasks"][0]["samples"] if s["side"]["capture"]["steps"])
        forge(sample["side"]["capture"])
        sample["sha256"] = sample_hash(sample)
        forged["submission_sha256"] = submission_hash(forged)
        with pytest.raises(SubmissionError, match=said):
            validate_submission(forged)
    verdicts = verify(sub, str(checkpoint), docs=2, seed=0, device="cpu")
    assert verdicts and all(v.reproduced and v.logged_side for v in verdicts)
    assert run_differences(sub, rerun_args(sub["model"], checkpoint=str(checkpoint)), str(checkpoint)) == []
    other = tmp_path / "other"
    other.mkdir()
    for f in checkpoint.iterdir():
        if f.is_file():
            (other / f.name).write_bytes(f.read_bytes())
    weights = next(f for f in other.iterdir() if f.suffix == ".safetensors")
    weights.write_bytes(weights.read_bytes()[:-4] + b"\x00\x00\x00\x01")
    said = run_differences(sub, rerun_args(sub["model"], checkpoint=str(other)), str(other))
    assert any(d.startswith("checkpoint path") for d in said) and any("weights fingerprint" in d for d in said)


def test_icon_localization_with_crop(tmp_path, tiny_grounding_checkpoint, subprocess_env):
    args = f"pretrained={tiny_grounding_checkpoint},device=cpu,capture_logits=digits,interventions=crop,crop.alpha=0.8"
    res, samples = _run(args, tmp_path / "run", subprocess_env)
    records = [s["grounding_acc"] for s in samples]
    cropped = [r for r in records if r["crop"]["window"] is not None]
    assert cropped, "some first answers should parse and be cropped"
    for rec in records:
        _check_record(rec)
        _check_record(rec["first"])
    for rec in cropped:
        x0, y0, x1, y1 = rec["crop"]["window"]
        assert (x1 - x0, y1 - y0) == (512, 320)  # 0.8 x 640x400
        fx, fy = rec["first"]["point"]
        # the window is centred on the first prediction where the image allows it
        assert abs((x0 + x1) / 2 - min(max(fx * 640, 256), 384)) <= 1 and abs((y0 + y1) / 2 - min(max(fy * 400, 160), 240)) <= 1
        if rec["point"] is not None:
            assert x0 / 640 <= rec["point"][0] <= x1 / 640 and y0 / 400 <= rec["point"][1] <= y1 / 400
    assert res["crop_first_acc,none"] == pytest.approx(sum(r["first"]["correct"] for r in records) / len(records))
    from gui_tasks.submit.leaderboard import build_submission, validate_submission

    sub = build_submission(tmp_path / "run", partial=True)  # the crop's first prediction is re-scored from its side channel
    assert sub["tasks"][0]["metrics"]["crop_first_acc"] == pytest.approx(res["crop_first_acc,none"], rel=1e-12)
    validate_submission(sub)

    from gui_tasks.grounding.report import build_report

    build_report([tmp_path / "run"], tmp_path / "report")
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "before / after cropping (Table 7)" in md and "before crop" in md


FIX = Path(__file__).parent / "fixtures"


def _task_run(model, model_args, task, out, env, limit=None):
    proc = subprocess.run(lmms_eval_command(model_args, [task], out, limit=limit, model=model), env=env, capture_output=True,
                          text=True, timeout=900)
    files = find_results(out)
    assert files, (proc.stdout + proc.stderr)[-3000:]
    res = json.loads(files[-1].read_text(encoding="utf-8"))["results"][task]
    samples = [json.loads(line) for line in sorted(out.rglob(f"*_samples_{task}.jsonl"))[-1].read_text().splitlines() if line]
    return res, samples


def test_screenspot_v2_from_a_local_copy_with_gui_hf(tmp_path, tiny_grounding_checkpoint, subprocess_env):
    env = {**subprocess_env, "SCREENSPOT_V2_DATA_DIR": str(FIX / "screenspot_v2")}
    res, samples = _task_run("gui_hf", f"pretrained={tiny_grounding_checkpoint},device=cpu,capture_logits=digits",
                             "gui_screenspot_v2", tmp_path / "run", env)
    records = [s["grounding_acc"] for s in samples]
    assert len(records) == 6 and {r["split"] for r in records} == {f"{p}_{t}" for p in ("desktop", "mobile", "web") for t in ("icon", "text")}
    assert {r["response_type"] for r in records} <= {"correct", "biased", "other", "invalid"}
    for split in ("mobile_icon", "web_text"):
        mine = [r for r in records if r["split"] == split]
        assert res[f"grounding_acc_{split},none"] == pytest.approx(sum(r["correct"] for r in mine) / len(mine))
    assert all(r["captured"] for r in records)


def test_screenspot_scoring_works_with_a_builtin_text_only_backend(tmp_path, tiny_checkpoint, subprocess_env):
    env = {**subprocess_env, "SCREENSPOT_DATA_DIR": str(FIX / "screenspot")}
    args = f"pretrained={tiny_checkpoint},device=cpu,device_map=cpu,max_pixels=50176,min_pixels=3136"
    res, samples = _task_run("qwen2_vl", args, "gui_screenspot", tmp_path / "run", env, limit=3)
    records = [s["grounding_acc"] for s in samples]
    assert len(records) == 3 and not any(r["captured"] for r in records)  # text only: no logits, reported as such
    assert res["grounding_format_error_rate,none"] == pytest.approx(sum(r["status"] != "parsed" for r in records) / 3)
