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
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any, Iterable, Iterator, Mapping, Protocol

from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, SYSTEM_UI, Hierarchy, format_bounds
from gui_tasks.synth import i18n
from gui_tasks.synth.scene import HEIGHT, ROW_H, STATUS_H, TAB_H, WIDTH, Element, Page, Row, Screen, layout

# Alarms added after the three of the toggle tasks: the alarm list overflows the screen, so swipes matter.
EXTRA_ALARMS = ("05:30", "06:00", "06:30", "07:15", "07:30", "08:00", "08:30", "10:00", "12:30", "14:00", "18:45", "23:00")
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
        # The toggle tasks' three alarms come first, on the first screen; the last EXTRA_ALARMS need a swipe.
        "alarms": Page("alarm", (Row("07:00", "toggle", "alarm_0700"), Row("09:00", "toggle", "alarm_0900"),
                                 Row("22:15", "toggle", "alarm_2215"))
                       + tuple(Row(t, "toggle", "alarm_" + t.replace(":", "")) for t in EXTRA_ALARMS)),
    },
    "chrome": {
        "start": Page("Chrome", (Row("news", "none", icon="globe"),), actions=(("gear", "chrome_settings"),), search="search_or_url"),
        "results": Page("results", (), back=True, search="search_or_url"),  # title and row come from the query
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
PARENT = {"wifi_page": "root", "bluetooth_page": "root", "sound_page": "root", "chrome_settings": "start", "results": "start",
          "payment_page": "chrome_settings", "privacy_page": "chrome_settings", "yt_settings": "home", "captions_page": "yt_settings"}
# Pages whose input field is submitted by ``enter``, and the page the submitted text opens (as its ``query``).
SUBMIT = {("chrome", "start"): "results", ("chrome", "results"): "results"}
TRANSIENT = ("text", "scroll", "query")
LIST_ID = "list"  # element id of a scrollable list container
# Swipe directions name the finger's motion (Table 2 ``swipe [elem] [dir]``, like ``adb shell input swipe``). The
# content follows the finger: dragging up scrolls a list down, revealing the rows below, one row per ROW_H pixels.
FINGER_MOTION: dict[str, tuple[int, int]] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
SWIPE_DISTANCE = 5 * ROW_H  # pixels a direction swipe drags the finger from the element's centre
LAUNCHER = ("settings", "clock", "chrome", "youtube")
APP_NAMES = {"settings": "settings", "clock": "Clock", "chrome": "Chrome", "youtube": "YouTube"}  # launcher labels
HOME = ("launcher", "home")
_NEW_LABELS = {r.label for pages in SIM_APPS.values() for p in pages.values() for r in p.rows} | {
    p.title for pages in SIM_APPS.values() for p in pages.values()} | set(APP_NAMES.values()) | {"launcher"}


def ui_key(kind: str, app: str, page: str) -> str:
    """State key of a page's transient UI state: ``kind`` is one of ``TRANSIENT``."""
    return f"{kind}:{app}/{page}"


def _typed(scr: Screen) -> set[str]:
    """Strings on ``scr`` that came from the user (submitted queries): drawn as typed, never translated."""
    return {v for k, v in scr.state if isinstance(k, str) and k.startswith("query:") and isinstance(v, str)}


@contextmanager
def _verbatim_labels(typed: Iterable[str] = ()) -> Iterator[None]:
    """Render the simulator's proper names and ``typed`` strings verbatim; the i18n table is restored afterwards."""
    added = ({k for k in _NEW_LABELS if k not in i18n.LABELS} | set(typed)) - i18n.VERBATIM
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
