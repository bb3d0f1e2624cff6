"""Step-wise agentic benchmarks of StaR appendix A.3: AndroidControl, AITZ, GUI-Odyssey.

Every step of every test episode becomes one document: the goal, the step's low-level
instruction (AndroidControl "low" setting), the current screenshot, the earlier steps'
ground-truth actions and screenshots (the family decides how many it shows: UI-TARS the
last four, A.5), the gold action on the 0-1000 grid where it has a point, and the element
boxes of the screen where the dataset has them (the inside-box part of the A.2 rule).

The history in these documents is the ground-truth trajectory (teacher forcing: ``history: ground_truth``), so
steps are independent requests. StaR's UI-TARS protocol (A.5) gives UI-TARS its own previous predictions instead:
``history: own`` groups these documents into episodes whose steps run in order (``gui_tasks.star.own_history``).

Loaders read each dataset's published layout:
- AndroidControl: ``android_control_splits.json`` and per-episode
  ``jsons/metadata_episode_<id>.json`` (goal, screenshots, screenshot_widths/heights,
  actions, step_instructions) with ``images/episode_<id>_<name>`` and, when present,
  ``layouts/episode_<id>_<name>`` (JSON lines with ``is_clickable`` and ``bbox_pixels``), the
  export StaR's preprocessing reads. A final COMPLETE step closes each episode (Table 4
  counts one COMPLETE per trajectory).
- AITZ: ``<split>/<category>/<episode>/<episode>.json`` step lists with AITW action codes,
  ``result_touch_yx``/``result_lift_yx`` in relative (y, x), ``ui_positions`` a JSON string of PIXEL
  ``[y, x, h, w]`` boxes of the screenshot (CoAT ``data-example/``; CoAT's ``evaluate.py`` reads a box as
  ``[x, y, x + w, y + h]`` pixels, StaR's ``dataPreprocessor`` divides by the image size), ``coat_action_desc`` as
  the low-level instruction.
- GUI-Odyssey: ``splits/<split>.json`` (``test``: episode ids), ``annotations/<id>.json``
  (``task_info.instruction``, ``device_info.w/h``, ``steps`` with ``action``/``info`` on the
  0-1000 grid and ``sam2_bbox``, the target element's box on the same grid) and ``screenshots/<file>``.

Each document also carries ``judge_data``: the step's raw gold as the dataset writes it (JSON), from which a judge
(``gui_tasks.star.judges``) derives its own gold the way the official code it names does.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from gui_core.action_match import classify_touch
from gui_core.action_parsers import GestureToScroll, scroll_direction
from gui_core.actions import Action
from gui_core.coords import Geometry, convert, convert_box
from gui_core.images import ImageRefused, image_size
from gui_core.errors import DataError
from gui_tasks.runs.input_files import read_json, read_jsonl
from gui_tasks.star import star_official
from gui_tasks.star.schema import action_to_json

DATASETS = ("androidcontrol", "aitz", "gui_odyssey")
# Table 4 columns: the action categories steps are broken down by.
CATEGORIES = ("CLICK", "COMPLETE", "SCROLL", "TYPE", "OPENAPP", "PRESS", "Others")


def category(action_type: str) -> str:
    """The Table 4 column of an action type (PRESS_* together; LONG_PRESS, WAIT, IMPOSSIBLE under Others)."""
    if action_type.startswith("PRESS_"):
        return "PRESS"
    return action_type if action_type in CATEGORIES else "Others"


def data_root(dataset: str) -> Path:
    """The local copy of ``dataset`` named by its record's variable, else its hub snapshot where it has one
    (``gui_core.benchmark.data_root``)."""
    from gui_core.benchmark import data_root as root_of

    return root_of(dataset)


def _read_json(path: Path) -> Any:
    return read_json(path)


def _image(path: Path, file: str, row: int, field: str) -> str:
    if not path.is_file():
        raise DataError(f"screenshot {path} not found", file=file, row=row, field=field)
    return str(path.resolve())


def _step_doc(dataset: str, episode: str, step: int, goal: str, low: str, image: str, geo: Geometry, gold: Action,
              history: list[tuple[str, Action]], boxes: Sequence[Sequence[float]], extra: Mapping[str, Any], *,
              raw: Mapping[str, Any] | None = None, target_box: Sequence[float] | None = None,
              history_low: Sequence[str] = ()) -> dict[str, Any]:
    """One step. ``boxes``: the screen's element boxes (grid); ``target_box``: the gold element's box where the dataset
    names it (GUI-Odyssey ``sam2_bbox``); ``raw``: the dataset's own gold fields for the judges; ``history_low``: the
    earlier steps' instructions as StaR lists them for OS-Atlas's ``{previousActions}`` (``gui_core.agents``)."""
    return {"id": f"{dataset}-{episode}-{step:03d}", "dataset": dataset, "episode_id": episode, "step": step, "goal": goal,
            "low_level": low, "images": [image], "image_width": geo.original_width, "image_height": geo.original_height,
            "history_images": [h[0] for h in history], "history_actions": [action_to_json(h[1]) for h in history],
            "history_low_level": [str(x) for x in history_low],
            "gold": action_to_json(gold), "boxes": [[round(float(v), 3) for v in b] for b in boxes],
            "action_category": category(gold.type),
            "target_box": [float(v) for v in target_box] if target_box is not None else [],
            "judge_data": json.dumps(dict(raw or {}), sort_keys=True, ensure_ascii=False),
            "meta": json.dumps(dict(extra), sort_keys=True, ensure_ascii=False)}


# --- AndroidControl -------------------------------------------------------------------------------------

_AC_SIMPLE = {"navigate_back": "PRESS_BACK", "navigate_home": "PRESS_HOME", "wait": "WAIT"}


def androidcontrol_action(raw: Any, geo: Geometry, *, file: str, row: int) -> Action:
    """One AndroidControl action dict (pixels of the screenshot) as a typed action."""
    if not isinstance(raw, Mapping) or "action_type" not in raw:
        raise DataError(f"action {raw!r} has no action_type", file=file, row=row, field="actions")
    kind = raw["action_type"]
    try:
        if kind in ("click", "long_press"):
            pt = convert((float(raw["x"]), float(raw["y"])), "original_px", "grid1000", geo)
            return Action("CLICK" if kind == "click" else "LONG_PRESS", point=pt, frame="grid1000")
        if kind == "scroll":  # AndroidControl names the scroll direction (content), kept as is
            return Action("SCROLL", direction=str(raw["direction"]).upper())
        if kind == "input_text":
            return Action("TYPE", text=str(raw["text"]))
        if kind == "open_app":
            return Action("OPENAPP", text=str(raw["app_name"]))
        if kind in _AC_SIMPLE:
            return Action(_AC_SIMPLE[kind])
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"bad {kind} action {raw!r}: {exc}", file=file, row=row, field="actions") from exc
    raise DataError(f"unknown action_type {kind!r}", file=file, row=row, field="actions")


def _ac_boxes_px(path: Path) -> tuple[list[list[float]], list[list[float]]]:
    """The layout file's element boxes (``bbox_pixels``) as ``[x_min, y_min, x_max, y_max]`` pixels: the clickable
    ones (StaR's preprocessing keeps those) and all of them (AgentCPM-GUI's ``process_ac.py`` keeps every bound)."""
    if not path.is_file():
        return [], []
    clickable, every = [], []
    for row, el in enumerate(read_jsonl(path)):
        b = el.get("bbox_pixels")
        if isinstance(b, Mapping):
            try:
                box = [float(b["x_min"]), float(b["y_min"]), float(b["x_max"]), float(b["y_max"])]
            except (KeyError, TypeError, ValueError) as exc:
                raise DataError(f"bad bbox_pixels {b!r}: {exc}", file=str(path), row=row, field="bbox_pixels") from exc
            every.append(box)
            if el.get("is_clickable"):
                clickable.append(box)
    return clickable, every


def read_androidcontrol(root: Path, split: str = "test") -> Iterator[dict[str, Any]]:
    splits = _read_json(root / "android_control_splits.json")
    if split not in splits:
        raise DataError(f"no split {split!r} (has {sorted(splits)})", file=str(root / "android_control_splits.json"), field=split)
    for ep in splits[split]:
        path = root / "jsons" / f"metadata_episode_{ep}.json"
        meta, file = _read_json(path), str(path)
        for key in ("goal", "screenshots", "screenshot_widths", "screenshot_heights", "actions", "step_instructions"):
            if key not in meta:
                raise DataError(f"missing {key!r}", file=file, field=key)
        shots, actions = meta["screenshots"], meta["actions"]
        if len(shots) != len(actions) + 1:
            raise DataError(f"{len(shots)} screenshots for {len(actions)} actions (want one more screenshot)", file=file,
                            field="screenshots")
        history: list[tuple[str, Action]] = []
        lows: list[str] = []
        layouts = meta.get("accessibility_trees") or []
        for i, shot in enumerate(shots):
            geo = Geometry.identity(int(meta["screenshot_widths"][i]), int(meta["screenshot_heights"][i]))
            image = _image(root / "images" / f"episode_{ep}_{os.path.basename(str(shot))}", file, i, "screenshots")
            gold = androidcontrol_action(actions[i], geo, file=file, row=i) if i < len(actions) else Action("COMPLETE")
            low = meta["step_instructions"][i] if i < len(meta["step_instructions"]) else "The task is completed."
            px, every = (_ac_boxes_px(root / "layouts" / f"episode_{ep}_{os.path.basename(str(layouts[i]))}")
                         if i < len(layouts) else ([], []))
            boxes = [convert_box(tuple(b), "original_px", "grid1000", geo) for b in px]
            raw = {"action": actions[i] if i < len(actions) else None, "width": geo.original_width,
                   "height": geo.original_height, "clickable_px": px, "elements_px": every}
            # StaR: previousActions = step_instructions[:i] (with "The task is completed." appended), as given
            yield _step_doc("androidcontrol", str(ep), i, str(meta["goal"]), str(low), image, geo, gold, list(history), boxes,
                            {"file": file, "row": i}, raw=raw, history_low=lows)
            history.append((image, gold))
            lows.append(str(low))


# --- AITZ (AITW action codes) ---------------------------------------------------------------------------

AITW_TYPES = {3: "TYPE", 4: "DUAL_POINT", 5: "PRESS_BACK", 6: "PRESS_HOME", 7: "PRESS_ENTER", 10: "COMPLETE", 11: "IMPOSSIBLE"}


def _yx(value: Any) -> tuple[float, float]:
    v = json.loads(value) if isinstance(value, str) else value
    if not (isinstance(v, (list, tuple)) and len(v) == 2):
        raise ValueError(f"{value!r} is not [y, x]")
    return float(v[0]), float(v[1])


def aitz_action(step: Mapping[str, Any], *, gesture_to_scroll: GestureToScroll, file: str, row: int) -> Action:
    """An AITZ step's action: dual points become a tap (CLICK) or a scroll by the AITW 0.04 rule."""
    code = step.get("result_action_type")
    kind = AITW_TYPES.get(int(code)) if isinstance(code, (int, str)) and str(code).lstrip("-").isdigit() else None
    if kind is None:
        raise DataError(f"unknown result_action_type {code!r}", file=file, row=row, field="result_action_type")
    if kind == "TYPE":
        return Action("TYPE", text=str(step.get("result_action_text", "")))
    if kind != "DUAL_POINT":
        return Action(kind)
    try:
        ty, tx = _yx(step["result_touch_yx"])
        ly, lx = _yx(step["result_lift_yx"])
    except (KeyError, ValueError) as exc:
        raise DataError(f"bad touch/lift point: {exc}", file=file, row=row, field="result_touch_yx") from exc
    gesture, finger = classify_touch((tx, ty), (lx, ly))
    if gesture == "tap":
        return Action("CLICK", point=(tx * 1000, ty * 1000), frame="grid1000")
    return Action("SCROLL", direction=scroll_direction(finger, True, gesture_to_scroll))


