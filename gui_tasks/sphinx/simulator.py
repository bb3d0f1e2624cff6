"""Deterministic in-process mobile world for SPHINX navigation and StaR's dynamic toggle tasks.

Screens are pure functions of (app, page, state), laid out by ``gui_tasks.synth.scene.layout``;
``Simulator.act`` is the transition function. The ``Device`` protocol is what an agent loop
drives; an adb-backed device can implement the same three methods.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Protocol

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
HOME = ("launcher", "home")
_NEW_LABELS = {r.label for pages in SIM_APPS.values() for p in pages.values() for r in p.rows} | {
    p.title for pages in SIM_APPS.values() for p in pages.values()} | set(LAUNCHER) | {"launcher"}


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
        els.append(Element(f"app_{app}", "row", (16, y, WIDTH - 16, y + 64), label=app, target=app))
    return Screen("launcher", "home", tuple(sorted(state.items())), tuple(els))


def build_screen(app: str, page: str, state: Mapping[str, Any]) -> Screen:
    if (app, page) == HOME:
        return launcher_screen(state)
    return layout(SIM_APPS[app][page], app, page, dict(state))


@dataclass(frozen=True)
class Observation:
    """What the agent sees: the screen (accessibility tree) and, on request, its screenshot."""

    screen: Screen

    def screenshot(self, lang: str = "en"):
        from gui_tasks.synth.render import render

        with _verbatim_labels():
            return render(self.screen, lang)


class Device(Protocol):
    """What an agent loop drives; an adb device can implement it too."""

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
        # text / swipe / wait / enter / stop leave this world unchanged
        return self.observe()
