"""The Hub copies lmms-eval 0.7.3's own tasks read, converted to the official release layouts our loaders read.

lmms-eval's ``screenspot_pro`` task reads ``TIGER-Lab/ScreenSpot-Pro`` and its ``osworld_g`` task
``MMInstruction/OSWorld-G`` (``dataset_path`` in ``lmms_eval/tasks/<task>/<task>.yaml``, split ``test``): parquet files
with the screenshot embedded (a ``datasets`` Image column, ``{"bytes": ..., "path": ...}``). The columns their
``utils.py`` read:

- ScreenSpot-Pro: ``image``, ``instruction``, ``bbox`` ([x1, y1, x2, y2] pixels, a list or its JSON text), ``img_size``
  ([w, h]) or ``image_width`` / ``image_height``, ``ui_type`` (or ``data_type``); the official fields our report needs
  are kept when present: ``id``, ``img_filename``, ``application``, ``platform``, ``group``, ``instruction_cn``.
- OSWorld-G (``MMInstruction/OSWorld-G`` commit e387cfd, its card: 510 rows in ``data/test-00000-of-00001.parquet``):
  ``id``, ``image_path``, ``image_size``, ``instruction``, ``box_type``, ``box_coordinates``, ``GUI_types``,
  ``image``, ``mimo_bbox`` (the last is no field of the official release: kept, never read).

Each converter writes the official layout from those rows (ScreenSpot-Pro: ``annotations/<application>_<platform>.json``
in row order + ``images/<img_filename>``; OSWorld-G: ``OSWorld-G.json`` + ``images/<image_path>``), the screenshot
bytes as published (never re-encoded), and nothing else: the benchmark's own loader then reads it, so a hub row is
scored exactly as the same row of the official release. A row the converter cannot place (no image bytes, a path
leaving the folder) is a DataError naming the parquet file, row and field. The records name these converters in their
``HubRelease.convert`` (``gui_tasks/grounding/benchmark.py``); ``gui_core.hub_fetch`` runs them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from gui_core.errors import DataError

# Columns the screenshot and the official fields are read from; the rest of a row is written as published.
PRO_OFFICIAL = ("id", "img_filename", "bbox", "instruction", "instruction_cn", "ui_type", "group", "platform",
                "application", "img_size")


def parquet_rows(snapshot: Path) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """``(file, row index in that file, row)`` of every ``*.parquet`` of the snapshot, files in name order."""
    import pyarrow.parquet as pq

    files = sorted(p for p in snapshot.rglob("*.parquet") if not any(s.startswith(".") for s in p.relative_to(snapshot).parts))
    if not files:
        raise DataError("no *.parquet file in the hub copy", file=str(snapshot))
    for path in files:
        i = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=32):
            for row in batch.to_pylist():
                yield path, i, row
                i += 1


def _image_bytes(row: dict[str, Any], path: Path, i: int) -> bytes:
    image = row.get("image")
    data = image.get("bytes") if isinstance(image, dict) else image
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise DataError("no embedded screenshot bytes", file=str(path), row=i, field="image")
    return bytes(data)


def _relative(name: Any, path: Path, i: int, field: str) -> str:
    rel = PurePosixPath(str(name))
    if not str(name) or rel.is_absolute() or ".." in rel.parts:
        raise DataError(f"image name {name!r} must be a relative path inside the copy", file=str(path), row=i, field=field)
    return rel.as_posix()


def _write_image(out: Path, rel: str, data: bytes) -> None:
    target = out / "images" / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():  # one screenshot serves several rows
        target.write_bytes(data)


def _suffix(data: bytes) -> str:
    return ".jpg" if data[:3] == b"\xff\xd8\xff" else ".png"


def _json_list(value: Any) -> Any:
    """A list column as published (``bbox`` may be a list or its JSON text in the hub copies)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def convert_screenspot_pro(snapshot: Path, out: Path) -> None:
    """ScreenSpot-Pro hub rows -> ``annotations/<application>_<platform>.json`` + ``images/`` (the GitHub release)."""
    files: dict[str, list[dict[str, Any]]] = {}
    for path, i, row in parquet_rows(snapshot):
        data = _image_bytes(row, path, i)
        rid = row.get("id")
        name = row.get("img_filename") or f"{rid if rid is not None else f'{path.stem}-{i:05d}'}{_suffix(data)}"
        rel = _relative(name, path, i, "img_filename")
        _write_image(out, rel, data)
        size = _json_list(row.get("img_size"))
        if size is None and row.get("image_width") is not None and row.get("image_height") is not None:
            size = [row["image_width"], row["image_height"]]
        official = {k: _json_list(row[k]) for k in PRO_OFFICIAL if k in row and row[k] is not None}
        official.update(img_filename=rel, img_size=size)
        if "ui_type" not in official and row.get("data_type") is not None:
            official["ui_type"] = row["data_type"]
        official.setdefault("group", row.get("group"))
        for k in ("bbox", "instruction"):
            official.setdefault(k, row.get(k))
        stem = (f"{row['application']}_{row['platform']}" if row.get("application") and row.get("platform")
                else path.stem)
        files.setdefault(_relative(stem, path, i, "application"), []).append(official)
    (out / "annotations").mkdir(parents=True, exist_ok=True)
    for stem, rows in files.items():
        (out / "annotations" / f"{stem}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))


def convert_osworld_g(snapshot: Path, out: Path) -> None:
    """OSWorld-G hub rows -> ``OSWorld-G.json`` + ``images/<image_path>`` (the release's ``benchmark/`` folder)."""
    rows = []
    for path, i, row in parquet_rows(snapshot):
        data = _image_bytes(row, path, i)
        name = row.get("image_path") or f"{row.get('id', f'{path.stem}-{i:05d}')}{_suffix(data)}"
        rel = _relative(name, path, i, "image_path")
        _write_image(out, rel, data)
        rows.append({**{k: _json_list(v) for k, v in row.items() if k != "image"}, "image_path": rel})
    out.mkdir(parents=True, exist_ok=True)
    (out / "OSWorld-G.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))


# ---- ScreenSpot (rootsautomation/ScreenSpot, read by lmms-eval 0.7.3's screenspot_rec_test / screenspot_reg_test) ----
# The card (commit 0be0878): columns file_name, bbox (float64 x4), instruction, data_type, data_source, image; "the
# original dataset had [bbox] in the form of (top-left x, top-left y, width, height), we first transform this to
# (top-left x, top-left y, bottom-right x, bottom-right y)". The values are fractions of the screenshot: lmms-eval's
# screenspot/utils.py draws the box at bbox[0] * width ... bbox[3] * height. The platform of a row is its data_source as
# lmms-eval's utils_rec.py groups it, which is how SeeClick's release splits its three files.
SCREENSPOT_PLATFORM = {"ios": "mobile", "android": "mobile", "macos": "desktop", "windows": "desktop"}  # else web
# A pixel value within this distance of a whole number is that number: the release's boxes are whole pixels, and a
# fraction times the width comes back within a few ulps of them; any other value is kept as computed.
_WHOLE = 1e-6


def _pixel(fraction: Any, size: int, path: Path, i: int) -> float:
    if not isinstance(fraction, (int, float)) or isinstance(fraction, bool):
        raise DataError(f"expected a number, got {fraction!r}", file=str(path), row=i, field="bbox")
    value = float(fraction) * size
    return float(round(value)) if abs(value - round(value)) <= _WHOLE else value


def _size_of(data: bytes, path: Path, i: int) -> tuple[int, int]:
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except (OSError, UnidentifiedImageError, ValueError) as exc:  # a screenshot PIL cannot read: the row is named
        raise DataError(f"the embedded screenshot cannot be read ({exc})", file=str(path), row=i, field="image") from None


def convert_screenspot(snapshot: Path, out: Path) -> None:
    """ScreenSpot hub rows -> ``screenspot_{desktop,mobile,web}.json`` + ``screenspot_imgs/`` (SeeClick's release):
    the box back to ``[x, y, w, h]`` pixels of the embedded screenshot, rows in hub order within each platform."""
    files: dict[str, list[dict[str, Any]]] = {"desktop": [], "mobile": [], "web": []}
    for path, i, row in parquet_rows(snapshot):
        data = _image_bytes(row, path, i)
        name = row.get("file_name") or row.get("img_filename") or f"{path.stem}-{i:05d}{_suffix(data)}"
        rel = _relative(name, path, i, "file_name")
        target = out / "screenspot_imgs" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_bytes(data)
        box = _json_list(row.get("bbox"))
        if not (isinstance(box, list) and len(box) == 4):
            raise DataError(f"expected [x1, y1, x2, y2] fractions, got {box!r}", file=str(path), row=i, field="bbox")
        w, h = _size_of(data, path, i)
        x1, y1, x2, y2 = (_pixel(v, s, path, i) for v, s in zip(box, (w, h, w, h)))
        source = str(row.get("data_source") or "")
        files[SCREENSPOT_PLATFORM.get(source.lower(), "web")].append(
            {"img_filename": rel, "bbox": [x1, y1, x2 - x1, y2 - y1], "instruction": row.get("instruction"),
             "data_type": row.get("data_type"), "data_source": row.get("data_source")})
    for platform, rows in files.items():
        (out / f"screenspot_{platform}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))


# ---- MMBench-GUI L2 (OpenGVLab/MMBench-GUI: L2_annotations.json + MMBench-GUI-OfflineImages.zip) ----
MMBENCH_ANNOTATIONS, MMBENCH_IMAGES = "L2_annotations.json", "MMBench-GUI-OfflineImages.zip"


def convert_mmbench_gui(snapshot: Path, out: Path) -> None:
    """MMBench-GUI's hub files -> ``L2_annotations.json`` + ``offline_images/<platform>/`` (the layout its
    ``utils/download.py`` leaves): the annotations copied as published, the zip extracted with bounds (a member leaving
    the folder is refused, and so is a zip bomb: ``gui_core.archives``). The zip's inner folder is not documented on
    the card: the outermost folder that holds the platform folders (``os_windows``, ``os_mac``, ...) becomes
    ``offline_images``."""
    import shutil

    from gui_core.archives import extract_zip
    from gui_tasks.grounding.mmbench_gui import PLATFORMS

    for name in (MMBENCH_ANNOTATIONS, MMBENCH_IMAGES):
        if not (snapshot / name).is_file():
            raise DataError(f"missing {name} in the hub copy", file=str(snapshot / name))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile((snapshot / MMBENCH_ANNOTATIONS).resolve(), out / MMBENCH_ANNOTATIONS)
    unpacked = out / ".unpacked"
    # bounded: names, member and total sizes, ratio, checked against the header and while streaming (gui_core.archives)
    extract_zip((snapshot / MMBENCH_IMAGES).resolve(), unpacked, MMBENCH_IMAGES,
                keep=lambda name: PurePosixPath(name).parts[:1] != ("__MACOSX",))
    holders = sorted({p.parent for p in unpacked.rglob("*") if p.is_dir() and p.name in PLATFORMS},
                     key=lambda h: (len(h.parts), str(h)))
    holders = [h for h in holders if len(h.parts) == len(holders[0].parts)]  # the outermost level
    if len(holders) != 1:
        raise DataError(f"expected one folder holding the platform folders ({', '.join(PLATFORMS)}) in the zip, found "
                        f"{[str(h.relative_to(unpacked)) for h in holders] or 'none'}", file=MMBENCH_IMAGES)
    os.replace(holders[0], out / "offline_images")
    shutil.rmtree(unpacked, ignore_errors=True)
