"""SPHINX reports in the paper's layouts, from lmms-eval results, and a per-episode trajectory viewer.

Tables (percentages): 4 (SR/ACP per task group, text vs vision), 5 (SR/ACP per observation mode),
6 (knowledge probing, Original/Repaired), 7 (completion judgment: Continue., Stop., Perfect. per modality),
8 (grounding, Original/Repaired per modality), 9 (instruction-following failure rates: repetition and format
error from navigation runs, focused context), and ``star_table5`` (StaR A.4 toggle tasks read per kind: normal,
Verify, composite partial credit; a model that never acts passes every Verify task and nothing else). Modality is
read from each task's observation mode: Tables 4/5 pair "Text" with the full accessibility tree and "Vision" with
the annotated image (Table 5's GPT-4o rows equal Table 4's: 28.7 and 8.6), Table 7 pairs "Vision" with the plain
screenshot, Table 8 with the Set-of-Mark screenshot (``sphinx_grounding_som``: the element ids the grounding answers
name are drawn on it); all are named parameters (``TEXT_MODE``, ``NAV_VISION_MODE``, ``STATIC_VISION_MODE``,
``GROUNDING_VISION_MODE``). A row is a model with the data source (official or synthetic) in brackets, then the
rendering and the agent when they are not the defaults. Runs made with ``--limit`` are noted under every table.
"""

from __future__ import annotations

import argparse
import html
import math
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from gui_core.benchmark import results_names_of
from gui_tasks.reports import letter_bias_report
from gui_tasks.runs.results_io import RunResults, find_result_files, interval_lines, limited_notes, load_results, skipped_rows_notes

TEXT_MODE, NAV_VISION_MODE, STATIC_VISION_MODE, GROUNDING_VISION_MODE = "full_text", "set_of_mark", "screenshot", "set_of_mark"
SOURCES = ("simulator", "device", "official", "synthetic")
MODES = ("simplified_text", "full_text", "set_of_mark", "screenshot")
MODE_TITLES = {"simplified_text": "simplified accessibility tree", "full_text": "full accessibility tree",
               "set_of_mark": "annotated image", "screenshot": "image"}
NAV_GROUPS = {"nav": "Navigation tasks", "toggle": "Toggle tasks (StaR A.4)", "user": "User tasks (device)"}

Cells = dict[str, float]  # column -> value in [0, 1] (NaN when missing)


def _rows(runs: Sequence[RunResults]) -> dict[str, dict[tuple[str, str, str], dict[str, float]]]:
    """kind -> (row label, observation, subset) -> metrics, over every SPHINX task of every run."""
    out: dict[str, dict[tuple[str, str, str], dict[str, float]]] = {}
    for run in runs:
        for t in run.tasks.values():
            md = t.metadata
            if t.is_group or md.get("benchmark") not in results_names_of(__package__):
                continue  # static tasks (their records' task class: static_tasks) have a kind; simulator and device: navigation
            static = md.get("benchmark") in results_names_of(f"{__package__}.static_tasks")
            kind = str(md.get("kind")) if static else "navigation"
            source = str(md.get("source", "simulator")) if kind == "navigation" else str(md.get("source", "?"))
            # the paper-prose twins get their own rows (results from before renderings had names carry none)
            label = f"{run.model_label} [{source}]" + (f" [{md['rendering']}]" if md.get("rendering", "official") != "official" else "")
            label += f" [agent {md['agent']}]" if md.get("agent", "ours") != "ours" else ""  # the official agents: own rows
            label += f" [agent_family {md['agent_family']}]" if md.get("agent_family") else ""  # agents in their own format
            label += " [circular]" if md.get("circular") else ""  # CircularEval (gui_tasks.harness.circular): its own rows
            key = (label, str(md.get("observation", TEXT_MODE)), str(md.get("subset", "")))
            out.setdefault(kind, {}).setdefault(key, {}).update(t.metrics)
    return out


def _pct(v: float | None) -> str:
    return "N/A" if v is None or not isinstance(v, (int, float)) or math.isnan(v) else f"{100 * v:.1f}"


SPLIT_NOTE = ("A value marked (nav), (toggle) or (user) comes from that split task alone: the all-tasks task (`sphinx_sim*`) "
              "was not run, and the rates pool over actions, so the splits are shown side by side, not combined.")
