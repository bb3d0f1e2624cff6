"""The gui_hf backend on the tiny checkpoint: loading, greedy determinism, batching, stop strings."""

from __future__ import annotations

import pytest
from lmms_eval.api.instance import Instance
from PIL import Image

from gui_models.generation_core import cut_at_stops as _cut
from gui_models.hf_backend import GuiHF, _generation_args
from gui_models.layers import decoder_layers

PROMPTS = ["What does the gear icon do?\nA. x\nB. y\nC. z\nD. w", "齿轮图标的作用是什么？", "Где кнопка настроек?", "ปุ่มอยู่ที่ไหน"]
COLORS = [(250, 250, 250), (20, 40, 200), (200, 30, 30), (30, 160, 60)]


def make_requests(lm, n=4, gen_kwargs=None, images=1):
    docs = [{"img": [Image.new("RGB", (90, 180), COLORS[i % 4])] * images} for i in range(n)]
    lm.task_dict = {"t": {"test": docs}}
    gen = gen_kwargs or {"max_new_tokens": 6}
    return [Instance("generate_until", (PROMPTS[i % 4], dict(gen), lambda d: d["img"], i, "t", "test"), i,
                     {"task": "t", "doc_id": i, "repeats": 1}) for i in range(n)]


@pytest.fixture(scope="module")
def lm(tiny_checkpoint):
    return GuiHF(pretrained=str(tiny_checkpoint), device="cpu", batch_size=1)


def test_generation_is_deterministic_and_input_dependent(lm):
    first = lm.generate_until(make_requests(lm))
    second = lm.generate_until(make_requests(lm))
    assert first == second
    assert len(set(first)) > 1  # the tiny model's answers depend on the prompt


def test_batching_gives_the_same_answers(lm):
    single = lm.generate_until(make_requests(lm))
    lm.batch_size_per_gpu = 3
    try:
        batched = lm.generate_until(make_requests(lm))
    finally:
        lm.batch_size_per_gpu = 1
    assert batched == single


def test_multi_image_requests(lm):
    out = lm.generate_until(make_requests(lm, n=2, images=3))
    assert len(out) == 2 and all(isinstance(o, str) for o in out)


def test_greedy_by_default_and_sampling_on_request():
    class Tok:
        pad_token_id = 0

    assert _generation_args({}, 128, Tok())["do_sample"] is False
    assert _generation_args({"max_new_tokens": 5}, 128, Tok())["max_new_tokens"] == 5
    sampled = _generation_args({"temperature": 0.7}, 128, Tok())
    assert sampled["do_sample"] is True and sampled["temperature"] == 0.7


def test_stop_strings_cut_the_response():
    assert _cut("B\nbecause", ["\n"]) == "B"
    assert _cut("B. done", ".") == "B"
    assert _cut("B", None) == "B"


def test_unknown_model_arg_is_rejected(tiny_checkpoint):
    with pytest.raises(ValueError, match="unknown model args"):
        GuiHF(pretrained=str(tiny_checkpoint), device="cpu", temprature=0.1)


def test_loglikelihood_is_refused_clearly(lm):
    with pytest.raises(NotImplementedError, match="loglikelihood"):
        lm.loglikelihood([])


@pytest.mark.parametrize("family", ["qwen2_vl", "qwen2_5_vl"])
def test_tiny_checkpoints_of_both_families_load_and_expose_decoder_layers(family, tmp_path):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from gui_models.tiny_model import build_tiny_model

    out = build_tiny_model(tmp_path / family, family=family, seed=1)
    model = AutoModelForImageTextToText.from_pretrained(out)
    processor = AutoProcessor.from_pretrained(out)
    assert model.config.model_type == family
    layers = decoder_layers(model)
    assert len(layers) == 4 and type(layers[0]).__name__.endswith("DecoderLayer")
    assert "<|image_pad|>" in processor.tokenizer.get_vocab()
    lm = GuiHF(pretrained=str(out), device="cpu", batch_size=2)
    answers = lm.generate_until(make_requests(lm, n=2, images=2))
    assert len(answers) == 2 and all(isinstance(a, str) for a in answers)


def test_tiny_checkpoint_is_deterministic(tmp_path):
    from gui_models.tiny_model import build_tiny_model

    a = build_tiny_model(tmp_path / "a", seed=3)
    b = build_tiny_model(tmp_path / "b", seed=3)
    assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()
    assert (a / "tokenizer.json").read_bytes() == (b / "tokenizer.json").read_bytes()


def test_decoder_layers_error_names_the_model():
    import torch.nn as nn

    with pytest.raises(ValueError, match="Linear"):
        decoder_layers(nn.Linear(2, 2))


def test_pixel_budget_model_args_reach_the_processor(tiny_checkpoint):
    small = GuiHF(pretrained=str(tiny_checkpoint), device="cpu", max_pixels=28 * 28 * 16, min_pixels=28 * 28 * 4)
    inputs = small.processor(text=["<|vision_start|><|image_pad|><|vision_end|>hi"], images=[Image.new("RGB", (360, 720))],
                             return_tensors="pt")
    t, h, w = inputs["image_grid_thw"][0].tolist()
    assert h * w * 14 * 14 <= 28 * 28 * 16 * 1.0 and (t, h, w) == (1, 10, 4)
