"""Icon-localization boards (PSS seed section 3.3, Figure 2): icons on a wallpaper, one named target, every box known.

``build_icon_boards(root, seed=, n=)`` writes ``root/boards.jsonl`` (canonical grounding
documents, see ``gui_tasks.grounding.schema``) and ``root/images/board-XXXX.png``. Same seed
=> byte-identical files. ``load_or_build`` caches a set under
``cache_dir()/synth/icons-v<GENERATOR_VERSION>-seed<seed>-n<n>``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from gui_core.paths import cache_dir
from gui_tasks.synth.icons import ICONS, NAMES, TILE_COLORS, UNCOMMON, draw_icon, rarity, wallpaper
from gui_tasks.synth.cache import build_once

GENERATOR_VERSION = 1
WIDTH, HEIGHT = 640, 400  # a 16:10 desktop
ICON_SIZES = (36, 44, 52)
GRID_COLS, GRID_ROWS = 6, 4  # icons sit in jittered cells, so boxes never overlap
MIN_ICONS, MAX_ICONS = 6, 10
UNCOMMON_TARGET_SHARE = 0.5  # half the targets are uncommon symbols (the paper's harder case)
INSTRUCTION = "the {name} icon"


def _board(index: int, rng: random.Random, image_path: Path) -> dict:
    n = rng.randint(MIN_ICONS, MAX_ICONS)
    names = rng.sample(ICONS, n)
    want_uncommon = rng.random() < UNCOMMON_TARGET_SHARE
    candidates = [k for k, nm in enumerate(names) if (nm in UNCOMMON) == want_uncommon] or list(range(n))
    target = rng.choice(candidates)
    cells = rng.sample([(c, r) for c in range(GRID_COLS) for r in range(GRID_ROWS)], n)
    cw, ch = WIDTH // GRID_COLS, HEIGHT // GRID_ROWS
    img = wallpaper(WIDTH, HEIGHT, rng)
    elements = []
    for k, (name, (c, r)) in enumerate(zip(names, cells)):
        size = rng.choice(ICON_SIZES)
        x1 = c * cw + rng.randint(4, cw - size - 4)
        y1 = r * ch + rng.randint(4, ch - size - 4)
        box = [x1, y1, x1 + size, y1 + size]
        draw_icon(img, name, tuple(box), rng.choice(TILE_COLORS))
        elements.append({"name": name, "box": box, "rarity": rarity(name)})
    img.save(image_path, format="PNG", optimize=False)
    tgt = elements[target]
    return {
        "id": f"icon-synth-{index:04d}",
        "source": "synthetic",
        "instruction": INSTRUCTION.format(name=NAMES[tgt["name"]]),
        "image": str(image_path.resolve()),
        "width": WIDTH,
        "height": HEIGHT,
        "target_box": tgt["box"],
        "other_boxes": [e["box"] for k, e in enumerate(elements) if k != target],
        "split": tgt["rarity"],
        "meta": json.dumps({"target": tgt["name"], "elements": elements, "generator_version": GENERATOR_VERSION},
                           sort_keys=True),
    }


def build_icon_boards(root: Path, *, seed: int = 0, n: int = 40) -> Path:
    """Write ``n`` boards under ``root``; returns the JSONL path."""
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"icon-boards-{seed}")
    docs = [_board(i, rng, root / "images" / f"board-{i:04d}.png") for i in range(n)]
    path = root / "boards.jsonl"
    path.write_bytes("".join(json.dumps(d, sort_keys=True) + "\n" for d in docs).encode("utf-8"))
    return path


def set_name(seed: int, n: int) -> str:
    return f"icons-v{GENERATOR_VERSION}-seed{seed}-n{n}"


def _build_into(tmp: Path, final: Path, *, seed: int, n: int) -> None:
    build_icon_boards(tmp, seed=seed, n=n)
    # image paths are absolute: rewrite them to the final folder before the rename
    text = (tmp / "boards.jsonl").read_text(encoding="utf-8").replace(str(tmp.resolve()), str(final.resolve()))
    (tmp / "boards.jsonl").write_bytes(text.encode("utf-8"))


def load_or_build(seed: int = 0, n: int = 40, root: Path | None = None) -> Path:
    """The cached set's JSONL, built on first use; safe from several processes at once."""
    base = Path(root) if root is not None else cache_dir() / "synth"
    final = build_once(base, set_name(seed, n), lambda tmp, dest: _build_into(tmp, dest, seed=seed, n=n),
                       lambda dest: (dest / "boards.jsonl").is_file())
    return final / "boards.jsonl"
