"""gui_openai without a real engine: request bodies, digit capture from logprobs, frames, retries and the response cache.

The real vLLM server is exercised in test_served_vllm.py; here a scripted local HTTP server
(tests/fake_openai.py) plays the faults a real one cannot be made to produce on demand.
"""

from __future__ import annotations

import base64
import io
import math
import re

import pytest
from PIL import Image

from fake_openai import FakeServer
from gui_interventions import RequestContext
from gui_metrics.pss import mean_of, no_capture_rate, range_mean
from gui_core.logit_capture import Capture, Step
from gui_models.generation_core import cut_at_stops
from gui_models.openai_backend import (GuiOpenAI, capture_from_token_ids, capture_from_top_logprobs,
                                       generation_body)
from gui_models.served_client import ServerDown, ServerError
from gui_tasks.grounding.score import ScoreParams, logit_summary


def _req(text="Where?", images=(), **gen) -> RequestContext:
    return RequestContext(text=text, images=tuple(images), doc_id=0, task="t", gen_kwargs=gen, doc=None, metadata={})


def _backend(url: str, **kw) -> GuiOpenAI:
    oa = GuiOpenAI(base_url=url, model="m", response_cache=kw.pop("response_cache", "none"), **kw)
    oa.pool.policy.base_s = 0.01  # keep the fault tests fast; the policy's bounds are what is tested
    return oa


# --- request bodies -------------------------------------------------------------------------------


def test_body_carries_task_budget_until_and_greedy_decoding():
    body, sizes = generation_body(_req(max_new_tokens=16, until=["\n\n", "Q:"]), "m", 128)
    assert body["max_tokens"] == 16 and body["stop"] == ["\n\n", "Q:"] and body["temperature"] == 0.0
    assert "top_p" not in body and sizes == []
    body, _ = generation_body(_req(), "m", 128)  # no task budget: the backend default, as gui_hf
    assert body["max_tokens"] == 128 and "stop" not in body
    body, _ = generation_body(_req(temperature=0.7, top_p=0.9, do_sample=True), "m", 128)
    assert body["temperature"] == 0.7 and body["top_p"] == 0.9


def test_body_sends_images_first_as_lossless_rgb_png_and_records_their_size():
    im = Image.new("RGBA", (30, 20), (10, 200, 30, 128))
    body, sizes = generation_body(_req("Click it", [im]), "m", 8, system_prompt="be brief")
    assert sizes == [[30, 20]]
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    parts = body["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"] and parts[1]["text"] == "Click it"
    data = base64.b64decode(parts[0]["image_url"]["url"].split(",", 1)[1])
    sent = Image.open(io.BytesIO(data))
    assert sent.mode == "RGB" and sent.tobytes() == im.convert("RGB").tobytes()


def test_cut_at_stops_truncates_at_the_first_stop_string():
    assert cut_at_stops("A. yes\n\nQ: more", ["Q:", "\n\n"]) == "A. yes" and cut_at_stops("a.b", ".") == "a"
    assert cut_at_stops("no stop here", ["\n\n"]) == "no stop here"


# --- digit capture ----------------------------------------------------------------------------------


class _Tok:
    """Token ids 0-9 are the digits, 10 the letter x, 11 the end-of-sequence token."""

    eos_token_id, pad_token_id = 11, None

    def decode(self, ids, skip_special_tokens=False):
        return "".join("x" if i == 10 else ("" if i == 11 else str(i)) for i in ids)


def _step(tid: int, logprob: float, table: dict[int, float]) -> dict:
    return {"token": f"token_id:{tid}", "logprob": logprob,
            "top_logprobs": [{"token": f"token_id:{i}", "logprob": v} for i, v in table.items()]}


def test_token_id_capture_is_exact_and_stops_at_the_end_token():
    groups = [[d] for d in range(10)]
    values = {d: -1.0 - d / 10 for d in range(10)}
    content = [_step(7, -1.7, values), _step(10, -0.1, {**values, 10: -0.1}), _step(11, -0.01, values)]
    cap = capture_from_token_ids(content, groups, _Tok(), stop_ids=[11])
    assert cap.kind == "exact" and [s.token_id for s in cap.steps] == [7, 10]
    assert cap.steps[0].digits == tuple(values[d] for d in range(10)) and cap.steps[0].logz == 0.0
    assert cap.steps[0].logprob == -1.7 and (cap.steps[1].start, cap.steps[1].end) == (1, 2)
    assert math.isnan(cap.steps[0].entropy)  # the full distribution is not returned


