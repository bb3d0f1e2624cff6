"""PSS report from lmms-eval runs of grounding tasks: the paper's tables and figures, drawn to files.

``gui-eval grounding-report RUN_DIR... --out DIR`` writes
- ``pss_by_type.png``: PSS distribution per response type (box plots; Table 2 / Figure 4 view),
  with the first prediction beside the final one when the run used ``crop`` (Table 7);
- ``response_types.png``: share of each response type per run (Figure 3);
- ``pss_vs_entropy.png``: PSS against key-token digit entropy, coloured by type (Tables 4-5);
- ``report.md`` and ``report.json``: PSS / entropy / perplexity by type (Tables 2, 4, 8), Welch
  t-tests between types (Table 3), Wasserstein distances biased vs other (Table 5), accuracy per
  split and before/after cropping (Table 6), PSS by type before/after cropping (Table 7).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gui_metrics.grounding_official import official_report
from gui_tasks.grounding.benchmark import every_element_boxed, grounding_records, results_loaded_by
from gui_metrics.pss import ALL_TYPES, DISTANCE_BANDS, is_type, within_distance
from gui_metrics.stats import bootstrap_ci, wasserstein_distance, welch_t_test
from gui_tasks.runs.results_io import find_result_files, interval_lines, load_results, load_task_samples

# The figures whose 95% intervals the report lists (docs/statistics.md): accuracy, PSS and the response-type shares.
INTERVAL_METRICS = ("grounding_acc", "pss_mean", "share_correct", "share_biased", "share_misleading", "share_confusion",
                    "share_other", "grounding_format_error_rate")

# the results' metadata.benchmark of every grounding benchmark record (gui_tasks.grounding.benchmark)
BENCHMARKS = tuple(dict.fromkeys(b.results_name for b in grounding_records()))
RECORD_METRIC = "grounding_acc"  # every grounding metric logs the same per-sample record; read it from this one
TYPE_COLORS = {"correct": "#2e7d32", "biased": "#f9a825", "misleading": "#ef6c00", "confusion": "#c62828", "other": "#c62828",
               "invalid": "#9e9e9e"}
PAIRS = (("biased", "correct"), ("other", "correct"), ("biased", "other"))  # Table 3


@dataclass
class Series:
    """The records of one task of one run."""

    label: str
    task: str
    benchmark: str
    records: list[dict[str, Any]]
    limit: Any = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def cropped(self) -> bool:
        return any("first" in r for r in self.records)

    def types(self) -> tuple[str, ...]:
        present = {r["response_type"] for r in self.records}
        if present & {"misleading", "confusion"}:
            return ("correct", "biased", "misleading", "confusion")
        return ("correct", "biased", "other")


def collect(paths: Sequence[str | Path]) -> list[Series]:
    """Every grounding task of every results file under ``paths``, with its per-sample records."""
    out = []
    for path in find_result_files(paths):
        run = load_results(path)
        for name, task in sorted(run.tasks.items()):
            if task.is_group or task.metadata.get("benchmark") not in BENCHMARKS:
                continue
            samples = load_task_samples(run, name)
            records = [s[RECORD_METRIC] for s in samples if isinstance(s.get(RECORD_METRIC), dict)]
            out.append(Series(f"{run.model_label}\n{name}", name, task.metadata["benchmark"], records, run.limit, task.metadata))
    return out


def _values(records, field_name: str, rtype: str | None = None, stage: str = "final") -> list[float]:
    views = [r if stage == "final" else r.get("first") for r in records]
    return [float(v[field_name]) for v in views if v is not None and v.get(field_name) is not None
            and (rtype is None or is_type(v.get("response_type"), rtype)) and math.isfinite(float(v[field_name]))]


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _ttest(a: list[float], b: list[float]) -> dict[str, Any] | None:
    if len(a) < 2 or len(b) < 2:
        return None
    t = welch_t_test(a, b)
    return {"t": t.t, "df": t.df, "p": t.p_value, "significant": bool(t.p_value < 0.05) if math.isfinite(t.p_value) else None}


def summarise(series: Series) -> dict[str, Any]:
    """All numbers of the report for one series."""
    recs = series.records
    n = len(recs)
    by_type = {}
    for t in ALL_TYPES + ("invalid",):
        members = [r for r in recs if is_type(r["response_type"], t)] if t != "invalid" else [r for r in recs if r["response_type"] == "invalid"]
        pss = _values(recs, "pss", t) if t != "invalid" else []
        by_type[t] = {"n": len(members), "share": len(members) / n if n else None, "pss_mean": _mean(pss),
                      "pss_ci95": list(bootstrap_ci(pss)) if len(pss) >= 2 else None,
                      "entropy_mean": _mean(_values(recs, "digit_entropy", t)) if t != "invalid" else None,
                      "perplexity_mean": _mean(_values(recs, "perplexity", t)) if t != "invalid" else None}
    tests = {f"{a}_vs_{b}": _ttest(_values(recs, "pss", a), _values(recs, "pss", b)) for a, b in PAIRS}
    wd = {}
    for f in ("pss", "digit_entropy"):
        a, b = _values(recs, f, "biased"), _values(recs, f, "other")
        wd[f] = wasserstein_distance(a, b) if a and b else None
    splits = sorted({r["split"] for r in recs})
    acc = {s: _acc([r for r in recs if r["split"] == s]) for s in splits}
    out = {"task": series.task, "run": series.label.split("\n")[0], "benchmark": series.benchmark, "n": n, "limit": series.limit, "accuracy": _acc(recs),
           "accuracy_by_split": acc, "within_distance": {str(d): within_distance(recs, d) for d in DISTANCE_BANDS},
           "by_type": by_type, "welch_t_tests_pss": tests, "wasserstein_biased_vs_other": wd,
           "params": recs[0].get("params") if recs else None, "frame_check": frame_check_summary(recs),
           "published": series.meta.get("published"),  # an imported published run (gui-eval import): its own figure
           "pss_missing": pss_missing(recs),
           # the release as loaded: boxes clipped to their image, bad rows skipped on request (GUI_EVAL_SKIP_BAD_ROWS)
           "boxes_clipped": series.meta.get("boxes_clipped"), "bad_rows_skipped": series.meta.get("bad_rows_skipped"),
           # ScreenSpot-Pro layout: eval_screenspot_pro.py's own metrics on the same answers (gui_metrics.grounding_official)
           "official_report": official_report(series.benchmark, recs)}
    if series.cropped:
        firsts = [r["first"] for r in recs if "first" in r]
        out["before_crop"] = {
            "accuracy": _acc(firsts),
            "accuracy_by_split": {s: _acc([r["first"] for r in recs if r["split"] == s and "first" in r]) for s in splits},
            "pss_by_type": {t: _mean(_values(recs, "pss", t, "first")) for t in ("correct", "biased", "other")},
        }
        out["after_crop_pss_by_type"] = {t: _mean(_values(recs, "pss", t)) for t in ("correct", "biased", "other")}
    return out


def pss_missing(records: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Why parsed answers have no PSS (what ``pss_no_capture_rate`` counts): no capture at all (a backend or run without
    ``capture_logits=digits``), every key digit merged into a multi-character token, or no key digit found."""
    out = {"parsed": 0, "no_capture": 0, "merged_key_digit": 0, "no_key_digit": 0}
    for r in records:
        if r.get("status") != "parsed":
            continue
        out["parsed"] += 1
        if r.get("pss") is not None or r.get("pss_range") is not None:
            continue
        keys = r.get("key_tokens") or []
        out["no_capture" if not r.get("captured") else "merged_key_digit" if keys else "no_key_digit"] += 1
    return out


