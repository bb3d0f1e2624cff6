"""Write docs/grounding_agreement.md: each grounding benchmark's committed corpus read by our readings and by every
other public harness's own code we could run or re-state, agreement per answer form (issue 52, item 3).

- lmms-eval 0.7.3's own tasks are **called**, not re-stated: ``lmms_eval.tasks.screenspot_v2.utils
  .screenspot_v2_process_results`` and ``screenspot_pro.utils.screenspot_pro_process_results`` (and their
  aggregations), on docs in the shape of their datasets (``HongxinLi/ScreenSpot_v2``: bbox [x, y, w, h],
  image_width/height; ``TIGER-Lab/ScreenSpot-Pro``: bbox [x1, y1, x2, y2], img_size).
- The benchmark repositories' own code: the held-out verdicts of tests/fixtures/differential/wrappers_heldout (the
  official files run as fetched, issue 46) against our ``official`` readers.
- OSWorld-G: its readings (``gui_metrics.osworld_g_readings``, issue 52 item 1) on their own differential corpus,
  whose entries carry each harness's verdict from its code.

Corpora: tests/fixtures/grounding_agreement/<benchmark>.json, written by ``--corpus`` (seeded, deterministic).
Usage: ``python scripts/grounding_agreement.py [--corpus] [--check]`` (``--check``: exit 1 if the page is stale).
"""

from __future__ import annotations

import importlib
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Mapping

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "tests" / "fixtures" / "grounding_agreement"
HELDOUT = ROOT / "tests" / "fixtures" / "differential" / "wrappers_heldout"
PAGE = ROOT / "docs" / "grounding_agreement.md"
SIZES = ((1920, 1080), (2560, 1440), (1170, 2532), (3840, 2160), (640, 480))
LMMS = "lmms-eval 0.7.3"


# --- the corpus ---------------------------------------------------------------------------------------------------


