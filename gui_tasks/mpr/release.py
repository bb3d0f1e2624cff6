"""Official MPR-GUI-Bench data: locating a copy, reading raw rows, normalising them.

The release (described by the audit of ``dltmdwoOS/mpr-gui-crosslocale``) is two parts: the questions, one JSONL file per
dimension and language ``qas/{wf,wi,au,ap,abs_el,rel_el,knowledge_rich,knowledge_sparse}_{lang}.jsonl``
(GitHub ``chenruihan32/MPR-GUI-Bench``), and the screenshots (hub ``chenruihan/MPR-GUI-Bench``,
top-level folders ``1/``..``6/``, ``rich/``, ``sparse/``). A row holds ``question`` (options
inline), ``answer`` (a letter, ``"C. text"`` or ``"A."``) and EITHER ``image_path`` (one
screenshot, relative to ``qas/``: ``"../images/6/en/camera_en_8.jpg"``) OR, for RI and SI,
``image_folder_path`` (a folder of frames ``<ep>_<n>.jpg`` / ``<ep>_<lang>_<n>.jpg``, in natural
order). Two layouts of a local copy resolve the same paths: ``<root>/qas`` + ``<root>/images``
(the usual one) and ``<root>/qas`` + the hub snapshot's folders directly under ``<root>`` (or
anywhere named by ``$MPR_GUI_IMAGE_DIR``). Rows have no id field and the same item sits on
different lines in different languages, so ids come from the image path with the language
marker removed (``6/en/camera_en_8.jpg`` -> ``au-6/camera_8.jpg``). Reading (``read_raw_rows``)
and normalising (``normalise_row``) are separate so ``process_docs`` does the schema work.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.runs.input_files import lines, parse_json_line
from gui_tasks.mpr.options import normalise_answer, split_inline_options_ordered

QUESTIONS_REPO = "github.com/chenruihan32/MPR-GUI-Bench (folder qas/)"
IMAGE_DIR_ENV = "MPR_GUI_IMAGE_DIR"

# Official file stem -> dimension code (seed section 3.2; the release's file names).
FILE_DIMENSIONS: dict[str, str] = {
    "au": "AU",
    "ap": "AP",
    "wf": "WF",
    "wi": "WI",
    "abs_el": "AEL",
    "rel_el": "REL",
    "knowledge_rich": "RI",
    "knowledge_sparse": "SI",
}
IMAGE_FIELD, FOLDER_FIELD = "image_path", "image_folder_path"
FRAME_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
LANG_CODES = ("en", "zh", "fr", "ru", "ja", "th")
# Published counts (release audit): the release has the record's published_docs["per_language"] rows per language
# (2,245; the paper says 2,156), 25 RI and 25 SI; the six single-image dimensions have 365-366 rows each.
PAPER_ROWS_PER_LANG = 2156
RELEASE_DIMENSION_ROWS: dict[str, int] = {"RI": 25, "SI": 25}
# The RI/SI stems end with an "Options:" line before the labelled options; it is not part of the stem.
_OPTIONS_HEADING = re.compile(r"(?:^|\n)[ \t]*(?:options?|choices?|选项|選項|選択肢|варианты(?: ответа)?|ตัวเลือก)[ \t]*[:：][ \t]*$",
                              re.IGNORECASE)


def _record():
    """MPR-GUI's record (gui_tasks/mpr/benchmark.py): its variable, hub repository and published counts."""
    from gui_core.benchmark import benchmark

    return benchmark("mpr_gui")


def data_root() -> Path:
    """The local copy named by ``$MPR_GUI_DATA_DIR`` (``gui_core.benchmark.data_root``; the hub dataset holds only the
    screenshots, not the ``qas/`` question files, so there is nothing to fetch: an unset variable is a configuration
    error naming where they are)."""
    from gui_core.benchmark import data_root as root_of

    return root_of("mpr_gui")


def question_file(root: Path, stem: str, lang: str) -> Path:
    """``{stem}_{lang}.jsonl`` in ``<root>/qas``, at the root, or anywhere below it."""
    name = f"{stem}_{lang}.jsonl"
    for direct in (root / "qas" / name, root / name):
        if direct.is_file():
            return direct
    found = sorted(root.rglob(name))
    if not found:
        raise DataError(
            f"question file {name} not found under {root} (expected {root / 'qas' / name}: the qas/ folder of "
            f"{QUESTIONS_REPO}; the hub dataset {_record().data.repos[0]} holds only the screenshots)", file=str(root / "qas" / name))
    return found[0]


