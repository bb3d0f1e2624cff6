"""A real Android phone or emulator behind adb, driven through the simulator's ``Device`` protocol.

Observations are a uiautomator dump (``Hierarchy``), the focused activity from ``dumpsys window`` and a
``screencap`` taken on the first ``screenshot()`` call. Actions are Table 2 dicts; an element is the agent's
``index`` (element id ``[i]`` of the last observation, i.e. ``Hierarchy.element_ids(rendering)[i]``) or ``element``
as a bounds string ``"[x1,y1][x2,y2]"``, acted on at its centre; ``point`` is a screen pixel. As in the
simulator, an action that names nothing on screen, or is malformed, sends nothing.

Every adb call goes through ``runner`` (``subprocess.run``-compatible), so tests use a fake one.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

from gui_core.images import ImageRefused, decode
from gui_core.errors import DataError
from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, Hierarchy, center, parse_bounds
from gui_tasks.sphinx.simulator import FINGER_MOTION, as_point

KEYCODE_HOME, KEYCODE_BACK, KEYCODE_DEL, KEYCODE_ENTER, KEYCODE_MOVE_END = 3, 4, 67, 66, 123
KEYCODES = {"back": KEYCODE_BACK, "home": KEYCODE_HOME, "enter": KEYCODE_ENTER}
LONG_PRESS_MS = 1000  # a long click is a swipe that stays in place this long
SWIPE_MS = 300  # duration of a swipe gesture
SWIPE_DISTANCE = 600  # device pixels a direction swipe drags the finger (``FINGER_MOTION`` convention)
WAIT_SECONDS = 2.0  # ``press [wait]``: time given to the app to render
ADB_TIMEOUT = 60.0  # seconds before an adb call counts as failed
DUMP_PATH = "/sdcard/window_dump.xml"  # where uiautomator writes the view hierarchy
SCREENCAP = ("exec-out", "screencap", "-p")  # PNG bytes on stdout, unmangled (exec-out has no tty)
_EDITABLE = ("EditText", "AutoCompleteTextView")  # view classes whose current text ``text`` replaces
_FOCUS = re.compile(r"(?P<key>mCurrentFocus|mFocusedApp)=.*?(?P<pkg>[\w.]+)/(?P<cls>[\w.$]+)")

MAX_OUTPUT_BYTES = 32 << 20  # adb output read per call; more is refused (a 2560x1600 screencap PNG is < 16 MiB)
# The grammar of what reaches the device shell (adb joins shell arguments with spaces and the device shell re-parses
# them): a package name is dot-separated Java-identifier segments of [A-Za-z0-9_], each starting with a letter
# (Android's applicationId rules, developer.android.com/build/configure-app-module); an activity class adds ``$``;
# a serial is what ``adb devices`` prints: letters, digits and ``._:-`` (emulator-5554, 192.168.1.2:5555,
# adb-XXXX._adb-tls-connect._tcp), starting with a letter or digit.
PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*")
ACTIVITY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*|\.[A-Za-z_$][A-Za-z0-9_$.]*")
SERIAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
MAX_NAME = 255


def check_name(kind: str, value: Any, grammar: re.Pattern[str] | None = None) -> str:
    """``value`` when it is a valid ``kind`` (``package``, ``activity``, ``serial``) by its grammar; ValueError naming
    it otherwise, before it can reach adb or a file path."""
    grammar = grammar or {"package": PACKAGE, "activity": ACTIVITY, "serial": SERIAL}[kind]
    if not isinstance(value, str) or len(value) > MAX_NAME or not grammar.fullmatch(value):
        raise ValueError(f"{kind} {str(value)[:80]!r} is not a valid Android {kind} name (it never reaches adb)")
    return value


def bounded_run(argv: Sequence[str], *, timeout: float, max_bytes: int = MAX_OUTPUT_BYTES,
                **_: Any) -> "subprocess.CompletedProcess[bytes]":
    """``subprocess.run(argv, capture_output=True, timeout=...)`` that reads at most ``max_bytes`` of stdout (and of
    stderr): a process that writes more is killed and AdbError names the bound (a 200 MB dump would otherwise be
    held whole in memory and end up in a prompt)."""
    import threading

    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    bufs: dict[str, bytearray] = {"out": bytearray(), "err": bytearray()}
    over = threading.Event()

    def pump(stream: Any, buf: bytearray) -> None:
        while True:
            chunk = stream.read1(1 << 16)
            if not chunk:
                return
            if len(buf) + len(chunk) > max_bytes:
                over.set()
                proc.kill()
                return
            buf += chunk

    threads = [threading.Thread(target=pump, args=(proc.stdout, bufs["out"]), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, bufs["err"]), daemon=True)]
    for t in threads:
        t.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    finally:
        for t in threads:
            t.join(timeout=5)
        proc.stdout.close()
        proc.stderr.close()
    if over.is_set():
        raise AdbError(argv, f"output larger than {max_bytes} bytes; refused")
    return subprocess.CompletedProcess(list(argv), proc.returncode, bytes(bufs["out"]), bytes(bufs["err"]))


Runner = Callable[..., "subprocess.CompletedProcess[bytes]"]


class AdbError(RuntimeError):
    """An adb command failed (non-zero exit, timeout, missing adb) or gave output that cannot be used."""

    def __init__(self, argv: Sequence[str], detail: str) -> None:
        self.argv = list(argv)
        super().__init__(f"adb command failed: {' '.join(self.argv)}: {detail}")


def escape_text(text: str) -> str:
    """``text`` as an argument of ``adb shell input text``: spaces become ``%s`` (input's own escape) and every
    other non-alphanumeric character is backslash-quoted for the device shell. ``input text`` types printable
    ASCII only, and turns a literal ``%s`` into a space."""
    bad = [c for c in text if not " " <= c <= "~"]
    if bad:
        raise ValueError(f"adb input text types printable ASCII only; cannot type {''.join(bad)!r} in {text!r}")
    return "".join("%s" if c == " " else c if c.isalnum() else "\\" + c for c in text)


def parse_activity(dumpsys: str) -> tuple[str, str]:
    """(package, activity class) of the focused window in ``dumpsys window`` output; ``mCurrentFocus`` is preferred
    to ``mFocusedApp``, a short ``.Name`` is expanded with the package; ("", "") when neither names an activity."""
    found: dict[str, tuple[str, str]] = {}
    for m in _FOCUS.finditer(dumpsys):  # the first display's line counts
        found.setdefault(m["key"], (m["pkg"], m["cls"]))
    for key in ("mCurrentFocus", "mFocusedApp"):
        if key in found:
            pkg, cls = found[key]
            return pkg, pkg + cls if cls.startswith(".") else cls
    return "", ""


def parse_dump(text: str, *, file: str = "adb:uiautomator dump") -> Hierarchy:
    """The view hierarchy in uiautomator output, ignoring anything printed around the XML document."""
    start, end = text.find("<?xml"), text.rfind("</hierarchy>")
    if start < 0:
        start = text.find("<hierarchy")
    if start < 0 or end < 0:
        raise DataError("no <hierarchy> document in uiautomator output", file=file)
    return Hierarchy.from_xml(text[start:end + len("</hierarchy>")], file=file)


@dataclass(frozen=True)
class AdbObservation:
    """One look at the device: the view tree and focused activity now, the screenshot on first request."""

    hierarchy: Hierarchy
    activity: tuple[str, str]
    device: AdbDevice = field(repr=False, compare=False)

    @cached_property
    def _png(self) -> bytes:
        return self.device.run(*SCREENCAP)

    def screenshot(self):
        """The screen as a PIL image, captured on the first call (take it before the next action); decoded under the
        pixel bound, a truncated or oversized screencap refused by name (``gui_core.images``)."""
        try:
            im = decode(self._png)
        except ImageRefused as exc:
            raise AdbError(self.device.argv(*SCREENCAP), f"screencap refused ({len(self._png)} bytes): {exc}") from exc
        return im.convert("RGB") if im.mode != "RGB" else im


class AdbDevice:
    """``Device`` over adb: ``serial`` selects the device (``adb -s``), ``package`` is the app ``reset`` and
    ``restart`` launch, ``sleep`` waits for ``press [wait]`` (injectable for tests); ``rendering`` numbers the
    elements an ``index`` names (that of the observations shown to the agent)."""

    def __init__(self, serial: str | None = None, adb: str = "adb", runner: Runner = bounded_run, *,
                 package: str | None = None, sleep: Callable[[float], None] = time.sleep, wait_seconds: float = WAIT_SECONDS,
                 rendering: str = DEFAULT_RENDERING) -> None:
        self.rendering = rendering
        if serial is not None:
            check_name("serial", serial)
        if package is not None:
            check_name("package", package)
        self.serial, self.adb, self.runner = serial, adb, runner
        self.package, self.sleep, self.wait_seconds = package, sleep, wait_seconds
        self.last: AdbObservation | None = None

    # --- adb plumbing ----------------------------------------------------------------------
    def argv(self, *args: str) -> list[str]:
        """The full command line of an adb call."""
        return [self.adb] + (["-s", self.serial] if self.serial else []) + list(args)

    def run(self, *args: str) -> bytes:
        """Run ``adb [-s serial] args...``; its stdout, or AdbError naming the command."""
        argv = self.argv(*args)
        try:
            done = self.runner(argv, capture_output=True, timeout=ADB_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AdbError(argv, str(exc)) from exc
        if len(done.stdout or b"") > MAX_OUTPUT_BYTES:  # an injected runner that read it all
            raise AdbError(argv, f"output larger than {MAX_OUTPUT_BYTES} bytes; refused")
        if done.returncode != 0:
            err = (done.stderr or done.stdout or b"").decode("utf-8", "replace").strip()
            raise AdbError(argv, f"exit status {done.returncode}: {err}")
        return done.stdout or b""

    def shell(self, *args: str) -> bytes:
        """Run a command in the device shell (which re-parses the joined arguments: see ``escape_text``)."""
        return self.run("shell", *args)

    # --- Device protocol -------------------------------------------------------------------
    def reset(self, initial: Mapping[str, Any] | None = None) -> AdbObservation:
        """Relaunch the app (``initial["package"]`` or the configured one; the home screen if none).

        A real device cannot be put into an arbitrary state, so ``initial`` may only be empty or
        ``{"package": ...}``; any other key raises ValueError."""
        extra = sorted(set(initial or {}) - {"package"})
        if extra:
            raise ValueError(f"AdbDevice.reset cannot set device state {extra}: a real device starts as it is; "
                             "pass {} or {'package': <app package>}")
        self.package = (initial or {}).get("package", self.package)
        if self.package:
            self.launch(self.package)
        else:
            self.shell("input", "keyevent", str(KEYCODE_HOME))
        return self.observe()

    def observe(self) -> AdbObservation:
        dump = ("shell", "uiautomator", "dump", DUMP_PATH)
        out = self.run(*dump).decode("utf-8", "replace")
        if "dumped to" not in out:  # uiautomator reports some failures (e.g. no idle state) with exit status 0
            raise AdbError(self.argv(*dump), out.strip() or "no dump written")
        tree = parse_dump(self.run("exec-out", "cat", DUMP_PATH).decode("utf-8", "replace"))
        activity = parse_activity(self.shell("dumpsys", "window").decode("utf-8", "replace"))
        self.last = AdbObservation(tree, activity, self)
        return self.last

    def act(self, action: Mapping[str, Any]) -> AdbObservation:
        """Send one SPHINX action (Table 2) and observe the result.

        click / longclick / text / swipe take ``index``, ``element`` (bounds) or ``point``; text taps the field,
        clears the text a known edit field holds and types ``text``; swipe goes ``to`` a point or
        ``SWIPE_DISTANCE`` in ``direction`` (the finger's motion, clamped to the screen); back, home and enter
        are key events; restart relaunches the app; wait sleeps ``wait_seconds``; stop sends nothing.
        Text ``escape_text`` cannot type raises ValueError before anything is sent."""
        kind = action.get("type") if isinstance(action, Mapping) else None
        if not isinstance(kind, str):
            kind = ""
        if kind in ("click", "longclick", "text", "swipe"):
            self._touch(kind, action)
        elif kind in KEYCODES:
            self.shell("input", "keyevent", str(KEYCODES[kind]))
        elif kind == "restart":
            if not self.package:
                raise ValueError("AdbDevice restart needs the app package: AdbDevice(package=...) or reset({'package': ...})")
            self.launch(self.package)
        elif kind == "wait":
            self.sleep(self.wait_seconds)
        return self.observe()

    # --- actions -----------------------------------------------------------------------------
    def launch(self, package: str) -> None:
        """Start ``package`` afresh at its launcher activity (a name outside the package grammar is refused first)."""
        check_name("package", package)
        self.shell("am", "force-stop", package)
        monkey = ("shell", "monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1")
        out = self.run(*monkey)
        if b"monkey aborted" in out:  # e.g. "No activities found to run": the package is not installed
            raise AdbError(self.argv(*monkey), out.decode("utf-8", "replace").strip())

    def _touch(self, kind: str, action: Mapping[str, Any]) -> None:
        tree = (self.last or self.observe()).hierarchy
        where = self.locate(tree, action, self.rendering)
        if where is None:
            return
        x, y = where
        if kind == "click":
            self.shell("input", "tap", str(x), str(y))
        elif kind == "longclick":
            self.shell("input", "swipe", str(x), str(y), str(x), str(y), str(LONG_PRESS_MS))
        elif kind == "text" and isinstance(action.get("text"), str):
            typed = escape_text(action["text"])
            self.shell("input", "tap", str(x), str(y))
            node = tree.at(x, y)
            if node is not None and node.get("class").endswith(_EDITABLE) and node.get("text"):
                self.shell("input", "keyevent", str(KEYCODE_MOVE_END), *[str(KEYCODE_DEL)] * len(node.get("text")))
            if typed:
                self.shell("input", "text", typed)
        elif kind == "swipe":
            end = self._swipe_end(tree, (x, y), action)
            if end is not None:
                self.shell("input", "swipe", str(x), str(y), str(end[0]), str(end[1]), str(SWIPE_MS))

    @staticmethod
    def locate(tree: Hierarchy, action: Mapping[str, Any], rendering: str = DEFAULT_RENDERING) -> tuple[int, int] | None:
        """The pixel an action touches: the centre of element ``index`` (numbered by ``rendering``) or of
        ``element`` bounds, or ``point``."""
        if "index" in action:
            ids = tree.element_ids(rendering)
            i = action["index"]
            return center(tree.nodes[ids[i]].box) if isinstance(i, int) and 0 <= i < len(ids) else None
        if "element" in action:
            try:
                return center(parse_bounds(action["element"]))
            except DataError:
                return None
        p = as_point(action.get("point"))
        return (round(p[0]), round(p[1])) if p else None

    @staticmethod
    def _swipe_end(tree: Hierarchy, start: tuple[int, int], action: Mapping[str, Any]) -> tuple[int, int] | None:
        if "to" in action:
            p = as_point(action["to"])
            return (round(p[0]), round(p[1])) if p else None
        direction = action.get("direction")
        if not isinstance(direction, str) or direction not in FINGER_MOTION:
            return None
        dx, dy = FINGER_MOTION[direction]
        tops = [n.box for n in tree.nodes if n.parent is None]
        w, h = max(b[2] for b in tops), max(b[3] for b in tops)
        return (min(max(start[0] + dx * SWIPE_DISTANCE, 0), w - 1), min(max(start[1] + dy * SWIPE_DISTANCE, 0), h - 1))