def _answers(rng: random.Random, w: int, h: int, box: list[float], poking: bool) -> list[tuple[str, str]]:
    """(form, answer) for one target box [x1, y1, x2, y2] in pixels."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    out = [("pixel", f"({round(cx)}, {round(cy)})"), ("fraction", f"({cx / w:.4f}, {cy / h:.4f})"),
           ("pixel at the box edge", f"({x2:g}, {y2:g})"), ("fraction at the box edge", f"({x1 / w!r}, {y1 / h!r})"),
           ("out of range", rng.choice([f"({-round(cx)}, {round(cy)})", f"({w + 5}, {round(cy)})", "(1.2, 0.5)"])),
           ("box answer", f"[{round(x1)}, {round(y1)}, {round(x2)}, {round(y2)}]"),
           ("percent", f"({100 * cx / w:.1f}%, {100 * cy / h:.1f}%)"), ("x=, y=", f"x={round(cx)}, y={round(cy)}"),
           ("refusal", "Target does not exist"), ("malformed", rng.choice(["I cannot tell.", "", "click it"])),
           ("reasoning first", f"<think>2 steps</think> ({cx / w:.4f}, {cy / h:.4f})"),
           ("one coordinate above 1", f"({cx / w:.4f}, {round(cy)})")]
    if poking:
        out.append(("box poking out", f"({w + 1}, {round(cy)})"))
    return out


def make_corpus(benchmark: str, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = []
    for k in range(40):
        w, h = rng.choice(SIZES)
        bw, bh = rng.randint(2, max(3, w // 8)), rng.randint(2, max(3, h // 8))
        x, y = rng.randint(0, w - bw), rng.randint(0, h - bh)
        if k % 5 == 1:  # near the top-left corner: an [x, y, w, h] box with w > x and h > y
            x, y = rng.randint(0, bw - 1), rng.randint(0, bh - 1)
        poking = benchmark == "screenspot_pro" and k % 8 == 0  # the published box leaves the image (Pro has these)
        box = [x, y, w + 4, y + bh] if poking else [x, y, x + bw, y + bh]
        ui = rng.choice(["text", "icon"])
        for form, text in _answers(rng, w, h, box, poking):
            cases.append({"form": form, "text": text, "width": w, "height": h, "box_xyxy": box, "ui_type": ui})
    return {"benchmark": benchmark, "seed": seed, "cases": cases}


# --- the readings -------------------------------------------------------------------------------------------------


def _our_doc(benchmark: str, case: dict[str, Any]) -> dict[str, Any]:
    """The document our loader builds for the row (gui_tasks.grounding.screenspot._doc, as load_seeclick / _pro_row)."""
    from gui_tasks.grounding.screenspot import _doc

    w, h, b = case["width"], case["height"], case["box_xyxy"]
    scored = [b[0] / w, b[1] / h, b[2] / w, b[3] / h] if benchmark == "screenspot_pro" else None
    report = {"platform": "p", "group": None, "application": "a", "ui_type": case["ui_type"], "lang": "en",
              "gt_type": "positive", "instruction_style": "instruction", "id": "x"}
    fmt = "xyxy_px" if benchmark == "screenspot_pro" else "xywh_px"  # as load_pro / load_seeclick record it
    return _doc(benchmark, "x", "open it", Path("x.png"), (w, h), list(b), "s", {"report": report, "bbox_format": fmt},
                Path("corpus"), 0, scored)


def ours(benchmark: str, case: dict[str, Any]) -> str:
    from gui_tasks.grounding.score import ScoreParams, score_response

    params = ScoreParams(family="relative", inside_rule="inclusive", strictness="official")
    verdict = score_response(_our_doc(benchmark, case), case["text"], params)["official"]["correctness"]
    return "hit" if verdict == "correct" else "miss"


def _hit(flag: Any) -> str:
    return "hit" if flag else "miss"


def lmms_screenspot_v2(case: dict[str, Any]) -> bool:
    mod = importlib.import_module("lmms_eval.tasks.screenspot_v2.utils")
    x1, y1, x2, y2 = case["box_xyxy"]
    doc = {"bbox": [x1, y1, x2 - x1, y2 - y1], "image_width": case["width"], "image_height": case["height"],
           "data_type": case["ui_type"]}
    return _hit(mod.screenspot_v2_process_results(doc, [case["text"]])["screenspot_v2_action_acc"]["correct"])


def lmms_screenspot_pro(case: dict[str, Any]) -> bool:
    mod = importlib.import_module("lmms_eval.tasks.screenspot_pro.utils")
    doc = {"bbox": list(case["box_xyxy"]), "img_size": [case["width"], case["height"]], "ui_type": case["ui_type"]}
    return _hit(mod.screenspot_pro_process_results(doc, [case["text"]])["screenspot_pro_action_acc"]["correct"])


# VLMEvalKit @ e8e78f05f3080fe28154f2130321f17951c3be94, re-stated (it needs its own runtime): vlmeval/dataset/GUI/
# screenspot.py ``ScreenSpot.evaluate_point`` (ScreenSpotV2 in screenspot_v2.py inherits it) and screenspot_pro.py
# ``ScreenSpotPro.evaluate_point``: the answer read by ``parse_bbox_aguvis`` (``re.search(r"x=([\d.]+), y=([\d.]+)")``,
# no match: the click (0, 0)); both coordinates divided by the image size when either exceeds 1; the point tested
# inclusively. ScreenSpot's [x, y, w, h] becomes (x, y, x + w - 1, y + h - 1); a box outside [0, 1] after dividing by
# the image size raises before the try: the whole evaluation stops ("stops").
VLMEVALKIT = ("open-compass/VLMEvalKit", "e8e78f05f3080fe28154f2130321f17951c3be94")


def _vlmevalkit_point(text: str, w: int, h: int) -> tuple[float, float] | None:
    import re

    m = re.search(r"x=([\d.]+), y=([\d.]+)", text)
    try:
        x, y = (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)
    except ValueError:  # "1.2.3": float raises inside the try: wrong_format (a miss)
        return None
    return (x / w, y / h) if x > 1 or y > 1 else (x, y)


def _vlmevalkit(box: list[float], case: dict[str, Any]) -> str:
    w, h = case["width"], case["height"]
    b = [0 if v == -1 else v for v in box]
    rel = [b[0] / w, b[1] / h, b[2] / w, b[3] / h]
    if any(v < 0 or v > 1 for v in rel):
        return "stops"
    p = _vlmevalkit_point(case["text"], w, h)
    return _hit(p is not None and rel[0] <= p[0] <= rel[2] and rel[1] <= p[1] <= rel[3])


def vlmevalkit_screenspot(case: dict[str, Any]) -> str:
    x1, y1, x2, y2 = case["box_xyxy"]
    x, y, bw, bh = x1, y1, x2 - x1, y2 - y1  # the release's [x, y, w, h]
    return _vlmevalkit([x, y, x + bw - 1, y + bh - 1], case)


def vlmevalkit_screenspot_pro(case: dict[str, Any]) -> str:
    return _vlmevalkit(list(case["box_xyxy"]), case)


_VK = f"VLMEvalKit @ {VLMEVALKIT[1][:7]} (re-stated)"
HARNESSES: list[tuple[str, str, Callable[[dict[str, Any]], str], str]] = [
    ("screenspot", _VK, vlmevalkit_screenspot, "vlmeval/dataset/GUI/screenspot.py ScreenSpot.evaluate_point"),
    ("screenspot_v2", f"{LMMS} `screenspot_v2` (called)", lmms_screenspot_v2, "lmms_eval/tasks/screenspot_v2/utils.py"),
    ("screenspot_v2", _VK, vlmevalkit_screenspot, "vlmeval/dataset/GUI/screenspot_v2.py (ScreenSpot.evaluate_point)"),
    ("screenspot_pro", f"{LMMS} `screenspot_pro` (called)", lmms_screenspot_pro, "lmms_eval/tasks/screenspot_pro/utils.py"),
    ("screenspot_pro", _VK, vlmevalkit_screenspot_pro, "vlmeval/dataset/GUI/screenspot_pro.py ScreenSpotPro.evaluate_point"),
]


def as_reading(benchmark: str, reading: str, case: dict[str, Any]) -> str:
    """Our task with ``reading: <reading>`` (gui_metrics.screenspot_readings): hit | miss | stops."""
    from gui_tasks.grounding.score import ScoreParams, score_response

    params = ScoreParams(family="relative", inside_rule="inclusive", strictness="official", reading=reading)
    verdict = score_response(_our_doc(benchmark, case), case["text"], params)["official"]["correctness"]
    return {"correct": "hit", "error": "stops"}.get(verdict, "miss")


def reading_agreement(benchmark: str, reading: str, theirs: Callable[[dict[str, Any]], str]) -> tuple[int, int]:
    corpus = json.loads((CORPORA / f"{benchmark}.json").read_text(encoding="utf-8"))
    return sum(as_reading(benchmark, reading, c) == theirs(c) for c in corpus["cases"]), len(corpus["cases"])


def by_form(benchmark: str, theirs: Callable[[dict[str, Any]], str]) -> dict[str, list[Any]]:
    corpus = json.loads((CORPORA / f"{benchmark}.json").read_text(encoding="utf-8"))
    table: dict[str, list[Any]] = defaultdict(lambda: [0, 0, None])
    for case in corpus["cases"]:
        a, b = ours(benchmark, case), theirs(case)
        entry = table[case["form"]]
        entry[0] += a == b
        entry[1] += 1
        if a != b and entry[2] is None:
            entry[2] = f"`{case['text']}` on {case['width']}x{case['height']} box {case['box_xyxy']}: ours {a}, " \
                       f"theirs {b}"
    return dict(table)


def heldout_rows() -> list[tuple[str, int, int]]:
    """(corpus, agreeing, total) of our official readers vs the benchmark repositories' files (verdicts as recorded)."""
    from gui_core.grounding_wrappers import wrapper_for

    rows = []
    for path in sorted(HELDOUT.glob("*.json")):
        corpus = json.loads(path.read_text(encoding="utf-8"))
        family = path.stem[len(corpus["benchmark"]) + 1:].removesuffix("_negative")
        wrapper = wrapper_for(corpus["benchmark"], family, corpus["negative"])
        agree = total = 0
        for k, (w, h, b) in enumerate(corpus["cases"]):
            box = _scorer_box(corpus["benchmark"], w, h, b)
            for e in corpus["entries"]:
                theirs = e["verdicts"][k]
                theirs = "wrong_format" if theirs.startswith("raises:") else theirs
                found = wrapper.reader(e["text"], w, h)
                if wrapper.negative:
                    res = found.detail.split(":", 1)[0]
                    mine = {"negative": "correct", "positive": "wrong"}.get(res, "wrong_format")
                elif found.point is None:
                    mine = "wrong_format"
                else:
                    x, y = found.point
                    mine = "correct" if box[0] <= x <= box[2] and box[1] <= y <= box[3] else "wrong"
                agree += mine == theirs
                total += 1
        rows.append((path.stem, agree, total))
    return rows


