"""Checkpoint differences in words, for ``gui-eval verify``: path, content fingerprint, processor files, dtype.

The fingerprint itself (what a checkpoint is, in a few hashes) lives on the floor, ``gui_core.checkpoint_fingerprint``,
where a backend's run journal (``gui_models.run_journal``) reads it too; its names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

# the fingerprint itself lives on the floor (gui_core), where the backends' run journal reads it too
from gui_core.checkpoint_fingerprint import (FINGERPRINT, HEAD_BYTES, PROCESSOR_FILES, WHOLE_FILE_BYTES,  # noqa: F401
                                             checkpoint_fingerprint)


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
