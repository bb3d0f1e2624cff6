"""A tiny checkpoint taught the PSS answer format ``[0.ab, 0.cd]``, so grounding runs end to end offline.

A random tiny model (``gui_models.tiny_model``) never writes a coordinate, so PSS, the
Algorithm 1 types and the crop's second pass would all stay empty in tests. This fine-tunes it
for a few seconds on CPU to answer grounding prompts in the paper's format (appendix A) with
digits tied to the image's colour; it knows nothing about icons, only the format.
"""

from __future__ import annotations

import random
from pathlib import Path


def _answer(color: tuple[int, int, int]) -> str:
    """The point the model is taught for an image of one colour: red -> x, blue -> y, two decimals."""
    return f"[0.{10 + color[0] * 89 // 255:02d}, 0.{10 + color[2] * 89 // 255:02d}]"


# Instructions of every kind the grounding tasks send (icon names on the synthetic boards; ScreenSpot-Pro's and
# OSWorld-G's element descriptions, English and Chinese): taught on a few, a tiny model answers "[0]" to the others
_WORDS = ("anchor", "gear", "key", "crown", "atom", "bell", "heart", "house", "save", "file", "edit", "view", "settings",
          "search", "close", "toolbar", "menu", "button", "tab", "window", "dialog", "panel", "left", "right", "top",
          "bottom", "red", "blue", "new", "open", "export", "layer", "brush", "terminal", "folder", "zoom", "cancel")
_TEMPLATES = ("the {} icon", "click the {} button", "open the {} menu", "{}", "select {} in the {} panel",
              "the {} {} at the {} of the {}", "打开{}菜单", "点击{}按钮", "{} {} {} {} {}")
# image shapes: the synthetic boards' and a screenshot's (16:9, 16:10, portrait phone, square)
_SIZES = ((160, 100), (320, 200), (160, 200), (384, 216), (320, 200), (216, 384), (240, 240))


def _instruction(rng: random.Random) -> str:
    template = rng.choice(_TEMPLATES)
    return template.format(*(rng.choice(_WORDS) for _ in range(template.count("{}"))))


def build_tiny_grounding_model(out_dir: str | Path, *, steps: int = 120, seed: int = 0, head_dim: int = 16) -> Path:
    """Build the tiny Qwen2-VL checkpoint and teach it the ``[x, y]`` answer format; returns ``out_dir``.

    ``head_dim=32`` gives the variant vLLM's CPU build serves (``gui_models.tiny_model.HEAD_DIMS``).
    """
    import torch
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from gui_models.tiny_model import DEFAULT_FAMILY, build_tiny_model

    out = build_tiny_model(out_dir, family=DEFAULT_FAMILY, seed=seed, head_dim=head_dim)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is several times faster than contended ones
    try:
        return _teach(out, torch, Image, AutoModelForImageTextToText, AutoProcessor, steps, seed)
    finally:
        torch.set_num_threads(threads)


def _teach(out, torch, Image, AutoModelForImageTextToText, AutoProcessor, steps: int, seed: int) -> Path:
    processor = AutoProcessor.from_pretrained(out)
    model = AutoModelForImageTextToText.from_pretrained(out, dtype=torch.float32)
    model.train()
    rng = random.Random(seed)
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    prompt = ("According to the image I provide, identify the relative coordinates of the specified object, with values "
              "ranging from 0 to 1. The output format must be [x, y], and do not output anything else.\n{}")
    for _ in range(steps):
        texts, images, answers = [], [], []
        for _ in range(4):
            color = tuple(rng.randrange(256) for _ in range(3))
            msgs = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt.format(_instruction(rng))}]}]
            texts.append(processor.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False))
            images.append(Image.new("RGB", rng.choice(_SIZES), color))
            answers.append(_answer(color))
        batch = processor(text=[t + a + "<|im_end|>" for t, a in zip(texts, answers)], images=images, return_tensors="pt",
                          padding=True)
        labels = torch.full_like(batch["input_ids"], -100)
        for row, a in enumerate(answers):
            n = len(processor.tokenizer(a, add_special_tokens=False)["input_ids"]) + 1  # the answer and <|im_end|>
            labels[row, -n:] = batch["input_ids"][row, -n:]  # left padding: the answer ends every row
        loss = model(**batch, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    model.save_pretrained(out)
    (out / "gui_eval_tiny_grounding.json").write_text(f'{{"steps": {steps}, "seed": {seed}, "final_loss": {float(loss.detach()):.4f}}}',
                                                        encoding="utf-8")
    return out