NA_NOTE = "N/A: none of the runs has a task (and observation mode) that measures this cell, or the metric is undefined on it."


def _all_cell(data: Mapping[tuple[str, str, str], dict[str, float]], label: str, mode: str, metric: str) -> str:
    """The all-tasks value of ``metric`` for (label, mode); without an all-tasks run, each split task's own value
    marked with its split (:data:`SPLIT_NOTE`)."""
    if (label, mode, "all") in data:
        return _pct(data[(label, mode, "all")].get(metric))
    parts = [f"{_pct(data[(label, mode, g)].get(metric))} ({g})" for g in NAV_GROUPS if (label, mode, g) in data
             and _pct(data[(label, mode, g)].get(metric)) != "N/A"]
    return " / ".join(parts) or "N/A"


def _notes(table: str) -> str:
    """The footnotes a table needs: the split marker and the N/A reason, when its cells use them."""
    body = table.split("\n", 2)[-1]
    notes = [SPLIT_NOTE] if any(f"({g})" in body for g in NAV_GROUPS) else []
    notes += [NA_NOTE] if "N/A" in body else []
    return table + "".join(f"\nNote: {n}\n" for n in notes)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def _labels(data: Mapping[tuple[str, str, str], Any]) -> list[str]:
    return sorted({k[0] for k in data})


def table4(data: Mapping[tuple[str, str, str], dict[str, float]]) -> str:
    """Rows (modality, model); per task group and All: SR, ACP. "All" is the ``sphinx_sim`` (all) task."""
    groups = [g for g in NAV_GROUPS if g != "user" or any(k[2] == "user" for k in data)] + ["all"]  # device runs: a column
    head = ["Modality", "Model"] + [f"{NAV_GROUPS.get(g, 'All tasks')} {m} (%)" for g in groups for m in ("SR", "ACP")]
    rows = []
    for modality, mode in (("Text", TEXT_MODE), ("Vision", NAV_VISION_MODE)):
        for label in _labels(data):
            if not any((label, mode, g) in data for g in groups):
                continue
            cells = []
            for g in groups:
                m = data.get((label, mode, g), {})
                cells += [_pct(m.get("sphinx_sr")), _pct(m.get("sphinx_acp"))]
            rows.append([modality, label] + cells)
    return _notes(_table(head, rows))


def table5(data: Mapping[tuple[str, str, str], dict[str, float]]) -> str:
    """SR/ACP per observation mode (all simulator tasks)."""
    head = ["Model"] + [f"{MODE_TITLES[m]} {k} (%)" for m in MODES for k in ("SR", "ACP")]
    rows = []
    for label in _labels(data):
        cells = []
        for mode in MODES:  # all simulator tasks; else the split tasks run (device runs: the user tasks), marked
            cells += [_all_cell(data, label, mode, "sphinx_sr"), _all_cell(data, label, mode, "sphinx_acp")]
        rows.append([label] + cells)
    return _notes(_table(head, rows))


def table6(data: Mapping[tuple[str, str, str], dict[str, float]]) -> str:
    head = ["Model", "Goal Understanding Original", "Goal Understanding Repaired", "App Knowledge Original", "App Knowledge Repaired"]
    rows = []
    for (label, _mode, _s), m in sorted(data.items()):
        rows.append([label] + [_pct(m.get(k)) for k in ("sphinx_goal_acc_original", "sphinx_goal_acc_repaired",
                                                         "sphinx_app_acc_original", "sphinx_app_acc_repaired")])
    return _table(head, rows)


def _by_modality(data: Mapping[tuple[str, str, str], dict[str, float]], keys: Sequence[str], titles: Sequence[str],
                 vision: str = STATIC_VISION_MODE) -> str:
    head = ["Model"] + [f"{mod} {t}" for mod in ("Text", "Vision") for t in titles]
    rows = []
    for label in _labels(data):
        cells = []
        for mode in (TEXT_MODE, vision):
            m = data.get((label, mode, ""), {})
            cells += [_pct(m.get(k)) for k in keys]
        rows.append([label] + cells)
    return _table(head, rows)


def table7(data) -> str:
    return _by_modality(data, ("sphinx_continue_acc", "sphinx_stop_acc", "sphinx_perfect"), ("Continue. (%)", "Stop. (%)", "Perfect. (%)"))


