"""Which decoded screenshots still hold exactly their file's pixels, so a served engine can be sent the file's own bytes.

``gui_tasks.harness.lmms_rows.load_image`` marks each image it decodes whose pixels are, by construction, what any Pillow
decode of the file gives as RGB (:func:`mark_file_source`); ``gui_openai`` then sends that file as it is instead of
re-encoding the pixels as PNG (issue 31). Only formats that decode to the same pixels everywhere qualify:

- PNG, 8 bits per channel, truecolour without alpha or a transparent colour (colour type 2), one frame;
- JPEG (baseline or progressive, 3 components) without an EXIF orientation other than 1: the engine decodes the
  very bytes ``gui_hf`` decodes (vLLM and ``transformers serve`` decode with Pillow, as ``load_image`` does),
  and no decoder rotates it.

Anything else (RGBA or palette PNG, 16-bit PNG, CMYK or rotated JPEG, WebP, ...) is converted by ``load_image`` or
could be read differently by a server; it is not marked and travels as PNG of the decoded RGB pixels.
The mark is an attribute of the image object: Pillow's ``convert``/``copy``/``crop`` return new, unmarked images,
and tasks and interventions never draw on an image in place (they copy first), so a marked image is unchanged.
The file's size and modification time are recorded and checked again before its bytes are read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

FILE_ATTR = "gui_eval_file"
MIME = {"PNG": "image/png", "JPEG": "image/jpeg"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EXIF_ORIENTATION = 0x0112


@dataclass(frozen=True)
class FileSource:
    """A file whose bytes decode (with Pillow, as RGB) to exactly the pixels of the image that carries this mark."""

    path: str
    mime: str
    size_bytes: int
    mtime_ns: int


def lossless_mime(image: Any, path: str | os.PathLike) -> str | None:
    """The MIME type under which ``path`` can be sent in place of ``image`` (opened from it, not converted), or None."""
    fmt = getattr(image, "format", None)
    if fmt not in MIME or getattr(image, "mode", None) != "RGB" or getattr(image, "n_frames", 1) != 1:
        return None
    if fmt == "PNG":
        if "transparency" in getattr(image, "info", {}):
            return None
        with open(path, "rb") as fh:  # IHDR: bit depth at byte 24, colour type at byte 25
            head = fh.read(26)
        if len(head) < 26 or not head.startswith(PNG_SIGNATURE) or head[12:16] != b"IHDR" or head[24] != 8 or head[25] != 2:
            return None
    else:
        try:
            orientation = image.getexif().get(EXIF_ORIENTATION, 1)
        except Exception:  # noqa: BLE001 - an unreadable EXIF block: do not trust the file as is
            return None
        if orientation not in (None, 1):
            return None
    return MIME[fmt]


def mark_file_source(image: Any, path: str | os.PathLike) -> None:
    """Record on ``image`` (decoded from ``path``, unconverted) that ``path``'s bytes may be sent for it, when they may."""
    try:
        mime = lossless_mime(image, path)
        if mime is None:
            return
        st = os.stat(path)
        setattr(image, FILE_ATTR, FileSource(os.fspath(path), mime, st.st_size, st.st_mtime_ns))
    except (OSError, AttributeError):  # a file gone since it was decoded, or an object without attributes: no mark
        return


def file_source(image: Any) -> FileSource | None:
    """The mark :func:`mark_file_source` left on ``image``, or None."""
    src = getattr(image, FILE_ATTR, None)
    return src if isinstance(src, FileSource) else None


def read_source(src: FileSource) -> bytes | None:
    """The file's bytes, or None when it changed (size or modification time) since it was decoded, or is gone."""
    try:
        with open(src.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size != src.size_bytes or st.st_mtime_ns != src.mtime_ns:
                return None
            data = fh.read()
    except OSError:
        return None
    return data if len(data) == src.size_bytes else None


def clear_file_source(image: Any) -> None:
    """Drop the mark from ``image``: its pixels may no longer be its file's (an intervention we cannot vouch for had it)."""
    try:
        if FILE_ATTR in vars(image):
            delattr(image, FILE_ATTR)
    except TypeError:  # an object without a __dict__ carries no mark
        return
