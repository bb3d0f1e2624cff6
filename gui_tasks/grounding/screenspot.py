"""ScreenSpot, ScreenSpot-v2 and ScreenSpot-Pro from local copies of their official releases, as canonical documents.

Each release's box convention is named here, never guessed from magnitudes:

- ScreenSpot (SeeClick release): ``screenspot_{desktop,mobile,web}.json`` + ``screenspot_imgs/``;
  rows ``img_filename, bbox = [x, y, w, h]`` (pixels), ``instruction, data_type, data_source``.
- ScreenSpot-v2 (OS-Atlas release): ``screenspot_{desktop,mobile,web}_v2.json`` +
  ``screenspotv2_image/``; the same row schema.
- ScreenSpot-Pro: ``annotations/*.json`` + ``images/``; rows ``img_filename, bbox = [x1, y1, x2, y2]``
  (pixels), ``instruction, ui_type, group, platform, application, img_size = [w, h], id``.
- ScreenSpot-v2 "variants" (HF ``likaixin/ScreenSpot-v2-variants``, the copy the ScreenSpot-Pro repository's
  scorer reads for v2; its issue #6): ``annotations/{desktop,mobile,web}.json`` + ``images/``, rows in the Pro
  layout with ``group: null`` and ``bbox = [x1, y1, x2, y2]`` pixels. ``load_docs`` picks the layout by the
  folders present (``annotations/`` vs ``screenspot_*_v2.json``), never by the numbers.

Boxes as published: a box poking outside its image (ScreenSpot-Pro ``inventor_windows.json`` has
``[135, -1, 151, 19]`` on a 3840x1080 screenshot) is clipped to the image; the document's meta keeps the
published box (``bbox_published``) and tasks record how many were clipped (``boxes_clipped``). A box that is
empty after clipping is a bad row (``DataError``), skipped only on request (``$GUI_EVAL_SKIP_BAD_ROWS``).

Folders come from ``$SCREENSPOT_DATA_DIR``, ``$SCREENSPOT_V2_DATA_DIR``, ``$SCREENSPOT_PRO_DATA_DIR``.
Only the target box is known, so misleading and confusion merge into "other" (``other_boxes: None``).

ScreenSpot-Pro in full, as its official script runs it (``likaixin2000/ScreenSpot-Pro-GUI-Grounding``
``eval_screenspot_pro.py`` @ bd8bbbb, ``main``): ``--language cn`` asks every row with its ``instruction_cn`` (the
script allows Chinese only for positive rows in the ``instruction`` style); ``--gt_type negative`` asks every row
again (the same English instruction) through the model's ``ground_allow_negative`` and scores it correct only when
the model answers that the target does not exist (``eval_sample_negative_gt``). ``load_pro(language=, gt_type=)``
builds those documents; each carries the fields the script's report groups by (``meta["report"]``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Mapping

from gui_core.images import ImageRefused, image_size
from gui_core.errors import DataError
from gui_core.sample_faults import DOC_ERROR
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows
from gui_tasks.runs.input_files import read_json

VARIANTS = ("screenspot", "screenspot_v2", "screenspot_pro")
PLATFORMS = ("desktop", "mobile", "web")
_FILES = {"screenspot": ("screenspot_{}.json", "screenspot_imgs"), "screenspot_v2": ("screenspot_{}_v2.json", "screenspotv2_image")}
# eval_screenspot_pro.py @ bd8bbbb: LANGUAGES and GT_TYPES; "cn" is allowed only with positive rows (main raises otherwise)
PRO_LANGUAGES = ("en", "cn")
PRO_GT_TYPES = ("positive", "negative")


def data_root(variant: str) -> Path:
    """The local copy of ``variant`` named by its record's environment variable (``gui_core.benchmark.data_root``)."""
    from gui_core.benchmark import data_root as root_of

    return root_of(variant)


