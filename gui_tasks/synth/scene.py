"""Scenes of the synthetic GUI world: small apps whose pages are pure functions of their state.

A ``Screen`` lists every element with its role, label key, state and box in pixels of the
rendered image. Boxes come from the layout grid, never from text width, so the six
languages share one layout. ``tap`` is the transition function that AU/AP questions and
RI/SI sequences are derived from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gui_tasks.synth import i18n

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
    text: str | None = None  # verbatim text typed into an input (GUI Knowledge Bench type actions)

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
# A desktop file manager for the desktop action types of GUI Knowledge Bench (seed section 3.4, appendix A.3): a
# single click selects a file, a double click opens it, a right click opens its context menu, dragging it onto
# the Archive folder moves it there, ctrl a selects everything. Kept out of APPS so the MPR-GUI sets stay as they are.
FILE_NAMES = ("report.pdf", "photo.png", "notes.txt", "budget.xlsx", "slides.pptx", "song.mp3")
DESKTOP_APPS: dict[str, dict[str, Page]] = {
    "explorer": {
        "root": Page("files", tuple(Row(n, "none", icon="doc") for n in FILE_NAMES) + (Row("archive", "none", icon="folder"),),
                     search="search", actions=(("share", None),)),
        "viewer": Page("files", (), back=True),
    },
}
ALL_APPS: dict[str, dict[str, Page]] = {**APPS, **DESKTOP_APPS}
MENU_ITEMS = ("open", "rename", "delete")
ROOT_PAGES = {"explorer": "root", "settings": "root", "clock": "alarms", "messages": "chats", "notes": "list", "shop": "home", "music": "library",
              "files": "root", "browser": "start"}
# What each icon does (WF answers), seed section 3.2: widget function from visual cues.
ICON_FUNCTIONS = {"gear": "fn_settings", "search": "fn_search", "plus": "fn_add", "trash": "fn_delete", "share": "fn_share",
                  "heart": "fn_like", "bell": "fn_notify", "back": "fn_back", "cart": "fn_cart", "play": "fn_play",
                  "user": "fn_profile", "home": "fn_home", "camera": "fn_camera"}
# Pages whose trash icon deletes the checked rows after a confirmation dialog.
DELETABLE = {("files", "root"), ("notes", "list")}
DIALOG_BOX: Box = (32, 250, WIDTH - 32, 430)
# Content that varies per screen in the MPR-GUI world (issue 22), all verbatim so no translation is needed: the app's
# brand (title of its root page and name in the status bar, state key "brand") and the names of dynamic rows
# (state key "rows_<page>": names joined by "|"), and the order of a page's rows (state key "order_<page>"). Many titles,
# names and layouts make content splits possible.
BRANDS: dict[str, tuple[str, ...]] = {
    "settings": ("Zenith OS", "Pixelon", "Nova UI", "Orbit", "Lumen", "Kestrel", "Quartz", "Helio"),
    "clock": ("TickTock", "Chrona", "WakeUp!", "Dawnly", "Alarmo", "Hourglass", "Snoozy", "Timely"),
    "messages": ("ChatterBox", "Pigeon", "Hiya", "Talkie", "Parley", "Murmur", "Ripple", "Yapp"),
    "notes": ("Notely", "Jotter", "MemoPad", "Scribbly", "Inkwell", "Noted", "Quill", "PaperTrail"),
    "shop": ("Shopora", "CartWheel", "BuyBuy", "Marketo", "Bazaarly", "Dealio", "Stockroom", "Emporia"),
    "music": ("Tunely", "Groovebox", "Melodia", "Soundwave", "Beatnik", "Echoes", "Vinylo", "Harmonia"),
    "files": ("FileNest", "Docket", "Foldr", "Stashy", "Binder", "Archiva", "Drawer", "Cabinet"),
    "browser": ("Voyager", "Surfly", "Pathfinder", "Webly", "Compass", "Roamer", "Navi", "Trailhead"),
    # the desktop file manager (GUI Knowledge Bench interaction questions): its splits by brand too
    "explorer": ("FileDeck", "Folderly", "Shelfy", "DiskView", "Crate", "Ledger", "Vaultr", "Satchel"),
}
DYNAMIC_ROWS: dict[tuple[str, str], tuple[str, ...]] = {
    ("files", "root"): ("IMG_0412.jpg", "taxes_2024.pdf", "invoice_88.pdf", "holiday.mp4", "cv_final.docx", "plan_v2.xlsx",
                        "notes_0311.txt", "scan_017.pdf", "logo.svg", "backup.zip", "draft_3.docx", "map.png", "tickets.pdf",
                        "recipe.txt", "budget_q3.xlsx", "IMG_7731.jpg", "demo.wav", "lecture_5.pdf", "contract.pdf", "poster.png"),
    ("music", "library"): ("Blue Sky", "Night Drive", "Ocean", "Golden Hour", "Paper Moon", "Red River", "Neon Rain",
                           "Silver Lining", "Slow Motion", "First Light", "Wild Horses", "Echo Park", "Midnight Train",
                           "Summer Haze", "Northern Lights", "Open Road"),
    ("clock", "alarms"): tuple(f"{h:02d}:{m:02d}" for h in range(5, 24) for m in (0, 15, 30, 45)),
}
i18n.add_verbatim([b for names in BRANDS.values() for b in names] + [n for names in DYNAMIC_ROWS.values() for n in names])


def screen(app: str, page: str, state: dict[str, Any]) -> Screen:
    """Lay out ``ALL_APPS[app][page]`` in ``state``: every element with its box."""
    return layout(ALL_APPS[app][page], app, page, state)


def layout(spec: Page, app: str, page: str, state: dict[str, Any]) -> Screen:
    """Lay out any ``Page`` spec (also pages of other worlds, e.g. the SPHINX simulator) in ``state``."""
    els: list[Element] = [Element("status", "status", (0, 0, WIDTH, STATUS_H), label=state.get("brand"))]
    if spec.back:
        els.append(Element("back", "back", (8, STATUS_H + 12, 40, STATUS_H + 44), icon="back"))
    title = state.get("open_file", spec.title) if page == "viewer" else spec.title
    if state.get("brand") and ROOT_PAGES.get(app) == page:
        title = state["brand"]
    els.append(Element("title", "title", (56, STATUS_H + 8, WIDTH - 96, STATUS_H + 48), label=title))
    for i, (icon, target) in enumerate(reversed(spec.actions)):
        x2 = WIDTH - 12 - i * 40
        els.append(Element(f"action_{icon}", "icon", (x2 - 32, STATUS_H + 12, x2, STATUS_H + 44), icon=icon, target=target))
    y = CONTENT_TOP
    if spec.search:
        els.append(Element("input", "input", (16, y, WIDTH - 16, y + 40), label=spec.search, state=bool(state.get("typed")), icon="search",
                           text=state.get("typed_text")))
        y += 52
    if page == "cart":
        items = [k for k in ("headphones", "backpack", "smart_watch") if state.get(f"cart_{k}")]
        rows = tuple(Row(k, "none") for k in items) or (Row("empty_cart", "none"),)
    else:
        rows = page_rows(spec, app, page, state)
        if spec.show_rows_if and not state.get(spec.show_rows_if):
            rows = rows[:1]
        rows = tuple(r for r in rows if not state.get(f"gone_{r.key}") and not state.get(f"moved_{r.label}"))
        rows = rows[int(state.get("scroll", 0)):]  # scrolled lists start further down (GUI Knowledge Bench scrolls)
    menu_at: tuple[int, int] | None = None
    for i, row in enumerate(rows):
        rid = f"row_{row.label}".replace(":", "").replace(" ", "_").replace("-", "_")
        target = row.key if row.trailing == "chevron" else None
        els.append(Element(rid, "row", (0, y, WIDTH, y + ROW_H), label=row.label, icon=row.icon, target=target,
                           state=True if state.get("selected") == row.label or state.get("all_selected") else None))
        if state.get("menu") == row.label:  # a right-click context menu below the row
            menu_at = (120, y + ROW_H - 8)
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
    if menu_at is not None:
        mx, my = menu_at
        els.append(Element("menu", "menu", (mx, my, mx + 160, my + 32 * len(MENU_ITEMS) + 8)))
        for i, item in enumerate(MENU_ITEMS):
            els.append(Element(f"menu_{item}", "menuitem", (mx + 4, my + 4 + 32 * i, mx + 156, my + 36 + 32 * i), label=item, owner="menu"))
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


# Pages whose rows are selected by a long press (a selection bar appears), and how far one scroll moves a list.
LONG_PRESS_SELECT = {("messages", "chats")}
SCROLL_ROWS = 2
MIN_SCROLL_ROWS = 6  # lists shorter than this do not scroll


def long_press(scr: Screen, eid: str) -> tuple[str, dict[str, Any], str]:
    """The page and state after a long press on ``eid``: chat rows become selected; elsewhere nothing happens."""
    el = scr.get(eid)
    state = dict(scr.state)
    state.pop("toast", None)
    if scr.active(el) and el.role == "row" and (scr.app, scr.page) in LONG_PRESS_SELECT and not el.state:
        return scr.page, {**state, "selected": el.label, "toast": "selected_one"}, "out_selected"
    return scr.page, dict(scr.state), "none"


def type_text(scr: Screen, text: str) -> tuple[str, dict[str, Any], str]:
    """The page and state after typing ``text`` (verbatim) into the page's input field."""
    if not any(e.role == "input" and scr.active(e) for e in scr.elements):
        return scr.page, dict(scr.state), "none"
    state = {k: v for k, v in scr.state if k != "toast"}
    return scr.page, {**state, "typed": True, "typed_text": text}, "out_typed"