def test_token_id_capture_sums_merged_digit_tokens_and_refuses_a_server_that_ignored_the_ids():
    groups = [[d] for d in range(10)]
    groups[1] = [1, 12]  # "1" and "12" both start with 1
    values = {d: math.log(0.05) for d in range(10)} | {12: math.log(0.05)}
    cap = capture_from_token_ids([_step(3, -3.0, values)], groups, _Tok(), stop_ids=[11])
    assert cap.steps[0].digits[1] == pytest.approx(math.log(0.10))
    with pytest.raises(ValueError, match="ignored logprob_token_ids"):
        capture_from_token_ids([_step(3, -3.0, {3: -3.0})], groups, _Tok(), stop_ids=[11])


def test_top_logprobs_capture_records_missing_digits_at_the_floor():
    content = [{"token": "[", "logprob": -0.1, "top_logprobs": [{"token": "[", "logprob": -0.1}]},
               {"token": "4", "logprob": -0.5, "top_logprobs": [{"token": "4", "logprob": -0.5}, {"token": " 7", "logprob": -1.5},
                                                               {"token": "a", "logprob": -3.0}]}]
    cap = capture_from_top_logprobs(content)
    assert cap.kind == "top_logprobs"
    step = cap.steps[1]
    assert step.missing == (0, 1, 2, 3, 5, 6, 8, 9) and step.floor == -3.0
    assert step.digits[4] == -0.5 and step.digits[7] == -1.5 and step.digits[0] == -3.0
    assert (step.start, step.end) == (1, 2)
    assert Capture.from_json(cap.to_json()) == cap  # the kind and the missing digits survive the side channel


def _capture(kind: str, digit_values: list[float], missing=(), floor=None) -> Capture:
    steps = (Step(1, "[", -0.1, 0.0, tuple([0.0] * 10), 0, 1), Step(2, "5", -0.2, 0.0, tuple(digit_values), 1, 2, 0.0,
                                                                      tuple(missing), floor),
             Step(3, ",", -0.1, 0.0, tuple([0.0] * 10), 2, 3), Step(4, "5", -0.2, 0.0, tuple(digit_values), 3, 4, 0.0,
                                                                     tuple(missing), floor))
    return Capture(steps, kind=kind)


def test_top_logprobs_scores_are_ranges_and_never_enter_the_exact_aggregates():
    params = ScoreParams(family="relative")
    peaked = [-5.0] * 10
    peaked[5] = -0.1
    exact = logit_summary("[5,5]", _capture("exact", peaked), (5, 5), params)
    ranged = logit_summary("[5,5]", _capture("top_logprobs", peaked, missing=(0, 1, 2, 3, 6, 7, 8, 9), floor=-5.0),
                           (5, 5), params)
    assert exact["capture_kind"] == "exact" and exact["pss"] is not None and "pss_range" not in exact
    assert ranged["capture_kind"] == "top_logprobs" and ranged["pss"] is None
    low, high = ranged["pss_range"]
    assert low <= exact["pss"] + 1e-12 and low < high  # the floor assignment equals the exact values here
    assert ranged["key_tokens"][0]["missing_digits"] == [0, 1, 2, 3, 6, 7, 8, 9]
    records = [dict(exact, status="parsed", response_type="correct"), dict(ranged, status="parsed", response_type="correct")]
    assert mean_of(records, "pss") == pytest.approx(exact["pss"])  # only the exact sample
    assert range_mean(records, "pss_range", 0) == pytest.approx(low) and range_mean(records, "pss_range", 1) == pytest.approx(high)
    assert no_capture_rate(records) == 0.0


# --- frames -------------------------------------------------------------------------------------------


def test_frame_smart_resize_from_declared_pixels_and_scale_for_hosted_apis():
    oa = GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model="m", frame="smart_resize", min_pixels=3136,
                   max_pixels=50176, response_cache="none")
    assert oa.frame.model_sizes([[1000, 500]]) == [[308, 140]]  # 1000x500 / sqrt(500000 / 50176) = 316.8x158.4 -> floor to 28: 308x140
    assert oa.frame.describe([[1000, 500]])["source"] == "smart_resize:qwen2_vl_class_default+override"
    api = GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model="gpt", frame="scale", image_scale="0.766", response_cache="none")
    assert api.frame.model_sizes([[1000, 500]]) == [[766, 383]]
    assert GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model="m", response_cache="none").frame.model_sizes([[10, 10]]) is None
    with pytest.raises(ValueError, match="image_scale"):
        GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model="m", frame="scale", response_cache="none")


