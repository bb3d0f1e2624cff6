# REFERENCE ONLY (issue 21): gui_core.action_parsers.json_objects as it was before its speed-up, kept verbatim so
# tests/test_json_objects_speed.py can prove the fast scan finds the same objects. Not used by the harness.

from __future__ import annotations

import json
import re

_JSON_MARK = re.compile(r'[{}"\\]')
JSON_DESCENT = 4  # how many levels below a span that is not JSON are searched for objects


def json_objects(text: str, limit: int = 64) -> list[dict]:
    """The JSON objects (dicts) in ``text``, in order: balanced ``{...}`` spans that decode, outermost first.

    One scan records the balanced spans (tracking JSON strings inside braces); outermost spans are decoded,
    and inside one that does not decode its direct sub-spans are tried, at most ``JSON_DESCENT`` levels down.
    Each level decodes disjoint spans, so the cost is linear in ``len(text)`` (``"{" * 20000``: one scan).
    """
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_str, skip_to = False, -1
    for m in _JSON_MARK.finditer(text):
        i, c = m.start(), m.group()
        if i < skip_to:
            continue
        if in_str:
            if c == "\\":
                skip_to = i + 2
            elif c == '"':
                in_str = False
        elif c == "{":
            stack.append(i)
        elif c == "}":
            if stack:
                spans.append((stack.pop(), i + 1))
        elif c == '"' and stack:
            in_str = True
    spans.sort()
    out: list[dict] = []

    def visit(lo: int, hi: int, level: int) -> None:
        k = lo
        while k < hi and len(out) < limit:
            s, e = spans[k]
            inner = k + 1
            while inner < hi and spans[inner][0] < e:
                inner += 1
            try:
                obj = json.loads(text[s:e])
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                out.append(obj)
            elif level < JSON_DESCENT:
                visit(k + 1, inner, level + 1)
            k = inner

    visit(0, len(spans), 0)
    return out
