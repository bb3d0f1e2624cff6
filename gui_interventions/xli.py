"""GUI-XLI (seed section 4.4): steer the last token's residual stream toward English with retrieved memory values.

``--model_args ...,interventions=gui_xli,gui_xli.memory=NAME,gui_xli.layer=16,gui_xli.alpha=0.12``
or ``gui_xli.preset=qwen2.5-vl-7b/zh`` (Table 5). Parameters:

    memory       memory name (under ``$GUI_XLI_MEMORY_DIR`` or ``<cache>/xli_memories``) or folder (required)
    layer        l: steer h^(l), the output of the l-th decoder layer (1-based, seed Eq. 1)
    alpha        strength in Eq. 6
    k            entries retrieved by cosine similarity (Eq. 5); the paper does not state it (default 3)
    preset       a Table 5 row: fills layer, alpha and memory_size unless given explicitly
    memory_size  entries per dimension used (the paper's 10); default all the memory holds
    scope        ``dimension`` (own dimension's entries; RI/SI the union of the six basic ones,
                 appendix B.1) or ``all`` (always the union)
    decode       what happens at generated tokens (the paper steers "the final token" and is silent
                 on later steps): ``reuse`` (default) steers each newly generated token's h^(l) with
                 the vector retrieved for the prompt; ``retrieve`` re-retrieves with that token's own
                 state; ``none`` steers only the prompt's last token
    only_lang    ``true`` (default): rows whose document is in another language than the memory's
                 target language are left alone (English rows are never steered toward English)

Positions: during prompt processing only the last real token of each row is steered (left or
right padding, read from the attention mask); each decoding step sees one new position per row,
steered as ``decode`` says. The steering hook is removed when the batch ends, also on error.
"""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

import torch

from gui_core.sample_faults import RunFault
from gui_interventions import hookimpl
from gui_interventions.params import number
from gui_interventions.payloads import ForwardContext
from gui_interventions.xli_memory import XLIMemory

# Seed Table 5: hyper-parameters per model and language (memory size 10 everywhere).
PRESETS: Mapping[str, Mapping[str, Any]] = {
    "qwen2.5-vl-7b/zh": {"layer": 16, "alpha": 0.12, "memory_size": 10, "lang": "zh"},
    "qwen2.5-vl-7b/ru": {"layer": 18, "alpha": 0.10, "memory_size": 10, "lang": "ru"},
    "qwen2.5-vl-7b/ja": {"layer": 13, "alpha": 0.10, "memory_size": 10, "lang": "ja"},
    "internvl2.5-8b/zh": {"layer": 12, "alpha": 0.12, "memory_size": 10, "lang": "zh"},
    "internvl2.5-8b/th": {"layer": 17, "alpha": 0.06, "memory_size": 10, "lang": "th"},
    "internvl2.5-8b/ja": {"layer": 14, "alpha": 0.10, "memory_size": 10, "lang": "ja"},
}
DEFAULT_K = 3
DECODE_MODES = ("reuse", "retrieve", "none")


def steer(h: torch.Tensor, v: torch.Tensor, alpha: float) -> torch.Tensor:
    """Eq. 6: ``||h|| (h + alpha v) / ||h + alpha v||`` over the last axis, computed in float32.

    With ``alpha == 0`` the result is bit-identical to ``h`` (x / x is exactly 1 in IEEE arithmetic).
    """
    h32 = h.to(torch.float32)
    u = h32 + float(alpha) * v.to(device=h.device, dtype=torch.float32)
    scale = torch.linalg.vector_norm(h32, dim=-1, keepdim=True) / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    return (u * scale).to(h.dtype)


def _bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes"}


def _doc_field(doc: Any, name: str) -> Any:
    try:
        return doc[name] if doc is not None else None
    except (KeyError, TypeError, IndexError):
        return None


