"""SPHINX observation modes (section 3.4.1), rendered from a view hierarchy.

- ``screenshot``: the image as it is.
- ``full_text``: "We faithfully describe the accessibility tree with plain text, using indents to represent
  the tree structure and unique indexes "[i]" (where i = 0, 1, ...) to tag interactable UI elements."
- ``simplified_text``: "removes non-leaf UI elements and provides a list of descriptions of interactable UI
  elements" - leaf interactables only, each with the same ``[i]`` it has in the full text, so an action
  ``click [i]`` means the same element in every mode.
- ``set_of_mark``: "We mark the center points of interactable UI elements ... directly on the screenshot."

System UI (status and navigation bars) is left out by default (``drop_system_ui``, recorded by the tasks):
``press [back]`` / ``press [home]`` cover the navigation bar.
"""

from __future__ import annotations

from typing import Literal

from PIL import Image, ImageDraw

from gui_tasks.sphinx.hierarchy import Hierarchy, Node, center

MODES = ("screenshot", "full_text", "simplified_text", "set_of_mark")
Mode = Literal["screenshot", "full_text", "simplified_text", "set_of_mark"]
TEXT_MODES = ("full_text", "simplified_text")
_FLAGS = ("checkable", "checked", "clickable", "long-clickable", "scrollable", "selected", "focused")


def describe(n: Node) -> str:
    """One view on one line: short class, text, description, resource name and the true flags."""
    parts = [n.get("class").rsplit(".", 1)[-1] or "View"]
    if n.get("text"):
        parts.append(f'"{n.get("text")}"')
    if n.get("content-desc"):
        parts.append(f'desc="{n.get("content-desc")}"')
    rid = n.get("resource-id")
    if rid:
        parts.append(f"id={rid.split(':id/', 1)[-1]}")
    if n.flag("checkable"):
        parts.append(f"checked={n.get('checked', 'false')}")
    parts += [k for k in _FLAGS if k not in ("checkable", "checked") and n.flag(k)]
    return " ".join(parts)


def element_ids(h: Hierarchy, *, drop_system_ui: bool = True) -> dict[int, int]:
    """Node index -> element id ``[i]`` (position among interactables, document order)."""
    return {node: k for k, node in enumerate(h.interactables(drop_system_ui=drop_system_ui))}


def full_text(h: Hierarchy, *, drop_system_ui: bool = True) -> str:
    """Indented tree; interactable views prefixed with their ``[i]``."""
    ids = element_ids(h, drop_system_ui=drop_system_ui)
    nodes = list(h.visible(drop_system_ui=drop_system_ui))
    base = min((n.depth for _, n in nodes), default=0)
    lines = []
    for i, n in nodes:
        tag = f"[{ids[i]}] " if i in ids else ""
        lines.append("  " * (n.depth - base) + tag + describe(n))
    return "\n".join(lines)


def inner_text(h: Hierarchy, i: int) -> str:
    """Texts of the views inside view ``i`` (a clickable row usually keeps its label in a child TextView)."""
    out, todo = [], list(h.nodes[i].children)
    while todo:
        j = todo.pop(0)
        n = h.nodes[j]
        if n.get("text"):
            out.append(n.get("text"))
        todo.extend(n.children)
    return " ".join(out)


def simplified_text(h: Hierarchy, *, drop_system_ui: bool = True) -> str:
    """Leaf interactables only, one per line, with their ``[i]`` from the full tree; a view without text of
    its own is described by the texts inside it."""
    ids = element_ids(h, drop_system_ui=drop_system_ui)
    lines = []
    for i, k in ids.items():
        if not h.is_leaf_interactable(i, drop_system_ui=drop_system_ui):
            continue
        n, line = h.nodes[i], f"[{k}] {describe(h.nodes[i])}"
        inner = "" if n.get("text") or n.get("content-desc") else inner_text(h, i)
        lines.append(line + (f' text="{inner}"' if inner else ""))
    return "\n".join(lines)


def set_of_mark(image: Image.Image, h: Hierarchy, *, drop_system_ui: bool = True) -> Image.Image:
    """A copy of the screenshot with each interactable's centre marked and numbered with its ``[i]``.

    Hierarchy bounds are device pixels; when the screenshot has another size (``h.size`` known) the
    marks are scaled to it."""
    img = image.convert("RGB").copy()
    sx = sy = 1.0
    if h.size:
        sx, sy = img.width / h.size[0], img.height / h.size[1]
    d = ImageDraw.Draw(img)
    r = max(3, round(min(img.size) / 90))
    for i, k in element_ids(h, drop_system_ui=drop_system_ui).items():
        cx, cy = center(h.nodes[i].box)
        cx, cy = cx * sx, cy * sy
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(230, 30, 30))
        d.text((cx + r + 2, cy - r - 2), str(k), fill=(230, 30, 30))
    return img


def render_text(h: Hierarchy, mode: str, *, drop_system_ui: bool = True) -> str:
    """The text part of an observation in ``mode`` (empty for the image modes)."""
    if mode == "full_text":
        return full_text(h, drop_system_ui=drop_system_ui)
    if mode == "simplified_text":
        return simplified_text(h, drop_system_ui=drop_system_ui)
    if mode in MODES:
        return ""
    raise ValueError(f"unknown observation mode {mode!r}; one of {MODES}")


def render_images(image: Image.Image | None, h: Hierarchy, mode: str, *, drop_system_ui: bool = True) -> list[Image.Image]:
    """The image part of an observation in ``mode`` (none for the text modes)."""
    if mode in TEXT_MODES:
        return []
    if image is None:
        raise ValueError(f"observation mode {mode!r} needs a screenshot")
    if mode == "set_of_mark":
        return [set_of_mark(image, h, drop_system_ui=drop_system_ui)]
    if mode == "screenshot":
        return [image.convert("RGB")]
    raise ValueError(f"unknown observation mode {mode!r}; one of {MODES}")
