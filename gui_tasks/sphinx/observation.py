"""SPHINX observation modes (section 3.4.1), rendered from a view hierarchy, in two named renderings.

``official`` (the default of the ``sphinx_*`` tasks): what the official code (PKU-ASE-RISE/Sphinx
``infra/hierarchy.py``, ``infra/android_env.py``) shows a model, so results compare with the paper's tables.
Element ids ``[i]`` number the interactable views breadth-first (``Hierarchy.official_widgets``); each view
is one line ``a View (content-desc: .., resource-id: .., text: .., class: <full class>)`` and an interactable
one adds the actions it affords (`` to click or longclick``). ``full_text`` is the tab-indented tree
(``dump_widget_tree``), ``simplified_text`` the list of EVERY interactable element (the env's ``text``
observation, not only leaves), ``set_of_mark`` coloured boxes with the id per action
(``dump_annotated_image``), and completion judgment's tree is the id-less ``str(UIHierarchy)``.

``paper-prose``: the rendering below, written from the paper's words before the official code was read:

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

from typing import Literal, Mapping

from PIL import Image, ImageDraw

from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, RENDERINGS, Hierarchy, Node, center

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


def _prose_text(h: Hierarchy, mode: str, *, drop_system_ui: bool = True) -> str:
    if mode == "full_text":
        return full_text(h, drop_system_ui=drop_system_ui)
    if mode == "simplified_text":
        return simplified_text(h, drop_system_ui=drop_system_ui)
    if mode in MODES:
        return ""
    raise ValueError(f"unknown observation mode {mode!r}; one of {MODES}")


def render_images(image: Image.Image | None, h: Hierarchy, mode: str, *, rendering: str = DEFAULT_RENDERING,
                  drop_system_ui: bool = True) -> list[Image.Image]:
    """The image part of an observation in ``mode`` under ``rendering`` (none for the text modes)."""
    _check_rendering(rendering)
    if mode in TEXT_MODES:
        return []
    if image is None:
        raise ValueError(f"observation mode {mode!r} needs a screenshot")
    if mode == "set_of_mark":
        if rendering == "official":
            return [official_set_of_mark(image, h)]
        return [set_of_mark(image, h, drop_system_ui=drop_system_ui)]
    if mode == "screenshot":
        return [image.convert("RGB")]
    raise ValueError(f"unknown observation mode {mode!r}; one of {MODES}")


def render_text(h: Hierarchy, mode: str, *, rendering: str = DEFAULT_RENDERING, drop_system_ui: bool = True) -> str:
    """The text part of an observation in ``mode`` under ``rendering`` (empty for the image modes)."""
    _check_rendering(rendering)
    if rendering == "paper-prose":
        return _prose_text(h, mode, drop_system_ui=drop_system_ui)
    if mode == "full_text":
        return official_full_text(h)
    if mode == "simplified_text":
        return official_simplified_text(h)
    if mode in MODES:
        return ""
    raise ValueError(f"unknown observation mode {mode!r}; one of {MODES}")


def _check_rendering(rendering: str) -> None:
    if rendering not in RENDERINGS:
        raise ValueError(f"unknown rendering {rendering!r}; one of {RENDERINGS}")


# --- the official rendering ------------------------------------------------------------------------
def official_view(n: Node | Mapping[str, str]) -> str:
    """``a View (content-desc: .., resource-id: <after the last '/'>, text: .., class: ..)``, empty parts left out
    (a view, or the attributes of one as a gold action names them)."""
    parts = []
    desc, rid, text, cls = (str(n.get(k, "") or "") for k in ("content-desc", "resource-id", "text", "class"))
    desc, rid, text, cls = desc.strip(), rid.split("/")[-1].strip(), text.strip(), cls.strip()
    if desc:
        parts.append(f"content-desc: {desc}")
    if rid:
        parts.append(f"resource-id: {rid}")
    if text:
        parts.append(f"text: {text}")
    if cls:
        parts.append(f"class: {cls}")
    return "a View" + (f" ({', '.join(parts)})" if parts else "")


def official_widget(n: Node) -> str:
    """An interactable view with the actions it affords: ``... to click``, ``... to click, longclick or swipe``."""
    acts = list(n.official_actions())
    if not acts:
        return official_view(n) + " to do nothing"
    if len(acts) == 1:
        return official_view(n) + f" to {acts[0]}"
    return official_view(n) + f" to {', '.join(acts[:-1])} or {acts[-1]}"


def _dfs(h: Hierarchy) -> list[tuple[int, int]]:
    """(node, depth from 0) in pre-order over the non-system windows."""
    sys_ui = h.system_ui()
    out: list[tuple[int, int]] = []
    stack = [(i, 0) for i, n in reversed(list(enumerate(h.nodes))) if n.parent is None and i not in sys_ui]
    while stack:
        i, d = stack.pop()
        out.append((i, d))
        stack.extend((j, d + 1) for j in reversed(h.nodes[i].children) if j not in sys_ui)
    return out


def official_full_text(h: Hierarchy) -> str:
    """``dump_widget_tree``: one line per view, a tab per level, ``[i] `` and the actions on interactable views."""
    ids = {node: k for k, node in enumerate(h.official_widgets())}
    return "".join("\t" * d + (f"[{ids[i]}] {official_widget(h.nodes[i])}" if i in ids else official_view(h.nodes[i])) + "\n"
                   for i, d in _dfs(h))


def official_simplified_text(h: Hierarchy) -> str:
    """The env's ``text`` observation: every interactable element, ``[i] <widget>``, one per line."""
    return "\n".join(f"[{k}] {official_widget(h.nodes[i])}" for k, i in enumerate(h.official_widgets()))


