"""Official MPR-GUI-Bench data: locating a copy, reading raw rows, normalising them.

The benchmark ships one JSONL question file per dimension and language,
``{wf,wi,au,ap,abs_el,rel_el,knowledge_rich,knowledge_sparse}_{lang}.jsonl``
(dataset hub id ``chenruihan/MPR-GUI-Bench``, see BENCHMARKS.md section 1), with the
four options inline in ``question`` and ``answer`` as a letter or ``"C. text"``.
Reading (``read_raw_rows``) and normalising (``normalise_row``) are separate so that
``process_docs`` does the schema work on rows that lmms-eval has already loaded.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from gui_tasks.errors import DataError
from gui_tasks.mpr.answer import normalise_answer, split_inline_options

HUB_ID = "chenruihan/MPR-GUI-Bench"
DATA_DIR_ENV = "MPR_GUI_DATA_DIR"

# Official file stem -> dimension code (seed section 3.2; BENCHMARKS.md section 1).
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
# Field names under which official rows may carry their screenshot(s), tried in order.
IMAGE_FIELDS: tuple[str, ...] = ("images", "image", "image_path", "image_paths", "frames", "screenshots", "img")
ID_FIELDS: tuple[str, ...] = ("id", "question_id", "qid", "idx")


def data_root() -> Path:
    """The local copy named by ``$MPR_GUI_DATA_DIR``, else a hub snapshot (needs network)."""
    local = os.environ.get(DATA_DIR_ENV)
    if local:
        root = Path(local).expanduser()
        if not root.is_dir():
            raise DataError(f"${DATA_DIR_ENV} points to {root}, which is not a directory", file=str(root))
        return root
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=HUB_ID, repo_type="dataset"))
    except Exception as exc:  # offline, gated, missing: one actionable message
        raise DataError(
            f"cannot fetch the official MPR-GUI-Bench data from the hub ({exc.__class__.__name__}: {exc}). "
            f"Download {HUB_ID} yourself and set {DATA_DIR_ENV}=<folder>, or use the mpr_gui_synth_* tasks.",
            file=HUB_ID,
        ) from exc


def question_file(root: Path, stem: str, lang: str) -> Path:
    """Find ``{stem}_{lang}.jsonl`` at the root or anywhere below it."""
    name = f"{stem}_{lang}.jsonl"
    direct = root / name
    if direct.is_file():
        return direct
    found = sorted(root.rglob(name))
    if not found:
        raise DataError(f"question file {name} not found under {root}", file=str(root / name))
    return found[0]


def read_raw_rows(root: Path, lang: str, dimensions: tuple[str, ...] | None = None) -> Iterator[dict[str, Any]]:
    """Yield one transport row per official question: the raw JSON kept as text plus its origin."""
    wanted = set(dimensions) if dimensions else set(FILE_DIMENSIONS.values())
    for stem, dim in FILE_DIMENSIONS.items():
        if dim not in wanted:
            continue
        path = question_file(root, stem, lang)
        with path.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if not line.strip():
                    continue
                try:
                    json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"invalid JSON ({exc.msg})", file=str(path), row=i, field="<line>") from exc
                yield {"raw": line.strip(), "file": str(path), "row": i, "dimension": dim, "lang": lang, "root": str(root)}


def _resolve_image(value: Any, *, root: Path, file: Path, row: int, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"expected an image path, got {type(value).__name__}", file=str(file), row=row, field=field)
    rel = Path(value)
    candidates = [rel] if rel.is_absolute() else [root / rel, file.parent / rel, root / "images" / rel]
    for cand in candidates:
        if cand.is_file():
            return str(cand.resolve())
    raise DataError(f"image {value!r} not found (looked in {', '.join(str(c.parent) for c in candidates)})", file=str(file), row=row, field=field)


def normalise_row(transport: dict[str, Any]) -> dict[str, Any]:
    """One official row -> the canonical MPR document of docs/CONVENTIONS.md."""
    file, row = Path(transport["file"]), int(transport["row"])
    root = Path(transport["root"])
    raw = json.loads(transport["raw"])
    if not isinstance(raw, dict):
        raise DataError("row is not a JSON object", file=str(file), row=row, field="<row>")

    question = raw.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DataError("missing or empty question", file=str(file), row=row, field="question")
    try:
        stem, options = split_inline_options(question)
    except ValueError as exc:
        raise DataError(f"cannot split the inline options: {exc}", file=str(file), row=row, field="question") from exc

    answer = raw.get("answer")
    try:
        letter = normalise_answer(str(answer) if answer is not None else "")
    except ValueError as exc:
        raise DataError(f"answer {answer!r} is not a letter A-D or 'C. text'", file=str(file), row=row, field="answer") from exc

    field = next((f for f in IMAGE_FIELDS if raw.get(f)), None)
    if field is None:
        raise DataError(f"no image field (looked for {', '.join(IMAGE_FIELDS)})", file=str(file), row=row, field="image")
    value = raw[field]
    values = value if isinstance(value, list) else [value]
    images = [_resolve_image(v, root=root, file=file, row=row, field=f"{field}[{k}]" if isinstance(value, list) else field) for k, v in enumerate(values)]

    id_field = next((f for f in ID_FIELDS if raw.get(f) not in (None, "")), None)
    # Without an id, the row index within the dimension's file is the alignment key: the
    # six language files of a dimension are parallel (seed section 3.3, step 4).
    qid = f"{transport['dimension'].lower()}-{raw[id_field]}" if id_field else f"{transport['dimension'].lower()}-{row:05d}"
    meta = {"file": str(file), "row": row, "image_field": field}
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
