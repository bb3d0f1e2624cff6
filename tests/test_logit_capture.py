"""Digit-logit capture in gui_hf: equal to generate's own scores, output unchanged, key tokens, the side channel."""

from __future__ import annotations

import math
import pickle

import pytest
import torch
from lmms_eval.api.instance import Instance
from PIL import Image

from gui_metrics.pss import pss_from_logits
from gui_models.hf_backend import GuiHF
from gui_core.logit_capture import Capture, CapturedResponse, Step, capture_of, digit_groups, key_tokens
from gui_tasks.grounding.score import ScoreParams, score_response

PROMPTS = ["find [0.71, 0.23] the anchor icon", "where is 0.5", "Где кнопка?"]


def _requests(lm, n=3, max_new=8):
    docs = [{"img": [Image.new("RGB", (90, 180), (40 * i, 90, 200 - 30 * i))]} for i in range(n)]
    lm.task_dict = {"t": {"test": docs}}
    return [Instance("generate_until", (PROMPTS[i % 3], {"max_new_tokens": max_new}, lambda d: d["img"], i, "t", "test"), i,
                     {"task": "t", "doc_id": i, "repeats": 1}) for i in range(n)]


@pytest.fixture(scope="module")
def lms(tiny_checkpoint):
    return (GuiHF(pretrained=str(tiny_checkpoint), device="cpu"),
            GuiHF(pretrained=str(tiny_checkpoint), device="cpu", capture_logits="digits"))


def test_digit_groups_include_merged_number_tokens(lms):
    tok = lms[1].tokenizer
    groups = digit_groups(tok)
    texts = [[tok.decode([i]).strip() for i in g] for g in groups]
    assert all(str(d) in texts[d] for d in range(10))
    assert "71" in texts[7] and "23" in texts[2]  # the tiny BPE merges these
    assert all(t[0] == str(d) and t.isdigit() for d in range(10) for t in texts[d])


def test_capture_does_not_change_the_answers_and_is_off_by_default(lms):
    plain, captured = lms
    a = plain.generate_until(_requests(plain))
    b = captured.generate_until(_requests(captured))
    assert a == b
    assert all(capture_of(x) is None for x in a)  # sizes of the images seen may ride along (extras), no capture
    assert all(isinstance(x, CapturedResponse) and x.capture is not None for x in b)


def test_captured_values_equal_generate_scores(lms):
    lm = lms[1]
    out = lm.generate_until(_requests(lm, n=1, max_new=6))[0]
    # reference: the same generation with full-vocabulary scores
    req = lm._request_context(_requests(lm, n=1, max_new=6)[0])
    prompt = lm.processor.apply_chat_template(lm._messages(req), add_generation_prompt=True, tokenize=False)
    inputs = lm.processor(text=[prompt], images=list(req.images), return_tensors="pt")
    with torch.inference_mode():
        ref = lm.model.generate(**inputs, max_new_tokens=6, do_sample=False, output_scores=True, return_dict_in_generate=True,
                                pad_token_id=lm.tokenizer.pad_token_id)
    groups = digit_groups(lm.tokenizer)
    steps = out.capture.steps
    assert 0 < len(steps) <= len(ref.scores)
    for i, step in enumerate(steps):
        scores = ref.scores[i][0].float()
        logp = torch.log_softmax(scores, -1)
        assert step.token_id == int(ref.sequences[0, inputs["input_ids"].shape[1] + i])
        assert step.logprob == pytest.approx(float(logp[step.token_id]), abs=1e-4)
        assert step.entropy == pytest.approx(float(-(logp.exp() * logp).sum()), abs=1e-4)
        expect = [float(torch.logsumexp(scores[g], 0)) for g in groups]
        assert list(step.digits) == pytest.approx(expect, abs=1e-4)
        assert list(step.digit_logprobs) == pytest.approx([float(torch.logsumexp(logp[g], 0)) for g in groups], abs=1e-4)
    joined = "".join(lm.tokenizer.decode([s.token_id]) for s in steps)
    assert str(out) in joined or joined.startswith(str(out)[: len(joined)])


def test_batched_capture_equals_single(lms):
    lm = lms[1]
    single = lm.generate_until(_requests(lm))
    lm.batch_size_per_gpu = 3
    try:
        batched = lm.generate_until(_requests(lm))
    finally:
        lm.batch_size_per_gpu = 1
    for s, b in zip(single, batched):
        assert s == b and len(s.capture.steps) == len(b.capture.steps)
        for x, y in zip(s.capture.steps, b.capture.steps):
            assert x.token_id == y.token_id and x.logprob == pytest.approx(y.logprob, abs=1e-3)


def test_capture_refuses_beam_search(lms):
    lm = lms[1]
    reqs = _requests(lm, n=1)
    reqs[0].args[1]["num_beams"] = 2
    with pytest.raises(ValueError, match="num_beams=1"):
        lm.generate_until(reqs)


def test_unknown_capture_mode_is_rejected(tiny_checkpoint):
    with pytest.raises(ValueError, match="capture_logits"):
        GuiHF(pretrained=str(tiny_checkpoint), device="cpu", capture_logits="everything")


# --- key tokens and the side channel, on constructed steps -------------------------------------


def _steps(tokens, digit_rows=None):
    out, pos = [], 0
    for i, t in enumerate(tokens):
        row = digit_rows[i] if digit_rows and i in digit_rows else tuple(0.0 for _ in range(10))
        out.append(Step(i, t, math.log(0.5), 1.0, row, pos, pos + len(t)))
        pos += len(t)
    return out


