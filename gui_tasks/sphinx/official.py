"""The official SPHINX material (PKU-ASE-RISE/Sphinx), read into the rows of our static tasks.

Layout of a checkout (``$SPHINX_DATA_DIR``), as the repository holds it:

    task_info.json                      [{id, description, apps: [app, ...]}]; ids > 1000 are testing tasks
    groundtruth/<id>/<app>/meta.json    gold actions [{type, element: {uiautomator attributes} | null, message?}],
                                        the last one {"type": "stop"}
    groundtruth/<id>/<app>/activities.json   [[package, activity], ...] one per screen
    groundtruth/<id>/<app>/evaluator.json    evaluator nodes (gui_tasks.sphinx.evaluator)
    groundtruth/<id>/<app>/<k>.png, <k>.xml  screen k (screenshot, uiautomator dump)
    questions.json                      knowledge probing: [{question, options: {A..D}, ground_truth: letter,
                                        question_type: app_level | intention_level, app_name: [..], app_cateory}]
    low_level.json                      grounding: [{id, app, instruction, groundtruth{type, element, message}}]

The low-level file's screen is not named by the fields BENCHMARKS.md lists; this loader reads it from
``screen: "<task id>/<app>/<step>"`` or, failing that, from an ``id`` of that form (a named assumption,
``LOW_LEVEL_SCREEN``). Every problem raises DataError naming the file, row and field.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from gui_tasks.errors import DataError
from gui_tasks.sphinx.evaluator import Assertion, Evaluator, Step, evaluators_from_json
from gui_tasks.sphinx.hierarchy import Hierarchy, parse_bounds

DATA_ENV = "SPHINX_DATA_DIR"
TESTING_TASK_MIN_ID = 1001  # the official scripts skip ids > 1000: WeChat testing tasks, not released
CAPABILITIES = {"intention_level": "goal", "app_level": "app"}  # question_type -> Table 6 column
LETTERS = ("A", "B", "C", "D")
LOW_LEVEL_SCREEN = "screen field or id '<task id>/<app>/<step>'"


def data_root(meta: Mapping[str, Any] | None = None) -> Path:
    """The official checkout: task metadata ``data_dir``, else ``$SPHINX_DATA_DIR``."""
    root = (meta or {}).get("data_dir") or os.environ.get(DATA_ENV)
    if not root:
        raise DataError(f"set {DATA_ENV} to a checkout of https://github.com/PKU-ASE-RISE/Sphinx", file=f"${DATA_ENV}")
    p = Path(root).expanduser()
    if not p.is_dir():
        raise DataError("not a folder", file=str(p))
    return p


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"cannot read: {exc}", file=str(path)) from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc}", file=str(path)) from exc


def _list(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError("expected a JSON list", file=str(path))
    return data


# --- navigation tasks and their reference trajectories ---------------------------------------------
def load_task_info(root: Path) -> list[dict[str, Any]]:
    path = root / "task_info.json"
    out = []
    for i, row in enumerate(_list(path)):
        if not isinstance(row, dict):
            raise DataError("expected an object", file=str(path), row=i)
        for f in ("id", "description", "apps"):
            if f not in row:
                raise DataError("missing", file=str(path), row=i, field=f)
        if not isinstance(row["apps"], list) or not row["apps"]:
            raise DataError("expected a non-empty list of app folders", file=str(path), row=i, field="apps")
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


def nav_folders(root: Path, *, include_testing: bool = False) -> list[tuple[dict[str, Any], str, Path]]:
    """(task, app, folder) for every task/app with a ground-truth folder (missing folders are not released)."""
    out = []
    for task in load_task_info(root):
        if int(task["id"]) >= TESTING_TASK_MIN_ID and not include_testing:
            continue
        for app in task["apps"]:
            folder = root / "groundtruth" / str(task["id"]) / str(app)
            if (folder / "meta.json").is_file():
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
def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """Knowledge-probing questions, normalised: options as a letter -> text dict, ``capability`` goal | app."""
    p = Path(path)
    out = []
    for i, row in enumerate(_list(p)):
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
        out.append({"row": i, "question": str(row["question"]), "options": {k: str(opts[k]) for k in LETTERS}, "answer": gt,
                    "capability": CAPABILITIES[qt], "app": str(app), "category": str(row["app_cateory"])})
    return out


# --- low-level grounding -----------------------------------------------------------------------------
def load_low_level(path: str | Path, root: Path) -> list[dict[str, Any]]:
    """Grounding tasks with their screen folder and step; ``groundtruth.element`` is a view (attributes with
    bounds) or an element id ``[i]`` of that screen."""
    p = Path(path)
    out = []
    for i, row in enumerate(_list(p)):
        if not isinstance(row, dict):
            raise DataError("expected an object", file=str(p), row=i)
        for f in ("id", "app", "instruction", "groundtruth"):
            if f not in row:
                raise DataError("missing", file=str(p), row=i, field=f)
        gt = row["groundtruth"]
        if not isinstance(gt, dict) or not gt.get("type"):
            raise DataError("groundtruth needs a type", file=str(p), row=i, field="groundtruth.type")
        where = str(row.get("screen") or row["id"]).split("/")
        if len(where) != 3 or not where[2].isdigit():
            raise DataError(f"cannot find the screen: expected {LOW_LEVEL_SCREEN}", file=str(p), row=i, field="screen")
        folder = root / "groundtruth" / where[0] / where[1]
        el = gt.get("element")
        if isinstance(el, dict):
            parse_bounds(el.get("bounds", ""), file=str(p), row=i, field_name="groundtruth.element.bounds")
        elif el is not None and not isinstance(el, int):
            raise DataError("element must be a view object, an element id or null", file=str(p), row=i, field="groundtruth.element")
        t = str(gt["type"]).lower()
        out.append({"row": i, "id": str(row["id"]), "app": str(row["app"]), "instruction": str(row["instruction"]),
                    "folder": str(folder), "step": int(where[2]), "gold_type": "text" if t == "input" else t,
                    "gold_element": el, "gold_message": gt.get("message")})
    return out
