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

from gui_core.images import decode, image_size
from gui_metrics.lmms_bridge import sample_values
from gui_metrics.sphinx import COMPLETION_LABELS
from gui_tasks.harness.circular import Layout, circular_fields, expand, expand_dataset
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows
from gui_tasks.harness.lmms_rows import RowsTask, task_metadata
from gui_tasks.sphinx import release, synth
from gui_tasks.sphinx.actions import PRESS, format_action, is_exact, parse_action, repair_action
from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, RENDERINGS, Hierarchy, center
from gui_tasks.sphinx.observation import MODES, TEXT_MODES, official_tree_text, official_view, render_images, render_text
from gui_tasks.sphinx.official_parse import (judge_completion_official, official_mcq_answer, official_tf_answer,
                                             parse_official_action)
from gui_tasks.sphinx import prompts as P
from gui_tasks.sphinx.prompts import COMPLETION_PROMPT, GROUNDING_PROMPT, KNOWLEDGE_BQ_PROMPT, KNOWLEDGE_MCQ_PROMPT, MODE_HEADERS

KINDS = ("knowledge", "completion", "grounding", "focused")
GROUNDING_RULE = "tap-centre-in-gold-box"  # how an answer hits the gold element (named choice; the paper gives none)
FOCUSED_N = 141  # section 3.3.5: 141 focused-context tasks


def _root(meta: Mapping[str, Any]) -> Path:
    if meta.get("source", "synthetic") == "synthetic":
        return synth.load_or_build(int(meta.get("seed", 0)))
    return release.data_root(meta)


