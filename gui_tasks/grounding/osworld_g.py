"""OSWorld-G (xlang-ai/OSWorld-G ``benchmark/``): original and refined instruction sets as canonical documents.

Release layout (read by the repository's ``evaluation/*_osworld_g.py`` scripts, as the fork
``Onifin/Holo3.1-OSWorld-G`` ``evaluation/holo_osworld_g.py`` @ 0fbdd89 shows them; the authors' repository itself
could not be fetched here): ``OSWorld-G.json`` (original instructions) and ``OSWorld-G_refined.json`` (the same ids
and targets, reworded instructions), ``images/<image_path>``, ``classification_result.json``
(``{"classified": {category: [{"id": ...}, ...]}}``, categories text_matching, element_recognition,
layout_understanding, fine_grained_manipulation, refusal; an item may be in several). Rows: ``id, image_path,
image_size = [w, h], instruction, box_type, box_coordinates, GUI_types``; ``box_type`` is

- ``bbox``: ``box_coordinates = [x, y, w, h]`` pixels; hit when ``x <= px <= x + w`` and ``y <= py <= y + h``;
- ``polygon``: a flat ``[x0, y0, x1, y1, ...]``; hit by the even-odd ray-crossing test;
- ``refusal``: the element is absent; correct only when both coordinates of the answer are negative (a reader maps
  a refusal to ``[-1, -1, -1, -1]``; with ``refusal_phrase`` also an answer holding our refusal sentence's phrase).

Those are the rules of ``GroundingEval._eval`` (the ``official`` reading). Which harness's code reads and scores an
answer is the task metadata key ``reading`` (``official`` | ``vlmevalkit`` | ``lmms_eval``, gui_metrics.osworld_g_readings,
where each is cited), a score parameter recorded in every sample record; it selects the polygon rule too (the old
key ``polygon_rule`` is refused unless it names the reading's own rule).

The category report is the scripts' ``accuracy_dict_group``: each item counts in every category whose list holds
its id, in ``unclassified`` when none does. Folder: ``$OSWORLD_G_DATA_DIR`` (the release's ``benchmark/``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from gui_core.errors import DataError
from gui_metrics.osworld_g_readings import hit, point_in_polygon  # noqa: F401 (the scorers' geometry, one place)
from gui_tasks.harness.bad_rows import BadRows, skip_bad_rows
from gui_tasks.grounding.screenspot import release_rows, _field, _image_size, _read_json, clip_box

SOURCE = "osworld_g"
FILES = {"original": "OSWorld-G.json", "refined": "OSWorld-G_refined.json"}
CLASSIFICATION = "classification_result.json"
BOX_TYPES = ("bbox", "polygon", "refusal")


def data_root() -> Path:
    """The local copy named by its record's ``$OSWORLD_G_DATA_DIR`` (gui_core.benchmark.data_root; the folder holding OSWorld-G.json and images/)."""
    from gui_core.benchmark import data_root as root_of

    return root_of(SOURCE)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An OSWorld-G task's documents: one instruction set per task (metadata ``instructions``)."""
    return release_rows(meta, "osworld_g rows", lambda bad: load_docs(
        data_root(), str(meta.get("instructions") or "original"), bad, bool(meta.get("refusal_phrase"))))


