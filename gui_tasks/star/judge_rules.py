"""The step and drop rules of the judges that read StaR's evaluator, StaR appendix A.2, AITW's ``action_matching.py``,
GUI-Odyssey's and OS-Atlas's evaluation scripts (``gui_tasks.star.judges`` registers them on their records).

A step rule is ``(judge, doc, response, parsed_action, geometry) -> Verdict``; a drop rule ``(judge, doc) -> str | None``
(why the step is left out). What a rule needs to know about its judge (recent-apps steps, the family it reads natively)
is read from the record it is given, never from its name.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from gui_core.action_match import RULES, aitw_grown, match
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_core.family import agent_family_of
from gui_tasks.star import star_official
from gui_tasks.star.judge_record import Judge, Verdict, raw
from gui_tasks.star.schema import action_from_json


# --- drop rules ----------------------------------------------------------------------------------------------------

def missing_action(doc: Mapping[str, Any]) -> str | None:
    """The gold's action type is not in the doc's agent family's action space (AgentCPM-GUI has no open-app action:
    StaR's translateAtlas2ACG writes no label, AgentCPM's process_ac.py writes no step)."""
    gold_type = action_from_json(doc["gold"]).type
    fam = agent_family_of(doc["agent_family"])
    if fam.agent is not None and gold_type in fam.agent.missing_actions:
        return f"no {gold_type} action in {fam.title}'s action space"
    return None


def recent_apps(judge: Judge, doc: Mapping[str, Any]) -> str | None:
    """A judge without GUI-Odyssey's recent-apps steps (``Judge.recent_apps``) leaves them out."""
    if action_from_json(doc["gold"]).type == "PRESS_RECENT" and not judge.recent_apps:
        return "no recent-apps action in StaR's action space (Table 3)"
    return None


def family_steps(judge: Judge, doc: Mapping[str, Any]) -> str | None:
    """The common drop rule: steps the family's action space cannot express, then recent-apps steps."""
    return missing_action(doc) or recent_apps(judge, doc)


def star_steps(judge: Judge, doc: Mapping[str, Any]) -> str | None:
    """``family_steps``, then the steps StaR's preprocessing writes no label for (for the doc's family)."""
    reason = family_steps(judge, doc)
    if reason:
        return reason
    fam, dataset = doc["agent_family"], doc["dataset"]
    try:
        atlas = star_gold_atlas(dataset, raw(doc))
    except star_official.Raised as exc:
        return f"StaR's preprocessing raises: {exc}"
    if atlas is None:
        return "StaR's convertGuiOdysseyAction writes no action for this step"
    if star_official.family_gold(atlas, judge.labels.get(fam), dataset) is None:
        return f"StaR writes no {fam} label for {atlas.split(' ')[0]}"
    return None


def star_gold_atlas(dataset: str, data: Mapping[str, Any]) -> str | None:
    """StaR's transcription of the release's gold into OS-Atlas's action format (the one the dataset's record names;
    a set without one is read as GUI-Odyssey, as StaR's preprocessing falls through to it)."""
    from gui_core.benchmark import resolve
    from gui_tasks.star.agentic import dataset_facts

    path = dataset_facts(dataset).get("atlas_gold")
    return resolve(path)(data) if path else star_official.gold_odyssey(data)



# --- paper ---------------------------------------------------------------------------------------------------------

def paper_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """StaR appendix A.2 as written, with the task's ``match_rule`` (``gui_core.action_match``)."""
    gold = action_from_json(doc["gold"])
    res = match(parsed, gold, geo, rule=RULES[doc["match_rule"]], boxes=[tuple(b) for b in doc["boxes"]],
                target_box=tuple(doc["target_box"]) if doc.get("target_box") else None)
    return Verdict(res.type_match, res.exact, parsed.type if parsed else None, gold.type, gold.type)


# --- star ----------------------------------------------------------------------------------------------------------

def star_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """ZrW00/StaR's evaluator: the family's label read back by StaR's extractor for the family (ours where StaR has
    none, written in its action space), compared in the Atlas action space (``star_official.verdict``)."""
    fam, dataset, data = doc["agent_family"], doc["dataset"], raw(doc)
    gold = star_official.family_gold(star_gold_atlas(dataset, data) or "NONEACTION", judge.labels.get(fam), dataset) \
        or "NONEACTION"
    reader = judge.readers.get(fam)
    try:
        if reader is not None:
            pred = reader(response or "")
        else:  # StaR has no reader for this family: ours, written in StaR's action space
            grid = parsed.point_in("grid1000", geo) if parsed is not None and parsed.point is not None else None
            pred = star_official.atlas_of_action(parsed, grid)
    except star_official.Raised:
        pred = None
    type_match, exact = star_official.verdict(pred, gold, dataset, data)
    try:
        gold_type = star_official.star_kind(gold)[0]
    except star_official.Raised:
        gold_type = "NONEACTION"
    return Verdict(type_match, exact, pred, gold, gold_type)