# --- rows ------------------------------------------------------------------------------------------
def knowledge_rows(root: Path, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """Each question gives five probes (official ``knowledge_probing.py``): the MCQ and one T/F per option."""
    rows = []
    for q in release.load_questions(root / "questions.json", bad):
        base = {"question": q["question"], "app": q["app"], "category": q["category"], "capability": q["capability"],
                "qid": f"q{q['row']}", "images": []}
        rows.append({**base, "id": f"q{q['row']}-mcq", "probe": "mcq", "options": q["options"], "answer": q["answer"]})
        for letter, text in q["options"].items():
            rows.append({**base, "id": f"q{q['row']}-bq{letter}", "probe": "bq", "statement": text, "answer": "T" if letter == q["answer"] else "F"})
    return rows


def _gold_history(acts: list[dict[str, Any]]) -> str:
    """The paper-prose history: ``click [TextView "Save"]; input [EditText "amount"] [10]``."""
    out = []
    for a in acts:
        el = a.get("element")
        what = f" [{describe_view(el)}]" if el else ""
        msg = f" [{a['message']}]" if a.get("message") else ""
        out.append(f"{a['action_type']}{what}{msg}")
    return "; ".join(out) or "none"


# run_complete.py's history: get_description() of each gold action, "- " before each, one per line. Its
# translate_to_action drops a swipe's direction (every swipe reads "in up direction"); kept as it is.
_OFFICIAL_DESCRIPTIONS = {"click": "Click on {v}.", "longclick": "Long click on {v}.", "input": "Type {m} on {v}.",
                          "swipe": "Swipe on {v} in up direction.", "back": "Go back.", "enter": "Press enter.",
                          "restart": "Restart the app.", "stop": "Stop the app.", "none": "Do nothing.", "wait": "Do nothing.",
                          "home": "Go to the home screen."}  # home: no official description (the official code has no home)


def official_description(a: Mapping[str, Any]) -> str | None:
    """``get_description`` of one action in the evaluator's form (``action_type``, ``element``, ``message``); None for
    a type the official code does not describe."""
    t = a.get("action_type")
    if t not in _OFFICIAL_DESCRIPTIONS:
        return None
    return _OFFICIAL_DESCRIPTIONS[t].format(v=official_view(a.get("element") or {}), m=a.get("message", ""))


def official_history(acts: list[dict[str, Any]], *, file: str = "<memory>") -> str:
    out = []
    for k, a in enumerate(acts):
        text = official_description(a)
        if text is None:
            raise DataError(f"no official description for action {a['action_type']!r}", file=file, row=k, field="type")
        out.append("- " + text)
    return "\n".join(out)


def describe_view(attrib: Mapping[str, str]) -> str:
    """A view named by its text, description or resource name (how the history refers to it)."""
    name = attrib.get("text") or attrib.get("content-desc") or attrib.get("resource-id", "").split(":id/")[-1]
    return f'{attrib.get("class", "").rsplit(".", 1)[-1]} "{name}"'


def _screen(folder: Path, step: int, mode: str, *, file: str, row: int) -> tuple[str | None, str | None]:
    png, xml = release.screen_files(folder, step)
    if xml is None:
        raise DataError(f"screen {step} has no view hierarchy", file=str(folder / f"{step}.xml"), row=row, field="xml")
    if mode not in TEXT_MODES and png is None:
        raise DataError(f"observation {mode!r} needs screen {step}'s screenshot", file=str(folder / f"{step}.png"), row=row, field="png")
    return (str(png) if png else None), str(xml)


def completion_rows(root: Path, mode: str, rendering: str = DEFAULT_RENDERING, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """Section 3.3.3 over ``task_info_all.json``: one row per step of every reference trajectory; the last step is
    "stop", others "continue". A trajectory with a bad file is dropped whole (skipping on) or stops the task."""
    rows = []
    for task, app, folder in release.nav_folders(root, bad=bad):
        meta = str(folder / "meta.json")
        try:
            acts = release.gold_actions(folder)
            traj = []
            for k in range(len(acts)):
                png, xml = _screen(folder, k, mode, file=meta, row=k)
                history = official_history(acts[:k], file=meta) if rendering == "official" else _gold_history(acts[:k])
                traj.append({"id": f"{task['id']}/{app}/{k}", "task": f"{task['id']}/{app}", "group": release.task_group(task["id"]),
                             "step": k, "goal": str(task["description"]), "history": history, "image": png, "xml": xml,
                             "answer": "stop" if k == len(acts) - 1 else "continue", "images": []})
        except DataError as exc:
            if bad is None:
                raise
            bad.add(exc)
            continue
        rows.extend(traj)
    return rows


def grounding_rows(root: Path, mode: str, bad: BadRows | None = None) -> list[dict[str, Any]]:
    """Section 3.3.4: ``lowlevel_tasks.json``, each task on its own screen ``lowlevel_tasks/<id>.xml|png``."""
    rows = []
    path = root / release.LOWLEVEL
    for t in release.load_lowlevel(root, bad):
        if mode not in TEXT_MODES and t["png"] is None:
            err = DataError(f"observation {mode!r} needs the screenshot {Path(t['xml']).with_suffix('.png')}", file=str(path),
                            row=t["row"], field="id")
            if bad is None:
                raise err
            bad.add(err)
            continue
        rows.append({"id": t["id"], "app": t["app"], "instruction": t["instruction"], "image": t["png"], "xml": t["xml"],
                     "gold_type": t["gold_type"], "gold_box": t["gold_box"], "gold_message": t["gold_message"], "images": []})
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


# The samples that share something, per static kind (docs/statistics.md): a knowledge question's MCQ and its four
# T/F probes, a completion task's steps, a grounding screenshot; focused-context prompts stand alone.
STATIC_CLUSTERS = {"knowledge": ("question", "qid"), "completion": ("episode", "task"), "grounding": ("screenshot", "image"),
                   "focused": (None, None)}


class SphinxStaticTask(RowsTask):
    KIND = "sphinx_static"
    # the rows' and the scoring's settings; grounding_rule and repair_protocol record the code's rules (conflicts())
    METADATA_KEYS = frozenset({"kind", "source", "seed", "observation", "rendering", "knowledge_scoring", "prompt_protocol",
                               "parser_protocol", "repair_protocol", "grounding_rule", "circular"})  # circular: reports

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        from gui_tasks.sphinx.actions import REPAIR_PROTOCOL

        out = []
        for key, real in (("grounding_rule", GROUNDING_RULE), ("repair_protocol", REPAIR_PROTOCOL)):
            if meta.get(key) not in (None, real):
                out.append(f"metadata {key} {meta[key]!r} is not the rule the code applies ({real!r}); it is a record")
        return out

    @classmethod
    def cluster_key(cls, meta: Mapping[str, Any]) -> str | None:
        return STATIC_CLUSTERS.get(str(meta.get("kind")), (None, None))[0]

    def cluster_of(self, doc: Mapping[str, Any]) -> Any:
        field = STATIC_CLUSTERS.get(str(task_metadata(self.config).get("kind")), (None, None))[1]
        if field == "image":
            return super().cluster_of(doc)  # the screenshot's folder and name, not its absolute path
        return doc.get(field) if field else None

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind, mode = meta.get("kind"), meta.get("observation", "full_text")
        if kind not in KINDS:
            raise DataError(f"kind must be one of {KINDS}, got {kind!r}", file="<task yaml>", field="metadata.kind")
        if mode not in MODES:
            raise DataError(f"observation must be one of {MODES}, got {mode!r}", file="<task yaml>", field="metadata.observation")
        rendering = meta.get("rendering", DEFAULT_RENDERING)
        if rendering not in RENDERINGS:
            raise DataError(f"rendering must be one of {RENDERINGS}, got {rendering!r}", file="<task yaml>", field="metadata.rendering")
        bad = BadRows(skip_bad_rows(dict(meta)))
        if kind == "focused":
            rows = focused_rows(int(meta.get("seed", 0)))
        elif kind == "knowledge":
            scoring = meta.get("knowledge_scoring", DEFAULT_KNOWLEDGE_SCORING)
            if scoring not in KNOWLEDGE_SCORINGS:
                raise DataError(f"knowledge_scoring must be one of {KNOWLEDGE_SCORINGS}, got {scoring!r}", file="<task yaml>",
                                field="metadata.knowledge_scoring")
            rows = [{**r, "knowledge_scoring": scoring} for r in knowledge_rows(_root(meta), bad)]
        elif kind == "completion":
            rows = completion_rows(_root(meta), mode, rendering, bad)
        else:
            rows = grounding_rows(_root(meta), mode, bad)
        announce_skipped(bad, f"SPHINX {kind} rows")  # loud, and counted in the task's results metadata
        # every row records the rendering that builds its prompt: its answer is parsed the same way
        return [{**r, "kind": kind, "observation": mode, "rendering": rendering, "bad_rows_skipped": bad.count} for r in rows]


def process_docs_knowledge_circular(dataset):
    """Knowledge probing under CircularEval: each MCQ once per rotation of its options A-D (``gui_tasks.harness.circular``);
    the T/F probes have no options to rotate and are asked once."""
    return expand_dataset(dataset)


def process_docs_completion_circular(dataset):
    """Completion judgment under CircularEval: each step asked twice, the prompt naming its two answers in each order
    (``answer_order``, ``prompts.order_completion_answers``); right only if both answers are."""
    import datasets

    docs = [{**dict(d), "answer_order": list(P.COMPLETION_ORDER)} for d in dataset]
    return datasets.Dataset.from_list(expand(docs, Layout(options="answer_order", answer_letter=False)))


# --- prompts and visuals ----------------------------------------------------------------------------
def _screen_of(doc: Mapping[str, Any]) -> tuple[Hierarchy, Image.Image | None]:
    """The document's screen: its hierarchy (sized by the screenshot when there is one) and screenshot."""
    h = Hierarchy.from_file(doc["xml"])
    if not doc.get("image"):
        return h, None
    im = decode(doc["image"])  # bounded and complete (gui_core.images); a refusal is this sample's named error
    image = im.convert("RGB") if im.mode != "RGB" else im
    return (h if h.size else Hierarchy(h.nodes, image.size)), image


def _rendering(doc: Mapping[str, Any]) -> str:
    return doc.get("rendering") or DEFAULT_RENDERING


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    if doc["kind"] in ("knowledge", "focused") or doc["observation"] in TEXT_MODES:
        return []
    h, image = _screen_of(doc)
    return render_images(image, h, doc["observation"], rendering=_rendering(doc))


def _screen_size(doc: Mapping[str, Any]) -> tuple[int, int]:
    return image_size(doc["image"])  # the size only (header, under the pixel bound)


def official_prompt(doc: Mapping[str, Any]) -> str:
    """run_complete.py / run_lowlevel.py prompts: the system message, a blank line, the user message.

    Completion: full_text shows ``str(UIHierarchy)`` (the id-less tree, as run_complete.py's "tree" mode),
    screenshot the image prompt; simplified_text puts the official element list and set_of_mark the boxed
    image into the same two prompts (modes the official script does not run). Grounding: full_text is
    run_lowlevel.py's "tree", set_of_mark its "annotated_image"; simplified_text gives the official element
    list in the same place, screenshot the image agent's coordinate actions and observation line."""
    mode = doc["observation"]
    if doc["kind"] == "completion":
        if mode in TEXT_MODES:
            h = Hierarchy.from_file(doc["xml"])
            screen = official_tree_text(h) if mode == "full_text" else render_text(h, mode, rendering="official")
            user = P.COMPLETION_USER_TREE.format(target=doc["goal"], history=doc["history"], screen=screen, goal=doc["goal"])
            return f"{P.COMPLETION_SYSTEM_TREE}\n\n{user}"
        user = P.COMPLETION_USER_IMAGE.format(target=doc["goal"], history=doc["history"], goal=doc["goal"])
        return f"{P.COMPLETION_SYSTEM_IMAGE}\n\n{user}"
    user = P.lowlevel_user_prompt(by_point=mode == "screenshot")
    if mode in TEXT_MODES:
        user += f"Observation: {render_text(Hierarchy.from_file(doc['xml']), mode, rendering='official')}\n"
    elif mode == "set_of_mark":
        user += P.LOWLEVEL_ANNOTATED_OBSERVATION
    else:
        w, h = _screen_size(doc)
        user += P.LOWLEVEL_IMAGE_OBSERVATION.format(w=w, h=h)
    user += f"Task: {doc['instruction']}\n"
    return f"{P.LOWLEVEL_SYSTEM}\n\n{user}"


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    text = _text(doc)
    if doc["kind"] == "completion" and doc.get("answer_order"):  # a circular task's rotation
        return P.order_completion_answers(text, _rendering(doc), tuple(doc["answer_order"]))
    return text


def _text(doc: Mapping[str, Any]) -> str:
    kind = doc["kind"]
    if kind == "knowledge":
        if doc["probe"] == "mcq":
            opts = "".join(f"{k}. {v}\n" for k, v in doc["options"].items())
            return KNOWLEDGE_MCQ_PROMPT.format(app=doc["app"], category=doc["category"], question=doc["question"], options=opts)
        return KNOWLEDGE_BQ_PROMPT.format(app=doc["app"], category=doc["category"], question=doc["question"], statement=doc["statement"])
    if kind == "focused":
        return f"Respond with '{doc['expected']}'."  # the form of section 3.3.5's example
    if _rendering(doc) == "official":
        return official_prompt(doc)
    mode = doc["observation"]
    w, hh = _screen_size(doc) if mode not in TEXT_MODES else (0, 0)
    header, body = MODE_HEADERS[mode].format(w=w, h=hh), render_text(Hierarchy.from_file(doc["xml"]), mode, rendering="paper-prose")
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


# How "as written" (Original) answers of knowledge probing are read (task metadata ``knowledge_scoring``):
# ``official`` (default: the paper's Table 6 comes from knowledge_probing.py) compares the whole answer case-blind
# (gui_tasks.sphinx.official_parse: ``a`` right, `` A`` wrong; any probe answer but t/T counts as F);
# ``stripped`` is our earlier reading (whitespace stripped, exact upper-case A-D or T/F, anything else wrong).
KNOWLEDGE_SCORINGS = ("official", "stripped")
DEFAULT_KNOWLEDGE_SCORING = "official"


def score_knowledge(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    s = text.strip()
    official_reading = doc.get("knowledge_scoring", DEFAULT_KNOWLEDGE_SCORING) == "official"
    if doc["probe"] == "mcq":
        strict = s if s in "ABCD" and len(s) == 1 else None
        original = official_mcq_answer(text) if official_reading else strict
        m = _LETTER.search(s)
        repaired = strict or (m.group(1) if m else None)
    else:
        strict = s if s in ("T", "F") else None
        # the official reading always has a value; the format-error count still asks for the bare T/F
        original = official_tf_answer(text) if official_reading else strict
        m = _TF.search(s)
        repaired = strict or ({"t": "T", "true": "T", "yes": "T", "f": "F", "false": "F", "no": "F"}[m.group(1).lower()] if m else None)
    asked = ("A", "B", "C", "D") if doc["probe"] == "mcq" else ("T", "F")
    parsed = text.upper() in asked if official_reading else strict is not None
    return {"capability": doc["capability"], "probe": doc["probe"], "qid": doc["qid"], "status": _status(s, True if parsed else None),
            "correct": original == doc["answer"], "correct_repaired": repaired == doc["answer"], "predicted": repaired,
            "scoring": "official" if official_reading else "stripped", "answer": doc["answer"], "choices": list(asked),
            **circular_fields(doc)}


def score_completion(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    if _rendering(doc) == "official":
        # run_complete.py: YES = finished = "stop"; neither word counts as NO, as the official script counts it
        status, finished = judge_completion_official(text)
        pred = "stop" if finished else "continue"
        return {"task": doc["task"], "group": doc["group"], "answer": doc["answer"], "status": status,
                "correct": pred == doc["answer"], "correct_repaired": pred == doc["answer"], "predicted": pred, "rendering": "official",
                "choices": list(COMPLETION_LABELS), **circular_fields(doc)}
    s = text.strip()
    original = s.lower().strip(".\"'") if s.lower().strip(".\"'") in ("continue", "stop") else None
    m = _CS.findall(s)
    repaired = original or (m[-1].lower() if m else None)
    return {"task": doc["task"], "group": doc["group"], "answer": doc["answer"], "status": _status(s, original),
            "correct": original == doc["answer"], "correct_repaired": repaired == doc["answer"], "predicted": repaired,
            "rendering": "paper-prose", "choices": list(COMPLETION_LABELS), **circular_fields(doc)}


def _hits(doc: Mapping[str, Any], act: dict[str, Any] | None, h: Hierarchy) -> bool:
    """Same action type and, for element actions, the tap lands in the gold box (``GROUNDING_RULE``); text also
    needs the same message: exactly (official rendering, run_lowlevel.py's test) or stripped and
    case-insensitive (paper-prose). Element ids are those of the rendering that wrote the prompt."""
    rendering = _rendering(doc)
    if act is None or act["type"] != doc["gold_type"]:
        return False
    said, gold = str(act.get("text", "")), str(doc.get("gold_message") or "")
    if doc["gold_type"] == "text" and (said != gold if rendering == "official" else said.strip().lower() != gold.strip().lower()):
        return False
    box = doc.get("gold_box")
    if box is None:
        return True
    if "index" in act:
        ids = h.element_ids(rendering)
        if not 0 <= act["index"] < len(ids):
            return False
        x, y = center(h.nodes[ids[act["index"]]].box)
    else:
        x, y = act["point"]
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def score_grounding(doc: Mapping[str, Any], text: str) -> dict[str, Any]:
    """Original: the answer read by the rendering's parser (official: run_lowlevel.py's backticks and patterns);
    Repaired: the rule-based repair of the whole answer (REPAIR_PROTOCOL)."""
    h = Hierarchy.from_file(doc["xml"])
    if _rendering(doc) == "official":
        status, act = parse_official_action(text, by_point=doc["observation"] == "screenshot")
    else:
        status, act = parse_action(text)
    _rs, repaired = repair_action(text)
    return {"status": status, "correct": _hits(doc, act, h), "correct_repaired": _hits(doc, repaired, h),
            "predicted": format_action(repaired) if repaired else None, "rule": GROUNDING_RULE, "rendering": _rendering(doc)}


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
