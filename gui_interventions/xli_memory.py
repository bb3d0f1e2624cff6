"""GUI-XL-Memory (seed section 4.3, appendix B.1): keys, values and provenance, saved and loaded by name.

One entry per qualifying parallel pair: key ``r = h^(l)(Q_tgt, I_tgt)`` (Eq. 3) and value
``v = h^(l)(X_en, I_en) - h^(l)(X_tgt, I_tgt)`` (Eq. 4), stored for every built layer, so a
layer search needs no rebuild. A memory folder holds ``memory.safetensors`` (``keys`` and
``values``, float32 ``[layers, entries, hidden]``) and ``memory.json`` (layers, entries,
provenance).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import torch

# Seed appendix B.1: memories of the six basic dimensions; RI and SI use their union.
BASIC_DIMENSIONS: tuple[str, ...] = ("AU", "AP", "WF", "WI", "AEL", "REL")
AGGREGATED_DIMENSIONS: tuple[str, ...] = ("RI", "SI")
FORMAT_VERSION = 1
MEMORY_DIR_ENV = "GUI_XLI_MEMORY_DIR"


def memory_root() -> Path:
    """Where memories are saved by name: ``$GUI_XLI_MEMORY_DIR``, else ``<cache root>/xli_memories``.

    The cache root is the harness's (``$GUI_EVAL_CACHE`` or ``~/.cache/gui_eval``, as in
    ``gui_core.paths.cache_dir``; repeated here because gui_interventions imports nothing from gui_tasks).
    """
    if os.environ.get(MEMORY_DIR_ENV):
        return Path(os.environ[MEMORY_DIR_ENV]).expanduser()
    return Path(os.environ.get("GUI_EVAL_CACHE") or Path.home() / ".cache" / "gui_eval").expanduser() / "xli_memories"


def resolve(name_or_path: str | Path) -> Path:
    """A memory folder given by path, or by name under :func:`memory_root`."""
    p = Path(str(name_or_path)).expanduser()
    for cand in (p, memory_root() / str(name_or_path)):
        if (cand / "memory.json").is_file():
            return cand
    raise FileNotFoundError(f"no GUI-XLI memory {str(name_or_path)!r}: neither a folder with memory.json nor a name under "
                            f"{memory_root()} (build one with `gui-eval xli build`)")


@dataclass(frozen=True)
class Retrieval:
    """What one lookup found: the entries (indices into the memory), their similarities and the mean value."""

    indices: tuple[int, ...]
    similarities: tuple[float, ...]
    vector: torch.Tensor


@dataclass
class XLIMemory:
    """Keys and values per layer plus one record per entry (``id``, ``dimension``, ...)."""

    layers: tuple[int, ...]
    keys: torch.Tensor  # [len(layers), N, hidden] float32
    values: torch.Tensor  # [len(layers), N, hidden] float32
    entries: list[dict[str, Any]]
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.layers = tuple(int(x) for x in self.layers)
        self.keys = self.keys.to(torch.float32)
        self.values = self.values.to(torch.float32)
        shape = (len(self.layers), len(self.entries))
        if self.keys.dim() != 3 or tuple(self.keys.shape[:2]) != shape or self.values.shape != self.keys.shape:
            raise ValueError(f"memory tensors must be [layers={shape[0]}, entries={shape[1]}, hidden]; "
                             f"got keys {tuple(self.keys.shape)}, values {tuple(self.values.shape)}")
        for i, e in enumerate(self.entries):
            if "dimension" not in e:
                raise ValueError(f"memory entry {i} has no 'dimension'")

    @property
    def hidden_size(self) -> int:
        return int(self.keys.shape[-1])

    @property
    def lang(self) -> str | None:
        return self.provenance.get("lang")

    def counts(self) -> dict[str, int]:
        """Entries per dimension."""
        out: dict[str, int] = {}
        for e in self.entries:
            out[e["dimension"]] = out.get(e["dimension"], 0) + 1
        return out

    def layer_index(self, layer: int) -> int:
        if int(layer) not in self.layers:
            raise ValueError(f"the memory has no states for layer {layer}; it holds layers {list(self.layers)} "
                             "(rebuild with --layers including it)")
        return self.layers.index(int(layer))

    def candidates(self, dimension: str | None, scope: str = "dimension", memory_size: int | None = None) -> list[int]:
        """Entry indices a question of ``dimension`` retrieves from (seed appendix B.1).

        ``scope="dimension"``: the dimension's own entries; RI, SI, an unknown dimension or a
        dimension without entries use the union of the basic dimensions. ``scope="all"``: always
        the union. ``memory_size`` keeps the first n entries of each dimension (the paper's 10).
        """
        if scope not in ("dimension", "all"):
            raise ValueError(f"scope must be 'dimension' or 'all', got {scope!r}")
        seen: dict[str, int] = {}
        kept = []
        for i, e in enumerate(self.entries):
            seen[e["dimension"]] = seen.get(e["dimension"], 0) + 1
            if memory_size is None or seen[e["dimension"]] <= int(memory_size):
                kept.append(i)
        own = [i for i in kept if self.entries[i]["dimension"] == dimension]
        if scope == "dimension" and dimension in BASIC_DIMENSIONS and own:
            return own
        union = [i for i in kept if self.entries[i]["dimension"] in BASIC_DIMENSIONS]
        return union or kept

    def retrieve(self, state: torch.Tensor, layer: int, candidates: Sequence[int], k: int) -> Retrieval:
        """Top-k candidates by cosine similarity of their key to ``state`` (Eq. 5); their values averaged."""
        if not candidates:
            raise ValueError("the memory has no entries to retrieve from")
        li = self.layer_index(layer)
        idx = torch.as_tensor(list(candidates), dtype=torch.long)
        h = state.detach().to(torch.float32).reshape(-1).cpu()
        # unit keys are computed once per layer: one matrix-vector product per lookup, no copy of the keys
        sims = (self._unit_keys(li) @ (h / h.norm().clamp_min(1e-12)))[idx]
        top = torch.topk(sims, k=min(int(k), len(idx)))  # ties: torch's order (lowest index first on CPU)
        chosen = idx[top.indices]
        return Retrieval(tuple(int(i) for i in chosen), tuple(float(s) for s in top.values),
                         self.values[li, chosen].mean(dim=0))

    def _unit_keys(self, li: int) -> torch.Tensor:
        cache = self.__dict__.setdefault("_unit_cache", {})
        if li not in cache:
            keys = self.keys[li]
            cache[li] = keys / torch.linalg.vector_norm(keys, dim=-1, keepdim=True).clamp_min(1e-12)
        return cache[li]

    # --- files -------------------------------------------------------------------------------

    def save(self, folder: str | Path) -> Path:
        """Write ``memory.safetensors`` and ``memory.json`` into ``folder`` (created)."""
        from safetensors.torch import save_file

        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        save_file({"keys": self.keys.contiguous(), "values": self.values.contiguous()}, str(out / "memory.safetensors"))
        doc = {"format_version": FORMAT_VERSION, "layers": list(self.layers), "hidden_size": self.hidden_size,
               "counts": self.counts(), "entries": self.entries, "provenance": self.provenance}
        (out / "memory.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, name_or_path: str | Path) -> "XLIMemory":
        """Load a memory folder by path or by name."""
        from safetensors.torch import load_file

        folder = resolve(name_or_path)
        doc = json.loads((folder / "memory.json").read_text(encoding="utf-8"))
        if doc.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{folder}: memory format {doc.get('format_version')!r}, expected {FORMAT_VERSION}")
        tensors = load_file(str(folder / "memory.safetensors"))
        for name in ("keys", "values"):
            if name not in tensors:
                raise ValueError(f"{folder / 'memory.safetensors'}: no {name!r} tensor; refused")
            if not bool(torch.isfinite(tensors[name]).all()):  # NaN steering turns every answer into garbage
                bad = int((~torch.isfinite(tensors[name])).sum())
                raise ValueError(f"{folder / 'memory.safetensors'}: {bad} non-finite value(s) (NaN or Inf) in "
                                 f"{name!r}; refused (rebuild the memory)")
        declared = doc.get("hidden_size")
        stored = int(tensors["keys"].shape[-1]) if tensors["keys"].dim() else None
        if declared is not None and declared != stored:
            raise ValueError(f"{folder / 'memory.json'}: field 'hidden_size' is {declared!r} but memory.safetensors holds "
                             f"vectors of size {stored}; refused (rebuild the memory)")
        provenance = dict(doc.get("provenance") or {})
        provenance.setdefault("path", str(folder))
        return cls(tuple(doc["layers"]), tensors["keys"], tensors["values"], list(doc["entries"]), provenance)


def entry_record(doc_id: str, dimension: str, **extra: Any) -> dict[str, Any]:
    """One entry's description as stored in ``memory.json``."""
    return {"id": str(doc_id), "dimension": str(dimension), **extra}


def stack_states(per_layer: Mapping[int, torch.Tensor], layers: Sequence[int]) -> torch.Tensor:
    """``{l: [N, hidden]}`` -> ``[len(layers), N, hidden]`` in ``layers`` order."""
    return torch.stack([per_layer[int(n)].to(torch.float32) for n in layers])