def test_frame_auto_reads_the_served_checkpoints_processor(tiny_checkpoint):
    oa = GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model=str(tiny_checkpoint), response_cache="none")
    assert oa.frame.source == "smart_resize:served_processor"
    assert oa.frame.model_sizes([[200, 120]]) == [[196, 112]]  # what gui_hf reports for this checkpoint and size


# --- refusals and keys ----------------------------------------------------------------------------


def test_forward_stage_interventions_are_refused_naming_hf_backends():
    with pytest.raises(ValueError, match=r"gui_xli act inside the model's forward pass.*gui_hf"):
        GuiOpenAI(base_url="http://127.0.0.1:18999/v1", model="m", interventions="gui_xli", response_cache="none")


def test_local_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = FakeServer(["ok"], text="fine")
    try:
        out = _backend(server.base_url)._generate_sync(_req(max_new_tokens=4))
        assert out.text == "fine" and out.extras["usage"] == {"input_tokens": 3, "output_tokens": 1}
    finally:
        server.stop()


# --- faults ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["500", "503", "429", "close"])
def test_transient_faults_are_retried_then_answered(fault):
    server = FakeServer([fault, fault, "ok"], text="after retries")
    try:
        out = _backend(server.base_url, max_retries=3)._generate_sync(_req())
        assert out.text == "after retries" and server.hits == 3
    finally:
        server.stop()


@pytest.mark.parametrize("fault", ["500", "close", "sleep"])
def test_a_server_that_keeps_failing_gives_a_clear_error_naming_it(fault):
    server = FakeServer([fault], sleep_s=1.5)
    try:
        oa = _backend(server.base_url, max_retries=2, timeout=0.5)
        out = oa._generate_sync(_req())  # that sample's named error; the run goes on
        assert out.text == "" and f"no answer from {server.base_url} after 2 attempt" in out.extras["request_error"]
        assert server.hits == 2
    finally:
        server.stop()


def test_retries_stop_at_the_time_budget():
    server = FakeServer(["500"])
    try:
        oa = _backend(server.base_url, max_retries=50, retry_budget_s=0.3)
        oa.pool.policy.base_s = 0.2
        assert "retry_budget_s=0.3" in oa._generate_sync(_req()).extras["request_error"]
        assert 1 <= server.hits < 5
    finally:
        server.stop()


def test_a_refused_request_is_not_retried():
    server = FakeServer(["400"])
    try:
        out = _backend(server.base_url, max_retries=4)._generate_sync(_req())
        assert "refused the request (HTTP 400" in out.extras["request_error"] and server.hits == 1
    finally:
        server.stop()


def test_requests_spread_over_several_servers_and_move_off_a_failing_one():
    a, b, dead = FakeServer(["ok"], text="a"), FakeServer(["ok"], text="b"), FakeServer(["500"])
    try:
        oa = _backend(f"{a.base_url}|{b.base_url}", concurrency=4)
        outs = [oa._loop.submit(oa._generate(_req(f"q{i}"))) for i in range(8)]
        texts = [f.result().text for f in outs]
        assert a.hits > 0 and b.hits > 0 and a.hits + b.hits == 8 and sorted(set(texts)) == ["a", "b"]
        failover = _backend(f"{dead.base_url}|{a.base_url}", max_retries=3)
        served = [failover._generate_sync(_req(f"r{i}")) for i in range(3)]
        assert all(g.text == "a" for g in served) and dead.hits >= 1
    finally:
        for s in (a, b, dead):
            s.stop()