def aitz_positions(value: Any) -> list[list[float]]:
    """``ui_positions`` as written: a JSON string (or list) of pixel ``[y, x, h, w]`` boxes."""
    if not value:
        return []
    raw = ast.literal_eval(value) if isinstance(value, str) else value
    out = []
    for box in raw:
        if not (isinstance(box, (list, tuple)) and len(box) == 4):
            raise ValueError(f"{box!r} is not [y, x, h, w]")
        out.append([float(v) for v in box])
    return out


def _aitz_boxes(value: Any, geo: Geometry) -> list[tuple[float, ...]]:
    """AITZ element boxes on the 0-1000 grid: pixel ``[y, x, h, w]`` -> ``[x, y, x + w, y + h]`` pixels (CoAT
    ``evaluate.py``) -> grid (StaR ``dataPreprocessor/preprocessors.py`` divides by the screenshot size)."""
    return [convert_box((x, y, x + w, y + h), "original_px", "grid1000", geo) for y, x, h, w in aitz_positions(value)]


def read_aitz(root: Path, split: str = "test", *, gesture_to_scroll: GestureToScroll = "same") -> Iterator[dict[str, Any]]:
    base = root / split
    if not base.is_dir():
        raise DataError(f"no {split}/ folder", file=str(base))
    for path in sorted(base.glob("*/*/*.json")):
        steps, file = _read_json(path), str(path)
        if not isinstance(steps, list):
            raise DataError("expected a list of steps", file=file)
        history: list[tuple[str, Action]] = []
        lows: list[str] = []
        for i, st in enumerate(sorted(steps, key=lambda s: int(s.get("step_id", 0)))):
            rel = st.get("image_path") or st.get("image_full_path")
            if not rel:
                raise DataError("missing image_path", file=file, row=i, field="image_path")
            image = _image(root / rel if not Path(rel).is_absolute() else Path(rel), file, i, "image_path")
            try:
                geo = Geometry.identity(*image_size(image))  # header only, under the pixel bound
            except ImageRefused as exc:
                raise DataError(f"screenshot {image} refused: {exc}", file=file, row=i, field="image_path") from exc
            gold = aitz_action(st, gesture_to_scroll=gesture_to_scroll, file=file, row=i)
            try:
                boxes = _aitz_boxes(st.get("ui_positions"), geo)
                positions = aitz_positions(st.get("ui_positions"))
            except (ValueError, SyntaxError) as exc:
                raise DataError(f"bad ui_positions: {exc}", file=file, row=i, field="ui_positions") from exc
            raw = {"result_action_type": int(st["result_action_type"]), "result_action_text": str(st.get("result_action_text") or ""),
                   "touch_yx": list(_yx(st["result_touch_yx"])) if gold.type in ("CLICK", "SCROLL") else None,
                   "lift_yx": list(_yx(st["result_lift_yx"])) if gold.type in ("CLICK", "SCROLL") else None,
                   "ui_positions": positions, "width": geo.original_width, "height": geo.original_height}
            yield _step_doc("aitz", str(st.get("episode_id", path.stem)), i, str(st.get("instruction", "")),
                            str(st.get("coat_action_desc", "")), image, geo, gold, list(history), boxes,
                            {"file": file, "row": i, "category": path.parent.parent.name}, raw=raw, history_low=lows)
            history.append((image, gold))
            lows.append(str(st.get("coat_action_desc", "")))  # StaR: {PAD} = actionDescs[:i], every earlier step


