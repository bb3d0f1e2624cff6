"""GUI Knowledge Bench questions whose answers follow from the synthetic world (seed sections 3.3-3.5).

Every answer is computed from the generator, never written by hand: control states from the
screen state, widget functions from ``ICON_FUNCTIONS``, layout from element boxes, action types and
parameters from the transition that produced the second screen (``scene.tap`` / ``long_press`` /
``type_text`` / ``scroll``), action effects by applying the action, goal completion from the last
screenshot that shows the goal's control, and plans by replaying each ordering. Questions are
language-independent; ``text`` localises their references. Interaction questions alternate between the
phone apps (``mobile``, four action types) and the desktop file manager of ``scene.DESKTOP_APPS``
(``desktop``, seven action types: single, double and right click, drag, hotkey, type, scroll).
Sets are drawn from one content split (``gui_tasks.synth.splits``) with options that do not tell the answer
(issue 22; ``generate``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from gui_core.actions import DESKTOP_CALLS, MOBILE_CALLS, Action, to_call
from gui_tasks.knowledge.marks import marks_for_action
from gui_tasks.synth import i18n
from gui_tasks.synth.questions import _title, _title_owner, distractor_kinds, localise
from gui_tasks.synth.world_refs import (TASKS, _goal_reached, _options, _plans, _unique, perform, play, random_background,
                                        random_screen, ref_of, relation_of)
from gui_tasks.synth.splits import EVAL, brand_split, check_split, owner_split, screen_split
from gui_tasks.synth.scene import (APPS, BRANDS, DESKTOP_APPS, FILE_NAMES, ICON_FUNCTIONS, LONG_PRESS_SELECT, MIN_SCROLL_ROWS, Element,
                                   Screen, state_key, desktop_click, double_click, drag, hotkey, long_press, right_click, screen,
                                   scroll, tap, type_text)

LETTERS = "ABCD"
LETTERS_ALL = "ABCDEFG"  # seven desktop action types
YES_NO = ("yes", "no", "unknown")
FRAME = "original_px"  # points are pixels of the rendered screenshot


@dataclass(frozen=True)
class KQuestion:
    """A language-independent question: screenshots, stems (plain and red-box), options, the answer."""

    subtask: str
    question_type: str  # "multiple_choice" | "yes_or_no"
    frames: tuple[Screen, ...]
    stem: tuple[str, dict[str, Any]] | None  # (KNOWLEDGE_QUESTIONS key | "goal", references)
    options: tuple[Any, ...]  # references, localised by ``text``; yes/no questions: YES_NO
    answer: str
    aug_stem: tuple[str, dict[str, Any]] | None = None  # the red-box stem; None: same as ``stem``
    option_frames: tuple[Screen, ...] = ()  # action effect: one screen per option
    action: str = ""  # effect: the action call; parameter: the call name
    marks: tuple[dict[str, Any], ...] = ()
    box: tuple[int, int, int, int] | None = None  # the red box of the augmented variant
    option_actions: tuple[str, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)
    platform: str = "mobile"  # "desktop" for the file manager's questions


def text(ref: Any, lang: str) -> str:
    """A reference in ``lang``: ("lit", s) verbatim, else ``localise``."""
    if ref[0] == "lit":
        return ref[1]
    return i18n.as_option(localise(ref, lang))


def stem_text(stem: tuple[str, dict[str, Any]] | None, lang: str) -> str:
    """The question text of a stem in ``lang``."""
    if stem is None:
        return ""
    key, refs = stem
    if key == "goal":
        return localise(refs["goal"], lang)
    fmt = {k: v[1] if v[0] == "lit" else localise(v, lang) for k, v in refs.items()}
    return i18n.KNOWLEDGE_QUESTIONS[key][lang].format(**fmt)


def looks(scr: Screen) -> str:
    """What the screenshot shows: the elements and the theme (state keys that draw nothing do not count)."""
    return json.dumps([e.to_json() for e in scr.elements], sort_keys=True) + str(bool(dict(scr.state).get("dark")))


def _center(e: Element) -> tuple[int, int]:
    x1, y1, x2, y2 = e.box
    return (x1 + x2) // 2, (y1 + y2) // 2


def _box_mark(e: Element) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = e.box
    return (x1 - 3, y1 - 3, x2 + 3, y2 + 3)


def _marks(action: Action, scr: Screen, label: str | None = None) -> list[dict[str, Any]]:
    return marks_for_action(action, scr.size, label)


# --- interface perception -------------------------------------------------------------------


def q_state(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    want = YES_NO[k % 3]
    if want == "unknown":
        # a switch or checkbox of another screen of the split (drawn as the yes/no ones are) that this screen does not
        # show: "unknown" stems come from the same distribution as the others, so no stem tells its answer (issue 22)
        other = random_screen(rng, rich=True, split=screen_split(scr))
        shown = {e.label for e in scr.elements if e.label}
        cands = [e for e in _unique(other, [e for e in other.elements if e.role in ("toggle", "checkbox")])
                 if other.get(e.owner).label not in shown]
        if not cands:
            return None
        e = rng.choice(cands)
        lab = other.get(e.owner).label
        stem = ("state_on" if e.role == "toggle" else "state_checked", {"x": ref_of(other, e)})
        return KQuestion("state", "yes_or_no", (scr,), stem, YES_NO, "unknown", aug_stem=stem, facts={"label": lab, "visible": False})
    cands = [e for e in _unique(scr, [e for e in scr.elements if e.role in ("toggle", "checkbox")]) if bool(e.state) == (want == "yes")]
    if not cands:
        return None
    e = rng.choice(cands)
    kind = "state_on" if e.role == "toggle" else "state_checked"
    # the red-box question names the element too: "unknown" questions cannot box what the screen does not show, so a
    # stem naming no element ("the switch in the red box") would have told "not unknown" without the screenshot
    stem = (kind, {"x": ref_of(scr, e)})
    return KQuestion("state", "yes_or_no", (scr,), stem, YES_NO, want, aug_stem=stem,
                     box=_box_mark(e), facts={"element": e.id, "state": bool(e.state)})


def items_widget(scr: Screen) -> list[tuple[str, KQuestion]]:
    """(answer kind, question without options) per icon: the stem names the screen by its title and the icon
    by its point (its name would echo its function: "the camera icon", "Opens the camera")."""
    out = []
    for e in scr.elements:
        if e.role in ("icon", "back") and not e.owner and scr.active(e) and e.icon in ICON_FUNCTIONS:
            fn = ICON_FUNCTIONS[e.icon]
            x, y = _center(e)
            stem = ("widget_at", {"t": _title(scr), "p": ("lit", f"{x}, {y}")})
            out.append((fn, KQuestion(
                "widget", "multiple_choice", (scr,), stem, (), "", aug_stem=("widget_box", {}), box=_box_mark(e),
                facts={"element": e.id, "function": fn})))
    return out


def _role(e: Element) -> str:
    return "icon" if e.role == "back" else e.role


def items_layout(scr: Screen) -> list[tuple[str, KQuestion]]:
    """(answer kind, question without options) per pair of uniquely named elements in a relation."""
    cands = _unique(scr, [e for e in scr.elements if e.role in ("row", "icon", "back", "button", "tab", "input")])
    out = []
    for a in cands:
        for b in cands:
            # same-role pairs only: "a row relative to an icon" is "below" on every screen (icons sit in the title bar),
            # which the names in the plain stem told without the screenshot
            rel = relation_of(a.box, b.box) if a is not b and _role(a) == _role(b) else None
            if rel:
                out.append((rel, KQuestion(
                    "layout", "multiple_choice", (scr,), ("layout", {"x": ref_of(scr, a), "y": ref_of(scr, b)}), (), "",
                    aug_stem=("layout_box", {"y": ref_of(scr, b)}),
                    box=_box_mark(a), facts={"element": a.id, "reference": b.id, "relation": rel})))
    return out


# --- interaction prediction -------------------------------------------------------------------


def element_at(scr: Screen, point: tuple[float, float]) -> Element | None:
    """The innermost active element under ``point`` (the status bar does not react)."""
    hits = [e for e in scr.elements if e.role != "status" and scr.active(e)
            and e.box[0] <= point[0] <= e.box[2] and e.box[1] <= point[1] <= e.box[3]]
    return min(hits, key=lambda e: ((e.box[2] - e.box[0]) * (e.box[3] - e.box[1]), e.id)) if hits else None


def is_desktop(scr: Screen) -> bool:
    return scr.app in DESKTOP_APPS


def apply(scr: Screen, action: Action) -> Screen:
    """The screen after ``action`` (points in pixels of ``scr``): the world's transition functions by action type."""
    kind = action.type
    if kind == "SCROLL":
        page, state, _ = scroll(scr, action.direction)
    elif kind == "TYPE":
        page, state, _ = type_text(scr, action.text)
    elif kind == "HOTKEY":
        page, state, _ = hotkey(scr, action.text)
    else:
        el = element_at(scr, action.point)
        if el is None:
            return scr
        if kind == "DRAG":
            dst = element_at(scr, action.end_point)
            if dst is None:
                return scr
            page, state, _ = drag(scr, el.id, dst.id)
        else:
            fn = {"CLICK": desktop_click if is_desktop(scr) else tap, "LONG_PRESS": long_press, "DOUBLE_CLICK": double_click,
                  "RIGHT_CLICK": right_click}[kind]
            page, state, _ = fn(scr, el.id)
    return screen(scr.app, page, state)


