"""The protocol label a result is ranked under: prompt protocol, interventions and the model args that change what the
model sees. Shared by submissions (gui_tasks.submit.leaderboard) and the reports' with/without-vision tables."""

from __future__ import annotations

from typing import Sequence

from gui_tasks.runs.hashing import sha256_text

# Model args that change what the model is shown (its system prompt, the image resolution it sees, the chat template's
# thinking switch and the reasoning budget: gui_core.reasoning): a run with any of them is ranked under its own protocol
# label. A system prompt enters the label as a hash (its text is in the args).
VIEW_ARGS = ("system_prompt", "min_pixels", "max_pixels", "resize_budget", "image_scale", "thinking", "think_budget")


def interventions_of(model_args: str) -> list[str]:
    """Intervention names selected in lmms-eval ``model_args`` (``interventions=a+b``), in order."""
    for part in model_args.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "interventions":
            return [n.strip() for n in value.split("+") if n.strip()]
    return []


def view_args_of(model_args: str) -> list[str]:
    """The :data:`VIEW_ARGS` set in ``model_args`` as label parts (``max_pixels=1003520``, ``system_prompt:sha256:<12 hex>``)."""
    from lmms_eval.utils import _smart_comma_split

    parts = []
    for part in _smart_comma_split(model_args.strip()) if model_args.strip() else []:
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key in VIEW_ARGS and value:
            parts.append((key, f"{key}:sha256:{sha256_text(value)[:12]}" if key == "system_prompt" else f"{key}={value}"))
    return [label for _key, label in sorted(parts, key=lambda kv: VIEW_ARGS.index(kv[0]))]


def protocol_label(prompt_protocol: str, interventions: Sequence[str], model_args: str = "") -> str:
    """The protocol a result is ranked under: the prompt protocol, plus every intervention (``mpr-direct-v1+gui_xli``) and
    every model arg that changes what the model sees (:func:`view_args_of`)."""
    return "+".join([prompt_protocol, *interventions, *view_args_of(model_args)])
