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
leaving the folder, a NUL, non-UTF-8 text, JSON nested past the bound, a screenshot name two rows give with other
bytes) is a DataError naming the parquet file, row and field, skipped and counted with ``GUI_EVAL_SKIP_BAD_ROWS=1``
(``hub_rows``). The records name these converters in their
``HubRelease.convert`` (``gui_tasks/grounding/benchmark.py``); ``gui_core.hub_fetch`` runs them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from gui_core.errors import DataError
from gui_tasks.grounding.hub_rows import RowGuard, check_row, json_value, name, text

# Columns the screenshot and the official fields are read from; the rest of a row is written as published.
PRO_OFFICIAL = ("id", "img_filename", "bbox", "instruction", "instruction_cn", "ui_type", "group", "platform",
                "application", "img_size")


def parquet_rows(snapshot: Path) -> Iterator[tuple[Path, int, Any]]:
    """``(file, row index in that file, row)`` of every ``*.parquet`` of the snapshot, files in name order; a row that
    cannot be read (a string column holding bytes that are not UTF-8) comes as a DataError naming its field in place
    of the row (``hub_rows.RowGuard.row`` raises it: that row's fault, never the file's)."""
    import pyarrow.parquet as pq

    files = sorted(p for p in snapshot.rglob("*.parquet") if not any(s.startswith(".") for s in p.relative_to(snapshot).parts))
    if not files:
        raise DataError("no *.parquet file in the hub copy", file=str(snapshot))
    for path in files:
        i = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=32):
            try:
                rows = batch.to_pylist()
            except ValueError:  # UnicodeDecodeError: read row by row, the bad one named
                rows = [_one_row(batch, j, path, i + j) for j in range(batch.num_rows)]
            for row in rows:
                yield path, i, row
                i += 1


def _one_row(batch: Any, j: int, path: Path, i: int) -> Any:
    try:
        return batch.slice(j, 1).to_pylist()[0]
    except ValueError:
        for column in batch.schema.names:
            try:
                batch.column(column).slice(j, 1).to_pylist()
            except ValueError as exc:
                return DataError(f"is not UTF-8 text ({exc})", file=str(path), row=i, field=column)
        return DataError("cannot be read", file=str(path), row=i)


def _image_bytes(row: dict[str, Any], path: Path, i: int) -> bytes:
    image = row.get("image")
    data = image.get("bytes") if isinstance(image, dict) else image
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise DataError("no embedded screenshot bytes", file=str(path), row=i, field="image")
    return bytes(data)


def _place(guard: RowGuard, folder: Path, rel: str, data: bytes, path: Path, i: int, field: str) -> None:
    """Write a row's screenshot under ``folder/rel`` once (one screenshot serves several rows; other bytes under a
    name already placed are the row's error, naming both rows)."""
    if guard.claim(rel, data, path, i, field):
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _suffix(data: bytes) -> str:
    return ".jpg" if data[:3] == b"\xff\xd8\xff" else ".png"