def official_tree_text(h: Hierarchy) -> str:
    """``str(UIHierarchy)``, the screen of the official completion judgment: every view, no ids, one tab more
    per level starting at one."""
    return "".join("\t" * (d + 1) + official_view(h.nodes[i]) + "\n" for i, d in _dfs(h))


# Colours of the official Set-of-Mark (``dump_annotated_image``), RGB: the box takes the first of click,
# swipe, text, longclick the view affords; each action gets its own label, on a background of its colour.
SOM_BOX_RGB = {"click": (255, 0, 0), "swipe": (0, 255, 0), "text": (0, 0, 255), "longclick": (255, 0, 255)}
SOM_BOX_PRIORITY = ("click", "swipe", "text", "longclick")
SOM_TEXT_RGB = (255, 250, 250)
SOM_LABEL_OPACITY = 0.3  # pyshine putBText(alpha=0.7) keeps 70 % of the screenshot under the label colour


def official_set_of_mark(image: Image.Image, h: Hierarchy) -> Image.Image:
    """Boxes around every interactable view, coloured by action, and its id ``[i]`` once per action it affords.

    Drawn children first (post-order), as the official code does; positions are hierarchy pixels scaled to the
    screenshot when their sizes differ. The official code draws with OpenCV in BGR (box ``(0,0,255)`` is red)
    and labels with pyshine in RGB: both come out as the colours its prompt names (red click, green swipe,
    blue text, purple longclick). The font differs (PIL's default instead of OpenCV's Hershey)."""
    from PIL import ImageFont

    img = image.convert("RGB").copy()
    sx = sy = 1.0
    if h.size:
        sx, sy = img.width / h.size[0], img.height / h.size[1]
    ids = {node: k for k, node in enumerate(h.official_widgets())}
    sys_ui = h.system_ui()
    order: list[int] = []

    def post(i: int) -> None:
        for j in h.nodes[i].children:
            if j not in sys_ui:
                post(j)
        order.append(i)

    for i, n in enumerate(h.nodes):
        if n.parent is None and i not in sys_ui:
            post(i)
    font = ImageFont.load_default(size=max(10, round(22 * min(sx, sy))))
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    od = ImageDraw.Draw(overlay)
    d = ImageDraw.Draw(img)
    for i in order:
        if i not in ids:
            continue
        acts = h.nodes[i].official_actions()
        x1, y1, x2, y2 = h.nodes[i].box
        box_act = next(a for a in SOM_BOX_PRIORITY if a in acts)
        d.rectangle((x1 * sx, y1 * sy, x2 * sx, y2 * sy), outline=SOM_BOX_RGB[box_act], width=2)
        for k, act in enumerate(acts):
            ox = ((x1 * (k + 1) + x2 * (len(acts) - k)) // (len(acts) + 1) + 5) * sx
            oy = ((y1 + y2) // 2 + 5) * sy
            label = str(ids[i])
            l, t, r, b = od.textbbox((ox, oy), label, font=font)
            od.rectangle((l - 5, t - 5, r + 5, b + 5), fill=SOM_BOX_RGB[act] + (round(255 * SOM_LABEL_OPACITY),))
            od.text((ox, oy), label, fill=SOM_TEXT_RGB + (255,), font=font)
    return Image.alpha_composite(img.convert("RGBA"), overlay).convert("RGB")