def transitions(scr: Screen, rng: random.Random) -> list[tuple[str, Action, Screen, dict[str, Any]]]:
    """(call name, action, next screen, facts) for every action that visibly changes ``scr`` on its platform."""
    cands: list[tuple[str, Action, dict[str, Any]]] = []
    for e in scr.elements:
        if not scr.active(e) or e.role in ("status", "title", "toast", "dialog", "menu"):
            continue
        at = _center(e)
        cands.append(("click", Action("CLICK", point=at, frame=FRAME), {"element": e.id}))
        if is_desktop(scr) and e.role == "row" and e.label in FILE_NAMES:
            cands.append(("left_double", Action("DOUBLE_CLICK", point=at, frame=FRAME), {"element": e.id}))
            cands.append(("right_single", Action("RIGHT_CLICK", point=at, frame=FRAME), {"element": e.id}))
            archive = next((a for a in scr.elements if a.role == "row" and a.label == "archive"), None)
            if archive is not None:
                cands.append(("drag", Action("DRAG", point=at, end_point=_center(archive), frame=FRAME), {"element": e.id}))
        if not is_desktop(scr) and (scr.app, scr.page) in LONG_PRESS_SELECT and e.role == "row":
            cands.append(("long_press", Action("LONG_PRESS", point=at, frame=FRAME), {"element": e.id}))
    if is_desktop(scr):
        cands.append(("hotkey", Action("HOTKEY", text="ctrl a"), {}))
    if any(e.role == "input" and scr.active(e) and not e.text for e in scr.elements):
        key = rng.choice(sorted(i18n.TYPED_TEXTS))  # a TYPED_TEXTS key: the renderer draws it in each language
        cands.append(("type", Action("TYPE", text=key), {"typed": key}))
    for direction in ("DOWN", "UP"):
        mid = (scr.size[0] // 2, scr.size[1] // 2)
        cands.append(("scroll", Action("SCROLL", point=mid, frame=FRAME, direction=direction), {"direction": direction}))
    out = []
    for name, action, facts in cands:
        nxt = apply(scr, action)
        if looks(nxt) != looks(scr):
            out.append((name, action, nxt, facts))
    return out


def random_desktop_screen(rng: random.Random, split: str = EVAL) -> Screen:
    """The file manager in a random state: some files moved away, a selection, a scrolled list, an open menu or the
    viewer; branded with one of ``split``'s brands (status bar and root title), which every transition keeps."""
    brand = rng.choice([b for b in BRANDS["explorer"] if brand_split("explorer", b) == split])
    if rng.random() < 0.1:
        return screen("explorer", "viewer", {"open_file": rng.choice(FILE_NAMES), "brand": brand})
    state: dict[str, Any] = {f"moved_{n}": True for n in rng.sample(FILE_NAMES, rng.randrange(3))}
    state["brand"] = brand
    left = [n for n in FILE_NAMES if f"moved_{n}" not in state]
    r = rng.random()
    if r < 0.3:
        state["selected"] = rng.choice(left)
    elif r < 0.4:
        state["all_selected"] = True
    elif r < 0.5:
        state["menu"] = state["selected"] = rng.choice(left)
    if rng.random() < 0.25 and len(left) + 1 >= MIN_SCROLL_ROWS:
        state["scroll"] = 2
    return screen("explorer", "root", state)


def call_text(action: Action, lang: str) -> str:
    """The action call in ``lang`` (typed content is language-bearing)."""
    if action.type == "TYPE":
        return to_call(Action("TYPE", text=i18n.TYPED_TEXTS[action.text][lang]))
    return to_call(action)


def q_effect(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    moves = transitions(scr, rng)
    if not moves:
        return None
    name, action, nxt, facts = rng.choice(moves)
    # distractors (seed section 3.4): the preceding screenshot and similar screens of the same app
    pool = {looks(scr): scr}
    for _, _, other, _ in moves:
        pool.setdefault(looks(other), other)
    pool.pop(looks(nxt), None)
    if len(pool) < 3:
        return None
    keys = sorted(pool)
    picked = [pool[x] for x in rng.sample(keys, 3)]
    slot = k % 4
    if scr not in picked:  # the unchanged screen is always among the options
        picked[rng.randrange(3)] = scr
    frames = picked[:slot] + [nxt] + picked[slot:]
    return KQuestion("effect", "multiple_choice", (scr,), None, tuple(("lit", "") for _ in frames), LETTERS[slot],
                     option_frames=tuple(frames), action=("call", action), marks=tuple(_marks(action, scr)),
                     facts={"call": name, **facts}, platform="desktop" if is_desktop(scr) else "mobile")


def q_type(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    calls = DESKTOP_CALLS if is_desktop(scr) else MOBILE_CALLS
    want = calls[(k // 2) % len(calls)]
    moves = [m for m in transitions(scr, rng) if m[0] == want]
    if not moves:
        return None
    name, action, nxt, facts = rng.choice(moves)
    return KQuestion("type", "multiple_choice", (scr, nxt), None, tuple(("lit", c) for c in calls),
                     LETTERS_ALL[calls.index(name)], option_actions=calls, facts={"call": name, **facts},
                     platform="desktop" if is_desktop(scr) else "mobile")


def _fmt_param(a: Action) -> tuple:
    """A point action's parameter as an option text, the way appendix A.3 writes it inside the call."""
    return ("lit", f"point='{a.point[0]} {a.point[1]}'")


POINT_CALLS = ("CLICK", "LONG_PRESS", "DOUBLE_CLICK", "RIGHT_CLICK")


def q_parameter(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    """Options without tells (issue 22): four actions of one call on the same screen, each leading to a different
    screen; which of them is right is drawn uniformly (the letter cycles), so every point is right about one time in
    four. Only point calls: the seed's typing, hotkey, drag and scroll distractors (section 3.4: typos, common
    shortcuts, reversed drags, other directions) are never right, a text-only tell, so the synthetic set leaves them out."""
    by_call: dict[str, dict[str, tuple[Action, Screen, dict[str, Any]]]] = {}
    for name, action, nxt, facts in transitions(scr, rng):
        if action.type in POINT_CALLS:
            by_call.setdefault(name, {}).setdefault(looks(nxt), (action, nxt, facts))
    calls = sorted(c for c, moves in by_call.items() if len({m[0].point for m in moves.values()}) == len(moves) >= 4)
    if not calls:
        return None
    name = rng.choice(calls)
    picked = rng.sample(sorted(by_call[name].values(), key=lambda m: m[0].point), 4)
    slot = k % 4
    action, nxt, facts = picked[slot]
    ordered = [m[0] for m in picked]
    opts = tuple(_fmt_param(a) for a in ordered)
    marks = [m for letter, a in zip(LETTERS, ordered) if a.point is not None for m in _marks(a, scr, letter)]
    return KQuestion("parameter", "multiple_choice", (scr, nxt), None, opts, LETTERS[slot], action=("lit", name),
                     marks=tuple(marks), facts={"call": name, **facts}, platform="desktop" if is_desktop(scr) else "mobile")


# --- instruction understanding -------------------------------------------------------------------

_TOGGLE_TASKS = [t for t in TASKS if len(t[4]) == 1]  # tasks whose goal is one switch's state


def _visible_state(scr: Screen, key: str) -> bool | None:
    """The state of the switch with state key ``key`` if ``scr`` shows it, else None."""
    for e in scr.elements:
        if e.role == "toggle" and scr.active(e) and state_key(scr, e) == key:
            return bool(e.state)
    return None


def q_goal(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    """``scr`` only names the split: the task runs in one of the split's brands of its app."""
    task = rng.choice(_TOGGLE_TASKS)
    split = screen_split(scr)
    brand = rng.choice([b for b in BRANDS[task[0]] if brand_split(task[0], b) == split])
    frames = [s for s, _ in play(task, {**random_background(task, rng), "brand": brand})]
    (key, initial), = task[4].items()
    want = YES_NO[k % 3]
    shown = {"yes": frames, "no": frames[:-1], "unknown": frames[:1]}[want]
    # the answer is read off the screenshots: the last one that shows the goal's switch decides
    seen = [v for v in (_visible_state(s, key) for s in shown) if v is not None]
    answer = "unknown" if not seen else ("yes" if seen[-1] == (not initial) else "no")
    if answer != want:
        return None
    return KQuestion("goal", "yes_or_no", tuple(shown), ("goal", {"goal": task[3]}), YES_NO, answer,
                     facts={"task": [task[0], task[1], list(task[2])], "goal": task[3][1], "frames": len(shown)})


def q_plan(rng: random.Random, scr: Screen, k: int) -> KQuestion | None:
    plans = _plans(scr)
    # Seed section 3.5 also asks short plans as yes/no questions on one ordering; the synthetic set leaves them out
    # (issue 22): "unknown" is never their answer, so "not the longest option" answered them without the screen.
    plans = [p for p in plans if len(p[2]) >= 3]
    if not plans:
        return None
    goal, pred, steps = rng.choice(plans)
    wrong = [p for p in itertools.permutations(steps) if p != steps and not _goal_reached(pred, perform(scr, p))]
    if len(wrong) < 3:
        return None
    built = _options(rng, ("steps", steps), [("steps", p) for p in wrong], k % 4)
    return built and KQuestion("plan", "multiple_choice", (scr,), ("plan_order", {"goal": goal}), built[0], LETTERS[built[1]],
                               facts={"goal": goal[1], "goal_state": pred, "steps": [s[2] for s in steps]})


GENERATORS: dict[str, Callable[[random.Random, Screen, int], KQuestion | None]] = {
    "state": q_state, "effect": q_effect, "type": q_type, "parameter": q_parameter, "goal": q_goal, "plan": q_plan,
}
# Sub-tasks whose answer is one of a fixed set of kinds (function, relation): options drawn kind-balanced.
ITEMS: dict[str, Callable[[Screen], list[tuple[str, KQuestion]]]] = {"widget": items_widget, "layout": items_layout}


def _screen_for(subtask: str, rng: random.Random, k: int, split: str = EVAL) -> Screen:
    if subtask in ("effect", "type", "parameter") and k % 2 == 1:  # every other interaction question is on the desktop
        return random_desktop_screen(rng, split)
    scr = random_screen(rng, rich=True, split=split)
    if subtask in ("effect", "type", "parameter") and rng.random() < 0.3:  # scrolled lists: scroll-up transitions too
        n = len(APPS[scr.app][scr.page].rows)
        if n >= MIN_SCROLL_ROWS:
            scr = screen(scr.app, scr.page, {**dict(scr.state), "scroll": 2})
    return scr


def owner(q: KQuestion) -> str | None:
    """The content key owning a question (its split is ``splits.owner_split`` of it); None when its screens own it.

    Layout: the question the tasks ask (red box, names the reference), so a reference seen in another split with its
    own mix of answers tells nothing; plan: its stem (the goal); widget: the screen title its plain question names.
    State and goal ask a few texts ("Is 'Wi-Fi' turned on in this screenshot?") of every split's screens with answers
    cycling yes/no/unknown, and effect, type and parameter have no question text: their screens own them.
    """
    if q.subtask == "layout":
        return f"gkb-layout|{q.aug_stem!r}"
    if q.subtask == "plan":
        return f"gkb-plan|{q.stem!r}"
    if q.subtask == "widget":
        return _title_owner("gkb-widget", q.frames[0])
    return None


def in_split(q: KQuestion, split: str) -> bool:
    """Every screen the question shows (options included) and its owner belong to ``split``."""
    key = owner(q)
    return (all(screen_split(s) == split for s in q.frames + q.option_frames)
            and (key is None or owner_split(key) == split))


def _key(q: KQuestion) -> str:
    """What a question asks and its right answer (screens, stem, action, the right option or option screen), not its
    distractors: two questions with the same key are one question, whichever options they offer."""
    right = (q.answer if q.question_type == "yes_or_no" else
             q.option_frames[LETTERS.index(q.answer)].key if q.option_frames else
             q.options[LETTERS_ALL.index(q.answer)] if q.options else None)
    return repr((tuple(s.key for s in q.frames), q.stem, q.action, right))


def generate(subtask: str, n: int, rng: random.Random, split: str = EVAL) -> list[KQuestion]:
    """``n`` distinct questions of one sub-task in content split ``split`` (``gui_tasks.synth.splits``).

    The i-th aims at answer i (letters mod 4, yes/no/unknown mod 3). Interaction questions alternate platforms (even i:
    mobile, odd i: desktop); action-type questions cycle through the platform's action types. Widget and layout
    options are kind-balanced (``_generate_balanced``). A question is kept only when its owner (its stem) and every
    screen it shows belong to ``split``, so no (question, answer) pair and no screen occurs in two splits.
    """
    check_split(split)
    if subtask in ITEMS:
        return _generate_balanced(subtask, n, rng, split)
    out: list[KQuestion] = []
    seen: set[str] = set()
    attempts = 0
    while len(out) < n:
        attempts += 1
        if attempts > 400 * n + 10_000:  # plan questions need a screen with a three-step plan: about 1 in 100
            raise RuntimeError(f"could not generate {n} distinct {subtask} questions in split {split!r}")
        q = GENERATORS[subtask](rng, _screen_for(subtask, rng, len(out), split), len(out))
        if not q or not in_split(q, split):
            continue
        key = _key(q)
        if key in seen:
            continue
        seen.add(key)
        out.append(q)
    return out


def _generate_balanced(subtask: str, n: int, rng: random.Random, split: str, max_screens: int = 20_000) -> list[KQuestion]:
    """Widget and layout (issue 22): answer kinds drawn in cycles over every kind the split offers, distractor kinds by
    ``questions.distractor_kinds``, so each option text is right about one time in four; letters cycle A-D."""
    need = n // 4 + 4
    by_kind: dict[str, dict[str, KQuestion]] = {}
    last_new = 0
    for drawn in range(max_screens):
        for kind, q in ITEMS[subtask](random_screen(rng, rich=True, split=split)):
            if in_split(q, split) and _key(q) not in by_kind.setdefault(kind, {}):
                by_kind[kind][_key(q)] = q
                last_new = drawn
        if drawn > 200 and by_kind and (min(len(v) for v in by_kind.values()) >= need or drawn - last_new > 300 + 10 * need):
            break
    kinds = sorted(k for k, v in by_kind.items() if v)
    if len(kinds) < 4:
        raise RuntimeError(f"split {split!r} offers {len(kinds)} {subtask} answer kinds, need 4")
    table = "function" if subtask == "widget" else "relation"
    unused = {k: rng.sample(sorted(v.values(), key=_key), len(v)) for k, v in sorted(by_kind.items())}
    right = dict.fromkeys(kinds, 0)
    wrong = dict.fromkeys(kinds, 0)
    out: list[KQuestion] = []
    cycle: list[str] = []
    while len(out) < n:
        if not any(unused.values()):
            raise RuntimeError(f"could not generate {n} distinct {subtask} questions in split {split!r}")
        if not cycle:
            cycle = rng.sample(kinds, len(kinds))
        kind = cycle.pop()
        if not unused[kind]:
            continue
        q = unused[kind].pop()
        slot = len(out) % 4
        right[kind] += 1
        picked = [(table, k) for k in distractor_kinds([k for k in kinds if k != kind], right, wrong, rng)]
        options = tuple(picked[:slot]) + ((table, kind),) + tuple(picked[slot:])
        out.append(dataclasses.replace(q, options=options, answer=LETTERS[slot]))
    return out
