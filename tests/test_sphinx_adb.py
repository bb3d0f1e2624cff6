"""AdbDevice against a fake adb: exact command lines, text escaping, dump and dumpsys parsing, errors."""

from __future__ import annotations

import io
import subprocess

import pytest
from PIL import Image

from gui_core.errors import DataError
from gui_tasks.sphinx.adb import (LONG_PRESS_MS, SWIPE_DISTANCE, SWIPE_MS, WAIT_SECONDS, AdbDevice, AdbError, escape_text,
                                  parse_activity, parse_dump)


def _node(cls: str, bounds: str, *, text: str = "", pkg: str = "com.example", clickable: bool = False, scrollable: bool = False,
          children: str = "") -> str:
    return (f'<node index="0" text="{text}" resource-id="" class="{cls}" package="{pkg}" content-desc="" checkable="false" '
            f'checked="false" clickable="{str(clickable).lower()}" enabled="true" focusable="false" focused="false" '
            f'scrollable="{str(scrollable).lower()}" long-clickable="false" password="false" selected="false" '
            f'bounds="{bounds}">{children}</node>')


DUMP = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        + _node("android.widget.FrameLayout", "[0,0][1080,2400]", children="".join([
            _node("android.widget.FrameLayout", "[0,0][1080,80]", pkg="com.android.systemui", clickable=True),
            _node("android.widget.EditText", "[100,200][980,300]", text="old", clickable=True),  # [0] centre (540, 250)
            _node("android.widget.Button", "[100,400][500,500]", text="OK", clickable=True),  # [1] centre (300, 450)
            _node("androidx.recyclerview.widget.RecyclerView", "[0,600][1080,2000]", scrollable=True,  # [2] centre (540, 1300)
                  children=_node("android.widget.TextView", "[0,600][1080,700]", text="row one")),
        ])) + "</hierarchy>").encode()
DUMPSYS = b"""WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #3 Window{5d3a0b1 u0 com.example/com.example.MainActivity}:
  mCurrentFocus=Window{5d3a0b1 u0 com.example/com.example.MainActivity}
  mFocusedApp=ActivityRecord{e8f2e3c u0 com.example/.MainActivity t23}
"""
SERIAL = "emulator-5554"
OBSERVE = (["shell", "uiautomator", "dump", "/sdcard/window_dump.xml"], ["exec-out", "cat", "/sdcard/window_dump.xml"],
           ["shell", "dumpsys", "window"])


def _png(size=(6, 10)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (10, 20, 30)).save(buf, format="PNG")
    return buf.getvalue()