def _scorer_box(benchmark: str, w: int, h: int, b: list[float]) -> list[float]:
    b = list(b)
    if benchmark == "uivision":  # eval_sample_positive_gt swaps reversed corners
        b = [min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])]
    if benchmark == "mmbench_gui_l2":
        from gui_tasks.grounding.mmbench_gui import relative_box

        return relative_box(b, (w, h), Path("corpus"), 0)
    return [b[0] / w, b[1] / h, b[2] / w, b[3] / h]


_READING = ("Answer reading: ours reads a relative point only (the PSS prompt asks for one); {who}. Every such answer "
            "inside the box is a hit there and a miss here; a family task (`gui_<benchmark>_<family>`) reads its own "
            "frame.")
_LMMS_READ = ("lmms-eval also reads pixel points (both coordinates divided by the image size when either exceeds 1), "
              "percentages, `x=`/`y=` and box answers (their centre)")
_VK_READ = ("VLMEvalKit reads only `x=<num>, y=<num>` (`parse_bbox_aguvis`); any other answer, a relative pair "
            "included, is the click (0, 0), which hits a box at the origin; `x=`/`y=` pixels are divided by the size")
_VK_SS = ("Target box: VLMEvalKit makes [x, y, w, h] into (x, y, x + w - 1, y + h - 1), one pixel smaller than SeeClick's "
          "(x + w, y + h): a point on the right or bottom edge misses there.")
