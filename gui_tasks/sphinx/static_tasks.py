"""lmms-eval glue for the static SPHINX tasks (sections 3.3.2-3.3.5): knowledge probing, completion
judgment, low-level grounding and focused-context format tasks, on the official material or on the
synthetic corpus (``gui_tasks.sphinx.synth``), which share one layout and one loader.

Task metadata: ``kind`` (knowledge | completion | grounding | focused), ``source`` (official |
synthetic), ``observation`` (a mode of section 3.4.1), ``seed``. Every response is scored twice: as
written ("Original") and after the rule-based repair ("Repaired", Tables 6 and 8).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, Mapping

from PIL import Image

from gui_metrics.lmms_bridge import sample_values
from gui_tasks.errors import DataError
from gui_tasks.lmms_rows import RowsTask
from gui_tasks.sphinx import official, synth
from gui_tasks.sphinx.actions import PRESS, format_action, is_exact, parse_action, repair_action
from gui_tasks.sphinx.hierarchy import Hierarchy, center, parse_bounds
from gui_tasks.sphinx.observation import MODES, TEXT_MODES, render_images, render_text
from gui_tasks.sphinx.prompts import COMPLETION_PROMPT, GROUNDING_PROMPT, KNOWLEDGE_BQ_PROMPT, KNOWLEDGE_MCQ_PROMPT, MODE_HEADERS

KINDS = ("knowledge", "completion", "grounding", "focused")
GROUNDING_RULE = "tap-centre-in-gold-box"  # how an answer hits the gold element (named choice; the paper gives none)
FOCUSED_N = 141  # section 3.3.5: 141 focused-context tasks


def _root(meta: Mapping[str, Any]) -> Path:
    if meta.get("source", "synthetic") == "synthetic":
        return synth.load_or_build(int(meta.get("seed", 0)))
    return official.data_root(meta)


# --- rows ------------------------------------------------------------------------------------------
def knowledge_rows(root: Path) -> list[dict[str, Any]]:
    """Each question gives five probes (official ``knowledge_probing.py``): the MCQ and one T/F per option."""
    rows = []
    for q in official.load_questions(root / "questions.json"):
        base = {"question": q["question"], "app": q["app"], "category": q["category"], "capability": q["capability"],
                "qid": f"q{q['row']}", "images": []}
        rows.append({**base, "id": f"q{q['row']}-mcq", "probe": "mcq", "options": q["options"], "answer": q["answer"]})
        for letter, text in q["options"].items():
            rows.append({**base, "id": f"q{q['row']}-bq{letter}", "probe": "bq", "statement": text, "answer": "T" if letter == q["answer"] else "F"})
    return rows


def _gold_history(acts: list[dict[str, Any]]) -> str:
    out = []
    for a in acts:
        el = a.get("element")
        what = f" [{describe_view(el)}]" if el else ""
        msg = f" [{a['message']}]" if a.get("message") else ""
        out.append(f"{a['action_type']}{what}{msg}")
    return "; ".join(out) or "none"


def describe_view(attrib: Mapping[str, str]) -> str:
    """A view named by its text, description or resource name (how the history refers to it)."""
    name = attrib.get("text") or attrib.get("content-desc") or attrib.get("resource-id", "").split(":id/")[-1]
    return f'{attrib.get("class", "").rsplit(".", 1)[-1]} "{name}"'


def _screen(folder: Path, step: int, mode: str, *, file: str, row: int) -> tuple[str | None, str | None]:
    png, xml = official.screen_files(folder, step)
    if xml is None:
        raise DataError(f"screen {step} has no view hierarchy", file=str(folder / f"{step}.xml"), row=row, field="xml")
    if mode not in TEXT_MODES and png is None:
        raise DataError(f"observation {mode!r} needs screen {step}'s screenshot", file=str(folder / f"{step}.png"), row=row, field="png")
    return (str(png) if png else None), str(xml)


def completion_rows(root: Path, mode: str) -> list[dict[str, Any]]:
    """Section 3.3.3: one row per step of every reference trajectory; the last step is "stop", others "continue"."""
    rows = []
    for task, app, folder in official.nav_folders(root):
        acts = official.gold_actions(folder)
        for k in range(len(acts)):
            png, xml = _screen(folder, k, mode, file=str(folder / "meta.json"), row=k)
            rows.append({"id": f"{task['id']}/{app}/{k}", "task": f"{task['id']}/{app}", "group": official.task_group(task["id"]),
                         "step": k, "goal": str(task["description"]), "history": _gold_history(acts[:k]), "image": png, "xml": xml,
                         "answer": "stop" if k == len(acts) - 1 else "continue", "images": []})
    return rows


def grounding_rows(root: Path, mode: str) -> list[dict[str, Any]]:
    rows = []
    path = root / "low_level.json"
    for t in official.load_low_level(path, root):
        png, xml = _screen(Path(t["folder"]), t["step"], mode, file=str(path), row=t["row"])
        el = t["gold_element"]
        if isinstance(el, int):  # an element id of that screen: its view
            h = Hierarchy.from_file(xml)
            ids = h.interactables()
            if not 0 <= el < len(ids):
                raise DataError(f"element id {el} not on the screen ({len(ids)} interactables)", file=str(path), row=t["row"],
                                field="groundtruth.element")
            el = dict(h.nodes[ids[el]].attrib)
        rows.append({"id": t["id"], "instruction": t["instruction"], "image": png, "xml": xml, "gold_type": t["gold_type"],
                     "gold_box": list(parse_bounds(el["bounds"])) if el else None, "gold_message": t["gold_message"], "images": []})
    return rows


_WORDS = ("hello", "weather today", "alarm", "Paris", "test two", "pick up milk", "10", "skirt", "https://uci.edu", "note")


def focused_rows(seed: int, n: int = FOCUSED_N) -> list[dict[str, Any]]:
    """Section 3.3.5: "Respond with '<action>'" and nothing else, over every action form of Table 2 (seeded)."""
    rng = random.Random(f"sphinx-focused:{seed}")
    rows = []
    for i in range(n):
        kind = i % 9
        if kind in (0, 1):
            act = {"type": ("click", "longclick")[kind], "index": rng.randrange(200)}
        elif kind in (2, 3):
            act = {"type": ("click", "longclick")[kind - 2], "point": (rng.randrange(1080), rng.randrange(2400))}
        elif kind == 4:
            act = {"type": "text", "index": rng.randrange(200), "text": rng.choice(_WORDS)}
        elif kind == 5:
            act = {"type": "text", "point": (rng.randrange(1080), rng.randrange(2400)), "text": rng.choice(_WORDS)}
        elif kind == 6:
            act = {"type": "swipe", "index": rng.randrange(200), "direction": rng.choice(("up", "down", "left", "right"))}
        elif kind == 7:
            act = {"type": "swipe", "point": (rng.randrange(1080), rng.randrange(2400)), "to": (rng.randrange(1080), rng.randrange(2400))}
        else:
            act = {"type": rng.choice(PRESS)}
        text = format_action(act).replace("text [", "input [", 1) if act["type"] == "text" and rng.random() < 0.5 else format_action(act)
        rows.append({"id": f"focused-{i:03d}", "expected": text, "images": []})
    return rows


class SphinxStaticTask(RowsTask):
    KIND = "sphinx_static"

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind, mode = meta.get("kind"), meta.get("observation", "full_text")
        if kind not in KINDS:
            raise DataError(f"kind must be one of {KINDS}, got {kind!r}", file="<task yaml>", field="metadata.kind")
        if mode not in MODES:
            raise DataError(f"observation must be one of {MODES}, got {mode!r}", file="<task yaml>", field="metadata.observation")
        if kind == "focused":
            rows = focused_rows(int(meta.get("seed", 0)))
        elif kind == "knowledge":
            rows = knowledge_rows(_root(meta))
        elif kind == "completion":
            rows = completion_rows(_root(meta), mode)
        else:
            rows = grounding_rows(_root(meta), mode)
        return [{**r, "kind": kind, "observation": mode} for r in rows]


# --- prompts and visuals ----------------------------------------------------------------------------
def _screen_of(doc: Mapping[str, Any]) -> tuple[Hierarchy, Image.Image | None]:
    """The document's screen: its hierarchy (sized by the screenshot when there is one) and screenshot."""
    h = Hierarchy.from_file(doc["xml"])
    if not doc.get("image"):
        return h, None
    with Image.open(doc["image"]) as im:
        image = im.convert("RGB")
    return (h if h.size else Hierarchy(h.nodes, image.size)), image


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    if doc["kind"] in ("knowledge", "focused") or doc["observation"] in TEXT_MODES:
        return []
    h, image = _screen_of(doc)
    return render_images(image, h, doc["observation"])


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    kind = doc["kind"]
    if kind == "knowledge":
        if doc["probe"] == "mcq":
            opts = "".join(f"{k}. {v}\n" for k, v in doc["options"].items())
            return KNOWLEDGE_MCQ_PROMPT.format(app=doc["app"], category=doc["category"], question=doc["question"], options=opts)
        return KNOWLEDGE_BQ_PROMPT.format(app=doc["app"], category=doc["category"], question=doc["question"], statement=doc["statement"])
    if kind == "focused":
        return f"Respond with '{doc['expected']}'."  # the form of section 3.3.5's example
    mode = doc["observation"]
    w, hh = (0, 0)
    if mode not in TEXT_MODES:
        with Image.open(doc["image"]) as im:  # the header names the screenshot size; no need to decode it
            w, hh = im.size
    header, body = MODE_HEADERS[mode].format(w=w, h=hh), render_text(Hierarchy.from_file(doc["xml"]), mode)
    if kind == "completion":
        return COMPLETION_PROMPT.format(goal=doc["goal"], history=doc["history"], header=header, observation=body)
    return GROUNDING_PROMPT.format(instruction=doc["instruction"], header=header, observation=body)


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return str(doc.get("answer") or doc.get("expected") or doc.get("gold_type"))


