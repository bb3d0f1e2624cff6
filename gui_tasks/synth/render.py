"""Draws a ``Screen`` in one language with PIL: the same boxes in every language."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from gui_tasks.synth.fonts import font, runs
from gui_tasks.synth.i18n import TYPED_TEXTS
from gui_tasks.synth.i18n import label as tr
from gui_tasks.synth.scene import Element, Screen

LIGHT = {"bg": (248, 248, 250), "fg": (28, 28, 30), "muted": (142, 142, 147), "line": (224, 224, 228), "card": (255, 255, 255)}
DARK = {"bg": (18, 18, 20), "fg": (235, 235, 240), "muted": (150, 150, 158), "line": (56, 56, 60), "card": (30, 30, 34)}
ACCENT, ON, OFF, RED = (10, 122, 255), (52, 199, 89), (200, 200, 206), (230, 40, 40)
SELECTED = (196, 222, 255)  # a row selected by a long press


def typed(text: str, lang: str) -> str:
    """Typed text as drawn: a ``TYPED_TEXTS`` key in ``lang``, anything else verbatim."""
    return TYPED_TEXTS[text][lang] if text in TYPED_TEXTS else text


def text_width(text: str, size: int) -> int:
    return int(sum(font(i, size).getlength(s) for i, s in runs(text)))


def fit(text: str, size: int, width: int) -> str:
    """``text`` truncated with an ellipsis to ``width`` pixels (layout never depends on text)."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


Log = list  # of (font index, text run) actually drawn, for glyph-coverage checks


def draw_text(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill, anchor: str = "lm",
              log: Log | None = None) -> None:
    """Draw ``text`` run by run with the font that covers each character (runs appended to ``log``)."""
    x, y = xy
    if anchor[0] == "m":
        x -= text_width(text, size) / 2
    for idx, part in runs(text):
        if log is not None:
            log.append((idx, part))
        f = font(idx, size)
        d.text((x, y), part, font=f, fill=fill, anchor="l" + anchor[1])
        x += f.getlength(part)


