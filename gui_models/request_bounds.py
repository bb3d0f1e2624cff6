"""The prompt-token bound of a local model: how many tokens one request may put before ``gui_hf``'s model.

The document-side bounds (prompt characters, images per document, aspect ratio) are ``gui_core.bounds``, checked when
a request is parsed. This one depends on the model: the chat-templated prompt with its image tokens, counted by the
model's own processor, must fit the positions the language model was built for (``max_position_embeddings``), or
the ``max_prompt_tokens`` model arg. A request over it is that sample's named error (``gui_core.sample_faults``),
never sent to ``generate``: a prompt of a quarter of a million tokens would otherwise prefill until killed.
"""

from __future__ import annotations

from typing import Any


def prompt_token_bound(model: Any, override: int | str | None = None) -> int | None:
    """The most prompt tokens one request may have: ``override`` when given, else the language model's
    ``max_position_embeddings``; None when neither is known."""
    if override is not None and str(override).strip().lower() not in ("", "none"):
        return int(override)  # checked where the model args are (gui_models.model_args)
    config = getattr(model, "config", None)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    found = getattr(text, "max_position_embeddings", None)
    return int(found) if isinstance(found, int) and found > 0 else None


def prompt_refusal(tokens: int, bound: int | None) -> str | None:
    """Why a prompt of ``tokens`` tokens (chat template and image tokens included) is refused, or None."""
    if bound is not None and tokens > bound:
        return f"the prompt is {tokens} tokens long, over the bound of {bound} (model arg max_prompt_tokens)"
    return None