def table8(data) -> str:
    return _by_modality(data, ("sphinx_grounding_acc_original", "sphinx_grounding_acc_repaired"), ("Original (%)", "Repaired (%)"),
                        vision=GROUNDING_VISION_MODE)


def _without_source(label: str) -> tuple[str, str]:
    """``(model, rest)`` of a row label ``model [source][ [rendering]][ [agent X]]``: the source bracket taken out."""
    for source in SOURCES:
        head, sep, rest = label.partition(f" [{source}]")
        if sep:
            return head, rest
    return label, ""


def table9(nav: Mapping[tuple[str, str, str], dict[str, float]], focused: Mapping[tuple[str, str, str], dict[str, float]]) -> str:
    """Failure rates (%): repetition and format error of the text-modality navigation runs, focused context.

    Models are matched by name (the bracketed source differs: simulator runs vs the synthetic focused set); a
    navigation row keeps its rendering and agent (``[agent react]``: the official ReAct agent's failures are its own),
    the focused-context column is the model's (it has no agent)."""
    label_of = {"".join(_without_source(lab)): lab for (lab, mode, _sub) in nav if mode == TEXT_MODE}
    focus = {_without_source(lab)[0]: m for (lab, _mode, _s), m in focused.items()}
    model_of = {"".join(_without_source(lab)): _without_source(lab)[0] for (lab, _m, _s) in nav}
    names = sorted(set(model_of) | set(focus))
    rows = []
    for name in names:
        f = focus.get(model_of.get(name, name), {})
        lab = label_of.get(name)
        nav_cells = [_all_cell(nav, lab, TEXT_MODE, k) if lab else "N/A"
                     for k in ("sphinx_repetition_rate", "sphinx_format_error_rate")]
        rows.append([name, *nav_cells, _pct(f.get("sphinx_focused_failure_rate"))])
    return _notes(_table(["Model", "Repetition", "Format Error", "Focused Context"], rows))


def star_table5(data: Mapping[tuple[str, str, str], dict[str, float]]) -> str:
    """StaR A.4 toggle tasks per kind (%), per model and observation: normal tasks' SR, Verify tasks' SR (a model that
    never acts scores 100 there and 0 on normal tasks), composite tasks' mean success with partial credit, the mean
    success of all toggle tasks (A.4's score, = ACP) and the format-error rate. Read from the toggle tasks
    (``sphinx_sim_toggle*``), else from the all-tasks runs (the per-kind metrics count toggle episodes only)."""
    head = ["Model", "Observation", "Normal SR (%)", "Verify SR (%)", "Composite (%)", "All toggle tasks (%)", "Format Error (%)"]
    rows = []
    for label in _labels(data):
        for mode in MODES:
            m = data.get((label, mode, "toggle"))
            if m is None and any(k in data.get((label, mode, "all"), {}) for k in ("toggle_normal_sr", "toggle_verify_sr")):
                m = {k: v for k, v in data[(label, mode, "all")].items() if k.startswith("toggle_")}
            if m is None:
                continue
            rows.append([label, MODE_TITLES[mode], _pct(m.get("toggle_normal_sr")), _pct(m.get("toggle_verify_sr")),
                         _pct(m.get("toggle_composite_score")), _pct(m.get("sphinx_acp")), _pct(m.get("sphinx_format_error_rate"))])
    return _table(head, rows)


def build_report(runs: Sequence[RunResults]) -> dict[str, str]:
    """Table name -> markdown, for the tables the runs have data for."""
    by = _rows(runs)
    out = {}
    if "navigation" in by:
        out["table4"], out["table5"] = table4(by["navigation"]), table5(by["navigation"])
        if any(sub in ("toggle", "all") for (_l, _m, sub) in by["navigation"]):
            out["star_table5"] = star_table5(by["navigation"])
    if "knowledge" in by:
        out["table6"] = table6(by["knowledge"])
    if "completion" in by:
        out["table7"] = table7(by["completion"])
    if "grounding" in by:
        out["table8"] = table8(by["grounding"])
    if "navigation" in by or "focused" in by:
        out["table9"] = table9(by.get("navigation", {}), by.get("focused", {}))
    bias = letter_bias(runs)
    if bias:
        out["letter_bias"] = letter_bias_report.render_text(bias, "acc")
    return out


