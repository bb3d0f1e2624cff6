"""A synthetic SPHINX corpus in the official layout, recorded from the simulator (the offline default).

The scripted oracle solves every built-in navigation and toggle task; its runs are written exactly as the
official repository stores its ground truth (``task_info_all.json``, ``groundtruth/<id>/sim/{meta,
activities,evaluator}.json``, ``<k>.png`` and ``<k>.xml`` per screen), plus ``questions.json`` (knowledge
probing generated from the world) and ``lowlevel_tasks.json`` with ``lowlevel_tasks/<id>.xml|png`` (one
grounding instruction per distinct gold action). The static tasks then read it through the same loaders as
the official material.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from gui_core.paths import cache_dir
from gui_tasks.sphinx.hierarchy import Hierarchy
from gui_tasks.sphinx.observation import inner_text
from gui_tasks.sphinx.navigation import NAV_SPECS, eval_action, nav_tasks
from gui_tasks.sphinx.simulator import APP_NAMES, SIM_APPS, Simulator, label_text
from gui_tasks.sphinx.toggle_tasks import OPEN_APP, OPEN_PAGE, ToggleTask, oracle_actions, table5_tasks
from gui_tasks.synth.cache import build_once

GENERATOR_VERSION = 3
DYNAMIC_TITLES = ("results",)  # pages titled at run time (by the search query): not an answer option
QUESTIONS_PER_PAGE = 3  # app-knowledge questions ask about the first switches of a page (the alarm list is long)
APP_FOLDER = "sim"
_CATEGORY = {"settings": "Tools", "clock": "Tools", "chrome": "Communication", "youtube": "Video Players & Editors"}
_STATE_NAMES = {"wifi": "Wi-Fi", "bt": "Bluetooth", "dnd": "Do Not Disturb", "alarm_0900": "the 9:00 alarm",
                "yt_captions": "YouTube captions", "chrome_payment": "saving payment methods in Chrome",
                "chrome_https": "always using secure connections in Chrome"}


def _tasks() -> list[tuple[ToggleTask, list | None]]:
    """Every simulator task with its evaluators in the official layout (None for the state-scored toggles)."""
    specs = {name: ev for name, _i, _s, _g, ev in NAV_SPECS}
    return [(n.task, specs[n.task.name]) for n in nav_tasks()] + [(t, None) for t in table5_tasks()]


def _record(folder: Path, task: ToggleTask) -> list[dict[str, Any]]:
    """Run the oracle; write screens, activities and gold actions; return the gold actions."""
    folder.mkdir(parents=True)
    sim = Simulator()
    obs = sim.reset(task.initial)
    gold, acts = [], []
    for k, a in enumerate(oracle_actions(task)):
        obs.screenshot().convert("RGB").save(folder / f"{k}.png", compress_level=1)
        (folder / f"{k}.xml").write_text(obs.hierarchy.to_xml(), encoding="utf-8")
        acts.append(list(obs.activity))
        ev = eval_action(obs, a)
        gold.append({"type": ev["action_type"], "element": ev.get("element"), **({"message": ev["message"]} if "message" in ev else {})})
        if a["type"] == "stop":
            break
        obs = sim.act(a)
    (folder / "meta.json").write_text(json.dumps(gold, indent=1), encoding="utf-8")
    (folder / "activities.json").write_text(json.dumps(acts, indent=1), encoding="utf-8")
    return gold


def _goal_text(goals) -> str:
    parts = []
    for key, want in goals:
        if key == OPEN_APP:
            parts.append(f"the {APP_NAMES.get(want, want)} app open")
        elif key == OPEN_PAGE:
            parts.append(f"the {want.split('/')[1].replace('_', ' ')} screen open")
        else:
            name = _STATE_NAMES.get(key) or (f"the {key[6:8]}:{key[8:]} alarm" if key.startswith("alarm_") else key)
            parts.append(f"{name} {'on' if want else 'off'}")
    return ", ".join(parts)


def _four(rng: random.Random, right: str, pool: list[str], also_right: set[str] = frozenset()) -> tuple[dict[str, str], str]:
    wrong = sorted({p for p in pool if p != right and p not in also_right})
    opts = [right] + rng.sample(wrong, 3)
    rng.shuffle(opts)
    return dict(zip("ABCD", opts)), "ABCD"[opts.index(right)]


def _questions(rng: random.Random) -> list[dict[str, Any]]:
    """App knowledge (which screen holds a switch) and goal understanding (what end state a goal asks for)."""
    from gui_tasks.synth.scene import Element

    out, asked = [], set()
    titles = sorted({label_text(Element("t", "title", (0, 0, 1, 1), label=p.title)) for pages in SIM_APPS.values()
                     for key, p in pages.items() if key not in DYNAMIC_TITLES})
    for app, pages in SIM_APPS.items():
        for page in pages.values():
            title = label_text(Element("t", "title", (0, 0, 1, 1), label=page.title))
            for row in page.rows[:QUESTIONS_PER_PAGE]:
                if row.trailing != "toggle" or row.key in asked:
                    continue
                asked.add(row.key)
                name = label_text(Element("r", "row", (0, 0, 1, 1), label=row.label))
                holders = {label_text(Element("t", "title", (0, 0, 1, 1), label=p.title)) for p in pages.values()
                           if any(r.key == row.key for r in p.rows)}  # a switch on two screens: both are right
                opts, gt = _four(rng, title, titles, holders)
                out.append({"question": f"On which screen of the app can you switch '{name}'?", "options": opts, "ground_truth": gt,
                            "question_type": "app_level", "app_name": [APP_NAMES[app].capitalize()], "app_cateory": _CATEGORY[app]})
    tasks = [t for t, _ in _tasks()]
    ends = sorted({_goal_text(t.goals) for t in tasks} | {_goal_text(tuple((k, not w) if isinstance(w, bool) else (k, w) for k, w in t.goals))
                                                         for t in tasks})
    seen = set()
    for t in tasks:
        if t.instruction in seen:
            continue
        seen.add(t.instruction)
        opts, gt = _four(rng, _goal_text(t.goals), ends)
        app = next((w for k, w in t.goals if k == OPEN_APP), "settings")
        out.append({"question": f"The goal is: '{t.instruction}'. What should the phone show when the goal is achieved?",
                    "options": opts, "ground_truth": gt, "question_type": "intention_level",
                    "app_name": [APP_NAMES[app].capitalize()], "app_cateory": _CATEGORY[app]})
    return out


def _instruction(action: dict[str, Any], hierarchy: Hierarchy) -> str:
    """A one-line low-level instruction for a gold action (section 3.3.4; the paper had GPT-4o write them)."""
    el = action["element"]
    node = hierarchy.find({"resource-id": el["resource-id"]})
    inner = inner_text(hierarchy, hierarchy.nodes.index(node)) if node is not None else ""
    name = el.get("text") or el.get("content-desc") or inner or el["resource-id"].split(":id/")[-1]
    kind = {"Switch": "switch", "CheckBox": "checkbox", "ImageButton": "button", "Button": "button"}.get(el["class"].rsplit(".", 1)[-1], "item")
    return f"Tap the '{name}' {kind}."


def write_corpus(root: Path, *, seed: int = 0) -> None:
    """Write the whole synthetic corpus into ``root``."""
    rng = random.Random(f"sphinx-synth-v{GENERATOR_VERSION}:{seed}")
    info, low, seen = [], [], set()
    for k, (task, ev) in enumerate(_tasks(), start=1):
        folder = root / "groundtruth" / str(k) / APP_FOLDER
        gold = _record(folder, task)
        if ev is not None:
            (folder / "evaluator.json").write_text(json.dumps(ev, indent=1), encoding="utf-8")
        info.append({"id": k, "description": task.instruction, "apps": [APP_FOLDER], "name": task.name})
        acts = json.loads((folder / "activities.json").read_text())
        for step, a in enumerate(gold):
            if not a.get("element"):
                continue
            key = (tuple(acts[step]), a["element"]["resource-id"], a["type"])
            if key in seen:
                continue
            seen.add(key)
            lid = len(low) + 1
            screens = root / "lowlevel_tasks"
            screens.mkdir(exist_ok=True)
            for ext in ("xml", "png"):
                shutil.copyfile(folder / f"{step}.{ext}", screens / f"{lid}.{ext}")
            gt = {"type": a["type"], "element": a["element"], **({"message": a["message"]} if "message" in a else {})}
            low.append({"id": lid, "app": APP_FOLDER, "instruction": _instruction(a, Hierarchy.from_file(folder / f"{step}.xml")),
                        "groundtruth": gt})
    (root / "task_info_all.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    (root / "lowlevel_tasks.json").write_text(json.dumps(low, indent=1), encoding="utf-8")
    (root / "questions.json").write_text(json.dumps(_questions(rng), indent=1, ensure_ascii=False), encoding="utf-8")


def load_or_build(seed: int = 0, root: Path | None = None) -> Path:
    """The cached corpus for ``seed``, built once (``cache_dir()/synth/sphinx-v<N>-seed<seed>``)."""
    base = Path(root) if root is not None else cache_dir() / "synth"
    return build_once(base, f"sphinx-v{GENERATOR_VERSION}-seed{seed}", lambda tmp, _final: write_corpus(tmp, seed=seed),
                      lambda final: (final / "questions.json").is_file())
