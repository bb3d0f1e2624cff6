"""Images held by documents: what counts as one (a PIL image, a file path, encoded bytes) and its decoded pixels.

Documents of third-party tasks hold their screenshots in any of the forms a Hugging Face dataset or a YAML
task gives them: a decoded ``PIL.Image.Image`` (an ``Image()`` column), the undecoded ``{"bytes", "path"}``
form, raw bytes, or a file path. A relative path is relative to the task's folder (the folder of its YAML,
:func:`gui_tasks.harness.rescore.task_folder`), never to the working directory. The content hash
(``gui_tasks/harness/rescore.py``) and the viewer read images through this one module.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from PIL import Image

MAX_PATH = 4096  # longer strings are text, not paths


def resolve_path(value: Any, base_dir: str | os.PathLike | None = None) -> Path | None:
    """The existing file a document value names (absolute, or relative to ``base_dir``), or None when it names none."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value or len(value) >= MAX_PATH or "\n" in value or "\x00" in value:
        return None
    if os.path.isabs(value):
        return Path(value) if os.path.isfile(value) else None
    if base_dir is None:
        return None
    candidate = os.path.join(os.fspath(base_dir), value)
    return Path(candidate) if os.path.isfile(candidate) else None


def image_pixels(value: Any, base_dir: str | os.PathLike | None = None) -> Image.Image | None:
    """The decoded image an in-document value holds, or None when the value is not an image.

    Accepts a ``PIL.Image.Image`` (returned loaded, unchanged: mode and size as the task gives them), a path to an
    image file (absolute, or relative to ``base_dir``: the task's folder), ``bytes`` of an encoded image, and the
    Hugging Face ``{"bytes": ..., "path": ...}`` form. A file or bytes that do not decode as an image give None.
    """
    if isinstance(value, Image.Image):
        value.load()
        return value
    if isinstance(value, dict) and set(value) <= {"bytes", "path"} and ("bytes" in value or "path" in value):
        if value.get("bytes"):
            return image_pixels(bytes(value["bytes"]))
        return image_pixels(value.get("path"), base_dir)
    if isinstance(value, (bytes, bytearray)):
        return _decode(io.BytesIO(bytes(value)))
    path = resolve_path(value, base_dir)
    return _decode(path) if path is not None else None


def _decode(source: Any) -> Image.Image | None:
    from gui_core.images import ImageRefused, decode

    try:
        return decode(source.getvalue() if isinstance(source, io.BytesIO) else source)  # bounded, complete
    except (ImageRefused, OSError):
        return None
