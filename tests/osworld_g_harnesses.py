"""Re-statements of the code each OSWorld-G harness scores with, written from reading it (never imported into the
project, never copied): what the differential corpus (tests/fixtures/differential/osworld_g) is checked against.

- ``grounding_eval``: ``GroundingEval._eval`` of xlang-ai/OSWorld-G ``evaluation/eval.py``, read in the copy of
  open-compass/VLMEvalKit pull request #1020, ``vlmeval/dataset/GUI/osworld_g.py`` @
  d47d6c727344c3c80f5589878ea50e8148416af9 (``OSWorldG._eval``).
- ``vlmevalkit_evaluate``: the same file's ``OSWorldG.evaluate`` loop with ``parse_aguvis_coordinates``,
  ``get_float_list`` and ``get_classification_list``, over TSV lines whose list columns are strings.
- lmms-eval 0.7.3 is installed: ``lmms_eval_verdict`` calls its ``osworld_g_process_results`` itself.

Kept in the statement order of the originals (the order decides which of two faults a row meets first).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def grounding_eval(coordinate: Sequence[float], boxes_type: str, boxes_size: Sequence[float],
                   boxes_coordinate: Sequence[float], image_size: Sequence[float]) -> Any:
    """``_eval(coordinate, boxes_type, boxes_size, boxes_coordinate, image_size)``; returns what it returns (None for
    a box type it does not name)."""
    coordinate = list(coordinate)
    if all(0 <= c <= 1 for c in coordinate):  # relative when every number is within [0, 1]
        coordinate = [c * image_size[k % 2] for k, c in enumerate(coordinate)]
    centre = [(coordinate[0] + coordinate[2]) / 2, (coordinate[1] + coordinate[3]) / 2]
    if boxes_type == "bbox":
        rect = [boxes_coordinate[0], boxes_coordinate[1], boxes_coordinate[0] + boxes_size[0],
                boxes_coordinate[1] + boxes_size[1]]
        return rect[0] <= centre[0] <= rect[2] and rect[1] <= centre[1] <= rect[3]
    if boxes_type == "polygon":
        px, py = centre
        count = len(boxes_coordinate) // 2
        crossings = 0
        prev = count - 1
        for cur in range(count):
            ax, ay = boxes_coordinate[2 * cur], boxes_coordinate[2 * cur + 1]
            bx, by = boxes_coordinate[2 * prev], boxes_coordinate[2 * prev + 1]
            if (ay > py) != (by > py) and px < (bx - ax) * (py - ay) / (by - ay) + ax:
                crossings += 1
            prev = cur
        return crossings % 2 == 1
    if boxes_type == "refusal":
        return centre[0] < 0 and centre[1] < 0
    return None


def parse_aguvis_coordinates(response_text: str) -> list[float]:
    """VLMEvalKit PR #1020's reader: first line; pyautogui click / moveTo x= and y= parts; ``wait``; else zeros."""
    text = response_text.strip()
    lines = text.split("\n")
    if len(lines) > 1:
        text = lines[0]
    if "pyautogui.click" in text or "pyautogui.moveTo" in text:
        found: dict[str, float] = {}
        for piece in text.split(","):
            if "x=" in piece:
                found["x"] = float(piece.split("=")[1].strip())
            elif "y=" in piece:
                found["y"] = float(piece.split("=")[1].strip().rstrip(")"))
        if "x" in found and "y" in found:
            return [found["x"], found["y"], found["x"], found["y"]]
        return [0, 0, 0, 0]
    if "wait" in text:
        return [-1, -1, -1, -1]
    return [0, 0, 0, 0]


def get_float_list(cell: str) -> list[float]:
    """``get_float_list``: the list string without its brackets, split on commas, each ``float``-ed."""
    return [float(piece) for piece in cell[1:-1].split(",")]


def get_classification_list(cell: str) -> list[str]:
    """``get_classification_list``: the list string without its brackets, split on commas, stripped, unquoted."""
    return [piece.strip()[1:-1] for piece in cell[1:-1].split(",")]


