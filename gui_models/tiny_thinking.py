"""A tiny checkpoint whose chat template switches thinking on and off as the Qwen3 templates do (tests, issue 51).

The template is the tiny model's own (``gui_models/chat_template.jinja``) with the generation prompt of the Qwen3
chat templates (Qwen/Qwen3-8B ``tokenizer_config.json`` ``chat_template``, 2025-04): when the caller passes
``enable_thinking=False`` the assistant turn opens with an empty reasoning block (``<think>\\n\\n</think>\\n\\n``), so the
model answers at once; otherwise (``True`` or unset) the model writes its own ``<think>...</think>`` first. The
weights are random: tests make the model reason by a logits processor that writes a scripted reply (the generation
code, the template, the stopping rules and the budget are the real ones).
"""

from __future__ import annotations

from pathlib import Path

THINKING_GENERATION_PROMPT = """{%- if add_generation_prompt -%}
<|im_start|>assistant
{% if enable_thinking is defined and enable_thinking is false -%}
<think>

</think>

{% endif -%}
{%- endif -%}
"""
EMPTY_REASONING = "<think>\n\n</think>\n\n"  # what the template writes into the prompt with enable_thinking=False


def thinking_template() -> str:
    """The tiny chat template with the Qwen3-style generation prompt."""
    base = (Path(__file__).parent / "chat_template.jinja").read_text(encoding="utf-8")
    head, sep, _tail = base.partition("{%- if add_generation_prompt -%}")
    if not sep:
        raise ValueError("gui_models/chat_template.jinja has no generation prompt block")
    return head + THINKING_GENERATION_PROMPT


def build_tiny_thinking_model(out_dir: str | Path, seed: int = 0) -> Path:
    """The tiny Qwen2-VL checkpoint (``gui_models.tiny_model``) with the thinking chat template; returns ``out_dir``."""
    from transformers import AutoProcessor

    from gui_models.tiny_model import build_tiny_model

    out = build_tiny_model(out_dir, seed=seed)
    processor = AutoProcessor.from_pretrained(out)
    processor.chat_template = thinking_template()
    processor.tokenizer.chat_template = processor.chat_template
    processor.save_pretrained(out)
    return out
