"""Judges of the step-wise agentic benchmarks: each the whole reading of one official evaluator, selected by name.

Task metadata ``judge`` (YAML, or per run ``--metadata '{"judge": "aitw"}'``) picks one; results and submissions carry
it (the task config's metadata and every per-step record). A judge decides which steps exist (``drop_reason``), how
the gold is derived from the dataset's own fields (``doc["judge_data"]``), how the model's text is read, and the
(type match, exact match) verdict. Names and what each reads (``docs/star_judges.md`` lists what differs from
``paper``):

- ``star``: ZrW00/StaR ``evaluator/`` + ``dataPreprocessor/`` (``gui_tasks.star.star_official``); the default of
  StaR's tasks, the reading behind its published numbers.
- ``paper``: StaR appendix A.2 as written (inside the gold element's box, else d <= 140 on the 0-1000 grid; text
  lower-cased exact; scroll by direction; OPENAPP stemmed substring); ``match_rule`` picks the variant.
- ``aitw``: google-research ``android_in_the_wild/action_matching.py`` (used for AITZ by CoAT).
- ``odyssey``: OpenGVLab/GUI-Odyssey ``src/eval_mm/GUIOdyssey_action_matching.py`` + ``evaluate_GUIOdyssey.py``.
- ``os_atlas``: OS-Copilot/OS-Atlas ``eval/eval_scripts/{android_control,odyssey}/evaluation_unify.py``.
- ``qwen_agentcpm``: OpenBMB/AgentCPM-GUI ``eval/utils/evaluator.py`` (after the Qwen2.5-VL evaluator), on AITZ and
  AndroidControl and GUI-Odyssey as ``eval/eval_data/process_{aitz,ac,odyssey}.py`` prepare them.
- ``guievalkit``: xiaomi-research/guievalkit ``guieval/eval/evaluator.py`` + ``data/process_*.py``: AgentCPM-GUI's
  evaluator with a LONG_POINT gold for AndroidControl long presses, OPEN_APP steps scored, and WAIT its own type.
- ``gui_r1``: ritzz-ai/GUI-R1 ``guir1/eval/eval_omni.py`` on what its inference scripts extract.

Each judge is a frozen ``Judge`` record in ``JUDGE_REGISTRY`` (collision and "did you mean" checks); the docs' table is
``judge_table()``. An AgentCPM-GUI answer is read whole by the pipeline's own reading (``cpm_official``), a GUI-R1
answer by GUI-R1's extractors; every judge agrees 100% with its authors' code on ``tests/fixtures/differential/judges``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from gui_core.action_match import RULES, aitw_grown, match
from gui_core.action_parsers import gui_r1_official_fields
from gui_core.agents import family
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_core.registry import Registry
from gui_tasks.star import cpm_official, star_official
from gui_tasks.star.schema import action_from_json


@dataclass(frozen=True)
class Source:
    """Where a judge's reading comes from: a repository at a commit and the files read (or a paper's section)."""

    repo: str  # owner/name on GitHub, or "paper: <title>"
    files: tuple[str, ...]
    commit: str = ""  # 40 hex digits for a repository


@dataclass(frozen=True)
class Judge:
    """One step judge: which benchmarks it is defined for, its matching rule in one line, and its sources."""

    name: str
    datasets: tuple[str, ...]  # "not defined" is said when a task starts (agentic_task.task_rows)
    rule: str  # the matching rule, one line (the docs' judge table)
    sources: tuple[Source, ...]
    recent_apps: bool = False  # scores GUI-Odyssey's recent-apps steps (KEY_APPSELECT); others leave them out
    variant_family: str = "os_atlas"  # the prompt of its ``<task>_judge_<name>`` variants (the family it reads natively)

    def __post_init__(self) -> None:
        for src in self.sources:
            if not src.repo.startswith("paper:") and len(src.commit) != 40:
                raise ValueError(f"judge {self.name!r}: source {src.repo} needs its 40-digit commit")


JUDGE_REGISTRY: Registry[Judge] = Registry("judge")


def register_judge(judge: Judge) -> Judge:
    """Add a judge record (a name already taken is an error); ``judge_step`` must know its name."""
    return JUDGE_REGISTRY.register(judge.name, judge)


_STAR = "3af0acd5c393c5eaa5253f411d7c22fba35b6f67"
register_judge(Judge("star", ("androidcontrol", "aitz", "gui_odyssey"),
                     "StaR's extractors and Atlas grammar; snapped gold; inside the smallest holding box, else d <= 140; "
                     "scroll direction part of the type",
                     (Source("ZrW00/StaR", ("evaluator/", "dataPreprocessor/"), _STAR),)))
register_judge(Judge("paper", ("androidcontrol", "aitz", "gui_odyssey", "synthetic"),
                     "inside the gold element's box, else d <= 140 (match_rule); text lower-cased equal; scroll by "
                     "direction; app names stemmed substring",
                     (Source("paper: StaR appendix A.2", ("seeds/star-toggle-state-control.txt",)),)))
register_judge(Judge("aitw", ("aitz",),
                     "taps in the same 2.4x-grown box or <= 0.14 apart; drags by main axis; other actions by type "
                     "(a long press is no action)",
                     (Source("google-research/google-research", ("android_in_the_wild/action_matching.py",),
                             "1d49f2c0d5506a6e11115726164d42f6b7b7b95a"),)))
register_judge(Judge("odyssey", ("gui_odyssey",),
                     "same action name; clicks inside sam2_bbox or <= 0.14 (points scaled first); text ANLS >= 0.5; "
                     "scroll word; recent-apps steps scored",
                     (Source("OpenGVLab/GUI-Odyssey", ("src/eval_mm/GUIOdyssey_action_matching.py",
                                                       "src/eval_mm/evaluate_GUIOdyssey.py", "data/format_converter.py"),
                             "fefcbe9d76e2f010c68225ae7f378c4c550a89c1"),), recent_apps=True))
register_judge(Judge("os_atlas", ("androidcontrol", "gui_odyssey"),
                     "first word after actions:; clicks <= 140 on integer digit runs; TYPE/OPEN_APP by F1; the rest "
                     "by string or type",
                     (Source("OS-Copilot/OS-Atlas", ("eval/eval_scripts/android_control/evaluation_unify.py",
                                                     "eval/eval_scripts/odyssey/evaluation_unify.py"),
                             "bad08407ab54b5bf6c17a69fe1ced476b9494926"),), recent_apps=True))
register_judge(Judge("qwen_agentcpm", ("androidcontrol", "aitz", "gui_odyssey"),
                     "AgentCPM-GUI answers: json.loads + schema of the whole answer; 1.2x boxes, else 0.14 "
                     "(AndroidControl 0.04); finger word; text containment; stops match",
                     (Source("OpenBMB/AgentCPM-GUI", ("eval/utils/evaluator.py", "eval/utils/convert_output.py",
                                                      "eval/utils/schema/schema_for_extraction.json",
                                                      "eval/run_predict_minicpm.py", "eval/eval_data/process_ac.py",
                                                      "eval/eval_data/process_aitz.py", "eval/eval_data/process_odyssey.py"),
                             "acbaf509b8afb3f58b782486f4e8c0e33d8a486b"),), recent_apps=True))
register_judge(Judge("guievalkit", ("androidcontrol", "aitz", "gui_odyssey"),
                     "AgentCPM-GUI's evaluator; first JSON block, only STATUS finish, own schema; OPEN_APP scored; "
                     "WAIT and LONG_POINT own types",
                     (Source("xiaomi-research/guievalkit", ("guieval/eval/evaluator.py", "guieval/models/agentcpm_gui.py",
                                                            "guieval/utils/action_space.py", "guieval/main/step_task.py",
                                                            "guieval/eval/convert_output.py", "data/process_ac.py",
                                                            "data/process_odyssey.py"),
                             "d5e954e5865eebaa10729c8ef38c8bda6025afde"),), recent_apps=True))
register_judge(Judge("gui_r1", ("androidcontrol", "gui_odyssey"),
                     "eval_omni: type = action word; click < 0.14 and text F1 >= 0.5 without a type check; other "
                     "actions by type",
                     (Source("ritzz-ai/GUI-R1", ("guir1/eval/eval_omni.py", "guir1/inference/inference_vllm_android.py"),
                             "d43eea2f1c52356077034ff2524642fc05e06c6a"),), variant_family="gui_r1"))

JUDGE_DATASETS: dict[str, tuple[str, ...]] = {j.name: j.datasets for j in JUDGE_REGISTRY.values()}
JUDGES = tuple(JUDGE_DATASETS)
RECENT_APPS_JUDGES = tuple(j.name for j in JUDGE_REGISTRY.values() if j.recent_apps)
DEFAULT_JUDGE = {"androidcontrol": "star", "aitz": "star", "gui_odyssey": "star", "synthetic": "paper"}
# families whose text StaR's evaluator reads with its own extractor (evaluators.py predictionExtractor)
STAR_READERS: dict[str, Callable[[str], str | None]] = {"os_atlas": star_official.atlas_of_os_atlas,
                                                        "ui_tars": star_official.atlas_of_ui_tars,
                                                        "agentcpm_gui": star_official.atlas_of_agentcpm}


def check(judge: str, dataset: str) -> str | None:
    """Why ``judge`` cannot score ``dataset`` (None: it can)."""
    if judge not in JUDGE_REGISTRY:
        return JUDGE_REGISTRY.unknown_message(judge)
    covered = JUDGE_REGISTRY[judge].datasets
    if dataset not in covered:
        return f"judge {judge!r} is not defined for {dataset} (it judges {', '.join(covered)})"
    return None


def judge_table() -> str:
    """The docs' judge table (docs/star_judges.md), from the registry."""
    sets = ("androidcontrol", "aitz", "gui_odyssey", "synthetic")
    rows = ["| judge | official code it reads | rule | AndroidControl | AITZ | GUI-Odyssey | synthetic |",
            "|---|---|---|---|---|---|---|"]
    for j in JUDGE_REGISTRY.values():
        code = "; ".join(f"{s.repo}" + (f"@{s.commit[:7]}" if s.commit else "") + " " + ", ".join(f"`{f}`" for f in s.files)
                         for s in j.sources)
        rows.append(f"| `{j.name}` | {code} | {j.rule} | " + " | ".join("yes" if d in j.datasets else "no" for d in sets) + " |")
    return "\n".join(rows) + "\n"


