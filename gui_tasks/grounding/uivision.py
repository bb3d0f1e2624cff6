"""UI-Vision element grounding (basic, functional, spatial) from a local copy of its release, as canonical documents.

Release (HF ``ServiceNow/ui-vision``, read by ``uivision/UI-Vision`` ``eval/grounding/eval_uivision.py`` @
2b79355f962a2db1402ce0ad3d261aa9cb74b855): ``annotations/element_grounding/element_grounding_{basic,functional,
spatial}.json`` (one file per setting) + ``images/`` (``image_path`` is relative to it); rows ``image_path,
image_size = [w, h], bbox = [x1, y1, x2, y2]`` (pixels), ``prompt_to_evaluate, platform, element_type, category``.

The official scorer (``eval_sample_positive_gt``) swaps a box's corners when they come reversed (x1 > x2 or
y1 > y2), normalises by ``image_size`` and counts a point on the edge as inside; its only figure per file is
``overall_simple`` (micro ``action_acc``; the README's "Final Avg" is the mean of the three settings). Reversed
boxes are swapped here too (meta ``bbox_reversed``); a box poking outside its image is clipped for display, scored
unclipped (meta ``bbox_published``), as for ScreenSpot-Pro. Folder: ``$UIVISION_DATA_DIR``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, skip_bad_rows
from gui_tasks.grounding.screenspot import release_rows, _doc, _field, _image_size, _numbers, _read_json, row_warnings

SETTINGS = ("basic", "functional", "spatial")
SOURCE = "uivision"


def data_root() -> Path:
    """The local copy named by its record's ``$UIVISION_DATA_DIR``."""
    from gui_core.benchmark import data_root as root_of

    return root_of(SOURCE)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A UI-Vision element grounding task's documents: one setting per task (metadata ``setting``)."""
    return release_rows(meta, "uivision rows", lambda bad: load_docs(data_root(), str(meta.get("setting")), bad))


def annotation_file(root: Path, setting: str) -> Path:
    return root / "annotations" / "element_grounding" / f"element_grounding_{setting}.json"


def _row(root: Path, path: Path, setting: str, i: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataError(f"expected a JSON object, got {type(row).__name__}", file=str(path), row=i)
    x1, y1, x2, y2 = _numbers(_field(row, "bbox", path, i), path, i, "bbox")
    reversed_ = x1 > x2 or y1 > y2
    box = [min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)]  # eval_sample_positive_gt swaps reversed corners
    image = root / "images" / str(_field(row, "image_path", path, i))
    size = _image_size(image, path, i)
    declared = _numbers(_field(row, "image_size", path, i), path, i, "image_size", 2)
    warnings = ["reversed box (swapped, as the scorer does)"] if reversed_ else []
    if isinstance(size, str) or [int(v) for v in declared] != list(size):
        warnings.append("image_size differs from the PNG")  # the scorer divides by image_size: so does scoring here
    scored = [box[0] / declared[0], box[1] / declared[1], box[2] / declared[0], box[3] / declared[1]] \
        if declared[0] and declared[1] else None
    element_type = str(row.get("element_type", "")).strip().lower() or "unknown"
    report = {"setting": setting, "platform": row.get("platform"), "category": row.get("category"),
              "element_type": row.get("element_type")}
    meta = {"platform": row.get("platform"), "category": row.get("category"), "bbox_format": "xyxy_px",
            "setting": setting, "report": report, **({"bbox_reversed": [x1, y1, x2, y2]} if reversed_ else {})}
    return _doc(SOURCE, f"{SOURCE}_{setting}-{i:05d}", _field(row, "prompt_to_evaluate", path, i), image, size, box,
                element_type, meta, path, i, scored, warnings)


def load_docs(root: Path, setting: str, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """The documents of one setting; bad rows raise, or go to ``bad`` when it skips."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown UI-Vision setting {setting!r}; known: {SETTINGS}")
    bad = bad if bad is not None else BadRows(skip_bad_rows())
    path = annotation_file(root, setting)
    if not path.is_file():
        raise DataError(f"missing {path.name} in the UI-Vision copy (expected under annotations/element_grounding/)",
                        file=str(path))
    return bad.keep(lambda item: _row(root, path, setting, item[0], item[1]), enumerate(_read_json(path)),
                    file=str(path))


def data_check(root: Path | None = None):
    """``gui-eval data check uivision``: documents per setting, bad rows (all collected), reversed and clipped boxes."""
    from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount

    check = BenchmarkCheck.of_copy("uivision", root, data_root)
    if check.errors:
        return check
    for setting in SETTINGS:
        docs = check.read_docs(lambda bad: load_docs(check.root, setting, bad))
        if docs is None:
            continue
        # no row count is published for the element-grounding files that we could check: found counts only
        check.counts.append(TaskCount(f"gui_uivision_{setting}", len(docs), None, "release (no published count)"))
        metas = [json.loads(d["meta"]) for d in docs]
        odd = [(d["id"], m["bbox_reversed"]) for d, m in zip(docs, metas) if "bbox_reversed" in m]
        clipped = [(d["id"], m["bbox_published"]) for d, m in zip(docs, metas) if "bbox_published" in m]
        check.notes.append(f"{setting}: {row_warnings(docs)}")
        check.notes.append(f"{setting}: boxes with reversed corners (swapped, as the scorer does): {len(odd)}"
                           + (f" ({', '.join(f'{i} {b}' for i, b in odd)[:300]})" if odd else "")
                           + f"; boxes clipped to their image: {len(clipped)}"
                           + (f" ({', '.join(f'{i} {b}' for i, b in clipped)[:300]})" if clipped else ""))
    return check