def read_raw_rows(root: Path, lang: str, dimensions: tuple[str, ...] | None = None, *,
                  bad: BadRows | None = None) -> Iterator[dict[str, Any]]:
    """One transport row per official question: the raw JSON kept as text, its origin and its cross-language id.

    A missing or empty question file, or a line that is not JSON, raises ``DataError`` unless ``bad``
    skips (then it is collected there): an empty dimension would otherwise silently leave FPR-ACC
    over seven dimensions.
    """
    bad = bad if bad is not None else BadRows(skip=False)
    wanted = set(dimensions) if dimensions else set(FILE_DIMENSIONS.values())
    for stem, dim in FILE_DIMENSIONS.items():
        if dim not in wanted:
            continue
        try:
            path = question_file(root, stem, lang)
        except DataError as exc:
            bad.add(exc)
            continue
        seen: dict[str, int] = {}
        n_rows = 0
        try:
            for i, line in lines(path, on_bad_line=bad.add):  # a line that is not UTF-8 costs its row only
                if not line.strip():
                    continue
                try:
                    raw = parse_json_line(line, file=str(path), row=i, field="<line>", strict=True)
                except DataError as exc:
                    bad.add(exc)
                    continue
                n_rows += 1
                key = item_key(raw, lang) if isinstance(raw, dict) else None
                qid = None
                if key is not None:  # the same asset twice in one file: second and later get "~2", "~3"
                    seen[key] = seen.get(key, 0) + 1
                    qid = f"{dim.lower()}-{key}" + (f"~{seen[key]}" if seen[key] > 1 else "")
                yield {"raw": line.strip(), "file": str(path), "row": i, "dimension": dim, "lang": lang, "root": str(root),
                       "id": qid, "skip": bad.skip}
        except DataError as exc:  # the file itself: not a regular file, over the size or line-length bound, not UTF-8
            bad.add(exc)
            continue
        if n_rows == 0:
            bad.add(DataError(f"no questions in this file: dimension {dim} would be missing (FPR-ACC needs all eight)",
                              file=str(path)))


def item_key(raw: dict[str, Any], lang: str) -> str | None:
    """The language-free key of a row: its asset path, normalised, without the language marker ``lang``."""
    value = raw.get(IMAGE_FIELD) or raw.get(FOLDER_FIELD)
    if not isinstance(value, str) or not value.strip():
        return None
    parts = [part for part in _normalised_asset(value).split("/") if part and part != lang]
    marker = re.compile(rf"(?:(?<=[_\-.]){re.escape(lang)}[_\-]|[_\-]{re.escape(lang)}(?=[_\-.]|$)|^{re.escape(lang)}[_\-])")
    return "/".join(marker.sub("", part) for part in parts)


def _normalised_asset(value: str) -> str:
    """``../images/6/en/x.jpg`` -> ``6/en/x.jpg``: the path inside the image release."""
    text = value.strip().replace("\\", "/")
    while text.startswith(("../", "./")):
        text = text[3:] if text.startswith("../") else text[2:]
    return text[len("images/"):] if text.startswith("images/") else text


def _image_bases(root: Path) -> list[Path]:
    """Folders that may hold the image release: ``$MPR_GUI_IMAGE_DIR``, ``<root>/images``, ``<root>`` (hub layout)."""
    bases = [Path(os.environ[IMAGE_DIR_ENV]).expanduser()] if os.environ.get(IMAGE_DIR_ENV) else []
    return bases + [root / "images", root]


def _resolve_asset(value: Any, *, root: Path, file: Path, row: int, field: str, folder: bool) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"expected a {'folder' if folder else 'file'} path, got {value!r}", file=str(file), row=row, field=field)
    rel = Path(value)
    exists = Path.is_dir if folder else Path.is_file
    if rel.is_absolute():
        candidates = [rel]
    else:
        inner = _normalised_asset(value)
        candidates = [file.parent / rel] + [base / inner for base in _image_bases(root)]
    for cand in candidates:
        if exists(cand):
            return cand.resolve()
    raise DataError(f"{'folder' if folder else 'image'} {value!r} not found (looked for {', '.join(str(c) for c in candidates)}; "
                    f"images go in <root>/images, at the root as in the hub snapshot, or in ${IMAGE_DIR_ENV})",
                    file=str(file), row=row, field=field)


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key that puts ``ep_2.jpg`` before ``ep_10.jpg``."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower()) for part in re.split(r"(\d+)", name))