PEAK7 = tuple(5.0 if d == 7 else 0.0 for d in range(10))
PEAK2 = tuple(4.0 if d == 2 else (2.0 if d in (1, 3) else 0.0) for d in range(10))


def test_leading_key_tokens_of_relative_answer_single_digits():
    tokens = ["[", "0", ".", "7", "1", ",", " ", "0", ".", "2", "3", "]"]
    steps = _steps(tokens, {3: PEAK7, 9: PEAK2})
    keys = key_tokens("[0.71, 0.23]", steps, (0.71, 0.23))
    assert [(k.digit, k.step) for k in keys] == [("7", 3), ("2", 9)]
    assert keys[0].values == PEAK7
    all_keys = key_tokens("[0.71, 0.23]", steps, (0.71, 0.23), mode="all")
    assert [k.digit for k in all_keys] == ["0", "7", "1", "0", "2", "3"]


def test_key_token_at_the_start_of_a_merged_token_is_captured_inside_is_not():
    steps = _steps(["[", "0", ".", "71", ",", " 0", ".", "23", "]"], {3: PEAK7, 7: PEAK2})
    keys = key_tokens("[0.71, 0.23]", steps, (0.71, 0.23))
    assert [(k.digit, k.step) for k in keys] == [("7", 3), ("2", 7)]
    merged = _steps(["[0", ".7", "1, 0", ".2", "3]"])
    assert [k.step for k in key_tokens("[0.71, 0.23]", merged, (0.71, 0.23))] == [None, None]


def test_pixel_answers_use_the_leading_digit():
    steps = _steps(["(", "7", "1", "2", ",", "2", "3", "0", ")"])
    keys = key_tokens("(712,230)", steps, (712, 230))
    assert [(k.digit, k.step) for k in keys] == [("7", 1), ("2", 5)]


def test_no_point_no_key_tokens():
    assert key_tokens("no idea", _steps(["no", " idea"]), None) == []


DOC = {"id": "d0", "source": "synthetic", "width": 100, "height": 100, "target_box": [60, 10, 80, 30],
       "other_boxes": [[10, 60, 30, 80]], "split": "uncommon", "instruction": "x", "image": "/nonexistent", "meta": "{}"}


def test_score_reads_the_capture_through_the_side_channel():
    tokens = ["[", "0", ".", "7", "1", ",", " ", "0", ".", "2", "3", "]"]
    resp = CapturedResponse("[0.71, 0.23]", Capture(tuple(_steps(tokens, {3: PEAK7, 9: PEAK2}))))
    rec = score_response(DOC, resp, ScoreParams())
    assert rec["correct"] and rec["response_type"] == "correct" and rec["captured"]
    assert rec["pss"] == pytest.approx((pss_from_logits(PEAK7) + pss_from_logits(PEAK2)) / 2)
    assert rec["perplexity"] == pytest.approx(2.0)
    plain = score_response(DOC, "[0.71, 0.23]", ScoreParams())
    assert plain["correct"] and plain["pss"] is None and not plain["captured"]


def test_taxonomy_in_the_record_uses_every_known_box():
    assert score_response(DOC, "[0.82, 0.2]", ScoreParams())["response_type"] == "biased"
    assert score_response(DOC, "[0.2, 0.82]", ScoreParams())["response_type"] == "misleading"
    assert score_response(DOC, "[0.5, 0.95]", ScoreParams())["response_type"] == "confusion"
    bad = score_response(DOC, "somewhere", ScoreParams())
    assert bad["status"] == "malformed" and bad["response_type"] == "invalid" and not bad["correct"]


def test_captured_response_survives_pickling_and_reads_as_text():
    resp = CapturedResponse("[0.5, 0.5]", Capture(tuple(_steps(["[0.5, 0.5]"]))), {"crop": {"window": [0, 0, 1, 1]}})
    back = pickle.loads(pickle.dumps(resp))
    assert back == "[0.5, 0.5]" and capture_of(back) == resp.capture and back.extras == resp.extras
    assert capture_of("[0.5, 0.5]") is None


def test_other_tasks_see_an_ordinary_string():
    from gui_tasks.mpr.lmms_task import process_results

    doc = {"id": "q", "lang": "en", "dimension": "AU", "question": "?", "options": ["a", "b", "c", "d"], "answer": "B"}
    resp = CapturedResponse("B", Capture(tuple(_steps(["B"]))))
    assert process_results(doc, [resp]) == process_results(doc, ["B"])
    assert resp.strip() == "B" and type(resp.strip()) is str and resp + "" == "B"


def test_answer_after_a_reasoning_block_is_the_one_scored():
    text = "<think>maybe [0.2, 0.8]</think>[0.71, 0.23]"
    tokens = ["<think>maybe ", "[", "0", ".", "2", ", ", "0", ".", "8", "]", "</think>", "[", "0", ".", "7", "1", ", ", "0", ".",
              "2", "3", "]"]
    steps = _steps(tokens, {14: PEAK7, 19: PEAK2})
    rec = score_response(DOC, CapturedResponse(text, Capture(tuple(steps))), ScoreParams())
    assert rec["point"] == pytest.approx([0.71, 0.23]) and rec["correct"]
    assert [k["digit"] for k in rec["key_tokens"]] == ["7", "2"]
    assert rec["pss"] == pytest.approx((pss_from_logits(PEAK7) + pss_from_logits(PEAK2)) / 2)