def test_response_cache_resumes_asking_only_for_what_is_missing(tmp_path):
    server = FakeServer(["ok"], text="cached")
    try:
        first = _backend(server.base_url, response_cache=str(tmp_path))
        for i in range(3):
            first._generate_sync(_req(f"q{i}", max_new_tokens=4))
        assert server.hits == 3
        again = _backend(server.base_url, response_cache=str(tmp_path))
        outs = [again._generate_sync(_req(f"q{i}", max_new_tokens=4)) for i in range(5)]
        assert server.hits == 5 and again.cache_hits == 3 and again.requests_sent == 2
        assert [o.text for o in outs] == ["cached"] * 5 and outs[0].extras["served_by"] == "cache"
        _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req("q0", max_new_tokens=5))
        assert server.hits == 6  # another budget is another request
    finally:
        server.stop()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_entry = st.fixed_dictionaries({"token": st.text(max_size=4), "logprob": st.floats(-50, 0)})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fixed_dictionaries({"token": st.text(max_size=4), "logprob": st.floats(-50, 0),
                                       "top_logprobs": st.lists(_entry, max_size=6)}), max_size=6))
def test_top_logprobs_capture_never_raises_and_gives_ten_finite_values(content):
    cap = capture_from_top_logprobs(content)
    assert len(cap.steps) == len(content)
    for step, raw in zip(cap.steps, content):
        assert len(step.digits) == 10 and all(math.isfinite(v) for v in step.digits)
        present = {int(t["token"].strip()[0]) for t in raw["top_logprobs"]
                   if t["token"].strip().isascii() and t["token"].strip().isdigit()}
        assert set(step.missing) == set(range(10)) - present


def test_a_server_without_logprobs_gives_no_capture_or_a_clear_error_for_exact_mode(tiny_checkpoint):
    server = FakeServer(["ok"], text="[0.5, 0.5]")  # answers like transformers serve: no logprobs at all
    try:
        topk = _backend(server.base_url, capture_logits="digits", logprobs="top_logprobs")
        assert topk._generate_sync(_req()).capture is None  # counted by pss_no_capture_rate, never invented
        exact = _backend(server.base_url, capture_logits="digits", tokenizer=str(tiny_checkpoint))
        assert exact.logprobs == "token_ids"
        with pytest.raises(ValueError, match=rf"{server.base_url} returned no logprobs"):
            exact._generate_sync(_req())
        assert server.bodies[-1]["logprob_token_ids"] and server.bodies[-1]["return_tokens_as_token_ids"] is True
    finally:
        server.stop()


# --- request-stage interventions and the model-args check ---------------------------------------------


def test_blind_reaches_the_server_as_blank_images_of_the_same_size_or_none():
    """Issue 22: the request stage runs in gui_openai as in gui_hf; the server sees only blank pixels (or no image)."""
    from lmms_eval.api.instance import Instance

    server = FakeServer(["ok"], text="A")
    try:
        for mode, want_parts in (("blank", ["image_url", "image_url", "text"]), ("remove", ["text"])):
            oa = _backend(server.base_url, interventions="blind", **{"blind.mode": mode})
            docs = [{"img": [Image.new("RGB", (40, 30), (200, 10, 10)), Image.new("RGB", (20, 50), (0, 90, 0))]}]
            oa.task_dict = {"t": {"test": docs}}
            req = Instance("generate_until", ("Which one?", {"max_new_tokens": 2}, lambda d: d["img"], 0, "t", "test"), 0,
                           {"task": "t", "doc_id": 0, "repeats": 1})
            assert [str(r.text) for r in oa.generate_until([req])] == ["A"]
            parts = server.bodies[-1]["messages"][-1]["content"]
            assert [p["type"] for p in parts] == want_parts and parts[-1]["text"] == "Which one?"
            for part, size in zip(parts[:-1], [(40, 30), (20, 50)]):
                sent = Image.open(io.BytesIO(base64.b64decode(part["image_url"]["url"].split(",", 1)[1])))
                assert sent.size == size and sent.convert("RGB").getextrema() == ((255, 255), (255, 255), (255, 255))
    finally:
        server.stop()


def test_a_submissions_gui_openai_args_are_rechecked_as_the_backend_checks_them():
    from gui_models.model_args import check_model_args

    base = "base_url=http://127.0.0.1:18999/v1,model=m"
    check_model_args("gui_openai", base + ",interventions=blind,blind.mode=remove,concurrency=4")
    for extra, why in ((",prompt_affix.suffix=x", "prompt_affix"), (",interventions=gui_xli", "forward pass"),
                       (",temprature=0", "unknown model args"), (",interventions=blind,blind.shade=1", "blind"),
                       (",api_key=sk-secret", "api_key_env")):
        with pytest.raises(ValueError, match=why):
            check_model_args("gui_openai", base + extra)
        with pytest.raises(ValueError, match=why):  # the backend itself refuses the same arguments (as lmms-eval builds it)
            GuiOpenAI.create_from_arg_string(base + extra + ",response_cache=none")


