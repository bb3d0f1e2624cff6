"""MMBench-GUI L2 (GUI element grounding, basic and advanced instructions, six platforms) as canonical documents.

Release (HF ``OpenGVLab/MMBench-GUI``, read by ``open-compass/MMBench-GUI`` ``benchmarks/l2_element_grounding.py``
@ 896ddf1d3aa4d6464d0c55c6416518f889d78d77): ``L2_annotations.json`` + ``offline_images/<platform>/<image_path>``
(``platform`` is the folder: ``os_windows``, ``os_mac``, ``os_linux``, ``os_ios``, ``os_android``, ``os_web``);
rows ``image_path, platform, instruction, bbox = [x1, y1, x2, y2], data_type (icon | text | other), grounding_type
(basic | advanced | other), app_name, image_size``. Every row ``evaluate`` scores is scored as it scores it (issue 52:
any data_type / level, counted as ``level2_calculate_scores`` counts them); a row it cannot get past is that row's
DataError citing the statement that raises. A row without an image is a bad row: ``skip_noimg`` there tests for a missing path
only after joining it to the platform (``"os_windows/None"``), so such a row is kept and stops the evaluation.

Box reading as ``GUIElementGrounding.evaluate``: a bbox given as a string is a Python literal; a bbox whose four raw
values all lie in [0, 1] is relative, otherwise pixels divided by the screenshot's size; ``-1`` reads as 0 first
(``make_safe``); a box outside [0, 1] after that stops the official evaluation (here: a bad row naming file, row and
field). The row's ``image_size`` goes to meta ``row_image_size`` (the repository's UI-TARS reader resizes with it). The relative box is tested as computed there (meta ``target_relative``), edges inside. Folder:
``$MMBENCH_GUI_DATA_DIR``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Mapping

from gui_core.errors import DataError
from gui_core.sample_faults import DOC_ERROR
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


_EVALUATE = "benchmarks/l2_element_grounding.py GUIElementGrounding.evaluate"
_NUMBER = (int, float)  # bools included: Python compares and divides them as 0 / 1


def _stops(what: str, line: str, path: Path, i: int, field: str) -> DataError:
    return DataError(f"{what}; the official evaluation stops at `{line}` ({_EVALUATE})", file=str(path), row=i,
                     field=field)


def relative_box(bbox: Any, size: tuple[int, int], path: Path, i: int) -> list[float]:
    """The box as ``evaluate`` reads it: a non-list is ``ast.literal_eval``'d, ``is_normalized`` looks at every raw
    value (left to right, stopping at the first outside [0, 1]), the first four are used, ``make_safe`` reads -1 as 0,
    pixels are divided by the screenshot's size, and a value outside [0, 1] after that raises ``bbox out of range``.
    Whatever raises there (a broken literal, fewer than four values, a value that does not compare or divide) is the
    row's DataError citing the official statement."""
    if not isinstance(bbox, list):
        try:
            bbox = ast.literal_eval(bbox)
        except Exception as exc:  # noqa: BLE001 - any literal_eval failure stops the official run
            raise _stops(f"bbox {bbox!r} is not a Python literal ({type(exc).__name__})",
                         "ast.literal_eval(line['bbox'])", path, i, "bbox") from None
    if not isinstance(bbox, (list, tuple)):
        raise _stops(f"bbox {bbox!r} is not a list", "bbox[0]", path, i, "bbox")
    normalized = True
    for v in bbox:  # is_normalized: all(0 <= x <= 1 for x in value), short-circuiting
        if not isinstance(v, _NUMBER):
            raise _stops(f"bbox value {v!r} does not compare with 0", "is_normalized(bbox)", path, i, "bbox")
        if not 0 <= v <= 1:
            normalized = False
            break
    if len(bbox) < 4:
        raise _stops(f"bbox {bbox!r} has fewer than four values", "bbox[3]", path, i, "bbox")
    safe = [0 if v == -1 else v for v in bbox[:4]]
    if not all(isinstance(v, _NUMBER) for v in safe):
        raise _stops(f"bbox {bbox!r} holds a value that does not divide", "make_safe(bbox[k]) / img_size[k]", path, i,
                     "bbox")
    try:
        rel = safe if normalized else [safe[0] / size[0], safe[1] / size[1], safe[2] / size[0], safe[3] / size[1]]
    except (OverflowError, ZeroDivisionError) as exc:
        raise _stops(f"bbox {bbox!r}: {exc}", "make_safe(bbox[k]) / img_size[k]", path, i, "bbox") from None
    if any(v < 0 or v > 1 for v in rel):
        raise _stops(f"bbox {bbox} is out of range for the {size[0]}x{size[1]} image ({rel})",
                     "raise ValueError(f'bbox out of range: ...')", path, i, "bbox")
    return [float(v) for v in rel]  # a zero-width box is hit on its line; a reversed one never (the scorer's arithmetic)


