"""Scenes of the synthetic GUI world: small apps whose pages are pure functions of their state.

A ``Screen`` lists every element with its role, label key, state and box in pixels of the
rendered image. Boxes come from the layout grid, never from text width, so the six
languages share one layout. ``tap`` is the transition function that AU/AP questions and
RI/SI sequences are derived from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WIDTH, HEIGHT = 360, 720
STATUS_H, TITLE_H, ROW_H, TAB_H = 24, 56, 56, 60
CONTENT_TOP = STATUS_H + TITLE_H + 8

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Element:
    """One on-screen element; ``label`` is an i18n key (or a verbatim name), ``icon`` a glyph name."""

    id: str
    role: str  # status, title, back, icon, input, row, toggle, checkbox, button, tab, toast, text, dialog
    box: Box
    label: str | None = None
    icon: str | None = None
    state: bool | None = None
    target: str | None = None  # page opened by tapping, if any
    owner: str | None = None  # the row a trailing widget belongs to

    def to_json(self) -> dict[str, Any]:
        return {k: (list(v) if k == "box" else v) for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class Screen:
    """One page of one app in one state."""

    app: str
    page: str
    state: tuple[tuple[str, Any], ...]
    elements: tuple[Element, ...]
    size: tuple[int, int] = (WIDTH, HEIGHT)

    @property
    def modal(self) -> bool:
        """True while a dialog is open: only the dialog's own elements react to taps."""
        return any(e.role == "dialog" for e in self.elements)

    def active(self, e: Element) -> bool:
        """Whether ``e`` can be interacted with now (not covered by an open dialog)."""
        return not self.modal or e.id.startswith("dialog")

    def get(self, eid: str) -> Element:
        for e in self.elements:
            if e.id == eid:
                return e
        raise KeyError(eid)

    @property
    def key(self) -> str:
        return f"{self.app}.{self.page}." + ".".join(f"{k}={v}" for k, v in self.state)

    def to_json(self) -> dict[str, Any]:
        return {"app": self.app, "page": self.page, "state": dict(self.state), "size": list(self.size),
                "elements": [e.to_json() for e in self.elements]}


@dataclass(frozen=True)
class Row:
    label: str
    trailing: str = "chevron"  # chevron | toggle | checkbox | button | heart | none
    key: str | None = None  # state key (toggle/checkbox/heart) or page (chevron)
    icon: str | None = None
    button: str | None = None  # label of a trailing button


@dataclass(frozen=True)
class Page:
    title: str
    rows: tuple[Row, ...]
    back: bool = False
    actions: tuple[tuple[str, str | None], ...] = ()  # (icon, page it opens or None)
    search: str | None = None  # placeholder key of a search input
    bottom_button: str | None = None
    tabs: tuple[tuple[str, str], ...] = ()  # (icon, label)
    tab_selected: int = 0
    show_rows_if: str | None = None  # state key that must be on for rows after the first
    extra: dict[str, Any] = field(default_factory=dict)


SETTINGS_TABS: tuple[tuple[str, str], ...] = ()
APPS: dict[str, dict[str, Page]] = {
    "settings": {
        "root": Page("settings", (Row("wifi", key="wifi_page"), Row("bluetooth", key="bluetooth_page"),
                                  Row("airplane", "toggle", "airplane"), Row("dnd", "toggle", "dnd"),
                                  Row("dark_mode", "toggle", "dark"), Row("display", key="display_page"),
                                  Row("sound", key="sound_page"), Row("battery", key="battery_page")),
                     actions=(("search", None),)),
        "wifi_page": Page("wifi", (Row("wifi", "toggle", "wifi"), Row("Home-5G", "none"), Row("Office", "none"), Row("Café", "none")),
                          back=True, show_rows_if="wifi"),
        "bluetooth_page": Page("bluetooth", (Row("bluetooth", "toggle", "bt"), Row("headphones", "none")), back=True, show_rows_if="bt"),
        "display_page": Page("display", (Row("dark_mode", "toggle", "dark"), Row("auto_rotate", "toggle", "rotate")), back=True),
        "sound_page": Page("sound", (Row("vibrate", "toggle", "vibrate"), Row("dnd", "toggle", "dnd")), back=True),
        "battery_page": Page("battery", (Row("battery_saver", "toggle", "saver"),), back=True),
    },
    "clock": {
        "alarms": Page("alarm", (Row("07:00", "toggle", "a1"), Row("08:30", "toggle", "a2"), Row("22:15", "toggle", "a3")),
                       actions=(("plus", "new_alarm"),), tabs=(("bell", "alarm"), ("play", "timer"), ("home", "stopwatch"))),
        "new_alarm": Page("new_alarm", (), back=True, search="alarm_name", bottom_button="save"),
    },
    "messages": {
        "chats": Page("messages", (Row("anna", "none", icon="user"), Row("max", "none", icon="user"), Row("lena", "none", icon="user")),
                      actions=(("camera", None), ("plus", None)), search="search",
                      tabs=(("bell", "chats"), ("user", "contacts"), ("gear", "settings"))),
    },
    "notes": {
        "list": Page("notes", (Row("shopping_list", "checkbox", "n1"), Row("meeting", "checkbox", "n2"), Row("ideas", "checkbox", "n3")),
                     actions=(("trash", None), ("plus", "new_note"))),
        "new_note": Page("new_note", (), back=True, search="type_here", bottom_button="save", actions=(("share", None),)),
    },
    "shop": {
        "home": Page("shop", (Row("headphones", "button", button="add_to_cart"), Row("backpack", "button", button="add_to_cart"),
                              Row("smart_watch", "button", button="add_to_cart")),
                     actions=(("cart", "cart"),), search="search",
                     tabs=(("home", "home"), ("cart", "cart"), ("user", "profile"))),
        "cart": Page("cart", (), back=True, bottom_button="checkout"),
    },
    "music": {
        "library": Page("library", (Row("Blue Sky", "heart", "f1"), Row("Night Drive", "heart", "f2"), Row("Ocean", "heart", "f3")),
                        actions=(("search", None), ("share", None)), bottom_button=None,
                        tabs=(("home", "home"), ("play", "library"), ("heart", "favorites")), tab_selected=1),
    },
    "files": {
        "root": Page("files", (Row("documents", "checkbox", "d1"), Row("photos", "checkbox", "d2"), Row("downloads", "checkbox", "d3")),
                     actions=(("trash", None), ("share", None), ("search", None))),
    },
    "browser": {
        "start": Page("browser", (Row("news", "none", icon="globe"), Row("weather", "none", icon="globe"),
                                  Row("recipes", "none", icon="globe")),
                      actions=(("share", None), ("gear", "browser_settings")), search="search_or_url"),
        "browser_settings": Page("settings", (Row("block_popups", "toggle", "popups"), Row("save_passwords", "toggle", "passwords"),
                                              Row("desktop_site", "toggle", "desktop")), back=True),
    },
}
ROOT_PAGES = {"settings": "root", "clock": "alarms", "messages": "chats", "notes": "list", "shop": "home", "music": "library",
              "files": "root", "browser": "start"}
