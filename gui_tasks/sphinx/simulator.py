"""Deterministic in-process mobile world for SPHINX navigation and StaR's dynamic toggle tasks.

Screens are pure functions of (app, page, state), laid out by ``gui_tasks.synth.scene.layout``;
``Simulator.act`` is the transition function. The ``Device`` protocol is what an agent loop
drives; an adb-backed device can implement the same three methods.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator, Mapping, Protocol

from gui_tasks.sphinx.hierarchy import SYSTEM_UI, Hierarchy, format_bounds
from gui_tasks.synth import i18n
from gui_tasks.synth.scene import STATUS_H, WIDTH, Element, Page, Row, Screen, layout

# Pages of the simulated world (labels not in i18n.LABELS are proper names, rendered verbatim).
SIM_APPS: dict[str, dict[str, Page]] = {
    "settings": {
        "root": Page("settings", (Row("wifi", key="wifi_page"), Row("bluetooth", key="bluetooth_page"),
                                  Row("dnd", "toggle", "dnd"), Row("sound", key="sound_page"))),
        "wifi_page": Page("wifi", (Row("wifi", "toggle", "wifi"), Row("Home-5G", "none")), back=True, show_rows_if="wifi"),
        "bluetooth_page": Page("bluetooth", (Row("bluetooth", "toggle", "bt"),), back=True),
        "sound_page": Page("sound", (Row("vibrate", "toggle", "vibrate"), Row("dnd", "toggle", "dnd")), back=True),
    },
    "clock": {
        "alarms": Page("alarm", (Row("07:00", "toggle", "alarm_0700"), Row("09:00", "toggle", "alarm_0900"),
                                 Row("22:15", "toggle", "alarm_2215"))),
    },
    "chrome": {
        "start": Page("Chrome", (Row("news", "none", icon="globe"),), actions=(("gear", "chrome_settings"),)),
        "chrome_settings": Page("settings", (Row("Payment methods", key="payment_page"), Row("Privacy and security", key="privacy_page")),
                                back=True),
        "payment_page": Page("Payment methods", (Row("Save and fill payment methods", "toggle", "chrome_payment"),), back=True),
        "privacy_page": Page("Privacy and security", (Row("Always use secure connections", "toggle", "chrome_https"),), back=True),
    },
    "youtube": {
        "home": Page("YouTube", (Row("Blue Sky", "none", icon="play"),), actions=(("gear", "yt_settings"),)),
        "yt_settings": Page("settings", (Row("Captions", key="captions_page"),), back=True),
        "captions_page": Page("Captions", (Row("Show captions", "toggle", "yt_captions"),), back=True),
    },
}
ROOTS = {"settings": "root", "clock": "alarms", "chrome": "start", "youtube": "home"}
PARENT = {"wifi_page": "root", "bluetooth_page": "root", "sound_page": "root", "chrome_settings": "start",
          "payment_page": "chrome_settings", "privacy_page": "chrome_settings", "yt_settings": "home", "captions_page": "yt_settings"}
LAUNCHER = ("settings", "clock", "chrome", "youtube")
APP_NAMES = {"settings": "settings", "clock": "Clock", "chrome": "Chrome", "youtube": "YouTube"}  # launcher labels
HOME = ("launcher", "home")
_NEW_LABELS = {r.label for pages in SIM_APPS.values() for p in pages.values() for r in p.rows} | {
    p.title for pages in SIM_APPS.values() for p in pages.values()} | set(APP_NAMES.values()) | {"launcher"}


@contextmanager
def _verbatim_labels() -> Iterator[None]:
    """Render the simulator's proper names verbatim; the i18n table is restored afterwards."""
    added = {k for k in _NEW_LABELS if k not in i18n.LABELS and k not in i18n.VERBATIM}
    i18n.VERBATIM.update(added)
    try:
        yield
    finally:
        i18n.VERBATIM.difference_update(added)


def launcher_screen(state: Mapping[str, Any]) -> Screen:
    """Home screen: one icon row per app."""
    els = [Element("status", "status", (0, 0, WIDTH, STATUS_H)), Element("title", "title", (56, STATUS_H + 8, WIDTH - 96, STATUS_H + 48), label="launcher")]
    for i, app in enumerate(LAUNCHER):
        y = 120 + i * 80
        els.append(Element(f"app_{app}", "row", (16, y, WIDTH - 16, y + 64), label=APP_NAMES[app], target=app))
    return Screen("launcher", "home", tuple(sorted(state.items())), tuple(els))


def build_screen(app: str, page: str, state: Mapping[str, Any]) -> Screen:
    if (app, page) == HOME:
        return launcher_screen(state)
    return layout(SIM_APPS[app][page], app, page, dict(state))


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
          "menu": "android.widget.ListView", "menuitem": "android.widget.TextView"}
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
            "focusable": str(is_click).lower(), "focused": "false", "scrollable": "false",
            "long-clickable": str(e.role == "row" and scr.active(e)).lower(), "password": "false",
            "selected": str(bool(e.state) and e.role == "tab").lower(), "visible-to-user": "true",
            "bounds": format_bounds(box or e.box)}


