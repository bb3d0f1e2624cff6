"""Issue 51's end-to-end check: lmms-eval runs ``gui_openai`` against a local server that reasons before it answers
(tests/fake_openai.py) on ``mpr_gui_synth_en``. With ``thinking=on`` every request asks the template for thinking,
carries a budget of at least 1,024 tokens and no blank-line stop; the scored answer is the one after the reasoning
(the reasoning names another option) and each sample records the reasoning's length; ``thinking=off`` asks for none;
a reasoning cut by its budget is ``thinking_truncated`` on every sample."""

from __future__ import annotations

import sys

import pytest

from fake_openai import FakeServer
from lmms_helpers import results, run, samples

TASK = "mpr_gui_synth_en"
LIMIT = 4
REASONING = ("Option A looks right at first but the screenshot shows otherwise because the toggle in the top bar is "
             "off and the label next to it reads the other way round so")


def _run(tmp_path, env, name: str, thinking_args: str, correct: str) -> tuple[dict, list[dict], list[dict]]:
    server = FakeServer(["ok"], text=correct)
    server.reasoning = REASONING
    out = tmp_path / name
    args = f"base_url={server.base_url},model=m,response_cache=none,concurrency=2,{thinking_args}"
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "gui_openai", "--model_args", args, "--tasks", TASK,
           "--limit", str(LIMIT), "--output_path", str(out), "--log_samples", "--verbosity", "WARNING"]
    try:
        proc, log = run(cmd, env)
    finally:
        server.stop()
    assert "Traceback" not in log, log[-3000:]
    return results(out), samples(out, TASK), server.bodies


@pytest.mark.slow
def test_thinking_on_off_and_truncated_through_lmms_eval(tmp_path, subprocess_env):

    res, logged, bodies = _run(tmp_path, subprocess_env, "on", "thinking=on", "B")
    assert len(bodies) == LIMIT
    for body in bodies:
        assert body["chat_template_kwargs"] == {"enable_thinking": True}
        assert body["max_tokens"] >= 1024 and "stop" not in body
    for s in logged:
        assert REASONING.split()[0] in str(s["resps"])  # the reasoning is kept in the samples
        assert s["reasoning"]["tokens"] == len(REASONING.split()) + 2 and s["thinking_truncated"] == 0
    task = res["results"][TASK]
    assert task["thinking_truncated,none"] == 0 and task["reasoning_tokens,none"] == len(REASONING.split()) + 2
    truth = [s["target"] for s in logged]
    assert task["format_error_rate,none"] == 0  # the answer after the reasoning ("B") was read, never "A" in it
    assert task["mcq_acc,none"] == pytest.approx(sum(t == "B" for t in truth) / LIMIT)

    _res, logged, bodies = _run(tmp_path, subprocess_env, "off", "thinking=off", "B")
    assert all(b["chat_template_kwargs"] == {"enable_thinking": False} and b["max_tokens"] < 1024 for b in bodies)
    assert all(s["reasoning"]["tokens"] == 0 and "<think>" not in str(s.get("resps", s["filtered_resps"])) for s in logged)

    from gui_tasks.reports.compare import compare_runs  # thinking on vs off, paired by document

    rows = [r for r in compare_runs(tmp_path / "on", tmp_path / "off", resamples=200, permutations=200).rows
            if r.task == TASK and r.metric == "mcq_acc" and r.slice == "all"]
    assert len(rows) == 1 and rows[0].n == LIMIT and rows[0].diff == 0

    res, logged, _bodies = _run(tmp_path, subprocess_env, "cut", "thinking=on,think_budget=1", "B")
    assert [s["thinking_truncated"] for s in logged] == [1] * LIMIT
    task = res["results"][TASK]
    assert task["thinking_truncated,none"] == 1 and task["format_error_rate,none"] == 1 and task["mcq_acc,none"] == 0