# --- the response cache never replays another server or a bad answer (issue 29) --------------------------------


def test_a_second_checkpoint_under_the_same_served_name_is_asked_not_replayed(tmp_path):
    """vLLM restarted with another checkpoint under one --served-model-name: /v1/models reports another root."""
    server = FakeServer(["ok"], text="from A")
    try:
        first = _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req("q", max_new_tokens=4))
        assert first.text == "from A" and first.extras["from_cache"] is False and server.hits == 1
        server.models[0]["root"], server.text = "/ckpt/b", "from B"
        second = _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req("q", max_new_tokens=4))
        assert second.text == "from B" and second.extras["from_cache"] is False and server.hits == 2
        third = _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req("q", max_new_tokens=4))
        assert third.text == "from B" and third.extras["from_cache"] is True and server.hits == 2
        assert third.extras["cached_from"] == server.base_url
        other_ns = _backend(server.base_url, response_cache=str(tmp_path), cache_namespace="2026-11-25")
        assert other_ns._generate_sync(_req("q", max_new_tokens=4)).extras["from_cache"] is False and server.hits == 3
    finally:
        server.stop()


def test_another_server_url_is_asked_not_replayed(tmp_path):
    a, b = FakeServer(["ok"], text="a"), FakeServer(["ok"], text="b")
    try:
        assert _backend(a.base_url, response_cache=str(tmp_path))._generate_sync(_req("q")).text == "a"
        assert _backend(b.base_url, response_cache=str(tmp_path))._generate_sync(_req("q")).text == "b"
        assert (a.hits, b.hits) == (1, 1)
    finally:
        a.stop()
        b.stop()


@pytest.mark.parametrize("bad", ["empty", "error200", "nullchoice"])
def test_one_transient_bad_http_200_is_retried_and_never_poisons_reruns(tmp_path, bad):
    server = FakeServer([bad, "ok"], text="healthy")
    try:
        out = _backend(server.base_url, response_cache=str(tmp_path), max_retries=3)._generate_sync(_req("q"))
        assert out.text == "healthy" and server.hits == 2
        again = _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req("q"))
        assert again.text == "healthy" and again.extras["from_cache"] is True and server.hits == 2
    finally:
        server.stop()


def test_a_bad_answer_that_persists_is_that_samples_format_error_and_nothing_is_stored(tmp_path):
    server = FakeServer(["empty"])
    try:
        out = _backend(server.base_url, response_cache=str(tmp_path), max_retries=2)._generate_sync(_req("q"))
        assert out.text == "" and "bad response: a response without choices" in out.extras["bad_response"]
        assert server.hits == 2 and not list(tmp_path.rglob("*.json"))
    finally:
        server.stop()


@pytest.mark.parametrize("stored", ["[]", "{}", "{oops", '{"response": {"choices": []}}'])
def test_a_damaged_cache_entry_is_asked_again_and_named(tmp_path, stored):
    server = FakeServer(["ok"], text="fresh")
    try:
        oa = _backend(server.base_url, response_cache=str(tmp_path))
        oa._generate_sync(_req("q"))
        (path,) = list(tmp_path.rglob("*.json"))
        path.write_text(stored)
        again = _backend(server.base_url, response_cache=str(tmp_path))
        with pytest.warns(UserWarning, match=rf"response cache entry {path} "):
            out = again._generate_sync(_req("q"))
        assert out.text == "fresh" and out.extras["from_cache"] is False and server.hits == 2
        assert again.cache_bad == [str(path)] and '"fresh"' in path.read_text()
    finally:
        server.stop()


# --- deadlines, bounded bodies, redirects (issue 29) ----------------------------------------------------------


def test_a_drip_server_ends_the_request_within_the_stated_deadline():
    """1 byte a second never trips a read timeout; the attempt's total deadline and the retry budget do."""
    import time

    server = FakeServer(["drip"])
    try:
        oa = _backend(server.base_url, timeout=2.0, max_retries=5, retry_budget_s=3.0)  # each byte within timeout
        start = time.monotonic()
        assert "total deadline" in oa._loop.submit(oa._generate(_req())).result(timeout=20).extras["request_error"]
        assert time.monotonic() - start < 3.0 + 1.0  # retry_budget_s, plus the last backoff's slack
        assert 1 <= server.hits <= 3
    finally:
        server.stop()