def scroll(scr: Screen, direction: str) -> tuple[str, dict[str, Any], str]:
    """The page and state after scrolling the list (``"DOWN"`` reveals rows further down)."""
    state = {k: v for k, v in scr.state if k not in ("toast", "menu")}
    spec = ALL_APPS[scr.app][scr.page]
    offset = int(state.get("scroll", 0))
    n = len(spec.rows)
    if scr.modal or n < MIN_SCROLL_ROWS or direction not in ("UP", "DOWN"):
        return scr.page, dict(scr.state), "none"
    new = min(offset + SCROLL_ROWS, n - 1 - SCROLL_ROWS) if direction == "DOWN" else max(offset - SCROLL_ROWS, 0)
    if new == offset:
        return scr.page, dict(scr.state), "none"
    if new:
        state["scroll"] = new
    else:
        state.pop("scroll", None)
    return scr.page, state, "out_scrolled"


def _file_row(scr: Screen, eid: str) -> Element | None:
    el = scr.get(eid)
    return el if scr.app == "explorer" and scr.page == "root" and el.role == "row" and el.label in FILE_NAMES else None


def desktop_click(scr: Screen, eid: str) -> tuple[str, dict[str, Any], str]:
    """A single left click: selects a file (closing any menu); menu items act; anything else as ``tap``."""
    el = scr.get(eid)
    state = {k: v for k, v in scr.state if k not in ("toast", "menu", "all_selected")}
    if el.role == "menuitem":
        name = dict(scr.state)["menu"]
        if el.label == "open":
            return "viewer", {**state, "open_file": name}, "out_open"
        if el.label == "delete":
            return scr.page, {**state, f"moved_{name}": True, "toast": "deleted"}, "out_deleted"
        return scr.page, state, "out_menu_closed"
    row = _file_row(scr, eid)
    if row is not None:
        return scr.page, {**state, "selected": row.label}, "out_selected"
    if scr.app == "explorer" and dict(scr.state).get("menu"):
        return scr.page, state, "out_menu_closed"
    return tap(scr, eid)


