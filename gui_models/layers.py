"""Finding the language model's decoder layers of a loaded VLM, across families and versions.

Matched explicitly by module path, never by guessing the most frequent ``prefix.N``
pattern (that can pick the vision tower).
"""

from __future__ import annotations

from typing import Any

# Tried in order. transformers >= 4.52 moved Qwen2-VL/LLaVA language layers under
# ``model.model.language_model``; earlier versions and InternVL remote code use the others.
LAYER_PATHS: tuple[str, ...] = (
    "model.language_model.layers",
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


def decoder_layers(model: Any):
    """The ``nn.ModuleList`` of decoder layers of the language model inside ``model``."""
    import torch.nn as nn

    for path in LAYER_PATHS:
        layers = _get(model, path)
        if isinstance(layers, nn.ModuleList) and len(layers) > 0:
            return layers
    raise ValueError(
        f"cannot find the decoder layers of {type(model).__name__} (tried {', '.join(LAYER_PATHS)}); "
        "add its module path to gui_models.layers.LAYER_PATHS"
    )