# --- scoring ----------------------------------------------------------------------------------------
_LETTER = re.compile(r"\b([ABCD])\b")
_TF = re.compile(r"\b(T|F|true|false|yes|no)\b", re.I)
_CS = re.compile(r"\b(continue|stop)\b", re.I)


def _status(text: str, original: Any) -> str:
    if not text.strip():
        return "empty"
    return "parsed" if original is not None else "malformed"


def score_knowledge(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    s = text.strip()
    if doc["probe"] == "mcq":
        original = s if s in "ABCD" and len(s) == 1 else None
        m = _LETTER.search(s)
        repaired = original or (m.group(1) if m else None)
    else:
        original = s if s in ("T", "F") else None
        m = _TF.search(s)
        repaired = original or ({"t": "T", "true": "T", "yes": "T", "f": "F", "false": "F", "no": "F"}[m.group(1).lower()] if m else None)
    return {"capability": doc["capability"], "probe": doc["probe"], "qid": doc["qid"], "status": _status(s, original),
            "correct": original == doc["answer"], "correct_repaired": repaired == doc["answer"], "predicted": repaired}


def score_completion(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    s = text.strip()
    original = s.lower().strip(".\"'") if s.lower().strip(".\"'") in ("continue", "stop") else None
    m = _CS.findall(s)
    repaired = original or (m[-1].lower() if m else None)
    return {"task": doc["task"], "group": doc["group"], "answer": doc["answer"], "status": _status(s, original),
            "correct": original == doc["answer"], "correct_repaired": repaired == doc["answer"], "predicted": repaired}


def _hits(doc: Mapping[str, Any], act: dict[str, Any] | None, h: Hierarchy) -> bool:
    """Same action type and, for element actions, the tap lands in the gold box (``GROUNDING_RULE``); text also
    needs the same message (stripped, case-insensitive)."""
    if act is None or act["type"] != doc["gold_type"]:
        return False
    if doc["gold_type"] == "text" and str(act.get("text", "")).strip().lower() != str(doc.get("gold_message") or "").strip().lower():
        return False
    box = doc.get("gold_box")
    if box is None:
        return True
    if "index" in act:
        ids = h.interactables()
        if not 0 <= act["index"] < len(ids):
            return False
        x, y = center(h.nodes[ids[act["index"]]].box)
    else:
        x, y = act["point"]
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def score_grounding(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    h = Hierarchy.from_file(doc["xml"])
    status, act = parse_action(text)
    _rs, repaired = repair_action(text)
    return {"status": status, "correct": _hits(doc, act, h), "correct_repaired": _hits(doc, repaired, h),
            "predicted": format_action(repaired) if repaired else None, "rule": GROUNDING_RULE}


def score_focused(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A violation unless the response is exactly the requested action (same action, nothing around it)."""
    status, act = parse_action(text)
    want = parse_action(doc["expected"])[1]
    ok = is_exact(text) and act == want
    return {"status": status, "violation": not ok}


_SCORERS = {"knowledge": (score_knowledge, "sphinx_probe"), "completion": (score_completion, "sphinx_completion"),
            "grounding": (score_grounding, "sphinx_grounding"), "focused": (score_focused, "sphinx_focused")}


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    text = str(results[0]) if results and results[0] is not None else ""
    scorer, kind = _SCORERS[doc["kind"]]
    rec = scorer(doc, text)
    rec["id"] = doc["id"]
    return sample_values({kind}, rec)


__all__ = ["SphinxStaticTask", "doc_to_visual", "doc_to_text", "doc_to_target", "process_results", "describe_view",
           "score_knowledge", "score_completion", "score_grounding", "score_focused", "focused_rows"]