_VK_STOP = ("A box outside the image after dividing by its size raises `bbox out of range` before the try: VLMEvalKit's "
            "evaluation stops (\"stops\"); eval_screenspot_pro.py scores the row against the box as published.")
DEPARTURES: dict[tuple[str, str], list[str]] = {
    ("screenspot", _VK): [_READING.format(who=_VK_READ), _VK_SS],
    ("screenspot_v2", f"{LMMS} `screenspot_v2` (called)"): [
        _READING.format(who=_LMMS_READ),
        "Target box: lmms-eval's `_normalize_bbox_to_xyxy` takes the dataset's [x, y, w, h] as [x1, y1, x2, y2] whenever "
        "w > x and h > y (an element near the top-left corner; every fifth box of this corpus lies there); "
        "SeeClick's script always reads x, y, w, h."],
    ("screenspot_v2", _VK): [_READING.format(who=_VK_READ), _VK_SS],
    ("screenspot_pro", f"{LMMS} `screenspot_pro` (called)"): [
        _READING.format(who=_LMMS_READ),
        "Box poking out of the image: lmms-eval normalises the published box and divides a point by the image size "
        "whenever a coordinate exceeds 1, so a pixel point just outside the image inside the published box hits there; "
        "our relative reading reads no pixel point."],
    ("screenspot_pro", _VK): [_READING.format(who=_VK_READ), _VK_STOP,
                              "Its per-type figures weight each category's list by its own length (the comprehension "
                              "`[v for k, v in stats.items() if ... for x in v]` repeats every list len(v) times): "
                              "Text_Accuracy and Icon_Accuracy are not micro accuracies when categories differ in size."],
}


# --- family readings vs ClawGUI-Eval's judge ---------------------------------------------------------------------
# ZJU-REAL/ClawGUI @ d990d3e3f2390ced708771d9681d3c4f9a6cbef5 clawgui-eval/judge/grounding_judge.py, re-stated
# (``ScreenSpotJudge``, one judge for screenspot-v2 / -pro, uivision and mmbench-gui): the model's parser turns the
# answer into original-image pixels, ``evaluate_single`` tests x1 <= x <= x2 and y1 <= y <= y2 against the item's
# ``answer`` box (pixels); a parser that returns None or raises is a miss.
CLAWGUI = ("ZJU-REAL/ClawGUI", "d990d3e3f2390ced708771d9681d3c4f9a6cbef5")
_CG_NUM = r"-?\d+\.?\d*"


