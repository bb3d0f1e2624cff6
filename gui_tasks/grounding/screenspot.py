"""ScreenSpot, ScreenSpot-v2 and ScreenSpot-Pro from local copies of their official releases, as canonical documents.

Each release's box convention is named here, never guessed from magnitudes:

- ScreenSpot (SeeClick release): ``screenspot_{desktop,mobile,web}.json`` + ``screenspot_imgs/``;
  rows ``img_filename, bbox = [x, y, w, h]`` (pixels), ``instruction, data_type, data_source``.
- ScreenSpot-v2 (OS-Atlas release): ``screenspot_{desktop,mobile,web}_v2.json`` +
  ``screenspotv2_image/``; the same row schema.
- ScreenSpot-Pro: ``annotations/*.json`` + ``images/``; rows ``img_filename, bbox = [x1, y1, x2, y2]``
  (pixels), ``instruction, ui_type, group, platform, application, img_size = [w, h], id``.

Folders come from ``$SCREENSPOT_DATA_DIR``, ``$SCREENSPOT_V2_DATA_DIR``, ``$SCREENSPOT_PRO_DATA_DIR``.
Only the target box is known, so misleading and confusion merge into "other" (``other_boxes: None``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PIL import Image

from gui_tasks.errors import DataError
from gui_tasks.input_files import read_json

VARIANTS = ("screenspot", "screenspot_v2", "screenspot_pro")
ENV = {"screenspot": "SCREENSPOT_DATA_DIR", "screenspot_v2": "SCREENSPOT_V2_DATA_DIR", "screenspot_pro": "SCREENSPOT_PRO_DATA_DIR"}
PLATFORMS = ("desktop", "mobile", "web")
_FILES = {"screenspot": ("screenspot_{}.json", "screenspot_imgs"), "screenspot_v2": ("screenspot_{}_v2.json", "screenspotv2_image")}
PRO_GROUPS = {"dev": "dev", "creative": "creative", "cad": "cad", "scientific": "scientific", "office": "office", "os": "os"}


def data_root(variant: str) -> Path:
    """The local copy of ``variant`` named by its environment variable."""
    env = ENV[variant]
    local = os.environ.get(env)
    if not local:
        raise DataError(f"set ${env} to a local copy of the official {variant} release (this harness does not download it)",
                        file=f"${env}")
    root = Path(local).expanduser()
    if not root.is_dir():
        raise DataError(f"${env} points to {root}, which is not a directory", file=str(root))
    return root


def _read_json(path: Path) -> list[dict[str, Any]]:
    rows = read_json(path)
    if not isinstance(rows, list):
        raise DataError("expected a JSON list of rows", file=str(path))
    return rows


def _field(row: dict[str, Any], name: str, path: Path, i: int) -> Any:
    if name not in row:
        raise DataError(f"missing field {name!r}", file=str(path), row=i, field=name)
    return row[name]


def _numbers(value: Any, path: Path, i: int, field: str, n: int = 4) -> list[float]:
    if not (isinstance(value, (list, tuple)) and len(value) == n and all(isinstance(v, (int, float)) for v in value)):
        raise DataError(f"expected {n} numbers, got {value!r}", file=str(path), row=i, field=field)
    return [float(v) for v in value]


def _image_size(image: Path, path: Path, i: int) -> tuple[int, int]:
    if not image.is_file():
        raise DataError(f"image {image} not found", file=str(path), row=i, field="img_filename")
    with Image.open(image) as im:
        return im.size


def _doc(variant: str, row_id: str, instruction: Any, image: Path, size: tuple[int, int], box: list[float], split: str,
         meta: dict[str, Any], path: Path, i: int) -> dict[str, Any]:
    if not isinstance(instruction, str) or not instruction.strip():
        raise DataError("empty instruction", file=str(path), row=i, field="instruction")
    w, h = size
    x1, y1, x2, y2 = box
    if not (0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h):
        raise DataError(f"box {box} is empty or outside the {w}x{h} image", file=str(path), row=i, field="bbox")
    return {"id": row_id, "source": variant, "instruction": instruction.strip(), "image": str(image.resolve()), "width": w,
            "height": h, "target_box": box, "other_boxes": None, "split": split,
            "meta": json.dumps({"file": path.name, "row": i, **meta}, sort_keys=True, ensure_ascii=False)}


def _ui_type(value: Any, path: Path, i: int, field: str) -> str:
    t = str(value).strip().lower()
    if t not in ("icon", "text"):
        raise DataError(f"UI type must be 'icon' or 'text', got {value!r}", file=str(path), row=i, field=field)
    return t


def load_seeclick(variant: str, root: Path) -> list[dict[str, Any]]:
    """ScreenSpot / ScreenSpot-v2 rows: bbox [x, y, w, h] in pixels, split = platform_datatype."""
    pattern, image_dir = _FILES[variant]
    docs = []
    for platform in PLATFORMS:
        path = root / pattern.format(platform)
        if not path.is_file():
            raise DataError(f"missing {path.name} in the {variant} copy", file=str(path))
        for i, row in enumerate(_read_json(path)):
            x, y, bw, bh = _numbers(_field(row, "bbox", path, i), path, i, "bbox")
            image = root / image_dir / str(_field(row, "img_filename", path, i))
            split = f"{platform}_{_ui_type(_field(row, 'data_type', path, i), path, i, 'data_type')}"
            docs.append(_doc(variant, f"{variant}-{platform}-{i:04d}", _field(row, "instruction", path, i), image,
                             _image_size(image, path, i), [x, y, x + bw, y + bh], split,
                             {"data_source": row.get("data_source"), "bbox_format": "xywh_px"}, path, i))
    return docs


def load_pro(root: Path) -> list[dict[str, Any]]:
    """ScreenSpot-Pro rows: bbox [x1, y1, x2, y2] in pixels, split = group_uitype."""
    ann = root / "annotations"
    files = sorted(ann.glob("*.json")) if ann.is_dir() else []
    if not files:
        raise DataError("no annotations/*.json in the ScreenSpot-Pro copy", file=str(ann))
    docs = []
    for path in files:
        for i, row in enumerate(_read_json(path)):
            box = _numbers(_field(row, "bbox", path, i), path, i, "bbox")
            image = root / "images" / str(_field(row, "img_filename", path, i))
            size = _image_size(image, path, i)
            declared = row.get("img_size")
            if declared is not None and [int(v) for v in _numbers(declared, path, i, "img_size", 2)] != list(size):
                raise DataError(f"img_size {declared} differs from the image's {size[0]}x{size[1]}", file=str(path), row=i,
                                field="img_size")
            group = str(_field(row, "group", path, i)).strip().lower()
            if group not in PRO_GROUPS:
                raise DataError(f"unknown group {row['group']!r}; known: {sorted(PRO_GROUPS)}", file=str(path), row=i, field="group")
            split = f"{PRO_GROUPS[group]}_{_ui_type(_field(row, 'ui_type', path, i), path, i, 'ui_type')}"
            rid = str(row.get("id", f"{path.stem}-{i:04d}"))
            docs.append(_doc("screenspot_pro", f"screenspot_pro-{rid}", _field(row, "instruction", path, i), image, size, box, split,
                             {"application": row.get("application"), "platform": row.get("platform"), "bbox_format": "xyxy_px"},
                             path, i))
    return docs


def load_docs(variant: str, root: Path) -> list[dict[str, Any]]:
    if variant == "screenspot_pro":
        return load_pro(root)
    if variant in _FILES:
        return load_seeclick(variant, root)
    raise ValueError(f"unknown ScreenSpot variant {variant!r}; known: {VARIANTS}")
