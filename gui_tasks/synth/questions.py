"""MPR-GUI-style four-option questions whose answers follow from the scene (seed section 3.2).

A question is built once, language-independently, from references into the i18n tables;
``localise`` turns it into text for one language. AEL answers come from true element
positions, REL from true relations, WF/WI from element roles, AU/AP from ``scene.tap``,
AP from action sequences checked by replaying them through ``scene.tap`` (seed Table 10),
RI/SI from scripted multi-screen tasks (SI: the sparse variant, first and last frame).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from gui_tasks.synth import i18n
from gui_tasks.synth.scene import APPS, DELETABLE, ICON_FUNCTIONS, Element, Screen, checked_keys, screen, tap

# ("q", label) | ("icon", name) | ("plain", label) | ("switch"|"checkbox", row label) | ("steps", (action ref, ...))
# | (table, key[, inner ref])
Ref = tuple
LETTERS = "ABCD"
TABLES = {"region": i18n.REGIONS, "relation": i18n.RELATIONS, "function": i18n.FUNCTIONS, "interaction": i18n.INTERACTIONS,
          "outcome": i18n.OUTCOMES, "action": i18n.ACTIONS, "goal": i18n.GOALS}


@dataclass(frozen=True)
class Question:
    """A language-independent question: frames, stem references, options, the answer's index."""

    dimension: str
    frames: tuple[tuple[Screen, str | None], ...]  # (screen, id of the element about to be tapped)
    stem: dict[str, Ref]
    options: tuple[Ref, ...]
    answer: int
    facts: dict[str, Any]  # what the answer was computed from (for tests and scene files)


def localise(ref: Ref, lang: str) -> str:
    """The text of a reference in ``lang``."""
    kind = ref[0]
    if kind == "q":
        return i18n.quoted(ref[1], lang)
    if kind == "icon":
        return i18n.ICON_NAMES[ref[1]][lang]
    if kind == "plain":
        return i18n.label(ref[1], lang)
    if kind in i18n.WIDGETS:
        return i18n.phrase(i18n.WIDGETS, kind, lang, x=i18n.quoted(ref[1], lang))
    if kind == "steps":
        return " → ".join(localise(step, lang) for step in ref[1])
    table, key, inner = TABLES[kind], ref[1], ref[2] if len(ref) > 2 else None
    fmt = {"x": localise(inner, lang)} if inner is not None else {}
    return i18n.phrase(table, key, lang, **fmt)


def stem_text(q: Question, lang: str) -> str:
    """The question stem of ``q`` in ``lang`` (no options)."""
    return i18n.QUESTIONS[q.dimension][lang].format(**{k: localise(v, lang) for k, v in q.stem.items()})


def option_text(q: Question, index: int, lang: str) -> str:
    """Option ``index`` (0 = A) of ``q`` in ``lang``."""
    return i18n.as_option(localise(q.options[index], lang))


# --- helpers ---------------------------------------------------------------------------


