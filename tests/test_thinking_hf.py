"""Thinking through ``gui_hf`` (issue 51) on a tiny checkpoint whose chat template has ``enable_thinking`` as the Qwen3
templates do (gui_models/tiny_thinking.py). Its weights are random, so a logits processor makes it write a scripted
reply: a reasoning in ``<think>`` tags then the answer when the template lets it think, the answer alone when the
template wrote the empty reasoning block. The template call, the budget, the stopping rule after the closing tag,
the reading, the digit capture and the interventions are the real ones."""

from __future__ import annotations

import pytest
import torch
from lmms_eval.api.instance import Instance
from PIL import Image

from gui_core import reasoning
from gui_core.logit_capture import capture_of, key_tokens
from gui_interventions import build_run
from gui_models.hf_backend import GuiHF
from gui_models.tiny_thinking import EMPTY_REASONING, build_tiny_thinking_model
from gui_tasks.harness.reasoning_results import read_results

THOUGHT = "<think>the gear is at 0.9 0.8\n\nor is it 7</think>\n\n"
ANSWER = "[0.12, 0.34]"
REPLY_ON = THOUGHT + ANSWER + "\n\nnever written"


class Scripted:
    """A logits processor that makes each row write ``reply`` (thinking) or ``answer`` (the prompt already holds the
    empty reasoning block), then the end token."""

    def __init__(self, tokenizer, prompt_ids, eos: int) -> None:
        self.prompt_len, self.eos = prompt_ids.shape[1], eos
        self.replies = []
        for row in prompt_ids:
            prompt = tokenizer.decode(row, skip_special_tokens=False)
            text = ANSWER if prompt.endswith(EMPTY_REASONING) else REPLY_ON
            self.replies.append(tokenizer(text, add_special_tokens=False)["input_ids"] + [eos])

    def __call__(self, input_ids, scores):
        step = input_ids.shape[1] - self.prompt_len
        forced = torch.full_like(scores, -1e4)
        for row, ids in enumerate(self.replies):
            forced[row, ids[step] if step < len(ids) else self.eos] = 0.0
        return forced


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return build_tiny_thinking_model(tmp_path_factory.mktemp("tiny_thinking"))


def _scripted(lm: GuiHF) -> dict:
    """Wrap the model's ``generate`` with the script; returns what the last call saw (its prompt, budget, output)."""
    from transformers import LogitsProcessorList

    seen: dict = {}
    original = lm.model.generate

    def generate(*args, **kwargs):
        ids = kwargs["input_ids"]
        eos = lm.tokenizer.convert_tokens_to_ids("<|im_end|>")
        kwargs["logits_processor"] = LogitsProcessorList([*(kwargs.get("logits_processor") or []),
                                                          Scripted(lm.tokenizer, ids, eos)])
        out = original(*args, **kwargs)
        seen.update(prompt=lm.tokenizer.decode(ids[0]), max_new_tokens=kwargs["max_new_tokens"],
                    written=lm.tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True),
                    stopping=kwargs.get("stopping_criteria"))
        return out

    lm.model.generate = generate
    return seen


def _requests(lm, task: str, n: int = 1, gen=None):
    docs = [{"id": f"{task}-{i}", "img": [Image.new("RGB", (90, 180), (200, 40, 90))]} for i in range(n)]
    lm.task_dict = {task: {"test": docs}}
    gen = gen or {"max_new_tokens": 16, "until": ["\n\n"]}
    return docs, [Instance("generate_until", ("Where is the gear?", dict(gen), lambda d: d["img"], i, task, "test"), i,
                           {"task": task, "doc_id": i, "repeats": 1}) for i in range(n)]


def _lm(checkpoint, **kw) -> tuple[GuiHF, dict]:
    lm = GuiHF(pretrained=str(checkpoint), device="cpu", **kw)
    return lm, _scripted(lm)


