"""Long runs that survive (issue 53), through the real lmms-eval CLI on the tiny grounding checkpoint with
``capture_logits=digits``: a run of --limit 8 after one of --limit 4 reuses the 4 answers and says so, a journal of
other settings is refused by name (and ``submit`` refuses a capture run whose PSS is missing), a killed run resumes,
``--use_cache`` twice gives the same PSS figures (the journal in the cache folder carries the captures) or stops
naming PSS."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from gui_tasks.commands.cli import find_results, lmms_eval_command

pytestmark = pytest.mark.slow
TASK = "icon_localization_synth"
FIGURES = ("grounding_acc,none", "pss_mean,none", "perplexity_mean,none", "token_entropy_mean,none",
           "pss_no_capture_rate,none")


def _args(ckpt: Path, extra: str = "") -> str:
    return f"pretrained={ckpt},device=cpu,capture_logits=digits" + (f",{extra}" if extra else "")


def _run(args: str, out: Path, env: dict, limit: int, extra: tuple = ()) -> tuple[dict | None, list[dict], str]:
    proc = subprocess.run(lmms_eval_command(args, [TASK], out, limit=limit, extra=extra), env=env, capture_output=True,
                          text=True, timeout=900)
    log = proc.stdout + proc.stderr
    files = find_results(out)
    if not files:
        return None, [], log
    res = json.loads(files[-1].read_text(encoding="utf-8"))["results"][TASK]
    sample_files = sorted(out.rglob(f"*_samples_{TASK}.jsonl"))
    samples = [json.loads(x) for x in sample_files[-1].read_text(encoding="utf-8").splitlines() if x.strip()]
    return res, samples, log


def _answers(samples: list[dict]) -> dict[int, tuple]:
    return {s["doc_id"]: (s["filtered_resps"], s.get("response_side")) for s in samples}


def test_limit_8_after_limit_4_reuses_the_4_and_other_settings_are_refused(tmp_path, tiny_grounding_checkpoint,
                                                                           subprocess_env):
    out = tmp_path / "run"
    res4, s4, log4 = _run(_args(tiny_grounding_checkpoint), out, subprocess_env, 4)
    assert res4 is not None, log4[-3000:]
    assert "resumed:" not in log4
    journal = out / "gui_hf-journal" / "rank0.jsonl"
    assert len(journal.read_text().splitlines()) == 1 + 4

    res8, s8, log8 = _run(_args(tiny_grounding_checkpoint), out, subprocess_env, 8)
    assert res8 is not None, log8[-3000:]
    assert f"gui_hf: resumed: 4 of 8 answers from {out / 'gui_hf-journal'}" in log8
    assert len(journal.read_text().splitlines()) == 1 + 8  # only the 4 missing answers were generated
    first, second = _answers(s4), _answers(s8)
    assert {d: second[d] for d in first} == first  # the reused answers carry their captures, as logged the first time
    assert all(side and side.get("capture") for _resp, side in second.values())
    assert res8["pss_no_capture_rate,none"] == res4["pss_no_capture_rate,none"] == 0.0

    _, _s, log_other = _run(_args(tiny_grounding_checkpoint, "max_new_tokens=9"), out, subprocess_env, 8)
    assert "resumed:" not in log_other
    assert "was written with other settings: max_new_tokens (journal 128, now 9)" in log_other, log_other[-3000:]
    assert len(journal.read_text().splitlines()) == 1 + 8  # nothing mixed in

    _submit_refuses_missing_pss(tmp_path)


def test_a_killed_run_resumes(tmp_path, tiny_grounding_checkpoint, subprocess_env):
    out = tmp_path / "run"
    cmd = lmms_eval_command(_args(tiny_grounding_checkpoint), [TASK], out, limit=8)
    journal = out / "gui_hf-journal" / "rank0.jsonl"
    proc = subprocess.Popen(cmd, env=subprocess_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.is_file() and len(journal.read_text().splitlines()) >= 1 + 2:
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the run finished before it could be killed"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert not find_results(out)
    kept = len([x for x in journal.read_text().splitlines()[1:] if x.strip()])
    assert 2 <= kept < 8
    res, samples, log = _run(_args(tiny_grounding_checkpoint), out, subprocess_env, 8)
    assert res is not None, log[-3000:]
    line = next(x for x in log.splitlines() if "gui_hf: resumed:" in x)
    reused = int(line.split("resumed: ")[1].split(" of ")[0])
    assert reused >= 2 and " of 8 answers" in line
    assert len(samples) == 8 and all(s.get("response_side", {}).get("capture") for s in samples)


def test_use_cache_twice_gives_the_same_pss_figures_or_stops_naming_pss(tmp_path, tiny_grounding_checkpoint,
                                                                          subprocess_env):
    cache = tmp_path / "cache"
    args = _args(tiny_grounding_checkpoint)
    # lmms-eval keys its cache by `git describe` of the repository it is installed in (this checkout, when the venv
    # lives in it), which other work may move between the runs: pinned through its fallback, LMMS_EVAL_GIT_COMMIT
    subprocess_env = {**subprocess_env, "GIT_DIR": str(tmp_path / "no-git"), "LMMS_EVAL_GIT_COMMIT": "pinned"}
    res1, s1, log1 = _run(args, tmp_path / "one", subprocess_env, 4, ("--use_cache", str(cache)))
    assert res1 is not None, log1[-3000:]
    res2, s2, log2 = _run(args, tmp_path / "two", subprocess_env, 4, ("--use_cache", str(cache)))
    assert res2 is not None, log2[-3000:]
    import sqlite3

    with sqlite3.connect(cache / "cache.db") as db:  # lmms-eval's cache holds the 4 answers, as text
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 4
    assert "gui_hf: resumed:" not in log2  # gui_hf was never asked: lmms-eval's cache answered every request
    for key in FIGURES:
        assert res2[key] == pytest.approx(res1[key], rel=1e-9, abs=1e-12), key
    assert _answers(s2) == _answers(s1)

    # the journal that completes the cache is gone: the replayed answers cannot carry their capture, the run stops
    import shutil

    shutil.rmtree(cache / "gui-eval-journal")
    res3, _s3, log3 = _run(args, tmp_path / "three", subprocess_env, 4, ("--use_cache", str(cache)))
    assert res3 is None
    assert "PSS (pss_mean and every pss_* figure) and perplexity_mean would be lost" in log3, log3[-3000:]


def _submit_refuses_missing_pss(tmp_path: Path) -> None:
    """``submit`` accepts the --limit 4 capture run (partial) and refuses it once some answers lost their capture."""
    import shutil

    from gui_tasks.submit.leaderboard import SubmissionError, build_submission

    run = tmp_path / "submit"
    first = find_results(tmp_path / "run")[0]  # the --limit 4 run: its results and samples files
    (run / first.parent.name).mkdir(parents=True)
    stamp = first.name[: -len("results.json")]
    for f in first.parent.glob(stamp + "*"):
        shutil.copy2(f, run / first.parent.name / f.name)
    build_submission(run, partial=True)  # captures logged: accepted
    sample_file = sorted(run.rglob(f"*_samples_{TASK}.jsonl"))[-1]
    rows = [json.loads(x) for x in sample_file.read_text(encoding="utf-8").splitlines() if x.strip()]
    for row in rows[:3]:  # as lmms-eval's --use_cache replays them: text without the capture
        row.pop("response_side")
    sample_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"3 of 4 answers of this capture_logits=digits run carry no digit "
                                               r"capture .*pss_mean"):
        build_submission(run, partial=True)
