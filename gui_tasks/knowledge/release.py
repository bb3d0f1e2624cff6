"""Official GUI Knowledge Bench data: locating a copy, reading raw rows, normalising them.

The release (GitHub ``Kendrick-Stein/GUI_Knowledge_Bench_Official_Repo``,
images on the hub ``KendrickShi/GUI-Knowledge-Bench``) has ONE question per JSON file,
``KnowledgeBench/<KnowledgeType>/<SubType>-<uuid>.json``, each a single object with ``question_id``,
``knowledge{knowledge_type, knowledge_sub_type}``, ``question_type``, ``question_text``,
``question_image_dir_list`` (bare file names such as ``<question_id>_question_0.png``), ``option_text``
(and ``option_image_dir_list`` for action effect), ``os_type``, ``app_type``, ``needed_knowledge``,
``annotation.bbox``, ``augmented_question``, ``groundtruth`` and ``messages``. Bare image names are
found anywhere under the data folder and in the folders listed in ``$GUI_KNOWLEDGE_IMAGE_DIRS``
(``os.pathsep``-separated, like the official runner's ``dataset_base_dir`` list). Interaction-prediction
questions name their action in ``question_text`` (``"ActionEffect: click(point='x y')"``,
``"ActionPrediction-Type: ..."``, ``"ActionPrediction-Parameter: click"``). Also read: a JSON list of
rows, ``*.jsonl`` and the hub's ``*.parquet`` (inline images ``{"bytes": ..., "path": ...}`` are written
once to the cache). A JSON object that looks like a question but lacks a field is a bad row, never
skipped silently. Reading and normalising are separate so ``process_docs`` does the schema work.

Protocol (seed section 3.3; the official runner ``Inference/tools/message_gen_tools.py`` with its default
``ablation_options: {visual_prompt: true, knowledge_prompt: false}``): Interface Perception is asked with
the red box from ``annotation.bbox`` drawn on the screenshot and ``augmented_question`` (variant
``official``); the other sub-tasks keep ``question_text``. Variants: ``plain`` (no box, plain question:
the ablation), ``official_tip`` (``official`` plus the ``needed_knowledge`` tip, the knowledge-prompt
ablation), ``augmented`` (box and augmented question on every sub-task that has them; synthetic tasks).

Readings (task metadata ``reading``; the paper's numbers come from the official runner, so ``runner`` is the
default). Checked against the runner at commit 378add4a612de5026944591218d984a3ea01b9b7
(``Inference/tools/message_gen_tools.py``, ``Inference/tools/draw_picture.py``; the repository states no code
license, the data is apache-2.0: facts are reproduced, no code is copied):
- ``runner``: question, augmented question and option texts byte for byte as the file has them
  (``_generic_builder`` passes them on unchanged: ``"Mute the corrent video. "`` keeps its trailing space);
  the red box as ``draw_annotation`` draws it (OpenCV rectangle, BGR (0, 0, 255) = pure red, thickness 1,
  anti-aliased, box corners truncated to ints and clamped to the image); the interaction-prediction action
  space as ``build_interaction_prediction`` picks it: mobile only for ``os_type == 'Android'`` (exactly),
  desktop for every other os_type, iOS included (the runner's no-visual-prompt builder also gives ``'IOS'``
  the mobile space; our ``plain`` variant covers Interface Perception only, which has no action space).
- ``trimmed``: our earlier reading: texts stripped, the box drawn with ``marks.draw_marks`` (about 6 px on a
  1080 px screen, (230, 30, 30)), the action space of the device's platform (iOS: mobile).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator, Sequence


from gui_core.actions import CALL_TYPES, from_call
from gui_core.images import ImageRefused, image_size
from gui_tasks.harness.data_check import BenchmarkCheck, TaskCount
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.runs.input_files import lines, parse_json_line, read_bytes, read_json
from gui_tasks.knowledge.marks import marks_for_action
from gui_tasks.knowledge.schema import PLATFORM_CALLS, SUBTASK_TYPE, SUBTASKS, YES_NO, letters_for

IMAGE_DIRS_ENV = "GUI_KNOWLEDGE_IMAGE_DIRS"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")
# Keys that make a JSON object a question (a row lacking another required field is then a bad row).
QUESTION_KEYS = ("question_id", "question_text", "knowledge", "question_type")
INTERFACE_PERCEPTION = ("state", "widget", "layout")
VISUAL_PROMPT_VARIANTS = ("official", "official_tip")  # red box + augmented_question on Interface Perception only


def variant_record(variant: str) -> dict[str, object]:
    """What a variant does, as task metadata records it beside ``variant`` (the YAML generator writes it and
    ``KnowledgeTask.conflicts`` checks it: the rows follow ``variant`` alone)."""
    scope = "all" if variant == "augmented" else "interface_perception" if variant in VISUAL_PROMPT_VARIANTS else "none"
    return {"interface_perception_prompt": "plain" if variant == "plain" else "visual", "augmented_question_scope": scope,
            "knowledge_tip": variant == "official_tip"}
READINGS = ("runner", "trimmed")  # see the module docstring
DEFAULT_READING = "runner"
RUNNER_MOBILE_OS = "Android"  # build_interaction_prediction: `if os_type == 'Android'` (else the desktop space)
# Published count (seed Table 1): 3,483 questions; the paper gives no per-sub-task counts.
PAPER_QUESTIONS = 3483
MOBILE_OS = {"android", "ios", "ipados", "harmonyos", "mobile"}
DESKTOP_OS = {"windows", "macos", "mac", "osx", "linux", "ubuntu", "web", "desktop", "chromeos"}
# Frame of ``annotation.bbox`` and of action points: pixels of the original screenshot (appendix A.3
# gives the model "The size of the image is {w}x{h}").
COORDINATE_FRAME = "original_px"
_PREFIX = re.compile(r"^\s*(ActionEffect|ActionPrediction-Type|ActionPrediction-Parameter)\s*:\s*", re.I)
# Option wordings of the action-type question -> action call name.
_ACTION_WORDS = {
    "click": "click", "left click": "click", "left_click": "click", "single click": "click", "tap": "click",
    "left_double": "left_double", "double click": "left_double", "double_click": "left_double", "left double click": "left_double",
    "doubleclick": "left_double", "right_single": "right_single", "right click": "right_single", "right_click": "right_single",
    "right single click": "right_single", "drag": "drag", "hotkey": "hotkey", "keyboard shortcut": "hotkey", "type": "type",
    "typing": "type", "input": "type", "scroll": "scroll", "swipe": "scroll", "long_press": "long_press", "long press": "long_press",
}


def data_root() -> Path:
    """The local copy named by ``$GUI_KNOWLEDGE_DATA_DIR``, else a hub snapshot (needs network; ``gui_core.benchmark.data_root``)."""
    from gui_core.benchmark import data_root as root_of

    return root_of("gui_knowledge")


def question_files(root: Path) -> list[Path]:
    """Every ``*.json`` / ``*.jsonl`` / ``*.parquet`` below ``root`` (hidden folders such as ``.cache`` left out); one that
    is not a regular file (a link to a device, say) is listed, so reading it refuses it by name."""
    return sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl", ".parquet") and not p.is_dir()
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def read_raw_rows(root: Path, subtasks: Sequence[str] = SUBTASKS, variant: str = "plain", *,
                  bad: BadRows | None = None, reading: str = DEFAULT_READING) -> Iterator[dict[str, Any]]:
    """One transport row per official question of ``subtasks``: the raw JSON as text plus its origin.

    A bad file or a question-like object without ``question_text`` raises ``DataError`` unless ``bad``
    skips (then it is collected there).
    """
    if reading not in READINGS:
        raise DataError(f"reading {reading!r} must be one of {READINGS}", file="<task yaml>", field="metadata.reading")
    bad = bad if bad is not None else BadRows(skip=False)
    files = question_files(root)
    if not files:
        raise DataError("no *.json, *.jsonl or *.parquet question files found", file=str(root))
    for path in files:
        try:
            rows = list(_rows_of(path))
        except DataError as exc:
            bad.add(exc)
            continue
        official_file = "KnowledgeBench" in path.parts  # every file there is one question (the official layout)
        for i, raw in rows:
            if not is_question(raw):
                if official_file:
                    bad.add(DataError(f"not a question object (none of {', '.join(QUESTION_KEYS)})", file=str(path),
                                      row=i, field="<row>"))
                continue  # not a question (a dataset card, an index or a results file)
            try:
                if subtask_of(raw, file=path, row=i) not in subtasks:
                    continue  # another task's question (its own task and the data check report its faults)
                if not isinstance(raw.get("question_text"), str) or not raw["question_text"].strip():
                    raise DataError("missing or empty question_text", file=str(path), row=i, field="question_text")
                raw = _embedded_images(raw, file=path, row=i)
            except DataError as exc:
                bad.add(exc)
                continue
            yield {"raw": json.dumps(raw, ensure_ascii=False), "file": str(path), "row": i, "root": str(root),
                   "variant": variant, "reading": reading, "skip": bad.skip}


def is_question(raw: Any) -> bool:
    """A JSON object carrying any of the question keys (``question_id``, ``question_text``, ``knowledge``, ...)."""
    return isinstance(raw, dict) and any(k in raw for k in QUESTION_KEYS)


IMAGE_LIST_FIELDS = ("question_image_dir_list", "option_image_dir_list", "option_text")


def _embedded_images(raw: dict[str, Any], *, file: Path, row: int) -> dict[str, Any]:
    """Inline images (``{"bytes": ..., "path": ...}``) written to ``cache_dir()/gkb_images`` and replaced by their paths."""
    out = dict(raw)
    for name in IMAGE_LIST_FIELDS:
        value = raw.get(name)
        values = value if isinstance(value, list) else [value]
        if not any(isinstance(v, dict) for v in values):
            continue
        paths = []
        for k, v in enumerate(values):
            if not isinstance(v, dict):
                paths.append(v)
                continue
            data = v.get("bytes")
            if not isinstance(data, (bytes, bytearray)) or not data:
                raise DataError("inline image without bytes", file=str(file), row=row, field=f"{name}[{k}]")
            from gui_core.paths import cache_dir

            suffix = Path(str(v.get("path") or "")).suffix or ".png"
            target = cache_dir() / "gkb_images" / (hashlib.sha1(data).hexdigest() + suffix)
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_suffix(target.suffix + f".{os.getpid()}.tmp")
                tmp.write_bytes(data)
                os.replace(tmp, target)
            paths.append(str(target))
        out[name] = paths if isinstance(value, list) else paths[0]
    return out


def _rows_of(path: Path) -> Iterator[tuple[int, Any]]:
    if path.suffix == ".parquet":
        import io

        import pyarrow.parquet as pq

        data = read_bytes(path)  # a regular file within the size bound
        try:
            yield from enumerate(pq.read_table(io.BytesIO(data)).to_pylist())
        except Exception as exc:  # a corrupt or foreign parquet file
            raise DataError(f"unreadable parquet file ({exc.__class__.__name__}: {exc})", file=str(path)) from exc
        return
    if path.suffix == ".jsonl":
        for i, line in lines(path):
            if line.strip():
                yield i, parse_json_line(line, file=str(path), row=i, field="<line>")
        return
    data = read_json(path)
    if is_question(data):  # the official layout: one question object per file
        yield 0, data
    elif isinstance(data, list):
        yield from enumerate(data)
    elif isinstance(data, dict):  # an object wrapping a list of questions ({"data": [...]})
        rows = next((v for v in data.values() if isinstance(v, list) and any(is_question(r) for r in v)), None)
        yield from (enumerate(rows) if rows is not None else [(0, data)])  # a lone object: the caller decides


def subtask_of(raw: dict[str, Any], *, file: Path | str, row: int) -> str:
    """The Table 2 sub-task of an official row, from ``knowledge.knowledge_sub_type`` (and the question prefix)."""
    knowledge = raw.get("knowledge")
    sub = knowledge.get("knowledge_sub_type") if isinstance(knowledge, dict) else None
    if not isinstance(sub, str) or not sub.strip():
        raise DataError("missing knowledge.knowledge_sub_type", file=str(file), row=row, field="knowledge.knowledge_sub_type")
    key = re.sub(r"[^a-z]", "", sub.lower())
    prefix = _PREFIX.match(str(raw.get("question_text") or ""))
    tag = prefix.group(1).lower() if prefix else ""
    if "effect" in key:
        return "effect"
    if "parameter" in key or (key.startswith("action") and tag == "actionprediction-parameter"):
        return "parameter"
    if "actiontype" in key or (key.startswith("action") and tag == "actionprediction-type"):
        return "type"
    if key.startswith("actionprediction"):  # no tag in the question: options that all name action types make it "type"
        opts = raw.get("option_text")
        return "type" if isinstance(opts, list) and opts and all(action_name(str(o)) for o in opts) else "parameter"
    for word, subtask in (("state", "state"), ("widget", "widget"), ("function", "widget"), ("icon", "widget"),
                          ("layout", "layout"), ("goal", "goal"), ("plan", "plan")):
        if word in key:
            return subtask
    raise DataError(f"unknown knowledge_sub_type {sub!r}", file=str(file), row=row, field="knowledge.knowledge_sub_type")


def image_dirs() -> list[Path]:
    """Extra image folders from ``$GUI_KNOWLEDGE_IMAGE_DIRS`` (``os.pathsep``-separated), in order."""
    value = os.environ.get(IMAGE_DIRS_ENV, "")
    return [Path(v).expanduser() for v in value.split(os.pathsep) if v.strip()]


_NAME_INDEX: dict[tuple[str, ...], dict[str, list[Path]]] = {}


def _name_index(folders: Sequence[Path]) -> dict[str, list[Path]]:
    """Image file name -> every file of that name below ``folders`` (built once per set of folders)."""
    key = tuple(str(f) for f in folders)
    if key not in _NAME_INDEX:
        index: dict[str, list[Path]] = {}
        for folder in folders:
            if folder.is_dir():
                for p in sorted(folder.rglob("*")):
                    if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file():
                        index.setdefault(p.name, []).append(p)
        _NAME_INDEX[key] = index
    return _NAME_INDEX[key]


def _resolve_image(value: Any, *, root: Path, file: Path, row: int, field: str) -> str:
    """A question's image: a path (absolute, or relative to the root, the file or an image folder), else a bare
    name found anywhere under the root and the ``$GUI_KNOWLEDGE_IMAGE_DIRS`` folders."""
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"expected an image path, got {type(value).__name__}", file=str(file), row=row, field=field)
    rel = Path(value)
    extra = image_dirs()
    candidates = [rel] if rel.is_absolute() else [base / rel for base in (*extra, root, file.parent, root / "images")]
    for cand in candidates:
        if cand.is_file():
            return str(cand.resolve())
    if not rel.is_absolute():
        found = _name_index([*extra, root]).get(rel.name, [])
        sizes = {p.stat().st_size for p in found}
        if len(sizes) > 1:
            raise DataError(f"image name {rel.name!r} is ambiguous: different files {[str(p) for p in found[:4]]}",
                            file=str(file), row=row, field=field)
        if found:
            return str(found[0].resolve())
    raise DataError(f"image {value!r} not found (looked under {root} and ${IMAGE_DIRS_ENV}: "
                    f"{os.pathsep.join(str(d) for d in extra) or 'unset'})", file=str(file), row=row, field=field)


def _image_list(raw: dict, name: str, **where: Any) -> list[str]:
    value = raw.get(name) or []
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list):
        raise DataError("must be a path or a list of paths", file=str(where["file"]), row=where["row"], field=name)
    return [_resolve_image(v, field=f"{name}[{k}]", **where) for k, v in enumerate(values)]


def platform_of(raw: dict[str, Any], *, file: Path | str, row: int) -> str:
    """``desktop`` or ``mobile`` from ``os_type`` (the action space differs, appendix A.3)."""
    os_type = str(raw.get("os_type") or "").strip().lower().replace(" ", "")
    if os_type in MOBILE_OS:
        return "mobile"
    if os_type in DESKTOP_OS:
        return "desktop"
    raise DataError(f"unknown os_type {raw.get('os_type')!r} (mobile: {sorted(MOBILE_OS)}, desktop: {sorted(DESKTOP_OS)})",
                    file=str(file), row=row, field="os_type")


def action_name(option: str) -> str:
    """The action call name an action-type option stands for ("Double click" -> "left_double"); "" if none."""
    text = re.sub(r"\(.*", "", str(option)).strip().lower().rstrip(".")
    return _ACTION_WORDS.get(text, _ACTION_WORDS.get(text.replace("-", " "), ""))


def _boxes(value: Any) -> list[list[float]]:
    """``annotation.bbox`` as boxes: one [x1, y1, x2, y2], a list of them, or dicts holding ``bbox``."""
    if isinstance(value, dict):
        value = value.get("bbox")
    if isinstance(value, list) and len(value) == 4 and all(isinstance(v, (int, float)) for v in value):
        return [[float(v) for v in value]]
    if isinstance(value, list):
        return [b for item in value for b in _boxes(item)]
    return []


def normalise_row(transport: dict[str, Any]) -> dict[str, Any]:
    """One official row -> the canonical document of ``gui_tasks.knowledge.schema``."""
    file, row, root = Path(transport["file"]), int(transport["row"]), Path(transport["root"])
    variant = transport.get("variant", "plain")
    reading = transport.get("reading", DEFAULT_READING)
    runner = reading == "runner"
    raw = json.loads(transport["raw"])
    where = {"root": root, "file": file, "row": row}

    def bad(field: str, why: str) -> DataError:
        return DataError(why, file=str(file), row=row, field=field)

    subtask = subtask_of(raw, file=file, row=row)
    qtype = raw.get("question_type")
    if qtype not in ("multiple_choice", "yes_or_no"):
        raise bad("question_type", f"must be 'multiple_choice' or 'yes_or_no', got {qtype!r}")
    text = raw.get("question_text")
    if not isinstance(text, str) or not text.strip():
        raise bad("question_text", "missing or empty")
    images = _image_list(raw, "question_image_dir_list", **where)
    if not images:
        raise bad("question_image_dir_list", "no question screenshot")
    try:
        size = list(image_size(images[0]))  # header only, under the pixel bound (gui_core.images)
    except ImageRefused as exc:
        raise bad("question_image_dir_list", f"screenshot {images[0]} refused: {exc}") from exc
    platform = platform_of(raw, file=file, row=row) if subtask in ("effect", "type", "parameter") else \
        ("mobile" if str(raw.get("os_type") or "").strip().lower() in MOBILE_OS else "desktop")

    option_images: list[str] = []
    if qtype == "yes_or_no":
        options = list(YES_NO)
    elif subtask == "effect":
        option_images = _image_list(raw, "option_image_dir_list", **where) if raw.get("option_image_dir_list") else \
            _image_list(raw, "option_text", **where)  # BENCHMARKS.md: the option screenshots may sit in option_text
        options = [""] * len(option_images)
    else:
        opts = raw.get("option_text")
        if not isinstance(opts, list) or not all(isinstance(o, (str, int, float)) for o in opts):
            raise bad("option_text", "must be a list of option texts")
        options = [str(o) if runner else str(o).strip() for o in opts]
    if qtype == "multiple_choice" and not 2 <= len(options) <= 7:
        raise bad("option_text" if subtask != "effect" else "option_image_dir_list", f"expected 2 to 7 options, got {len(options)}")
    answer = _groundtruth(raw.get("groundtruth"), qtype, len(options))
    if answer is None:
        raise bad("groundtruth", f"{raw.get('groundtruth')!r} is not a valid answer for a {qtype} question with {len(options)} options")

    body = _PREFIX.sub("", text).strip()
    question, action, marks = (text if runner else text.strip()), "", []
    if subtask == "effect":
        question, action = "", body
        marks = _action_marks(body, size)
    elif subtask == "parameter":
        question, action = "", body.split("(")[0].strip()
        marks = [m for letter, opt in zip(letters_for(len(options)), options) for m in _action_marks(f"{action}({opt})", size, letter)]
    elif subtask == "type":
        question = ""
    boxes = _boxes((raw.get("annotation") or {}).get("bbox") if isinstance(raw.get("annotation"), dict) else None)
    aug = raw.get("augmented_question")
    tip = ""
    box_marks = [{"kind": "box", "box": b, **({"style": "runner"} if runner else {})} for b in boxes]
    if variant == "augmented":
        if isinstance(aug, str) and aug.strip() and subtask not in ("effect", "type", "parameter"):
            question = aug if runner else aug.strip()
        marks = box_marks + marks
    elif variant in VISUAL_PROMPT_VARIANTS and subtask in INTERFACE_PERCEPTION:
        if not isinstance(aug, str) or not aug.strip():
            raise bad("augmented_question", "missing: the visual-prompt protocol asks Interface Perception with it "
                                            "(the plain-question ablation is gui_knowledge_plain_*)")
        if not boxes:
            raise bad("annotation.bbox", "missing: the visual-prompt protocol draws this red box")
        question, marks = (aug if runner else aug.strip()), box_marks + marks
        if variant == "official_tip":
            tip = raw.get("needed_knowledge")
            if not isinstance(tip, str) or not tip.strip():
                raise bad("needed_knowledge", "missing: the tip variant appends it to the prompt")
            tip = tip.strip()
    option_actions = [action_name(o) for o in options] if subtask == "type" else []
    if subtask == "type":
        known = set(PLATFORM_CALLS[platform])
        if any(a and a not in known for a in option_actions):
            raise bad("option_text", f"action types {option_actions} are not all in the {platform} action space {sorted(known)}")
    qid = raw.get("question_id")
    meta = {"file": str(file), "row": row, "os_type": raw.get("os_type"), "app_type": raw.get("app_type"),
            "knowledge_sub_type": raw["knowledge"]["knowledge_sub_type"], "coordinate_frame": COORDINATE_FRAME,
            "augmented_applied": question.strip() == (aug or "").strip() and bool(question.strip()), "reading": reading}
    if subtask in ("effect", "type", "parameter"):
        meta["action_space"] = (("mobile" if raw.get("os_type") == RUNNER_MOBILE_OS else "desktop")
                                if runner and variant != "plain" else platform)
    return {
        "id": str(qid) if qid not in (None, "") else f"{file.stem}-{row:05d}",
        "subtask": subtask, "knowledge_type": SUBTASK_TYPE[subtask], "question_type": qtype, "platform": platform,
        "lang": "en", "question": question, "action": action, "options": options, "option_images": option_images,
        "option_actions": option_actions, "images": images, "image_size": size, "marks": json.dumps(marks),
        "answer": answer, "source": "official", "variant": variant, "tip": tip, "meta": json.dumps(meta, ensure_ascii=False, sort_keys=True),
    }


def _groundtruth(value: Any, qtype: str, n_options: int) -> str | None:
    text = str(value if value is not None else "").strip()
    if qtype == "yes_or_no":
        word = text.lower().strip(".")
        return word if word in YES_NO else None
    m = re.fullmatch(r"[(\[]?([A-Ga-g])[)\]]?(?:\s*[.:、)]\s*.*)?", text, flags=re.S)
    letter = m.group(1).upper() if m else None
    return letter if letter and letter in letters_for(n_options) else None


def _action_marks(call: str, size: Sequence[int], label: str | None = None) -> list[dict[str, Any]]:
    """Marks for an action call in original pixels; a call without coordinates (type, hotkey) draws nothing."""
    try:
        action = from_call(call, COORDINATE_FRAME)
    except ValueError:
        return []
    return marks_for_action(action, (int(size[0]), int(size[1])), label)


__all__ = ["data_root", "read_raw_rows", "normalise_row", "subtask_of", "platform_of", "action_name",
           "CALL_TYPES"]


def data_check(root: Path | None = None) -> BenchmarkCheck:
    """What a local copy holds, read with the task loaders (main protocol): questions per sub-task, every bad row."""
    check = BenchmarkCheck.of_copy("gui_knowledge", root, data_root)
    if check.errors:
        return check
    root = check.root
    bad = BadRows(skip=True)
    try:
        rows = list(read_raw_rows(root, SUBTASKS, "official", bad=bad))
    except DataError as exc:  # no question files at all
        bad.add(exc)
        rows = []
    docs = bad.keep(normalise_row, rows)
    check.errors.extend(bad.errors)
    check.add_images(docs)
    check.counts.append(TaskCount("gui_knowledge", len(docs), PAPER_QUESTIONS, f"paper: {PAPER_QUESTIONS:,} questions (Table 1)"))
    for sub in SUBTASKS:
        check.counts.append(TaskCount(f"gui_knowledge_{sub}", sum(d["subtask"] == sub for d in docs), None,
                                      "no published per-sub-task count"))
    return check
