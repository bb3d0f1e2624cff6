"""The synthetic GUI world's screens, element references and scripted multi-screen tasks that the synthetic questions
are drawn from (``gui_tasks.synth.questions``; seed section 3.2): regions and relations of elements, the references
that name them, random screens per content split, and the tasks replayed through ``scene.tap`` (RI/SI, AP).
"""

from __future__ import annotations

import random
from typing import Any

from gui_tasks.synth.splits import brand_split
from gui_tasks.synth.scene import (APPS, BRANDS, DELETABLE, DYNAMIC_ROWS, Element, Screen, checked_keys, page_rows,
                                    screen, tap)

# ("q", label) | ("icon", name) | ("plain", label) | ("switch"|"checkbox", row label) | ("steps", (action ref, ...))
# | ("pos", action key, row number) | (table, key[, inner ref])
Ref = tuple

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


def random_screen(rng: random.Random, rich: bool = False, split: str | None = None) -> Screen:
    """A random page of a random app in a random state; ``rich`` adds a brand (one of ``split``'s, when given) and
    dynamic row names and orders (MPR-GUI world)."""
    app = rng.choice(sorted(APPS))
    page = rng.choice(sorted(APPS[app]))
    keys = sorted({r.key for p in APPS[app].values() for r in p.rows if r.trailing in ("toggle", "checkbox", "heart")})
    state: dict[str, Any] = {k: rng.random() < 0.5 for k in keys}
    if app == "shop":
        state.update({f"cart_{k}": rng.random() < 0.4 for k in ("headphones", "backpack", "smart_watch")})
    if (app, page) in DELETABLE and any(state.values()) and rng.random() < 0.3:
        state["dialog"] = True
    if rich:
        state["brand"] = rng.choice([b for b in BRANDS[app] if split is None or brand_split(app, b) == split])
        for (a, p), names in DYNAMIC_ROWS.items():
            if a == app:
                picked = rng.sample(names, len(APPS[a][p].rows))
                state[f"rows_{p}"] = "|".join(sorted(picked) if a == "clock" else picked)
        for p, spec in sorted(APPS[app].items()):
            if len(spec.rows) > 1 and not spec.show_rows_if and app != "clock":  # alarms stay sorted by time
                state[f"order_{p}"] = ",".join(map(str, rng.sample(range(len(spec.rows)), len(spec.rows))))
    return screen(app, page, state)


# Correct interaction per role, and interactions that would also be defensible (never distractors).
INTERACTION_OF = {"toggle": "ia_toggle", "checkbox": "ia_check", "chevron": "ia_open", "input": "ia_type", "button": "ia_press",
                  "title": "ia_static"}
# WI asks about toggles, checkboxes, rows that open a page, inputs and titles (v5), whose five interactions exclude
# each other. Buttons are left out: "tap it once to perform its action" is also true of most other widgets, and
# keeping it out of their options (v4) made the option set itself tell the answer.


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
        key = {r.label: r.key for r in page_rows(spec[scr.page], scr.app, scr.page, dict(scr.state))}[scr.get(e.owner).label]
        out.append((_toggle_goal(scr.app, scr.get(e.owner).label, not e.state), {"key": key, "value": not e.state},
                    (("action", "act_tap", ref_of(scr, e)),)))
    for row in _unique(scr, [e for e in scr.elements if e.role == "row" and e.target]):
        sub = screen(scr.app, row.target, dict(scr.state))
        for t in _unique(sub, [t for t in sub.elements if t.role == "toggle"]):
            lab = sub.get(t.owner).label
            key = {r.label: r.key for r in page_rows(spec[row.target], scr.app, row.target, dict(scr.state))}[lab]
            if find(scr, ("switch", lab)) is None:  # otherwise the one-step plan is the shortest
                out.append((_toggle_goal(scr.app, lab, not t.state), {"key": key, "value": not t.state},
                            (("action", "act_tap", ref_of(scr, row)), ("action", "act_tap", ("switch", lab)))))
    if (scr.app, scr.page) in DELETABLE:
        checked = set(checked_keys(scr))
        for c in _unique(scr, [e for e in scr.elements if e.role == "checkbox"]):
            lab = scr.get(c.owner).label
            key = {r.label: r.key for r in page_rows(spec[scr.page], scr.app, scr.page, dict(scr.state))}[lab]
            if checked <= {key}:  # exactly this item ends up selected
                steps = () if key in checked else (("action", "act_tap", ("checkbox", lab)),)
                steps += (("action", "act_tap", ("icon", "trash")), ("action", "act_tap", ("q", "delete")))
                out.append((("goal", "goal_delete", ("q", lab)), {"key": f"gone_{key}", "value": True}, steps))
    return out


def _toggle_goal(app: str, label: str, on: bool) -> Ref:
    if app == "clock":
        return ("goal", "goal_alarm_on" if on else "goal_alarm_off", ("plain", label))
    return ("goal", "goal_on" if on else "goal_off", ("q", label))


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