def letter_bias(runs: Sequence[RunResults]) -> list[letter_bias_report.BiasRow]:
    """Letter-bias rows of knowledge probing (A-D and T/F) and completion judgment (continue/stop)."""
    rows = []
    for prefix, kind in (("sphinx_probe", "knowledge"), ("sphinx_completion", "completion")):
        rows += letter_bias_report.collect(runs, prefix, f"{prefix}_acc",
                                           lambda task, res, k=kind: res.metadata.get("benchmark") in results_names_of(f"{__package__}.static_tasks")
                                           and res.metadata.get("kind") == k)
    return rows


def draw_capabilities(runs: Sequence[RunResults], path: Path) -> bool:
    """Figure 2's view: per model, the five capabilities and end-to-end SR as grouped bars (text modality)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = _rows(runs)

    def pick(kind: str, metric: str, mode: str | None = TEXT_MODE, subset: str | None = None) -> dict[str, float]:
        vals = {}
        for (label, m, s), ms in by.get(kind, {}).items():
            if (mode is None or m == mode) and (subset is None or s == subset) and metric in ms:
                vals[label.rsplit(" [", 1)[0]] = ms[metric]
        return vals

    axes = {"Goal understanding": pick("knowledge", "sphinx_goal_acc_repaired", None),
            "App knowledge": pick("knowledge", "sphinx_app_acc_repaired", None),
            "Planning (Perfect.)": pick("completion", "sphinx_perfect"),
            "Grounding": pick("grounding", "sphinx_grounding_acc_original"),
            "Instruction following": {k: 1 - v for k, v in pick("focused", "sphinx_focused_failure_rate", None).items()},
            "End-to-end SR": pick("navigation", "sphinx_sr", TEXT_MODE, "all") or pick("navigation", "sphinx_sr", TEXT_MODE, "nav")}
    models = sorted({m for v in axes.values() for m in v})
    if not models:
        return False
    fig, ax = plt.subplots(figsize=(1.6 * len(axes) + 2, 3.6))
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        ys = [100 * axes[a].get(model, float("nan")) for a in axes]
        xs = [j + i * width for j in range(len(axes))]
        bars = ax.bar(xs, [0 if math.isnan(y) else y for y in ys], width, label=model)
        for x, y, bar in zip(xs, ys, bars):  # a missing value is marked, never drawn as a 0 % bar
            if math.isnan(y):
                ax.text(x, 1, "n/a", ha="center", va="bottom", rotation=90, fontsize=7, color=bar.get_facecolor())
            elif y == 0:
                ax.plot([x - width / 2, x + width / 2], [0, 0], color=bar.get_facecolor(), linewidth=3)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(axes))], list(axes), rotation=15, fontsize=8)
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title("SPHINX capabilities (text modality; n/a: not measured by these runs)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --- trajectory viewer ---------------------------------------------------------------------------------
def trajectory_viewer(doc: Mapping[str, Any], outputs: Sequence[str], out: Path) -> tuple[Path, Path]:
    """A PNG strip of the episode's screens (the action taken drawn on each) and an HTML page beside it.

    ``doc``: a navigation document (``id``, ``observation``, ``rendering``, ``max_steps``, ``on_format_error``)."""
    from PIL import Image, ImageDraw

    from gui_tasks.sphinx.lmms_task import _task, read_output
    from gui_tasks.sphinx.simulator import Simulator, resolve

    sim = Simulator()
    obs = sim.reset(_task(doc).initial)
    frames, captions = [], []
    for text in list(outputs)[: doc.get("max_steps", len(outputs))]:
        img = obs.screenshot().convert("RGB") if len(frames) < MAX_STRIP_FRAMES else None
        d = ImageDraw.Draw(img) if img is not None else None
        status, act = read_output(doc, text, obs)  # as the document's agent read it
        captions.append(f"{status}: {str(text).strip().splitlines()[-1][:60] if str(text).strip() else ''}")
        if img is not None:
            frames.append(img)
        if act is None:
            if doc.get("on_format_error", "stop") == "stop":
                break
            continue
        sim_act = resolve(obs, act, doc.get("rendering", "paper-prose"))
        target = None
        if isinstance(sim_act.get("element"), str) and sim_act["element"] != "__missing__":
            target = obs.screen.get(sim_act["element"]).box
        if d is None:  # past the strip's frames: the caption only
            pass
        elif target:
            d.rectangle(target, outline=(230, 30, 30), width=3)
        elif "point" in act:
            x, y = act["point"]
            d.ellipse((x - 8, y - 8, x + 8, y + 8), outline=(230, 30, 30), width=3)
        if act["type"] == "stop":
            break
        obs = sim.act(sim_act)
    frames.append(obs.screenshot().convert("RGB"))
    captions.append("final screen")
    shown = list(range(len(frames) - 1)) + [len(captions) - 1]  # the caption index of each frame in the strip
    w, h = frames[0].size
    strip = Image.new("RGB", (w * len(frames), h + 24), "white")
    d = ImageDraw.Draw(strip)
    for k, (f, at) in enumerate(zip(frames, shown)):
        strip.paste(f, (k * w, 24))
        d.text((k * w + 4, 4), f"{at}: {captions[at]}"[:48], fill=(0, 0, 0))
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    strip.save(png)
    page = out.with_suffix(".html")
    items = "".join(f"<li>{html.escape(c)}</li>" for c in captions)
    page.write_text(f"<html><body><h1>{html.escape(str(doc['id']))} ({html.escape(str(doc.get('observation', '')))})</h1>"
                    f"<img src='{png.name}'><ol start='0'>{items}</ol></body></html>", encoding="utf-8")
    return png, page


MAX_STRIP_FRAMES = 48  # screens drawn in a trajectory's strip (every step keeps its caption): memory stays bounded
MAX_TRAJECTORY_BYTES = 16 << 20  # a trajectory file is a few KiB; larger is not one the navigation tasks wrote


def read_trajectory(path: Path) -> dict[str, Any]:
    """A trajectory file as the navigation tasks write it, checked: an object with an ``id`` (text or a number) and
    ``outputs`` (a list of texts), optional fields of their types; ``DataError`` naming the file and field."""
    from gui_core.bounds import BoundError, loads
    from gui_core.errors import DataError
    from gui_tasks.runs.input_files import read_text

    try:
        saved = loads(read_text(path, max_bytes=MAX_TRAJECTORY_BYTES))
    except BoundError as exc:
        raise DataError(str(exc), file=str(path), field="<file>") from None
    except ValueError as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"invalid JSON ({str(exc)[:200]})", file=str(path), field="<file>") from None
    if not isinstance(saved, dict):
        raise DataError(f"a JSON {type(saved).__name__}, not a trajectory object", file=str(path), field="<file>")
    if isinstance(saved.get("id"), bool) or not isinstance(saved.get("id"), (str, int)):
        raise DataError("expected the episode's id (text)", file=str(path), field="id")
    outputs = saved.get("outputs")
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise DataError("expected a list of the model's outputs (texts)", file=str(path), field="outputs")
    for field in ("observation", "on_format_error", "rendering", "agent", "agent_family"):
        if saved.get(field) is not None and not isinstance(saved[field], str):
            raise DataError(f"expected text, got {type(saved[field]).__name__}", file=str(path), field=field)
    return saved


def render_trajectories(folder: Path, out: Path) -> list[Path]:
    """One viewer per trajectory file written by the navigation tasks, plus an ``index.html``. A file that cannot be
    read or replayed is named on stderr (one line) and gets no page; the others are rendered."""
    pages = []
    for f in sorted(Path(folder).glob("*.json")):
        try:
            saved = read_trajectory(f)
            doc = {"id": saved["id"], "observation": saved.get("observation") or TEXT_MODE,
                   "max_steps": len(saved["outputs"]), "on_format_error": saved.get("on_format_error") or "stop",
                   "rendering": saved.get("rendering") or "paper-prose",  # files from before renderings had names
                   "agent": saved.get("agent") or "ours",
                   **({"agent_family": saved["agent_family"]} if saved.get("agent_family") else {})}
            _png, page = trajectory_viewer(doc, saved["outputs"], out / f.stem)
        except Exception as exc:  # noqa: BLE001 - one broken trajectory costs its page
            from gui_core.sample_faults import describe_fault

            print(f"gui-eval sphinx-report: {f}: {describe_fault('trajectory not rendered', exc)}", file=sys.stderr)
            continue
        pages.append(page)
    out.mkdir(parents=True, exist_ok=True)
    links = "".join(f"<li><a href='{p.name}'>{html.escape(p.stem)}</a></li>" for p in pages)
    (out / "index.html").write_text(f"<html><body><h1>SPHINX trajectories</h1><ul>{links}</ul></body></html>", encoding="utf-8")
    return pages


TRAJECTORIES = "sphinx_trajectories"  # the run's folder of trajectory files (gui_tasks.sphinx.lmms_task)


def run_trajectory_folders(runs: Sequence[Any]) -> list[Path]:
    """Each run's own trajectory folder: ``<--output_path>/sphinx_trajectories`` beside its results file (lmms-eval
    writes ``<--output_path>/<model>/<date>_results.json``), once per folder."""
    found: dict[Path, None] = {}
    for run in runs:
        for base in (run.path.parent, run.path.parent.parent):
            if (base / TRAJECTORIES).is_dir() and not (base / TRAJECTORIES).is_symlink():
                found.setdefault((base / TRAJECTORIES).resolve())
                break
    return list(found)


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval sphinx-report PATH... [--out DIR] [--trajectories [DIR]]``."""
    ap = argparse.ArgumentParser(prog="gui-eval sphinx-report", description="SPHINX Tables 4-9, StaR Table 5 toggle tasks per "
                                 "kind, capability chart, trajectory viewer.")
    ap.add_argument("paths", nargs="*", help="lmms-eval *_results.json files or folders holding them (searched recursively)")
    ap.add_argument("--out", default=None, help="write table4.md ... table9.md and capabilities.png into this folder")
    ap.add_argument("--trajectories", nargs="?", const="", default=None,
                    help="render trajectory files into OUT/trajectories: those of this folder, or (no value) each given "
                         "run's own (navigation tasks write them to <--output_path>/sphinx_trajectories)")
    args = ap.parse_args(argv)
    if not args.paths and not args.trajectories:
        ap.error("give results paths, --trajectories DIR, or both")
    try:
        runs = [load_results(p) for p in find_result_files(args.paths)] if args.paths else []
    except ValueError as exc:
        print(f"gui-eval sphinx-report: {exc}", file=sys.stderr)
        return 2
    tables = build_report(runs)
    if args.paths and not tables:
        print(f"gui-eval sphinx-report: no SPHINX result in {', '.join(args.paths)} ({len(runs)} results file(s))", file=sys.stderr)
        return 1
    notes = skipped_rows_notes(runs, "sphinx") + limited_notes(runs, ("sphinx", "sphinx_sim"))
    for name, md in tables.items():
        print(f"### {name}\n{md}")
    for n in notes:  # printed once under all the tables; each written table file carries them (it stands alone)
        print(f"Note: {n}")
    if notes:  # a table over a copy with skipped rows (or a --limit run) is not the benchmark's: every file says so
        tables = {name: md + "".join(f"\nNote: {n}\n" for n in notes) for name, md in tables.items()}
    for line in interval_lines(runs, ("sphinx", "sphinx_sim")):
        print(line)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, md in tables.items():
            (out / f"{name}.md").write_text(md, encoding="utf-8")
        if runs and draw_capabilities(runs, out / "capabilities.png"):
            print(f"wrote {out / 'capabilities.png'}")
        bias = letter_bias(runs)
        if bias:
            letter_bias_report.draw(bias, out / "letter_bias.png")
            print(f"wrote {out / 'letter_bias.png'}")
        if args.trajectories:
            pages = render_trajectories(Path(args.trajectories), out / "trajectories")
            print(f"wrote {len(pages)} trajectory pages to {out / 'trajectories'}")
        elif args.trajectories == "":
            folders = run_trajectory_folders(runs)
            for folder in folders:  # one run: OUT/trajectories; several: one folder per run
                dest = out / "trajectories" if len(folders) == 1 else out / "trajectories" / folder.parent.name
                pages = render_trajectories(folder, dest)
                print(f"wrote {len(pages)} trajectory pages of {folder} to {dest}")
            if not folders:
                print("gui-eval sphinx-report: the runs given hold no sphinx_trajectories folder", file=sys.stderr)
    elif args.trajectories is not None:
        print("gui-eval sphinx-report: --trajectories needs --out", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