def _cg_numbers(text: str, tool_key: tuple[str, str, str] | None) -> list[float] | None:
    """The tool-call / answer JSON's coordinate when present, else every number of the answer (its fallback)."""
    import re

    if tool_key is not None:
        open_tag, close_tag, field = tool_key
        if open_tag in text and close_tag in text:
            try:
                body = json.loads(text[text.find(open_tag) + len(open_tag):text.find(close_tag)].strip())
                c = body["arguments"][field] if field == "coordinate" and "arguments" in body else body[field]
                if isinstance(c, list) and len(c) >= 2:
                    return [float(c[0]), float(c[1])]
            except (ValueError, KeyError, TypeError, AttributeError):
                pass
    nums = re.findall(_CG_NUM, text)
    return [float(n) for n in nums] if nums else None


def _cg_point(coords: list[float] | None, scale: Callable[[float, float], tuple[float, float]]):
    if not coords:
        return None
    if len(coords) == 2:
        return scale(coords[0], coords[1])
    if len(coords) >= 4:
        return scale((coords[0] + coords[2]) / 2, (coords[1] + coords[3]) / 2)
    return None  # three numbers


def clawgui_qwen3vl(text: str, w: int, h: int):
    """``qwen3vl_parse``: 0-1000 grid, truncated to whole pixels (``int``)."""
    if not text:
        return None
    return _cg_point(_cg_numbers(text, ("<tool_call>", "</tool_call>", "coordinate")),
                     lambda x, y: (int(x / 1000 * w), int(y / 1000 * h)))


def clawgui_qwen25vl(text: str, w: int, h: int):
    """``qwen25vl_parse``: the numbers as original-image pixels (a point truncated by ``int``, a box's centre not)."""
    if not text:
        return None
    coords = _cg_numbers(text, ("<tool_call>", "</tool_call>", "coordinate"))
    if coords and len(coords) == 2:
        return int(coords[0]), int(coords[1])
    return _cg_point(coords, lambda x, y: (x, y))


def clawgui_uitars(text: str, w: int, h: int):
    """``uitars_parse``: ``<point>x y</point>`` else ``(x,y)`` (digits only), over its own smart resize (``int`` of the
    scaled side before flooring / ceiling) back to original pixels, truncated."""
    import math
    import re

    if not text:
        return None
    m = re.search(r"<point>(\d+)\s+(\d+)</point>", text) or re.search(r"\((\d+),\s*(\d+)\)", text)
    if not m:
        return None
    mx, my = int(m.group(1)), int(m.group(2))
    f, lo, hi = 28, 100 * 28 * 28, 16384 * 28 * 28
    hb, wb = max(f, round(h / f) * f), max(f, round(w / f) * f)
    if hb * wb > hi:
        beta = math.sqrt(h * w / hi)
        hb, wb = math.floor(int(h / beta) / f) * f, math.floor(int(w / beta) / f) * f
    elif hb * wb < lo:
        beta = math.sqrt(lo / (h * w))
        hb, wb = math.ceil(int(h * beta) / f) * f, math.ceil(int(w * beta) / f) * f
    return int(mx / wb * w), int(my / hb * h)


CLAWGUI_FAMILIES = {"qwen3_vl": clawgui_qwen3vl, "qwen2_5_vl": clawgui_qwen25vl, "ui_tars_1_5": clawgui_uitars}


def _resized(w: int, h: int) -> tuple[int, int]:
    from gui_core.grounding_wrappers import _uitars_smart_resize

    nh, nw = _uitars_smart_resize(h, w)
    return nw, nh