# --- aitw ----------------------------------------------------------------------------------------------------------

_AITW_CODES = {"TYPE": 3, "PRESS_BACK": 5, "PRESS_HOME": 6, "PRESS_ENTER": 7, "COMPLETE": 10, "IMPOSSIBLE": 11}
_TAP_DISTANCE, _SWIPE_DISTANCE = 0.14, 0.04  # action_matching.py _TAP_DISTANCE_THRESHOLD, _SWIPE_DISTANCE_THRESHOLD
_AXIS_OF = {"UP": 0, "DOWN": 0, "LEFT": 1, "RIGHT": 1}  # index of the main axis in (y, x)


def aitw_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """``check_actions_match``: non-dual-point actions by type alone; taps in the same 2.4x-grown box or within 0.14
    in relative (y, x); drags by main axis (argmax of |dy|, |dx|: ties are vertical). A long press is no AITW action."""
    data = raw(doc)
    code = int(data["result_action_type"])
    gold_kind: str
    if code == 4:
        (ty, tx), (ly, lx) = data["touch_yx"], data["lift_yx"]
        tap = math.hypot(ty - ly, tx - lx) <= _SWIPE_DISTANCE
        gold_kind = "tap" if tap else "drag"
    else:
        gold_kind = str(code)
    pred_kind: str | None = None
    if parsed is not None:
        if parsed.type == "CLICK":  # a long press has no AITW action type (action_type.py): no action there
            pred_kind = "tap"
        elif parsed.type == "SCROLL" and parsed.direction in _AXIS_OF:
            pred_kind = "drag"
        elif parsed.type in _AITW_CODES:
            pred_kind = str(_AITW_CODES[parsed.type])
    pred_label = parsed.type if parsed is not None else None
    if pred_kind != gold_kind:
        return Verdict(False, False, pred_label, gold_kind, gold_kind)
    if gold_kind == "tap":
        w, h = float(data["width"]), float(data["height"])
        px, py = parsed.point_in("grid1000", geo)  # type: ignore[union-attr]
        p = (py / 1000, px / 1000)
        g = (ty, tx)
        boxes = [aitw_grown((x / w * 1000, y / h * 1000, (x + bw) / w * 1000, (y + bh) / h * 1000))
                 for y, x, bh, bw in data["ui_positions"]]
        both = any(b[1] / 1000 <= p[0] <= b[3] / 1000 and b[0] / 1000 <= p[1] <= b[2] / 1000
                   and b[1] / 1000 <= g[0] <= b[3] / 1000 and b[0] / 1000 <= g[1] <= b[2] / 1000 for b in boxes)
        return Verdict(True, both or math.dist(p, g) <= _TAP_DISTANCE, pred_label, gold_kind, gold_kind)
    if gold_kind == "drag":
        gold_axis = 0 if abs(ly - ty) >= abs(lx - tx) else 1
        return Verdict(True, _AXIS_OF[parsed.direction] == gold_axis, pred_label, gold_kind, gold_kind)  # type: ignore[index,union-attr]
    return Verdict(True, True, pred_label, gold_kind, gold_kind)


# --- odyssey -------------------------------------------------------------------------------------------------------

TEXT_ANLS_THRESHOLD = 0.5  # GUIOdyssey_action_matching.py
CLICK_COORD_THRESHOLD = 0.14


def _levenshtein(a: str, b: str) -> int:
    if len(a) > len(b):
        a, b = b, a
    row = list(range(len(a) + 1))
    for j, cb in enumerate(b):
        new = [j + 1]
        for i, ca in enumerate(a):
            new.append(row[i] if ca == cb else 1 + min(row[i], row[i + 1], new[-1]))
        row = new
    return row[-1]


def odyssey_text_match(gold: str, pred: str) -> bool:
    """``text_matching``: stripped, either inside the other, else 1 - edit distance / longer length >= 0.5."""
    g, p = gold.strip(), pred.strip()
    if g in p or p in g:
        return True
    n = max(len(g), len(p))
    return (1 - (_levenshtein(g, p) / n if n else 0.0)) >= TEXT_ANLS_THRESHOLD


