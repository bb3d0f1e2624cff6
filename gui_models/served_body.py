"""The chat-completion body ``gui_openai`` sends for one request (images first, then the text, as ``gui_hf`` builds
its prompt), with the task's decoding settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gui_interventions import RequestContext
from gui_models.served_client import FAST_PNG_LEVEL, EncodedImage, encode_image


def _is_true(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes"}


@dataclass
class Prepared:
    """A request ready to send: its body, the sizes of the images sent and the digest of each image's bytes (cache key)."""

    body: dict[str, Any]
    sizes: list[list[int]]
    digests: list[str]
    until: list[str] | None = None  # the task's stop strings (cut on our side; not sent with thinking on)


def build_body(req: RequestContext, model: str, default_max: int, system_prompt: str | None = None,
               transport: str = "auto", png_level: int = FAST_PNG_LEVEL) -> Prepared:
    """The chat-completion body of one request (images first, then the text, as ``gui_hf`` builds its prompt).

    Images as ``served_client.encode_image`` sends them (``transport``: a file's own bytes when lossless, else PNG).
    The task's ``max_new_tokens`` -> ``max_tokens``, ``until`` -> ``stop``, greedy unless ``do_sample`` or a
    temperature > 0 (then ``temperature`` and ``top_p`` as given).
    """
    gen = req.gen_kwargs
    content: list[dict[str, Any]] = []
    sizes: list[list[int]] = []
    digests: list[str] = []
    for im in req.images:
        enc: EncodedImage = encode_image(im, transport, png_level)
        content.append({"type": "image_url", "image_url": {"url": enc.url}})
        sizes.append(enc.size)
        digests.append(enc.digest)
    content.append({"type": "text", "text": req.text})
    messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
    if system_prompt:
        messages.insert(0, {"role": "system", "content": system_prompt})
    temperature = float(gen.get("temperature") or 0.0)
    sample = _is_true(gen.get("do_sample", False)) or temperature > 0
    body: dict[str, Any] = {"model": model, "messages": messages,
                            "max_tokens": int(gen.get("max_new_tokens") or default_max),
                            "temperature": (temperature or 1.0) if sample else 0.0}
    if sample and gen.get("top_p") is not None:
        body["top_p"] = float(gen["top_p"])
    stops = [gen["until"]] if isinstance(gen.get("until"), str) else [s for s in (gen.get("until") or []) if s]
    if stops:
        body["stop"] = list(stops)
    return Prepared(body, sizes, digests, list(stops))


def generation_body(req: RequestContext, model: str, default_max: int, system_prompt: str | None = None,
                    transport: str = "auto", png_level: int = FAST_PNG_LEVEL) -> tuple[dict[str, Any], list[list[int]]]:
    """:func:`build_body` as (body, sizes sent)."""
    p = build_body(req, model, default_max, system_prompt, transport, png_level)
    return p.body, p.sizes

