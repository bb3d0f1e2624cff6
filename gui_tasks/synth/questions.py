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
from gui_tasks.synth.splits import check_split, owner_split, screen_split
from gui_tasks.synth.scene import ICON_FUNCTIONS, Element, Screen
# the world's references and scripted tasks (re-exported: the names of this module's __all__)
from gui_tasks.synth.world_refs import (INTERACTION_OF, TASKS, Ref, _goal_reached, _outcome_ref, _plans, _unique, find,
                                        perform, play, random_screen, ref_of, region_of, relation_of)

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
    template: str = ""  # key of the stem in i18n.QUESTIONS (default: the dimension)


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
    if kind == "pos":  # ("pos", action key, row number): a step named by where it is, not by its label
        return i18n.phrase(i18n.ACTIONS, ref[1], lang, n=str(ref[2]))
    table, key, inner = TABLES[kind], ref[1], ref[2] if len(ref) > 2 else None
    fmt = {"x": localise(inner, lang)} if inner is not None else {}
    return i18n.phrase(table, key, lang, **fmt)


def stem_text(q: Question, lang: str) -> str:
    """The question stem of ``q`` in ``lang`` (no options)."""
    return i18n.QUESTIONS[q.template or q.dimension][lang].format(**{k: localise(v, lang) for k, v in q.stem.items()})


def option_text(q: Question, index: int, lang: str) -> str:
    """Option ``index`` (0 = A) of ``q`` in ``lang``."""
    return i18n.as_option(localise(q.options[index], lang))


# --- generation: content splits and options without tells (issue 22) ---------------------------------------------
#
# Every question is owned by one split (``splits.split_of`` of its owner key) and shows only screens owned by that
# split. Single-screen dimensions are owned by their stem, so a stem never meets another split's answers; RI/SI
# (one constant stem) are owned by their answer goal. Answers are drawn kind-first: the set cycles through every answer
# kind the split offers, and distractor kinds are drawn uniformly from the same pool, so each option text is right
# about as often as it is wrong and the option set says nothing about which is right (the text-only baselines of
# benchmarks/bench_synth_baselines.py stay at chance). WF, WI and AU name their element by a red box drawn on the
# screenshot (and the screen by its title), AP names its steps by row position: the answer needs the screen.


@dataclass(frozen=True)
class Item:
    """A question before its distractors: answer kind, owner key, frames, stem, correct option."""

    kind: str
    owner: str
    frames: tuple[tuple[Screen, str | None], ...]
    stem: dict[str, Ref]
    correct: Ref
    facts: dict[str, Any]
    template: str = ""

    @property
    def key(self) -> tuple:
        return (tuple((s.key, m) for s, m in self.frames), repr(self.stem), self.correct)


BOX = "box:"  # frame marker prefix: a red box around the element (else the marker is the element about to be tapped)
EXCHANGEABLE = ("AU", "AP")  # distractors: the other answers on the same screen (Item.facts["others"])


def _title(scr: Screen) -> Ref:
    return ("q", scr.get("title").label)


def _title_owner(dimension: str, scr: Screen) -> str:
    """Owner of a stem naming the screen by its title: a brand title belongs to the brand's split."""
    title = scr.get("title").label
    if title == dict(scr.state).get("brand"):
        return f"brand|{scr.app}|{title}"
    return f"{dimension}|{_title(scr)!r}"


def items_ael(scr: Screen) -> list[Item]:
    cands = [e for e in scr.elements if e.role not in ("status", "dialog", "menu") and scr.active(e) and region_of(e.box)]
    return [Item(region_of(e.box), _title_owner("AEL", scr), ((scr, BOX + e.id),), {"t": _title(scr)}, ("region", region_of(e.box)),
                 {"element": e.id, "region": region_of(e.box)}, "AEL_box") for e in cands]


def items_rel(scr: Screen) -> list[Item]:
    cands = _unique(scr, [e for e in scr.elements if e.role in ("row", "icon", "back", "button", "tab", "input")])
    out = []
    for a in cands:
        for b in cands:
            rel = relation_of(a.box, b.box) if a is not b else None
            if rel:
                stem = {"x": ref_of(scr, a), "y": ref_of(scr, b)}
                out.append(Item(rel, f"REL|{stem!r}", ((scr, None),), stem, ("relation", rel),
                                {"element": a.id, "reference": b.id, "relation": rel}))
    return out


def items_wf(scr: Screen) -> list[Item]:
    cands = [e for e in scr.elements if e.role in ("icon", "back") and scr.active(e) and e.icon in ICON_FUNCTIONS]
    return [Item(ICON_FUNCTIONS[e.icon], _title_owner("WF", scr), ((scr, BOX + e.id),), {"t": _title(scr)},
                 ("function", ICON_FUNCTIONS[e.icon]), {"element": e.id, "function": ICON_FUNCTIONS[e.icon]}, "WF_box")
            for e in cands]


