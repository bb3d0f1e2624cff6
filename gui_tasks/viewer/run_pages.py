"""The run pages and the list: each run's metrics with intervals and protocols, its reports, the heatmap, the paired
comparison of two runs (the diff table) and the compact sample index the list pages filter."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_tasks.runs.results_io import RunResults, skipped_rows_notes
from gui_core.viewing import RunView, Table
from gui_tasks.viewer.plugins import builtin
from gui_tasks.viewer.records import LOG_KEYS, OUTCOMES, responses
from gui_tasks.viewer.site_model import (e, Entry, Side, Site, TEXT_CHARS)
from gui_tasks.viewer.sample_pages import (_fmt, _kv, _pre, _sections, table_html)


def _reports(site: Site | None, side: Side, run: RunView) -> str:
    """The tables and reports of each benchmark this side ran (its viewing module's ``gui_viewer_run_reports``, in
    the order of the benchmark registry), then the viewer plugins'; a report that cannot be built says why."""
    plugins = site.plugins if site is not None else builtin()
    viewings = plugins.viewings_of(t.metadata for r in side.runs for t in r.tasks.values())
    out = []
    for block in plugins.run_reports(run, viewings):
        if isinstance(block, Table):
            out.append(table_html(block))
            continue
        try:
            text = block.make()
        except Exception as exc:  # a report that cannot be built from this run says why; the viewer goes on
            text = f"(not available: {exc.__class__.__name__}: {exc})"
        if text and text.strip():
            out.append(f"<details class='report'><summary>{e(block.title)}</summary>{_pre(text)}</details>")
    return "".join(out)


def _lmms_eval_version(run: RunResults) -> str:
    """The lmms-eval package that is installed (the results file records none: its ``lmms_eval_version`` is the git
    branch@commit of the folder lmms-eval ran in, shown beside it)."""
    from gui_tasks.submit.leaderboard import _dist_version

    installed = _dist_version("lmms_eval")
    text = f"{installed} (installed)" if installed else "?"
    return text + (f"; the run's folder was at git {run.lmms_eval_version}" if run.lmms_eval_version else "")


def _protocols(md: Mapping[str, Any], interventions: Sequence[str]) -> tuple[str, str]:
    """(protocol, parser) shown for a task: an imported published run ran its author's prompt, not the task's; it is
    labelled by the file it came from and the answer family it is read as."""
    if md.get("published"):
        pub = md["published"] if isinstance(md["published"], dict) else {}
        return (f"published ({pub.get('format') or 'file'}: the author's own prompt)",
                f"read as {md.get('answer_family') or '?'} ({md.get('strictness') or 'official'})")
    proto = "+".join(p for p in (str(md.get("prompt_protocol") or ""), *interventions) if p)
    return proto, str(md.get("parser_protocol", ""))


def _metric_table(res: Any) -> str:
    """A task's metrics as a compact table (value, ± stderr where the results carry one), defined ones first; the
    undefined (NaN) and format-error ones are left out or folded under one line."""
    defined = [(k, v) for k, v in res.metrics.items() if "format_error" not in k and isinstance(v, (int, float))
               and not math.isnan(v)]
    undefined = sorted(k for k, v in res.metrics.items() if "format_error" not in k and (not isinstance(v, (int, float))
                                                                                          or math.isnan(v)))
    def spread(k: str) -> str:  # the run's 95% interval (docs/statistics.md), else lmms-eval's stderr
        ci = res.interval(k) if hasattr(res, "interval") else None
        if ci is not None:
            return f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"
        return "± " + _fmt(res.stderr[k + "_stderr"]) if k + "_stderr" in res.stderr else ""

    rows = "".join(f"<tr><td>{e(k)}</td><td class='num'>{e(_fmt(v))}</td><td class='num'>{e(spread(k))}</td></tr>"
                   for k, v in defined)
    folded = (f"<details><summary>{len(undefined)} undefined (NaN: no sample in the denominator)</summary>"
              f"{e(', '.join(undefined))}</details>") if undefined else ""
    return (f"<table class='metrics'>{rows}</table>" if rows else "") + folded


def _with_ci(res: Any, metric: str, value: Any) -> str:
    """A figure with its 95% interval when the run recorded one (docs/statistics.md)."""
    ci = res.interval(metric)
    if ci is None:
        return _fmt(value)
    return f"{_fmt(value)} [{_fmt(ci[0])}, {_fmt(ci[1])}]"


