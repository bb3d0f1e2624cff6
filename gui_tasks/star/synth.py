"""The StaR state-control benchmark on the synthetic GUI world, in the six MPR-GUI languages.

Every pair is one rendered screen and one of its toggles or checkboxes, with the state known
from the scene: the positive instruction asks for the opposite state (gold: CLICK the toggle,
its box on the 0-1000 grid), the negative one for the state it already has (gold: COMPLETE),
as in StaR appendix A.1. Half of the pairs start with the toggle on, half off. The same
screens, toggles and states are used for every language (ids align across languages).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any, Sequence

from gui_core.action_match import STAR_STATE_CONTROL
from gui_core.family import default_agent
from gui_core.actions import Action
from gui_core.coords import Geometry, convert_box
from gui_core.languages import LANGS
from gui_core.paths import cache_dir
from gui_tasks.star.schema import action_to_json, validate_doc
from gui_tasks.synth import i18n
from gui_tasks.synth.cache import build_once
from gui_tasks.synth.render import render
from gui_tasks.synth.scene import APPS, Element, Screen, screen, state_key

GENERATOR_VERSION = 1
TOGGLE_ROLES = ("toggle", "checkbox")


def set_name(seed: int, pairs: int) -> str:
    return f"star-v{GENERATOR_VERSION}-seed{seed}-n{pairs}"


def toggle_pages() -> list[tuple[str, str]]:
    """Every (app, page) that shows at least one toggle or checkbox."""
    return sorted((app, page) for app, pages in APPS.items() for page, spec in pages.items()
                  if any(r.trailing in TOGGLE_ROLES for r in spec.rows))


def _instruction(scr: Screen, el: Element, want_on: bool, lang: str) -> str:
    if el.role == "checkbox":
        key, x = ("goal_check" if want_on else "goal_uncheck"), i18n.quoted(el.label, lang)
    elif scr.app == "clock":
        key, x = ("goal_alarm_on" if want_on else "goal_alarm_off"), i18n.label(el.label, lang)
    else:
        key, x = ("goal_on" if want_on else "goal_off"), i18n.quoted(el.label, lang)
    return i18n.as_option(i18n.phrase(i18n.GOALS, key, lang, x=x))


def _state_words(el: Element, on: bool) -> str:
    if el.role == "checkbox":
        return "Checked" if on else "Unchecked"
    return "Enabled" if on else "Disabled"  # the official annotation's words


def scenes(seed: int, pairs: int) -> list[tuple[Screen, Element]]:
    """``pairs`` (screen, target toggle) choices; the target is on in exactly the first half, in shuffled order."""
    if pairs < 2:
        raise ValueError(f"pairs must be >= 2 (one starting on, one off), got {pairs}")
    rng = random.Random(f"star-synth-v{GENERATOR_VERSION}:{seed}")
    pages = toggle_pages()
    wanted_on = [i < pairs // 2 for i in range(pairs)]
    rng.shuffle(wanted_on)
    out = []
    for on in wanted_on:
        for _ in range(100):
            app, page = rng.choice(pages)
            keys = sorted({r.key for p in APPS[app].values() for r in p.rows if r.trailing in TOGGLE_ROLES})
            state: dict[str, Any] = {k: rng.random() < 0.5 for k in keys}
            scr = screen(app, page, state)
            cands = [e for e in scr.elements if e.role in TOGGLE_ROLES]
            if not cands:
                continue
            target = rng.choice(cands)
            scr = screen(app, page, {**state, state_key(scr, target): on})  # the target's state is the balanced one
            out.append((scr, scr.get(target.id)))
            break
        else:  # pragma: no cover - every toggle page has a toggle in any state
            raise RuntimeError("no toggle screen found")
    return out


def build_docs(root: Path, final_root: Path, *, seed: int, pairs: int, langs: Sequence[str]) -> dict[str, list[dict]]:
    """Render the screens into ``root/images`` and return the canonical documents per language."""
    docs: dict[str, list[dict]] = {lang: [] for lang in langs}
    for k, (scr, el) in enumerate(scenes(seed, pairs)):
        on = bool(el.state)
        geo = Geometry.identity(*scr.size)
        box = [round(v, 3) for v in convert_box(el.box, "original_px", "grid1000", geo)]
        point = [round((box[0] + box[2]) / 2, 3), round((box[1] + box[3]) / 2, 3)]
        pid = f"synth-star-{k:04d}"
        for lang in langs:
            name = hashlib.sha1(scr.key.encode()).hexdigest()[:16] + ".png"
            img = root / "images" / lang / name
            if not img.exists():
                img.parent.mkdir(parents=True, exist_ok=True)
                render(scr, lang).save(img, format="PNG", compress_level=1)
            feature = i18n.label(el.label, lang)
            annotation = {"is_switch": True, "feature": feature, "state_before_action": _state_words(el, on),
                          "state_after_action": _state_words(el, not on),
                          "action_effect": f"The action changes {feature} from {_state_words(el, on)} to {_state_words(el, not on)}"}
            common = {"pair_id": pid, "images": [str(final_root / "images" / lang / name)], "image_width": scr.size[0],
                      "image_height": scr.size[1], "toggle_point": point, "toggle_box": box, "annotation": annotation,
                      "lang": lang, "source": "synthetic", "agent_family": default_agent("star").name, "match_rule": STAR_STATE_CONTROL.name,
                      "meta": json.dumps({"scene": scr.to_json(), "target": el.id, "seed": seed,
                                          "generator": f"star-synth-v{GENERATOR_VERSION}"}, sort_keys=True, ensure_ascii=False)}
            pos = {"id": f"{pid}:pos", "polarity": "positive", "instruction": _instruction(scr, el, not on, lang),
                   "gold": action_to_json(Action("CLICK", point=tuple(point), frame="grid1000")), **common}
            neg = {"id": f"{pid}:neg", "polarity": "negative", "instruction": _instruction(scr, el, on, lang),
                   "gold": action_to_json(Action("COMPLETE")), **common}
            for doc in (pos, neg):
                validate_doc(doc, file=str(final_root / f"{lang}.jsonl"), row=len(docs[lang]))
                docs[lang].append(doc)
    return docs


def _write(tmp: Path, final: Path, *, seed: int, pairs: int) -> None:
    for lang, docs in build_docs(tmp, final.resolve(), seed=seed, pairs=pairs, langs=LANGS).items():
        text = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs)
        (tmp / f"{lang}.jsonl").write_bytes(text.encode("utf-8"))


def load_or_build(seed: int = 0, pairs: int = 32, root: Path | None = None) -> dict[str, Path]:
    """The cached set (all six languages), built on first use; safe from several processes."""
    base = Path(root) if root is not None else cache_dir() / "synth"
    final = build_once(base, set_name(seed, pairs), lambda tmp, dest: _write(tmp, dest, seed=seed, pairs=pairs),
                       lambda dest: all((dest / f"{lang}.jsonl").is_file() for lang in LANGS))
    return {lang: final / f"{lang}.jsonl" for lang in LANGS}


# --- step-wise episodes (the agentic benchmarks' counterpart) --------------------------------------------

AGENTIC_VERSION = 2  # 2: target_box and judge_data fields (issue 27)
INTERACTIVE = ("back", "icon", "input", "row", "toggle", "checkbox", "button", "tab")


def agentic_set_name(seed: int, episodes: int) -> str:
    return f"star-agentic-v{AGENTIC_VERSION}-seed{seed}-n{episodes}"


def build_agentic_docs(root: Path, final_root: Path, *, seed: int, episodes: int, langs: Sequence[str]) -> dict[str, list[dict]]:
    """Episodes of the scripted synthetic tasks (random other switches): one document per step, COMPLETE last."""
    from gui_tasks.star.agentic import _step_doc
    from gui_tasks.synth.questions import localise
    from gui_tasks.synth.world_refs import TASKS, play, random_background

    rng = random.Random(f"star-agentic-v{AGENTIC_VERSION}:{seed}")
    docs: dict[str, list[dict]] = {lang: [] for lang in langs}
    for k in range(episodes):
        task = TASKS[k % len(TASKS)]
        frames = play(task, random_background(task, rng))
        for lang in langs:
            history: list = []
            goal = i18n.as_option(localise(task[3], lang))
            for i, (scr, tapped) in enumerate(frames):
                geo = Geometry.identity(*scr.size)
                name = hashlib.sha1(scr.key.encode()).hexdigest()[:16] + ".png"
                img = root / "images" / lang / name
                if not img.exists():
                    img.parent.mkdir(parents=True, exist_ok=True)
                    render(scr, lang).save(img, format="PNG", compress_level=1)
                if tapped is None:
                    gold = Action("COMPLETE")
                else:
                    x1, y1, x2, y2 = convert_box(scr.get(tapped).box, "original_px", "grid1000", geo)
                    gold = Action("CLICK", point=(round((x1 + x2) / 2, 3), round((y1 + y2) / 2, 3)), frame="grid1000")
                boxes = [convert_box(e.box, "original_px", "grid1000", geo) for e in scr.elements
                         if e.role in INTERACTIVE and scr.active(e)]
                image = str(final_root / "images" / lang / name)
                doc = _step_doc("synthetic", f"ep{k:04d}", i, goal, "", image, geo, gold, list(history), boxes,
                                {"task": [task[0], task[1], list(task[2])], "tapped": tapped, "seed": seed,
                                 "generator": f"star-agentic-v{AGENTIC_VERSION}"})
                docs[lang].append({**doc, "lang": lang})
                history.append((image, gold))
    return docs


def _write_agentic(tmp: Path, final: Path, *, seed: int, episodes: int) -> None:
    for lang, docs in build_agentic_docs(tmp, final.resolve(), seed=seed, episodes=episodes, langs=LANGS).items():
        text = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs)
        (tmp / f"{lang}.jsonl").write_bytes(text.encode("utf-8"))


def load_or_build_agentic(seed: int = 0, episodes: int = 15, root: Path | None = None) -> dict[str, Path]:
    """The cached step-wise episode set (all six languages), built on first use."""
    base = Path(root) if root is not None else cache_dir() / "synth"
    final = build_once(base, agentic_set_name(seed, episodes),
                       lambda tmp, dest: _write_agentic(tmp, dest, seed=seed, episodes=episodes),
                       lambda dest: all((dest / f"{lang}.jsonl").is_file() for lang in LANGS))
    return {lang: final / f"{lang}.jsonl" for lang in LANGS}