def _icon(d: ImageDraw.ImageDraw, name: str, box, color, filled: bool = False) -> None:
    x1, y1, x2, y2 = box
    cx, cy, r = (x1 + x2) / 2, (y1 + y2) / 2, min(x2 - x1, y2 - y1) / 2 - 3
    w = 2
    if name == "gear":
        for k in range(8):
            a = k * math.pi / 4
            d.line([(cx + r * 0.6 * math.cos(a), cy + r * 0.6 * math.sin(a)), (cx + r * math.cos(a), cy + r * math.sin(a))], fill=color, width=4)
        d.ellipse([cx - r * 0.65, cy - r * 0.65, cx + r * 0.65, cy + r * 0.65], outline=color, width=w)
        d.ellipse([cx - r * 0.25, cy - r * 0.25, cx + r * 0.25, cy + r * 0.25], outline=color, width=w)
    elif name == "search":
        d.ellipse([cx - r * 0.8, cy - r * 0.8, cx + r * 0.3, cy + r * 0.3], outline=color, width=w)
        d.line([(cx + r * 0.2, cy + r * 0.2), (cx + r, cy + r)], fill=color, width=3)
    elif name == "plus":
        d.line([(cx - r, cy), (cx + r, cy)], fill=color, width=3)
        d.line([(cx, cy - r), (cx, cy + r)], fill=color, width=3)
    elif name == "trash":
        d.rectangle([cx - r * 0.6, cy - r * 0.5, cx + r * 0.6, cy + r], outline=color, width=w)
        d.line([(cx - r, cy - r * 0.6), (cx + r, cy - r * 0.6)], fill=color, width=w)
        d.rectangle([cx - r * 0.25, cy - r, cx + r * 0.25, cy - r * 0.6], outline=color, width=w)
    elif name == "share":
        pts = [(cx + r * 0.7, cy - r * 0.7), (cx - r * 0.7, cy), (cx + r * 0.7, cy + r * 0.7)]
        d.line([pts[0], pts[1], pts[2]], fill=color, width=w)
        for px, py in pts:
            d.ellipse([px - 4, py - 4, px + 4, py + 4], fill=color)
    elif name == "heart":
        poly = [(cx + r * 16 * math.sin(t) ** 3 / 17, cy - r * (13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)) / 17)
                for t in [k * 2 * math.pi / 40 for k in range(40)]]
        d.polygon(poly, fill=RED if filled else None, outline=RED if filled else color)
    elif name == "bell":
        d.pieslice([cx - r * 0.8, cy - r, cx + r * 0.8, cy + r * 0.9], 180, 360, outline=color, width=w)
        d.rectangle([cx - r * 0.8, cy - r * 0.05, cx + r * 0.8, cy + r * 0.55], outline=color, width=w)
        d.ellipse([cx - 3, cy + r * 0.6, cx + 3, cy + r * 0.6 + 6], fill=color)
    elif name == "back":
        d.line([(cx + r * 0.4, cy - r * 0.8), (cx - r * 0.4, cy), (cx + r * 0.4, cy + r * 0.8)], fill=color, width=3)
    elif name == "chevron":
        d.line([(cx - 3, cy - 6), (cx + 3, cy), (cx - 3, cy + 6)], fill=color, width=2)
    elif name == "cart":
        d.line([(cx - r, cy - r * 0.8), (cx - r * 0.6, cy - r * 0.8), (cx - r * 0.3, cy + r * 0.4), (cx + r * 0.8, cy + r * 0.4),
                (cx + r, cy - r * 0.4), (cx - r * 0.5, cy - r * 0.4)], fill=color, width=w)
        for px in (cx - r * 0.2, cx + r * 0.6):
            d.ellipse([px - 3, cy + r * 0.6, px + 3, cy + r * 0.6 + 6], fill=color)
    elif name == "user":
        d.ellipse([cx - r * 0.4, cy - r, cx + r * 0.4, cy - r * 0.2], outline=color, width=w)
        d.arc([cx - r * 0.8, cy - r * 0.05, cx + r * 0.8, cy + r * 1.4], 180, 360, fill=color, width=w)
    elif name == "play":
        d.polygon([(cx - r * 0.5, cy - r * 0.8), (cx - r * 0.5, cy + r * 0.8), (cx + r * 0.8, cy)], fill=color)
    elif name == "camera":
        d.rounded_rectangle([cx - r, cy - r * 0.55, cx + r, cy + r * 0.8], radius=3, outline=color, width=w)
        d.rectangle([cx - r * 0.35, cy - r * 0.85, cx + r * 0.35, cy - r * 0.55], fill=color)
        d.ellipse([cx - r * 0.42, cy - r * 0.28, cx + r * 0.42, cy + r * 0.56], outline=color, width=w)
    elif name == "globe":
        d.ellipse([cx - r, cy - r, cx + r, cy + r], outline=color, width=w)
        d.ellipse([cx - r * 0.45, cy - r, cx + r * 0.45, cy + r], outline=color, width=1)
        d.line([(cx - r, cy), (cx + r, cy)], fill=color, width=1)
    elif name == "home":
        d.polygon([(cx, cy - r), (cx - r, cy - r * 0.1), (cx + r, cy - r * 0.1)], outline=color)
        d.rectangle([cx - r * 0.7, cy - r * 0.1, cx + r * 0.7, cy + r], outline=color, width=w)
    elif name == "doc":
        d.polygon([(cx - r * 0.6, cy - r), (cx + r * 0.3, cy - r), (cx + r * 0.7, cy - r * 0.6), (cx + r * 0.7, cy + r),
                   (cx - r * 0.6, cy + r)], outline=color)
        for k in (-0.3, 0.1, 0.5):
            d.line([(cx - r * 0.35, cy + r * k), (cx + r * 0.45, cy + r * k)], fill=color, width=1)
    elif name == "folder":
        d.polygon([(cx - r, cy - r * 0.6), (cx - r * 0.2, cy - r * 0.6), (cx, cy - r * 0.35), (cx + r, cy - r * 0.35), (cx + r, cy + r * 0.8),
                   (cx - r, cy + r * 0.8)], outline=color, fill=None)
    else:
        raise ValueError(f"unknown icon {name!r}")


def render(scr: Screen, lang: str, tap_marker: Element | None = None, log: Log | None = None,
           box_marker: Element | None = None) -> Image.Image:
    """The screenshot of ``scr`` in ``lang``; ``tap_marker`` circles the element about to be tapped, ``box_marker``
    draws a red box around the element a question asks about.

    Every text run drawn is appended to ``log`` as (font index, text), if given.
    """
    theme = DARK if dict(scr.state).get("dark") else LIGHT
    img = Image.new("RGB", scr.size, theme["bg"])
    d = ImageDraw.Draw(img)
    for e in scr.elements:
        if e.role == "dialog":  # dim everything behind the dialog
            img.paste(Image.blend(img, Image.new("RGB", img.size, (0, 0, 0)), 0.45))
            d = ImageDraw.Draw(img)
        _element(d, e, lang, theme, log)
    if tap_marker is not None:
        x1, y1, x2, y2 = tap_marker.box
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        d.ellipse([cx - 14, cy - 14, cx + 14, cy + 14], outline=RED, width=3)
    if box_marker is not None:
        x1, y1, x2, y2 = box_marker.box
        d.rectangle([x1 - 2, y1 - 2, x2 + 2, y2 + 2], outline=RED, width=3)
    return img