def _run_section(side: Side, site: Site | None = None) -> str:
    from gui_tasks.submit.leaderboard import interventions_of

    out = [f"<section class='run' data-side='{side.index}'><h2>Run {side.index + 1}: {e(side.label)}</h2>"]
    for run in side.runs:
        inter = interventions_of(run.model_args)
        out.append(_kv([("results file", run.path), ("backend", run.model), ("checkpoint", run.model_name),
                        ("model args", run.model_args), ("interventions", "+" + "+".join(inter) if inter else "none"),
                        ("lmms-eval", _lmms_eval_version(run)), ("date", run.date or "?"),
                        ("limit", run.limit if run.limit is not None else "none")]))
        rows = []
        for name, res in sorted(run.tasks.items()):
            md = res.metadata
            n = res.n_samples or {}
            proto, parser = _protocols(md, inter)
            fmt = ", ".join(f"{k} {_fmt(v)}" for k, v in sorted(res.metrics.items()) if "format_error" in k)
            rows.append("<tr>" + "".join(f"<td>{e(x)}</td>" for x in (
                name, md.get("benchmark", ""), f"{n.get('effective', '')}/{n.get('original', '')}" if n else "group",
                proto, parser, res.version, fmt)) + f"<td>{_metric_table(res)}</td></tr>")
        out.append("<table class='tasks'><tr><th>task</th><th>benchmark</th><th>samples</th><th>protocol</th><th>parser</th>"
                   "<th>version</th><th>format errors</th><th>metrics</th></tr>" + "".join(rows) + "</table>")
    skipped = [n for b in sorted({str(t.metadata.get("benchmark")) for r in side.runs for t in r.tasks.values()})
               for n in skipped_rows_notes(side.runs, b)]
    if skipped:
        out.append("<ul class='notes skipped'>" + "".join(f"<li>{e(n)}</li>" for n in skipped) + "</ul>")
    views = [x.view for x in site.entries if x.side == side.index and x.view is not None] if site is not None else []
    benches = tuple(dict.fromkeys(str(t.metadata.get("benchmark")) for r in side.runs for t in r.tasks.values()))
    run = RunView(side.label, tuple(side.runs), tuple(views), benches)
    plugin = _sections(site.plugins.run_sections(run)) if site is not None else ""
    out.append(_reports(site, side, run) + plugin + "</section>")
    return "".join(out)


def _score_values(entry: Entry) -> tuple[Any, ...]:
    """What a sample scored: its outcome, finer kind, and every per-sample metric value lmms-eval logged that is not the
    record (numbers, e.g. a task's plain accuracy); the record itself enters through the outcome and kind."""
    plain = sorted((k, v) for k, v in entry.sample.items() if k not in LOG_KEYS and not isinstance(v, (dict, list)))
    return (entry.outcome, entry.kind, tuple((k, _fmt(v)) for k, v in plain))


def _diff(site: Site) -> tuple[list[list[Any]], str]:
    """Per-sample pairs of sides 0 and 1 (same task, same doc id) and the table of metric differences.

    Each pair is ``[number in run 1, number in run 2, outcome change, response changed (0/1), score changed (0/1)]``:
    responses and scores are counted apart (every response may differ while no score does, and the reverse)."""
    a = {(x.task, x.sample.get("doc_id")): x for x in site.entries if x.side == 0}
    b = {(x.task, x.sample.get("doc_id")): x for x in site.entries if x.side == 1}
    pairs = []
    for key in sorted(set(a) & set(b), key=lambda k: (k[0], k[1] if isinstance(k[1], int) else -1)):
        x, y = a[key], b[key]
        change = ("fixed" if x.outcome != "correct" and y.outcome == "correct" else
                  "broken" if x.outcome == "correct" and y.outcome != "correct" else
                  "same" if x.outcome == y.outcome else "changed")
        multi = x.facts.multi_round
        response_changed = responses(x.sample, multi_round=multi) != responses(y.sample, multi_round=multi)
        score_changed = _score_values(x) != _score_values(y)
        pairs.append([x.number, y.number, change, int(response_changed), int(score_changed)])
    counts = diff_counts(pairs)
    summary = (f"{counts['pairs']} samples in both runs: responses changed {counts['responses_changed']}, "
               f"scores changed {counts['scores_changed']}; outcomes: fixed {counts['fixed']}, broken {counts['broken']}, "
               f"changed otherwise {counts['changed']}, same {counts['same']}")
    table = (f"<h2>Differences: run 1 - run 2</h2><p id='diff-summary'>{e(summary)}</p>" + _diff_table(site))
    return pairs, table


def _side_tasks(site: Site, side: int) -> dict[str, Any]:
    """One side's logged samples per task, as ``gui-eval compare`` reads a run (``gui_tasks.reports.compare.TaskSamples``)."""
    from gui_tasks.reports.compare import TaskSamples, _doc_key

    out: dict[str, TaskSamples] = {}
    for x in site.entries:
        if x.side != side:
            continue
        if x.task not in out:
            res = x.run.tasks.get(x.task)
            config = res.config if res is not None else {}
            metrics = [str(m.get("metric")) for m in config.get("metric_list") or [] if isinstance(m, dict)]
            out[x.task] = TaskSamples(x.task, {}, config.get("cluster_key"), metrics)
        out[x.task].samples[_doc_key(x.sample)] = x.sample
    return out