def double_click(scr: Screen, eid: str) -> tuple[str, dict[str, Any], str]:
    """A double click opens a file in the viewer; elsewhere it acts like a click."""
    row = _file_row(scr, eid)
    if row is None:
        return desktop_click(scr, eid)
    state = {k: v for k, v in scr.state if k not in ("toast", "menu", "all_selected", "selected", "scroll")}
    return "viewer", {**state, "open_file": row.label}, "out_open"


def right_click(scr: Screen, eid: str) -> tuple[str, dict[str, Any], str]:
    """A right click opens the context menu of a file; elsewhere nothing happens."""
    row = _file_row(scr, eid)
    if row is None or dict(scr.state).get("menu") == row.label:
        return scr.page, dict(scr.state), "none"
    state = {k: v for k, v in scr.state if k != "toast"}
    return scr.page, {**state, "menu": row.label, "selected": row.label}, "out_menu"


def drag(scr: Screen, src: str, dst: str) -> tuple[str, dict[str, Any], str]:
    """Dragging a file onto the Archive folder moves it there; any other drag changes nothing."""
    row, target = _file_row(scr, src), scr.get(dst)
    if row is None or target.role != "row" or target.label != "archive":
        return scr.page, dict(scr.state), "none"
    state = {k: v for k, v in scr.state if k not in ("toast", "menu", "selected", "all_selected")}
    return scr.page, {**state, f"moved_{row.label}": True, "toast": "moved"}, "out_moved"


def hotkey(scr: Screen, keys: str) -> tuple[str, dict[str, Any], str]:
    """``ctrl a`` selects every row of the file manager; other shortcuts change nothing here."""
    if scr.app != "explorer" or scr.page != "root" or sorted(keys.lower().split()) != ["a", "ctrl"]:
        return scr.page, dict(scr.state), "none"
    state = {k: v for k, v in scr.state if k not in ("toast", "menu", "selected")}
    return scr.page, {**state, "all_selected": True}, "out_all_selected"


def checked_keys(scr: Screen) -> list[str]:
    """State keys of the rows whose checkbox is ticked on ``scr``."""
    return [state_key(scr, e) for e in scr.elements if e.role == "checkbox" and e.state]


def page_rows(spec: Page, app: str, page: str, state: dict[str, Any]) -> tuple[Row, ...]:
    """The rows of ``spec`` in ``state``: a dynamic page's rows carry the names in ``state["rows_<page>"]``."""
    rows = spec.rows
    names = state.get(f"rows_{page}")
    if names and (app, page) in DYNAMIC_ROWS:
        rows = tuple(Row(n, r.trailing, r.key, r.icon, r.button) for r, n in zip(rows, str(names).split("|")))
    order = state.get(f"order_{page}")  # a permutation of the rows, e.g. "2,0,1"
    if order:
        rows = tuple(rows[int(i)] for i in str(order).split(","))
    return rows


def state_key(scr: Screen, el: Element) -> str:
    row = scr.get(el.owner)
    for r in page_rows(APPS[scr.app][scr.page], scr.app, scr.page, dict(scr.state)):
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


__all__ = ["BRANDS", "DYNAMIC_ROWS", "page_rows", "APPS", "ROOT_PAGES", "ICON_FUNCTIONS", "DELETABLE", "Element", "Screen", "checked_keys", "layout", "screen", "state_key", "tap", "restate",
           "with_state", "long_press", "type_text", "scroll", "DESKTOP_APPS", "ALL_APPS", "FILE_NAMES", "desktop_click",
           "double_click", "right_click", "drag", "hotkey"]
