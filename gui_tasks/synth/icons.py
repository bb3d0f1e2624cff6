"""Procedural icon library for icon-localization boards: common GUI icons and rarely seen symbols.

PSS seed section 3.3 places "visually distinctive and semantically unambiguous icons" from a
library of symbols "rarely encountered in common human-computer interaction" on desktop
wallpapers. Here every icon is drawn with PIL (nothing downloaded): the common ones reuse the
synthetic world's glyphs (``render._icon``), the uncommon ones are drawn below.
"""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

from gui_tasks.synth.render import _icon

# Glyphs the rest of the synthetic world uses: what GUI agents see every day.
COMMON: tuple[str, ...] = ("gear", "search", "plus", "trash", "share", "heart", "bell", "cart", "user", "play", "camera",
                           "globe", "home")
# Distinctive symbols that interfaces rarely show (the paper's "uncommon icons").
UNCOMMON: tuple[str, ...] = ("anchor", "hourglass", "trident", "infinity", "spiral", "atom", "snowflake", "crescent",
                             "crown", "ankh", "key", "lightning")
ICONS: tuple[str, ...] = COMMON + UNCOMMON
# Words used in the instruction.
NAMES: dict[str, str] = {"gear": "gear", "search": "magnifying glass", "plus": "plus", "trash": "trash can", "share": "share",
                         "heart": "heart", "bell": "bell", "cart": "shopping cart", "user": "person", "play": "play",
                         "camera": "camera", "globe": "globe", "home": "house", "anchor": "anchor", "hourglass": "hourglass",
                         "trident": "trident", "infinity": "infinity sign", "spiral": "spiral", "atom": "atom",
                         "snowflake": "snowflake", "crescent": "crescent moon", "crown": "crown", "ankh": "ankh",
                         "key": "key", "lightning": "lightning bolt"}
TILE_COLORS: tuple[tuple[int, int, int], ...] = ((231, 76, 60), (46, 134, 222), (39, 174, 96), (142, 68, 173), (243, 156, 18),
                                                 (22, 160, 133), (52, 73, 94), (211, 84, 0))
WHITE = (255, 255, 255)


def rarity(name: str) -> str:
    """``common`` or ``uncommon``."""
    if name in COMMON:
        return "common"
    if name in UNCOMMON:
        return "uncommon"
    raise ValueError(f"unknown icon {name!r}")