MISSING_WHY = {"no_capture": "no logits captured (run gui_hf with capture_logits=digits)",
               "merged_key_digit": "the key digit shares a token with other characters (no ten-digit distribution)",
               "no_key_digit": "no key digit located in the answer's syntax"}


# A frame scoring this much higher (absolute accuracy) than the declared one is the signature of a mis-declared family
# (VLMEvalKit#1332, Qwen3-VL#1913, UI-TARS#177): the report warns loudly.
FRAME_WARNING_MARGIN = 0.10


def frame_check_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Accuracy if every answer were read in each frame, the declared frame, and a warning when another scores far higher.

    Over the records with a ``frame_check`` (parsed answers, first pass); unparsed answers count as wrong in every frame,
    so each figure is an accuracy over all samples, comparable with the task's own.
    """
    n = len(records)
    checked = [r for r in records if isinstance(r.get("frame_check"), dict)]
    if not n or not checked:
        return None
    frames = list(checked[0]["frame_check"])
    acc = {f: sum(bool(r["frame_check"].get(f)) for r in checked) / n for f in frames}
    # the family's declared frame (a benchmark wrapper's reading records its relative point's frame apart)
    declared = next((r.get("family_frame") or r.get("frame") for r in checked if r.get("family_frame") or r.get("frame")),
                    None)
    top = max(acc.values())
    best = [f for f in frames if acc[f] == top]  # frames of equal size (resized = original) tie
    warning = None
    if declared in acc and declared not in best and top - acc[declared] >= FRAME_WARNING_MARGIN:
        warning = (f"WARNING: answers read as {' or '.join(best)} score {top:.1%}, read as the declared {declared} "
                   f"{acc[declared]:.1%}: the family (answer frame) is probably mis-declared")
    return {"declared": declared, "accuracy_by_frame": acc, "margin": FRAME_WARNING_MARGIN, "warning": warning}


def _acc(recs) -> float | None:
    return sum(bool(r["correct"]) for r in recs) / len(recs) if recs else None


def _fmt(x: Any, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def uivision_final_avg(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """UI-Vision's "Final Avg" (its README: the plain mean of the basic, functional and spatial figures) on each of the
    three summaries of one run and prompt family, when all three settings were run; the summaries, updated."""
    from gui_tasks.grounding import uivision
    from gui_tasks.grounding.uivision import SETTINGS

    names = results_loaded_by(uivision.__name__)

    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for s in summaries:
        for setting in SETTINGS:
            if s["benchmark"] in names and s["task"].startswith(f"gui_uivision_{setting}"):
                key = (str(s.get("run")), s["task"][len(f"gui_uivision_{setting}"):])
                groups.setdefault(key, {})[setting] = s
    for members in groups.values():
        if len(members) == len(SETTINGS):
            figures = {k: m["official_report"]["overall_simple"]["action_acc"] for k, m in members.items()
                       if m.get("official_report")}
            if len(figures) == len(SETTINGS):
                entry = {**figures, "final_avg": sum(figures.values()) / len(figures)}
                for m in members.values():
                    m["uivision_final_avg"] = entry
    return summaries


def report_title(summaries: Sequence[dict[str, Any]]) -> str:
    """The report named after the benchmarks it holds (their records' titles, e.g. "ScreenSpot-Pro report"), not
    after one of its analyses."""
    from gui_core.benchmark import BENCHMARKS

    titles = []
    for name in dict.fromkeys(str(s.get("benchmark")) for s in summaries):
        rec = next((b for b in BENCHMARKS.values() if ("benchmark", name) in b.match), None)
        titles.append(rec.title if rec is not None else name)
    return (", ".join(titles) or "Grounding") + " report (accuracy, official figures, PSS)"


def markdown(summaries: Sequence[dict[str, Any]]) -> str:
    lines = [f"# {report_title(summaries)}", ""]
    for s in summaries:
        lines += [f"## {s['task']} ({s['benchmark']})" + (f": {s['run']}" if s.get("run") else ""), ""]
        if s["limit"] not in (None, "None"):
            lines += [f"Limited run (--limit {s['limit']}): numbers are not comparable with the paper.", ""]
        if s.get("boxes_clipped") or s.get("bad_rows_skipped"):
            lines += [f"Release as loaded: {s.get('boxes_clipped') or 0} target box(es) clipped to their image, "
                      f"{s.get('bad_rows_skipped') or 0} bad row(s) skipped on request (GUI_EVAL_SKIP_BAD_ROWS).", ""]
        pub = s.get("published")
        if pub:
            lines += [f"Published figure (the file's own scorer): {_fmt(pub.get('accuracy'))} (on the {pub.get('matched')} "
                      f"matched samples {_fmt(pub.get('accuracy_on_matched'))}); ours {_fmt(pub.get('ours_on_matched'))}; "
                      f"{pub.get('disagreements')} sample(s) disagree. Source: {pub.get('file')}", ""]
        lines += _official_lines(s.get("official_report"))
        if s.get("uivision_final_avg"):
            f = s["uivision_final_avg"]
            lines += [f"UI-Vision Final Avg (mean of the three settings): {_fmt(f['final_avg'])} (basic {_fmt(f['basic'])}, "
                      f"functional {_fmt(f['functional'])}, spatial {_fmt(f['spatial'])})", ""]
        fc = s.get("frame_check")
        if fc:
            if fc["warning"]:
                lines += [f"**{fc['warning']}**", ""]
            lines += ["Frame check (accuracy if the answers were read in each frame; declared: "
                      f"{fc['declared']}): " + ", ".join(f"{f} {_fmt(a)}" for f, a in fc["accuracy_by_frame"].items()), ""]
        lines += [f"Samples: {s['n']}; accuracy {_fmt(s['accuracy'])}; parameters {json.dumps(s['params'])}", "",
                  "Within relative distance of the target (Table 1): "
                  + ", ".join(f"< {d}: {_fmt(v)}" for d, v in s["within_distance"].items()), "",
                  "| type | n | share | PSS (95% CI) | digit entropy | perplexity |", "|---|---|---|---|---|---|"]
        # icon boards know every element: "other" is then the subtotal misleading + confusion (Tables 2, 7), not a type
        subtotal = every_element_boxed(s["benchmark"]) or any(s["by_type"][t]["n"] for t in ("misleading", "confusion"))
        for t, v in s["by_type"].items():
            if v["n"] == 0 and t not in ("correct", "biased", "other"):
                continue
            ci = "" if not v["pss_ci95"] else f" ({_fmt(v['pss_ci95'][0])}-{_fmt(v['pss_ci95'][1])})"
            name = "other (= misleading + confusion)" if t == "other" and subtotal else t
            lines.append(f"| {name} | {v['n']} | {_fmt(v['share'])} | {_fmt(v['pss_mean'])}{ci} | {_fmt(v['entropy_mean'])} | "
                         f"{_fmt(v['perplexity_mean'])} |")
        if subtotal:
            lines += ["", "The shares of correct, biased, misleading, confusion and invalid add up to 1; `other` is the "
                          "subtotal of misleading and confusion (the grouping of Tables 2 and 7), not added again."]
        miss = s.get("pss_missing") or {}
        gone = {k: miss.get(k, 0) for k in MISSING_WHY if miss.get(k)}
        if gone:
            lines += ["", f"PSS missing for {sum(gone.values())} of {miss['parsed']} parsed answers "
                          f"(`pss_no_capture_rate`): " + "; ".join(f"{n} {MISSING_WHY[k]}" for k, n in gone.items()) + "."]
        lines += ["", "Welch t-tests on PSS (Table 3): " + "; ".join(
            f"{k}: " + ("-" if v is None else f"t={_fmt(v['t'])}, p={_fmt(v['p'])}") for k, v in s["welch_t_tests_pss"].items()),
            "", "Wasserstein distance biased vs other (Table 5): " + ", ".join(
                f"{k}={_fmt(v)}" for k, v in s["wasserstein_biased_vs_other"].items()), "",
            "| split | accuracy |" + (" before crop |" if "before_crop" in s else ""),
            "|---|---|" + ("---|" if "before_crop" in s else "")]
        for split, a in s["accuracy_by_split"].items():
            extra = f" {_fmt(s['before_crop']['accuracy_by_split'].get(split))} |" if "before_crop" in s else ""
            lines.append(f"| {split} | {_fmt(a)} |{extra}")
        if "before_crop" in s:
            lines += ["", "PSS by response type before / after cropping (Table 7):", "", "| | correct | biased | other |", "|---|---|---|---|",
                      "| before | " + " | ".join(_fmt(s["before_crop"]["pss_by_type"][t]) for t in ("correct", "biased", "other")) + " |",
                      "| after | " + " | ".join(_fmt(s["after_crop_pss_by_type"][t]) for t in ("correct", "biased", "other")) + " |",
                      "", f"Accuracy before {_fmt(s['before_crop']['accuracy'])}, after {_fmt(s['accuracy'])} (Table 6)."]
        lines.append("")
    return "\n".join(lines)


def _official_lines(rep: dict[str, Any] | None) -> list[str]:
    """eval_screenspot_pro.py's leaderboard view: each group's text / icon / Avg, each application, overall text / icon."""
    if not rep:
        return []
    if "Average accuracy" in rep:  # MMBench-GUI L2: level2_calculate_scores (percent)
        lines = [f"Official report (MMBench-GUI level2_calculate_scores): average {_fmt(rep['Average accuracy'], 2)}, "
                 f"basic {_fmt(rep['Basic accuracy'], 2)}, advanced {_fmt(rep['Advanced accuracy'], 2)}", "",
                 "| level | platform | total | icon | text | n | wrong format |", "|---|---|---|---|---|---|---|"]
        for level in [k for k, v in rep.items() if isinstance(v, dict)]:  # basic, advanced, then any other level
            for platform, f in rep[level].items():
                lines.append(f"| {level} | {platform} | {_fmt(f['Total accuracy'], 2)} | {_fmt(f['Icon accuracy'], 2)} | "
                             f"{_fmt(f['Text accuracy'], 2)} | {f['Total num']} | {f['Error format num']} |")
        return lines + [""]
    if "accuracy_dict_group" in rep:  # OSWorld-G: the evaluation scripts' results dict, then the box types
        stops = (f"; {rep['rows_the_code_stops_on']} rows the code stops on (counted wrong)"
                 if rep.get("rows_the_code_stops_on") else "")
        lines = [f"Official report (OSWorld-G evaluation scripts, reading {rep.get('reading') or 'official'}): accuracy "
                 f"{_fmt(float(rep['accuracy']))}, {rep['correct']} of {rep['total']}{stops}", "",
                 "| category | accuracy | correct | n |", "|---|---|---|---|"]
        lines += [f"| {g} | {_fmt(float(f['accuracy']))} | {f['correct']} | {f['total']} |"
                  for g, f in rep["accuracy_dict_group"].items()]
        lines += ["", "| box type | accuracy | n |", "|---|---|---|"]
        lines += [f"| {t} | {_fmt(float(f['action_acc']))} | {f['num_total']} |"
                  for t, f in rep["box_type_not_in_official_script"].items()]
        return lines + [""]
    if "overall_simple" in rep:  # UI-Vision: the script's one figure, then our breakdown of the same verdicts
        o = rep["overall_simple"]
        lines = [f"Official report (eval_uivision.py overall_simple): action_acc {_fmt(float(o['action_acc']))}, "
                 f"wrong format {o['wrong_format_num']} of {o['num_total']}", "",
                 "| by | value | accuracy | n |", "|---|---|---|---|"]
        for key, table in rep["breakdown_not_in_official_script"].items():
            lines += [f"| {key} | {v} | {_fmt(float(f['action_acc']))} | {f['num_total']} |" for v, f in table.items()]
        return lines + [""]
    o = rep["overall"]
    lines = ["Official report (eval_screenspot_pro.py): overall " + f"{_fmt(float(o['action_acc']))}, text "
             f"{_fmt(float(o['text_acc']))}, icon {_fmt(float(o['icon_acc']))}, wrong format {o['wrong_format_num']} of "
             f"{o['num_total']}", "", "| group | text | icon | Avg | n |", "|---|---|---|---|---|"]
    for key, f in rep["leaderboard_simple_style"].items():
        lines.append(f"| {key.split(':', 1)[1]} | {_fmt(float(f['text_acc']))} | {_fmt(float(f['icon_acc']))} | "
                     f"{_fmt(float(f['action_acc']))} | {f['num_total']} |")
    lines += ["", "| application | accuracy | text | icon | n |", "|---|---|---|---|---|"]
    for key, f in rep["leaderboard_detailed_style"].items():
        lines.append(f"| {key.split(':', 1)[1]} | {_fmt(float(f['action_acc']))} | {_fmt(float(f['text_acc']))} | "
                     f"{_fmt(float(f['icon_acc']))} | {f['num_total']} |")
    return lines + [""]


def draw(series: Sequence[Series], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    # 1. PSS by response type (box plots), final and (with crop) first prediction
    width = max(4.5, 0.75 * max(len(s.types()) * (2 if s.cropped else 1) for s in series))
    fig, axes = plt.subplots(1, len(series), figsize=(width * len(series), 4.2), squeeze=False)
    for ax, s in zip(axes[0], series):
        types = s.types()
        stages = [("final", "")] + ([("first", "\nbefore crop")] if s.cropped else [])
        data, labels, colors = [], [], []
        for stage, suffix in stages:
            for t in types:
                data.append(_values(s.records, "pss", t, stage))
                labels.append(f"{t}{suffix}\nn={len(data[-1])}")
                colors.append(TYPE_COLORS[t])
        box = ax.boxplot([d if d else [math.nan] for d in data], patch_artist=True)
        for patch, c in zip(box["boxes"], colors):
            patch.set_facecolor(c)
            patch.set_alpha(0.6)
        ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=7)
        ax.set_ylabel("PSS")
        ax.set_title(s.label, fontsize=8)
    fig.tight_layout()
    files.append(out / "pss_by_type.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)
    # 2. response-type shares (Figure 3)
    fig, ax = plt.subplots(figsize=(7, 0.7 * len(series) + 1.5))
    for i, s in enumerate(series):
        left = 0.0
        n = len(s.records) or 1
        for t in s.types() + ("invalid",):
            share = sum(r["response_type"] == t for r in s.records) / n
            if share:
                ax.barh(i, share, left=left, color=TYPE_COLORS[t], label=t)
                ax.text(left + share / 2, i, f"{share:.0%}", ha="center", va="center", fontsize=7)
            left += share
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="lower right")
    # long model labels (checkpoint plus settings) are wrapped, and the saved figure grows to hold them (not clipped)
    ax.set_yticks(range(len(series)), [textwrap.fill(s.label.replace("\n", " "), 40) for s in series], fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of responses")
    fig.tight_layout()
    files.append(out / "response_types.png")
    fig.savefig(files[-1], dpi=110, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)
    # 3. PSS vs digit entropy
    fig, axes = plt.subplots(1, len(series), figsize=(4.5 * len(series), 3.8), squeeze=False)
    for ax, s in zip(axes[0], series):
        for t in s.types():
            pts = [(r["digit_entropy"], r["pss"]) for r in s.records
                   if is_type(r["response_type"], t) and r.get("pss") is not None and r.get("digit_entropy") is not None]
            if pts:
                ax.scatter(*zip(*pts), s=14, color=TYPE_COLORS[t], label=t, alpha=0.7)
        ax.set_xlabel("key-token digit entropy (nats)")
        ax.set_ylabel("PSS")
        ax.set_title(s.label, fontsize=8)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    files.append(out / "pss_vs_entropy.png")
    fig.savefig(files[-1], dpi=110)
    plt.close(fig)
    return files


def build_report(paths: Sequence[str | Path], out: str | Path) -> list[Path]:
    """Write the figures, ``report.md`` and ``report.json`` for every grounding task found; returns the files."""
    series = collect(paths)
    if not series:
        from gui_tasks.runs.results_io import wrong_run_type

        raise wrong_run_type("gui-eval grounding-report", paths, BENCHMARKS, "docs/screenspot_pss.md")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summaries = uivision_final_avg([summarise(s) for s in series])
    files = draw(series, out)
    (out / "report.json").write_text(json.dumps(summaries, indent=2, default=str), encoding="utf-8")
    (out / "report.md").write_text(markdown(summaries), encoding="utf-8")
    return files + [out / "report.json", out / "report.md"]


def main_tables(md: str) -> str:
    """What the command prints of ``report.md``: each task's heading and its main table (response types: share, PSS,
    entropy, perplexity); the rest stays in the files."""
    out: list[str] = []
    want = False
    for line in md.splitlines():
        if line.startswith("## "):
            out += (["" ] if out else []) + [line]
            want = True
        elif want and line.startswith("|"):
            out.append(line)
        elif want and out and out[-1].startswith("|"):
            want = False  # the first table after the heading has ended
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gui-eval grounding-report", description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="lmms-eval output folders or results files")
    ap.add_argument("--out", default="runs/pss-report")
    args = ap.parse_args(argv)
    from gui_core.errors import DataError

    try:
        files = build_report(args.runs, args.out)
    except DataError as exc:  # a missing or unreadable run: named, no traceback
        print(f"gui-eval grounding-report: {exc}", file=sys.stderr)
        return 1
    print(main_tables((Path(args.out) / "report.md").read_text(encoding="utf-8")))
    for f in files:
        print(f)
    for line in interval_lines([load_results(p) for p in find_result_files(args.runs)], metrics=INTERVAL_METRICS):
        print(line)
    for s in json.loads((Path(args.out) / "report.json").read_text(encoding="utf-8")):
        if (s.get("frame_check") or {}).get("warning"):
            print(f"gui-eval grounding-report: {s['task']}: {s['frame_check']['warning']}", file=sys.stderr)
    return 0
