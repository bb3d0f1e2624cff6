"""What a checkpoint is, in a few hashes: ``gui-eval submit`` records it, ``gui-eval verify`` compares it first, a
backend's run journal (``gui_models.run_journal``) refuses a journal written with another one.

A re-run that does not reproduce the logged responses says little until the verifier knows whether it loaded the
same weights, processor and dtype with the same generation settings. The fingerprint of a local checkpoint folder
(:func:`checkpoint_fingerprint`) hashes, per file: its name and size, and its bytes when it is small (configs,
tokenizer, processor files: up to ``WHOLE_FILE_BYTES``), else its first ``HEAD_BYTES`` (a safetensors file's header
lists every tensor's name, dtype, shape and offsets) and last ``HEAD_BYTES``. It tells checkpoints apart quickly; it is
not a full content hash of the weights. The processor fingerprint covers only the files a processor reads.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

WHOLE_FILE_BYTES = 16 << 20
HEAD_BYTES = 1 << 20
# the files transformers' processors and tokenizers read (AutoProcessor / AutoTokenizer)
PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json", "tokenizer.json", "tokenizer_config.json",
                   "special_tokens_map.json", "vocab.json", "merges.txt", "chat_template.json", "chat_template.jinja",
                   "added_tokens.json", "tokenizer.model", "video_preprocessor_config.json")
FINGERPRINT = "checkpoint-fingerprint-v1"


def _file_digest(path: Path) -> str:
    size = path.stat().st_size
    h = hashlib.sha256(f"{path.name}\0{size}\0".encode())
    with path.open("rb") as fh:
        if size <= WHOLE_FILE_BYTES:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        else:
            h.update(fh.read(HEAD_BYTES))
            fh.seek(size - HEAD_BYTES)
            h.update(fh.read(HEAD_BYTES))
    return h.hexdigest()


def _digest(folder: Path, names: list[str]) -> str | None:
    if not names:
        return None
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(f"{name}\0{_file_digest(folder / name)}\n".encode())
    return h.hexdigest()


def checkpoint_fingerprint(path: str | os.PathLike | None) -> dict[str, Any] | None:
    """``{"path", "fingerprint", "weights", "processor", "dtype", "method"}`` of a local checkpoint folder; None when
    ``path`` is not one (a hub name: nothing local to hash)."""
    if not path:
        return None
    folder = Path(path)
    if not (folder / "config.json").is_file():
        return None
    files = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    dtype = config.get("torch_dtype") or config.get("dtype") or (config.get("text_config") or {}).get("torch_dtype")
    weights = [n for n in files if n.endswith((".safetensors", ".bin", ".pt", ".gguf"))]
    return {"path": str(path), "fingerprint": _digest(folder, files), "weights": _digest(folder, weights),
            "processor": _digest(folder, [n for n in files if n in PROCESSOR_FILES]),
            "dtype": None if dtype is None else str(dtype), "method": FINGERPRINT}
