"""SPHINX action space (Table 2) as text: a parser that never raises, classifying outputs."""

from __future__ import annotations

import re
from typing import Any

_ELEM = re.compile(r"^(click|longclick)\s*\[?\s*(\d+)\s*\]?$")
_POINT = re.compile(r"^(click|longclick)\s*\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]$")
_TEXT = re.compile(r"^text\s*\[?\s*(\d+)\s*\]?\s*\[(.*)\]$")
_PRESS = re.compile(r"^(?:press\s+)?(back|home|restart|wait|enter|stop)$")


def parse_action(text: str | None) -> tuple[str, dict[str, Any] | None]:
    """``(status, action)``: status is parsed / malformed / empty; the last non-empty line counts."""
    if text is None or not text.strip():
        return "empty", None
    line = [ln for ln in text.strip().splitlines() if ln.strip()][-1].strip().strip("`").strip().lower()
    if m := _POINT.match(line):
        return "parsed", {"type": m.group(1), "point": (float(m.group(2)), float(m.group(3)))}
    if m := _ELEM.match(line):
        return "parsed", {"type": m.group(1), "index": int(m.group(2))}
    if m := _TEXT.match(line):
        return "parsed", {"type": "text", "index": int(m.group(1)), "text": m.group(2)}
    if m := _PRESS.match(line):
        return "parsed", {"type": m.group(1)}
    return "malformed", None
