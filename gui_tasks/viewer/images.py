"""Images in a viewer site: thumbnails by default, each distinct image stored once (content hash), the full image a click away.

A run of 2,245 phone screenshots (1080x2400 JPEG) made a 657 MB site when every screenshot was copied whole
(issue 31). Modes (``gui-eval view --images``):

- ``thumbs`` (default): a JPEG thumbnail (long side :data:`THUMB_PX`) per distinct image, shown with its overlays;
  the full image is a link to the original file (``file://``: the dataset's own bytes, nothing copied). Images
  that have no file (pixels held in a document, e.g. a Hugging Face ``Image`` column) are written once, full
  size, as PNG.
- ``copy``: every distinct image copied whole, once per content hash (a self-contained site to share or serve).
- ``links``: nothing copied; pages show the original files (smallest site; it opens only where the data is).

Overlays stay in pixels of the original image: the ``<img>`` carries the original width and height, whatever
resolution the file shown has.
"""

from __future__ import annotations

import io
import os
import shutil
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gui_models.cores import usable_cores
from gui_core.pixels import pixels_sha256  # one pixel hash: documents, sent images and the viewer alike
from gui_tasks.runs.hashing import file_sha256  # one file hash, cached by path, size and modification time

IMAGE_MODES = ("thumbs", "copy", "links")
THUMB_PX = 600  # long side of a thumbnail, shown one pixel per pixel (viewer.css img.thumb); 1080x2400 JPEGs decode at 1/4
THUMB_QUALITY = 82
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp")


@dataclass(frozen=True)
class Shown:
    """One image as a page shows it: ``src`` (site-relative, or a ``file://`` URI in ``links`` mode), ``full`` (the
    full-size image: site-relative or ``file://``), ``size`` (the original width and height)."""

    src: str
    full: str
    size: tuple[int, int]


def inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height of an image file (header only), or None when it is not a readable image."""
    from gui_core.images import ImageRefused
    from gui_core.images import image_size as header_size

    try:
        return header_size(path)
    except (ImageRefused, OSError):
        return None


def document_image_pixels(value: Any, folder: Path | None) -> tuple[Any | None, Path | None, str]:
    """An in-document image value as ``(PIL image or None, file path or None, why not)``: a file is shown from its
    path (not decoded here), anything else through :func:`gui_tasks.runs.doc_images.image_pixels`, the reading the content
    hash uses. Exactly one of image / path is set when the value can be shown, else the reason is."""
    from gui_tasks.runs.doc_images import image_pixels

    raw = value.get("path") if isinstance(value, dict) and not value.get("bytes") else value
    if isinstance(raw, (str, os.PathLike)) and os.fspath(raw):
        path = Path(raw)
        if not path.is_absolute():  # relative to the task's folder, as the content hash reads it (doc_images)
            if folder is None:
                return None, None, f"relative image path {os.fspath(raw)!r} and the task's folder is unknown"
            path = Path(folder) / path
        return None, path, ""  # a missing file is named by the figure
    image = image_pixels(value, folder)
    if image is not None:
        return image, None, ""
    if isinstance(value, (dict, bytes, bytearray)):
        return None, None, "image bytes not decodable"
    return None, None, f"not an image value ({type(value).__name__})"


def _thumbnail(src: Any, dst: Path) -> None:
    """``src`` (a path or PIL image) as a JPEG of long side at most THUMB_PX, written to the new file ``dst``."""
    from PIL import Image

    im = Image.open(src) if not isinstance(src, Image.Image) else src
    try:
        if im is not src and im.format == "JPEG":  # a file we opened: the decoder scales by 1/2, 1/4 or 1/8 (3x faster)
            scale = THUMB_PX / max(im.size)
            im.draft("RGB", (max(1, int(im.size[0] * scale)), max(1, int(im.size[1] * scale))))
        small = im.convert("RGB")
        small.thumbnail((THUMB_PX, THUMB_PX), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        small.save(buf, "JPEG", quality=THUMB_QUALITY)
    finally:
        if im is not src:
            im.close()
    new_file(dst, buf.getvalue())


def _png(image: Any, dst: Path) -> None:
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=1)  # the fastest lossless level: these are viewed, not archived
    new_file(dst, buf.getvalue())


def new_file(dst: Path, data: bytes | None = None, copy_from: Path | None = None) -> None:
    """A new file (``O_EXCL|O_NOFOLLOW``: never through a symlink or over a file already there)."""
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "wb") as fh:
        if copy_from is not None:
            with copy_from.open("rb") as fin:
                shutil.copyfileobj(fin, fh)
        else:
            fh.write(data or b"")


class ImageStore:
    """The ``img/`` folder of a site being built: each distinct image (by content hash) written once, in ``mode``."""

    def __init__(self, out: Path, mode: str = "thumbs") -> None:
        if mode not in IMAGE_MODES:
            raise ValueError(f"images mode {mode!r}: one of {', '.join(IMAGE_MODES)}")
        self.out, self.mode = out, mode
        self.by_hash: dict[str, Shown] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._workers = 0
        self._jobs: list[tuple[str, Future]] = []

    def _later(self, name: str, fn: Any, *args: Any) -> None:
        """Image files are made on a thread per core (Pillow releases the interpreter lock while decoding and
        encoding) while pages are written; at most a few per thread wait (bounded memory); :meth:`finish` waits."""
        if self._pool is None:
            self._workers = usable_cores()
            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="gui-eval-images")
        self._jobs.append((name, self._pool.submit(fn, *args)))
        waiting = [job for _, job in self._jobs[-8 * self._workers:] if not job.done()]
        if len(waiting) > 4 * self._workers:
            wait(waiting[: len(waiting) - 4 * self._workers])

    def finish(self) -> list[str]:
        """Wait for every thumbnail; returns one note per image that could not be made (its page shows no image)."""
        notes = []
        for name, job in self._jobs:
            try:
                job.result()
            except Exception as exc:  # noqa: BLE001 - an image that passed the header check but does not decode
                notes.append(f"image {name} not made: {type(exc).__name__}: {exc}")
        if self._pool is not None:
            self._pool.shutdown()
        self._pool, self._jobs = None, []
        return notes

    def file(self, path: Path, size: tuple[int, int]) -> Shown:
        """A checked image file (``path`` resolved, an image of ``size``) as the site shows it."""
        uri = path.as_uri()
        if self.mode == "links":
            return Shown(uri, uri, size)
        digest = file_sha256(path)
        if digest in self.by_hash:
            return self.by_hash[digest]
        full = f"img/{digest[:32]}{path.suffix.lower()}"
        if self.mode == "copy" or max(size) <= THUMB_PX:  # small images are their own thumbnail
            new_file(self.out / full, copy_from=path)
            shown = Shown(full, full, size)
        else:
            thumb = f"img/{digest[:32]}.t.jpg"
            self._later(thumb, _thumbnail, path, self.out / thumb)
            shown = Shown(thumb, uri, size)
        self.by_hash[digest] = shown
        return shown

    def pixels(self, image: Any) -> Shown:
        """A decoded image with no file behind it (document pixels): full size as PNG once, plus a thumbnail in
        ``thumbs`` mode."""
        digest = pixels_sha256(image)
        if digest in self.by_hash:
            return self.by_hash[digest]
        full = f"img/{digest[:32]}.png"
        self._later(full, _png, image, self.out / full)  # the image is loaded (hashed above): threads only read it
        shown = Shown(full, full, image.size)
        if self.mode == "thumbs" and max(image.size) > THUMB_PX:
            thumb = f"img/{digest[:32]}.t.jpg"
            self._later(thumb, _thumbnail, image, self.out / thumb)
            shown = Shown(thumb, full, image.size)
        self.by_hash[digest] = shown
        return shown