def items_wi(scr: Screen) -> list[Item]:
    out = []
    for e in scr.elements:
        kind = e.role if e.role in ("toggle", "checkbox", "input", "title") else None
        if e.role == "row" and e.target:
            kind = "chevron"
        if kind and scr.active(e):
            ia = INTERACTION_OF[kind]
            out.append(Item(ia, _title_owner("WI", scr), ((scr, BOX + e.id),), {"t": _title(scr)}, ("interaction", ia),
                            {"element": e.id, "interaction": ia}, "WI_box"))
    return out


def items_au(scr: Screen) -> list[Item]:
    """One item per element with an outcome; its distractors are the other elements' outcomes on the same screen, so
    the option set is the same whichever of its elements is in the red box (exchangeable)."""
    found = []
    for e in scr.elements:
        if not scr.active(e) or (e.role == "row" and not e.target) or (e.role == "checkbox" and e.state):
            continue  # rows without a page do nothing; unticking has no outcome phrase of its own
        correct = _outcome_ref(scr, e)
        if correct is not None:
            found.append((e, correct))
    refs = [c for _, c in found]
    found = [(e, c) for e, c in found if refs.count(c) == 1]  # an outcome two elements share names neither
    if len(found) < 4:
        return []
    return [Item("any", _title_owner("AU", scr), ((scr, BOX + e.id),), {"t": _title(scr)}, c,
                 {"element": e.id, "outcome": c[1], "others": [o for _, o in found if o != c]}, "AU_box")
            for e, c in found]


def _rows(scr: Screen) -> list[Element]:
    return [e for e in scr.elements if e.role == "row"]


def positional(scr: Screen, steps: tuple[Ref, ...]) -> tuple[Ref, ...] | None:
    """The steps named by row number on the screen where each happens ("Tap the switch in row 3"); None if a step
    cannot be named that way."""
    out: list[Ref] = []
    cur: Screen | None = scr
    for step in steps:
        el = find(cur, step[2]) if cur is not None else None
        if el is None:
            return None
        row = el if el.role == "row" else cur.get(el.owner) if el.owner and el.owner.startswith("row_") else None
        if row is not None:
            n = _rows(cur).index(row) + 1
            act = {"row": "act_row", "toggle": "act_row_switch", "checkbox": "act_row_check"}.get(el.role)
            if act is None:
                return None
            out.append(("pos", act, n))
        else:
            out.append(("action", "act_tap", step[2]))  # title-bar icons and dialog buttons: one of a kind
        cur = perform(cur, (step,))
    return tuple(out)


def items_ap(scr: Screen) -> list[Item]:
    """One item per goal reachable from ``scr``; the screen's other plans become its distractors (``Item.facts``)."""
    plans = []
    for goal, pred, steps in _plans(scr):
        pos = positional(scr, steps)
        if pos is not None:
            plans.append((goal, pred, steps, pos))
    texts = {p[3] for p in plans}
    if len(texts) < 4 or len(texts) != len(plans):
        return []
    out = []
    for goal, pred, steps, pos in plans:
        ids, cur = [], scr
        for step in steps:
            ids.append(find(cur, step[2]).id)
            cur = perform(cur, (step,))
        others = [("steps", p[3]) for p in plans if p[3] != pos]
        out.append(Item("any", _title_owner("AP", scr), ((scr, None),), {"t": _title(scr), "goal": goal}, ("steps", pos),
                        {"goal": goal[1], "goal_state": pred, "steps": steps, "tapped_ids": ids,
                         "others": others, "other_steps": {repr(p[3]): p[2] for p in plans if p[3] != pos}}, "AP_screen"))
    return out


def items_sequence(dimension: str) -> Callable[[Screen], list[Item]]:
    """RI (every frame, three or more) and SI (first and last frame) of the plans that start on ``scr``."""
    def make(scr: Screen) -> list[Item]:
        out = []
        for goal, pred, steps in _plans(scr):
            frames, cur = [], scr
            for step in steps:
                el = find(cur, step[2])
                frames.append((cur, el.id))
                cur = perform(cur, (step,))
            frames.append((cur, None))
            if not _goal_reached(pred, cur) or (dimension == "RI" and len(frames) < 3):
                continue
            if dimension == "SI":  # the sparse variant: first and last frame
                frames = [frames[0], frames[-1]]
            out.append(Item(repr(goal), f"GOAL|{goal!r}", tuple(frames), {}, goal,
                            {"goal": goal[1], "goal_state": pred, "taps": [m for _, m in frames if m]}))
        return out

    return make


