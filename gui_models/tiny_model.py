"""Builds a tiny, random-weight Qwen2-VL-family checkpoint offline, in seconds.

The checkpoint has the real architecture (vision tower, M-RoPE decoder, chat template,
processor), so tests and the offline demo run the same code paths as a 7B model. Its
tokenizer is a byte-level BPE trained here on a small corpus covering the six scripts
of the synthetic GUI world, plus Qwen2-VL's special tokens.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Literal

Family = Literal["qwen2_vl", "qwen2_5_vl"]
# the architectures a tiny checkpoint can have (transformers' config class of each); the first is the default, the one
# the demo and the grounding-taught checkpoint use
ARCHITECTURES: dict[str, str] = {"qwen2_vl": "Qwen2VLConfig", "qwen2_5_vl": "Qwen2_5_VLConfig"}
FAMILIES: tuple[str, ...] = tuple(ARCHITECTURES)
DEFAULT_FAMILY: str = FAMILIES[0]

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                  "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>")
# Small images keep a CPU forward pass cheap: at most 64 merged visual tokens per image.
MIN_PIXELS, MAX_PIXELS = 4 * 28 * 28, 64 * 28 * 28
VOCAB_SIZE = 1024
# initializer_range 0.2 (not 0.02): with tiny widths the default makes every prompt decode
# to the same tokens; larger weights make outputs depend on the input, so equality tests mean something.
TEXT = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=4096, rms_norm_eps=1e-6, initializer_range=0.2)
# head_dim 16 -> 8 rotary pairs split over (temporal, height, width)
MROPE = {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 10000.0}
# Served engines: vLLM's CPU attention supports head_dim 32, 64, 80 and up, not 16 (docs/ENGINES.md). The
# "served" width keeps hidden_size 64 with 2 heads / 1 KV head: head_dim 32 -> 16 rotary pairs over (t, h, w).
HEAD_DIMS = {16: dict(num_attention_heads=4, num_key_value_heads=2, mrope_section=[2, 3, 3]),
             32: dict(num_attention_heads=2, num_key_value_heads=1, mrope_section=[4, 6, 6])}

_CORPUS = [
    "Answer with the option's letter from the given choices directly. A. B. C. D. Answer: A B C D",
    "What is the user's goal? Where is the settings button located? Which element is above the search bar?",
    "Settings Wi-Fi Bluetooth Do Not Disturb Alarm Messages Notes Music Files Browser Shopping Search Back Home",
    "设置 无线网络 蓝牙 勿扰模式 闹钟 信息 备忘录 音乐 文件 浏览器 购物 搜索 返回 主页 答案 选项",
    "Paramètres Wi-Fi Bluetooth Ne pas déranger Alarme Messages Notes Musique Fichiers Navigateur Réponse",
    "Настройки Wi-Fi Bluetooth Не беспокоить Будильник Сообщения Заметки Музыка Файлы Браузер Ответ",
    "設定 Wi-Fi Bluetooth おやすみモード アラーム メッセージ メモ ミュージック ファイル ブラウザ 答え",
    "การตั้งค่า ไวไฟ บลูทูธ ห้ามรบกวน นาฬิกาปลุก ข้อความ โน้ต เพลง ไฟล์ เบราว์เซอร์ คำตอบ",
    "0 1 2 3 4 5 6 7 8 9 10 100 0.5 [0.71, 0.23] CLICK TYPE SCROLL COMPLETE {\"answer\": \"C\"}",
]


def _tokenizer(out: Path | None = None, extra_tokens: tuple[str, ...] = (), named: dict[str, str] | None = None,
               chat_template: str | None = None):
    """The tiny byte-level BPE tokenizer with Qwen2-VL's special tokens, plus ``extra_tokens`` (other families'
    image tokens) and ``named`` model-specific tokens (e.g. Gemma3's ``boi_token``)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE - len(SPECIAL_TOKENS), special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    extra = [t for t in extra_tokens if t not in SPECIAL_TOKENS]
    tok.add_special_tokens(list(SPECIAL_TOKENS) + extra)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   unk_token=None, bos_token=None, padding_side="left", **(named or {}))
    fast.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS[1:]) + extra})
    fast.chat_template = chat_template or (Path(__file__).parent / "chat_template.jinja").read_text(encoding="utf-8")
    return fast


def _config(family: Family, tok, head_dim: int = 16):
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"head_dim {head_dim}: choose one of {sorted(HEAD_DIMS)}")
    heads = dict(HEAD_DIMS[head_dim])
    rope = dict(MROPE, mrope_section=heads.pop("mrope_section"))
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    common = dict(image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                  vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    text = dict(TEXT, **heads, vocab_size=len(tok), rope_parameters=rope, bos_token_id=ids["<|endoftext|>"],
                eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])
    import transformers

    config = getattr(transformers, ARCHITECTURES[family])
    return config(text_config=text, vision_config=dict(_VISION[ARCHITECTURES[family]]), **common)


# each architecture's tiny vision tower (the two towers name their widths differently)
_VISION = {"Qwen2VLConfig": dict(depth=2, embed_dim=32, hidden_size=TEXT["hidden_size"], num_heads=2, mlp_ratio=2),
           "Qwen2_5_VLConfig": dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2,
                                    out_hidden_size=TEXT["hidden_size"], fullatt_block_indexes=[1], window_size=112)}


def build_tiny_model(out_dir: str | Path, family: Family = DEFAULT_FAMILY, seed: int = 0, head_dim: int = 16) -> Path:  # type: ignore[assignment]
    """Write a tiny random ``family`` checkpoint with tokenizer and processor to ``out_dir``.

    ``head_dim`` 16 (4 heads, the default) or 32 (2 heads / 1 KV head: what vLLM's CPU attention serves).
    """
    import torch
    from transformers import AutoModelForImageTextToText, Qwen2VLImageProcessor, Qwen2VLProcessor

    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose one of {FAMILIES}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = _tokenizer(out)
    config = _config(family, tok, head_dim)
    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_config(config)
    model.eval()
    image_processor = Qwen2VLImageProcessor(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS,
                                            size={"shortest_edge": MIN_PIXELS, "longest_edge": MAX_PIXELS})
    processor = Qwen2VLProcessor(image_processor=image_processor, tokenizer=tok, video_processor=_video_processor(),
                                 chat_template=tok.chat_template)
    model.generation_config.do_sample = False
    model.generation_config.eos_token_id = tok.convert_tokens_to_ids("<|im_end|>")
    model.generation_config.pad_token_id = tok.pad_token_id
    for attr in ("temperature", "top_p", "top_k"):
        setattr(model.generation_config, attr, None)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    (out / "gui_eval_tiny.json").write_text(json.dumps({"family": family, "seed": seed, "head_dim": head_dim, "random_weights": True}), encoding="utf-8")
    return out


def _video_processor():
    from transformers import Qwen2VLVideoProcessor

    return Qwen2VLVideoProcessor(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS,
                                 size={"shortest_edge": MIN_PIXELS, "longest_edge": MAX_PIXELS})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--family", default=DEFAULT_FAMILY, choices=FAMILIES)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--head-dim", type=int, default=16, choices=sorted(HEAD_DIMS))
    args = ap.parse_args(argv)
    print(build_tiny_model(args.dir, family=args.family, seed=args.seed, head_dim=args.head_dim))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