def _numbers(value: Any, path: Path, i: int) -> list[float]:
    if not (isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise DataError(f"expected a list of numbers, got {value!r}", file=str(path), row=i, field="box_coordinates")
    return [float(v) for v in value]


def classification(root: Path) -> dict[str, list[str]]:
    """Item id -> its categories in the file's order (``{}`` without the file: every item is ``unclassified``)."""
    path = root / CLASSIFICATION
    if not path.is_file():
        return {}
    from gui_tasks.runs.input_files import read_json

    raw = read_json(path)
    classified = raw.get("classified") if isinstance(raw, dict) else None
    if not isinstance(classified, dict):
        raise DataError('expected {"classified": {category: [{"id": ...}, ...]}}', file=str(path), field="classified")
    out: dict[str, list[str]] = {}
    for category, items in classified.items():
        for item in items if isinstance(items, list) else []:
            rid = item.get("id") if isinstance(item, dict) else item
            if category not in out.setdefault(str(rid), []):  # the scripts stop at the first match per category
                out[str(rid)].append(category)
    return out


def _display_box(box_type: str, coords: list[float], w: int, h: int) -> list[float]:
    """The rectangle shown and used for PSS distances: the region's bounding box clipped to the image (the whole
    image for a refusal item); at least one pixel wide and high."""
    if box_type == "bbox":
        box = [coords[0], coords[1], coords[0] + coords[2], coords[1] + coords[3]]
    elif box_type == "polygon" and len(coords) >= 2:
        xs, ys = coords[0:2 * (len(coords) // 2):2], coords[1:2 * (len(coords) // 2):2]
        box = [min(xs), min(ys), max(xs), max(ys)]
    else:
        return [0.0, 0.0, float(w), float(h)]
    x1, y1, x2, y2 = clip_box([min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])], w, h)
    x1, y1 = min(x1, w - 1.0), min(y1, h - 1.0)
    return [x1, y1, max(x2, x1 + 1.0), max(y2, y1 + 1.0)]


def _row(root: Path, path: Path, i: int, row: Any, groups: dict[str, list[str]], instructions: str,
         refusal_phrase: bool) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataError(f"expected a JSON object, got {type(row).__name__}", file=str(path), row=i)
    rid = str(_field(row, "id", path, i))
    box_type = _field(row, "box_type", path, i)
    if box_type not in BOX_TYPES:
        raise DataError(f"box_type {box_type!r}; the scorer knows {BOX_TYPES}", file=str(path), row=i, field="box_type")
    coords = _numbers(_field(row, "box_coordinates", path, i), path, i)
    if box_type == "bbox" and len(coords) != 4:
        raise DataError(f"a bbox is [x, y, w, h], got {coords}", file=str(path), row=i, field="box_coordinates")
    image = root / "images" / str(_field(row, "image_path", path, i))
    size = _image_size(image, path, i)
    declared = row.get("image_size")
    if declared is not None and [int(v) for v in _numbers(declared, path, i)] != list(size):
        raise DataError(f"image_size {declared} differs from the image's {size[0]}x{size[1]}", file=str(path), row=i,
                        field="image_size")
    instruction = _field(row, "instruction", path, i)
    if not isinstance(instruction, str) or not instruction.strip():
        raise DataError("empty instruction", file=str(path), row=i, field="instruction")
    w, h = size
    cats = groups.get(rid) or ["unclassified"]
    report = {"box_type": box_type, "groups": cats}
    meta = {"file": path.name, "row": i, "osworld_g": {"box_type": box_type, "box_coordinates": coords,
                                                       "refusal_phrase": refusal_phrase},
            "instructions": instructions, "GUI_types": row.get("GUI_types"), "report": report}
    return {"id": f"{SOURCE}{'_refined' if instructions == 'refined' else ''}-{rid}", "source": SOURCE,
            "instruction": instruction.strip(), "image": str(image.resolve()), "width": w, "height": h,
            "target_box": _display_box(box_type, coords, w, h), "other_boxes": None, "split": box_type,
            "meta": json.dumps(meta, sort_keys=True, ensure_ascii=False)}


def load_docs(root: Path, instructions: str = "original", bad: BadRows | None = None,
              refusal_phrase: bool = False) -> list[dict[str, Any]]:
    """The documents of one instruction set (``original`` | ``refined``); bad rows raise, or go to ``bad``.

    ``refusal_phrase`` (with the ``official`` reading, an answer holding "Target does not exist" is the readers'
    refusal, for tasks that ask with that sentence) travels in each document's meta. Which harness reads the answers
    (``reading``) is a score parameter, not part of the documents."""
    if instructions not in FILES:
        raise ValueError(f"unknown OSWorld-G instruction set {instructions!r}; known: {', '.join(FILES)}")
    bad = bad if bad is not None else BadRows(skip_bad_rows())
    path = root / FILES[instructions]
    if not path.is_file():
        raise DataError(f"missing {path.name} in the OSWorld-G copy (the release's benchmark/ folder)", file=str(path))
    groups = classification(root)
    return bad.keep(lambda item: _row(root, path, item[0], item[1], groups, instructions, refusal_phrase),
                    enumerate(_read_json(path)), file=str(path))


def data_check(root: Path | None = None):
    """``gui-eval data check osworld_g``: documents per instruction set, box type and category, odd polygons."""
    from gui_core.benchmark import benchmark
    from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount

    published = benchmark(SOURCE).published_docs["release"]  # the record's (gui_tasks/grounding/benchmark.py)
    check = BenchmarkCheck.of_copy("osworld_g", root, data_root)
    if check.errors:
        return check
    if not (check.root / CLASSIFICATION).is_file():
        check.notes.append(f"no {CLASSIFICATION}: every item is 'unclassified' in the category report")
    loaded: dict[str, list[dict[str, Any]]] = {}
    for instructions in FILES:
        docs = check.read_docs(lambda bad: load_docs(check.root, instructions, bad))
        if docs is None:
            continue
        loaded[instructions] = docs
        task = "gui_osworld_g" + ("_refined" if instructions == "refined" else "")
        check.counts.append(TaskCount(task, len(docs), published, "OSWorld-G paper / release"))
        metas = [json.loads(d["meta"]) for d in docs]
        for box_type in BOX_TYPES:
            check.counts.append(TaskCount(f"  {box_type}", sum(d["split"] == box_type for d in docs), None))
        cats: dict[str, int] = {}
        for m in metas:
            for c in m["report"]["groups"]:
                cats[c] = cats.get(c, 0) + 1
        check.counts += [TaskCount(f"  category {c}", n, None) for c, n in cats.items()]
        odd = [(d["id"], len(m["osworld_g"]["box_coordinates"])) for d, m in zip(docs, metas)
               if m["osworld_g"]["box_type"] == "polygon"
               and (len(m["osworld_g"]["box_coordinates"]) % 2 or len(m["osworld_g"]["box_coordinates"]) < 6)]
        check.notes.append(f"{instructions}: polygons the readings score differently (odd count or < 3 vertices: "
                           f"reading official / vlmevalkit vs lmms_eval): {len(odd)}" + (f" ({', '.join(f'{i} {n} numbers' for i, n in odd)[:300]})"
                                                           if odd else ""))
    if len(loaded) == 2:
        orig = {d["id"].split("-", 1)[1]: d for d in loaded["original"]}
        ref = {d["id"].split("-", 1)[1]: d for d in loaded["refined"]}
        reworded = sum(orig[k]["instruction"] != ref[k]["instruction"] for k in orig.keys() & ref.keys())
        only = sorted(orig.keys() ^ ref.keys())
        check.notes.append(f"refined instructions that differ from the original: {reworded} of {len(orig.keys() & ref.keys())}"
                           + (f"; ids in one file only: {', '.join(only[:10])}" if only else ""))
    return check
