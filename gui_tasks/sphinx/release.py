"""The official SPHINX material (PKU-ASE-RISE/Sphinx), read into the rows of our static tasks.

Layout of a checkout (``$SPHINX_DATA_DIR``), as the repository holds it:

    task_info_all.json                  [{id, description, apps: [app, ...]}]: 89 tasks, 244 trajectories; the
                                        completion judgment (run_complete.py, section 3.3.3) runs over all of them
    task_info.json                      the 163-trajectory subset of the AppAgent end-to-end runs (not used here)
    groundtruth/<id>/<app>/meta.json    gold actions [{type, element: {uiautomator attributes} | null, message?}],
                                        the last one {"type": "stop"}
    groundtruth/<id>/<app>/activities.json   [[package, activity], ...] one per screen
    groundtruth/<id>/<app>/evaluator.json    evaluator nodes (gui_tasks.sphinx.evaluator); 288 files
    groundtruth/<id>/<app>/<k>.png, <k>.xml  screen k (screenshot, uiautomator dump)
    questions.json                      knowledge probing: [{question, options: {A..D}, ground_truth: letter,
                                        question_type: app_level | intention_level, app_name: [..], app_cateory}]
    lowlevel_tasks.json                 grounding (run_lowlevel.py, section 3.3.4): [{id, app, instruction,
                                        groundtruth{type, element{...}, message?}}], 457 rows, ids 1..553 with gaps
    lowlevel_tasks/<id>.xml, <id>.png   the screen of grounding task <id>

Every problem raises DataError naming the file, row and field; a loader given a ``BadRows`` collector
(``gui_tasks.harness.bad_rows``) keeps going past bad rows when skipping is on. ``gui_tasks.sphinx.check.data_check`` counts what a copy holds
against the published numbers (it needs the tasks' row builders, which import this module: it lives apart).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows
from gui_tasks.sphinx.evaluator import Assertion, Evaluator, Step, evaluators_from_json
from gui_tasks.sphinx.hierarchy import Hierarchy, parse_bounds

TESTING_TASK_MIN_ID = 1001  # the official scripts skip ids > 1000: WeChat testing tasks, not released
CAPABILITIES = {"intention_level": "goal", "app_level": "app"}  # question_type -> Table 6 column
LETTERS = ("A", "B", "C", "D")
TASK_INFO = "task_info_all.json"  # 244 trajectories, 1,434 steps (section 3.3.3)
LOWLEVEL = "lowlevel_tasks.json"
LOWLEVEL_DIR = "lowlevel_tasks"
# Published counts (paper sections 3.3.2-3.3.4, OFFICIAL_FORMATS.md), checked by ``data_check``.
EXPECTED = {"probes": 890, "completion_steps": 1434, "grounding_tasks": 457, "evaluator_files": 288}
# Gold action types of the official files and what they are called in an agent action (Table 2 names).
GOLD_TYPES = {"click": "click", "longclick": "longclick", "input": "text", "text": "text", "swipe": "swipe", "back": "back",
              "enter": "enter", "restart": "restart", "none": "wait", "stop": "stop", "check": "click"}
ELEMENT_TYPES = ("click", "longclick", "input", "text", "swipe", "check")


def _collect(bad: BadRows | None, error: DataError) -> None:
    """Raise ``error`` unless a collector that skips bad rows takes it."""
    if bad is None:
        raise error
    bad.add(error)


def data_root(meta: Mapping[str, Any] | None = None) -> Path:
    """The official checkout: task metadata ``data_dir``, else ``$SPHINX_DATA_DIR`` (``gui_core.benchmark.data_root``)."""
    from gui_core.benchmark import data_root as root_of

    return root_of("sphinx", meta)


def read_json(path: Path) -> Any:
    from gui_tasks.runs.input_files import read_json as bounded  # regular files within the size bound

    return bounded(path)


def _list(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError("expected a JSON list", file=str(path))
    return data


# --- navigation tasks and their reference trajectories ---------------------------------------------
def load_task_info(root: Path, name: str = TASK_INFO, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """The navigation tasks of ``name`` (default ``task_info_all.json``, the completion-judgment set)."""
    path = root / name
    out = []
    for i, row in enumerate(_list(path)):
        try:
            if not isinstance(row, dict):
                raise DataError("expected an object", file=str(path), row=i)
            for f in ("id", "description", "apps"):
                if f not in row:
                    raise DataError("missing", file=str(path), row=i, field=f)
            if not isinstance(row["id"], int) and not str(row["id"]).isdigit():
                raise DataError(f"id {row['id']!r} is not an integer", file=str(path), row=i, field="id")
            if not isinstance(row["apps"], list) or not row["apps"]:
                raise DataError("expected a non-empty list of app folders", file=str(path), row=i, field="apps")
        except DataError as exc:
            _collect(bad, exc)
            continue
        out.append(row)
    return out


def gold_actions(folder: Path) -> list[dict[str, Any]]:
    """``meta.json``: gold actions in evaluator form (``action_type``, ``element``, ``message``), ending with stop."""
    path = folder / "meta.json"
    out = []
    for i, a in enumerate(_list(path)):
        if not isinstance(a, dict) or not (a.get("type") or a.get("action_type")):
            raise DataError("an action needs a type", file=str(path), row=i, field="type")
        t = str(a.get("type") or a.get("action_type")).lower()
        el = a.get("element")
        if el is not None:
            if not isinstance(el, dict):
                raise DataError("element must be an object or null", file=str(path), row=i, field="element")
            parse_bounds(el.get("bounds", ""), file=str(path), row=i, field_name="element.bounds")
        act: dict[str, Any] = {"action_type": "input" if t == "text" else t}
        if el is not None:
            act["element"] = el
        msg = a.get("message", a.get("text"))
        if msg is not None and t in ("input", "text"):
            act["message"] = str(msg)
        out.append(act)
    if not out or out[-1]["action_type"] != "stop":
        out.append({"action_type": "stop"})  # run_evaluation.py appends the stop when it is not recorded
    return out


def activities(folder: Path) -> list[tuple[str, str]]:
    path = folder / "activities.json"
    out = []
    for i, a in enumerate(_list(path)):
        if not isinstance(a, list) or len(a) != 2:
            raise DataError("expected [package, activity]", file=str(path), row=i)
        out.append((str(a[0]), str(a[1])))
    return out


def screen_files(folder: Path, step: int) -> tuple[Path | None, Path | None]:
    """(screenshot, hierarchy) of screen ``step``, each None when absent."""
    png, xml = folder / f"{step}.png", folder / f"{step}.xml"
    return (png if png.is_file() else None), (xml if xml.is_file() else None)


def reference_trajectory(folder: Path) -> list[Step]:
    """The gold trajectory as evaluator steps (every screen's hierarchy must be present)."""
    acts = gold_actions(folder)
    acts_n = len(acts)
    acts_on = activities(folder)
    if len(acts_on) < acts_n:
        raise DataError(f"{len(acts_on)} activities for {acts_n} actions", file=str(folder / "activities.json"))
    steps = []
    for k, act in enumerate(acts):
        _png, xml = screen_files(folder, k)
        if xml is None:
            raise DataError("screen hierarchy missing", file=str(folder / f"{k}.xml"))
        steps.append(Step(Hierarchy.from_file(xml), acts_on[k], act))
    return steps


def nav_folders(root: Path, *, include_testing: bool = False, name: str = TASK_INFO,
                bad: BadRows | None = None) -> list[tuple[dict[str, Any], str, Path]]:
    """(task, app, folder) for every task/app of ``name``; a trajectory without its ``meta.json`` is a bad row
    (the official run_complete.py reads every one)."""
    out = []
    path = root / name
    for i, task in enumerate(load_task_info(root, name, bad)):
        if int(task["id"]) >= TESTING_TASK_MIN_ID and not include_testing:
            continue
        for app in task["apps"]:
            folder = root / "groundtruth" / str(task["id"]) / str(app)
            if not (folder / "meta.json").is_file():
                _collect(bad, DataError(f"no ground truth folder {folder}", file=str(path), row=i, field="apps"))
                continue
            out.append((task, str(app), folder))
    return out


def task_group(task_id: int) -> str:
    """Table 4 column: user tasks (public apps) or testing tasks (WeChat, ids > 1000)."""
    return "testing" if int(task_id) >= TESTING_TASK_MIN_ID else "user"


def load_evaluators(path: str | Path) -> list[Assertion | Evaluator]:
    """Read one task's ``evaluator.json``."""
    return evaluators_from_json(read_json(Path(path)), file=str(path))


def evaluators_of(folder: Path) -> list[Assertion | Evaluator]:
    return load_evaluators(folder / "evaluator.json")


# --- knowledge probing -------------------------------------------------------------------------------
def load_questions(path: str | Path, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """Knowledge-probing questions, normalised: options as a letter -> text dict, ``capability`` goal | app."""
    p = Path(path)
    out = []
    for i, row in enumerate(_list(p)):
        try:
            out.append(_question(p, i, row))
        except DataError as exc:
            _collect(bad, exc)
    return out


def _question(p: Path, i: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataError("expected an object", file=str(p), row=i)
    for f in ("question", "options", "ground_truth", "question_type", "app_name", "app_cateory"):
        if f not in row:
            raise DataError("missing", file=str(p), row=i, field=f)
    opts = row["options"]
    if isinstance(opts, list):  # ["A. text", ...] is accepted too
        opts = {str(o).strip()[0]: str(o).strip()[2:].strip() for o in opts if str(o).strip()}
    if not isinstance(opts, dict) or sorted(opts) != list(LETTERS):
        raise DataError("options must be the four letters A-D", file=str(p), row=i, field="options")
    gt = str(row["ground_truth"]).strip().upper()
    if gt not in LETTERS:
        raise DataError(f"ground_truth {row['ground_truth']!r} is not a letter A-D", file=str(p), row=i, field="ground_truth")
    qt = str(row["question_type"])
    if qt not in CAPABILITIES:
        raise DataError(f"question_type {qt!r} is not one of {sorted(CAPABILITIES)}", file=str(p), row=i, field="question_type")
    app = row["app_name"][0] if isinstance(row["app_name"], list) and row["app_name"] else row["app_name"]
    return {"row": i, "question": str(row["question"]), "options": {k: str(opts[k]) for k in LETTERS}, "answer": gt,
            "capability": CAPABILITIES[qt], "app": str(app), "category": str(row["app_cateory"])}


# --- low-level grounding -----------------------------------------------------------------------------
def load_lowlevel(root: Path, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """``lowlevel_tasks.json`` with each task's screen ``lowlevel_tasks/<id>.xml`` (and ``.png`` when present).

    Rows: ``row, id, app, instruction, xml, png (or None), gold_type`` (Table 2 name), ``gold_element`` (the
    view's attributes, None for back/enter/...), ``gold_box``, ``gold_message``, ``official_type`` (as written)."""
    path = root / LOWLEVEL
    out = []
    for i, row in enumerate(_list(path)):
        try:
            out.append(_lowlevel_row(root, path, i, row))
        except DataError as exc:
            _collect(bad, exc)
    return out


def _lowlevel_row(root: Path, path: Path, i: int, row: Any) -> dict[str, Any]:
    f = str(path)
    if not isinstance(row, dict):
        raise DataError("expected an object", file=f, row=i)
    for k in ("id", "app", "instruction", "groundtruth"):
        if k not in row:
            raise DataError("missing", file=f, row=i, field=k)
    if isinstance(row["id"], bool) or not (isinstance(row["id"], int) or str(row["id"]).isdigit()):
        raise DataError(f"id {row['id']!r} is not an integer", file=f, row=i, field="id")
    gt = row["groundtruth"]
    if not isinstance(gt, dict):
        raise DataError("groundtruth must be an object", file=f, row=i, field="groundtruth")
    t = str(gt.get("type", "")).lower()
    if t not in GOLD_TYPES:
        raise DataError(f"unknown action type {gt.get('type')!r}", file=f, row=i, field="groundtruth.type")
    el, box = gt.get("element"), None
    if t in ELEMENT_TYPES:
        if not isinstance(el, dict):
            raise DataError(f"a {t} needs the element it acts on", file=f, row=i, field="groundtruth.element")
        box = list(parse_bounds(el.get("bounds", ""), file=f, row=i, field_name="groundtruth.element.bounds"))
    if t in ("input", "text") and not isinstance(gt.get("message"), str):
        raise DataError("an input needs its message", file=f, row=i, field="groundtruth.message")
    xml = root / LOWLEVEL_DIR / f"{int(row['id'])}.xml"
    if not xml.is_file():
        raise DataError(f"screen {xml} is missing", file=f, row=i, field="id")
    png = xml.with_suffix(".png")
    return {"row": i, "id": str(int(row["id"])), "app": str(row["app"]), "instruction": str(row["instruction"]), "xml": str(xml),
            "png": str(png) if png.is_file() else None, "official_type": t, "gold_type": GOLD_TYPES[t],
            "gold_element": el if isinstance(el, dict) else None, "gold_box": box, "gold_message": gt.get("message")}
