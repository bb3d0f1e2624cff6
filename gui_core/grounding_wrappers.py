"""The benchmark repositories' own per-model wrappers and scorer readings, reproduced (issue 46).

A benchmark's published number for a model was produced by the wrapper that benchmark's repository ships for it, and
that wrapper reads answers its own way, which is not always the family authors' way: UI-Vision's UI-TARS wrapper turns
anything unreadable into the click (0, 0); its Aguvis wrapper needs decimals; the OS-Atlas-7B wrapper of UI-Vision and
ScreenSpot-Pro accepts a bare point only when both numbers lie in (0, 1) *before* dividing by 1000. MMBench-GUI L2's
scorer reads every answer with its own parser and divides both coordinates by the image size whenever either exceeds 1.

Each reading is a ``Wrapper`` record keyed by ``(benchmark, family)`` in ``WRAPPERS``; ``wrapper_for`` looks one up
(None: the family record's own ``official_reader`` applies). ``strictness: official`` on a benchmark's task reads with
the record; ``strictness: authors`` keeps the family authors' reading (``gui_core.grounding_authors``). A reader gets
the answer and the image size the scorer uses and returns the point as that code hands it to the scorer: relative to
the image (``Official.point``), or None (its ``wrong_format``). A fallback click is a point (a miss, not a format
error); an answer that makes the wrapper raise (the official run stops there) is no point, detail saying so.

Checked against the official files on the corpora of ``tests/fixtures/differential/wrappers`` (repository, commit and
path in each). Never raises on model output; linear time in the answer's length.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Callable

from gui_core.grounding_authors import Official
from gui_core.grounding_authors import _pred_2_point as pred_2_point

UIVISION = ("uivision/UI-Vision", "2b79355f962a2db1402ce0ad3d261aa9cb74b855")
MMBENCH = ("open-compass/MMBench-GUI", "896ddf1d3aa4d6464d0c55c6416518f889d78d77")
SSPRO = ("likaixin2000/ScreenSpot-Pro-GUI-Grounding", "bd8bbbb470fbc4fda2a4fa9ec90bd2572507794e")

Reader = Callable[[str, int, int], Official]


@dataclass(frozen=True)
class Wrapper:
    """One benchmark repository's reading of one family's answers (``reader(text, width, height)`` -> relative point)."""

    benchmark: str
    family: str
    reader: Reader
    repo: str
    commit: str
    path: str
    what: str  # the reading, in words (docs and results)
    negative: bool = False  # the reading of a negative sample (``result``: positive / negative / wrong_format)
    row_keys: tuple[str, ...] = ()  # document meta keys the wrapper reads from the row (passed as keyword arguments)


WRAPPERS: dict[tuple[str, str, bool], Wrapper] = {}


def register_wrapper(w: Wrapper) -> Wrapper:
    key = (w.benchmark, w.family, w.negative)
    if key in WRAPPERS:
        raise ValueError(f"a wrapper for {key} is already registered")
    WRAPPERS[key] = w
    return w


def wrappers() -> dict[tuple[str, str, bool], Wrapper]:
    """Every registered wrapper by ``(benchmark, family, negative)``; the built-in ones are registered with the family
    records they read for (``gui_core.families``), loaded here on first use."""
    from gui_core.family import FAMILIES

    FAMILIES._load()
    return WRAPPERS


def wrapper_for(benchmark: str | None, family: str, negative: bool = False) -> Wrapper | None:
    """The benchmark repository's reading of ``family``'s answers, or None (the family's own official reading)."""
    return wrappers().get((str(benchmark), family, negative))


def _raises(what: str) -> Official:
    return Official(None, "malformed", f"{what}: the wrapper raises there (the official run stops)")


def _rel(x: float, y: float, detail: str) -> Official:
    return Official((x, y), "parsed", detail, (x, y))


# --- UI-Vision (eval/grounding/models/*.py) -------------------------------------------------------------------------


def read_uivision_ui_tars(text: str, width: int, height: int) -> Official:
    """models/uitars.py: ``literal_eval`` of the text between the first ``(`` and the first ``)`` of the stripped answer,
    divided by 1000; no brackets, an error or a falsy value is the click (0, 0)."""
    t = text.strip()
    value = None
    if "(" in t and ")" in t:
        try:
            value = ast.literal_eval(t[t.find("(") + 1:t.find(")")])
        except Exception:  # noqa: BLE001 - the wrapper's bare except (MemoryError, RecursionError included)
            value = None
    try:
        truthy = bool(value)
    except Exception:  # noqa: BLE001
        return _raises("truth value of the literal fails")
    if not truthy:
        return Official((0.0, 0.0), "parsed", "no readable (x, y): UI-Vision's UI-TARS wrapper clicks (0, 0)", None)
    try:
        x, y = value[0] / 1000, value[1] / 1000
    except Exception:  # noqa: BLE001 - TypeError, IndexError, KeyError, OverflowError: uncaught there
        return _raises("the literal has no two numbers")
    if not all(isinstance(v, (int, float)) for v in (x, y)):
        return _raises("a complex coordinate")  # the scorer's comparison raises
    return _rel(float(x), float(y), "(x, y) / 1000")


_AGUVIS = re.compile(r"pyautogui\.click\((?:x=)?(\d+\.\d+)(?:,\s*y=|,\s*)(\d+\.\d+)\)")


def read_uivision_aguvis(text: str, width: int, height: int) -> Official:
    """models/aguvis.py ``parse_pyautogui``: ``pyautogui.click(x=0.12, y=0.34)`` with decimals; else the click (0, 0)."""
    m = _AGUVIS.search(text.strip())
    if not m:
        return Official((0.0, 0.0), "parsed", "no pyautogui.click with decimals: UI-Vision's Aguvis wrapper clicks (0, 0)")
    return _rel(float(m.group(1)), float(m.group(2)), "pyautogui.click")


_TAG_START, _TAG_END = "<|box_start|>", "<|box_end|>"


def _first_tagged(text: str) -> str | None:
    """``re.search(r'<\\|box_start\\|\\>(.*?)<\\|box_end\\|\\>', s).group(1)`` (no newline inside) in linear time."""
    at = text.find(_TAG_START)
    while at >= 0:
        body = at + len(_TAG_START)
        end, nl = text.find(_TAG_END, body), text.find("\n", body)
        if end >= 0 and (nl < 0 or end < nl):
            return text[body:end]
        if nl < 0:
            return None
        at = text.find(_TAG_START, nl + 1)  # every start on this line meets the newline first
    return None


def _four_ints(s: str) -> tuple[int, int, int, int] | None:
    """The first match of ``(\\d+),\\s*(\\d+),\\s*(\\d+),\\s*(\\d+)`` (``re.findall(...)[0]``) in linear time."""
    n, i = len(s), 0
    while i < n:
        if not s[i].isdecimal():
            i += 1
            continue
        start, j, groups = i, i, []
        while True:
            k = j
            while k < n and s[k].isdecimal():
                k += 1
            if k == j:
                break
            groups.append(s[j:k])
            if len(groups) == 4:
                return tuple(int(g) for g in groups)  # type: ignore[return-value]
            if k >= n or s[k] != ",":
                break
            j = k + 1
            while j < n and s[j].isspace():
                j += 1
        i = start + 1
        while i < n and s[i].isdecimal():  # a later start inside the same run meets the same end
            i += 1
    return None


def _os_atlas_box(text: str) -> tuple[int, int, int, int] | None:
    """models/osatlas7b.py ``extract_bbox``: the first four integers of the first tagged box, brackets removed."""
    inner = _first_tagged(text)
    if inner is None:
        return None
    return _four_ints(re.sub(r"[()\[\]]", "", inner))


def read_os_atlas_7b(text: str, width: int, height: int) -> Official:
    """models/osatlas7b.py ``ground_only_positive`` (UI-Vision and ScreenSpot-Pro alike): with both box tags, the first
    box's corners / 1000, kept only when all four lie strictly inside (0, 1): their centre; else ``pred_2_point`` (two
    numbers, or four: their centre) kept only when both lie strictly inside (0, 1) before being divided by 1000."""
    if _TAG_START in text and _TAG_END in text:
        box = _os_atlas_box(text)
        if box is None:
            return Official(None, "malformed", "box tags without four integers")
        x1, y1, x2, y2 = (v / 1000 for v in box)
        if not (0 < x1 < 1 and 0 < y1 < 1 and 0 < x2 < 1 and 0 < y2 < 1):
            return Official(None, "malformed", "a box corner outside (0, 1000): no point")
        return Official(((x1 + x2) / 2, (y1 + y2) / 2), "parsed", "box centre / 1000")
    p = pred_2_point(text)
    if p is None:
        return Official(None, "malformed", "neither two nor four numbers")
    x, y = p
    if not (0 < x < 1 and 0 < y < 1):
        return Official(None, "malformed", "a bare point outside (0, 1): no point")
    return _rel(x / 1000, y / 1000, "bare point in (0, 1), / 1000")


def read_os_atlas_7b_negative(text: str, width: int, height: int) -> Official:
    """models/osatlas7b.py ``ground_allow_negative`` (ScreenSpot-Pro): a tagged box of four integers or any two or four
    numbers (no range check) is a click (``positive``); else the phrase "target does not exist" in any case is a
    refusal (``negative``); else ``wrong_format``. ``detail`` starts with the result."""
    if _TAG_START in text and _TAG_END in text:
        box = _os_atlas_box(text)
        if box is not None:
            x1, y1, x2, y2 = (v / 1000 for v in box)
            return Official(((x1 + x2) / 2, (y1 + y2) / 2), "parsed", "positive: box centre / 1000")
    else:
        p = pred_2_point(text)
        if p is not None:
            return Official((p[0] / 1000, p[1] / 1000), "parsed", "positive: point / 1000")
    if "target does not exist" in text.lower():
        return Official(None, "parsed", "negative: the target does not exist")
    return Official(None, "malformed", "wrong_format: neither a point nor the refusal")


_QWEN2_SQUARE = re.compile(r"<\|box_start\|\>\[\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\s*\]<\|box_end\|\>")
_QWEN2_PAIRS = re.compile(r"<\|box_start\|\>\(\s*(\d+),\s*(\d+)\s*\),\(\s*(\d+),\s*(\d+)\s*\)<\|box_end\|\>")
_SSPRO_QWEN2 = re.compile(r"<\|box_start\|\>\((\d+),(\d+)\),\((\d+),(\d+)\)<\|box_end\|\>")


def _qwen2(text: str, patterns: tuple[re.Pattern, ...]) -> Official:
    if _TAG_START in text and _TAG_END in text:
        last = None
        for pattern in patterns:
            for last in pattern.finditer(text):
                pass
            if last is not None:
                break
        if last is None:
            return Official(None, "malformed", "box tags without a box the wrapper reads")
        x1, y1, x2, y2 = (int(g) / 1000 for g in last.groups())
        return Official(((x1 + x2) / 2, (y1 + y2) / 2), "parsed", "last box centre / 1000")
    p = pred_2_point(text)
    if p is None:
        return Official(None, "malformed", "neither two nor four numbers")
    return _rel(p[0] / 1000, p[1] / 1000, "point / 1000")


def read_sspro_qwen2_vl_negative(text: str, width: int, height: int) -> Official:
    """ScreenSpot-Pro models/qwen2vl.py ``ground_allow_negative``: the last tagged ``(x1,y1),(x2,y2)`` or, without the
    tags, any two or four numbers are a click (``positive``); else "target does not exist" in any case is a refusal
    (``negative``); else ``wrong_format``. ``detail`` starts with the result."""
    found = _qwen2(text, (_SSPRO_QWEN2,))
    if found.point is not None:
        return Official(found.point, "parsed", "positive: " + found.detail)
    if "target does not exist" in text.lower():
        return Official(None, "parsed", "negative: the target does not exist")
    return Official(None, "malformed", "wrong_format: neither a point nor the refusal")


def read_uivision_qwen2_vl(text: str, width: int, height: int) -> Official:
    """UI-Vision models/qwen2vl.py: the last tagged ``[x1, y1, x2, y2]`` (else the last tagged ``(x1, y1),(x2, y2)``)
    / 1000, its centre; with both tags and neither, no point; without the tags ``pred_2_point`` / 1000."""
    return _qwen2(text, (_QWEN2_SQUARE, _QWEN2_PAIRS))


def read_sspro_qwen2_vl(text: str, width: int, height: int) -> Official:
    """ScreenSpot-Pro models/qwen2vl.py: the last tagged ``(x1,y1),(x2,y2)`` / 1000 (its centre); else
    ``pred_2_point`` / 1000."""
    return _qwen2(text, (_SSPRO_QWEN2,))


def _relative_family(reader: Callable[[str], Official]) -> Reader:
    def read(text: str, width: int, height: int) -> Official:
        return reader(text)

    read.__doc__ = reader.__doc__
    return read


# --- MMBench-GUI L2 (benchmarks/l2_element_grounding.py, utils/misc.py, models/local_uitars.py) ----------------------

_SEP = frozenset(",;")


def _number_end(s: str, i: int) -> int:
    """End of ``[-+]?(?:\\d+\\.\\d+|\\.\\d+|\\d+)`` matched at ``i`` (the first alternative that matches), or -1."""
    n = len(s)
    j = i + 1 if i < n and s[i] in "+-" else i
    k = j
    while k < n and s[k].isdecimal():
        k += 1
    if k > j:  # \d+\.\d+ when a digit follows the dot, else \d+
        if k + 1 < n and s[k] == "." and s[k + 1].isdecimal():
            k += 1
            while k < n and s[k].isdecimal():
                k += 1
        return k
    if j + 1 < n and s[j] == "." and s[j + 1].isdecimal():
        k = j + 1
        while k < n and s[k].isdecimal():
            k += 1
        return k
    return -1


def _next_start(s: str, i: int) -> int:
    """Where to try after a failed first number at ``i``: a start later in the same run of digits (after a sign or the
    run's first digit) meets the same end and the same continuation, so it fails too; after a dot, the next character."""
    if s[i] == ".":
        return i + 1
    j = i + 1 if s[i] in "+-" else i
    while j < len(s) and s[j].isdecimal():
        j += 1
    return max(j, i + 1)


def mmbench_parse(text: str) -> tuple[float, float] | None:
    """utils/misc.py ``parser_response_into_coordinates``: the first number pair of its loose pattern (an optional
    ``x:``/``x=`` and bracket, a number, one or more of ``,`` ``;`` whitespace, an optional ``y:``/``y=``, a number),
    reasoning included. The verbose regex backtracks cubically on long whitespace; this scan finds its first match
    in linear time (its numbers are fixed by where the first number starts; the prefix only moves the match start)."""
    s, n, i = text, len(text), 0
    while i < n:
        c = s[i]
        if not (c in "+-." or c.isdecimal()):
            i += 1
            continue
        e1 = _number_end(s, i)
        if e1 < 0 or e1 >= n or not (s[e1] in _SEP or s[e1].isspace()):
            i = _next_start(s, i)
            continue
        r = e1
        while r < n and (s[r] in _SEP or s[r].isspace()):
            r += 1
        j = r
        if j < n and s[j] in "yY":
            j += 1
            while j < n and s[j].isspace():
                j += 1
            if j < n and s[j] in ":=":
                j += 1
            while j < n and s[j].isspace():
                j += 1
        e2 = _number_end(s, j)
        if e2 < 0:
            i = _next_start(s, i)
            continue
        return float(s[i:e1]), float(s[j:e2])
    return None


def _mmbench_normalised(x: float, y: float, width: int, height: int, detail: str) -> Official:
    """``evaluate``'s "Do Normalization By Default": both coordinates over the image size when either exceeds 1."""
    if x > 1 or y > 1:
        x, y = x / width, y / height
        detail += ", divided by the image size (a coordinate above 1)"
    return Official((x, y), "parsed", detail, (x, y))


def read_mmbench_l2(text: str, width: int, height: int) -> Official:
    """MMBench-GUI L2's scorer with the repository's parser (``parser_response_into_coordinates``) and normalisation."""
    p = mmbench_parse(text)
    if p is None:
        return Official(None, "malformed", "no number pair")
    return _mmbench_normalised(p[0], p[1], width, height, "first number pair")


def _uitars_smart_resize(height: int, width: int) -> tuple[int, int]:
    """models/local_uitars.py ``smart_resize`` (factor 28, 100*28*28 to 16384*28*28 pixels; ratio above 200 raises)."""
    factor, lo, hi = 28, 100 * 28 * 28, 16384 * 28 * 28
    if max(height, width) / min(height, width) > 200:
        raise ValueError("aspect ratio above 200")
    h_bar, w_bar = max(factor, round(height / factor) * factor), max(factor, round(width / factor) * factor)
    if h_bar * w_bar > hi:
        beta = math.sqrt((height * width) / hi)
        h_bar, w_bar = math.floor(height / beta / factor) * factor, math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < lo:
        beta = math.sqrt(lo / (height * width))
        h_bar, w_bar = math.ceil(height * beta / factor) * factor, math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


_DIGITS = re.compile(r"\d+")


_PNG = object()  # no row size given: the screenshot's own (the differential corpora, whose rows carry the PNG's size)


def read_mmbench_ui_tars_1_5(text: str, width: int, height: int, row_image_size: object = _PNG) -> Official:
    """models/local_uitars.py ``parse_grounding_response``: exactly two runs of digits in the whole answer, as integers
    over the smart-resize of the **row's** ``image_size`` (``ast.literal_eval(meta["image_size"])``: the xlsx cell's
    text, ``gui_tasks.grounding.mmbench_gui.row_image_size``; None or a cell that does not read as two numbers makes it
    raise, which ``evaluate``'s try turns into wrong_format), then the scorer's normalisation by the screenshot's own
    size (``width`` x ``height``, ``Image.open(...).size``); anything else is wrong_format."""
    runs = []
    for m in _DIGITS.finditer(text):
        runs.append(m.group(0))
        if len(runs) > 2:
            return Official(None, "malformed", "more than two numbers")
    if len(runs) != 2:
        return Official(None, "malformed", "fewer than two numbers")
    try:
        x, y = int(runs[0]), int(runs[1])
        if row_image_size is _PNG:
            row_w, row_h = width, height
        else:
            row_w, row_h = ast.literal_eval(row_image_size)  # None raises, as NaN does there
        new_h, new_w = _uitars_smart_resize(row_h, row_w)
        px, py = x / new_w, y / new_h
        return _mmbench_normalised(px, py, width, height, "two integers over the smart-resized row image_size")
    except Exception:  # noqa: BLE001 - evaluate's try around parse_function: any exception is wrong_format
        return Official(None, "malformed", "the row's image_size or the numbers do not convert (wrong_format there)")
