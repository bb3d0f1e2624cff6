"""A fake ``adb`` executable backed by the in-process SPHINX simulator (one process per call, as adb is).

Answers the command lines ``gui_tasks.sphinx.adb.AdbDevice`` sends, with real outputs: ``devices``, ``-s SERIAL``,
``shell uiautomator dump PATH`` (writes the simulator's view tree), ``exec-out cat PATH``, ``shell dumpsys window``,
``exec-out screencap -p`` (PNG bytes), ``shell input tap|swipe|keyevent|text``, ``shell am force-stop``,
``shell monkey -p PACKAGE ...``. State (the simulator's app, page and toggles, the focused point, the dump) lives in
the JSON file ``$FAKE_ADB_STATE``; every call is appended to ``$FAKE_ADB_LOG``. ``$FAKE_ADB_SERIALS``: the attached
devices (comma-separated); ``$FAKE_ADB_DROP_AFTER=N``: the device goes offline after N calls (a dropped device).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from gui_tasks.sphinx.simulator import APP_NAMES, HOME, ROOTS, Simulator, package_of

KEYS = {"3": "home", "4": "back", "66": "enter"}


def _load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {"app": HOME[0], "page": HOME[1], "state": {}, "calls": 0}


def _sim(st: dict) -> Simulator:
    sim = Simulator()
    sim.reset(st.get("state", {}))
    sim.app, sim.page = st["app"], st["page"]
    return sim


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text.startswith("%s", i):
            out.append(" ")
            i += 2
        elif text[i] == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


NODE = '<node text="" resource-id="" class="android.widget.FrameLayout" package="com.sim.launcher" bounds="{}">'


def _deep_dump(depth: int = 5000) -> bytes:
    """A uiautomator dump 5,000 views deep (a recursive reader dies of RecursionError)."""
    return ("<?xml version='1.0' ?><hierarchy rotation=\"0\">" + NODE.format("[0,0][10,10]") * depth + "</node>" * depth
            + "</hierarchy>").encode()


def _cut_png(sim: Simulator) -> bytes:
    import io

    buf = io.BytesIO()
    sim.observe().screenshot().save(buf, format="PNG")
    return buf.getvalue()[: len(buf.getvalue()) // 2]


# $FAKE_ADB_HOSTILE: a comma-separated fault per observation, in order (observation k = the k-th uiautomator dump and
# the screencap after it; "" = none): hostile devices, each a case of issue 37.
HOSTILE_DUMPS = {
    "deep": _deep_dump,
    "bounds": lambda: ("<?xml version='1.0' ?><hierarchy rotation=\"0\">" + NODE.format("[0,0][100000000000000000000,"
                       "100000000000000000000]") + "</node></hierarchy>").encode(),
    "huge": lambda: b"<?xml version='1.0' ?><hierarchy>" + b" " * (40 << 20) + b"</hierarchy>",  # 40 MiB
}
HOSTILE_SHOTS = {"bomb": lambda sim: bomb_png(), "cut": _cut_png}


def bomb_png(width: int = 100000, height: int = 100000) -> bytes:
    """A PNG of a few dozen bytes whose header claims ``width`` x ``height`` pixels (a decompression bomb)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


def main(argv: list[str]) -> int:
    state_path = Path(os.environ["FAKE_ADB_STATE"])
    with open(os.environ["FAKE_ADB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(argv) + "\n")
    serials = [s for s in os.environ.get("FAKE_ADB_SERIALS", "emulator-5554").split(",") if s]
    if argv[:1] == ["devices"]:
        sys.stdout.write("List of devices attached\n" + "".join(f"{s}\tdevice\n" for s in serials) + "\n")
        return 0
    if argv[:1] == ["-s"]:
        if argv[1] not in serials:
            sys.stderr.write(f"adb: device '{argv[1]}' not found\n")
            return 1
        argv = argv[2:]
    st = _load(state_path)
    st["calls"] = st.get("calls", 0) + 1
    drop = os.environ.get("FAKE_ADB_DROP_AFTER")
    if drop and st["calls"] > int(drop):
        state_path.write_text(json.dumps(st))
        sys.stderr.write("adb: device offline\n")
        return 1
    sim = _sim(st)
    out: bytes = b""
    cmd = argv[1:] if argv[:1] in (["shell"], ["exec-out"]) else argv
    hostile = [h for h in os.environ.get("FAKE_ADB_HOSTILE", "").split(",")]
    fault = hostile[st.get("dumps", 1) - 1] if 0 < st.get("dumps", 0) <= len(hostile) else ""
    if cmd[:2] == ["uiautomator", "dump"]:
        st["dumps"] = st.get("dumps", 0) + 1
        st["dump"] = sim.observe().hierarchy.to_xml()
        out = f"UI hierchary dumped to: {cmd[2]}\n".encode()
    elif cmd[:1] == ["cat"] and fault in HOSTILE_DUMPS:
        sys.stdout.buffer.write(HOSTILE_DUMPS[fault]())
        state_path.write_text(json.dumps(st))
        return 0
    elif cmd[:2] == ["screencap", "-p"] and fault in HOSTILE_SHOTS:
        sys.stdout.buffer.write(HOSTILE_SHOTS[fault](sim))
        state_path.write_text(json.dumps(st))
        return 0
    elif cmd[:1] == ["cat"]:
        out = st.get("dump", "").encode("utf-8")
    elif cmd[:2] == ["dumpsys", "window"]:
        pkg, act = sim.observe().activity
        out = f"  mCurrentFocus=Window{{1a2b u0 {pkg}/{act}}}\n  mFocusedApp=ActivityRecord{{3c u0 {pkg}/{act} t5}}\n".encode()
    elif cmd[:2] == ["screencap", "-p"]:
        import io

        buf = io.BytesIO()
        sim.observe().screenshot().save(buf, format="PNG")
        out = buf.getvalue()
    elif cmd[:2] == ["input", "tap"]:
        point = (float(cmd[2]), float(cmd[3]))
        st["focus"] = point
        sim.act({"type": "click", "point": point})
    elif cmd[:2] == ["input", "swipe"]:
        x1, y1, x2, y2 = (float(v) for v in cmd[2:6])
        if (x1, y1) == (x2, y2):
            sim.act({"type": "longclick", "point": (x1, y1)})
        else:
            sim.act({"type": "swipe", "point": (x1, y1), "to": (x2, y2)})
    elif cmd[:2] == ["input", "keyevent"]:
        for code in cmd[2:]:
            if code in KEYS:
                sim.act({"type": KEYS[code]})
    elif cmd[:2] == ["input", "text"]:
        sim.act({"type": "text", "point": tuple(st.get("focus") or (-1, -1)), "text": _unescape(cmd[2])})
    elif cmd[:2] == ["am", "force-stop"]:
        pass
    elif cmd[:1] == ["monkey"]:
        pkg = cmd[cmd.index("-p") + 1]
        apps = {package_of(a): a for a in APP_NAMES} | {package_of("launcher"): "launcher"}
        if pkg not in apps:
            out = b"  bash arg: -p\n** No activities found to run, monkey aborted.\n"
        elif apps[pkg] == "launcher":
            sim.app, sim.page = HOME
        else:
            sim.app, sim.page = apps[pkg], ROOTS[apps[pkg]]
    else:
        sys.stderr.write(f"fake adb: unknown command {argv}\n")
        return 1
    st.update(app=sim.app, page=sim.page, state=sim.state)
    state_path.write_text(json.dumps(st))
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
