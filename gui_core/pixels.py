"""One content hash for decoded images: what the submission hash, the sent-image store and the viewer key images by."""

from __future__ import annotations

import hashlib

from PIL import Image


def pixels_sha256(image: Image.Image) -> str:
    """sha256 of an image's content: mode, size, palette (if any) and the decoded pixel bytes (not the file's encoding)."""
    image.load()
    h = hashlib.sha256(f"{image.mode};{image.size[0]}x{image.size[1]};".encode("ascii"))
    palette = image.getpalette() if image.mode in ("P", "PA") else None
    h.update(bytes(palette or b"") + b";")
    h.update(image.tobytes())
    return h.hexdigest()
