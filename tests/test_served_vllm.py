"""gui_openai and lmms-eval's own vllm backend against a real vLLM (the registry's CPU build, scripts/setup_vllm.sh).

One server for the whole session (about 60 s to ready), on 127.0.0.1, stopped by its process id:
it serves a tiny Qwen2-VL with head_dim 32 (vLLM's CPU attention has no head_dim 16) taught the
grounding answer format, so PSS has key tokens to read. Few documents per task keep CI lean.

Tolerance: vLLM's CPU kernels and HF's eager attention round differently; on this checkpoint the
digit log-probabilities agree within 2e-5 (docs/ENGINES.md: 1.1e-5), so floats are compared within
DIGIT_TOL and PSS within PSS_TOL; texts, points and decisions exactly.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gui_models.local_server import REPO, start_vllm, vllm_python
from lmms_helpers import results, run, samples

pytestmark = pytest.mark.slow

DIGIT_TOL = 1e-4  # digit log-probabilities / probabilities
PSS_TOL = 1e-3
FIVE = ["mpr_gui_synth_en", "icon_localization_synth", "star_state_control_synth", "gui_knowledge_synth_en_state",
        "sphinx_sim_toggle"]
LMMS = str(Path(sys.executable).with_name("lmms-eval"))


@pytest.fixture(scope="session")
def served_checkpoint(checkpoint_root) -> Path:
    from gui_models.tiny_grounding import build_tiny_grounding_model
    from tiny_archs import built_once

    return built_once(checkpoint_root / "tiny-qwen2-vl-grounding-hd32", "gui_eval_tiny_grounding.json",
                      lambda tmp: build_tiny_grounding_model(tmp, steps=120, seed=0, head_dim=32))


@pytest.fixture(scope="session")
def vllm_server(served_checkpoint, session_cache):
    if vllm_python() is None:
        pytest.skip("the vLLM virtualenv is not built (bash scripts/setup_vllm.sh; GUI_EVAL_SKIP_VLLM=1 was set?)")
    server = start_vllm(served_checkpoint, session_cache / "vllm-server.log")
    try:
        yield server
    finally:
        server.stop()


def _args(server, **extra) -> str:
    args = {"base_url": server.base_url, "model": server.model, "response_cache": "none", **extra}
    return ",".join(f"{k}={v}" for k, v in args.items())


def _lmms(model: str, model_args: str, tasks: list[str], out: Path, env: dict, limit: int = 2) -> str:
    proc, log = run([LMMS, "--model", model, "--model_args", model_args, "--tasks", ",".join(tasks), "--limit", str(limit),
                     "--output_path", str(out), "--log_samples"], env)
    assert proc.returncode == 0, log[-3000:]
    return log


def test_every_family_runs_end_to_end_through_gui_openai(vllm_server, subprocess_env, tmp_path):
    log = _lmms("gui_openai", _args(vllm_server), FIVE, tmp_path, subprocess_env)
    got = results(tmp_path)["results"]
    assert sorted(got) == sorted(FIVE), log[-3000:]
    mpr = samples(tmp_path, "mpr_gui_synth_en")
    assert mpr and all(s["token_counts"][0]["output_tokens"] <= 16 for s in mpr)  # the task's own budget (16)
    assert all(s["token_counts"][0]["input_tokens"] > 0 for s in mpr)
    sphinx = samples(tmp_path, "sphinx_sim_toggle")
    assert len(sphinx) == 2 and all(s["filtered_resps"] and "satisfied" in s["sphinx_sr"] for s in sphinx)  # rounds ran


def _grounding_records(out: Path) -> list[dict]:
    return [s["grounding_acc"] for s in sorted(samples(out, "icon_localization_synth"), key=lambda s: s["doc_id"])]


def _probs(values: list[float]) -> list[float]:
    top = max(values)
    e = [math.exp(v - top) for v in values]
    return [x / sum(e) for x in e]


def test_digit_capture_equals_gui_hf_on_the_same_checkpoint(vllm_server, served_checkpoint, subprocess_env, tmp_path):
    served, hf = tmp_path / "served", tmp_path / "hf"
    # 8 boards: the checkpoint taught on every task's instructions (issue 53) answers a well-formed point on fewer of
    # the icon boards than the one taught on icon names alone, and the comparison wants at least four key digits
    _lmms("gui_openai", _args(vllm_server, capture_logits="digits"), ["icon_localization_synth"], served, subprocess_env, 8)
    _lmms("gui_hf", f"pretrained={served_checkpoint},capture_logits=digits", ["icon_localization_synth"], hf, subprocess_env, 8)
    a, b = _grounding_records(served), _grounding_records(hf)
    assert len(a) == len(b) == 8
    keys = 0
    for x, y in zip(a, b):
        assert (x["status"], x["point"], x["correct"], x["response_type"]) == (y["status"], y["point"], y["correct"], y["response_type"])
        assert x["capture_kind"] == y["capture_kind"] == "exact"
        assert (x.get("frame_source"), x.get("model_size")) == (y.get("frame_source"), y.get("model_size"))
        assert x["served_frame"]["source"] == "smart_resize:served_processor"
        assert (x["pss"] is None) == (y["pss"] is None)
        if x["pss"] is not None:
            assert x["pss"] == pytest.approx(y["pss"], abs=PSS_TOL)
        for kx, ky in zip(x["key_tokens"], y["key_tokens"]):
            keys += 1
            # HF records raw logits, the server log-probabilities: equal up to the step's constant
            assert _probs(kx["logits"]) == pytest.approx(_probs(ky["logits"]), abs=DIGIT_TOL)
    assert keys >= 4, "the taught checkpoint should answer [x, y] with key digits"
    assert all(r["pss"] is not None for r in a if r["status"] == "parsed")


def _requests(n: int):
    from PIL import Image

    from gui_interventions import RequestContext

    reqs = []
    for i in range(n):
        im = Image.new("RGB", (160 + 8 * i, 100), ((37 * i) % 256, (90 + 11 * i) % 256, (200 - 13 * i) % 256))
        text = ("According to the image I provide, identify the relative coordinates of the specified object, with values "
                f"ranging from 0 to 1. The output format must be [x, y], and do not output anything else.\nthe icon {i}")
        reqs.append(RequestContext(text=text, images=(im,), doc_id=i, task="t", gen_kwargs={"max_new_tokens": 16}, doc=None,
                                   metadata={}))
    return reqs


def test_one_and_sixteen_requests_in_flight_give_the_same_results(vllm_server):
    from gui_models.openai_backend import GuiOpenAI

    reqs = _requests(16)
    out = {}
    for n in (1, 16):
        oa = GuiOpenAI(base_url=vllm_server.base_url, model=vllm_server.model, concurrency=n, capture_logits="digits",
                       response_cache="none")
        futures = [oa._loop.submit(oa._generate(r)) for r in reqs]
        out[n] = [f.result() for f in futures]
    for a, b in zip(out[1], out[16]):
        assert a.text == b.text and a.image_sizes == b.image_sizes
        assert [s.token_id for s in a.capture.steps] == [s.token_id for s in b.capture.steps]
        for sa, sb in zip(a.capture.steps, b.capture.steps):
            assert sa.digits == pytest.approx(sb.digits, abs=DIGIT_TOL)


RESUME = """
import sys
from gui_models.openai_backend import GuiOpenAI
sys.path.insert(0, {tests!r})
from test_served_vllm import _requests
oa = GuiOpenAI(base_url={url!r}, model={model!r}, concurrency=1, response_cache={cache!r})
for r in _requests({n}):
    oa._generate_sync(r)
    print("done", r.doc_id, flush=True)