def _family_answers(rng: random.Random, fam: str, w: int, h: int, box: list[float]) -> list[tuple[str, str]]:
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    if fam == "qwen3_vl":
        g = lambda x, y: (round(x / w * 1000), round(y / h * 1000))  # noqa: E731
        gx, gy = g(cx, cy)
        ex, ey = x2 / w * 1000, y2 / h * 1000
        tool = json.dumps({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [gx, gy]}})
        return [("grid point", f'{{"point_2d": [{gx}, {gy}]}}'), ("grid point at the box edge", f"[{ex:.1f}, {ey:.1f}]"),
                ("tool call", f"<tool_call>\n{tool}\n</tool_call>"),
                ("grid box", f'{{"bbox_2d": [{round(x1 / w * 1000)}, {round(y1 / h * 1000)}, {round(x2 / w * 1000)}, '
                             f'{round(y2 / h * 1000)}]}}'),
                ("three numbers", f"[{gx}, {gy}, 5]"), ("out of range", f"[{gx + 1000}, {gy}]"),
                ("malformed", rng.choice(["no element", ""])), ("reasoning first", f"Step 2: [{gx}, {gy}]")]
    rw, rh = _resized(w, h)
    px, py = round(cx / w * rw), round(cy / h * rh)
    if fam == "qwen2_5_vl":
        tool = json.dumps({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [px, py]}})
        return [("resized-pixel point", f'{{"point_2d": [{px}, {py}]}}'), ("tool call", f"<tool_call>\n{tool}\n</tool_call>"),
                ("original-pixel point", f"[{round(cx)}, {round(cy)}]"),
                ("pixel at the box edge", f"[{x2 / w * rw:.1f}, {y2 / h * rh:.1f}]"),
                ("three numbers", f"[{px}, {py}, 5]"), ("malformed", rng.choice(["no element", ""])),
                ("out of range", f"[{-px}, {py}]")]
    return [("start_box point", f"click(start_box='({px},{py})')"), ("<point> tag", f"click(point='<point>{px} {py}</point>')"),
            ("pixel at the box edge", f"click(start_box='({round(x2 / w * rw)},{round(y2 / h * rh)})')"),
            ("thought with a number", f"Thought: the 2nd icon.\nAction: click(start_box='({px},{py})')"),
            ("malformed", rng.choice(["no element", ""])), ("decimal point", f"({px}.5, {py})")]


