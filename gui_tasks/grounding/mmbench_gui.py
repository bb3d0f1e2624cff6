"""MMBench-GUI L2 (GUI element grounding, basic and advanced instructions, six platforms) as canonical documents.

Release (HF ``OpenGVLab/MMBench-GUI``, read by ``open-compass/MMBench-GUI`` ``benchmarks/l2_element_grounding.py``
@ 896ddf1d3aa4d6464d0c55c6416518f889d78d77): ``L2_annotations.json`` + ``offline_images/<platform>/<image_path>``
(``platform`` is the folder: ``os_windows``, ``os_mac``, ``os_linux``, ``os_ios``, ``os_android``, ``os_web``);
rows ``image_path, platform, instruction, bbox = [x1, y1, x2, y2], data_type (icon | text), grounding_type
(basic | advanced), app_name``. A row without an image is a bad row: ``skip_noimg`` there tests for a missing path
only after joining it to the platform (``"os_windows/None"``), so such a row is kept and stops the evaluation.

Box reading as ``GUIElementGrounding.evaluate``: a bbox given as a string is a Python literal; a bbox whose four raw
values all lie in [0, 1] is relative, otherwise pixels divided by the screenshot's size; ``-1`` reads as 0 first
(``make_safe``); a box outside [0, 1] after that stops the official evaluation (here: a bad row naming file, row and
field). The relative box is tested as computed there (meta ``target_relative``), edges inside. Folder:
``$MMBENCH_GUI_DATA_DIR``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Mapping

from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, skip_bad_rows
from gui_tasks.grounding.screenspot import release_rows, _doc, _field, _image_size, _read_json, row_warnings

SOURCE = "mmbench_gui_l2"
ANNOTATIONS = "L2_annotations.json"
LEVELS = ("basic", "advanced")
PLATFORMS = ("os_windows", "os_mac", "os_linux", "os_ios", "os_android", "os_web")


def data_root() -> Path:
    """The local copy named by its record's ``$MMBENCH_GUI_DATA_DIR`` (gui_core.benchmark.data_root; the folder holding L2_annotations.json)."""
    from gui_core.benchmark import data_root as root_of

    return root_of(SOURCE)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """MMBench-GUI L2's documents: both levels, every platform (the official mode "all"), or metadata ``level``."""
    return release_rows(meta, "mmbench_gui_l2 rows", lambda bad: load_docs(data_root(), bad, str(meta.get("level") or "all")))


def relative_box(bbox: Any, size: tuple[int, int], path: Path, i: int) -> list[float]:
    """The box as ``evaluate`` reads it: literal strings parsed, -1 -> 0, pixels divided by the size, else as given."""
    if isinstance(bbox, str):
        try:
            bbox = ast.literal_eval(bbox)
        except (ValueError, SyntaxError) as exc:
            raise DataError(f"bbox {bbox!r} is not a literal list: {exc}", file=str(path), row=i, field="bbox") from None
    if not (isinstance(bbox, (list, tuple)) and len(bbox) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in bbox)):
        raise DataError(f"expected [x1, y1, x2, y2], got {bbox!r}", file=str(path), row=i, field="bbox")
    safe = [0 if v == -1 else v for v in bbox]
    if all(0 <= v <= 1 for v in bbox):  # is_normalized looks at the raw values
        rel = [float(v) for v in safe]
    else:
        rel = [safe[0] / size[0], safe[1] / size[1], safe[2] / size[0], safe[3] / size[1]]
    if any(v < 0 or v > 1 for v in rel):
        raise DataError(f"bbox {bbox} is out of range for the {size[0]}x{size[1]} image ({rel}); the official "
                        "evaluation stops here", file=str(path), row=i, field="bbox")
    return rel  # a zero-width / zero-height box is hit on its line; a reversed one never (the scorer's arithmetic)