def _uncommon(d: ImageDraw.ImageDraw, name: str, box, color) -> None:
    x1, y1, x2, y2 = box
    cx, cy, r = (x1 + x2) / 2, (y1 + y2) / 2, min(x2 - x1, y2 - y1) / 2 - 3
    w = 3
    if name == "anchor":
        d.ellipse([cx - r * 0.2, cy - r, cx + r * 0.2, cy - r * 0.6], outline=color, width=2)
        d.line([(cx, cy - r * 0.6), (cx, cy + r * 0.9)], fill=color, width=w)
        d.line([(cx - r * 0.5, cy - r * 0.35), (cx + r * 0.5, cy - r * 0.35)], fill=color, width=w)
        d.arc([cx - r * 0.8, cy - r * 0.2, cx + r * 0.8, cy + r * 0.9], 20, 160, fill=color, width=w)
    elif name == "hourglass":
        d.polygon([(cx - r * 0.7, cy - r), (cx + r * 0.7, cy - r), (cx, cy), (cx + r * 0.7, cy + r), (cx - r * 0.7, cy + r), (cx, cy)],
                  outline=color)
        d.line([(cx - r * 0.8, cy - r), (cx + r * 0.8, cy - r)], fill=color, width=w)
        d.line([(cx - r * 0.8, cy + r), (cx + r * 0.8, cy + r)], fill=color, width=w)
        d.polygon([(cx - r * 0.35, cy + r * 0.9), (cx + r * 0.35, cy + r * 0.9), (cx, cy + r * 0.4)], fill=color)
    elif name == "trident":
        d.line([(cx, cy - r), (cx, cy + r)], fill=color, width=w)
        d.arc([cx - r * 0.7, cy - r * 1.3, cx + r * 0.7, cy + r * 0.1], 0, 180, fill=color, width=w)
        for px in (cx - r * 0.7, cx + r * 0.7):
            d.line([(px, cy - r * 0.6), (px, cy - r)], fill=color, width=w)
        d.polygon([(cx, cy - r * 1.05), (cx - r * 0.15, cy - r * 0.75), (cx + r * 0.15, cy - r * 0.75)], fill=color)
    elif name == "infinity":
        pts = [(cx + r * 0.95 * math.cos(t) / (1 + math.sin(t) ** 2), cy + r * 0.95 * math.sin(t) * math.cos(t) / (1 + math.sin(t) ** 2))
               for t in [k * 2 * math.pi / 60 for k in range(61)]]
        d.line(pts, fill=color, width=w)
    elif name == "spiral":
        pts = [(cx + r * (t / (6 * math.pi)) * math.cos(t), cy + r * (t / (6 * math.pi)) * math.sin(t))
               for t in [k * 6 * math.pi / 80 for k in range(81)]]
        d.line(pts, fill=color, width=2)
    elif name == "atom":
        for k in range(3):
            a = k * math.pi / 3
            pts = [(cx + r * math.cos(t) * math.cos(a) - r * 0.35 * math.sin(t) * math.sin(a),
                    cy + r * math.cos(t) * math.sin(a) + r * 0.35 * math.sin(t) * math.cos(a)) for t in [j * 2 * math.pi / 40 for j in range(41)]]
            d.line(pts, fill=color, width=2)
        d.ellipse([cx - 3, cy - 3, cx + 3, cy + 3], fill=color)
    elif name == "snowflake":
        for k in range(6):
            a = k * math.pi / 3
            ex, ey = cx + r * math.cos(a), cy + r * math.sin(a)
            d.line([(cx, cy), (ex, ey)], fill=color, width=2)
            mx, my = cx + r * 0.6 * math.cos(a), cy + r * 0.6 * math.sin(a)
            for s in (-1, 1):
                b = a + s * math.pi / 4
                d.line([(mx, my), (mx + r * 0.3 * math.cos(b), my + r * 0.3 * math.sin(b))], fill=color, width=2)
    elif name == "crescent":
        d.arc([cx - r, cy - r, cx + r, cy + r], 70, 290, fill=color, width=max(3, int(r * 0.45)))
    elif name == "crown":
        d.polygon([(cx - r, cy + r * 0.6), (cx - r, cy - r * 0.5), (cx - r * 0.5, cy), (cx, cy - r * 0.8), (cx + r * 0.5, cy),
                   (cx + r, cy - r * 0.5), (cx + r, cy + r * 0.6)], fill=color)
    elif name == "ankh":
        d.ellipse([cx - r * 0.4, cy - r, cx + r * 0.4, cy - r * 0.1], outline=color, width=w)
        d.line([(cx, cy - r * 0.1), (cx, cy + r)], fill=color, width=w)
        d.line([(cx - r * 0.7, cy + r * 0.1), (cx + r * 0.7, cy + r * 0.1)], fill=color, width=w)
    elif name == "key":
        d.ellipse([cx - r, cy - r * 0.45, cx - r * 0.1, cy + r * 0.45], outline=color, width=w)
        d.line([(cx - r * 0.1, cy), (cx + r, cy)], fill=color, width=w)
        for px in (cx + r * 0.55, cx + r * 0.85):
            d.line([(px, cy), (px, cy + r * 0.4)], fill=color, width=w)
    elif name == "lightning":
        d.polygon([(cx + r * 0.2, cy - r), (cx - r * 0.6, cy + r * 0.15), (cx - r * 0.05, cy + r * 0.15), (cx - r * 0.3, cy + r),
                   (cx + r * 0.6, cy - r * 0.2), (cx + r * 0.05, cy - r * 0.2)], fill=color)
    else:
        raise ValueError(f"unknown icon {name!r}")


def draw_icon(img: Image.Image, name: str, box: tuple[int, int, int, int], tile: tuple[int, int, int]) -> None:
    """An app-style icon: a rounded tile filling ``box`` with the white glyph ``name`` on it."""
    d = ImageDraw.Draw(img)
    x1, y1, x2, y2 = box
    d.rounded_rectangle(box, radius=max(4, (x2 - x1) // 5), fill=tile)
    pad = (x2 - x1) // 6
    inner = (x1 + pad, y1 + pad, x2 - pad, y2 - pad)
    if name in COMMON:
        _icon(d, name, inner, WHITE)
    else:
        _uncommon(d, name, inner, WHITE)


def wallpaper(width: int, height: int, rng: random.Random) -> Image.Image:
    """A desktop-like wallpaper: a diagonal two-colour gradient with a few soft translucent discs."""
    c1 = tuple(rng.randrange(20, 200) for _ in range(3))
    c2 = tuple(rng.randrange(40, 240) for _ in range(3))
    grad = Image.linear_gradient("L").rotate(rng.choice((0, 45, 90, 135)), expand=False).resize((width, height))
    img = Image.composite(Image.new("RGB", (width, height), c2), Image.new("RGB", (width, height), c1), grad)
    overlay = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(overlay)
    for _ in range(rng.randint(3, 6)):
        r = rng.randint(min(width, height) // 6, min(width, height) // 2)
        x, y = rng.randrange(width), rng.randrange(height)
        d.ellipse([x - r, y - r, x + r, y + r], fill=tuple(rng.randrange(256) for _ in range(3)) + (rng.randint(25, 70),))
    return Image.alpha_composite(img.convert("RGBA"), overlay).convert("RGB")
