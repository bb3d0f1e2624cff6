"""Deterministic in-process mobile world for SPHINX navigation and StaR's dynamic toggle tasks.

Screens are pure functions of (app, page, state), laid out by ``gui_tasks.synth.scene.layout``;
``Simulator.act`` is the transition function. The ``Device`` protocol is what an agent loop
drives; ``gui_tasks.sphinx.adb.AdbDevice`` implements it for a real phone.

Besides the toggles, the state holds transient UI state under page-scoped keys ``ui_key(kind, app, page)``
(``"<kind>:<app>/<page>"``): ``text`` (an input field's content), ``scroll`` (rows scrolled past at the top of
the page's list) and ``query`` (the search a results page shows). Going back from a page discards its
keys and ``restart`` discards its app's, as Android recreates the activity; ``home`` keeps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any, Mapping, Protocol

from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, Hierarchy
from gui_tasks.synth.scene import HEIGHT, ROW_H, STATUS_H, TAB_H, WIDTH, Element, Page, Row, Screen, layout
from gui_tasks.sphinx.sim_apps import (APP_NAMES, EXTRA_ALARMS, FINGER_MOTION, HOME, LAUNCHER, LIST_ID, PARENT, ROOTS,
                                       SIM_APPS, SUBMIT, SWIPE_DISTANCE, TRANSIENT, _typed, _verbatim_labels, ui_key)
from gui_tasks.sphinx.sim_views import label_text, package_of, screen_hierarchy

__all__ = ["APP_NAMES", "EXTRA_ALARMS", "FINGER_MOTION", "HOME", "LAUNCHER", "LIST_ID", "PARENT", "ROOTS", "SIM_APPS",
           "SUBMIT", "SWIPE_DISTANCE", "TRANSIENT", "Device", "DeviceObservation", "Observation", "Simulator", "as_point",
           "build_screen", "element_at", "element_of_index", "label_text", "launcher_screen", "max_scroll",
           "package_of", "page_spec", "resolve", "screen_hierarchy", "ui_key"]


def launcher_screen(state: Mapping[str, Any]) -> Screen:
    """Home screen: one icon row per app."""
    els = [Element("status", "status", (0, 0, WIDTH, STATUS_H)), Element("title", "title", (56, STATUS_H + 8, WIDTH - 96, STATUS_H + 48), label="launcher")]
    for i, app in enumerate(LAUNCHER):
        y = 120 + i * 80
        els.append(Element(f"app_{app}", "row", (16, y, WIDTH - 16, y + 64), label=APP_NAMES[app], target=app))
    return Screen("launcher", "home", tuple(sorted(state.items())), tuple(els))


def page_spec(app: str, page: str, state: Mapping[str, Any]) -> Page:
    """The page's spec; a page showing a submitted query (search results) is titled with it and lists it."""
    spec = SIM_APPS[app][page]
    query = state.get(ui_key("query", app, page))
    return replace(spec, title=query, rows=(Row(query, "none", icon="globe"),)) if query else spec


def _laid_out(app: str, page: str, state: Mapping[str, Any], offset: int) -> tuple[Page, Screen]:
    """Every row of the page laid out from the list's top, ``offset`` rows scrolled past (none clipped yet)."""
    spec = page_spec(app, page, state)
    view = dict(state)  # scene.layout reads the input's text and the scroll offset from these keys
    text = state.get(ui_key("text", app, page))
    if text:
        view.update(typed=True, typed_text=text)
    if offset:
        view["scroll"] = offset
    return spec, layout(spec, app, page, view)


def _list_bottom(spec: Page) -> int:
    """Lowest pixel a list row may reach: above the tab bar and the bottom button (64 px in scene.layout), if any."""
    return HEIGHT - (TAB_H if spec.tabs else 0) - (64 if spec.bottom_button else 0)


def max_scroll(app: str, page: str, state: Mapping[str, Any]) -> int:
    """How many rows the page's list can scroll past: those that do not fit on screen at the top."""
    spec, scr = _laid_out(app, page, state, 0)
    return sum(1 for e in scr.elements if e.role == "row" and e.box[3] > _list_bottom(spec))


def build_screen(app: str, page: str, state: Mapping[str, Any]) -> Screen:
    """The screen of ``app``/``page`` in ``state``: rows below the screen are left out, and a list that overflows
    (or is scrolled) sits in a scrollable container element ``LIST_ID``. Screens are memoised (a pure function
    of the state), which keeps the oracle's breadth-first search fast."""
    try:
        return _cached_screen(app, page, tuple(sorted(state.items())))
    except TypeError:  # an unhashable state value (only from a caller's initial state): build it afresh
        return _screen(app, page, state)