def episode_frames(folder: Path, *, file: Path, row: int) -> list[str]:
    """The frames of an RI/SI episode folder, in natural order."""
    frames = sorted((p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in FRAME_SUFFIXES),
                    key=lambda p: natural_key(p.name))
    if not frames:
        raise DataError(f"episode folder {folder} holds no frames ({', '.join(FRAME_SUFFIXES)})", file=str(file), row=row,
                        field=FOLDER_FIELD)
    return [str(p) for p in frames]


def split_question(question: str) -> tuple[str, list[str], str]:
    """Stem (without the ``Options:`` heading), the four options in letter order, and the labels' written order."""
    stem, options, order = split_inline_options_ordered(question)
    return _OPTIONS_HEADING.sub("", stem).strip(), options, order


def normalise_row(transport: dict[str, Any]) -> dict[str, Any]:
    """One official row -> the canonical MPR document of docs/CONVENTIONS.md (errors name file, row, field)."""
    file, row = Path(transport["file"]), int(transport["row"])
    root = Path(transport["root"])
    raw = json.loads(transport["raw"])
    if not isinstance(raw, dict):
        raise DataError("row is not a JSON object", file=str(file), row=row, field="<row>")

    question = raw.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DataError("missing or empty question", file=str(file), row=row, field="question")
    try:
        stem, options, order = split_question(question)
    except ValueError as exc:
        raise DataError(f"cannot split the inline options: {exc}", file=str(file), row=row, field="question") from exc
    if not stem:
        raise DataError("the question has options but no stem", file=str(file), row=row, field="question")

    answer = raw.get("answer")
    try:
        letter = normalise_answer(str(answer) if answer is not None else "")
    except ValueError as exc:
        raise DataError(f"answer {answer!r} is not a letter A-D, 'C. text' or 'A.'", file=str(file), row=row,
                        field="answer") from exc

    has_image, has_folder = bool(raw.get(IMAGE_FIELD)), bool(raw.get(FOLDER_FIELD))
    if has_image == has_folder:
        why = "both image_path and image_folder_path are set" if has_image else "neither image_path nor image_folder_path is set"
        raise DataError(why, file=str(file), row=row, field=IMAGE_FIELD)
    where = {"root": root, "file": file, "row": row}
    if has_folder:
        folder = _resolve_asset(raw[FOLDER_FIELD], field=FOLDER_FIELD, folder=True, **where)
        images, field = episode_frames(folder, file=file, row=row), FOLDER_FIELD
    else:
        images, field = [str(_resolve_asset(raw[IMAGE_FIELD], field=IMAGE_FIELD, folder=False, **where))], IMAGE_FIELD

    qid = transport.get("id") or f"{transport['dimension'].lower()}-{item_key(raw, transport['lang'])}"
    meta = {"file": str(file), "row": row, "image_field": field, "asset": raw[field], "option_order": order}
    return {
        "id": qid,
        "lang": transport["lang"],
        "dimension": transport["dimension"],
        "question": stem,
        "options": options,
        "answer": letter,
        "images": images,
        "source": "official",
        "meta": json.dumps(meta, ensure_ascii=False, sort_keys=True),
    }


def data_check(root: Path | None = None) -> BenchmarkCheck:
    """What a local copy holds, read with the task loaders: documents per language and dimension, every bad row."""
    check = BenchmarkCheck.of_copy("mpr_gui", root, data_root)
    if check.errors:
        return check
    root = check.root
    ids: dict[str, set[str]] = {}
    for lang in LANG_CODES:
        bad = BadRows(skip=True)
        rows = list(read_raw_rows(root, lang, bad=bad))
        docs = bad.keep(normalise_row, rows)
        check.errors.extend(bad.errors)
        check.add_images(docs)
        ids[lang] = {d["id"] for d in docs}
        per_lang = _record().published_docs["per_language"]
        check.counts.append(TaskCount(f"mpr_gui_{lang}", len(docs), per_lang,
                                      f"release: {per_lang:,} per language (paper: {PAPER_ROWS_PER_LANG:,})"))
        for dim in FILE_DIMENSIONS.values():
            n = sum(d["dimension"] == dim for d in docs)
            expected = RELEASE_DIMENSION_ROWS.get(dim)
            check.counts.append(TaskCount(f"mpr_gui_{lang}_{dim.lower()}", n, expected,
                                          f"release: {expected}" if expected else "release: 365-366"))
    every = set().union(*ids.values())
    for lang, have in ids.items():  # items align across languages by their image path (cross-language metrics need it)
        if have:
            for qid in sorted(every - have)[:20]:
                check.errors.append(DataError(f"item {qid!r} exists in other languages but not in {lang}",
                                              file=str(root / "qas"), field="image_path"))
    return check

