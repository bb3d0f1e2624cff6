"""SPHINX observation modes (section 3.4.1): full and simplified accessibility text, Set-of-Mark.

Full text: indented tree (rows hold their trailing widgets), interactable elements tagged
``[i]`` with their index. Simplified: only leaf interactables, one per line.
"""

from __future__ import annotations

from gui_tasks.synth import i18n
from gui_tasks.synth.scene import Element, Screen

INTERACTABLE = ("back", "icon", "input", "row", "toggle", "checkbox", "button", "tab")


def _text(e: Element, lang: str) -> str:
    from gui_tasks.sphinx.simulator import _verbatim_labels

    if e.label is None:
        return e.icon or ""
    with _verbatim_labels():
        return i18n.label(e.label, lang)


def _attrs(e: Element, lang: str) -> str:
    parts = [e.role, f'"{_text(e, lang)}"']
    if e.state is not None:
        parts.append(f"checked={str(e.state).lower()}")
    return " ".join(parts)


def interactables(scr: Screen) -> list[Element]:
    """Elements that take an action, in tree order; their index is the element id of Table 2."""
    return [e for e in scr.elements if e.role in INTERACTABLE and scr.active(e)]


def full_text(scr: Screen, lang: str = "en") -> str:
    """Indented accessibility tree; interactables prefixed ``[i] <index>``."""
    idx = {e.id: k for k, e in enumerate(interactables(scr))}
    lines = [f"screen {scr.app}/{scr.page}"]
    for e in scr.elements:
        depth = 2 if e.owner else 1
        tag = f"[i] {idx[e.id]} " if e.id in idx else ""
        lines.append("  " * depth + tag + _attrs(e, lang))
    return "\n".join(lines)


def simplified_text(scr: Screen, lang: str = "en") -> str:
    """Leaf interactables only: a row whose trailing widget is interactable is left out."""
    owners = {e.owner for e in scr.elements if e.owner and e.role in INTERACTABLE}
    return "\n".join(f"{k}: {_attrs(e, lang)}" for k, e in enumerate(interactables(scr)) if e.id not in owners)


def set_of_mark(scr: Screen, lang: str = "en"):
    """Screenshot with each interactable's centre point marked with its index (section 3.4.1)."""
    from PIL import ImageDraw

    from gui_tasks.sphinx.simulator import Observation

    img = Observation(scr).screenshot(lang).convert("RGB")
    d = ImageDraw.Draw(img)
    for k, e in enumerate(interactables(scr)):
        cx, cy = (e.box[0] + e.box[2]) / 2, (e.box[1] + e.box[3]) / 2
        d.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=(230, 30, 30))
        d.text((cx + 6, cy - 6), str(k), fill=(230, 30, 30))
    return img