def test_a_refused_request_costs_its_sample_and_a_server_down_stops_the_other_requests_at_once():
    import time

    from fake_openai import last_text

    # the refusal is keyed by the document, not by arrival order: two requests in flight arrive in either order
    server = FakeServer(["ok"], text="fine", behave=lambda body: "400" if last_text(body).endswith("q0") else None)
    try:
        outs = _backend(server.base_url, concurrency=2).generate_all([_req(f"q{i}") for i in range(4)])
        assert [o.text for o in outs] == ["", "fine", "fine", "fine"] and "HTTP 400" in outs[0].extras["request_error"]
    finally:
        server.stop()
    down = FakeServer(["400", "400", "400", "sleep"], sleep_s=1.0)
    try:
        oa = _backend(down.base_url, concurrency=1, stop_after_failures=3)
        start = time.monotonic()
        with pytest.raises(ServerDown, match=r"3 requests in a row failed for good.*HTTP 400"):
            oa.generate_all([_req(f"q{i}") for i in range(20)])
        assert time.monotonic() - start < 3.0 and down.hits <= 4
    finally:
        down.stop()


@pytest.mark.parametrize("code", ["302", "307"])
def test_redirects_are_refused_and_never_reach_the_other_origin(code):
    other = FakeServer(["ok"], text="from elsewhere")
    server = FakeServer([code])
    server.redirect_to = f"{other.base_url}/chat/completions"
    try:
        out = _backend(server.base_url, max_retries=3)._generate_sync(_req())
        assert re.search(rf"HTTP {code} redirect to .*not followed", out.extras["request_error"])
        assert server.hits == 1 and other.hits == 0
    finally:
        server.stop()
        other.stop()


def test_an_oversize_body_is_cut_off_not_stored(tmp_path):
    import gui_models.served_client as sc

    server = FakeServer(["ok"], text="x" * 5000)
    try:
        oa = GuiOpenAI(base_url=server.base_url, model="m", response_cache=str(tmp_path), max_retries=2)
        oa.pool.policy.base_s = 0.01
        oa.pool.servers[0].client = type(oa.pool.servers[0].client)(base_url=server.base_url, api_key="x", max_retries=0,
                                                                     http_client=sc.bounded_http_client(2000))
        out = oa._generate_sync(_req())  # that sample's answer is a format error; the run goes on
        assert out.text == "" and "limit is 2000" in out.extras["bad_response"] and server.hits == 2
        assert not list(tmp_path.rglob("*.json"))
    finally:
        server.stop()


# --- bad answers are per-sample, the key goes only where it is named (issue 29) ----------------------------------


def _answer(backend, response, **gen):
    req = _req(**gen)
    body, sent = backend.body(req)
    return backend._parse(response, body, sent, "http://s")


def _with_logprobs(text, steps):
    from fake_openai import completion

    out = completion(text)
    out["choices"][0]["logprobs"] = {"content": steps}
    return out


@pytest.mark.parametrize("steps, problem", [
    ([{"token": "1", "logprob": float("nan"), "top_logprobs": []}], "not a finite number"),
    ([{"token": "1", "logprob": -0.1, "top_logprobs": [{"token": "2", "logprob": 0.5}]}], "not a finite number <= 0"),
    ([{"token": "1", "logprob": -0.1, "top_logprobs": [{"token": "2", "logprob": -1.0}] * 30}], "30 alternatives"),
    ([{"token": "1", "logprob": -0.1, "top_logprobs": []}] * 40, "40 logprob steps for max_tokens=8"),
    ("steps", "not a list"),
])
def test_a_bad_capture_is_recorded_on_the_sample_never_raised(steps, problem):
    oa = GuiOpenAI(base_url="http://127.0.0.1:1/v1", model="m", response_cache="none", capture_logits="digits",
                   logprobs="top_logprobs", top_logprobs=5)
    out = _answer(oa, _with_logprobs("12", steps), max_new_tokens=8)
    assert out.text == "12" and out.capture is None and problem in out.extras["capture_error"]


