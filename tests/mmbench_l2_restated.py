"""A line-by-line re-statement of MMBench-GUI L2's official evaluation, the test oracle of issue 52 (item 2).

open-compass/MMBench-GUI @ 896ddf1d3aa4d6464d0c55c6416518f889d78d77:
- ``benchmarks/l2_element_grounding.py`` ``GUIElementGrounding.__init__`` (mode filter, the ``platform/image_path``
  join, ``skip_noimg``) and ``evaluate`` (the bbox reading, ``make_safe``, ``is_normalized``, the range check that
  raises, the ``key`` (``category:data_type`` when the frame has a ``category`` column), the try around the parse,
  the normalisation and the match, its except appending -1);
- ``benchmarks/matrics.py`` ``level2_calculate_scores``;
- ``utils/misc.py`` ``parser_response_into_coordinates`` (its verbose regex, as published) and
  ``models/local_uitars.py`` ``parse_grounding_response`` / ``uitars_postprocess`` / ``smart_resize``.

Written from that code, not from ours: rows are a pandas frame (a key missing from a row reads NaN where another row
has it; a column no row has is a KeyError), the evaluation file is the xlsx VLMEvalKit writes (a list cell is read back
as its ``str``: ``image_size`` is ``literal_eval``'d by the UI-TARS reader). A statement outside ``evaluate``'s try
that raises stops the whole run: ``evaluate(..., stop_on_raise=False)`` records that row as stopped (with the line)
and goes on, so one corpus names every row the official run cannot get past.
"""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

from PIL import Image

NAN = float("nan")


class Stop(Exception):
    """The official run stops at this row (``line`` names the statement)."""

    def __init__(self, row: int, line: str, error: BaseException):
        super().__init__(f"row {row}: {line}: {type(error).__name__}: {error}")
        self.row, self.line, self.error = row, line, error


def parser_response_into_coordinates(text: str, meta: Any = None):
    pattern = r"""
        (?:x\s*[:=]?\s*)?
        [\(\[\{]?
        \s*([-+]?(?:\d+\.\d+|\.\d+|\d+))\s*
        [,\s;]+
        (?:y\s*[:=]?\s*)?
        \s*([-+]?(?:\d+\.\d+|\.\d+|\d+))\s*
        [\)\]\}]?
    """
    matches = re.findall(pattern, text, re.IGNORECASE | re.VERBOSE)
    if len(matches) == 0:
        return None
    return [(float(x), float(y)) for x, y in matches][0]


def _smart_resize(height, width, factor=28, min_pixels=100 * 28 * 28, max_pixels=16384 * 28 * 28):
    if max(height, width) / min(height, width) > 200:
        raise ValueError("absolute aspect ratio must be smaller than 200")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = math.floor(height / beta / factor) * factor
        w_bar = math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def uitars_parse_grounding_response(response: str, meta: dict):
    click_point = re.findall(r"\d+", response)
    if len(click_point) == 2:
        click_point = [int(x) for x in click_point]
        width, height = ast.literal_eval(meta["image_size"])
        new_height, new_width = _smart_resize(height, width)
        return (click_point[0] / new_width, click_point[1] / new_height)
    return None


PARSERS: dict[str, Callable[..., Any]] = {"relative": parser_response_into_coordinates,
                                          "ui_tars_1_5": uitars_parse_grounding_response}