def tsv_line(text: str, row: Mapping[str, Any]) -> dict[str, str]:
    """A line of the evaluation file as VLMEvalKit loads it: list columns are their Python ``str``."""
    return {"prediction": str(text), "bbox": str(list(row["box_coordinates"])), "image_size": str(list(row["image_size"])),
            "box_type": str(row["box_type"]), "classification_list": str(list(row.get("groups") or []))}


def vlmevalkit_evaluate(lines: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """``OSWorldG.evaluate`` over the lines: total, correct, accuracy, accuracy_dict_group (raises where it raises)."""
    groups: dict[str, dict[str, Any]] = {}
    correct = 0
    per_line: list[bool] = []
    bound: dict[str, Any] = {}  # the loop's locals keep the last row's box across rows; unbound at first: NameError
    for line in lines:
        cls_list = get_classification_list(line["classification_list"])
        if not cls_list:
            cls_list.append("unclassified")
        for g in cls_list:
            groups.setdefault(g, {"total": 0, "correct": 0, "accuracy": 0})["total"] += 1
        try:
            predicted = parse_aguvis_coordinates(str(line["prediction"]))
        except Exception:
            per_line.append(False)
            continue
        bbox = get_float_list(line["bbox"])
        image_size = get_float_list(line["image_size"])
        if line["box_type"] == "bbox":
            bound.update(type="bbox", coordinate=bbox[:2], size=bbox[2:])
        elif line["box_type"] == "polygon":
            bound.update(type="polygon", coordinate=bbox, size=image_size)
        elif line["box_type"] == "refusal":
            bound.update(type="refusal", coordinate=bbox, size=image_size)
        if not bound:
            raise NameError("boxes_type is not defined")
        ok = grounding_eval(predicted, bound["type"], bound["size"], bound["coordinate"], image_size)
        per_line.append(bool(ok))
        if ok:
            correct += 1
            for g in cls_list:
                groups[g]["correct"] += 1
    for g in groups.values():
        g["accuracy"] = f"{g['correct'] / g['total'] * 100:.2f}%"
    return {"total": len(lines), "correct": correct, "accuracy": correct / len(lines), "accuracy_dict_group": groups,
            "per_line": per_line}


def vlmevalkit_verdict(text: str, row: Mapping[str, Any]) -> str:
    """One row evaluated alone: ``correct``, ``wrong`` or ``error`` (the evaluation stops)."""
    try:
        got = vlmevalkit_evaluate([tsv_line(text, row)])
    except Exception:
        return "error"
    return "correct" if got["per_line"][0] else "wrong"


def official_verdict(handed: Sequence[float] | None, row: Mapping[str, Any], refused: bool = False) -> str:
    """An authors' script: its reader hands ``[x, y, x, y]`` (``[-1] * 4`` refused, ``[0] * 4`` unreadable) to
    ``_eval`` with the row's box split as the scripts split it (Holo3.1 fork ``holo_osworld_g.py`` @ 0fbdd89)."""
    coords = [-1, -1, -1, -1] if refused else [0, 0, 0, 0] if handed is None else [handed[0], handed[1]] * 2
    box = list(row["box_coordinates"])
    size = list(row["image_size"])
    if row["box_type"] == "bbox":
        ok = grounding_eval(coords, "bbox", box[2:], box[:2], size)
    else:
        ok = grounding_eval(coords, str(row["box_type"]), size, box, size)
    return "correct" if ok else "wrong"


def lmms_eval_verdict(text: str, row: Mapping[str, Any]) -> str:
    """lmms-eval 0.7.3's own ``osworld_g_process_results`` (imported from the installed package) on one row."""
    from lmms_eval.tasks.osworld_g import utils

    doc = {"image_size": list(row["image_size"]), "box_type": row["box_type"],
           "box_coordinates": list(row["box_coordinates"])}
    try:
        out = utils.osworld_g_process_results(doc, [text])
    except Exception:
        return "error"
    return "correct" if out["osworld_g_acc"]["correct"] else "wrong"