def odyssey_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """``action_matching``: the action names must be equal (the type verdict: the official ``action_type`` count is
    every step but ``action_fail``); TYPE by ``text_matching``, SCROLL by direction, CLICK / LONG_PRESS inside
    ``sam2_bbox`` or within 0.14 of the screen on the 0-1000 grid; every other action by name."""
    gold = action_from_json(doc["gold"])
    data = raw(doc)
    if parsed is None or parsed.type != gold.type:
        return Verdict(False, False, parsed.type if parsed else None, gold.type, gold.type)
    if gold.type == "TYPE":  # simple_decode keeps what follows "TYPE:" up to the next colon, on both sides
        ok = odyssey_text_match((gold.text or "").split(":")[0], (parsed.text or "").split(":")[0])
    elif gold.type == "SCROLL":
        ok = (parsed.direction or "").lower() == (gold.direction or "").lower()
    elif gold.type in ("CLICK", "LONG_PRESS"):
        px, py = parsed.point_in("grid1000", geo)
        gx, gy = gold.point_in("grid1000", geo)
        box = data.get("sam2_bbox")
        inside = box is not None and box[0] <= px <= box[2] and box[1] <= py <= box[3]
        # click_matching: np.linalg.norm(pred / 1000 - gt / 1000): each point scaled first, so a click exactly 140 units
        # away on one axis is 0.14000000000000001 > 0.14, a miss
        ok = inside or math.sqrt((px / 1000 - gx / 1000) ** 2 + (py / 1000 - gy / 1000) ** 2) <= CLICK_COORD_THRESHOLD
    else:
        ok = True
    return Verdict(True, ok, parsed.type, gold.type, gold.type)


# --- os_atlas --------------------------------------------------------------------------------------------------------

_NUM = re.compile(r"\d+")


def os_atlas_action(action: Action | None, geo: Geometry) -> str:
    """An action in OS-Atlas's test-file format (``eval/data/*_test.jsonl``: ``CLICK <point>[[683,321]]</point>``,
    ``OPEN_APP [PocketBook]``); points on the 0-1000 grid rounded to integers (the files hold integers; how OS-Atlas
    rounded is not published)."""
    if action is None:
        return "invalid action"
    if action.point is not None and action.type in ("CLICK", "LONG_PRESS"):
        x, y = action.point_in("grid1000", geo)
        return f"{action.type} <point>[[{round(x)},{round(y)}]]</point>"
    return {"TYPE": f"TYPE [{action.text}]", "SCROLL": f"SCROLL [{action.direction}]",
            "OPENAPP": f"OPEN_APP [{action.text}]"}.get(action.type, action.type)


def _f1(pred: str, gold: str) -> float:
    """``calculate_f1_score``: F1 of the lower-cased whitespace token sets."""
    p, g = set(pred.lower().split()), set(gold.lower().split())
    common = p & g
    prec = len(common) / len(p) if p else 0.0
    rec = len(common) / len(g) if g else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def _ints(text: str) -> list[int] | None:
    nums = _NUM.findall(text)
    if any(len(n) > 32 for n in nums):  # ours: no unbounded digit run is converted (the official int() raises)
        return None
    return [int(n) for n in nums]


def os_atlas_step(judge: Judge, doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """``evaluation_unify.py``: the answer after ``actions:\\n``; type = the first word; CLICK / LONG_PRESS within 140
    of the gold on the 0-1000 grid (the first two digit runs of the answer); AndroidControl: OPEN_APP and TYPE equal
    or F1 of their second words > 0.5, anything else the whole string equal; GUI-Odyssey: TYPE F1 of the whole
    strings > 0.5, SCROLL the whole string equal, anything else the type. The judge's ``native_family`` (OS-Atlas) is
    read as its script reads it, other families by our parser and written in OS-Atlas's format."""
    dataset = doc["dataset"]
    gold = os_atlas_action(action_from_json(doc["gold"]), geo)
    if doc["agent_family"] == judge.native_family:
        parts = (response or "").split("actions:\n")
        if dataset == "androidcontrol":
            pred = parts[1].strip("<|im_end|>") if len(parts) > 1 else "invalid action"
        else:
            pred = parts[1].strip("<|im_end|>").strip() if len(parts) > 1 else ""
    else:
        pred = os_atlas_action(parsed, geo)
    gt_type = gold.split()[0]
    if dataset == "androidcontrol":
        words = pred.split()
        pred_type = words[0] if words else ""
    else:
        pred_type = pred.split(" ")[0].strip(":")
    if pred_type != gt_type:
        return Verdict(False, False, pred, gold, gt_type)
    if gt_type in ("CLICK", "LONG_PRESS"):
        nums, gnums = _ints(pred), _ints(gold) or [0, 0]
        if dataset == "androidcontrol":
            px, py = (nums[0], nums[1]) if nums and len(nums) >= 2 else (-100, -100)
        else:
            px, py = (nums[0], nums[1]) if nums and len(nums) == 2 else (0, 0)
        ok = math.sqrt((px - gnums[0]) ** 2 + (py - gnums[1]) ** 2) <= 0.14 * 1000  # integers: 140 away is a hit
    elif dataset == "androidcontrol" and gt_type in ("OPEN_APP", "TYPE"):
        pw, gw = pred.split(), gold.split()
        ok = pred == gold or (len(pw) > 1 and len(gw) > 1 and _f1(pw[1], gw[1]) > 0.5)
    elif dataset == "androidcontrol":
        ok = pred == gold
    elif gt_type == "TYPE":
        ok = _f1(pred, gold) > 0.5
    elif gt_type == "SCROLL":
        ok = pred == gold
    else:
        ok = True
    return Verdict(True, ok, pred, gold, gt_type)