# --- GUI-Odyssey ---------------------------------------------------------------------------------------

_ODY_KEYS = {"KEY_HOME": "PRESS_HOME", "KEY_BACK": "PRESS_BACK", "HOME": "PRESS_HOME", "BACK": "PRESS_BACK",
             "KEY_ENTER": "PRESS_ENTER", "ENTER": "PRESS_ENTER"}


def odyssey_action(step: Mapping[str, Any], *, gesture_to_scroll: GestureToScroll, file: str, row: int) -> Action:
    kind, info = str(step.get("action", "")).upper(), step.get("info")
    try:
        if kind in ("CLICK", "LONG_PRESS") and isinstance(info, str):
            if info.upper() in _ODY_KEYS:  # special keys are recorded as CLICK with the key name
                return Action(_ODY_KEYS[info.upper()])
            if info.upper() == "KEY_APPSELECT":  # format_converter.py decode_action: PRESS_RECENT
                return Action("PRESS_RECENT")
            raise ValueError(f"unknown key {info!r}")
        if kind in ("CLICK", "LONG_PRESS"):
            x, y = info[0]
            return Action(kind, point=(float(x), float(y)), frame="grid1000")
        if kind == "SCROLL":
            (x1, y1), (x2, y2) = info[0], info[1]
            dx, dy = float(x2) - float(x1), float(y2) - float(y1)
            # |dx| = |dy| is vertical: GUI-Odyssey data/format_converter.py (decode_action) and StaR's
            # convertGuiOdysseyAction both take the horizontal word only when |dx| > |dy|
            word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) > abs(dy) else ("UP" if dy < 0 else "DOWN")
            return Action("SCROLL", direction=scroll_direction(word, True, gesture_to_scroll))
        if kind in ("TYPE", "TEXT"):
            return Action("TYPE", text=str(info or ""))
        if kind in ("COMPLETE", "IMPOSSIBLE"):
            return Action(kind)
        if kind in _ODY_KEYS:
            return Action(_ODY_KEYS[kind])
        if kind == "INCOMPLETE":
            return Action("IMPOSSIBLE")
    except (TypeError, ValueError, IndexError) as exc:
        raise DataError(f"bad {kind} info {info!r}: {exc}", file=file, row=row, field="info") from exc
    raise DataError(f"unknown action {kind!r}", file=file, row=row, field="action")


