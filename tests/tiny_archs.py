"""Tiny random checkpoints (model + tokenizer + processor) of several VLM architectures, built offline from configs.

Every family gets the tiny BPE tokenizer of ``gui_models.tiny_model`` with its own image tokens
and a chat template that writes its image placeholder, a processor of its own class sized so
that one image costs a handful of tokens, and a 4-layer decoder of width 64. Loaded by
``AutoModelForImageTextToText`` / ``AutoProcessor`` exactly as a hub checkpoint would be.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from gui_models.tiny_model import FAMILIES as QWEN_FAMILIES
from gui_models.tiny_model import _tokenizer, build_tiny_model
from gui_tasks.synth.cache import locked

TEXT = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=4096, initializer_range=0.2)
QWEN_PLACEHOLDER = "<|vision_start|><|image_pad|><|vision_end|>"
# SmolVLM's processor needs the num2words package, which the environment does not carry: its checkpoint is built
# without a processor (the layer finder still runs on it).
ARCHS = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "gemma3", "idefics3", "internvl", "llava_onevision")
# Not in ARCHS (no separate HF architecture): the Qwen2-VL checkpoint with head_dim 32 that vLLM's CPU build serves.
SERVED_ARCH = "qwen2_vl_served"


def _template(placeholder: str) -> str:
    text = (Path(__file__).resolve().parents[1] / "gui_models" / "chat_template.jinja").read_text(encoding="utf-8")
    return text.replace(QWEN_PLACEHOLDER, placeholder)


def _ids(tok, *names):
    return [tok.convert_tokens_to_ids(n) for n in names]


def session_checkpoint(cache_root: Path, arch: str) -> Path:
    """The tiny ``arch`` checkpoint under ``cache_root`` (one folder per arch, built on first use, then shared; safe for
    several pytest-xdist workers at once: :func:`built_once`)."""
    return built_once(Path(cache_root) / "archs" / arch, "config.json", lambda tmp: build(arch, tmp))


def built_once(out: Path, marker: str, write: Callable[[Path], object]) -> Path:
    """``out``, written by ``write(tmp)`` into a temporary sibling folder and renamed into place under a file lock
    unless ``out/marker`` is there already: several processes (pytest-xdist workers) asking at once build it once, and
    none ever reads a half-written checkpoint."""
    out = Path(out)
    if (out / marker).is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with locked(out.parent / f".{out.name}.lock"):
        if (out / marker).is_file():  # another worker finished it while we waited
            return out
        if out.exists():  # left half-written by a crashed build
            shutil.rmtree(out)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.building-"))
        try:
            write(tmp)
            os.rename(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def build(arch: str, out: Path, seed: int = 0) -> Path:
    """Write a tiny ``arch`` checkpoint into ``out`` (skipped when it is there already)."""
    import torch
    import transformers as T

    out = Path(out)
    if (out / "config.json").is_file():
        return out
    if arch in QWEN_FAMILIES:
        return build_tiny_model(out, family=arch, seed=seed)
    if arch == SERVED_ARCH:
        return build_tiny_model(out, family="qwen2_vl", seed=seed, head_dim=32)
    out.mkdir(parents=True, exist_ok=True)
    if arch == "qwen3_vl":
        tok = _tokenizer()
        image, video, start, end = _ids(tok, "<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>")
        config = T.Qwen3VLConfig(
            text_config=dict(TEXT, head_dim=16, vocab_size=len(tok), eos_token_id=_ids(tok, "<|im_end|>")[0],
                             pad_token_id=tok.pad_token_id, rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                                                              "mrope_section": [2, 3, 3], "mrope_interleaved": True}),
            vision_config=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64, patch_size=16,
                               deepstack_visual_indexes=[0], num_position_embeddings=64),
            image_token_id=image, video_token_id=video, vision_start_token_id=start, vision_end_token_id=end)
        ip = T.Qwen2VLImageProcessor(patch_size=16, merge_size=2, size={"shortest_edge": 4 * 32 * 32, "longest_edge": 16 * 32 * 32})
        vp = T.Qwen3VLVideoProcessor(patch_size=16, merge_size=2, size={"shortest_edge": 4 * 32 * 32, "longest_edge": 16 * 32 * 32})
        processor = T.Qwen3VLProcessor(image_processor=ip, tokenizer=tok, video_processor=vp, chat_template=tok.chat_template)
    elif arch == "gemma3":
        tokens = ("<start_of_image>", "<image_soft_token>", "<end_of_image>")
        tok = _tokenizer(extra_tokens=tokens, named={"boi_token": tokens[0], "image_token": tokens[1], "eoi_token": tokens[2]},
                         chat_template=_template("<start_of_image>"))
        boi, img, eoi = _ids(tok, *tokens)
        config = T.Gemma3Config(
            text_config=dict(TEXT, head_dim=16, vocab_size=len(tok), sliding_window=64, initializer_range=0.02, eos_token_id=_ids(tok, "<|im_end|>")[0],
                             pad_token_id=tok.pad_token_id, bos_token_id=tok.pad_token_id),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, image_size=56,
                               patch_size=14),
            mm_tokens_per_image=4, boi_token_index=boi, eoi_token_index=eoi, image_token_index=img)
        ip = T.Gemma3ImageProcessor(size={"height": 56, "width": 56})
        processor = T.Gemma3Processor(image_processor=ip, tokenizer=tok, image_seq_length=4, chat_template=tok.chat_template)
    elif arch == "idefics3":
        tokens = ("<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>")
        tok = _tokenizer(extra_tokens=tokens, chat_template=_template("<image>"))
        config = T.Idefics3Config(
            text_config=dict(TEXT, model_type="llama", vocab_size=len(tok), eos_token_id=_ids(tok, "<|im_end|>")[0],
                             pad_token_id=tok.pad_token_id),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, image_size=28,
                               patch_size=14),
            scale_factor=2, image_token_id=_ids(tok, "<image>")[0])
        ip = T.Idefics3ImageProcessor(size={"longest_edge": 56}, max_image_size={"longest_edge": 28})
        processor = T.Idefics3Processor(image_processor=ip, tokenizer=tok, image_seq_len=1, chat_template=tok.chat_template)
    elif arch == "internvl":
        tokens = ("<img>", "</img>", "<IMG_CONTEXT>", "<video>")
        tok = _tokenizer(extra_tokens=tokens, named={"start_image_token": "<img>", "end_image_token": "</img>",
                                                     "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"},
                         chat_template=_template("<IMG_CONTEXT>"))
        config = T.InternVLConfig(
            text_config=dict(TEXT, model_type="qwen2", vocab_size=len(tok), eos_token_id=_ids(tok, "<|im_end|>")[0],
                             pad_token_id=tok.pad_token_id),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                               image_size=[28, 28], patch_size=[14, 14]),
            image_token_id=_ids(tok, "<IMG_CONTEXT>")[0], downsample_ratio=0.5)
        ip = T.GotOcr2ImageProcessor(size={"height": 28, "width": 28}, crop_to_patches=False)
        vp = T.InternVLVideoProcessor(size={"height": 28, "width": 28})
        processor = T.InternVLProcessor(image_processor=ip, tokenizer=tok, video_processor=vp, image_seq_length=1,
                                        chat_template=tok.chat_template)
    elif arch == "llava_onevision":
        tokens = ("<image>", "<video>")
        tok = _tokenizer(extra_tokens=tokens, named={"image_token": "<image>", "video_token": "<video>"},
                         chat_template=_template("<image>"))
        pinpoints = [[28, 28], [28, 56], [56, 28], [56, 56]]
        config = T.LlavaOnevisionConfig(
            text_config=dict(TEXT, model_type="qwen2", vocab_size=len(tok), eos_token_id=_ids(tok, "<|im_end|>")[0],
                             pad_token_id=tok.pad_token_id),
            vision_config=dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=2, image_size=28, patch_size=14),
            image_token_index=_ids(tok, "<image>")[0], video_token_index=_ids(tok, "<video>")[0],
            image_grid_pinpoints=pinpoints, vision_feature_layer=-1, vision_feature_select_strategy="full")
        ip = T.LlavaOnevisionImageProcessor(size={"height": 28, "width": 28}, image_grid_pinpoints=pinpoints)
        vp = T.LlavaOnevisionVideoProcessor(size={"height": 28, "width": 28})
        processor = T.LlavaOnevisionProcessor(image_processor=ip, tokenizer=tok, video_processor=vp, num_image_tokens=4,
                                              vision_feature_select_strategy="full", chat_template=tok.chat_template)
    else:
        raise ValueError(f"unknown architecture {arch!r}; choose one of {ARCHS}")
    torch.manual_seed(seed)
    model = T.AutoModelForImageTextToText.from_config(config).eval()
    gc = model.generation_config
    gc.do_sample, gc.eos_token_id, gc.pad_token_id = False, _ids(tok, "<|im_end|>")[0], tok.pad_token_id
    for attr in ("temperature", "top_p", "top_k"):
        setattr(gc, attr, None)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out