def convert_screenspot_pro(snapshot: Path, out: Path) -> int:
    """ScreenSpot-Pro hub rows -> ``annotations/<application>_<platform>.json`` + ``images/`` (the GitHub release);
    the number of bad rows skipped (``hub_rows``: one row, one fault)."""
    guard = RowGuard(f"hub conversion of {snapshot.name} (ScreenSpot-Pro)")
    files: dict[str, list[dict[str, Any]]] = {}
    for path, i, row in parquet_rows(snapshot):
        with guard.row(path, i, row):
            row = check_row(row, path, i)
            data = _image_bytes(row, path, i)
            rid = text(row.get("id"), path, i, "id")
            if row.get("img_filename"):
                rel = name(row["img_filename"], path, i, "img_filename")
            else:
                rel = name(f"{rid if rid is not None else f'{path.stem}-{i:05d}'}{_suffix(data)}", path, i, "id",
                           single=True)
            size = json_value(row.get("img_size"), path, i, "img_size")
            if size is None and row.get("image_width") is not None and row.get("image_height") is not None:
                size = [row["image_width"], row["image_height"]]
            official = {k: json_value(row[k], path, i, k) for k in PRO_OFFICIAL if k in row and row[k] is not None}
            official.update(img_filename=rel, img_size=size)
            if "ui_type" not in official and row.get("data_type") is not None:
                official["ui_type"] = text(row["data_type"], path, i, "data_type")
            official.setdefault("group", text(row.get("group"), path, i, "group"))
            for k in ("bbox", "instruction"):
                official.setdefault(k, text(row.get(k), path, i, k))
            app, platform = official.get("application"), official.get("platform")
            stem = name(f"{app}_{platform}" if app and platform else path.stem, path, i,
                        "application" if app and platform else "<file>", single=True)
            _place(guard, out / "images", rel, data, path, i, "image")
            files.setdefault(stem, []).append(official)
    (out / "annotations").mkdir(parents=True, exist_ok=True)
    for stem, rows in files.items():
        (out / "annotations" / f"{stem}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return guard.done()


def convert_osworld_g(snapshot: Path, out: Path) -> int:
    """OSWorld-G hub rows -> ``OSWorld-G.json`` + ``images/<image_path>`` (the release's ``benchmark/`` folder); the
    number of bad rows skipped."""
    guard = RowGuard(f"hub conversion of {snapshot.name} (OSWorld-G)")
    rows = []
    for path, i, row in parquet_rows(snapshot):
        with guard.row(path, i, row):
            row = check_row(row, path, i)
            data = _image_bytes(row, path, i)
            if row.get("image_path"):
                rel = name(row["image_path"], path, i, "image_path")
            else:
                rid = text(row.get("id", f"{path.stem}-{i:05d}"), path, i, "id")
                rel = name(f"{rid}{_suffix(data)}", path, i, "id", single=True)
            kept = {k: json_value(v, path, i, k) for k, v in row.items() if k != "image"}
            _place(guard, out / "images", rel, data, path, i, "image")
            rows.append({**kept, "image_path": rel})
    out.mkdir(parents=True, exist_ok=True)
    (out / "OSWorld-G.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return guard.done()


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


def convert_screenspot(snapshot: Path, out: Path) -> int:
    """ScreenSpot hub rows -> ``screenspot_{desktop,mobile,web}.json`` + ``screenspot_imgs/`` (SeeClick's release):
    the box back to ``[x, y, w, h]`` pixels of the embedded screenshot, rows in hub order within each platform; the
    number of bad rows skipped."""
    guard = RowGuard(f"hub conversion of {snapshot.name} (ScreenSpot)")
    files: dict[str, list[dict[str, Any]]] = {"desktop": [], "mobile": [], "web": []}
    for path, i, row in parquet_rows(snapshot):
        with guard.row(path, i, row):
            row = check_row(row, path, i)
            data = _image_bytes(row, path, i)
            given = row.get("file_name") or row.get("img_filename")
            field = "file_name" if row.get("file_name") else "img_filename"
            rel = (name(given, path, i, field) if given
                   else name(f"{path.stem}-{i:05d}{_suffix(data)}", path, i, "<file>", single=True))
            box = json_value(row.get("bbox"), path, i, "bbox")
            if not (isinstance(box, list) and len(box) == 4):
                raise DataError(f"expected [x1, y1, x2, y2] fractions, got {box!r}", file=str(path), row=i,
                                field="bbox")
            w, h = _size_of(data, path, i)
            x1, y1, x2, y2 = (_pixel(v, s, path, i) for v, s in zip(box, (w, h, w, h)))
            given_source = text(row.get("data_source"), path, i, "data_source")
            source = str(given_source or "")
            record = {"img_filename": rel, "bbox": [x1, y1, x2 - x1, y2 - y1],
                      "instruction": text(row.get("instruction"), path, i, "instruction"),
                      "data_type": text(row.get("data_type"), path, i, "data_type"), "data_source": given_source}
            _place(guard, out / "screenspot_imgs", rel, data, path, i, "image")
            files[SCREENSPOT_PLATFORM.get(source.lower(), "web")].append(record)
    for platform, rows in files.items():
        (out / f"screenspot_{platform}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return guard.done()


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
