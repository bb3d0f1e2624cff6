"""Official SPHINX static material (BENCHMARKS.md section 5): knowledge-probing questions and
low-level grounding tasks, loaded with DataError on bad rows, and scored per sample.

Questions: ``{question, options, ground_truth, question_type, app_name, app_cateory}`` (key
spelled as in the release). Low-level tasks: ``{id, app, instruction, groundtruth{type, element, message}}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gui_tasks.errors import DataError
from gui_tasks.sphinx.actions import parse_action

Q_FIELDS = ("question", "options", "ground_truth", "question_type", "app_name", "app_cateory")
LL_FIELDS = ("id", "app", "instruction", "groundtruth")


def _rows(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc}", file=str(path)) from exc
    if not isinstance(data, list):
        raise DataError("expected a list of rows", file=str(path))
    return data


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """Knowledge-probing rows; ``category`` is the release's ``app_cateory``."""
    p = Path(path)
    out = []
    for i, row in enumerate(_rows(p)):
        for f in Q_FIELDS:
            if f not in row:
                raise DataError("missing", file=str(p), row=i, field=f)
        out.append({**row, "category": row["app_cateory"]})
    return out


def score_question(row: dict[str, Any], response: str | None) -> dict[str, Any]:
    """MCQ: the first option letter (A-D) in the response; yes/no: the first yes/no word."""
    import re

    text = (response or "").strip()
    gt = str(row["ground_truth"]).strip()
    if row["question_type"].lower() in ("bq", "binary", "yes/no", "yesno"):
        m = re.search(r"\b(yes|no)\b", text, re.I)
        pred = m.group(1).lower() if m else None
        return {"status": "parsed" if pred else ("empty" if not text else "malformed"), "correct": pred == gt.lower()}
    m = re.search(r"\b([A-D])\b", text)
    pred = m.group(1) if m else None
    return {"status": "parsed" if pred else ("empty" if not text else "malformed"), "correct": pred == gt.upper()}


def load_low_level(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    out = []
    for i, row in enumerate(_rows(p)):
        for f in LL_FIELDS:
            if f not in row:
                raise DataError("missing", file=str(p), row=i, field=f)
        gt = row["groundtruth"]
        if not isinstance(gt, dict) or "type" not in gt:
            raise DataError("groundtruth needs a type", file=str(p), row=i, field="groundtruth.type")
        out.append(row)
    return out


def score_low_level(row: dict[str, Any], response: str | None) -> dict[str, Any]:
    """Element-id grounding: action type and element index equal (text actions also compare the message)."""
    status, act = parse_action(response)
    gt = row["groundtruth"]
    ok = act is not None and act["type"] == str(gt["type"]).lower()
    if ok and gt.get("element") is not None:
        ok = act.get("index") == int(gt["element"])
    if ok and gt.get("message"):
        ok = str(act.get("text", "")).strip().lower() == str(gt["message"]).strip().lower()
    return {"status": status, "correct": bool(ok)}
