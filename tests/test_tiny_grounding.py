"""``gui-eval make-tiny-model --grounding`` answers in-frame points on every grounding task family the README's first
tries name (issue 53): the synthetic icon boards, ScreenSpot-Pro's and OSWorld-G's instructions (English and Chinese)
on screenshot-shaped images, read by the PSS prompt's own reader."""

from __future__ import annotations

import pytest

# instructions of the kinds the tasks send: icon boards, ScreenSpot-Pro (its release and the hub stand-in's), its
# Chinese set, OSWorld-G; none is one of the taught phrases verbatim
INSTRUCTIONS = ("the lightning icon", "open item 3", "打开 2", "click save", "the missing menu",
                "Click on the 'Export as PDF' option in the File menu", "在工具栏中选择画笔工具", "tap send")
SIZES = ((1920, 1080), (2560, 1600), (1170, 2532), (160, 120))


@pytest.mark.slow
def test_the_tiny_grounding_checkpoint_answers_in_frame_points(tiny_grounding_checkpoint):
    import torch
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from gui_core.grounding import parse_point
    from gui_core.grounding_prompts import build_prompt

    processor = AutoProcessor.from_pretrained(tiny_grounding_checkpoint)
    model = AutoModelForImageTextToText.from_pretrained(tiny_grounding_checkpoint, dtype=torch.float32).eval()
    bad = []
    for i, instruction in enumerate(INSTRUCTIONS):
        for j, size in enumerate(SIZES):
            image = Image.new("RGB", size, ((37 * i + 11 * j) % 256, (91 * j) % 256, (53 * i) % 256))
            text = build_prompt(instruction, "relative", *size)
            msgs = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
            batch = processor(text=[processor.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)],
                              images=[image], return_tensors="pt")
            with torch.no_grad():
                out = model.generate(**batch, max_new_tokens=32, do_sample=False)
            answer = processor.decode(out[0, batch["input_ids"].shape[1]:], skip_special_tokens=True)
            parsed = parse_point(answer, "relative")
            if parsed.point is None or not all(0 <= v <= 1 for v in parsed.point):
                bad.append((instruction, size, answer))
    assert not bad, bad
