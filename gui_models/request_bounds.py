"""What one request may ask of a local model before it reaches it: images per document and prompt tokens.

A request over a bound is that sample's named error (``gui_core.sample_faults``), never the run's: a 1 MB
instruction would otherwise make ``gui_hf`` prefill a quarter of a million tokens until killed (issue 47). The
image's own size and aspect ratio are the model's processor's to refuse (Qwen2-VL's refuses an aspect ratio over
200): ``gui_hf`` calls it per document when a batch fails, so that refusal is one document's error too.

Minimal on purpose (issue 47 item 2 puts the shared bounds on the floor); ``gui_hf`` reads them only from here.
"""

from __future__ import annotations

from typing import Any

MAX_IMAGES_PER_REQUEST = 64
"""Images one document may carry (the benchmarks here send at most a few dozen frames of an episode)."""


def images_refusal(count: int, bound: int = MAX_IMAGES_PER_REQUEST) -> str | None:
    """Why a request with ``count`` images is refused, or None."""
    if count > bound:
        return f"the request carries {count} images, over the bound of {bound} per document"
    return None


def prompt_token_bound(model: Any, override: int | str | None = None) -> int | None:
    """The most prompt tokens one request may have: ``override`` when given, else the language model's
    ``max_position_embeddings`` (positions past it are not ones the model was built for); None when neither is known."""
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
