"""gui_hf on tiny checkpoints of every architecture family: per-request image lists, batch 1 == batch 2, decoder layers."""

from __future__ import annotations

import pytest
from lmms_eval.api.instance import Instance
from PIL import Image

from gui_models.hf_backend import GuiHF
from gui_models.layers import LAYER_PATHS, decoder_layer_path, decoder_layers
from gui_core.logit_capture import extras_of
from tiny_archs import ARCHS, session_checkpoint


def _requests(lm, n=4):
    """Requests with one or two images of different sizes (odd rows carry two)."""
    docs = [{"img": [Image.new("RGB", (60 + 20 * i, 40 + 10 * i), (40 * i, 200 - 30 * i, 90))] * (1 + i % 2)} for i in range(n)]
    lm.task_dict = {"t": {"test": docs}}
    return [Instance("generate_until", (f"question {i} 设置", {"max_new_tokens": 5}, lambda d: d["img"], i, "t", "test"), 0,
                     {"task": "t", "doc_id": i, "repeats": 1}) for i in range(n)]


@pytest.mark.parametrize("arch", ARCHS)
def test_batch_of_two_equals_batch_of_one_for_every_architecture(arch, checkpoint_root):
    ckpt = session_checkpoint(checkpoint_root, arch)
    lm = GuiHF(pretrained=str(ckpt), device="cpu", batch_size=1)
    one = lm.generate_until(_requests(lm))
    lm.batch_size_per_gpu = 2
    two = lm.generate_until(_requests(lm))
    assert [str(x) for x in two] == [str(x) for x in one]
    assert len(set(map(str, one))) > 1 or arch == "gemma3"  # answers depend on the input (Gemma3's tiny model saturates)
    assert len(lm.layers) == 4
    sizes = [extras_of(x).get("model_image_sizes") for x in one]
    if arch.startswith("qwen"):  # Qwen-family processors say the size of each image they fed: one per image, in order
        assert [len(s) for s in sizes] == [1, 2, 1, 2]
        ip = lm.processor.image_processor
        unit = ip.patch_size * ip.merge_size  # 28 for Qwen2/2.5-VL, 32 for Qwen3-VL
        assert all(w % unit == 0 and h % unit == 0 for s in sizes for w, h in s)
    else:
        assert sizes == [None] * 4


def test_qwen2_vl_model_image_sizes_are_the_smart_resized_sizes(tiny_checkpoint):
    from gui_core.coords import Geometry
    from gui_models.tiny_model import MAX_PIXELS, MIN_PIXELS

    lm = GuiHF(pretrained=str(tiny_checkpoint), device="cpu")
    docs = [{"img": [Image.new("RGB", (640, 400), (10, 20, 30))]}]
    lm.task_dict = {"t": {"test": docs}}
    req = Instance("generate_until", ("where?", {"max_new_tokens": 2}, lambda d: d["img"], 0, "t", "test"), 0,
                   {"task": "t", "doc_id": 0, "repeats": 1})
    got = extras_of(lm.generate_until([req])[0])["model_image_sizes"]
    geo = Geometry.qwen(640, 400, min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)
    assert got == [[geo.resized_width, geo.resized_height]]


@pytest.mark.parametrize("arch", ["idefics3", "smolvlm"])
def test_layer_finder_covers_idefics3_and_smolvlm(arch):
    import transformers as T

    cls = T.Idefics3Config if arch == "idefics3" else T.SmolVLMConfig
    config = cls(text_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
                                  num_key_value_heads=2, vocab_size=300, model_type="llama"),
                 vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                    image_size=28, patch_size=14), scale_factor=2, image_token_id=5)
    model = T.AutoModelForImageTextToText.from_config(config)
    assert decoder_layer_path(model) == "model.text_model.layers"
    assert len(decoder_layers(model)) == 3


def test_layer_finder_error_lists_every_path_tried():
    import torch.nn as nn

    with pytest.raises(ValueError) as err:
        decoder_layers(nn.Sequential(nn.Linear(2, 2)))
    assert all(p in str(err.value) for p in LAYER_PATHS)