def score_key(row: dict[str, Any], columns: set[str], path: Path, i: int) -> Any:
    """``evaluate``'s ``key``: the row's ``data_type`` (any value: only "icon" and "text" get their own counts in
    ``level2_calculate_scores``, every key counts in "Total num"), or ``category + ":" + data_type`` when the file has a
    ``category`` column. A key missing from a row reads as pandas' NaN (here None); the column missing from every row,
    a concatenation of non-strings or a value that cannot key a dict stops the official run (the row's DataError)."""
    line = "key = line['data_type'] if 'category' not in line else line['category'] + ':' + line['data_type']"
    if "data_type" not in columns:
        raise _stops("no row has a data_type", line, path, i, "data_type")
    value = _cell(row.get("data_type"))
    if "category" in columns:
        cat = _cell(row.get("category"))
        if not (isinstance(cat, str) and isinstance(value, str)):
            raise _stops(f"category {cat!r} + ':' + data_type {value!r} is not a string concatenation", line, path, i,
                         "category")
        return f"{cat}:{value}"
    return value


def _cell(value: Any) -> Any:
    """A value as ``evaluate`` reads it back from the xlsx evaluation file VLMEvalKit writes: a list or dict as its str."""
    return str(value) if isinstance(value, (list, tuple, dict)) else value


def _instruction(row: dict[str, Any]) -> str:
    """The instruction as the official prompt formats it (``str.format``): a missing one is pandas' NaN ("nan")."""
    if "instruction" not in row:
        return "nan"
    value = row["instruction"]
    return value if isinstance(value, str) else str(value)


def row_image_size(row: dict[str, Any]) -> str | None:
    """The row's ``image_size`` as the UI-TARS reader gets it from the xlsx evaluation file VLMEvalKit writes: a list
    cell as its ``str`` (which ``ast.literal_eval`` reads back), a string as written; None where ``literal_eval``
    fails outright (missing, null, a number: that answer is wrong_format there)."""
    value = _cell(row.get("image_size"))
    return value if isinstance(value, str) else None


def _header_size(image: Path) -> tuple[int, int] | None:
    """The PNG's size from its header without the model-side bounds (the scorer's ``Image.open(...).size``)."""
    from PIL import Image

    try:
        with Image.open(image) as im:
            return im.size
    except Exception:  # noqa: BLE001 - unreadable: the official run stops at Image.open too
        return None


def _row(root: Path, path: Path, i: int, row: Any, columns: set[str]) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataError(f"expected a JSON object, got {type(row).__name__}", file=str(path), row=i)
    platform = str(_field(row, "platform", path, i))
    level = _cell(row.get("grounding_type"))  # any level is scored and reported as its own; a missing one is NaN (None)
    for name in ("instruction", "app_name"):
        if name not in columns:
            raise _stops(f"no row has {name}", f"result.append({{... line['{name}'] ...}})", path, i, name)
    if row.get("image_path") is None:
        raise DataError("no image_path (the official evaluation stops on such a row)", file=str(path), row=i,
                        field="image_path")
    image = root / "offline_images" / platform / str(row["image_path"])
    size = _image_size(image, path, i)  # or the reason the screenshot is refused: then the document carries it
    error = size if isinstance(size, str) else None
    frame = size if error is None else _header_size(image)  # the scorer divides by the header's size
    if frame is None:
        raise _stops(f"screenshot {image} unreadable ({error})", "Image.open(...)", path, i, "image_path")
    rel = relative_box(_field(row, "bbox", path, i), frame, path, i)
    key = score_key(row, columns, path, i)
    w, h = frame
    box = [rel[0] * w, rel[1] * h, rel[2] * w, rel[3] * h]
    report = {"grounding_type": level, "platform": platform, "data_type": key, "app_name": row.get("app_name")}
    rid = row.get("index", i)
    instruction = _instruction(row)
    warnings = (["reversed box"] if rel[0] > rel[2] or rel[1] > rel[3] else []) + \
        (["zero-width or zero-height box"] if rel[0] == rel[2] or rel[1] == rel[3] else []) + \
        ([] if isinstance(row.get("instruction"), str) else ["instruction not a string (asked as its str)"]) + \
        ([] if key in ("icon", "text") else ["data_type neither icon nor text (counted in Total only)"]) + \
        ([] if level in LEVELS else ["grounding_type neither basic nor advanced (its own level, not averaged)"])
    meta = {"platform": platform, "app_name": row.get("app_name"), "bbox_as_published": row["bbox"], "report": report,
            "row_image_size": row_image_size(row)}
    if error is not None:
        meta["image_refused"] = True
    doc = _doc(SOURCE, f"{SOURCE}-{rid}", instruction, image, frame, box, f"{level}_{platform}", meta, path, i, rel,
               warnings)
    if error is not None:
        doc[DOC_ERROR] = error  # not sent to the model (a model-side bound); scored in the header's frame
    return doc


def load_docs(root: Path, bad: BadRows | None = None, level: str = "all") -> list[dict[str, Any]]:
    """The documents of ``level`` (all | basic | advanced, the official ``mode``)."""
    if level not in ("all",) + LEVELS:
        raise ValueError(f"unknown MMBench-GUI L2 level {level!r}; known: all, {', '.join(LEVELS)}")
    bad = bad if bad is not None else BadRows(skip_bad_rows())
    path = root / ANNOTATIONS
    if not path.is_file():
        raise DataError(f"missing {ANNOTATIONS} in the MMBench-GUI copy", file=str(path))
    every = _read_json(path)
    columns = {k for r in every if isinstance(r, dict) for k in r}  # the pandas frame's columns
    rows = [(i, r) for i, r in enumerate(every)
            if level == "all" or not isinstance(r, dict) or r.get("grounding_type") == level]
    return bad.keep(lambda item: _row(root, path, item[0], item[1], columns), rows, file=str(path))


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
