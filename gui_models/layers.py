"""Finding the language model's decoder layers of a loaded VLM, across families and versions.

Matched explicitly by module path, never by guessing the most frequent ``prefix.N``
pattern (that can pick the vision tower). Also: reading last-token hidden states at
chosen layers through forward hooks on those same modules, so what a steering hook
modifies and what a memory stores are the same tensor.

Layer numbers follow the GUI-XLI paper (seed section 4.1, Eq. 1): ``h^(l)`` is the
residual stream after the l-th decoder layer, counted from 1 (``h^(0)`` = embeddings),
i.e. the output of ``decoder_layers(model)[l - 1]`` and ``hidden_states[l]`` of HF outputs.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

# Tried in order. transformers >= 4.52 keeps the language layers of Qwen2-VL, Qwen2.5-VL,
# Qwen3-VL, LLaVA(-Next, -OneVision), InternVL (native) and Gemma3 at
# ``model.language_model.layers``; earlier versions used ``model.layers`` (Qwen2-VL) and
# ``language_model.model.layers`` (LLaVA), which InternVL remote code still uses. Idefics3 and
# SmolVLM call their language model ``text_model`` (``model.text_model.layers``).
LAYER_PATHS: tuple[str, ...] = (
    "model.language_model.layers",
    "model.text_model.layers",
    "model.language_model.model.layers",
    "language_model.model.layers",
    "language_model.layers",
    "model.layers",
)


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _text_layer_count(model: Any) -> int | None:
    """``num_hidden_layers`` of the language model's config, when the config says it."""
    config = getattr(model, "config", None)
    if config is None:
        return None
    for sub in ("text_config", "llm_config"):
        text = getattr(config, sub, None)
        if text is not None and isinstance(getattr(text, "num_hidden_layers", None), int):
            return text.num_hidden_layers
    n = getattr(config, "num_hidden_layers", None)
    return n if isinstance(n, int) and getattr(config, "vision_config", None) is None else None


def decoder_layer_path(model: Any) -> str:
    """The dotted module path of the language model's decoder layers inside ``model``."""
    import torch.nn as nn

    expected = _text_layer_count(model)
    for path in LAYER_PATHS:
        layers = _get(model, path)
        if isinstance(layers, nn.ModuleList) and len(layers) > 0:
            if expected is not None and len(layers) != expected:
                continue  # a module list of another size is not the language model's layers
            return path
    raise ValueError(
        f"cannot find the decoder layers of {type(model).__name__} (tried {', '.join(LAYER_PATHS)}"
        + (f", looking for {expected} layers" if expected is not None else "")
        + "); add its module path to gui_models.layers.LAYER_PATHS"
    )


def decoder_layers(model: Any):
    """The ``nn.ModuleList`` of decoder layers of the language model inside ``model``."""
    return _get(model, decoder_layer_path(model))


def layer_module(model: Any, layer: int):
    """The module whose output is ``h^(layer)`` (paper numbering, 1-based)."""
    layers = decoder_layers(model)
    if not 1 <= int(layer) <= len(layers):
        raise ValueError(f"layer {layer} is out of range: {type(model).__name__} has decoder layers 1..{len(layers)} "
                         "(paper numbering: h^(l) is the output of the l-th layer)")
    return layers[int(layer) - 1]


def hidden_of(output: Any):
    """The hidden-state tensor of a decoder layer's output (recent layers return a tensor, older a tuple)."""
    return output[0] if isinstance(output, (tuple, list)) else output


def last_real_positions(attention_mask: Any, length: int):
    """Index of the last real (mask 1) token of each row; the last column when no usable mask is given."""
    import torch

    if attention_mask is None or attention_mask.dim() != 2 or attention_mask.shape[1] != length:
        return None
    mask = attention_mask.to(torch.long)
    return length - 1 - torch.argmax(torch.flip(mask, dims=[1]), dim=1)


@contextmanager
def capture_last_token(model: Any, layers: Sequence[int], attention_mask: Any = None) -> Iterator[dict[int, Any]]:
    """Collect ``h^(l)`` of the last real token of each row at each layer l, from the first forward pass.

    Yields a dict filled during the pass: ``{l: float32 tensor [batch, hidden]}``. Hooks are
    removed on exit, also on error.
    """
    import torch

    found: dict[int, Any] = {}
    handles = []

    def make(layer: int):
        def hook(module, args, output):
            if layer in found:
                return None
            hidden = hidden_of(output)
            pos = last_real_positions(attention_mask, hidden.shape[1])
            rows = torch.arange(hidden.shape[0], device=hidden.device)
            idx = pos.to(hidden.device) if pos is not None else torch.full_like(rows, hidden.shape[1] - 1)
            found[layer] = hidden[rows, idx].detach().to(torch.float32).cpu()
            return None

        return hook

    try:
        for layer in layers:
            handles.append(layer_module(model, layer).register_forward_hook(make(int(layer))))
        yield found
    finally:
        for h in handles:
            h.remove()