def test_thinking_on_asks_the_template_to_think_with_a_budget_and_stops_only_after_the_reasoning(checkpoint):
    lm, seen = _lm(checkpoint, thinking="on")
    docs, reqs = _requests(lm, "think_on")
    out = lm.generate_until(reqs)
    assert not seen["prompt"].endswith(EMPTY_REASONING)  # the template was told enable_thinking=True
    assert seen["max_new_tokens"] == 16 + reasoning.DEFAULT_THINK_BUDGET >= 1024
    assert "never" not in seen["written"]  # the blank line after the answer stopped generation; the ones inside did not
    assert str(out[0]) == THOUGHT + ANSWER  # the reasoning is kept in the response (the samples' resps)
    read, fields = read_results("think_on", docs[0], list(out))
    assert read == [ANSWER] and fields["thinking_truncated"] == 0
    n = len(lm.tokenizer(THOUGHT.rstrip("\n").rsplit("</think>", 1)[0] + "</think>", add_special_tokens=False)["input_ids"])
    assert fields["reasoning_tokens"] == n and fields["reasoning"]["thinking"] == "on"


def test_thinking_off_asks_for_none_and_the_answer_comes_at_once(checkpoint):
    lm, seen = _lm(checkpoint, thinking="off")
    docs, reqs = _requests(lm, "think_off")
    out = lm.generate_until(reqs)
    assert seen["prompt"].endswith(EMPTY_REASONING) and seen["max_new_tokens"] == 16
    read, fields = read_results("think_off", docs[0], list(out))
    assert read == [ANSWER] and fields["reasoning_tokens"] == 0 and fields["thinking_truncated"] == 0


def test_a_reasoning_cut_by_its_budget_is_thinking_truncated_never_an_answer(checkpoint):
    lm, seen = _lm(checkpoint, thinking="on", think_budget="3")
    docs, reqs = _requests(lm, "think_cut", n=2, gen={"max_new_tokens": 4, "until": ["\n\n"]})
    out = lm.generate_until(reqs)
    assert seen["max_new_tokens"] == 7 and "</think>" not in str(out[0])
    for doc, response in zip(docs, out):
        read, fields = read_results("think_cut", doc, [response])
        assert read == [""] and fields["thinking_truncated"] == 1 and fields["reasoning"]["truncated"] is True


def test_digit_capture_reads_the_answer_digits_never_those_of_the_reasoning(checkpoint):
    lm, _seen = _lm(checkpoint, thinking="on", capture_logits="digits")
    docs, reqs = _requests(lm, "think_pss")
    out = lm.generate_until(reqs)
    assert capture_of(out[0]) is not None
    read, _fields = read_results("think_pss", docs[0], list(out))
    answer = read[0]
    assert str(answer) == ANSWER
    keys = key_tokens(str(answer), capture_of(answer).steps, (0.12, 0.34))
    assert [k.digit for k in keys] == ["1", "3"] and all(k.step is not None for k in keys)
    assert all(s.start >= 0 for s in capture_of(answer).steps)  # no step of the reasoning is left


def test_prompt_and_forward_interventions_keep_working_with_thinking_on(checkpoint):
    from test_intervention_stages import LayerCounter

    lm, seen = _lm(checkpoint, thinking="on", interventions="prompt_affix", **{"prompt_affix.suffix": "Think first."})
    docs, reqs = _requests(lm, "think_iv")
    out = lm.generate_until(reqs)
    assert "Think first." in seen["prompt"] and not seen["prompt"].endswith(EMPTY_REASONING)
    assert read_results("think_iv", docs[0], list(out))[0] == [ANSWER]
    counter = LayerCounter(layer=1)
    lm.interventions = build_run("count", factories={"count": lambda: counter})
    docs, reqs = _requests(lm, "think_steer")
    out = lm.generate_until(reqs)
    assert counter.calls > 0 and not counter.module._forward_hooks
    assert read_results("think_steer", docs[0], list(out))[0] == [ANSWER]


def test_cropping_reads_the_first_answer_after_the_reasoning(checkpoint):
    lm, _seen = _lm(checkpoint, thinking="on", interventions="crop", **{"crop.family": "relative"})
    docs, reqs = _requests(lm, "think_crop")
    out = lm.generate_until(reqs)
    from gui_core.logit_capture import extras_of

    crop = extras_of(out[0])["crop"]
    assert crop["first_point"] == pytest.approx([0.12, 0.34]) and crop["window"] is not None
    notes = reasoning.notes_of("think_crop", docs[0])
    assert len(notes) == 2 and all(n.closed for n in notes)  # the first pass and the pass on the crop