class FakeAdb:
    """Records every argv; answers the observation commands with canned output, everything else with nothing."""

    def __init__(self, *, dump_msg: bytes = b"UI hierchary dumped to: /sdcard/window_dump.xml\n", fail: str | None = None,
                 out: dict[str, bytes] | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail, self.out = fail, {"uiautomator dump": dump_msg, "exec-out cat": DUMP, "dumpsys window": DUMPSYS,
                                     "screencap": _png(), **(out or {})}

    def __call__(self, argv, **kwargs):
        assert kwargs.get("capture_output") is True
        self.calls.append(list(argv))
        line = " ".join(argv)
        if self.fail and self.fail in line:
            return subprocess.CompletedProcess(argv, 1, b"", b"error: device offline")
        stdout = next((v for k, v in self.out.items() if k in line), b"")
        return subprocess.CompletedProcess(argv, 0, stdout, b"")


def _device(**kw) -> tuple[AdbDevice, FakeAdb]:
    fake = FakeAdb(**{k: kw.pop(k) for k in ("dump_msg", "fail", "out") if k in kw})
    return AdbDevice(SERIAL, runner=fake, **kw), fake


def _sent(dev: AdbDevice, fake: FakeAdb, action) -> list[list[str]]:
    """The commands an action sent (its own, not the observation after it), without ``adb -s <serial>``."""
    dev.observe()
    n = len(fake.calls)
    dev.act(action)
    new = [c[3:] for c in fake.calls[n:]]
    assert all(c[:3] == ["adb", "-s", SERIAL] for c in fake.calls[n:])
    assert new[-3:] == list(OBSERVE)  # every action ends with a fresh observation
    return new[:-3]


@pytest.mark.parametrize("action, argv", [
    ({"type": "click", "index": 1}, [["shell", "input", "tap", "300", "450"]]),
    ({"type": "click", "point": (10.4, 20.6)}, [["shell", "input", "tap", "10", "21"]]),
    ({"type": "click", "element": "[100,400][500,500]"}, [["shell", "input", "tap", "300", "450"]]),
    ({"type": "longclick", "index": 1}, [["shell", "input", "swipe", "300", "450", "300", "450", str(LONG_PRESS_MS)]]),
    ({"type": "text", "index": 0, "text": "hi there&co"},  # tap, clear the 3 chars of "old", type
     [["shell", "input", "tap", "540", "250"], ["shell", "input", "keyevent", "123", "67", "67", "67"],
      ["shell", "input", "text", "hi%sthere\\&co"]]),
    ({"type": "text", "point": (300, 450), "text": "x"}, [["shell", "input", "tap", "300", "450"], ["shell", "input", "text", "x"]]),
    ({"type": "text", "index": 0, "text": ""}, [["shell", "input", "tap", "540", "250"], ["shell", "input", "keyevent", "123", "67", "67", "67"]]),
    ({"type": "swipe", "index": 2, "direction": "up"}, [["shell", "input", "swipe", "540", "1300", "540", str(1300 - SWIPE_DISTANCE), str(SWIPE_MS)]]),
    ({"type": "swipe", "index": 2, "direction": "down"}, [["shell", "input", "swipe", "540", "1300", "540", str(1300 + SWIPE_DISTANCE), str(SWIPE_MS)]]),
    ({"type": "swipe", "index": 1, "direction": "up"}, [["shell", "input", "swipe", "300", "450", "300", "0", str(SWIPE_MS)]]),  # clamped
    ({"type": "swipe", "index": 2, "direction": "right"}, [["shell", "input", "swipe", "540", "1300", "1079", "1300", str(SWIPE_MS)]]),
    ({"type": "swipe", "point": (500, 1500), "to": (500, 800)}, [["shell", "input", "swipe", "500", "1500", "500", "800", str(SWIPE_MS)]]),
    ({"type": "back"}, [["shell", "input", "keyevent", "4"]]),
    ({"type": "home"}, [["shell", "input", "keyevent", "3"]]),
    ({"type": "enter"}, [["shell", "input", "keyevent", "66"]]),
    ({"type": "stop"}, []),
])
def test_exact_command_lines(action, argv):
    dev, fake = _device()
    assert _sent(dev, fake, action) == argv


@pytest.mark.parametrize("action", [
    {"type": "click", "index": 3}, {"type": "click", "index": -1}, {"type": "click", "index": "1"}, {"type": "click", "element": "row_ok"},
    {"type": "click", "point": "ab"}, {"type": "click"}, {"type": "swipe", "index": 2, "direction": "diagonal"},
    {"type": "swipe", "index": 2}, {"type": "swipe", "point": (1, 2), "to": None}, {"type": "text", "index": 0, "text": 5},
    {"type": "fly"}, {"type": ["back"]}, None,
])
def test_malformed_or_unresolvable_actions_send_nothing(action):
    dev, fake = _device()
    assert _sent(dev, fake, action) == []


def test_index_is_resolved_against_the_observation_the_agent_saw():
    dev, fake = _device()
    obs = dev.observe()
    ids = obs.hierarchy.interactables()  # system UI left out, as in the agent's observation
    assert [obs.hierarchy.nodes[i].get("class").rsplit(".", 1)[-1] for i in ids] == ["EditText", "Button", "RecyclerView"]
    assert AdbDevice.locate(obs.hierarchy, {"index": 2}) == (540, 1300)
    assert AdbDevice.locate(obs.hierarchy, {"element": "[0,600][1080,700]"}) == (540, 650)
    fake.out["exec-out cat"] = DUMP.replace(b"[100,400][500,500]", b"[100,1000][500,1100]")  # the button moves
    dev.act({"type": "click", "index": 1})  # chosen on the screen seen before: its old place
    dev.act({"type": "click", "index": 1})  # the act above observed the new screen
    taps = [c[3:] for c in fake.calls if "tap" in c]
    assert taps == [["shell", "input", "tap", "300", "450"], ["shell", "input", "tap", "300", "1050"]]


def test_restart_relaunches_the_package_and_wait_sleeps():
    slept: list[float] = []
    dev, fake = _device(package="com.example", sleep=slept.append)
    assert _sent(dev, fake, {"type": "restart"}) == [
        ["shell", "am", "force-stop", "com.example"],
        ["shell", "monkey", "-p", "com.example", "-c", "android.intent.category.LAUNCHER", "1"]]
    assert _sent(dev, fake, {"type": "wait"}) == [] and slept == [WAIT_SECONDS]


def test_restart_without_a_package_is_a_clear_error():
    dev, _ = _device()
    with pytest.raises(ValueError, match="package"):
        dev.act({"type": "restart"})


def test_observation_parses_dump_and_dumpsys_and_captures_lazily():
    dev, fake = _device()
    obs = dev.observe()
    assert obs.activity == ("com.example", "com.example.MainActivity")
    assert len(obs.hierarchy.nodes) == 6 and obs.hierarchy.nodes[2].get("text") == "old"
    assert not any("screencap" in c for c in fake.calls)
    img = obs.screenshot()
    assert img.size == (6, 10) and img.getpixel((0, 0)) == (10, 20, 30)
    obs.screenshot()
    assert sum("screencap" in c for c in fake.calls) == 1
    assert fake.calls[-1] == ["adb", "-s", SERIAL, "exec-out", "screencap", "-p"]


def test_parse_dump_ignores_text_around_the_document():
    tree = parse_dump("noise\n" + DUMP.decode() + "UI hierchary dumped to: /dev/tty\n")
    assert len(tree.nodes) == 6
    with pytest.raises(DataError, match="no <hierarchy>"):
        parse_dump("ERROR: could not get idle state.")


@pytest.mark.parametrize("text, want", [
    (DUMPSYS.decode(), ("com.example", "com.example.MainActivity")),
    ("  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{e8f2e3c u0 com.android.settings/.Settings t23}\n",
     ("com.android.settings", "com.android.settings.Settings")),
    ("  mCurrentFocus=Window{1 u0 NotificationShade}\n  mFocusedApp=null\n", ("", "")),
    ("  mCurrentFocus=Window{9 u0 com.a/com.a.Main$Inner}\n  mCurrentFocus=Window{8 u0 com.b/com.b.Other}\n", ("com.a", "com.a.Main$Inner")),
])
def test_parse_activity(text, want):
    assert parse_activity(text) == want


@pytest.mark.parametrize("text, want", [
    ("weather", "weather"), ("a b", "a%sb"), ("it's $5 (ok);", "it\\'s%s\\$5%s\\(ok\\)\\;"),
    ('a"b`c|d<e>f*g?h~i#j\\k', 'a\\"b\\`c\\|d\\<e\\>f\\*g\\?h\\~i\\#j\\\\k'), ("", ""),
])
def test_escape_text(text, want):
    assert escape_text(text) == want


def test_escape_text_rejects_what_input_text_cannot_type():
    with pytest.raises(ValueError, match="printable ASCII"):
        escape_text("café")
    with pytest.raises(ValueError, match="printable ASCII"):
        escape_text("a\nb")


def test_adb_failure_names_the_command():
    dev, _ = _device(fail="input tap")
    dev.observe()
    with pytest.raises(AdbError, match=r"adb -s emulator-5554 shell input tap 300 450: exit status 1: error: device offline"):
        dev.act({"type": "click", "index": 1})


def test_missing_adb_and_silent_dump_failures_are_adb_errors():
    def missing(argv, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", argv[0])

    with pytest.raises(AdbError, match="/opt/adb shell uiautomator dump"):
        AdbDevice(adb="/opt/adb", runner=missing).observe()
    dev, _ = _device(dump_msg=b"ERROR: could not get idle state.\n")
    with pytest.raises(AdbError, match="could not get idle state"):
        dev.observe()
    dev, _ = _device(out={"screencap": b"not a png"})
    with pytest.raises(AdbError, match=r"screencap -p: screencap refused \(9 bytes\): not an image"):
        dev.observe().screenshot()


def test_reset_launches_a_package_and_refuses_device_state():
    dev, fake = _device()
    with pytest.raises(ValueError, match=r"cannot set device state \['wifi'\]"):
        dev.reset({"wifi": True, "package": "com.example"})
    assert fake.calls == []
    dev.reset({"package": "com.example"})
    assert [c[3:] for c in fake.calls[:2]] == [["shell", "am", "force-stop", "com.example"],
                                               ["shell", "monkey", "-p", "com.example", "-c", "android.intent.category.LAUNCHER", "1"]]
    assert dev.package == "com.example"
    dev, fake = _device()
    dev.reset({})  # no package configured: the home screen
    assert fake.calls[0][3:] == ["shell", "input", "keyevent", "3"]
    dev, _ = _device(out={"monkey": b"** No activities found to run, monkey aborted.\n"})
    with pytest.raises(AdbError, match="monkey aborted"):
        dev.reset({"package": "com.missing"})


def test_no_serial_means_plain_adb():
    fake = FakeAdb()
    AdbDevice(runner=fake).act({"type": "back"})
    assert fake.calls[0] == ["adb", "shell", "input", "keyevent", "4"]  # a key event needs no observation first