def _diff_table(site: Site) -> str:
    """The paired comparison of ``gui-eval compare RUN1 RUN2`` (run 1 as A, run 2 as B: one sign convention, A - B, in
    compare, the viewer and the reports): per metric and slice, the difference, its 95% interval (paired cluster
    bootstrap), the McNemar or permutation p-value and the Holm-adjusted one."""
    from gui_tasks.reports.compare import compare_tasks

    c = compare_tasks(_side_tasks(site, 0), _side_tasks(site, 1), "run 1", "run 2")
    head = ("task", "metric", "slice", "n", "run 1", "run 2", "run 1 - run 2", "95% CI", "test", "p", f"p ({c.correction})")
    def size(r: Any) -> tuple[bool, float]:  # the largest change first; an undefined difference (NaN) last
        d = r.diff if isinstance(r.diff, (int, float)) else math.nan
        return (math.isnan(d), -abs(d) if not math.isnan(d) else 0.0)

    rows = []
    for r in sorted(c.rows, key=size):
        cells = [r.task, r.metric, r.slice, str(r.n), _fmt(r.a), _fmt(r.b), _fmt(r.diff), f"[{_fmt(r.low)}, {_fmt(r.high)}]",
                 r.test, _fmt(r.p_value), _fmt(r.p_adjusted) + (" *" if r.significant else "")]
        rows.append("<tr" + (" class='significant'" if r.significant else "") + ">"
                    + "".join(("<td class='num'>" if i >= 3 else "<td>") + f"{e(x)}</td>" for i, x in enumerate(cells)) + "</tr>")
    note = (f"95% CI: paired bootstrap over the task's clusters ({c.resamples} resamples, seed {c.seed}); p: exact McNemar "
            f"for 0/1 scores, else paired permutation; adjusted for {len(c.rows)} tests ({c.correction}); * adjusted p < 0.05 "
            "(docs/statistics.md).")
    return ("<table class='diff'><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>" + "".join(rows)
            + f"</table><p class='diff-note'>{e(note)}</p>")


def diff_counts(pairs: Sequence[Sequence[Any]]) -> dict[str, int]:
    """Counts of a diff's pairs (:func:`_diff`): each outcome change, and responses and scores changed, separately."""
    counts = {"pairs": len(pairs), "fixed": 0, "broken": 0, "changed": 0, "same": 0,
              "responses_changed": sum(int(p[3]) for p in pairs), "scores_changed": sum(int(p[4]) for p in pairs)}
    for p in pairs:
        counts[p[2]] += 1
    return counts


def _index_data(site: Site) -> dict[str, Any]:
    """The compact index: value tables and one short row per sample (columns named in ``cols``)."""
    tables: dict[str, list[str]] = {"task": [], "lang": [], "group": [], "kind": []}
    pos: dict[str, dict[str, int]] = {k: {} for k in tables}

    def ref(col: str, value: str) -> int:
        if value not in pos[col]:
            pos[col][value] = len(tables[col])
            tables[col].append(value)
        return pos[col][value]

    rows = []
    for x in site.entries:
        # the response first (the list shows the start of this text), then the item id and the prompt (searched)
        text = " | ".join([" ".join(responses(x.sample))[:TEXT_CHARS], str((x.doc or {}).get("id", x.record.get("id", ""))),
                           str(x.sample.get("input", ""))[:TEXT_CHARS]])
        rows.append([x.side, ref("task", x.task), x.sample.get("doc_id"), ref("lang", x.lang), ref("group", x.group),
                     OUTCOMES.index(x.outcome), ref("kind", x.kind), text])
    return {"cols": ["side", "task", "doc_id", "lang", "group", "outcome", "kind", "text"],
            "sides": [s.label for s in site.sides], "outcomes": list(OUTCOMES), **tables, "rows": rows}


def _list_section(with_diff: bool) -> str:
    selects = "".join(f"<label>{e(t)} <select id='f-{k}'><option value=''>all</option></select></label>"
                      for k, t in (("side", "run"), ("task", "task"), ("lang", "language"), ("group", "dimension / sub-task"),
                                   ("outcome", "outcome"), ("kind", "type")))
    diff = ("<label>diff <select id='f-diff'><option value=''>all</option><option>fixed</option><option>broken</option>"
            "<option>changed</option><option>same</option><option value='response'>response changed</option>"
            "<option value='score'>score changed</option></select></label>") if with_diff else ""
    return ("<section id='samples'><h2>Samples</h2><form id='filters'>" + selects + diff
            + "<label>text <input id='f-text' type='search' placeholder='prompt, response, id'></label>"
            + "<label>sort <select id='f-sort'><option value='task'>task, doc id</option><option value='outcome'>outcome"
            + "</option></select></label></form><p id='count'></p><table id='list'><thead><tr><th>#</th><th>run</th>"
            + "<th>task</th><th>doc</th><th>lang</th><th>group</th><th>outcome</th><th>type</th><th>response | id | prompt</th></tr></thead>"
            + "<tbody></tbody></table><p id='pager'><button id='prev' type='button'>&larr;</button> <span id='page'></span> "
            + "<button id='next' type='button'>&rarr;</button></p></section>")