"""


def test_a_killed_run_resumes_asking_the_server_only_for_missing_requests(vllm_server, subprocess_env, tmp_path):
    n = 40
    cache = tmp_path / "responses"
    script = RESUME.format(tests=str(Path(__file__).parent), url=vllm_server.base_url, model=vllm_server.model,
                           cache=str(cache), n=n)
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(REPO), subprocess_env.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        for line in proc.stdout:  # bounded: the script prints one line per request and ends
            seen.append(line)
            if line.startswith("done 5"):
                break
        assert any(x.startswith("done 5") for x in seen), "".join(seen)[-2000:]
    finally:
        proc.kill()  # half-way: killed by its id
        proc.wait(timeout=30)
    time.sleep(2)  # a request in flight at the kill finishes on the server before counting starts
    cached = len(list(cache.rglob("*.json")))
    assert 0 < cached < n
    before = vllm_server.metric("vllm:request_success_total")
    from gui_models.openai_backend import GuiOpenAI

    oa = GuiOpenAI(base_url=vllm_server.base_url, model=vllm_server.model, concurrency=4, response_cache=str(cache))
    futures = [oa._loop.submit(oa._generate(r)) for r in _requests(n)]
    texts = [f.result().text for f in futures]
    asked = vllm_server.metric("vllm:request_success_total") - before
    assert asked == n - cached and oa.requests_sent == n - cached and oa.cache_hits == cached
    fresh = GuiOpenAI(base_url=vllm_server.base_url, model=vllm_server.model, response_cache="none")
    assert texts == [fresh._generate_sync(r).text for r in _requests(n)]  # the cache answers what the server would


def test_lmms_eval_in_process_vllm_backend_runs_one_task_per_family(served_checkpoint, subprocess_env, tmp_path):
    """lmms-eval's own `vllm` backend (vllm.LLM in the process), through gui_wrap so each task's budget wins."""
    python = vllm_python()
    if python is None:
        pytest.skip("the vLLM virtualenv is not built (bash scripts/setup_vllm.sh)")
    env = {**subprocess_env, "VLLM_CPU_KVCACHE_SPACE": "2", "VLLM_NO_USAGE_STATS": "1",
           "PYTHONPATH": os.pathsep.join([str(REPO), subprocess_env.get("PYTHONPATH", "")])}
    args = f"backend=vllm,model={served_checkpoint},dtype=float32,max_model_len=4096,gpu_memory_utilization=0.5"
    proc, log = run([str(python.with_name("lmms-eval")), "--model", "gui_wrap", "--model_args", args, "--tasks", ",".join(FIVE),
                     "--limit", "1", "--output_path", str(tmp_path), "--log_samples"], env, timeout=900)
    assert proc.returncode == 0, log[-3000:]
    got = results(tmp_path)["results"]
    assert sorted(got) == sorted(FIVE), log[-4000:]
    mpr = samples(tmp_path, "mpr_gui_synth_en")
    assert all(len(json.dumps(s["filtered_resps"])) < 400 for s in mpr)  # 16 tokens, not 4096


def test_top_logprobs_capture_agrees_with_exact_where_it_can(vllm_server):
    """The hosted-API path (top 20 per step) against vLLM's exact values: present digits equal (single-token digits),
    never above (merged ones), missing ones at most the floor (times the group size for merged digit tokens)."""
    from gui_models.openai_backend import GuiOpenAI

    common = dict(base_url=vllm_server.base_url, model=vllm_server.model, capture_logits="digits", response_cache="none")
    exact = GuiOpenAI(logprobs="token_ids", **common)
    topk = GuiOpenAI(logprobs="top_logprobs", top_logprobs=20, **common)
    checked = missing = 0
    for req in _requests(4):
        a, b = exact._generate_sync(req), topk._generate_sync(req)
        assert a.text == b.text and b.capture.kind == "top_logprobs"
        for sa, sb in zip(a.capture.steps, b.capture.steps):
            for d in range(10):
                if d in sb.missing:
                    missing += 1
                    # every token outside the top k has at most the floor's probability: a group of n merged
                    # digit tokens ("1", "10", ...) at most n times it (why ranges are bounds only for 1-digit tokens)
                    assert sa.digits[d] <= sb.floor + math.log(len(exact.groups[d])) + DIGIT_TOL
                elif len(exact.groups[d]) == 1:
                    checked += 1
                    assert sb.digits[d] == pytest.approx(sa.digits[d], abs=DIGIT_TOL)
                else:  # merged digit tokens ("1", "10", ...): the top k may hold only some of the group
                    checked += 1
                    assert sb.digits[d] <= sa.digits[d] + DIGIT_TOL
    assert checked > 0 and missing > 0


def test_transformers_serve_answers_as_gui_hf_and_gives_no_capture(served_checkpoint, session_cache):
    """`transformers serve` (no logprobs): the same greedy answers and frames as gui_hf, and no invented capture."""
    from gui_models.hf_backend import GuiHF
    from gui_models.local_server import start_transformers_serve
    from gui_models.openai_backend import GuiOpenAI

    if vllm_python() is None:
        pytest.skip("the served-engine virtualenv is not built (bash scripts/setup_vllm.sh)")
    server = start_transformers_serve(served_checkpoint, session_cache / "transformers-serve.log")
    try:
        oa = GuiOpenAI(base_url=server.base_url, model=str(served_checkpoint), capture_logits="digits",
                       logprobs="top_logprobs", response_cache="none")
        hf = GuiHF(pretrained=str(served_checkpoint))
        for req in _requests(3):
            a, b = oa._generate_sync(req), hf._generate([req])[0]
            assert (a.text, a.image_sizes) == (b.text, b.image_sizes) and a.capture is None
            assert a.extras["usage"]["output_tokens"] > 0
    finally:
        server.stop()


def test_lmms_eval_openai_runs_simulator_tasks_through_the_agentic_loop_as_gui_openai_runs_them(vllm_server, subprocess_env,
                                                                                                 tmp_path):
    """Issue 28: lmms-eval's own ``openai`` backend (no multi-round generation) scores the SPHINX simulator and StaR
    toggle tasks through lmms-eval's agentic loop; on the same server (greedy) every episode equals gui_openai's."""
    tasks = ["sphinx_sim", "sphinx_sim_toggle"]
    env = {**subprocess_env, "OPENAI_API_KEY": "EMPTY"}
    _lmms("openai", f"model_version={vllm_server.model},base_url={vllm_server.base_url}", tasks, tmp_path / "agentic", env)
    _lmms("gui_openai", _args(vllm_server), tasks, tmp_path / "multi", env)
    agentic, multi = results(tmp_path / "agentic"), results(tmp_path / "multi")
    from gui_tasks.viewer.records import responses

    for task in tasks:
        assert "not_run" not in agentic["configs"][task]["metadata"]
        assert agentic["configs"][task]["metadata"]["interaction"] == "agentic"
        assert multi["configs"][task]["metadata"]["interaction"] == "multi_round"
        assert isinstance(agentic["results"][task]["sphinx_sr,none"], float)
        a = {s["doc_id"]: s for s in samples(tmp_path / "agentic", task)}
        m = {s["doc_id"]: s for s in samples(tmp_path / "multi", task)}
        assert sorted(a) == sorted(m) == [0, 1]
        for doc_id in a:
            ra, rm = a[doc_id]["sphinx_sr"], m[doc_id]["sphinx_sr"]
            assert (ra["interaction"], rm["interaction"]) == ("agentic", "multi_round")
            assert {k: ra[k] for k in ("satisfied", "n_actions", "format_errors")} == \
                {k: rm[k] for k in ("satisfied", "n_actions", "format_errors")}, (task, doc_id)
            assert responses(a[doc_id], multi_round=True) == responses(m[doc_id], multi_round=True), (task, doc_id)
        for metric in ("sphinx_sr", "sphinx_acp", "sphinx_format_error_rate"):
            assert agentic["results"][task][f"{metric},none"] == pytest.approx(multi["results"][task][f"{metric},none"], nan_ok=True)