ITEMS: dict[str, Callable[[Screen], list[Item]]] = {"AU": items_au, "AP": items_ap, "WF": items_wf, "WI": items_wi, "AEL": items_ael,
                                                    "REL": items_rel, "RI": items_sequence("RI"), "SI": items_sequence("SI")}


def _kind_ref(dimension: str, kind: str, item: Item, goals: dict[str, Ref]) -> Ref:
    """The option naming answer ``kind`` for ``item`` (a distractor when ``kind`` is not the item's)."""
    if dimension == "AEL":
        return ("region", kind)
    if dimension == "REL":
        return ("relation", kind)
    if dimension == "WF":
        return ("function", kind)
    if dimension == "WI":
        return ("interaction", kind)
    return goals[kind]


def catalogue(dimension: str, split: str, rng: random.Random, need: int, max_screens: int = 20_000) -> dict[str, list[Item]]:
    """Distinct items of ``split`` by answer kind, from random screens of the split, until every kind seen has
    ``need`` items, ``300 + 10 * need`` screens in a row added nothing new, or ``max_screens`` screens were drawn."""
    patience = 300 + 10 * need
    make = ITEMS[dimension]
    by_kind: dict[str, dict[tuple, Item]] = {}
    last_new = 0
    for drawn in range(max_screens):
        scr = random_screen(rng, rich=True, split=split)
        for it in make(scr):
            if owner_split(it.owner) == split and all(screen_split(s) == split for s, _ in it.frames):
                if it.key not in by_kind.setdefault(it.kind, {}):
                    by_kind[it.kind][it.key] = it
                    last_new = drawn
        if drawn > 200 and by_kind and (min(len(v) for v in by_kind.values()) >= need or drawn - last_new > patience):
            break
    return {k: list(v.values()) for k, v in sorted(by_kind.items())}


def distractor_kinds(pool: list[str], right: dict[str, int], wrong: dict[str, int], rng: random.Random) -> list[str]:
    """Three distractor kinds from ``pool`` (the answer kinds other than the right one), in random order: the kinds
    furthest below three wrong showings per right one first, so each option text is right 1 time in 4 (updates
    ``wrong``). Shared by the MPR-GUI and GUI Knowledge Bench generators."""
    chosen = sorted(pool, key=lambda k: (wrong[k] - 3 * right[k], rng.random()))[:3]
    for k in chosen:
        wrong[k] += 1
    return rng.sample(chosen, 3)


def generate(dimension: str, n: int, rng: random.Random, split: str = "eval") -> list[Question]:
    """``n`` distinct questions of ``split``; the i-th has its answer at letter i mod 4 (balanced over A-D), answer kinds
    cycle through every kind the split offers, distractor kinds are drawn uniformly from the same pool."""
    check_split(split)
    exchangeable = dimension in EXCHANGEABLE
    cat = catalogue(dimension, split, rng, need=n + 4 if exchangeable else n // 4 + 4)
    kinds = list(cat)
    if not exchangeable and len(kinds) < 4:
        raise RuntimeError(f"split {split!r} offers {len(kinds)} {dimension} answer kinds, need 4")
    goals = {it.kind: it.correct for items in cat.values() for it in items}
    unused = {k: rng.sample(v, len(v)) for k, v in cat.items()}
    right = dict.fromkeys(kinds, 0)
    wrong = dict.fromkeys(kinds, 0)
    out: list[Question] = []
    cycle: list[str] = []
    while len(out) < n:
        if not any(unused.values()):
            raise RuntimeError(f"could not generate {n} distinct {dimension} questions in split {split!r}")
        if not cycle:
            cycle = rng.sample(kinds, len(kinds))
        kind = cycle.pop()
        if not unused[kind]:
            continue
        it = unused[kind].pop()
        slot = len(out) % 4
        if exchangeable:
            picked = rng.sample(it.facts["others"], 3)
        else:
            right[kind] += 1
            pool = [k for k in kinds if k != kind]
            if len(pool) < 3:
                raise RuntimeError(f"split {split!r}: fewer than three {dimension} distractor kinds for {kind!r}")
            picked = [_kind_ref(dimension, k, it, goals) for k in distractor_kinds(pool, right, wrong, rng)]
        options = tuple(picked[:slot]) + (it.correct,) + tuple(picked[slot:])
        facts = {k: v for k, v in it.facts.items() if k not in ("others", "other_steps")}
        if dimension == "AP":
            facts["option_steps"] = [it.facts["other_steps"].get(repr(o[1]), it.facts["steps"]) for o in options]
        out.append(Question(dimension, it.frames, it.stem, options, slot, {**facts, "split": split, "owner": it.owner},
                            it.template))
    return out


__all__ = ["Question", "Item", "distractor_kinds", "ITEMS", "catalogue", "positional", "generate", "localise", "stem_text", "option_text", "region_of", "relation_of", "ref_of", "find", "perform", "play", "TASKS"]
