"""The canonical StaR state-control document and the official benchmark's record format.

One official record (a screenshot, a toggle, its state) yields two documents: the positive
instruction (the state must change; gold ``CLICK`` on the toggle) and the negative one (the
state already matches; gold ``COMPLETE``), StaR appendix A.1. Canonical documents:

    id            "<pair_id>:pos" | "<pair_id>:neg"
    pair_id       shared by the two documents of one record
    polarity      "positive" | "negative"
    instruction   the user instruction
    images        [absolute screenshot path]
    image_width, image_height   pixels of the original screenshot
    gold          JSON action: {"type": "CLICK", "point": [x, y], "frame": "grid1000"} | {"type": "COMPLETE"}
    toggle_point  [x, y] on the 0-1000 grid: the positive action's point (for N-FPR, Eq. 12)
    toggle_box    [x1, y1, x2, y2] on the 0-1000 grid, or [] when the record says not to use it
    annotation    {is_switch, feature, state_before_action, state_after_action, action_effect}
    lang, source ("official" | "synthetic"), agent_family, match_rule
    meta          JSON text: anything else (file, row, scene)
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

from gui_core.action_match import RULES
from gui_core.actions import Action
from gui_core.errors import DataError
from gui_core.agents import family

POLARITIES = ("positive", "negative")
ANNOTATION_FIELDS = ("is_switch", "feature", "state_before_action", "state_after_action", "action_effect")
DOC_FIELDS = ("id", "pair_id", "polarity", "instruction", "images", "image_width", "image_height", "gold", "toggle_point",
              "toggle_box", "annotation", "lang", "source", "agent_family", "match_rule", "meta")


def action_to_json(action: Action) -> str:
    obj: dict[str, Any] = {"type": action.type}
    if action.point is not None:
        obj.update(point=[float(action.point[0]), float(action.point[1])], frame=action.frame)
    if action.text is not None:
        obj["text"] = action.text
    if action.direction is not None:
        obj["direction"] = action.direction
    return json.dumps(obj, sort_keys=True)


def action_from_json(text: str) -> Action:
    obj = json.loads(text)
    point = tuple(obj["point"]) if obj.get("point") is not None else None
    return Action(obj["type"], point=point, frame=obj.get("frame"), text=obj.get("text"), direction=obj.get("direction"))


def _finite_list(value: Any, n: int) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == n and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)


def validate_doc(doc: Mapping[str, Any], *, file: str, row: int) -> None:
    """Raise ``DataError`` naming the field if ``doc`` is not a canonical StaR document."""
    def bad(field: str, why: str) -> DataError:
        return DataError(why, file=file, row=row, field=field)

    missing = [f for f in DOC_FIELDS if f not in doc]
    if missing:
        raise bad(missing[0], f"missing field(s) {missing}")
    if doc["polarity"] not in POLARITIES:
        raise bad("polarity", f"{doc['polarity']!r} is not one of {POLARITIES}")
    if not isinstance(doc["instruction"], str) or not doc["instruction"].strip():
        raise bad("instruction", "empty instruction")
    if not isinstance(doc["images"], list) or len(doc["images"]) != 1 or not isinstance(doc["images"][0], str):
        raise bad("images", "must be a list with one screenshot path")
    for f in ("image_width", "image_height"):
        if not isinstance(doc[f], int) or doc[f] <= 0:
            raise bad(f, f"must be a positive integer, got {doc[f]!r}")
    try:
        gold = action_from_json(doc["gold"])
    except (ValueError, KeyError, TypeError) as exc:
        raise bad("gold", f"not a JSON action: {exc}") from exc
    want = "CLICK" if doc["polarity"] == "positive" else "COMPLETE"
    if gold.type != want:
        raise bad("gold", f"a {doc['polarity']} sample's gold action must be {want}, got {gold.type}")
    if not _finite_list(doc["toggle_point"], 2):
        raise bad("toggle_point", "must be [x, y] on the 0-1000 grid")
    if doc["toggle_box"] and not _finite_list(doc["toggle_box"], 4):
        raise bad("toggle_box", "must be [x1, y1, x2, y2] on the 0-1000 grid or []")
    if not isinstance(doc["annotation"], Mapping):
        raise bad("annotation", "must be an object")
    try:
        family(str(doc["agent_family"]))
    except ValueError as exc:
        raise bad("agent_family", str(exc)) from exc
    if doc["match_rule"] not in RULES:
        raise bad("match_rule", f"{doc['match_rule']!r} is not one of {sorted(RULES)}")


def _require(raw: Mapping[str, Any], key: str, file: str, row: int) -> Any:
    if key not in raw or raw[key] is None:
        raise DataError(f"missing {key!r}", file=file, row=row, field=key)
    return raw[key]


def official_pair(raw: Mapping[str, Any], *, file: str, row: int, image_path: str, agent_family: str,
                  match_rule: str) -> list[dict[str, Any]]:
    """The positive and negative documents of one official record (README field table of the StaR repository)."""
    from gui_core.action_parsers import parse_action
    from gui_core.family import default_agent

    # StaR writes its data in its unified action format (A.5): its default agent's grammar (OS-Atlas's)
    grammar = default_agent("star").agent.parser  # type: ignore[union-attr]
    pos_text = _require(raw, "posAtlasAction", file, row)
    parsed = parse_action(pos_text, grammar)
    if parsed.action is None or parsed.action.type != "CLICK":
        raise DataError(f"posAtlasAction {pos_text!r} is not an OS-Atlas CLICK ({parsed.detail})", file=file, row=row,
                        field="posAtlasAction")
    neg_text = _require(raw, "negAtlasAction", file, row)
    neg = parse_action(neg_text, grammar)
    if neg.action is None or neg.action.type != "COMPLETE":
        raise DataError(f"negAtlasAction {neg_text!r} is not COMPLETE", file=file, row=row, field="negAtlasAction")
    width, height = _require(raw, "image_width", file, row), _require(raw, "image_height", file, row)
    for key, v in (("image_width", width), ("image_height", height)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise DataError(f"must be a positive integer, got {v!r}", file=file, row=row, field=key)
    box: list[float] = []
    if raw.get("useBbox") and raw.get("bbox") is not None:
        if not _finite_list(raw["bbox"], 4):
            raise DataError(f"bbox {raw['bbox']!r} is not [x1, y1, x2, y2]", file=file, row=row, field="bbox")
        box = [float(v) for v in raw["bbox"]]
    ann = raw.get("annotation")
    if not isinstance(ann, Mapping):
        raise DataError("missing annotation object", file=file, row=row, field="annotation")
    annotation = {k: ann.get(k) for k in ANNOTATION_FIELDS}
    if annotation["state_before_action"] is None:
        raise DataError("missing state_before_action", file=file, row=row, field="annotation.state_before_action")
    annotation = {k: (v if k == "is_switch" else ("" if v is None else str(v))) for k, v in annotation.items()}
    annotation["is_switch"] = bool(annotation["is_switch"])
    pid = f"star-{row:05d}"
    common = {"pair_id": pid, "images": [image_path], "image_width": width, "image_height": height,
              "toggle_point": [float(v) for v in parsed.action.point], "toggle_box": box, "annotation": annotation,
              "lang": "en", "source": "official", "agent_family": agent_family, "match_rule": match_rule,
              "meta": json.dumps({"file": file, "row": row, "img_filename": raw.get("img_filename")}, sort_keys=True)}
    docs = []
    for polarity, key, action in (("positive", "posInstruction", parsed.action), ("negative", "negInstruction", neg.action)):
        text = _require(raw, key, file, row)
        if not isinstance(text, str) or not text.strip():
            raise DataError("empty instruction", file=file, row=row, field=key)
        docs.append({"id": f"{pid}:{polarity[:3]}", "polarity": polarity, "instruction": text.strip(),
                     "gold": action_to_json(action), **common})
    return docs
