"""Content splits of the synthetic GUI world: ``eval``, ``memory``, ``search``, ``train`` (issue 22).

Seeds do not separate content (the same screen and question come back under another seed), so
splits partition the content itself. Screens: every app of the MPR-GUI world comes in eight
brands (``scene.BRANDS``, drawn in the status bar and on the app's root page), two per split, so
no rendered screen occurs in two splits (the GUI Knowledge Bench's desktop file manager has eight brands too).
Questions: each question's owning content (its stem, or for RI/SI, whose stem is constant, its answer goal;
GUI-KB: ``knowledge_questions.owner``) belongs to one split by a keyed hash. A
question is generated for split S only when its owner and every frame it shows belong to S, so
no (question, correct answer) pair occurs in two splits. Seeds vary the draw inside a split.
"""

from __future__ import annotations

import hashlib

SPLITS = ("eval", "memory", "search", "train")
# Which split each use reads (docs/synthetic_world.md): synthetic tasks evaluate ``eval``; GUI-XLI builds its
# memory on ``memory`` and runs its layer/strength search (and t-SNE) on ``search``; text-only baselines fit on ``train``.
EVAL, MEMORY, SEARCH, TRAIN = SPLITS


def check_split(split: str) -> str:
    """``split`` if it is one of ``SPLITS``; ValueError naming the choices otherwise."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {SPLITS}")
    return split


def split_of(key: str) -> str:
    """The split owning a content key (stable across runs, platforms and languages)."""
    digest = hashlib.sha256(f"gui-eval-synth-split:{key}".encode("utf-8")).digest()
    return SPLITS[digest[0] % len(SPLITS)]


def brand_split(app: str, brand: str) -> str:
    """The split owning an app brand: ``scene.BRANDS[app]`` in order, round robin over ``SPLITS``."""
    from gui_tasks.synth.scene import BRANDS

    return SPLITS[BRANDS[app].index(brand) % len(SPLITS)]


def screen_split(scr) -> str:
    """The split owning a screen of the MPR-GUI world: its brand's (screens without a brand: by their key)."""
    brand = dict(scr.state).get("brand")
    return brand_split(scr.app, brand) if brand else split_of(f"screen|{scr.key}")


def owner_split(owner: str) -> str:
    """The split owning a question's owner key: ``brand|<app>|<brand>`` by the brand, anything else by its hash."""
    if owner.startswith("brand|"):
        _, app, brand = owner.split("|", 2)
        return brand_split(app, brand)
    return split_of(owner)