def read_gui_odyssey(root: Path, split: str = "random_split", *, gesture_to_scroll: GestureToScroll = "same") -> Iterator[dict[str, Any]]:
    split_path = root / "splits" / f"{split}.json"
    episodes = _read_json(split_path).get("test")
    if not isinstance(episodes, list):
        raise DataError("no 'test' list", file=str(split_path), field="test")
    for ep in episodes:
        ep = str(ep).removesuffix(".json")
        path = root / "annotations" / f"{ep}.json"
        ann, file = _read_json(path), str(path)
        try:
            goal = ann["task_info"]["instruction"]
            geo = Geometry.identity(int(ann["device_info"]["w"]), int(ann["device_info"]["h"]))
            steps = ann["steps"]
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"missing {exc}", file=file, field=str(exc).strip("'")) from exc
        history: list[tuple[str, Action]] = []
        lows: list[str] = []
        for i, st in enumerate(steps):
            image = _image(root / "screenshots" / str(st.get("screenshot", "")), file, i, "screenshot")
            # recent-apps steps (PRESS_RECENT) are kept: GUI-Odyssey's, OS-Atlas's and AgentCPM-GUI's evaluations score
            # them; the judges that do not (StaR's space has no such action) leave them out (judges.drop_reason)
            gold = odyssey_action(st, gesture_to_scroll=gesture_to_scroll, file=file, row=i)
            sam2 = st.get("sam2_bbox") or None  # [] on steps that are not CLICK / LONG_PRESS (introduction.md)
            if sam2 is not None and not (isinstance(sam2, list) and len(sam2) == 4
                                         and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sam2)):
                raise DataError(f"sam2_bbox {sam2!r} is not [x1, y1, x2, y2]", file=file, row=i, field="sam2_bbox")
            target = sam2 if gold.type in ("CLICK", "LONG_PRESS") and sam2 is not None else None
            raw = {"action": st.get("action"), "info": st.get("info"), "sam2_bbox": sam2,
                   "category": ann.get("task_info", {}).get("category"), "step_length": ann.get("step_length")}
            yield _step_doc("gui_odyssey", ep, int(st.get("step", i)), str(goal),
                            str(st.get("low_level_instruction", "") or ""), image, geo, gold, list(history),
                            [target] if target else [], {"file": file, "row": i}, raw=raw, target_box=target,
                            history_low=lows)
            history.append((image, gold))
            if _star_keeps_odyssey_step(raw):  # StaR appends to actionHistory only the steps it converts
                lows.append(str(st.get("low_level_instruction", "") or ""))