def make_family_corpus(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = []
    for k in range(30):
        w, h = rng.choice(SIZES)
        bw, bh = rng.randint(2, max(3, w // 8)), rng.randint(2, max(3, h // 8))
        x, y = rng.randint(0, w - bw), rng.randint(0, h - bh)
        box = [x, y, x + bw, y + bh]
        for fam in CLAWGUI_FAMILIES:
            for form, text in _family_answers(rng, fam, w, h, box):
                cases.append({"family": fam, "form": form, "text": text, "width": w, "height": h, "box_xyxy": box,
                              "ui_type": "icon"})
    return {"benchmark": "screenspot_v2", "seed": seed, "cases": cases}


def ours_family(case: dict[str, Any]) -> str:
    from gui_tasks.grounding.score import ScoreParams, score_response

    params = ScoreParams(family=case["family"], inside_rule="inclusive", strictness="official")
    verdict = score_response(_our_doc("screenspot_v2", case), case["text"], params)["official"]["correctness"]
    return "hit" if verdict == "correct" else "miss"


def clawgui(case: dict[str, Any]) -> str:
    try:
        p = CLAWGUI_FAMILIES[case["family"]](case["text"], case["width"], case["height"])
    except Exception:  # noqa: BLE001 - BaseJudge.evaluate: an exception is a miss
        p = None
    x1, y1, x2, y2 = case["box_xyxy"]
    return _hit(p is not None and x1 <= p[0] <= x2 and y1 <= p[1] <= y2)


def family_table() -> dict[str, dict[str, list[Any]]]:
    corpus = json.loads((CORPORA / "screenspot_v2_families.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, None]))
    for case in corpus["cases"]:
        a, b = ours_family(case), clawgui(case)
        entry = out[case["family"]][case["form"]]
        entry[0] += a == b
        entry[1] += 1
        if a != b and entry[2] is None:
            entry[2] = f"`{case['text']}` on {case['width']}x{case['height']} box {case['box_xyxy']}: ours {a}, theirs {b}"
    return out


CLAWGUI_DEPARTURES = [
    "Qwen3-VL's and Qwen2.5-VL's own JSON answers (`{\"point_2d\": [x, y]}`, `{\"bbox_2d\": [...]}`) hold the digit of "
    "the key: ClawGUI-Eval's number fallback reads `2, x, y` (three numbers: no point) or `2, x1, y1, x2, y2` (a wrong "
    "centre); the authors' parsers (ours) read the JSON.",
    "UI-TARS: ClawGUI-Eval reads only integers in `(x,y)` or `<point>x y</point>`; a decimal coordinate is no point there.",
    "ClawGUI-Eval reads any answer's numbers when no tool call is found: the first two as a point, four or more as a box "
    "centre, three as nothing; the authors' parsers (ours) read their own syntax only (a number in a thought is "
    "not a coordinate there).",
    "Qwen2.5-VL: ClawGUI-Eval takes its numbers as original-image pixels; the authors' frame (ours) is the resized "
    "image the model saw (`resize_budget`), mapped back; the two agree only where the resize is the identity.",
    "Qwen3-VL and UI-TARS: ClawGUI-Eval truncates the mapped point to whole pixels (`int`), and its UI-TARS smart "
    "resize takes `int()` of the scaled side before flooring / ceiling: points at a box's right or bottom edge move.",
]


# --- OSWorld-G: the readings of gui_metrics.osworld_g_readings (issue 52 item 1) on their differential corpus --------
OSWORLD_CORPUS = ROOT / "tests" / "fixtures" / "differential" / "osworld_g" / "corpus.json"


def osworld_section() -> list[str]:
    """Per box type and answer kind (the official reading's status): how often the harnesses' own verdicts (recorded
    in the corpus from their code) agree with the official one, and that each ``reading`` equals its harness."""
    from gui_metrics import osworld_g_readings as rd

    corpus = json.loads(OSWORLD_CORPUS.read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in corpus["rows"]}

    def label(reading: str, text: str, row: Mapping[str, Any]) -> str:
        v = rd.READERS[reading](rd.strip_reasoning(text) if reading == "lmms_eval" else text, row)
        return "error" if v.status == "error" else "correct" if v.correct else "wrong"

    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    equal = {r: 0 for r in rd.READINGS}
    for e in corpus["entries"]:
        row = rows[e["row"]]
        kind = rd.READERS["official"](e["text"], row).status
        entry = table[(str(row["box_type"]) + ("" if row["box_coordinates"] else " (no coordinates)"), kind)]
        entry[0] += 1
        entry[1] += e["verdicts"]["lmms_eval"] == e["verdicts"]["official"]
        entry[2] += e["verdicts"]["vlmevalkit"] == e["verdicts"]["official"]
        for r in rd.READINGS:
            equal[r] += label(r, e["text"], row) == e["verdicts"][r]
    n = len(corpus["entries"])
    out = [f"`reading=official|vlmevalkit|lmms_eval` (`gui_metrics/osworld_g_readings.py`) on the corpus "
           f"tests/fixtures/differential/osworld_g/corpus.json ({n} answers): each reading equals its harness's code on "
           + ", ".join(f"{r} {equal[r]}/{n}" for r in rd.READINGS) + ". Between the harnesses (their own verdicts; "
           "`error`: the harness stops on the row):", "",
           "| box type | answer (official reading) | answers | lmms-eval = official | VLMEvalKit = official |",
           "|---|---|---|---|---|"]
    for (box, kind), (total, lm, vk) in sorted(table.items()):
        out.append(f"| {box} | {kind} | {total} | {lm}/{total} | {vk}/{total} |")
    out += ["", "The departures and their causes: [OSWorld-G](osworld_g.md) (the readings)."]
    return out


# --- the page -----------------------------------------------------------------------------------------------------


def render() -> str:
    out = ["# Grounding numbers across harnesses: agreement per answer form", "",
           "[README](../README.md) · [MMBench-GUI L2](mmbench_gui_l2.md) · [OSWorld-G](osworld_g.md) · "
           "[ScreenSpot-Pro](screenspot_pro.md) · [UI-Vision](uivision.md)", "",
           "Generated by `python scripts/grounding_agreement.py` (tests/test_grounding_agreement.py regenerates it and "
           "compares); do not edit by hand. Each corpus is committed under tests/fixtures/grounding_agreement/ "
           "(seeded) or tests/fixtures/differential/wrappers_heldout/ (issue 46).", "",
           "## Our default tasks vs other harnesses' own code", "",
           "Ours: the benchmark's default task (`gui_<benchmark>`, the PSS paper's relative prompt, `strictness: "
           "official`, the benchmark script's inclusive point-in-box); a verdict is hit or miss; \"stops\": that harness's "
           "evaluation raises on the row and produces no number at all. Each harness is also a reading of our task "
           "(task metadata `reading`, `gui_metrics/screenspot_readings.py`: lmms-eval's `process_results` called, "
           "VLMEvalKit's `evaluate_point` re-stated), recorded in every result (`params.reading`).", ""]
    for benchmark, name, fn, where in HARNESSES:
        table = by_form(benchmark, fn)
        agree, total = sum(v[0] for v in table.values()), sum(v[1] for v in table.values())
        reading = "lmms_eval" if name.startswith(LMMS) else "vlmevalkit"
        same, n = reading_agreement(benchmark, reading, fn)
        out += [f"### `gui_{benchmark}` vs {name}: {agree}/{total} answers agree", "", f"Code: `{where}`. Selectable: "
                f"`reading: {reading}` on this task scores as this code on {same}/{n} answers.", "",
                "| answer form | agree | first departure |", "|---|---|---|"]
        for form, (a, n, first) in sorted(table.items()):
            out.append(f"| {form} | {a}/{n} | {first or ''} |")
        out += ["", "Why they differ:", ""] + [f"- {d}" for d in DEPARTURES[(benchmark, name)]] + [""]
    out += ["## Family readings vs ClawGUI-Eval's judge (re-stated)", "",
            f"`{CLAWGUI[0]}` @ {CLAWGUI[1][:7]} `clawgui-eval/judge/grounding_judge.py` (one judge for ScreenSpot-v2, "
            "-Pro, UI-Vision and MMBench-GUI: the same reading on each), on ScreenSpot-v2 boxes "
            "(tests/fixtures/grounding_agreement/screenspot_v2_families.json) against `gui_screenspot_v2_<family>` "
            "(`strictness: official`, the family authors' reader and frame).", ""]
    for fam, table in family_table().items():
        agree, total = sum(v[0] for v in table.values()), sum(v[1] for v in table.values())
        out += [f"### `{fam}`: {agree}/{total} answers agree", "", "| answer form | agree | first departure |",
                "|---|---|---|"]
        out += [f"| {form} | {a}/{n} | {first or ''} |" for form, (a, n, first) in sorted(table.items())] + [""]
    out += ["Why they differ:", ""] + [f"- {d}" for d in CLAWGUI_DEPARTURES] + [""]
    out += ["## Our `official` readers vs the benchmark repositories' own files (verdicts recorded, issue 46)", "",
            "| corpus (benchmark_family) | agree |", "|---|---|"]
    out += [f"| {name} | {a}/{n} |" for name, a, n in heldout_rows()]
    out += ["", "MMBench-GUI L2's whole table (every row `evaluate` scores, per-slice figures): "
            "tests/test_mmbench_gui_l2_whole.py against a line-by-line re-statement of `evaluate`.", ""]
    out += ["## OSWorld-G", ""] + osworld_section() + [""]
    out += ["## Not compared here", "",
            "- ScreenSpot v1: lmms-eval 0.7.3's `screenspot` tasks are referring-expression box tasks (IoU, captions), "
            "not point grounding; no other harness's point task for v1 was run.",
            "- UI-Vision and MMBench-GUI L2: lmms-eval 0.7.3 has no task for them; the benchmark repositories' code is "
            "our `official` (above).",
            "- VLMEvalKit @ e8e78f0 has no UI-Vision or MMBench-GUI dataset (MMBench-GUI's own repository builds on "
            "its base class: the benchmark repository row above). ClawGUI-Eval's OSWorld-G judge belongs to the "
            "OSWorld-G section.", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if "--corpus" in argv:
        CORPORA.mkdir(parents=True, exist_ok=True)
        for seed, benchmark in enumerate(dict.fromkeys(b for b, *_ in HARNESSES), start=520):
            (CORPORA / f"{benchmark}.json").write_text(json.dumps(make_corpus(benchmark, seed), indent=0) + "\n",
                                                       encoding="utf-8")
        (CORPORA / "screenspot_v2_families.json").write_text(json.dumps(make_family_corpus(530), indent=0) + "\n",
                                                             encoding="utf-8")
    text = render()
    if "--check" in argv:
        return 0 if PAGE.is_file() and PAGE.read_text(encoding="utf-8") == text else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
