"""Tiny models of every supported VLM family, built offline from configs, and hand-built GUI-XLI memories."""

from __future__ import annotations

import torch

TEXT = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=128, bos_token_id=1, eos_token_id=2, pad_token_id=0)
MROPE = {"rope_type": "default", "mrope_section": [1, 1, 2], "rope_theta": 10000.0}
CLIP = dict(model_type="clip_vision_model", hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
            image_size=28, patch_size=14)


def _configs():
    import transformers as T

    return {
        "qwen2_vl": lambda: T.Qwen2VLConfig(text_config=dict(TEXT, rope_parameters=dict(MROPE)),
                                            vision_config=dict(depth=1, embed_dim=16, hidden_size=32, num_heads=2)),
        "qwen2_5_vl": lambda: T.Qwen2_5_VLConfig(text_config=dict(TEXT, rope_parameters=dict(MROPE)),
                                                 vision_config=dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2,
                                                                    out_hidden_size=32)),
        "qwen3_vl": lambda: T.Qwen3VLConfig(text_config=dict(TEXT, head_dim=8),
                                            vision_config=dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2,
                                                               out_hidden_size=32, deepstack_visual_indexes=[0])),
        "llava": lambda: T.LlavaConfig(text_config=dict(TEXT, model_type="llama"), vision_config=dict(CLIP)),
        "llava_next": lambda: T.LlavaNextConfig(text_config=dict(TEXT, model_type="llama"), vision_config=dict(CLIP)),
        "llava_onevision": lambda: T.LlavaOnevisionConfig(
            text_config=dict(TEXT, model_type="qwen2"),
            vision_config=dict(CLIP, model_type="siglip_vision_model")),
        "internvl": lambda: T.InternVLConfig(text_config=dict(TEXT, model_type="qwen2"),
                                             vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                                num_attention_heads=2, image_size=[28, 28], patch_size=[14, 14])),
    }


FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "llava", "llava_next", "llava_onevision", "internvl")


def tiny_family_model(family: str):
    """A random tiny model of ``family`` (3 decoder layers, hidden 32), offline."""
    from transformers import AutoModelForImageTextToText

    torch.manual_seed(0)
    model = AutoModelForImageTextToText.from_config(_configs()[family]())
    return model.eval()


def hand_memory(keys, values, dims, *, layers=(1,), lang="ja", provenance=None):
    """A memory from explicit per-entry keys and values ([entries, hidden]), the same at every layer."""
    from gui_interventions.xli_memory import XLIMemory, entry_record

    keys = torch.as_tensor(keys, dtype=torch.float32)
    values = torch.as_tensor(values, dtype=torch.float32)
    n = len(layers)
    entries = [entry_record(f"e{i}", d) for i, d in enumerate(dims)]
    return XLIMemory(tuple(layers), keys.unsqueeze(0).repeat(n, 1, 1), values.unsqueeze(0).repeat(n, 1, 1), entries,
                     {"lang": lang, **(provenance or {})})