def _star_keeps_odyssey_step(raw: Mapping[str, Any]) -> bool:
    """Whether StaR's GUI-Odyssey preprocessing keeps the step (``convertGuiOdysseyAction`` writes an action); where our
    transcription fails on malformed data the step is kept (StaR's would stop the whole run)."""
    try:
        return star_official.gold_odyssey(raw) is not None
    except Exception:  # noqa: BLE001 -- data, not configuration: the instruction stays in the history
        return True


def dataset_facts(dataset: str) -> Mapping[str, Any]:
    """What the record of step-wise release ``dataset`` (its tasks' ``metadata.dataset``) says about reading it:
    ``read_steps``, ``split``, ``gold_scroll``, ``atlas_gold`` (``gui_tasks.star.benchmark``); {} for a set without
    files (the synthetic episodes) or an unknown name."""
    from gui_core.benchmark import BENCHMARKS

    for b in BENCHMARKS.values():
        if ("dataset", dataset) in b.match and b.extra.get("read_steps"):
            return b.extra
    return {}


def read_steps(dataset: str, root: Path, split: str | None, *, gesture_to_scroll: GestureToScroll) -> list[dict[str, Any]]:
    """Every test step of ``dataset`` as a canonical step document (the reader and default split its record names; a
    release whose gold SCROLL names the finger's movement reads it by ``gesture_to_scroll``)."""
    from gui_core.benchmark import resolve

    facts = dataset_facts(dataset)
    if not facts:
        raise DataError(f"unknown dataset {dataset!r}; known: {DATASETS}", file="<task yaml>", field="metadata.dataset")
    gestures = {"gesture_to_scroll": gesture_to_scroll} if facts["gold_scroll"] == "finger" else {}
    return list(resolve(facts["read_steps"])(root, split or facts["split"], **gestures))
