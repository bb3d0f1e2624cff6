"""The simulated apps of the SPHINX / StaR mobile world (``gui_tasks.sphinx.simulator``): their pages, roots, parents
and launcher names, the page-scoped keys of transient UI state, and how the apps' proper names are drawn verbatim.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable, Iterator

from gui_tasks.synth import i18n
from gui_tasks.synth.scene import ROW_H, Page, Row, Screen

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