def _element(d: ImageDraw.ImageDraw, e: Element, lang: str, t: dict, log: Log | None) -> None:
    x1, y1, x2, y2 = e.box
    cy = (y1 + y2) / 2
    if e.role == "status":
        draw_text(d, (14, cy), "9:41", 13, t["fg"], log=log)
        if e.label:  # the app's brand (MPR-GUI screens), centred
            draw_text(d, ((x1 + x2) / 2, cy), fit(tr(e.label, lang), 12, 160), 12, t["muted"], anchor="mm", log=log)
        d.rectangle([x2 - 38, cy - 6, x2 - 14, cy + 6], outline=t["fg"], width=1)
        d.rectangle([x2 - 36, cy - 4, x2 - 22, cy + 4], fill=t["fg"])
    elif e.role == "title":
        draw_text(d, ((x1 + x2) / 2, cy), fit(tr(e.label, lang), 20, x2 - x1), 20, t["fg"], anchor="mm", log=log)
    elif e.role in ("back", "icon") and not e.owner:
        _icon(d, e.icon, e.box, ACCENT)
    elif e.role == "icon":
        _icon(d, e.icon, e.box, t["muted"], filled=bool(e.state))
    elif e.role == "input":
        d.rounded_rectangle(e.box, radius=10, fill=t["card"], outline=t["line"])
        _icon(d, "search", (x1 + 6, y1 + 8, x1 + 30, y2 - 8), t["muted"])
        if e.text:  # typed text replaces the placeholder
            draw_text(d, (x1 + 36, cy), fit(typed(e.text, lang), 16, x2 - x1 - 48), 16, t["fg"], log=log)
        else:
            draw_text(d, (x1 + 36, cy), fit(tr(e.label, lang), 16, x2 - x1 - 48), 16, t["muted"], log=log)
    elif e.role == "row":
        d.rectangle(e.box, fill=SELECTED if e.state else t["card"])
        d.line([(16, y2 - 1), (x2, y2 - 1)], fill=t["line"])
        x = 16
        if e.icon:
            d.ellipse([16, cy - 16, 48, cy + 16], fill=t["line"])
            _icon(d, e.icon, (16, cy - 16, 48, cy + 16), t["fg"])
            x = 60
        # Trailing widgets occupy at most 124 px on the right (see scene.screen).
        draw_text(d, (x, cy), fit(tr(e.label, lang), 17, x2 - x - 140), 17, t["fg"], log=log)
    elif e.role == "toggle":
        d.rounded_rectangle(e.box, radius=(y2 - y1) // 2, fill=ON if e.state else OFF)
        kx = x2 - 14 if e.state else x1 + 14
        d.ellipse([kx - 12, cy - 12, kx + 12, cy + 12], fill=(255, 255, 255))
    elif e.role == "checkbox":
        d.rounded_rectangle(e.box, radius=4, outline=ACCENT, width=2, fill=ACCENT if e.state else None)
        if e.state:
            d.line([(x1 + 5, cy), (x1 + 10, y2 - 6), (x2 - 5, y1 + 6)], fill=(255, 255, 255), width=3)
    elif e.role == "button":
        d.rounded_rectangle(e.box, radius=10, fill=RED if e.label == "delete" else ACCENT)
        draw_text(d, ((x1 + x2) / 2, cy), fit(tr(e.label, lang), 15, x2 - x1 - 12), 15, (255, 255, 255), anchor="mm", log=log)
    elif e.role == "text" and e.icon:
        _icon(d, e.icon, e.box, t["muted"])
    elif e.role == "toast":
        d.rounded_rectangle(e.box, radius=12, fill=(60, 60, 64))
        draw_text(d, ((x1 + x2) / 2, cy), fit(tr(e.label, lang), 14, x2 - x1 - 16), 14, (255, 255, 255), anchor="mm", log=log)
    elif e.role == "menu":
        d.rounded_rectangle([x1 + 3, y1 + 3, x2 + 3, y2 + 3], radius=8, fill=(0, 0, 0))  # shadow
        d.rounded_rectangle(e.box, radius=8, fill=t["card"], outline=t["line"])
    elif e.role == "menuitem":
        draw_text(d, (x1 + 12, cy), fit(tr(e.label, lang), 15, x2 - x1 - 16), 15, t["fg"], log=log)
    elif e.role == "dialog":
        d.rounded_rectangle(e.box, radius=16, fill=t["card"])
        draw_text(d, ((x1 + x2) / 2, y1 + 48), fit(tr(e.label, lang), 17, x2 - x1 - 24), 17, t["fg"], anchor="mm", log=log)
    elif e.role == "tab":
        color = ACCENT if e.state else t["muted"]
        d.line([(x1, y1), (x2, y1)], fill=t["line"])
        _icon(d, e.icon, ((x1 + x2) / 2 - 12, y1 + 6, (x1 + x2) / 2 + 12, y1 + 30), color)
        draw_text(d, ((x1 + x2) / 2, y1 + 44), fit(tr(e.label, lang), 12, x2 - x1 - 8), 12, color, anchor="mm", log=log)


def strings(scr: Screen, lang: str) -> list[str]:
    """Every full (untruncated) label on ``scr`` in ``lang`` (for glyph-coverage checks)."""
    out = ["9:41"]
    for e in scr.elements:
        if e.label and e.role in ("title", "input", "row", "button", "toast", "tab", "dialog", "menuitem"):
            out.append(tr(e.label, lang))
        if e.text:
            out.append(typed(e.text, lang))
    return out
