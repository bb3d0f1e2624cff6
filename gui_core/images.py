"""The one place an image from outside (a data file, a device's screencap, a server) is opened: bounded and complete.

Every decode here (1) reads the header first and refuses an image of more than ``max_pixels()`` pixels before any
pixel is allocated (a 69-byte PNG can claim 100000 x 100000), and (2) refuses a truncated image by name, whatever
``PIL.ImageFile.LOAD_TRUNCATED_IMAGES`` says: lmms-eval sets that flag at import, which makes Pillow pad a cut file
with grey and carry on. Truncation is detected here, not left to the flag: the flag is off while a decode of ours
runs (restored after the last one), and a PNG must end with its ``IEND`` chunk, a JPEG with its ``EOI`` marker.

A refusal is an :class:`ImageRefused` (a ``ValueError``) whose message names the cause; callers add the source
(file and row, device command, server) and turn it into their per-sample error.
"""

from __future__ import annotations

import io
import os
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Union

from gui_core.bounds import BoundError, check_aspect

MAX_PIXELS_ENV = "GUI_EVAL_MAX_IMAGE_PIXELS"
# 8192 x 8192: above every screenshot of the benchmarks here (ScreenSpot-Pro's largest is 6016 x 3384 ~ 20 M pixels)
# and below Pillow's own bomb limit (2 x 89,478,485); an RGB decode of the bound takes 192 MiB.
MAX_PIXELS = 8192 * 8192
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"  # the IEND chunk's type and CRC (PNG spec 11.2.5): the last 8 bytes of every whole PNG
JPEG_END = b"\xff\xd9"  # EOI marker (ITU T.81 B.2.1)

Source = Union[str, "os.PathLike[str]", bytes]


class ImageRefused(ValueError):
    """An image that is not decoded: too many pixels, truncated, damaged or not an image (the message says which)."""


def max_pixels() -> int:
    """The pixel bound: ``$GUI_EVAL_MAX_IMAGE_PIXELS`` when set (a positive integer), else :data:`MAX_PIXELS`."""
    raw = os.environ.get(MAX_PIXELS_ENV, "").strip()
    if not raw:
        return MAX_PIXELS
    if not raw.isdigit() or int(raw) <= 0:
        raise ValueError(f"${MAX_PIXELS_ENV}={raw!r} must be a positive integer (pixels)")
    return int(raw)


_STRICT_LOCK = threading.Lock()  # guards only the counter below, never a decode
_STRICT_USERS = 0
_STRICT_SAVED = False


@contextmanager
def strict_truncation() -> Iterator[None]:
    """``PIL.ImageFile.LOAD_TRUNCATED_IMAGES`` off while at least one of our decodes runs, restored after the last.

    A counter instead of a lock held around the decode: screenshots decode in parallel (Pillow releases the
    interpreter lock), and the flag lmms-eval set is back as soon as no decode of ours is running.
    """
    from PIL import ImageFile

    global _STRICT_USERS, _STRICT_SAVED
    with _STRICT_LOCK:
        if _STRICT_USERS == 0:
            _STRICT_SAVED, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
        _STRICT_USERS += 1
    try:
        yield
    finally:
        with _STRICT_LOCK:
            _STRICT_USERS -= 1
            if _STRICT_USERS == 0:
                ImageFile.LOAD_TRUNCATED_IMAGES = _STRICT_SAVED


def _tail(source: Source, n: int = 16) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source[-n:])
    with open(source, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - n))
        return fh.read()


def _check_end(fmt: str | None, source: Source) -> None:
    """A PNG without its IEND chunk, or a JPEG without its EOI marker, at the end is truncated."""
    if fmt == "PNG" and not _tail(source).endswith(PNG_END):
        raise ImageRefused("truncated PNG (no IEND chunk at the end)")
    if fmt == "JPEG" and not _tail(source).rstrip(b"\x00").endswith(JPEG_END):
        raise ImageRefused("truncated JPEG (no end-of-image marker)")


def _open(source: Source, limit: int) -> Any:
    """Pillow's lazy image (header read, no pixels), refused above ``limit`` pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        im = Image.open(io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source)
    except Image.DecompressionBombError as exc:
        raise ImageRefused(f"too many pixels (Pillow: {exc}); the bound is {limit}") from exc
    except UnidentifiedImageError as exc:
        raise ImageRefused("not an image Pillow can identify") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageRefused(f"unreadable header: {type(exc).__name__}: {exc}") from exc
    w, h = im.size
    if w <= 0 or h <= 0 or w * h > limit:
        im.close()
        raise ImageRefused(f"{w} x {h} pixels: above the bound of {limit} pixels (${MAX_PIXELS_ENV})" if w * h > limit
                           else f"{w} x {h} pixels: an empty image")
    try:
        check_aspect(w, h)  # what the models' processors accept (gui_core.bounds)
    except BoundError as exc:
        im.close()
        raise ImageRefused(str(exc)) from None
    return im


def image_size(source: Source, *, limit: int | None = None) -> tuple[int, int]:
    """(width, height) from the header alone; :class:`ImageRefused` above the pixel bound or when unreadable."""
    im = _open(source, limit or max_pixels())
    try:
        return im.size
    finally:
        im.close()


def decode(source: Source, *, limit: int | None = None) -> Any:
    """The image fully decoded (mode as stored, not converted); :class:`ImageRefused` when it is above the pixel bound,
    truncated, damaged or not an image. ``source``: a path or the file's bytes."""
    from PIL import Image

    im = _open(source, limit or max_pixels())
    try:
        _check_end(im.format, source)
        with strict_truncation():
            im.load()  # decode now, so the file can close
    except ImageRefused:
        im.close()
        raise
    except (OSError, SyntaxError, ValueError, EOFError, MemoryError, Image.DecompressionBombError) as exc:
        im.close()
        raise ImageRefused(f"cannot be fully decoded: {type(exc).__name__}: {exc}") from exc
    return im
