"""ScreenSpot-Pro's official report (per group, per application, text / icon) from our per-sample grounding records.

The figures and their keys are those of ``evaluate`` in ``likaixin2000/ScreenSpot-Pro-GUI-Grounding``
``eval_screenspot_pro.py`` @ bd8bbbb470fbc4fda2a4fa9ec90bd2572507794e (``metrics``: ``fine_grained``,
``seeclick_style``, ``leaderboard_simple_style`` (per group: the leaderboard's columns), ``leaderboard_detailed_style``
(per application) and ``overall``). Every figure is micro: correct / samples of the slice, 0 for an empty
text or icon slice (``calc_metric_for_result_list``). A slice key of ``None`` (the v2 variants' ``group: null``) filters
nothing there (``collect_results_to_eval`` treats None as "all"), so it covers every sample; so here.

Each record carries ``official``: the row's ``platform, group, application, ui_type, lang, gt_type,
instruction_style`` and the verdict ``correctness`` (correct | wrong | wrong_format), written by
``gui_tasks.grounding.score``. Checked against the script itself: tests/fixtures/screenspot_pro_official/.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping, Sequence

Record = Mapping[str, Any]
# the attribute names of the script's sample_result and the key prefixes of its report
_KEY_NAMES = {"platform": "plat", "application": "app", "instruction_style": "inst_style", "gt_type": "gt_type",
              "group": "group"}
# ScreenSpot-Pro's six groups as its annotations spell them (the leaderboard's column groups)
PRO_GROUP_NAMES = ("Dev", "Creative", "CAD", "Scientific", "Office", "OS")


def official_rows(records: Sequence[Record]) -> list[dict[str, Any]]:
    """The ``official`` part of every record that has one."""
    return [dict(r["official"]) for r in records if isinstance(r.get("official"), Mapping)]


def _select(rows: Sequence[Mapping[str, Any]], **wanted: Any) -> list[Mapping[str, Any]]:
    return [r for r in rows if all(v is None or r.get(k) == v for k, v in wanted.items())]


def figures(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """num_correct_action, num_total, wrong_format_num, action_acc, text_acc, icon_acc of one slice."""
    n = len(rows)
    correct = sum(r["correctness"] == "correct" for r in rows)
    text, icon = _select(rows, ui_type="text"), _select(rows, ui_type="icon")
    share = lambda xs: sum(r["correctness"] == "correct" for r in xs) / len(xs) if xs else 0  # noqa: E731
    return {"num_correct_action": correct, "num_total": n,
            "wrong_format_num": sum(r["correctness"] == "wrong_format" for r in rows),
            "action_acc": correct / n if n else 0, "text_acc": share(text), "icon_acc": share(icon)}


def _by(rows: Sequence[Mapping[str, Any]], attrs: Sequence[str]) -> dict[str, dict[str, Any]]:
    values = [sorted({r.get(a) for r in rows}, key=str) for a in attrs]
    out = {}
    for combo in itertools.product(*values):
        got = _select(rows, **dict(zip(attrs, combo)))
        if got:
            out[" ".join(f"{_KEY_NAMES[a]}:{v}" for a, v in zip(attrs, combo))] = figures(got)
    return out


def screenspot_pro_report(records: Sequence[Record]) -> dict[str, Any] | None:
    """The script's ``metrics`` dict for the records that carry official keys; None when none does."""
    rows = official_rows(records)
    if not rows:
        return None
    return {"fine_grained": _by(rows, ("platform", "application", "instruction_style", "gt_type")),
            "seeclick_style": _by(rows, ("platform", "instruction_style", "gt_type")),
            "leaderboard_simple_style": _by(rows, ("group",)),
            "leaderboard_detailed_style": _by(rows, ("application",)),
            "overall": figures(rows)}


def overall_figure(name: str):
    """Aggregation: one figure of the script's ``overall`` (NaN without official keys)."""
    def agg(records: Sequence[Record]) -> float:
        rows = official_rows(records)
        return float(figures(rows)[name]) if rows else math.nan

    return agg


def group_figure(group: str, name: str = "action_acc"):
    """Aggregation: one figure of ``leaderboard_simple_style`` for ``group`` (its "Avg" for action_acc); NaN if absent."""
    def agg(records: Sequence[Record]) -> float:
        rows = [r for r in official_rows(records) if str(r.get("group")).lower() == group.lower()]
        return float(figures(rows)[name]) if rows else math.nan

    return agg


# --- UI-Vision element grounding (uivision/UI-Vision eval/grounding/eval_uivision.py @ 2b79355) ---------------------