def screen_hierarchy(scr: Screen, lang: str = "en") -> Hierarchy:
    """The screen as an Android view hierarchy: a system status bar, the app frame, its views (a row's label
    and trailing widget nested inside the row), resource ids ``com.sim.<app>:id/<element id>``."""
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
    for e in scr.elements:
        if e.role == "status" or e.owner:
            continue
        flat.append((1, _attrib(scr, e, lang)))
        if e.role == "row":
            x1, y1, x2, y2 = e.box
            label_box = (16, y1, max(x2 - 80, 17), y2)
            flat.append((2, _attrib(scr, e, lang, box=label_box, cls="android.widget.TextView", text=label_text(e, lang), clickable=False)
                         | {"resource-id": f"{package_of(scr.app)}:id/{e.id}_label", "long-clickable": "false"}))
        for child in owned.get(e.id, ()):
            flat.append((2, _attrib(scr, child, lang)))
    return Hierarchy.build(flat, size=(W, H))


@dataclass(frozen=True)
class Observation:
    """What the agent sees: the screen, its view hierarchy and activity, and on request its screenshot."""

    screen: Screen
    lang: str = "en"

    @cached_property
    def hierarchy(self) -> Hierarchy:
        return screen_hierarchy(self.screen, self.lang)

    @property
    def activity(self) -> tuple[str, str]:
        """(package, activity) as Android reports the foreground window."""
        return package_of(self.screen.app), f"{package_of(self.screen.app)}.{self.screen.page}"

    def screenshot(self, lang: str | None = None):
        from gui_tasks.synth.render import render

        with _verbatim_labels():
            return render(self.screen, lang or self.lang)


class Device(Protocol):
    """What an agent loop drives: the simulator here, a phone through adb (``gui_tasks.sphinx.adb``) too.

    Observations expose ``hierarchy`` (a ``Hierarchy``), ``activity`` ((package, activity)) and
    ``screenshot()``; ``act`` takes a SPHINX action (Table 2) with element ids resolved to points or views."""

    def reset(self, initial: Mapping[str, Any]) -> Observation: ...
    def observe(self) -> Observation: ...
    def act(self, action: Mapping[str, Any]) -> Observation: ...


def element_at(scr: Screen, x: float, y: float) -> Element | None:
    """Topmost interactable element under a pixel point (last laid out wins)."""
    hit = None
    for e in scr.elements:
        x1, y1, x2, y2 = e.box
        if x1 <= x < x2 and y1 <= y < y2 and e.role not in ("status", "title", "text"):
            hit = e
    return hit


def element_of_index(obs: Observation, index: int) -> str | None:
    """The simulator element behind element id ``[index]`` of the observation, or None when out of range."""
    ids = obs.hierarchy.interactables()
    if not 0 <= index < len(ids):
        return None
    rid = obs.hierarchy.nodes[ids[index]].get("resource-id")
    return rid.split(":id/", 1)[-1]


def resolve(obs: Observation, action: Mapping[str, Any]) -> dict[str, Any]:
    """An agent action with an element id (``index``) turned into the simulator's element form."""
    act = dict(action)
    if "index" in act:
        eid = element_of_index(obs, int(act.pop("index")))
        act["element"] = eid if eid is not None else "__missing__"
    return act


class Simulator:
    """Deterministic ``Device``: state is a dict of toggles plus the current (app, page)."""

    def __init__(self) -> None:
        self.app, self.page = HOME
        self.state: dict[str, Any] = {}
        self.steps = 0

    def reset(self, initial: Mapping[str, Any] | None = None, *, app: str = "launcher") -> Observation:
        self.state = {k: v for k, v in (initial or {}).items()}
        self.app, self.page = HOME if app == "launcher" else (app, ROOTS[app])
        self.steps = 0
        return self.observe()

    def observe(self) -> Observation:
        return Observation(build_screen(self.app, self.page, self.state))

    def _key_of(self, scr: Screen, el: Element) -> str | None:
        row = scr.get(el.owner) if el.owner else el
        for r in SIM_APPS.get(scr.app, {}).get(scr.page, Page("", ())).rows:
            if r.label == row.label and r.trailing == "toggle":
                return r.key
        return None

    def tap(self, el: Element) -> None:
        scr = self.observe().screen
        if scr.app == "launcher":
            if el.target:
                self.app, self.page = el.target, ROOTS[el.target]
            return
        if el.role == "back":
            self.back()
            return
        key = self._key_of(scr, el)
        if key is not None and el.role in ("toggle", "row"):
            self.state[key] = not bool(self.state.get(key))
        elif el.target:
            self.page = el.target

    def back(self) -> None:
        if (self.app, self.page) == HOME:
            return
        if self.page == ROOTS[self.app]:
            self.app, self.page = HOME
        else:
            self.page = PARENT[self.page]

    def act(self, action: Mapping[str, Any]) -> Observation:
        """Apply one SPHINX action (Table 2): click by element id or [x,y], back, home, wait, stop."""
        self.steps += 1
        kind = action.get("type")
        scr = self.observe().screen
        if kind in ("click", "longclick"):
            el = None
            if "element" in action:
                el = next((e for e in scr.elements if e.id == action["element"]), None)
            elif "point" in action:
                el = element_at(scr, *action["point"])
            if el is not None:
                self.tap(el)
        elif kind == "back":
            self.back()
        elif kind == "home":
            self.app, self.page = HOME
        elif kind == "restart" and self.app != HOME[0]:
            self.page = ROOTS[self.app]
        # text / swipe / wait / enter / stop leave this world unchanged
        return self.observe()