def raw(doc: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(doc.get("judge_data") or "{}")


def drop_reason(judge: str, doc: Mapping[str, Any]) -> str | None:
    """Why ``judge`` leaves this step out for the doc's agent family (None: the step is scored)."""
    fam, dataset, gold_type = doc["agent_family"], doc["dataset"], action_from_json(doc["gold"]).type
    if judge != "guievalkit" and (fam == "agentcpm_gui" or judge == "qwen_agentcpm") and gold_type == "OPENAPP":
        # AgentCPM-GUI has no open-app action: StaR's translateAtlas2ACG writes no label, AgentCPM's process_ac.py
        # (transform_action_data returns None) writes no step
        return "no OPENAPP action in AgentCPM-GUI's action space"  # GUIEvalKit's process_ac.py keeps them
    if gold_type == "PRESS_RECENT" and judge not in RECENT_APPS_JUDGES:
        return "no recent-apps action in StaR's action space (Table 3)"
    if judge != "star":
        return None
    try:
        atlas = star_gold_atlas(doc["dataset"], raw(doc))
    except star_official.Raised as exc:
        return f"StaR's preprocessing raises: {exc}"
    if atlas is None:
        return "StaR's convertGuiOdysseyAction writes no action for this step"
    if star_official.family_gold(atlas, fam, dataset) is None:
        return f"StaR writes no {fam} label for {atlas.split(' ')[0]}"
    return None


def star_gold_atlas(dataset: str, data: Mapping[str, Any]) -> str | None:
    if dataset == "androidcontrol":
        return star_official.gold_androidcontrol(data)
    if dataset == "aitz":
        return star_official.gold_aitz(data)
    return star_official.gold_odyssey(data)


@dataclass(frozen=True)
class Verdict:
    type_match: bool
    exact: bool
    pred: str | None  # the prediction as the judge read it (StaR: its Atlas string)
    gold: str | None  # the gold as the judge derived it
    gold_type: str  # the judge's action type of the gold (StaR: its ActionType name; others: ours)


def judge_step(judge: str, doc: Mapping[str, Any], response: str | None, parsed_action: Action | None,
               geometry: Geometry) -> Verdict:
    """The verdict of ``judge`` on one step; ``parsed_action`` is our family parser's reading of ``response``."""
    gold = action_from_json(doc["gold"])
    if judge == "star":
        return _star(doc, response, parsed_action, geometry)
    if judge == "aitw":
        return _aitw(doc, parsed_action, geometry)
    if judge == "odyssey":
        return _odyssey(doc, parsed_action, geometry)
    if judge == "os_atlas":
        return _os_atlas(doc, response, parsed_action, geometry)
    if judge == "gui_r1":
        return _gui_r1(doc, response, parsed_action, geometry)
    if judge in ("qwen_agentcpm", "guievalkit"):
        return _qwen_agentcpm(doc, response, parsed_action, geometry, guievalkit=judge == "guievalkit")
    res = match(parsed_action, gold, geometry, rule=RULES[doc["match_rule"]], boxes=[tuple(b) for b in doc["boxes"]],
                target_box=tuple(doc["target_box"]) if doc.get("target_box") else None)
    return Verdict(res.type_match, res.exact, parsed_action.type if parsed_action else None, gold.type, gold.type)


# --- star ----------------------------------------------------------------------------------------------------------

def _star(doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    fam, dataset, data = doc["agent_family"], doc["dataset"], raw(doc)
    gold = star_official.family_gold(star_gold_atlas(dataset, data) or "NONEACTION", fam, dataset) or "NONEACTION"
    reader = STAR_READERS.get(fam)
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


def _aitw(doc: Mapping[str, Any], parsed: Action | None, geo: Geometry) -> Verdict:
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


def _odyssey(doc: Mapping[str, Any], parsed: Action | None, geo: Geometry) -> Verdict:
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


def _os_atlas(doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """``evaluation_unify.py``: the answer after ``actions:\\n``; type = the first word; CLICK / LONG_PRESS within 140
    of the gold on the 0-1000 grid (the first two digit runs of the answer); AndroidControl: OPEN_APP and TYPE equal
    or F1 of their second words > 0.5, anything else the whole string equal; GUI-Odyssey: TYPE F1 of the whole
    strings > 0.5, SCROLL the whole string equal, anything else the type. Families other than OS-Atlas are read by
    our parser and written in OS-Atlas's format."""
    dataset = doc["dataset"]
    gold = os_atlas_action(action_from_json(doc["gold"]), geo)
    if doc["agent_family"] == "os_atlas":
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


# --- qwen_agentcpm ---------------------------------------------------------------------------------------------------

_CPM_TAP, _CPM_SWIPE, _CPM_GROW = 0.14, 0.04, 1.2  # evaluator.py _TAP_DISTANCE_THRESHOLD, _SWIPE_..., *_AUGMENT_FRACTION
_CPM_TAP_AC = 0.04  # evaluator.py _TAP_DISTANCE_THRESHOLD_AC ("align with qwen's code")
_CPM_KIND = {"CLICK": "click", "LONG_PRESS": "long_point", "SCROLL": "scroll", "TYPE": "type", "PRESS_BACK": "press",
             "PRESS_HOME": "press", "PRESS_ENTER": "press", "COMPLETE": "stop", "IMPOSSIBLE": "stop", "WAIT": "stop"}


def _cpm_direction(dx: float, dy: float) -> str | None:
    """``_get_direction``: the axis word whose cosine with (dx, dy) is largest, first of up, down, left, right."""
    n = math.hypot(dx, dy)
    if n == 0:
        return None
    best, word = -math.inf, None
    for name, (ux, uy) in (("up", (0, -1)), ("down", (0, 1)), ("left", (-1, 0)), ("right", (1, 0))):
        cos = (dx / n) * ux + (dy / n) * uy
        if cos > best:
            best, word = cos, name
    return word


def _ac_as_aitz(data: Mapping[str, Any], guievalkit: bool = False) -> dict[str, Any]:
    """``process_ac.py transform_action_data``: an AndroidControl step as an AITZ row. Clicks AND long presses are
    taps; a scroll is a 0.3 drag from (0.5, 0.5) (the action has no point) in the inverted direction (the finger's);
    wait is NO_ACTION (a stop); the step after the last action is "finish"; every element's bounds are boxes."""
    a, w, h = data.get("action"), float(data["width"]), float(data["height"])
    out: dict[str, Any] = {"result_action_text": "", "width": w, "height": h, "touch_yx": None, "lift_yx": None,
                           "ui_positions": [[y1, x1, y2 - y1, x2 - x1] for x1, y1, x2, y2 in data.get("elements_px", [])]}
    kind = a["action_type"] if a else "finish"
    if guievalkit and kind == "long_press":  # its process_ac.py reaches the LONG_POINT branch
        p = [float(a["y"]) / h, float(a["x"]) / w]
        return {**out, "result_action_type": 0, "touch_yx": p, "lift_yx": p}
    if guievalkit and kind == "open_app":
        return {**out, "result_action_type": 12, "result_action_app_name": str(a["app_name"])}
    if kind in ("click", "long_press"):
        p = [float(a["y"]) / h, float(a["x"]) / w]
        return {**out, "result_action_type": 4, "touch_yx": p, "lift_yx": p}
    if kind == "scroll":
        dy, dx = {"up": (0.3, 0), "down": (-0.3, 0), "left": (0, 0.3), "right": (0, -0.3)}[str(a["direction"])]
        return {**out, "result_action_type": 4, "touch_yx": [0.5, 0.5], "lift_yx": [0.5 + dy, 0.5 + dx]}
    code = {"input_text": 3, "navigate_home": 6, "navigate_back": 5, "wait": 1, "finish": 10}[kind]
    return {**out, "result_action_type": code, "result_action_text": str(a.get("text", "")) if a else ""}


def _odyssey_as_aitz(data: Mapping[str, Any]) -> dict[str, Any]:
    """``process_odyssey.py transform_action_data`` of GUI-Odyssey's converted answer (``decode_action``): clicks are
    taps, a long press is LONG_POINT, a scroll a 0.1 finger drag from (0.5, 0.5) named as the converter names it,
    TYPE's text is ``answer[5:]`` stripped (``": tea"``), there are no element boxes."""
    kind, info = data.get("action"), data.get("info")
    out: dict[str, Any] = {"result_action_text": "", "width": 1.0, "height": 1.0, "ui_positions": [],
                           "touch_yx": None, "lift_yx": None}
    if kind in ("CLICK", "LONG_PRESS") and isinstance(info, list):
        p = [float(info[0][1]) / 1000, float(info[0][0]) / 1000]
        return {**out, "result_action_type": 4 if kind == "CLICK" else 0, "touch_yx": p, "lift_yx": list(p)}
    if kind in ("CLICK", "LONG_PRESS"):
        return {**out, "result_action_type": {"KEY_HOME": 6, "KEY_BACK": 5, "KEY_APPSELECT": 6}[str(info)]}  # recent: HOME
    if kind == "SCROLL":
        dx, dy = float(info[1][0]) - float(info[0][0]), float(info[1][1]) - float(info[0][1])
        word = ("RIGHT" if dx > 0 else "LEFT") if abs(dx) > abs(dy) else ("UP" if dy < 0 else "DOWN")
        lift = {"UP": [0.4, 0.5], "DOWN": [0.6, 0.5], "LEFT": [0.5, 0.4], "RIGHT": [0.5, 0.6]}[word]
        return {**out, "result_action_type": 4, "touch_yx": [0.5, 0.5], "lift_yx": lift}
    if kind in ("TEXT", "TYPE"):
        return {**out, "result_action_type": 3, "result_action_text": f"TYPE: {info}"[5:].strip()}
    return {**out, "result_action_type": 10 if kind == "COMPLETE" else 11}


def _cpm_of_parsed(parsed: Action | None, doc: Mapping[str, Any], geo: Geometry, guievalkit: bool) -> cpm_official.CpmAction | None:
    """Our parser's action (families other than AgentCPM-GUI) mapped onto the evaluator's types; a scroll's direction
    as the finger's word (our direction is in the doc's gold space: AndroidControl's is the scroll's, inverted here)."""
    if parsed is None:
        return None
    kind = _CPM_KIND.get(parsed.type)
    if guievalkit and parsed.type in ("WAIT", "OPENAPP"):
        kind = {"WAIT": "wait", "OPENAPP": "open"}[parsed.type]
    if kind is None:
        return None
    if kind in ("click", "long_point"):
        px, py = parsed.point_in("grid1000", geo)
        return cpm_official.CpmAction(kind, point=(px / 1000, py / 1000))
    if kind == "scroll":
        word = (parsed.direction or "").lower()
        if doc.get("gold_scroll_space") == "scroll":
            word = {"up": "down", "down": "up", "left": "right", "right": "left"}.get(word, word)
        return cpm_official.CpmAction(kind, direction=word)
    if kind in ("type", "open"):
        return cpm_official.CpmAction(kind, text=parsed.text or "")
    if kind == "press":
        return cpm_official.CpmAction(kind, button=parsed.type.split("_", 1)[1].lower())
    return cpm_official.CpmAction(kind)


def _qwen_agentcpm(doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry, *,
                   guievalkit: bool = False) -> Verdict:
    """``ActionEvaluator.__call__``: click / long press inside a 1.2x-grown box (AITZ: any box holding the gold
    point; AndroidControl: the five boxes whose centres are nearest to it), else within 0.14 (AndroidControl: 0.04)
    in relative (x, y); scroll by the nearest axis word of the finger's vector; text either inside the other
    (lower-cased, stripped); press by button; COMPLETE, IMPOSSIBLE and WAIT are all "stop" and match. GUIEvalKit
    (``guievalkit``): WAIT is its own type ("wait"), OPEN_APP a type ("open") whose names match like text. An
    AgentCPM-GUI answer is read whole by the pipeline's own reading (``cpm_official``), other families by our parser."""
    android = doc["dataset"] == "androidcontrol"
    data = (_ac_as_aitz(raw(doc), guievalkit) if android else _odyssey_as_aitz(raw(doc)) if doc["dataset"] == "gui_odyssey"
            else raw(doc))
    code = int(data["result_action_type"])
    gold_dir = None
    if code == 4:
        (ty, tx), (ly, lx) = data["touch_yx"], data["lift_yx"]
        if math.hypot(ty - ly, tx - lx) <= _CPM_SWIPE:
            gold_kind = "click"
        else:
            gold_kind, gold_dir = "scroll", _cpm_direction(lx - tx, ly - ty)
    else:
        gold_kind = {0: "long_point", 1: "wait" if guievalkit else "stop", 3: "type", 5: "press", 6: "press", 7: "press",
                     10: "stop", 11: "stop", 12: "open"}[code]
        if code == 0:
            ty, tx = data["touch_yx"]
    button = {5: "back", 6: "home", 7: "enter"}.get(code)
    if doc["agent_family"] == "agentcpm_gui":
        pred = cpm_official.read(response, "guievalkit" if guievalkit else "agentcpm")
        label = f"{pred.kind}" if pred is not None else None
    else:
        pred = _cpm_of_parsed(parsed, doc, geo, guievalkit)
        label = parsed.type if parsed is not None else None
    if pred is None or pred.kind != gold_kind:
        return Verdict(False, False, label, gold_kind, gold_kind)
    if pred.kind in ("click", "long_point"):
        w, h = float(data["width"]), float(data["height"])
        px, py = pred.point  # type: ignore[misc]
        boxes = []
        for y, x, bh, bw in data["ui_positions"]:  # process_aitz.py: pixel [y, x, h, w] / image size
            y, x, bh, bw = y / h, x / w, bh / h, bw / w
            dh, dw = (_CPM_GROW - 1) * bh, (_CPM_GROW - 1) * bw
            boxes.append((max(0.0, y - dh / 2), max(0.0, x - dw / 2), min(1.0, bh + dh), min(1.0, bw + dw)))
        if android:  # obtain_gt_bbox(eval_android_control=True): the 5 nearest centres, held or not
            holding = sorted(boxes, key=lambda b: math.hypot(b[0] + b[2] / 2 - ty, b[1] + b[3] / 2 - tx))[:5]
        else:
            holding = [b for b in boxes if b[1] <= tx <= b[1] + b[3] and b[0] <= ty <= b[0] + b[2]]
        ok = any(b[0] <= py <= b[0] + b[2] and b[1] <= px <= b[1] + b[3] for b in holding)
        # np.linalg.norm of the (x, y) difference: sqrt of the sum of squares
        ok = ok or math.sqrt((tx - px) ** 2 + (ty - py) ** 2) <= (_CPM_TAP_AC if android else _CPM_TAP)
    elif pred.kind == "scroll":
        ok = pred.direction == gold_dir
    elif pred.kind in ("type", "open"):
        gold_text = data["result_action_app_name"] if pred.kind == "open" else data["result_action_text"]
        p, g = (pred.text or "").lower().strip(), str(gold_text).lower().strip()
        ok = p in g or g in p
    elif pred.kind == "press":
        ok = pred.button == button
    else:
        ok = True
    return Verdict(True, ok, label, gold_kind, gold_kind)


# --- gui_r1 ----------------------------------------------------------------------------------------------------------

# eval_omni.py: which gold actions are scored by distance, which by text F1 (GUI-R1's action words)
_R1_GROUNDED = ("click", "long_press", "moveto", "doubleclick", "rightclick")
_R1_TEXTUAL = ("open_app", "type", "scroll", "select")
_R1_WORDS = {"CLICK": "click", "LONG_PRESS": "long_press", "TYPE": "type", "OPENAPP": "open_app", "SCROLL": "scroll",
             "PRESS_BACK": "press_back", "PRESS_HOME": "press_home", "PRESS_ENTER": "press_enter", "PRESS_RECENT": "press_recent",
             "WAIT": "wait", "COMPLETE": "complete", "IMPOSSIBLE": "impossible"}


def r1_f1(predicted: str, truth: str) -> float:
    """``calculate_f1_score``: brackets dropped, lower-cased whitespace token sets; two single tokens where one is
    inside the other score 1 (so ``upward`` matches ``up``)."""
    p = set(predicted.replace("[", "").replace("]", "").lower().split())
    g = set(truth.replace("[", "").replace("]", "").lower().split())
    if len(p) == 1 and len(g) == 1:
        a, b = next(iter(p)), next(iter(g))
        if a in b or b in a:
            return 1.0
    common = p & g
    prec = len(common) / len(p) if p else 0.0
    rec = len(common) / len(g) if g else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def _r1_text(action: Action) -> str:
    if action.type in ("TYPE", "OPENAPP"):
        return action.text or ""
    return (action.direction or "").lower() if action.type == "SCROLL" else "no input text"


def _gui_r1(doc: Mapping[str, Any], response: str | None, parsed: Action | None, geo: Geometry) -> Verdict:
    """GUI-R1 ``guir1/eval/eval_omni.py``: the type is the action word; a gold click / long press is hit when the
    point is within 0.14 (strict, in original pixels over the image size) and a gold type / open_app / scroll when the
    text F1 is >= 0.5, both WITHOUT a type check (a scroll answer near the gold click counts). eval_omni's step
    accuracy leaves every other gold action out; here their step verdict is the type match. A GUI-R1 answer is read
    by GUI-R1's own extractors (``gui_r1_official_fields``), other families by our parser."""
    gold = action_from_json(doc["gold"])
    gold_word = _R1_WORDS.get(gold.type, gold.type.lower())
    word: str | None
    if doc["agent_family"] == "gui_r1":
        word, point, text = gui_r1_official_fields(response or "")
        pred_pt = Action("CLICK", point=point, frame=family("gui_r1").frame).point_in("original_px", geo)
    elif parsed is not None:
        word, text = _R1_WORDS.get(parsed.type, parsed.type.lower()), _r1_text(parsed)
        pred_pt = parsed.point_in("original_px", geo) if parsed.point is not None else (0.0, 0.0)
    else:
        word, pred_pt, text = None, (0.0, 0.0), "no input text"
    type_match = word == gold_word
    if gold_word in _R1_GROUNDED:
        gx, gy = gold.point_in("original_px", geo)
        w, h = geo.original_width, geo.original_height
        exact = ((gx - pred_pt[0]) / w) ** 2 + ((gy - pred_pt[1]) / h) ** 2 < 0.14 ** 2
    elif gold_word in _R1_TEXTUAL:
        exact = r1_f1(_r1_text(gold), text) >= 0.5
    else:
        exact = type_match
    return Verdict(type_match, exact, word, gold_word, gold_word)
