"""Frozen payloads passed to intervention hooks: one object per stage, free to grow fields."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence


@dataclass(frozen=True)
class RequestContext:
    """One request before inference."""

    text: str
    """The task's prompt text (without the chat template)."""
    images: tuple[Any, ...]
    """PIL images in prompt order."""
    doc_id: int
    task: str
    gen_kwargs: Mapping[str, Any]
    """Generation settings from the task YAML (read-only)."""
    doc: Mapping[str, Any] | None = None
    """The task document, when the backend can see it (ground-truth hints need it)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Free-form notes that later stages (and the response stage) can read."""

    def with_(self, **changes: Any) -> "RequestContext":
        return replace(self, **changes)


@dataclass(frozen=True)
class ForwardContext:
    """What a forward-pass intervention may touch while a batch is generated."""

    model: Any
    """The loaded ``transformers`` model."""
    processor: Any
    inputs: Mapping[str, Any]
    """The processor's batch tensors (``input_ids``, ``attention_mask``, pixel values, ...)."""
    requests: Sequence[RequestContext]
    """The batch's requests after the request stage, row-aligned with ``inputs``."""
    layers: Sequence[Any] = ()
    """The language model's decoder layers (``gui_models.layers.decoder_layers``); ``layers[l - 1]`` outputs h^(l)."""


@dataclass(frozen=True)
class ResponseContext:
    """One response after inference."""

    text: str
    request: RequestContext
    rerun: Callable[[RequestContext], str]
    """Runs the model again on a new request (e.g. a cropped screenshot) and returns its text."""
