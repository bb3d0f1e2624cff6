"""The simulated screens as Android presents them through the accessibility API (SPHINX 3.4.1): an element's visible
text, the app's package, and the view hierarchy of a screen (``gui_tasks.sphinx.simulator``).
"""

from __future__ import annotations


from gui_tasks.sphinx.hierarchy import SYSTEM_UI, Hierarchy, format_bounds
from gui_tasks.synth import i18n
from gui_tasks.synth.scene import STATUS_H, Element, Screen
from gui_tasks.sphinx.sim_apps import _typed, _verbatim_labels


def label_text(e: Element, lang: str = "en") -> str:
    """The visible text of an element in ``lang`` (proper names verbatim); icons give their glyph name."""
    if e.label is None:
        return e.icon or ""
    with _verbatim_labels():
        return i18n.label(e.label, lang)


# Android classes and flags the simulator's views present through the accessibility API (3.4.1).
_CLASS = {"title": "android.widget.TextView", "text": "android.widget.ImageView", "back": "android.widget.ImageButton",
          "icon": "android.widget.ImageButton", "input": "android.widget.EditText", "row": "android.widget.LinearLayout",
          "toggle": "android.widget.Switch", "checkbox": "android.widget.CheckBox", "button": "android.widget.Button",
          "tab": "android.widget.FrameLayout", "toast": "android.widget.Toast", "dialog": "android.widget.FrameLayout",
          "menu": "android.widget.ListView", "menuitem": "android.widget.TextView", "list": "androidx.recyclerview.widget.RecyclerView"}
_CLICKABLE = {"back", "icon", "input", "row", "toggle", "checkbox", "button", "tab", "menuitem"}


def package_of(app: str) -> str:
    return f"com.sim.{app}"


def _attrib(scr: Screen, e: Element, lang: str, *, box=None, cls=None, text=None, clickable=None) -> dict[str, str]:
    pkg = package_of(scr.app)
    is_click = (e.role in _CLICKABLE and scr.active(e)) if clickable is None else clickable
    checkable = e.role in ("toggle", "checkbox")
    if text is None:
        text = "" if e.role in ("back", "icon", "text", "row", "toggle", "checkbox") else label_text(e, lang)
        if e.role == "input":
            text = e.text if e.text else ""
    desc = ""
    if e.role in ("back", "icon"):
        desc = "Navigate up" if e.role == "back" else (e.icon or "")
    elif e.role == "input" and not e.text:
        desc = label_text(e, lang)
    elif e.role in ("toggle", "checkbox"):
        desc = label_text(e, lang)
    return {"index": "0", "text": text, "resource-id": f"{pkg}:id/{e.id}", "class": cls or _CLASS.get(e.role, "android.view.View"),
            "package": pkg, "content-desc": desc, "checkable": str(checkable).lower(),
            "checked": str(bool(e.state) and checkable).lower(), "clickable": str(is_click).lower(), "enabled": "true",
            "focusable": str(is_click).lower(), "focused": "false", "scrollable": str(e.role == "list").lower(),
            "long-clickable": str(e.role == "row" and scr.active(e)).lower(), "password": "false",
            "selected": str(bool(e.state) and e.role == "tab").lower(), "visible-to-user": "true",
            "bounds": format_bounds(box or e.box)}


def screen_hierarchy(scr: Screen, lang: str = "en") -> Hierarchy:
    """The screen as an Android view hierarchy: a system status bar, the app frame, its views (a row's label
    and trailing widget nested inside the row, rows inside a scrollable list container when there is one),
    resource ids ``com.sim.<app>:id/<element id>``."""
    with _verbatim_labels(_typed(scr)):
        return _hierarchy(scr, lang)


def _hierarchy(scr: Screen, lang: str) -> Hierarchy:
    W, H = scr.size
    flat: list[tuple[int, dict[str, str]]] = []
    blank = {"index": "0", "text": "", "content-desc": "", "checkable": "false", "checked": "false", "clickable": "false",
             "enabled": "true", "focusable": "false", "focused": "false", "scrollable": "false", "long-clickable": "false",
             "password": "false", "selected": "false", "visible-to-user": "true"}
    flat.append((0, {**blank, "resource-id": f"{SYSTEM_UI}:id/status_bar", "class": "android.widget.FrameLayout",
                     "package": SYSTEM_UI, "bounds": format_bounds((0, 0, W, STATUS_H))}))
    flat.append((0, {**blank, "resource-id": f"{package_of(scr.app)}:id/content", "class": "android.widget.FrameLayout",
                     "package": package_of(scr.app), "bounds": format_bounds((0, STATUS_H, W, H))}))
    owned: dict[str, list[Element]] = {}
    for e in scr.elements:
        if e.owner:
            owned.setdefault(e.owner, []).append(e)
    in_list = any(e.role == "list" for e in scr.elements)
    for e in scr.elements:
        if e.role == "status" or e.owner:
            continue
        depth = 2 if in_list and e.role == "row" else 1
        flat.append((depth, _attrib(scr, e, lang)))
        if e.role == "row":
            x1, y1, x2, y2 = e.box
            label_box = (16, y1, max(x2 - 80, 17), y2)
            flat.append((depth + 1, _attrib(scr, e, lang, box=label_box, cls="android.widget.TextView", text=label_text(e, lang),
                                            clickable=False) | {"resource-id": f"{package_of(scr.app)}:id/{e.id}_label", "long-clickable": "false"}))
        for child in owned.get(e.id, ()):
            flat.append((depth + 1, _attrib(scr, child, lang)))
    return Hierarchy.build(flat, size=(W, H))