@lru_cache(maxsize=8192)
def _cached_screen(app: str, page: str, items: tuple[tuple[str, Any], ...]) -> Screen:
    return _screen(app, page, dict(items))


def _screen(app: str, page: str, state: Mapping[str, Any]) -> Screen:
    if (app, page) == HOME:
        return launcher_screen(state)
    offset = int(state.get(ui_key("scroll", app, page), 0))
    spec, scr = _laid_out(app, page, state, offset)
    rows = [e for e in scr.elements if e.role == "row"]
    bottom = _list_bottom(spec)
    hidden = {e.id for e in rows if e.box[3] > bottom}
    if not rows or not (hidden or offset):
        return scr
    kept = [e for e in scr.elements if e.id not in hidden and e.owner not in hidden]
    kept.insert(kept.index(rows[0]), Element(LIST_ID, "list", (0, rows[0].box[1], WIDTH, bottom)))
    return replace(scr, elements=tuple(kept))


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

        with _verbatim_labels(_typed(self.screen)):
            return render(self.screen, lang or self.lang)


class DeviceObservation(Protocol):
    """What every device's observation offers: the view tree, the foreground (package, activity), a screenshot."""

    @property
    def hierarchy(self) -> Hierarchy: ...
    @property
    def activity(self) -> tuple[str, str]: ...
    def screenshot(self) -> Any: ...


class Device(Protocol):
    """What an agent loop drives: the simulator here, a phone through adb (``gui_tasks.sphinx.adb``) too.

    ``act`` takes a SPHINX action (Table 2) as a dict; the simulator names elements by its element ids
    (``resolve`` maps an agent's ``index``), the adb device by ``index`` or bounds."""

    def reset(self, initial: Mapping[str, Any]) -> DeviceObservation: ...
    def observe(self) -> DeviceObservation: ...
    def act(self, action: Mapping[str, Any]) -> DeviceObservation: ...


def element_at(scr: Screen, x: float, y: float) -> Element | None:
    """Topmost interactable element under a pixel point (last laid out wins)."""
    hit = None
    for e in scr.elements:
        x1, y1, x2, y2 = e.box
        if x1 <= x < x2 and y1 <= y < y2 and e.role not in ("status", "title", "text"):
            hit = e
    return hit


def element_of_index(obs: Observation, index: int, rendering: str = DEFAULT_RENDERING) -> str | None:
    """The simulator element behind element id ``[index]`` of the observation (numbered by ``rendering``), or
    None when out of range."""
    ids = obs.hierarchy.element_ids(rendering)
    if not 0 <= index < len(ids):
        return None
    rid = obs.hierarchy.nodes[ids[index]].get("resource-id")
    return rid.split(":id/", 1)[-1]


def resolve(obs: Observation, action: Mapping[str, Any], rendering: str = DEFAULT_RENDERING) -> dict[str, Any]:
    """An agent action with an element id (``index``, numbered by ``rendering``) turned into the simulator's
    element form."""
    act = dict(action)
    if "index" in act:
        eid = element_of_index(obs, int(act.pop("index")), rendering)
        act["element"] = eid if eid is not None else "__missing__"
    return act


def as_point(v: Any) -> tuple[float, float] | None:
    """``v`` as a finite (x, y) pair, else None (a malformed point makes the action a no-op)."""
    if isinstance(v, (str, bytes)):
        return None
    try:
        x, y = (float(c) for c in v)
    except (TypeError, ValueError):
        return None
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


def _target(scr: Screen, action: Mapping[str, Any]) -> Element | None:
    """The element an action names (``element`` id) or lands on (``point``), or None."""
    if "element" in action:
        return next((e for e in scr.elements if e.id == action["element"]), None)
    p = as_point(action.get("point"))
    return element_at(scr, *p) if p else None