def _check_numbers(*, layer: Any, alpha: Any, k: Any, memory_size: Any) -> tuple[Any, Any, Any, Any]:
    """Checked numeric parameters (None stays None): layer >= 1 (Eq. 1 counts from 1), alpha >= 0, k >= 1, size >= 1."""
    return (None if layer is None else number("gui_xli.layer", layer, low=1, integer=True),
            None if alpha is None else number("gui_xli.alpha", alpha, low=0),
            None if k is None else number("gui_xli.k", k, low=1, integer=True),
            None if memory_size is None else number("gui_xli.memory_size", memory_size, low=1, integer=True))


class GuiXLI:
    """The ``gui_xli`` intervention plugin (forward stage)."""

    def __init__(self, memory: str | None = None, layer: int | str | None = None, alpha: float | str | None = None,
                 k: int | str = DEFAULT_K, preset: str | None = None, memory_size: int | str | None = None,
                 scope: str = "dimension", decode: str = "reuse", only_lang: bool | str = True) -> None:
        settings: dict[str, Any] = {}
        _check_numbers(layer=layer, alpha=alpha, k=k, memory_size=memory_size)  # before the (slow) memory load
        if preset:
            if str(preset) not in PRESETS:
                raise ValueError(f"unknown gui_xli preset {preset!r}; Table 5 presets: {', '.join(PRESETS)}")
            settings.update(PRESETS[str(preset)])
        if memory is None:
            raise ValueError("gui_xli needs gui_xli.memory=<name or folder> (build one with `gui-eval xli build`)")
        self.memory = memory if isinstance(memory, XLIMemory) else XLIMemory.load(memory)
        defaults = self.memory.provenance.get("defaults") or {}
        layer = layer if layer is not None else settings.get("layer", defaults.get("layer"))
        alpha = alpha if alpha is not None else settings.get("alpha", defaults.get("alpha"))
        if layer is None or alpha is None:
            raise ValueError("gui_xli needs gui_xli.layer and gui_xli.alpha (or gui_xli.preset=...)")
        size = memory_size if memory_size is not None else settings.get("memory_size")
        self.layer, self.alpha, self.k, self.memory_size = _check_numbers(layer=layer, alpha=alpha, k=k, memory_size=size)
        self.scope, self.decode, self.only_lang = str(scope), str(decode), _bool(only_lang)
        self.preset = str(preset) if preset else None
        if self.decode not in DECODE_MODES:
            raise ValueError(f"gui_xli.decode must be one of {DECODE_MODES}, got {decode!r}")
        self.memory.layer_index(self.layer)  # fail now, not mid-run, when the layer is missing
        self.memory.candidates(None, self.scope)  # validates scope
        if preset and settings.get("lang") and self.memory.lang and settings["lang"] != self.memory.lang:
            warnings.warn(f"gui_xli: preset {preset} is for {settings['lang']}, the memory for {self.memory.lang}", stacklevel=2)
        self.last_retrievals: list[Any] = []  # per steered row of the last batch (for analyses and tests)
        self.hook_calls, self.hook_seconds = 0, 0.0  # cost accounting (benchmarks/bench_xli.py)

    @property
    def settings(self) -> dict[str, Any]:
        """Everything that decides the steering, for results and reports."""
        return {"layer": self.layer, "alpha": self.alpha, "k": self.k, "memory_size": self.memory_size, "scope": self.scope,
                "decode": self.decode, "only_lang": self.only_lang, "preset": self.preset,
                "memory": self.memory.provenance.get("path"), "memory_lang": self.memory.lang}

    def _rows(self, forward: ForwardContext) -> list[str | None | bool]:
        """Per row: the dimension to retrieve for, or False when the row is not steered."""
        out: list[str | None | bool] = []
        for req in forward.requests:
            doc = req.doc
            lang = _doc_field(doc, "lang")
            if self.only_lang and lang is not None and self.memory.lang is not None and lang != self.memory.lang:
                out.append(False)
            else:
                out.append(_doc_field(doc, "dimension"))
        return out

    @hookimpl
    def gui_intervention_forward(self, forward: ForwardContext):
        return self.attached(forward)

    @contextmanager
    def attached(self, forward: ForwardContext) -> Iterator[None]:
        """Steering hook on the decoder layer that outputs h^(layer), removed on exit (also on error)."""
        layers = list(forward.layers)
        if not layers:
            raise RunFault(f"gui_xli: the backend found no decoder layers for {type(forward.model).__name__} "
                             "(see gui_models.layers.LAYER_PATHS)")
        if not 1 <= self.layer <= len(layers):
            raise RunFault(f"gui_xli.layer={self.layer} out of range 1..{len(layers)}")
        config = getattr(forward.model, "config", None)
        hidden = (getattr(getattr(config, "text_config", None), "hidden_size", None)
                  or getattr(config, "hidden_size", None))
        if isinstance(hidden, int) and hidden != self.memory.hidden_size:
            raise RunFault(f"gui_xli: memory {self.memory.provenance.get('path', '?')} holds vectors of size "
                             f"{self.memory.hidden_size}, the model's hidden size is {hidden}; refused")
        rows = self._rows(forward)
        mask = forward.inputs.get("attention_mask") if hasattr(forward.inputs, "get") else None
        state: dict[str, Any] = {"calls": 0, "vectors": None}
        self.last_retrievals = [None] * len(rows)

        def retrieve(h: torch.Tensor, device: torch.device) -> tuple[torch.Tensor, torch.Tensor] | None:
            """Rows to steer and their mean retrieved values (on ``device``), or None when no row is steered."""
            states = h.detach().to(torch.float32).cpu()  # one transfer for the batch; the memory lives on the CPU
            steer_rows, vecs = [], []
            for i, dim in enumerate(rows):
                if dim is False:
                    continue
                cands = self.memory.candidates(dim if isinstance(dim, str) else None, self.scope, self.memory_size)
                found = self.memory.retrieve(states[i], self.layer, cands, self.k)
                if state["calls"] == 0:
                    self.last_retrievals[i] = found
                steer_rows.append(i)
                vecs.append(found.vector)
            if not steer_rows:
                return None
            return torch.as_tensor(steer_rows, device=device), torch.stack(vecs).to(device)

        def hook(module: Any, args: Any, output: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return steer_output(output)
            finally:
                self.hook_calls += 1
                self.hook_seconds += time.perf_counter() - t0

        def steer_output(output: Any) -> Any:
            hidden = output[0] if isinstance(output, (tuple, list)) else output
            if hidden.shape[-1] != self.memory.hidden_size:
                raise RunFault(f"gui_xli: memory hidden size {self.memory.hidden_size} != model's {hidden.shape[-1]}")
            batch, length = hidden.shape[0], hidden.shape[1]
            if batch != len(rows):
                raise RunFault(f"gui_xli: {batch} rows in the forward pass for {len(rows)} requests (beam search is not supported)")
            prefill = state["calls"] == 0
            if prefill:  # the first pass of generate() processes the prompt
                from_mask = None
                if mask is not None and mask.dim() == 2 and mask.shape[1] == length:
                    m = mask.to(device=hidden.device, dtype=torch.long)
                    from_mask = length - 1 - torch.argmax(torch.flip(m, dims=[1]), dim=1)
                pos = from_mask if from_mask is not None else torch.full((batch,), length - 1, device=hidden.device)
            elif self.decode == "none":
                state["calls"] += 1
                return None
            else:
                pos = torch.full((batch,), length - 1, device=hidden.device)  # the newly generated token
            rows_idx = torch.arange(batch, device=hidden.device)
            h = hidden[rows_idx, pos]
            found = retrieve(h, hidden.device) if prefill or self.decode == "retrieve" else state["vectors"]
            if prefill:
                state["vectors"] = found  # reused at every decoding step with decode=reuse
            state["calls"] += 1
            if found is None:
                return None
            sel, v = found
            new = hidden.clone()
            new[sel, pos[sel]] = steer(h[sel], v, self.alpha)
            if isinstance(output, tuple):
                return (new, *output[1:])
            if isinstance(output, list):
                return [new, *output[1:]]
            return new

        handle = layers[self.layer - 1].register_forward_hook(hook)
        try:
            yield
        finally:
            handle.remove()