def test_lone_surrogates_are_replaced_and_counted_so_the_samples_file_can_be_written():
    import json

    oa = GuiOpenAI(base_url="http://127.0.0.1:1/v1", model="m", response_cache="none")
    from fake_openai import completion

    out = _answer(oa, completion("a\ud800b\U0001F600"), max_new_tokens=8)
    assert out.text == "a\ufffdb\U0001F600" and out.extras["surrogates_replaced"] == 1
    json.dumps(out.text, ensure_ascii=False).encode("utf-8")  # what lmms-eval writes


def test_an_answer_longer_than_its_budget_is_cut_and_counted():
    from fake_openai import completion

    from gui_models.openai_backend import MAX_CHARS_PER_TOKEN

    oa = GuiOpenAI(base_url="http://127.0.0.1:1/v1", model="m", response_cache="none")
    out = _answer(oa, completion("x" * 300_002), max_new_tokens=16)
    assert len(out.text) == 16 * MAX_CHARS_PER_TOKEN
    assert out.extras["answer_cut"] == {"chars": 300_002, "kept": 16 * MAX_CHARS_PER_TOKEN}


def test_the_default_key_never_goes_to_other_hosts_and_a_named_one_does(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-exported")
    monkeypatch.setenv("MY_KEY", "sk-mine")
    server = FakeServer(["ok"])
    try:
        _backend(server.base_url)._generate_sync(_req())
        _backend(server.base_url, api_key_env="MY_KEY")._generate_sync(_req())
        assert [h.get("authorization") for h in server.headers] == ["Bearer EMPTY", "Bearer sk-mine"]
        assert not server.saw("sk-exported")
    finally:
        server.stop()
    from gui_models.openai_backend import _key_for

    assert _key_for(["https://api.openai.com/v1"], None) == "sk-exported"
    assert _key_for(["http://api.openai.com/v1"], None) is None  # plain HTTP
    assert _key_for(["https://api.openai.com.evil.org/v1"], None) is None


def test_the_first_failed_episode_cancels_the_episodes_not_yet_started(monkeypatch):
    import time

    import gui_models.openai_backend as ob

    started = []

    def episode(request, task_dict, interventions, generate):
        started.append(request)
        if request == 0:
            raise ob.ServerError("gui_openai: no answer from http://s after 5 attempt(s)")
        time.sleep(0.5)
        return ["ok"]

    monkeypatch.setattr(ob, "run_multi_round", episode)
    oa = GuiOpenAI(base_url="http://127.0.0.1:1/v1", model="m", response_cache="none", concurrency=2)
    start = time.monotonic()
    with pytest.raises(ServerError, match="no answer from http://s"):
        oa.generate_until_multi_round(list(range(40)))
    assert time.monotonic() - start < 2.0 and len(started) <= 4


def test_an_unauthorised_answer_says_how_to_name_the_key():
    server = FakeServer(["401"])
    try:
        with pytest.raises(ServerError, match=r"HTTP 401.*api_key_env=VAR"):
            _backend(server.base_url)._generate_sync(_req())
        assert server.hits == 1
    finally:
        server.stop()


def test_a_run_again_resumes_through_the_response_cache_and_says_so(tmp_path, capsys):
    """Issue 53: gui_openai's response cache is its journal; a run again asks only what is missing and says so."""
    from lmms_eval.api.instance import Instance

    def reqs(n):
        return [Instance("generate_until", (f"Question {i}?", {"max_new_tokens": 4}, lambda d: [], i, "t", "test"), 0,
                         {"task": "t", "doc_id": i, "repeats": 1}) for i in range(n)]

    server = FakeServer(["ok"], text="A")
    try:
        first = _backend(server.base_url, response_cache=str(tmp_path))
        first.task_dict = {"t": {"test": [{"id": i} for i in range(5)]}}
        assert [str(r.text) for r in first.generate_until(reqs(2))] == ["A", "A"] and server.hits == 2
        assert "resumed:" not in capsys.readouterr().err
        again = _backend(server.base_url, response_cache=str(tmp_path))
        again.task_dict = first.task_dict
        assert [str(r.text) for r in again.generate_until(reqs(5))] == ["A"] * 5 and server.hits == 5
        assert f"gui_openai: resumed: 2 of 5 answers from {tmp_path}" in capsys.readouterr().err
    finally:
        server.stop()