# What each icon does (WF answers), seed section 3.2: widget function from visual cues.
ICON_FUNCTIONS = {"gear": "fn_settings", "search": "fn_search", "plus": "fn_add", "trash": "fn_delete", "share": "fn_share",
                  "heart": "fn_like", "bell": "fn_notify", "back": "fn_back", "cart": "fn_cart", "play": "fn_play",
                  "user": "fn_profile", "home": "fn_home", "camera": "fn_camera"}
# Pages whose trash icon deletes the checked rows after a confirmation dialog.
DELETABLE = {("files", "root"), ("notes", "list")}
DIALOG_BOX: Box = (32, 250, WIDTH - 32, 430)


def screen(app: str, page: str, state: dict[str, Any]) -> Screen:
    """Lay out ``APPS[app][page]`` in ``state``: every element with its box."""
    return layout(APPS[app][page], app, page, state)


def layout(spec: Page, app: str, page: str, state: dict[str, Any]) -> Screen:
    """Lay out any ``Page`` spec (also pages of other worlds, e.g. the SPHINX simulator) in ``state``."""
    els: list[Element] = [Element("status", "status", (0, 0, WIDTH, STATUS_H))]
    if spec.back:
        els.append(Element("back", "back", (8, STATUS_H + 12, 40, STATUS_H + 44), icon="back"))
    els.append(Element("title", "title", (56, STATUS_H + 8, WIDTH - 96, STATUS_H + 48), label=spec.title))
    for i, (icon, target) in enumerate(reversed(spec.actions)):
        x2 = WIDTH - 12 - i * 40
        els.append(Element(f"action_{icon}", "icon", (x2 - 32, STATUS_H + 12, x2, STATUS_H + 44), icon=icon, target=target))
    y = CONTENT_TOP
    if spec.search:
        els.append(Element("input", "input", (16, y, WIDTH - 16, y + 40), label=spec.search, state=bool(state.get("typed")), icon="search"))
        y += 52
    if page == "cart":
        items = [k for k in ("headphones", "backpack", "smart_watch") if state.get(f"cart_{k}")]
        rows = tuple(Row(k, "none") for k in items) or (Row("empty_cart", "none"),)
    else:
        rows = spec.rows
        if spec.show_rows_if and not state.get(spec.show_rows_if):
            rows = rows[:1]
        rows = tuple(r for r in rows if not state.get(f"gone_{r.key}"))
    for i, row in enumerate(rows):
        rid = f"row_{row.label}".replace(":", "").replace(" ", "_").replace("-", "_")
        target = row.key if row.trailing == "chevron" else None
        els.append(Element(rid, "row", (0, y, WIDTH, y + ROW_H), label=row.label, icon=row.icon, target=target))
        cy = y + ROW_H // 2
        if row.trailing == "toggle":
            els.append(Element(f"{rid}_toggle", "toggle", (WIDTH - 68, cy - 14, WIDTH - 16, cy + 14), label=row.label,
                               state=bool(state.get(row.key)), owner=rid))
        elif row.trailing == "checkbox":
            els.append(Element(f"{rid}_check", "checkbox", (WIDTH - 48, cy - 12, WIDTH - 24, cy + 12), label=row.label,
                               state=bool(state.get(row.key)), owner=rid))
        elif row.trailing == "heart":
            els.append(Element(f"{rid}_heart", "icon", (WIDTH - 52, cy - 14, WIDTH - 24, cy + 14), icon="heart",
                               state=bool(state.get(row.key)), owner=rid))
        elif row.trailing == "button":
            els.append(Element(f"{rid}_button", "button", (WIDTH - 124, cy - 16, WIDTH - 16, cy + 16), label=row.button, owner=rid))
        elif row.trailing == "chevron":
            els.append(Element(f"{rid}_chevron", "text", (WIDTH - 32, cy - 10, WIDTH - 16, cy + 10), icon="chevron", owner=rid))
        y += ROW_H
    bottom = HEIGHT - (TAB_H if spec.tabs else 0)
    if spec.bottom_button:
        els.append(Element(f"button_{spec.bottom_button}", "button", (24, bottom - 64, WIDTH - 24, bottom - 20), label=spec.bottom_button))
    if state.get("toast"):
        els.append(Element("toast", "toast", (48, bottom - 120, WIDTH - 48, bottom - 84), label=state["toast"]))
    if spec.tabs:
        w = WIDTH // len(spec.tabs)
        for i, (icon, lab) in enumerate(spec.tabs):
            els.append(Element(f"tab_{lab}", "tab", (i * w, HEIGHT - TAB_H, (i + 1) * w, HEIGHT), label=lab, icon=icon,
                               state=i == spec.tab_selected))
    if state.get("dialog"):
        x1, y1, x2, y2 = DIALOG_BOX
        els.append(Element("dialog", "dialog", DIALOG_BOX, label="delete_confirm"))
        els.append(Element("dialog_cancel", "button", (x1 + 16, y2 - 60, (x1 + x2) // 2 - 8, y2 - 16), label="cancel", owner="dialog"))
        els.append(Element("dialog_delete", "button", ((x1 + x2) // 2 + 8, y2 - 60, x2 - 16, y2 - 16), label="delete", owner="dialog"))
    return Screen(app, page, tuple(sorted(state.items())), tuple(els))


def tap(scr: Screen, eid: str) -> tuple[str, dict[str, Any], str]:
    """The page and state after tapping ``eid``, and the outcome key (an ``OUTCOMES`` entry)."""
    el = scr.get(eid)
    state = dict(scr.state)
    state.pop("toast", None)
    page = scr.page
    if not scr.active(el):
        return page, dict(scr.state), "none"
    if el.id == "dialog_cancel":
        state.pop("dialog", None)
        return page, state, "out_dialog_closed"
    if el.id == "dialog_delete":
        state.pop("dialog", None)
        for key in checked_keys(scr):
            state[key], state[f"gone_{key}"] = False, True
        return page, {**state, "toast": "deleted"}, "out_deleted"
    if el.role == "icon" and el.icon == "trash" and (scr.app, page) in DELETABLE:
        if checked_keys(scr):
            return page, {**state, "dialog": True}, "out_dialog"
        return page, {**state, "toast": "select_first"}, "out_select_first"
    if el.role in ("toggle", "checkbox") or (el.role == "icon" and el.icon == "heart" and el.owner):
        key = state_key(scr, el)
        state[key] = not el.state
        outcome = ("out_on" if not el.state else "out_off") if el.role == "toggle" else "out_checked"
        return page, state, outcome
    if el.role == "back":
        return _parent(scr.app, page), state, "out_back"
    if el.role == "input":
        return page, {**state, "typed": False}, "out_keyboard"
    if el.role == "button" and el.label == "add_to_cart":
        item = scr.get(el.owner).label
        return page, {**state, f"cart_{item}": True, "toast": "added"}, "out_added"
    if el.target:
        return el.target, state, "out_open"
    return page, state, "none"


def checked_keys(scr: Screen) -> list[str]:
    """State keys of the rows whose checkbox is ticked on ``scr``."""
    return [state_key(scr, e) for e in scr.elements if e.role == "checkbox" and e.state]


def state_key(scr: Screen, el: Element) -> str:
    row = scr.get(el.owner)
    for r in APPS[scr.app][scr.page].rows:
        if r.label == row.label:
            return r.key
    raise KeyError(el.id)


def _parent(app: str, page: str) -> str:
    return "root" if app == "settings" else ROOT_PAGES[app]


def restate(scr: Screen, page: str, state: dict[str, Any]) -> Screen:
    """The screen of the same app on ``page`` in ``state``."""
    return screen(scr.app, page, state)


def with_state(scr: Screen, **changes: Any) -> Screen:
    return screen(scr.app, scr.page, {**dict(scr.state), **changes})


__all__ = ["APPS", "ROOT_PAGES", "ICON_FUNCTIONS", "DELETABLE", "Element", "Screen", "checked_keys", "layout", "screen", "state_key", "tap", "restate",
           "with_state"]
