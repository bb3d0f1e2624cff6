"""``gui-eval summary RUN... [--format md|csv|tex]``: what ran, with its headline figures, and what did not, with why.

lmms-eval exits 0 when a task fails and still writes a results file that holds only the task's alias; the reason sits
in the task's ``metadata.not_run`` (``gui_tasks.harness.lmms_rows``). This command reads every results file under the given
paths and prints, per task, its headline figures (the first metric of its ``metric_list``, its format-error rate
when it has one and, for a thinking model, its mean ``reasoning_tokens`` and ``thinking_truncated`` share) with the recorded 95% interval (cluster bootstrap, ``gui_tasks.harness.lmms_stats``) and n; then every task
that did not run with its one reason. It exits 1 when any task did not run, so scripts and CI can stop on it.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gui_core.errors import DataError
from gui_tasks.runs.results_io import (
    RunResults,
    TaskResult,
    find_result_files,
    is_finite,
    load_results,
)

FORMATS = ("md", "csv", "tex")


@dataclass(frozen=True)
class Row:
    run: str
    task: str
    metric: str
    value: float
    low: float | None
    high: float | None
    n: int | None


def headline_metrics(res: TaskResult) -> list[str]:
    """The task's headline figures: the first metric of its ``metric_list``, then its format-error rate (if any)."""
    from gui_tasks.harness.lmms_stats import headline_names

    from gui_core.reasoning import REASONING_TOKENS, THINKING_TRUNCATED

    names = headline_names(res.config.get("metric_list"), res.metrics) or sorted(res.metrics)[:1]
    # a thinking run (gui_core.reasoning): the mean reasoning length and the share cut by the budget, per task
    return names + [m for m in (REASONING_TOKENS, THINKING_TRUNCATED) if m in res.metrics and m not in names]


def not_run_reason(res: TaskResult) -> str | None:
    """Why a task did not run (its ``metadata.not_run``), or that it has no figures at all; None when it ran."""
    why = res.metadata.get("not_run")
    if why:
        return " ".join(str(why).split())
    if not res.metrics:
        return "no figures in the results file (the run's log names the reason)"
    return None


def run_labels(runs: Sequence[RunResults]) -> list[str]:
    """Each run's label: its model label (checkpoint and the settings that change results), and where two runs share
    one (two runs of one checkpoint), the run's results file, as a path below the folder the runs share, added."""
    import os
    from collections import Counter

    from gui_tasks.runs.results_io import RESULTS_SUFFIX

    count = Counter(run.model_label for run in runs)
    paths = [os.path.abspath(run.path) for run in runs]
    common = os.path.commonpath(paths) if len(paths) > 1 else os.path.dirname(paths[0]) if paths else ""
    common = common if os.path.isdir(common) else os.path.dirname(common)
    out = []
    for run, path in zip(runs, paths):
        where = os.path.relpath(path, common).removesuffix(RESULTS_SUFFIX)
        out.append(run.model_label if count[run.model_label] == 1 else f"{run.model_label} ({where})")
    return out


def summarize(runs: Sequence[RunResults]) -> tuple[list[Row], list[tuple[str, str, str]]]:
    """(figures, did-not-run) over the runs: rows per task's headline metric; (run, task, reason) per task not run."""
    rows, missing = [], []
    for run, label in zip(runs, run_labels(runs)):
        for name, res in sorted(run.tasks.items()):
            if res.is_group:
                continue
            why = not_run_reason(res)
            if why:
                missing.append((label, name, why))
                continue
            n = (res.n_samples or {}).get("effective")
            for metric in headline_metrics(res):
                value = res.metrics[metric]
                ci = res.interval(metric)
                rows.append(Row(label, name, metric, value, ci[0] if ci else None, ci[1] if ci else None,
                                n if isinstance(n, int) else None))
    return rows, missing


def _num(value: float | None) -> str:
    return f"{value:.4f}" if value is not None and is_finite(value) else "n/a"


def render(rows: Sequence[Row], missing: Sequence[tuple[str, str, str]], fmt: str) -> str:
    """The table in ``fmt`` (md, csv, tex), then the did-not-run list (md, tex: a list after the table; csv: rows
    with an empty value and the reason)."""
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["run", "task", "metric", "value", "ci95_low", "ci95_high", "n", "not_run"])
        for r in rows:
            w.writerow([r.run, r.task, r.metric, r.value, "" if r.low is None else r.low, "" if r.high is None else r.high,
                        "" if r.n is None else r.n, ""])
        for run, task, why in missing:
            w.writerow([run, task, "", "", "", "", "", why])
        return buf.getvalue()
    head = ("run", "task", "metric", "value", "95% interval", "n")
    cells = [(r.run, r.task, r.metric, _num(r.value),
              f"[{_num(r.low)}, {_num(r.high)}]" if r.low is not None else "n/a", str(r.n) if r.n is not None else "?")
             for r in rows]
    if fmt == "tex":
        esc = lambda s: s.replace("\\", "\\textbackslash{}").replace("_", "\\_").replace("%", "\\%").replace("&", "\\&")
        lines = ["\\begin{tabular}{lllrlr}", "\\hline", " & ".join(esc(h) for h in head) + " \\\\", "\\hline"]
        lines += [" & ".join(esc(c) for c in row) + " \\\\" for row in cells]
        lines += ["\\hline", "\\end{tabular}"]
        if missing:
            lines += ["", "% did not run:"] + [f"% {run} {task}: {why}" for run, task, why in missing]
        return "\n".join(lines) + "\n"
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    if missing:
        lines += ["", f"did not run ({len(missing)}):"] + [f"- {task} ({run}): {why}" for run, task, why in missing]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gui-eval summary", description="Headline figures with 95% intervals and n per "
                                 "task, then every task that did not run with its reason; exit 1 when any did not run.")
    ap.add_argument("runs", nargs="+", help="results files or run folders (lmms-eval --output_path)")
    ap.add_argument("--format", choices=FORMATS, default="md")
    args = ap.parse_args(argv)
    files = find_result_files(args.runs)
    if not files:
        print(f"gui-eval summary: no lmms-eval results file under {', '.join(args.runs)}", file=sys.stderr)
        return 2
    try:
        results = [load_results(f) for f in files]
    except DataError as exc:  # a broken results file: named in one line, as the other reports do, no traceback
        print(f"gui-eval summary: {exc}", file=sys.stderr)
        return 2
    rows, missing = summarize(results)
    sys.stdout.write(render(rows, missing, args.format))
    if missing:
        print(f"gui-eval summary: {len(missing)} task(s) did not run: {', '.join(t for _, t, _ in missing)}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