def _centre(box: tuple[int, int, int, int]) -> tuple[float, float]:
    """Where a finger put on an element lands."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


class Simulator:
    """Deterministic ``Device``: state is a dict of toggles and transient UI state plus the current (app, page)."""

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

    def _forget(self, app: str, page: str | None = None) -> None:
        """Drop the transient UI state of one page, or (``page=None``) of every page of ``app``."""
        if page is not None:
            for kind in TRANSIENT:
                self.state.pop(ui_key(kind, app, page), None)
            return
        prefixes = tuple(ui_key(kind, app, "") for kind in TRANSIENT)
        for k in [k for k in self.state if isinstance(k, str) and k.startswith(prefixes)]:
            del self.state[k]

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

    def open_app(self, name: Any) -> None:
        """Open an app by name (an agent family's OPENAPP; the launcher's label or the app's key, any case), at its
        first page as tapping its launcher icon does; an unknown name changes nothing."""
        if not isinstance(name, str):
            return
        wanted = name.strip().lower()
        app = next((a for a, label in APP_NAMES.items() if wanted in (a, label.lower())), None)
        if app is not None:
            self.app, self.page = app, ROOTS[app]

    def back(self) -> None:
        if (self.app, self.page) == HOME:
            return
        self._forget(self.app, self.page)
        if self.page == ROOTS[self.app]:
            self.app, self.page = HOME
        else:
            self.page = PARENT[self.page]

    def type_text(self, scr: Screen, action: Mapping[str, Any]) -> None:
        """Set the content of the input field the action names (replacing it); other targets ignore typing."""
        el, text = _target(scr, action), action.get("text")
        if el is None or el.role != "input" or not isinstance(text, str):
            return
        key = ui_key("text", scr.app, scr.page)
        if text:
            self.state[key] = text
        else:
            self.state.pop(key, None)

    def submit(self) -> None:
        """``enter`` on a ``SUBMIT`` page whose input holds text opens the page that shows it as its query."""
        target = SUBMIT.get((self.app, self.page))
        text = self.state.get(ui_key("text", self.app, self.page))
        if target is None or not text:
            return
        self._forget(self.app, self.page)
        self._forget(self.app, target)
        self.state[ui_key("query", self.app, target)] = text
        self.state[ui_key("text", self.app, target)] = text
        self.page = target

    def swipe(self, scr: Screen, action: Mapping[str, Any]) -> None:
        """Scroll the list under the finger's start point by the rows dragged (``FINGER_MOTION`` convention).

        The finger starts at the named element's centre or ``point`` and ends at ``to`` or ``SWIPE_DISTANCE``
        pixels away in ``direction``, clamped to the screen; lists scroll vertically only."""
        if "element" in action:
            el = _target(scr, action)
            start = _centre(el.box) if el is not None else None
        else:
            start = as_point(action.get("point"))
        lst = next((e for e in scr.elements if e.role == "list"), None)
        if start is None or lst is None or not (lst.box[0] <= start[0] < lst.box[2] and lst.box[1] <= start[1] < lst.box[3]):
            return
        direction = action.get("direction")
        if "to" in action:
            end = as_point(action["to"])
        elif isinstance(direction, str) and direction in FINGER_MOTION:
            dx, dy = FINGER_MOTION[direction]
            end = (start[0] + dx * SWIPE_DISTANCE, start[1] + dy * SWIPE_DISTANCE)
        else:
            end = None
        if end is None:
            return
        end_y = min(max(end[1], 0.0), float(scr.size[1] - 1))
        key = ui_key("scroll", scr.app, scr.page)
        offset = int(self.state.get(key, 0)) + int((start[1] - end_y) / ROW_H)
        offset = min(max(offset, 0), max_scroll(scr.app, scr.page, self.state))
        if offset:
            self.state[key] = offset
        else:
            self.state.pop(key, None)

    def act(self, action: Mapping[str, Any]) -> Observation:
        """Apply one SPHINX action (Table 2); anything malformed, out of range or meaningless here is a no-op.

        ``{"type": "click" | "longclick", "element": id | "point": (x, y)}``: longclick acts as click (no view of
        this world reacts to a long press). ``{"type": "text", "element" | "point", "text": str}`` sets an input
        field's text. ``{"type": "swipe", "element" | "point", "direction": "up" | "down" | "left" | "right"}`` or
        ``{"type": "swipe", "point": (x1, y1), "to": (x2, y2)}`` is a finger drag (see ``swipe``).
        ``{"type": "back" | "home" | "restart" | "enter" | "wait" | "stop"}``: restart reopens the app's first
        page with its transient UI state cleared; enter submits a filled search field; wait and stop change nothing.
        ``{"type": "open", "text": app}`` (an agent family's OPENAPP, not in Table 2) opens an app (``open_app``)."""
        self.steps += 1
        if not isinstance(action, Mapping):
            return self.observe()
        kind = action.get("type")
        scr = self.observe().screen
        if kind in ("click", "longclick"):
            el = _target(scr, action)
            if el is not None:
                self.tap(el)
        elif kind == "text":
            self.type_text(scr, action)
        elif kind == "swipe":
            self.swipe(scr, action)
        elif kind == "enter":
            self.submit()
        elif kind == "back":
            self.back()
        elif kind == "home":
            self.app, self.page = HOME
        elif kind == "open":
            self.open_app(action.get("text"))
        elif kind == "restart" and self.app != HOME[0]:
            self._forget(self.app)
            self.page = ROOTS[self.app]
        return self.observe()
