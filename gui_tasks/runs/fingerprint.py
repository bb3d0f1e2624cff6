"""What a checkpoint is, in a few hashes: ``gui-eval submit`` records it, ``gui-eval verify`` compares it first.

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
from collections.abc import Mapping
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


def model_arg(args: str, key: str) -> str | None:
    """The value of ``key=`` in an lmms-eval model-args string (split as lmms-eval splits it)."""
    from lmms_eval.utils import _smart_comma_split

    for part in _smart_comma_split(args or ""):
        k, _, v = part.partition("=")
        if k.strip() == key:
            return v.strip()
    return None


def differences(recorded: Mapping[str, Any] | None, args_recorded: str, now: Mapping[str, Any] | None,
                args_now: str) -> list[str]:
    """What differs between the submission's checkpoint and the one loaded now, in words: path, weights fingerprint,
    processor, dtype (the model args' ``dtype`` / ``torch_dtype``, else the checkpoint's config)."""
    out = []
    path_a, path_b = model_arg(args_recorded, "pretrained"), model_arg(args_now, "pretrained")
    same_path = path_a is not None and path_b is not None and Path(path_a).expanduser() == Path(path_b).expanduser()
    if not same_path:
        out.append(f"checkpoint path: the run loaded {path_a!r}, this re-run {path_b!r}")
    if recorded and now:
        for key, what in (("weights", "weights fingerprint"), ("processor", "processor files"), ("fingerprint", "files")):
            if recorded.get(key) != now.get(key):
                out.append(f"checkpoint {what}: {str(recorded.get(key))[:16]} in the file, {str(now.get(key))[:16]} now")
                break  # the first difference of the folder's content is enough
    elif recorded and not now:
        out.append(f"checkpoint content: the file records fingerprint {str(recorded.get('fingerprint'))[:16]}, the "
                   f"re-run's checkpoint {path_b!r} is not a local folder to fingerprint")
    dtype_a = model_arg(args_recorded, "dtype") or model_arg(args_recorded, "torch_dtype") or (recorded or {}).get("dtype")
    dtype_b = model_arg(args_now, "dtype") or model_arg(args_now, "torch_dtype") or (now or {}).get("dtype")
    if dtype_a != dtype_b:
        out.append(f"dtype: {dtype_a} in the run, {dtype_b} now")
    return out