def release_rows(meta: Mapping[str, Any], what: str, load: Callable[[BadRows], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``load(bad)`` over an official release: bad rows skipped only on request (``$GUI_EVAL_SKIP_BAD_ROWS``), then
    announced loudly and counted in the task's results metadata (``bad_rows_skipped``)."""
    bad = BadRows(skip_bad_rows(dict(meta)))
    docs = load(bad)
    announce_skipped(bad, what)
    return docs


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A ScreenSpot / -v2 / -Pro task's documents (ScreenSpot-Pro's Chinese / negative samples: eval_screenspot_pro.py
    ``--language`` / ``--gt_type``)."""
    source = str(meta.get("source"))
    return release_rows(meta, f"{source} rows", lambda bad: load_docs(
        source, data_root(source), bad, str(meta.get("language") or "en"), str(meta.get("gt_type") or "positive")))


def _read_json(path: Path) -> list[dict[str, Any]]:
    rows = read_json(path, rows=True)  # numbers past the bounds are refused row by row (BadRows.keep)
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


def _image_size(image: Path, path: Path, i: int) -> tuple[int, int] | str:
    """The screenshot's size from its header, or the named reason it is refused (more pixels than the bound of
    ``gui_core.images``, an unreadable header): that row's document then carries the error and its sample is scored
    as an empty answer; the other documents run."""
    if not image.is_file():
        raise DataError(f"image {image} not found", file=str(path), row=i, field="img_filename")
    try:
        return image_size(image)
    except ImageRefused as exc:
        return str(DataError(f"screenshot {image} refused: {exc}", file=str(path), row=i, field="img_filename"))


def clip_box(box: list[float], width: int, height: int) -> list[float]:
    """``box`` [x1, y1, x2, y2] clipped to a ``width`` x ``height`` image (may come out empty)."""
    x1, y1, x2, y2 = box
    return [min(max(x1, 0.0), float(width)), min(max(y1, 0.0), float(height)),
            min(max(x2, 0.0), float(width)), min(max(y2, 0.0), float(height))]


def _doc(variant: str, row_id: str, instruction: Any, image: Path, size: tuple[int, int] | str, box: list[float], split: str,
         meta: dict[str, Any], path: Path, i: int, scored: list[float] | None = None,
         warnings: list[str] | None = None) -> dict[str, Any]:
    """One canonical document. ``scored``: the relative box the benchmark's official scorer tests, in its own arithmetic
    (ScreenSpot-Pro, UI-Vision, MMBench-GUI); given, every row that scorer scores is scored the same way: an empty
    instruction, a zero-width, reversed or off-image box is kept (meta ``target_relative``) and named in meta
    ``row_warnings`` (``gui-eval data check`` counts them), never refused. Without it such a row is a bad row."""
    warnings = list(warnings or [])
    if not isinstance(instruction, str) or (scored is None and not instruction.strip()):
        raise DataError("empty instruction", file=str(path), row=i, field="instruction")
    if not instruction.strip():
        warnings.append("empty instruction")
    error = size if isinstance(size, str) else None
    if error is not None:  # a refused screenshot: a frame that holds the box, and the error on the document
        size = (max(1, math.ceil(max(box[0], box[2]))), max(1, math.ceil(max(box[1], box[3]))))
        meta = {**meta, "image_refused": True}
    w, h = size
    clipped = clip_box(box, w, h)
    if scored is not None:
        if box[0] > box[2] or box[1] > box[3]:
            warnings.append("reversed box")
        if clipped != box:
            warnings.append("box off the image")
        clipped = [min(clipped[0], clipped[2]), min(clipped[1], clipped[3]), max(clipped[0], clipped[2]),
                   max(clipped[1], clipped[3])]
        if clipped[0] == clipped[2] or clipped[1] == clipped[3]:
            warnings.append("zero-width or zero-height box")
        meta = {**meta, "target_relative": [float(v) for v in scored]}
    elif not (clipped[0] < clipped[2] and clipped[1] < clipped[3]):
        raise DataError(f"box {box} is empty after clipping to the {w}x{h} image", file=str(path), row=i, field="bbox")
    if clip_box(box, w, h) != box:  # published box pokes outside the image: clipped, counted, the published one kept
        meta = {**meta, "bbox_published": box}
    if warnings:
        meta = {**meta, "row_warnings": sorted(set(warnings))}
    doc = {"id": row_id, "source": variant, "instruction": instruction.strip(), "image": str(image.resolve()), "width": w,
           "height": h, "target_box": clipped, "other_boxes": None, "split": split,
           "meta": json.dumps({"file": path.name, "row": i, **meta}, sort_keys=True, ensure_ascii=False)}
    if error is not None:
        doc[DOC_ERROR] = error
    return doc


def row_warnings(docs: list[dict[str, Any]]) -> str:
    """``gui-eval data check``'s note on rows scored as the official scorer scores them: each warning with its count."""
    counts: dict[str, int] = {}
    for d in docs:
        for w in json.loads(d["meta"]).get("row_warnings", ()):
            counts[w] = counts.get(w, 0) + 1
    body = ", ".join(f"{w}: {n}" for w, n in sorted(counts.items())) or "none"
    return f"rows kept and scored as the official scorer does (warnings): {body}"