def simple_figures(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``calc_metric_for_result_list_simple``: num_correct_action, num_total, wrong_format_num, action_acc (micro)."""
    n = len(rows)
    correct = sum(r["correctness"] == "correct" for r in rows)
    return {"num_correct_action": correct, "num_total": n,
            "wrong_format_num": sum(r["correctness"] == "wrong_format" for r in rows),
            "action_acc": correct / n if n else 0}


def uivision_report(records: Sequence[Record]) -> dict[str, Any] | None:
    """The script's ``metrics`` (``overall_simple``, its only figure) and, ours beside it (the script has none),
    micro accuracy per ``category``, ``platform`` and ``element_type`` of the rows; None without official keys."""
    rows = official_rows(records)
    if not rows:
        return None
    by = lambda key: {str(v): simple_figures([r for r in rows if r.get(key) == v])  # noqa: E731
                      for v in sorted({r.get(key) for r in rows}, key=str)}
    return {"overall_simple": simple_figures(rows),
            "breakdown_not_in_official_script": {"category": by("category"), "platform": by("platform"),
                                                 "element_type": by("element_type")}}


def official_report(benchmark: str, records: Sequence[Record]) -> dict[str, Any] | None:
    """The official report of ``benchmark`` (the script's own figures) for records that carry official keys: the
    function its ``gui_core.benchmark`` record names (``official_report``), else the ScreenSpot-Pro script's."""
    from gui_core.benchmark import BENCHMARKS, resolve

    rec = next((b for b in BENCHMARKS.values() if b.results_name == benchmark and b.official_report), None)
    return resolve(rec.official_report)(records) if rec is not None else screenspot_pro_report(records)


# --- MMBench-GUI L2 (open-compass/MMBench-GUI benchmarks/matrics.py level2_calculate_scores @ 896ddf1) ----------------

_L2_VERDICT = {"correct": 1, "wrong": 0, "wrong_format": -1}


def _share(part: int, whole: int) -> float:
    return part / whole * 100 if whole else math.nan  # the script divides by zero there (it stops); NaN here


def mmbench_l2_report(records: Sequence[Record]) -> dict[str, Any] | None:
    """``level2_calculate_scores``: per level and platform the counts and accuracies (percent), each level's accuracy
    (platforms weighted by their sample counts: micro over the level) and their plain mean ("Average accuracy").
    Every row counts in "Total num" and the total accuracy's denominator whatever its ``data_type`` (the script sums
    every key's list); only ``icon`` and ``text`` rows get their own counts and can be correct; any level is reported
    as its own (basic and advanced alone are averaged)."""
    rows = official_rows(records)
    if not rows:
        return None
    per_level: dict[str, dict[str, Any]] = {}
    for level in dict.fromkeys(r["grounding_type"] for r in rows):
        per_level[level] = {}
        for platform in dict.fromkeys(r["platform"] for r in rows if r["grounding_type"] == level):
            got = [r for r in rows if r["grounding_type"] == level and r["platform"] == platform]
            v = {t: [_L2_VERDICT[r["correctness"]] for r in got if r["data_type"] == t] for t in ("icon", "text")}
            correct = {t: sum(x == 1 for x in v[t]) for t in v}
            per_level[level][platform] = {
                "Total num": len(got), "Icon num": len(v["icon"]), "Text num": len(v["text"]),
                "Total accuracy": _share(correct["icon"] + correct["text"], len(got)),
                "Icon accuracy": _share(correct["icon"], len(v["icon"])),
                "Text accuracy": _share(correct["text"], len(v["text"])),
                "Correct num": correct["icon"] + correct["text"],
                "Wrong num": sum(x == 0 for t in v for x in v[t]), "Error format num": sum(x == -1 for t in v for x in v[t])}

    def level_score(level: str) -> float:
        table = per_level.get(level)
        if not table:
            return math.nan  # the script raises KeyError without both levels
        total = sum(x["Total num"] for x in table.values())
        return sum(x["Total accuracy"] * (x["Total num"] / total) for x in table.values())

    basic, advanced = level_score("basic"), level_score("advanced")
    return {"Average accuracy": (basic + advanced) / 2, "Basic accuracy": basic, "Advanced accuracy": advanced,
            **per_level}


# --- OSWorld-G (the evaluation scripts' results dict, as Onifin/Holo3.1-OSWorld-G evaluation/holo_osworld_g.py @ 0fbdd89
# and VLMEvalKit vlmeval/dataset/GUI/osworld_g.py @ d47d6c7 write it; the authors' repository could not be fetched) -----


def osworld_g_report(records: Sequence[Record]) -> dict[str, Any] | None:
    """``total, correct, accuracy`` (micro) and ``accuracy_dict_group``: per category of classification_result.json
    (an item counts in each of its categories, ``unclassified`` when in none) total, correct, accuracy; beside them,
    not in those scripts, the accuracy per box type (lmms-eval's osworld_g_{bbox,polygon,refusal}_acc)."""
    rows = official_rows(records)
    if not rows:
        return None
    groups: dict[str, dict[str, Any]] = {}
    for r in rows:
        for g in r.get("groups") or ["unclassified"]:
            entry = groups.setdefault(str(g), {"total": 0, "correct": 0, "accuracy": 0})
            entry["total"] += 1
            entry["correct"] += r["correctness"] == "correct"
    for entry in groups.values():
        entry["accuracy"] = entry["correct"] / entry["total"] if entry["total"] else 0.0
    correct = sum(r["correctness"] == "correct" for r in rows)
    by_type = {t: simple_figures([r for r in rows if r.get("box_type") == t])
               for t in sorted({str(r.get("box_type")) for r in rows})}
    # which harness's code scored (gui_metrics.osworld_g_readings), and the rows that code itself stops on
    # (VLMEvalKit's evaluate on a refusal row with empty coordinates): counted wrong here, named beside the figures
    readings = sorted({str(r.get("reading") or "official") for r in rows})
    return {"total": len(rows), "correct": correct, "accuracy": correct / len(rows), "accuracy_dict_group": groups,
            "box_type_not_in_official_script": by_type, "reading": ", ".join(readings),
            "rows_the_code_stops_on": sum(r["correctness"] == "error" for r in rows)}