def _row(root: Path, path: Path, i: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataError(f"expected a JSON object, got {type(row).__name__}", file=str(path), row=i)
    platform, level = str(_field(row, "platform", path, i)), str(_field(row, "grounding_type", path, i))
    if level not in LEVELS:
        raise DataError(f"grounding_type {level!r}; known: {LEVELS}", file=str(path), row=i, field="grounding_type")
    data_type = _field(row, "data_type", path, i)
    if data_type not in ("icon", "text"):  # level2_calculate_scores reads exactly these two keys
        raise DataError(f"data_type {data_type!r}; the scorer counts 'icon' and 'text'", file=str(path), row=i,
                        field="data_type")
    if row.get("image_path") is None:
        raise DataError("no image_path (the official evaluation stops on such a row)", file=str(path), row=i,
                        field="image_path")
    image = root / "offline_images" / platform / str(row["image_path"])
    size = _image_size(image, path, i)  # or the reason the screenshot is refused: then the document carries it
    frame = size if not isinstance(size, str) else (1000, 1000)  # a nominal frame for a refused screenshot's box
    rel = relative_box(_field(row, "bbox", path, i), frame, path, i)
    w, h = frame
    box = [rel[0] * w, rel[1] * h, rel[2] * w, rel[3] * h]
    report = {"grounding_type": level, "platform": platform, "data_type": data_type, "app_name": row.get("app_name")}
    rid = row.get("index", i)
    warnings = (["reversed box"] if rel[0] > rel[2] or rel[1] > rel[3] else []) + \
        (["zero-width or zero-height box"] if rel[0] == rel[2] or rel[1] == rel[3] else [])
    return _doc(SOURCE, f"{SOURCE}-{rid}", _field(row, "instruction", path, i), image, size, box, f"{level}_{platform}",
                {"platform": platform, "app_name": row.get("app_name"), "bbox_as_published": row["bbox"],
                 "report": report}, path, i, rel, warnings)


def load_docs(root: Path, bad: BadRows | None = None, level: str = "all") -> list[dict[str, Any]]:
    """The documents of ``level`` (all | basic | advanced, the official ``mode``)."""
    if level not in ("all",) + LEVELS:
        raise ValueError(f"unknown MMBench-GUI L2 level {level!r}; known: all, {', '.join(LEVELS)}")
    bad = bad if bad is not None else BadRows(skip_bad_rows())
    path = root / ANNOTATIONS
    if not path.is_file():
        raise DataError(f"missing {ANNOTATIONS} in the MMBench-GUI copy", file=str(path))
    rows = [(i, r) for i, r in enumerate(_read_json(path))
            if level == "all" or not isinstance(r, dict) or r.get("grounding_type") == level]
    return bad.keep(lambda item: _row(root, path, item[0], item[1]), rows, file=str(path))


def data_check(root: Path | None = None):
    """``gui-eval data check mmbench_gui_l2``: documents per level and platform, bad rows (all collected)."""
    from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount

    check = BenchmarkCheck.of_copy("mmbench_gui_l2", root, data_root)
    if check.errors:
        return check
    docs = check.read_docs(lambda bad: load_docs(check.root, bad))
    if docs is None:
        return check
    check.counts.append(TaskCount("gui_mmbench_gui_l2", len(docs), None, "release (no published count)"))
    for level in LEVELS:
        for platform in PLATFORMS:
            n = sum(d["split"] == f"{level}_{platform}" for d in docs)
            check.counts.append(TaskCount(f"  {level} {platform}", n, None))
    published = [json.loads(d["meta"])["bbox_as_published"] for d in docs]
    relative = sum(isinstance(b, list) and all(0 <= v <= 1 for v in b) for b in published)
    minus_one = [d["id"] for d, b in zip(docs, published) if isinstance(b, list) and -1 in b]
    check.notes.append(f"boxes published relative: {relative}, in pixels: {len(docs) - relative}; with a -1 corner "
                       f"(read as 0): {len(minus_one)}" + (f" ({', '.join(minus_one[:10])})" if minus_one else ""))
    check.notes.append(row_warnings(docs))
    return check