def _center(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def region_of(box, size=(360, 720)) -> str | None:
    """Screen third of the element's centre; None within 12 px of a third boundary (ambiguous)."""
    cx, cy = _center(box)
    w, h = size
    cols, rows = ("left", "center", "right"), ("top", "middle", "bottom")
    ci, ri = min(int(cx / (w / 3)), 2), min(int(cy / (h / 3)), 2)
    if any(abs(cx - k * w / 3) < 12 for k in (1, 2)) or any(abs(cy - k * h / 3) < 12 for k in (1, 2)):
        return None
    name = f"{rows[ri]}_{cols[ci]}"
    return {"middle_center": "center"}.get(name, name)


def relation_of(a, b) -> str | None:
    """Where box ``a`` is relative to box ``b``, when unambiguous (disjoint on one axis, overlapping on the other)."""
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    x_overlap, y_overlap = min(ax2, bx2) > max(ax1, bx1), min(ay2, by2) > max(ay1, by1)
    if x_overlap and ay2 <= by1:
        return "above"
    if x_overlap and ay1 >= by2:
        return "below"
    if y_overlap and ax2 <= bx1:
        return "left"
    if y_overlap and ax1 >= bx2:
        return "right"
    return None


def ref_of(scr: Screen, e: Element) -> Ref | None:
    """How a question names ``e``: its label (quoted), its row's switch/checkbox, or an unlabeled icon's shape."""
    if e.role == "toggle":
        return ("switch", scr.get(e.owner).label)
    if e.role == "checkbox":
        return ("checkbox", scr.get(e.owner).label)
    if e.role == "title":
        return ("title", e.label)
    if e.label and e.role in ("row", "button", "tab", "input"):
        return ("q", e.label)
    if e.role in ("icon", "back") and not e.owner:
        return ("icon", e.icon)
    return None


def _unique(scr: Screen, cands: list[Element]) -> list[Element]:
    """Elements not covered by a dialog whose reference names exactly one element on the screen."""
    refs = [ref_of(scr, e) for e in scr.elements]
    return [e for e in cands if scr.active(e) and ref_of(scr, e) is not None and refs.count(ref_of(scr, e)) == 1]


def find(scr: Screen, ref: Ref) -> Element | None:
    """The one active element that ``ref`` names on ``scr`` (None if none or several)."""
    hits = [e for e in scr.elements if scr.active(e) and ref_of(scr, e) == ref]
    return hits[0] if len(hits) == 1 else None


def _options(rng: random.Random, correct: Ref, pool: list[Ref], slot: int) -> tuple[tuple[Ref, ...], int] | None:
    distractors = [p for p in dict.fromkeys(pool) if p != correct]
    if len(distractors) < 3:
        return None
    picked = rng.sample(distractors, 3)
    opts = picked[:slot] + [correct] + picked[slot:]
    return tuple(opts), slot


def random_screen(rng: random.Random) -> Screen:
    app = rng.choice(sorted(APPS))
    page = rng.choice(sorted(APPS[app]))
    keys = sorted({r.key for p in APPS[app].values() for r in p.rows if r.trailing in ("toggle", "checkbox", "heart")})
    state: dict[str, Any] = {k: rng.random() < 0.5 for k in keys}
    if app == "shop":
        state.update({f"cart_{k}": rng.random() < 0.4 for k in ("headphones", "backpack", "smart_watch")})
    if (app, page) in DELETABLE and any(state.values()) and rng.random() < 0.3:
        state["dialog"] = True
    return screen(app, page, state)


# --- one generator per dimension ---------------------------------------------------------------


def q_ael(rng, scr, slot):
    cands = [e for e in _unique(scr, [e for e in scr.elements if e.role in ("icon", "back", "button", "tab", "input")])
             if region_of(e.box)]
    if not cands:
        return None
    e = rng.choice(cands)
    region = region_of(e.box)
    built = _options(rng, ("region", region), [("region", r) for r in i18n.REGIONS], slot)
    return built and Question("AEL", ((scr, None),), {"x": ref_of(scr, e)}, *built, {"element": e.id, "region": region})


def q_rel(rng, scr, slot):
    cands = _unique(scr, [e for e in scr.elements if e.role in ("row", "icon", "back", "button", "tab", "input")])
    pairs = [(a, b, relation_of(a.box, b.box)) for a in cands for b in cands if a is not b]
    pairs = [p for p in pairs if p[2]]
    if not pairs:
        return None
    a, b, rel = rng.choice(pairs)
    built = _options(rng, ("relation", rel), [("relation", r) for r in i18n.RELATIONS], slot)
    return built and Question("REL", ((scr, None),), {"x": ref_of(scr, a), "y": ref_of(scr, b)}, *built,
                              {"element": a.id, "reference": b.id, "relation": rel})


def q_wf(rng, scr, slot):
    cands = _unique(scr, [e for e in scr.elements if e.role in ("icon", "back") and not e.owner])
    if not cands:
        return None
    e = rng.choice(cands)
    fn = ICON_FUNCTIONS[e.icon]
    built = _options(rng, ("function", fn), [("function", f) for f in i18n.FUNCTIONS], slot)
    return built and Question("WF", ((scr, None),), {"x": ref_of(scr, e)}, *built, {"element": e.id, "function": fn})


# Correct interaction per role, and interactions that would also be defensible (never distractors).
INTERACTION_OF = {"toggle": "ia_toggle", "checkbox": "ia_check", "chevron": "ia_open", "input": "ia_type", "button": "ia_press",
                  "title": "ia_static"}
NOT_WRONG = {"ia_toggle": {"ia_press", "ia_check"}, "ia_check": {"ia_press", "ia_toggle", "ia_long"}, "ia_open": {"ia_press", "ia_long"},
             "ia_type": {"ia_press", "ia_long"}, "ia_press": {"ia_open", "ia_long"}, "ia_static": set()}


def q_wi(rng, scr, slot):
    cands = []
    for e in scr.elements:
        kind = e.role if e.role in ("toggle", "checkbox", "input", "title") else None
        if e.role == "row" and e.target:
            kind = "chevron"
        if e.role == "button":
            kind = "button"
        if kind:
            cands.append((e, kind))
    cands = [(e, k) for e, k in cands if e in _unique(scr, [e])]
    if not cands:
        return None
    e, kind = rng.choice(cands)
    ia = INTERACTION_OF[kind]
    pool = [("interaction", k) for k in i18n.INTERACTIONS if k not in NOT_WRONG[ia]]
    built = _options(rng, ("interaction", ia), pool, slot)
    return built and Question("WI", ((scr, None),), {"x": ref_of(scr, e)}, *built, {"element": e.id, "interaction": ia})


def _outcome_ref(scr: Screen, e: Element) -> Ref | None:
    page, state, outcome = tap(scr, e.id)
    if outcome in ("out_on", "out_off", "out_checked"):
        return ("outcome", outcome, ("q", scr.get(e.owner).label))
    if outcome == "out_open":
        return ("outcome", outcome, ("q", APPS[scr.app][page].title))
    if outcome == "out_keyboard":
        return ("outcome", outcome, ("q", e.label))
    if outcome in ("out_back", "out_dialog", "out_select_first", "out_deleted", "out_dialog_closed"):
        return ("outcome", outcome)
    if outcome == "out_added":
        return ("outcome", outcome, ("q", scr.get(e.owner).label))
    return None


def q_au(rng, scr, slot):
    cands = [e for e in _unique(scr, [e for e in scr.elements if e.role in ("toggle", "checkbox", "row", "back", "icon", "input", "button")])
             if _outcome_ref(scr, e) and not (e.role == "row" and not e.target)]
    if not cands:
        return None
    e = rng.choice(cands)
    correct = _outcome_ref(scr, e)
    pool = [("outcome", "out_error")]
    if correct[1] in ("out_on", "out_off"):
        pool.append(("outcome", "out_off" if correct[1] == "out_on" else "out_on", correct[2]))
    pool += [r for o in scr.elements if o is not e and o in _unique(scr, [o]) for r in [_outcome_ref(scr, o)] if r]
    pool += [("outcome", "out_open", ("q", p.title)) for p in APPS[scr.app].values() if p.title != scr.get("title").label]
    if (scr.app, scr.page) in DELETABLE:  # deleting without confirmation, or confirming when cancelling: subtle mistakes
        pool += [("outcome", o) for o in ("out_dialog", "out_select_first", "out_deleted", "out_dialog_closed")]
    built = _options(rng, correct, pool, slot)
    return built and Question("AU", ((scr, None),), {"x": ref_of(scr, e)}, *built, {"element": e.id, "outcome": correct[1]})


def perform(scr: Screen, steps: tuple[Ref, ...]) -> Screen | None:
    """Replay ``steps`` (("action", "act_tap"|"act_long", target ref)) from ``scr``; None if a target is not
    on the screen at that step. A long press changes nothing in this world (no context menus)."""
    for step in steps:
        el = find(scr, step[2])
        if el is None:
            return None
        if step[1] == "act_tap":
            page, state, _ = tap(scr, el.id)
            scr = screen(scr.app, page, state)
    return scr


def _goal_reached(goal: dict[str, Any], scr: Screen | None) -> bool:
    """Whether the final screen satisfies ``goal`` ({"key": state key, "value": wanted}, dialog closed)."""
    return scr is not None and not scr.modal and bool(dict(scr.state).get(goal["key"])) == goal["value"]


def _plans(scr: Screen) -> list[tuple[Ref, dict[str, Any], tuple[Ref, ...]]]:
    """(goal ref, goal predicate, shortest plan) for goals reachable in one to three taps from ``scr``."""
    if scr.modal:
        return []
    out = []
    spec = APPS[scr.app]
    for e in _unique(scr, [e for e in scr.elements if e.role == "toggle"]):
        key = {r.label: r.key for r in spec[scr.page].rows}[scr.get(e.owner).label]
        out.append((_toggle_goal(scr.app, scr.get(e.owner).label, not e.state), {"key": key, "value": not e.state},
                    (("action", "act_tap", ref_of(scr, e)),)))
    for row in _unique(scr, [e for e in scr.elements if e.role == "row" and e.target]):
        sub = screen(scr.app, row.target, dict(scr.state))
        for t in _unique(sub, [t for t in sub.elements if t.role == "toggle"]):
            lab = sub.get(t.owner).label
            key = {r.label: r.key for r in spec[row.target].rows}[lab]
            if find(scr, ("switch", lab)) is None:  # otherwise the one-step plan is the shortest
                out.append((_toggle_goal(scr.app, lab, not t.state), {"key": key, "value": not t.state},
                            (("action", "act_tap", ref_of(scr, row)), ("action", "act_tap", ("switch", lab)))))
    if (scr.app, scr.page) in DELETABLE:
        checked = set(checked_keys(scr))
        for c in _unique(scr, [e for e in scr.elements if e.role == "checkbox"]):
            lab = scr.get(c.owner).label
            key = {r.label: r.key for r in spec[scr.page].rows}[lab]
            if checked <= {key}:  # exactly this item ends up selected
                steps = () if key in checked else (("action", "act_tap", ("checkbox", lab)),)
                steps += (("action", "act_tap", ("icon", "trash")), ("action", "act_tap", ("q", "delete")))
                out.append((("goal", "goal_delete", ("q", lab)), {"key": f"gone_{key}", "value": True}, steps))
    return out


def _toggle_goal(app: str, label: str, on: bool) -> Ref:
    if app == "clock":
        return ("goal", "goal_alarm_on" if on else "goal_alarm_off", ("plain", label))
    return ("goal", "goal_on" if on else "goal_off", ("q", label))


def _plan_variants(scr: Screen, steps: tuple[Ref, ...]) -> list[tuple[Ref, ...]]:
    """Seed Table 10 distractors: wrong order, a missing step, a wrong target, a wrong action type."""
    out: list[tuple[Ref, ...]] = []
    if len(steps) > 1:
        out.append(tuple(reversed(steps)))
        out += [steps[:i] + steps[i + 1:] for i in range(len(steps))]
        out.append(steps[1:] + steps[:1])
    for i, (_, act, target) in enumerate(steps):
        out.append(steps[:i] + (("action", "act_long", target),) + steps[i + 1:])
    # wrong target: the same kind of widget elsewhere on the screen where that step happens
    cur: Screen | None = scr
    for i, step in enumerate(steps):
        if cur is None:
            break
        el = find(cur, step[2])
        if el is None:
            break
        same = [o for o in _unique(cur, [o for o in cur.elements if o.role == el.role and o is not el])]
        out += [steps[:i] + (("action", step[1], ref_of(cur, o)),) + steps[i + 1:] for o in same]
        cur = perform(cur, (step,))
    return out


def q_ap(rng, scr, slot):
    plans = _plans(scr)
    if not plans:
        return None
    goal, pred, steps = rng.choice(plans)
    variants = [v for v in dict.fromkeys(_plan_variants(scr, steps)) if v and v != steps and not _goal_reached(pred, perform(scr, v))]
    built = _options(rng, ("steps", steps), [("steps", v) for v in variants], slot)
    ids, cur = [], scr
    for step in steps:  # the element each step taps, for the scene file
        ids.append(find(cur, step[2]).id)
        cur = perform(cur, (step,))
    return built and Question("AP", ((scr, None),), {"goal": goal}, *built,
                              {"goal": goal[1], "goal_state": pred, "steps": steps, "tapped_ids": ids})


# Scripted tasks for RI/SI: (app, start page, taps by element id, goal, initial state).
TASKS: tuple[tuple[str, str, tuple[str, ...], Ref, dict], ...] = (
    ("settings", "root", ("row_bluetooth", "row_bluetooth_toggle"), ("goal", "goal_on", ("q", "bluetooth")), {"bt": False}),
    ("settings", "root", ("row_bluetooth", "row_bluetooth_toggle"), ("goal", "goal_off", ("q", "bluetooth")), {"bt": True}),
    ("settings", "root", ("row_wifi", "row_wifi_toggle"), ("goal", "goal_on", ("q", "wifi")), {"wifi": False}),
    ("settings", "root", ("row_wifi", "row_wifi_toggle"), ("goal", "goal_off", ("q", "wifi")), {"wifi": True}),
    ("settings", "root", ("row_display", "row_auto_rotate_toggle"), ("goal", "goal_on", ("q", "auto_rotate")), {"rotate": False}),
    ("settings", "root", ("row_battery", "row_battery_saver_toggle"), ("goal", "goal_on", ("q", "battery_saver")), {"saver": False}),
    ("settings", "root", ("row_sound", "row_vibrate_toggle"), ("goal", "goal_on", ("q", "vibrate")), {"vibrate": False}),
    ("shop", "home", ("row_headphones_button", "action_cart"), ("goal", "goal_add", ("q", "headphones")), {}),
    ("shop", "home", ("row_backpack_button", "action_cart"), ("goal", "goal_add", ("q", "backpack")), {}),
    ("clock", "alarms", ("action_plus", "input"), ("goal", "goal_new_alarm"), {}),
    ("browser", "start", ("action_gear", "row_block_popups_toggle"), ("goal", "goal_on", ("q", "block_popups")), {"popups": False}),
    ("browser", "start", ("action_gear", "row_save_passwords_toggle"), ("goal", "goal_off", ("q", "save_passwords")), {"passwords": True}),
    ("files", "root", ("row_photos_check", "action_trash", "dialog_delete"), ("goal", "goal_delete", ("q", "photos")), {}),
    ("notes", "list", ("row_ideas_check", "action_trash", "dialog_delete"), ("goal", "goal_delete", ("q", "ideas")), {}),
    ("notes", "list", ("action_plus", "input"), ("goal", "goal_new_note"), {}),
)
# Plausible wrong goals (seed Table 15: misinterpretations in the same app).
SIBLING_GOALS: dict[str, list[Ref]] = {
    "settings": [("goal", g, ("q", x)) for g in ("goal_on", "goal_off")
                 for x in ("bluetooth", "wifi", "auto_rotate", "battery_saver", "vibrate", "dark_mode", "airplane", "dnd")],
    "shop": [("goal", "goal_add", ("q", x)) for x in ("headphones", "backpack", "smart_watch")] + [("goal", "goal_open", ("q", "profile"))],
    "clock": [("goal", "goal_alarm_off", ("plain", t)) for t in ("07:00", "08:30")] + [("goal", "goal_new_note"), ("goal", "goal_open", ("plain", "timer"))],
    "notes": [("goal", "goal_new_alarm"), ("goal", "goal_open", ("q", "shopping_list")), ("goal", "goal_open", ("q", "ideas")),
              ("goal", "goal_delete", ("q", "meeting")), ("goal", "goal_delete", ("q", "shopping_list")), ("goal", "goal_new_note")],
    "browser": [("goal", g, ("q", x)) for g in ("goal_on", "goal_off") for x in ("block_popups", "save_passwords", "desktop_site")],
    "files": [("goal", "goal_delete", ("q", x)) for x in ("documents", "photos", "downloads")]
             + [("goal", "goal_open", ("q", "downloads"))],
}


def play(task, background: dict[str, Any] | None = None) -> list[tuple[Screen, str | None]]:
    """Run a scripted task: every screen, with the element tapped on it (None on the last).

    ``background`` sets the other switches of the app first (the task's own state wins).
    """
    return _play(task, background)[0]


def _play(task, background: dict[str, Any] | None = None) -> tuple[list[tuple[Screen, str | None]], list[str]]:
    app, page, taps, _, init = task
    scr = screen(app, page, {**(background or {}), **init})
    frames, outcomes = [], []
    for eid in taps:
        frames.append((scr, eid))
        page, state, outcome = tap(scr, eid)
        outcomes.append(outcome)
        scr = screen(app, page, state)
    frames.append((scr, None))
    return frames, outcomes


def random_background(task, rng: random.Random) -> dict[str, Any]:
    """Random states for the app's other switches, kept only if the task's taps still mean the same.

    Varying what the task does not touch gives many distinct sequences per scripted task,
    so large sets (``per_dimension`` > number of tasks) can be built.
    """
    keys = sorted({r.key for p in APPS[task[0]].values() for r in p.rows if r.trailing in ("toggle", "checkbox", "heart") and r.key}
                  - set(task[4]))
    background = {k: rng.random() < 0.5 for k in keys}
    try:
        same = _play(task, background)[1] == _play(task)[1]
    except KeyError:  # a tapped element does not exist in that state (e.g. no dialog without a selection)
        same = False
    return background if same else {}


def q_sequence(dimension: str) -> Callable:
    def make(rng, _scr, slot):
        task = rng.choice(TASKS)
        frames = play(task, random_background(task, rng))
        if dimension == "SI":
            frames = [frames[0], frames[-1]]
        goal = task[3]
        built = _options(rng, goal, SIBLING_GOALS[task[0]], slot)
        return built and Question(dimension, tuple(frames), {}, *built, {"task": [task[0], task[1], list(task[2])], "goal": goal[1]})

    return make


GENERATORS: dict[str, Callable] = {"AU": q_au, "AP": q_ap, "WF": q_wf, "WI": q_wi, "AEL": q_ael, "REL": q_rel,
                                   "RI": q_sequence("RI"), "SI": q_sequence("SI")}


def generate(dimension: str, n: int, rng: random.Random) -> list[Question]:
    """``n`` distinct questions; the i-th has its answer at letter i mod 4 (balanced over A-D)."""
    out: list[Question] = []
    seen: set = set()
    attempts = 0
    while len(out) < n:
        attempts += 1
        if attempts > 200 * n:
            raise RuntimeError(f"could not generate {n} distinct {dimension} questions")
        q = GENERATORS[dimension](rng, random_screen(rng), len(out) % 4)
        if not q:
            continue
        key = (tuple(s.key for s, _ in q.frames), repr(q.stem), q.options[q.answer])
        if key in seen:
            continue
        seen.add(key)
        out.append(q)
    return out


__all__ = ["Question", "generate", "localise", "stem_text", "option_text", "region_of", "relation_of", "ref_of", "find", "perform", "play", "TASKS"]