def boxes_clipped(docs: list[dict[str, Any]]) -> int:
    """How many documents have a box that was clipped to its image (meta ``bbox_published``)."""
    return sum("bbox_published" in json.loads(d["meta"]) for d in docs)


def _ui_type(value: Any, path: Path, i: int, field: str) -> str:
    t = str(value).strip().lower()
    if t not in ("icon", "text"):
        raise DataError(f"UI type must be 'icon' or 'text', got {value!r}", file=str(path), row=i, field=field)
    return t


def _bad(bad: BadRows | None) -> BadRows:
    return bad if bad is not None else BadRows(skip_bad_rows())


def load_seeclick(variant: str, root: Path, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """ScreenSpot / ScreenSpot-v2 rows: bbox [x, y, w, h] in pixels, split = platform_datatype."""
    bad = _bad(bad)
    pattern, image_dir = _FILES[variant]
    docs: list[dict[str, Any]] = []
    for platform in PLATFORMS:
        path = root / pattern.format(platform)
        if not path.is_file():
            raise DataError(f"missing {path.name} in the {variant} copy", file=str(path))

        def one(item: tuple[int, dict[str, Any]], path: Path = path, platform: str = platform) -> dict[str, Any]:
            i, row = item
            x, y, bw, bh = _numbers(_field(row, "bbox", path, i), path, i, "bbox")
            image = root / image_dir / str(_field(row, "img_filename", path, i))
            split = f"{platform}_{_ui_type(_field(row, 'data_type', path, i), path, i, 'data_type')}"
            return _doc(variant, f"{variant}-{platform}-{i:04d}", _field(row, "instruction", path, i), image,
                        _image_size(image, path, i), [x, y, x + bw, y + bh], split,
                        {"data_source": row.get("data_source"), "bbox_format": "xywh_px"}, path, i)

        docs += bad.keep(one, enumerate(_read_json(path)), file=str(path))
    return docs


def _pro_row(variant: str, root: Path, path: Path, i: int, row: dict[str, Any], split_of, language: str = "en",
             gt_type: str = "positive") -> dict[str, Any]:
    """One row in the ScreenSpot-Pro layout (Pro and the v2 variants): bbox [x1, y1, x2, y2] pixels."""
    if not isinstance(row, dict):
        raise DataError(f"expected a JSON object, got {type(row).__name__}", file=str(path), row=i)
    image = root / "images" / str(_field(row, "img_filename", path, i))
    size = _image_size(image, path, i)
    warnings: list[str] = []
    if gt_type == "negative":  # eval_sample_negative_gt never reads the bbox: any value (or none) is kept
        try:
            box = _numbers(row.get("bbox"), path, i, "bbox")
        except DataError:
            box = [0.0, 0.0, float(size[0]), float(size[1])] if not isinstance(size, str) else [0.0, 0.0, 1.0, 1.0]
            warnings.append("bbox not read (negative row)")
    else:
        box = _numbers(_field(row, "bbox", path, i), path, i, "bbox")
    declared = row.get("img_size")
    scorer_size = size
    if declared is not None and gt_type == "positive":  # eval_sample_positive_gt divides by img_size, not the PNG's
        scorer_size = tuple(_numbers(declared, path, i, "img_size", 2))
        if not isinstance(size, str) and [int(v) for v in scorer_size] != list(size):
            warnings.append("img_size differs from the PNG")
    if isinstance(scorer_size, str):
        scorer_size = (max(1.0, box[2]), max(1.0, box[3]))
    sw, sh = scorer_size
    scored = [box[0] / sw, box[1] / sh, box[2] / sw, box[3] / sh] if sw and sh else None
    split = split_of(row, path, i)
    if row.get("group") is None and layout(variant, root) == "pro":
        warnings.append("no group")
    if str(row.get("ui_type", "")).strip().lower() not in ("icon", "text"):
        warnings.append("ui_type other than text/icon")
    rid = str(row.get("id", f"{path.stem}-{i:04d}"))
    text_field = "instruction_cn" if language == "cn" else "instruction"
    # the keys the official report groups by, as the script's sample_result writes them (group None in the v2 variants)
    report = {"platform": row.get("platform"), "group": row.get("group"), "application": row.get("application"),
              "ui_type": row.get("ui_type"), "lang": language,
              "gt_type": gt_type, "instruction_style": "instruction", "id": row.get("id")}
    suffix = "" if (language, gt_type) == ("en", "positive") else f"-{language if language != 'en' else gt_type}"
    return _doc(variant, f"{variant}-{rid}{suffix}", _field(row, text_field, path, i), image, size, box, split,
                {"application": row.get("application"), "platform": row.get("platform"), "bbox_format": "xyxy_px",
                 "layout": layout(variant, root), "report": report,
                 **({"gt_type": gt_type} if gt_type != "positive" else {})}, path, i, scored, warnings)


def _pro_split(row: dict[str, Any], path: Path, i: int) -> str:
    """``<group>_<ui_type>``. The scorer reads ``group`` when present (``None`` otherwise) and ``ui_type`` as written
    (only ``text`` / ``icon`` enter its text and icon figures): another value, or none, is kept (a split of its own)."""
    group = str(row.get("group")).strip().lower()
    ui_type = str(_field(row, "ui_type", path, i)).strip().lower()
    return f"{group}_{ui_type}"  # the group as the release writes it, lower-cased (gui_metrics.pss.PRO_GROUPS)


def _annotation_files(root: Path, what: str) -> list[Path]:
    ann = root / "annotations"
    files = sorted(ann.glob("*.json")) if ann.is_dir() else []
    if not files:
        raise DataError(f"no annotations/*.json in the {what} copy", file=str(ann))
    return files


def load_pro(root: Path, bad: BadRows | None = None, language: str = "en", gt_type: str = "positive") -> list[dict[str, Any]]:
    """ScreenSpot-Pro rows: bbox [x1, y1, x2, y2] in pixels, split = group_uitype; ``language`` / ``gt_type`` as the
    official script's ``--language`` / ``--gt_type`` (Chinese only for positive rows, as there)."""
    if language not in PRO_LANGUAGES or gt_type not in PRO_GT_TYPES:
        raise ValueError(f"ScreenSpot-Pro language {language!r} / gt_type {gt_type!r}; known: {PRO_LANGUAGES} / {PRO_GT_TYPES}")
    if language == "cn" and gt_type != "positive":  # eval_screenspot_pro.py main: AttributeError there
        raise ValueError("only positive samples are supported for Chinese instructions (eval_screenspot_pro.py)")
    bad = _bad(bad)
    docs: list[dict[str, Any]] = []
    for path in _annotation_files(root, "ScreenSpot-Pro"):
        docs += bad.keep(lambda item, path=path: _pro_row("screenspot_pro", root, path, item[0], item[1], _pro_split,
                                                          language, gt_type),
                         enumerate(_read_json(path)), file=str(path))
    return docs


def load_v2_variants(root: Path, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """ScreenSpot-v2 in the variants layout: Pro-style rows (``group: null``), split = platform (file name) _ ui_type."""
    bad = _bad(bad)
    docs: list[dict[str, Any]] = []
    for path in _annotation_files(root, "ScreenSpot-v2 variants"):
        platform = next((p for p in PLATFORMS if p in path.stem.lower()), None)
        if platform is None:
            raise DataError(f"annotation file name names no platform ({', '.join(PLATFORMS)})", file=str(path))

        def split_of(row: dict[str, Any], p: Path, i: int, platform: str = platform) -> str:
            return f"{platform}_{_ui_type(_field(row, 'ui_type', p, i), p, i, 'ui_type')}"

        docs += bad.keep(lambda item, path=path, split_of=split_of: _pro_row("screenspot_v2", root, path, item[0], item[1],
                                                                            split_of),
                         enumerate(_read_json(path)), file=str(path))
    return docs


def layout(variant: str, root: Path) -> str:
    """The published layout of a copy: ``seeclick`` (``screenspot_*.json``), ``pro`` or ``variants`` (``annotations/``),
    among the layouts the variant's record names (``extra["release_layouts"]``, the first the default)."""
    from gui_core.benchmark import benchmark

    kinds = tuple(benchmark(variant).extra.get("release_layouts") or ("seeclick",))
    if "variants" in kinds and (root / "annotations").is_dir() and not any(root.glob("screenspot_*_v2.json")):
        return "variants"
    return kinds[0]


def load_docs(variant: str, root: Path, bad: BadRows | None = None, language: str = "en",
              gt_type: str = "positive") -> list[dict[str, Any]]:
    """Canonical documents of a local copy; bad rows raise, or go to ``bad`` when it skips (``$GUI_EVAL_SKIP_BAD_ROWS``).

    ``language`` / ``gt_type`` select ScreenSpot-Pro's Chinese or negative samples (other releases have only en/positive)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown ScreenSpot variant {variant!r}; known: {VARIANTS}")
    kind = layout(variant, root)
    if kind == "pro":
        return load_pro(root, bad, language, gt_type)
    if (language, gt_type) != ("en", "positive"):
        raise ValueError(f"{variant} has English positive rows only (got language {language!r}, gt_type {gt_type!r})")
    if kind == "variants":
        return load_v2_variants(root, bad)
    return load_seeclick(variant, root, bad)


def kind_is_pro(variant: str, root: Path) -> bool:
    """Whether a copy is read in the ScreenSpot-Pro layout (Pro itself, the v2 variants): rows kept as its scorer does."""
    return layout(variant, root) in ("pro", "variants")


def data_check_of(variant: str, root: Path | None):
    """``gui-eval data check``: documents, bad rows (all collected), clipped boxes and screenshots of one copy."""
    from gui_core.benchmark import benchmark
    from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount

    published = benchmark(variant).published_docs["release"]  # the record's (gui_tasks/grounding/benchmark.py)
    check = BenchmarkCheck.of_copy(variant, root, lambda: data_root(variant))
    if check.errors:
        return check
    docs = check.read_docs(lambda bad: load_docs(variant, check.root, bad))
    if docs is None:  # a whole file missing or unreadable
        return check
    check.counts.append(TaskCount(f"gui_{variant} [{layout(variant, check.root)} layout]", len(docs),
                                  published, "release"))
    if layout(variant, check.root) == "pro":  # the official script's other samples: every row in Chinese, every row as a negative
        for task, kw in (("gui_screenspot_pro_cn", {"language": "cn"}), ("gui_screenspot_pro_negative", {"gt_type": "negative"})):
            more = BadRows(skip=True)
            got = load_pro(check.root, more, **kw)
            check.errors.extend(e for e in more.errors if e.field == "instruction_cn")  # the rest are counted above
            check.counts.append(TaskCount(task, len(got), published, "release: every row (eval_screenspot_pro.py)"))
    if kind_is_pro(variant, check.root):
        check.notes.append(row_warnings(docs))
    clipped = boxes_clipped(docs)
    check.notes.append(f"boxes clipped to their image: {clipped}" + (
        " (" + ", ".join(f"{d['id']} {json.loads(d['meta'])['bbox_published']} -> {d['target_box']}"
                         for d in docs if "bbox_published" in json.loads(d["meta"]))[:400] + ")" if clipped else ""))
    return check


def data_check_screenspot(root: Path | None = None):
    return data_check_of("screenspot", root)


def data_check_v2(root: Path | None = None):
    return data_check_of("screenspot_v2", root)


def data_check_pro(root: Path | None = None):
    return data_check_of("screenspot_pro", root)