def frame(rows: Sequence[dict], mode: str = "all") -> tuple[list[str], list[dict]]:
    """``GUIElementGrounding.__init__``: the frame's columns and its lines (mode filter, path join, skip_noimg)."""
    columns: list[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    lines = [{c: r.get(c, NAN) for c in columns} | {"_row": i} for i, r in enumerate(rows)]
    if mode != "all":
        lines = [ln for ln in lines if ln["grounding_type"] == mode]
    for ln in lines:
        ln["image_path"] = f"{ln['platform']}/{ln['image_path']}"  # after the join pd.isna never holds: nothing skipped
    return columns, lines


def _xlsx(value: Any) -> Any:
    """A cell as read back from the xlsx evaluation file: a list or dict cell is its str."""
    return str(value) if isinstance(value, (list, tuple, dict)) else value


def evaluate(rows: Sequence[dict], predictions: Sequence[str], img_root: Path, parse: str,
             stop_on_raise: bool = True, mode: str = "all") -> dict[str, Any]:
    """``evaluate``: ``{"stats", "verdicts" (row -> 1 / 0 / -1), "stopped" (row -> line), "scores"}``."""
    parse_function = PARSERS[parse]
    columns, lines = frame(rows, mode)
    stats: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    verdicts: dict[int, int] = {}
    stopped: dict[int, str] = {}
    for line in lines:
        i = line["_row"]
        line = {k: (_xlsx(v) if k != "_row" else v) for k, v in line.items()}
        line["prediction"] = predictions[i]
        where = "bbox = line['bbox'] if isinstance(line['bbox'], list) else ast.literal_eval(line['bbox'])"
        try:
            if "bbox" not in line:
                raise KeyError("bbox")
            bbox = line["bbox"] if isinstance(line["bbox"], list) else ast.literal_eval(line["bbox"])
            where = "image = Image.open(os.path.join(self.img_root, line['image_path']))"
            with Image.open(img_root / line["image_path"]) as image:
                img_size = image.size

            def make_safe(value):
                return 0 if value == -1 else value

            def is_normalized(value):
                if isinstance(value, float) or isinstance(value, int):
                    return 0 <= value <= 1
                elif isinstance(value, list) or isinstance(value, tuple):
                    return all(0 <= x <= 1 for x in value)

            where = "if is_normalized(bbox): ... else: make_safe(bbox[k]) / img_size[k]"
            if is_normalized(bbox):
                bbox = [make_safe(bbox[0]), make_safe(bbox[1]), make_safe(bbox[2]), make_safe(bbox[3])]
            else:
                bbox = [make_safe(bbox[0]) / img_size[0], make_safe(bbox[1]) / img_size[1],
                        make_safe(bbox[2]) / img_size[0], make_safe(bbox[3]) / img_size[1]]
            where = "if any([x < 0 or x > 1 for x in bbox]): raise ValueError('bbox out of range')"
            if any([x < 0 or x > 1 for x in bbox]):
                raise ValueError(f"bbox out of range: {bbox}")
            where = "key = line['data_type'] if 'category' not in line else line['category'] + ':' + line['data_type']"
            if "data_type" not in line:
                raise KeyError("data_type")
            key = line["data_type"] if "category" not in line else line["category"] + ":" + line["data_type"]
            prediction = str(line["prediction"])
            level, platform = line["grounding_type"], line["platform"]
            try:
                click_point = parse_function(prediction, meta=line)
                if click_point[0] > 1 or click_point[1] > 1:
                    click_point = (click_point[0] / img_size[0], click_point[1] / img_size[1])
                match = (bbox[0] <= click_point[0] <= bbox[2]) and (bbox[1] <= click_point[1] <= bbox[3])
                stats[level][platform][key].append(1 if match else 0)
                verdict = 1 if match else 0
            except Exception:  # noqa: BLE001 - the official except
                where = "stats[line['grounding_type']][line['platform']][key].append(-1) (in the except)"
                stats[level][platform][key].append(-1)
                verdict = -1
            where = "result.append({... line['instruction'], line['app_name'] ...})"
            for c in ("instruction", "data_type", "app_name", "platform", "grounding_type"):
                if c not in line:
                    raise KeyError(c)
        except Exception as exc:  # noqa: BLE001 - outside the official try: the run stops
            if stop_on_raise:
                raise Stop(i, where, exc) from exc
            stopped[i] = where
            continue
        verdicts[i] = verdict
    return {"stats": stats, "verdicts": verdicts, "stopped": stopped}


def level2_calculate_scores(stats: dict) -> dict[str, Any]:
    """``level2_calculate_scores``; a Python ``0 / 0`` (a level-platform with no icon or no text row) raises there."""
    final: dict[str, Any] = {}
    for level, level_value in stats.items():
        final[level] = {}
        for platform, pv in level_value.items():
            total = sum(len(pv[t]) for t in list(pv))
            icon, text = list(pv["icon"]), list(pv["text"])
            ic, tc = sum(x == 1 for x in icon), sum(x == 1 for x in text)
            final[level][platform] = {
                "Total num": total, "Icon num": len(icon), "Text num": len(text),
                "Total accuracy": (ic + tc) / total * 100, "Icon accuracy": ic / len(icon) * 100,
                "Text accuracy": tc / len(text) * 100, "Correct num": ic + tc,
                "Wrong num": sum(x == 0 for x in icon) + sum(x == 0 for x in text),
                "Error format num": sum(x == -1 for x in icon) + sum(x == -1 for x in text)}

    def summary(level: str) -> float:
        nums = [x["Total num"] for x in final[level].values()]
        return sum(x["Total accuracy"] * n / sum(nums) for x, n in zip(final[level].values(), nums))

    basic, advanced = summary("basic"), summary("advanced")
    return {"Average accuracy": (basic + advanced) / 2, "Basic accuracy": basic, "Advanced accuracy": advanced, **final}
