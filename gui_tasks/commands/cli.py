"""``gui-eval``: the harness's own commands (demo, data, checkpoints, reports, submissions)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from gui_core.paths import cache_dir
from gui_models.tiny_model import DEFAULT_FAMILY as TINY_DEFAULT, FAMILIES as TINY_FAMILIES
from gui_tasks.synth.splits import SPLITS

DEMO_TASKS = ("mpr_gui_synth_zh", "mpr_gui_synth_en")
# A second, small run so the demo's viewer has a grounding, a StaR and a SPHINX simulator sample to draw on.
DEMO_VIEW_TASKS = ("icon_localization_synth", "star_state_control_synth", "sphinx_sim_toggle")


def _make_tiny_model(args: argparse.Namespace) -> int:
    from gui_models.tiny_model import build_tiny_model

    if args.grounding:
        from gui_models.tiny_grounding import build_tiny_grounding_model

        if args.family != TINY_DEFAULT:
            raise SystemExit(f"--grounding builds a {TINY_DEFAULT} checkpoint")
        out = build_tiny_grounding_model(Path(args.dir), seed=args.seed)
    else:
        out = build_tiny_model(Path(args.dir), family=args.family, seed=args.seed)
    print(out)
    return 0


def _synth(args: argparse.Namespace) -> int:
    langs = tuple(args.langs.split(",")) if args.langs else None
    if args.benchmark == "knowledge":
        from gui_tasks.knowledge.synth import build_knowledge_synth as build, load_or_build

        kwargs = {"seed": args.seed, "per_subtask": args.per_dimension, "split": args.split, **({"langs": langs} if langs else {})}
    else:
        from gui_tasks.mpr.synth import build_mpr_synth as build, load_or_build

        kwargs = {"seed": args.seed, "per_dimension": args.per_dimension, "split": args.split, **({"langs": langs} if langs else {})}
    files = build(Path(args.out), **kwargs) if args.out else load_or_build(**kwargs)
    for lang, path in files.items():
        print(f"{lang}\t{path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from gui_tasks.reports.compare import main

    return main(args.rest)


def _xli(args: argparse.Namespace) -> int:
    from gui_tasks.mpr.xli.cli import main

    return main(args.rest)


def _import(args: argparse.Namespace) -> int:
    from gui_tasks.grounding.published import main

    return main(args.rest)


def _submit(args: argparse.Namespace) -> int:
    from gui_tasks.submit.leaderboard import main

    return main(args.rest)


def _view(args: argparse.Namespace) -> int:
    from gui_tasks.viewer.site import main

    return main(args.rest)


def _validate(args: argparse.Namespace) -> int:
    from gui_tasks.submit.leaderboard import validate_main

    return validate_main(args.rest)


def _verify(args: argparse.Namespace) -> int:
    from gui_tasks.submit.verify import main

    return main(args.rest)


def _hook(args: argparse.Namespace) -> int:
    from gui_tasks.harness.lmms_integration import install_lmms_hook

    path = install_lmms_hook(remove=args.remove)
    print(("removed " if args.remove else "wrote ") + str(path))
    return 0


def _tasks_path(args: argparse.Namespace) -> int:
    from gui_tasks.harness.lmms_integration import yaml_tasks_dir

    print(yaml_tasks_dir())
    return 0


def _benchmarks(args: argparse.Namespace) -> int:
    """``gui-eval benchmarks [--json]``: every benchmark record (gui_core.benchmark), built-in and plugins' alike."""
    import json

    from gui_core.benchmark import BENCHMARKS, describe

    rows = [describe(b) for b in BENCHMARKS.values()]
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    for r in rows:
        data = r["data"]["env"] and f"${r['data']['env']}" or f"generated ({r['data']['generated']})"
        check = r["data_check"].get("command", "-") if r["data_check"] else "-"
        print(f"{r['name']}\t{r['title']}\t{len(r['tasks'])} tasks\t{data}\t{r['report']['command']}\t{check}")
    return 0


def _metrics(args: argparse.Namespace) -> int:
    from gui_metrics import all_metrics, plugin_failures

    from gui_metrics.manager import metric_owner

    for name, spec in sorted(all_metrics(fresh=True).items()):  # a plugin left out is printed to stderr while loading
        kinds = ",".join(sorted(spec.applies_to))
        print(f"{name}\t{'higher' if spec.higher_is_better else 'lower'}\t{kinds}\t{spec.description}\t{metric_owner(name)}")
    failures = plugin_failures()
    if failures:
        print(f"gui-eval metrics: {len(failures)} plugin(s) left out: {', '.join(f.plugin for f in failures)}", file=sys.stderr)
    return 1 if failures else 0


def _interventions(args: argparse.Namespace) -> int:
    """``gui-eval interventions``: name, distribution and entry point, first docstring line; broken ones on stderr."""
    import inspect

    from gui_core.plugin_groups import entry_points
    from gui_interventions.manager import GROUP, _dist_name, _is_own, _load_all

    found, broken = _load_all()
    where: dict[str, str] = {}
    for ep in sorted(entry_points(GROUP), key=lambda e: not _is_own(e)):  # a built-in keeps its name
        where.setdefault(ep.name, f"{_dist_name(ep)}: {ep.value}")
    for name, factory in sorted(found.items()):
        doc = (inspect.getdoc(factory) or "").split("\n", 1)[0]
        print(f"{name}\t{where.get(name, '?')}\t{doc}")
    for name, reason in sorted(broken.items()):
        print(f"gui-eval interventions: {name}: {reason}", file=sys.stderr)
    if broken:
        print(f"gui-eval interventions: {len(broken)} intervention(s) broken or left out: {', '.join(sorted(broken))}",
              file=sys.stderr)
    return 1 if broken else 0


def _data_check(args: argparse.Namespace) -> int:
    """``gui-eval data check BENCHMARK [DIR]``: documents per task against the published counts, every bad row."""
    from gui_tasks.harness.data_check import checkers, load_checker, error_lines
    from gui_core.errors import ConfigError, DataError

    try:
        checker = load_checker(args.benchmark)
    except (ImportError, AttributeError) as exc:
        print(f"gui-eval data check: no checker for {args.benchmark!r} in this installation ({checkers()[args.benchmark]}: "
              f"{exc.__class__.__name__}: {exc})", file=sys.stderr)
        return 2
    try:
        check = checker(Path(args.dir) if args.dir else None)
    except (DataError, ConfigError) as exc:  # no local copy (an unset variable) and no hub access, for instance
        print(f"gui-eval data check: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a fault in the copy is named, never a traceback
        from gui_core.sample_faults import describe_fault

        print(f"gui-eval data check: {describe_fault(f'reading the {args.benchmark} copy', exc)}", file=sys.stderr)
        return 2
    if not args.no_images:
        check.decode_images()
    print(f"{check.benchmark}: {check.root}")
    width = max([len(c.task) for c in check.counts] + [4])
    print(f"  {'task':<{width}}  {'found':>7}  {'expected':>8}")
    differ = 0
    for c in check.counts:
        expected = f"{c.expected:,}" if c.expected is not None else "-"
        if c.expected is None:
            note = c.source
        elif c.ok:
            note = "ok"
        else:
            differ += 1
            note = ("partial copy: " if args.partial else "DIFFERS: ") + f"{c.found - c.expected:+,} ({c.source})"
        print(f"  {c.task:<{width}}  {c.found:>7,}  {expected:>8}  {note}")
    for note in check.notes:
        print(f"  {note}")
    if check.images_decoded is not None:
        print(f"  screenshots fully decoded: {check.images_decoded:,} of {len(check.images):,}")
    if check.errors:  # alike problems once, with their count
        print("\n".join(error_lines(check.errors, args.max_errors)))
    failed = bool(check.errors) or (differ and not args.partial)
    reasons = [f"{len(check.errors)} problem(s)"] if check.errors else []
    reasons += [f"{differ} count(s) differ from the published ones"] if differ and not args.partial else []
    print("result: " + ("FAILED (" + ", ".join(reasons) + ")" if failed else
                        "OK" + (" (partial copy: counts not compared)" if args.partial and differ else "")))
    return 1 if failed else 0


def _data_fetch(args: argparse.Namespace) -> int:
    """``gui-eval data fetch NAME [--to DIR] [--revision R]``: the record's hub release, verified (gui_core.hub_fetch)."""
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch, hub_cache, print_pins
    from gui_core.errors import ConfigError, DataError

    try:
        spec = hub_data(args.benchmark)
        got = fetch(spec, revision=args.revision, to=Path(args.to) if args.to else None)
    except (DataError, ConfigError) as exc:
        print(f"gui-eval data fetch: {exc}", file=sys.stderr)
        return 2
    for w in got.warnings:
        print(f"gui-eval data fetch: warning: {w}", file=sys.stderr)
    rel = spec.release
    print(f"{spec.name}: {rel.repo_id} at commit {got.commit} ({len(got.files)} file(s) verified; downloaded "
          f"{len(got.downloaded)}, the rest were already in {hub_cache()})")
    if args.print_pins:
        print(print_pins(got))
    print(f"copy (read by the tasks): {got.root}")
    print(f"export {spec.env}={got.root}" + ("" if args.to else f"   # optional: with ${spec.env} unset the tasks "
                                                                   "find this copy themselves"))
    return 0


def lmms_eval_command(model_args: str, tasks: Sequence[str], out: Path, *, limit: int | None, model: str = "gui_hf",
                      batch_size: int = 1, extra: Sequence[str] = ()) -> list[str]:
    """The ``python -m lmms_eval`` command line the demo and tests run."""
    cmd = [sys.executable, "-m", "lmms_eval", "--model", model, "--model_args", model_args, "--tasks", ",".join(tasks),
           "--batch_size", str(batch_size), "--output_path", str(out), "--log_samples", "--verbosity", "WARNING"]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    return cmd + list(extra)


def find_results(out: Path) -> list[Path]:
    """lmms-eval's ``*_results.json`` files under ``out`` (the CLI exits 0 even when a run failed)."""
    return sorted(out.rglob("*_results.json"))


def _demo(args: argparse.Namespace) -> int:
    from gui_models.tiny_model import build_tiny_model
    from gui_tasks.mpr.synth import load_or_build

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    os.environ.update({k: env[k] for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")})
    ckpt = Path(args.checkpoint) if args.checkpoint else cache_dir() / "tiny-qwen2-vl"
    if args.checkpoint and not (ckpt / "config.json").is_file():
        print(f"[demo] {ckpt} is not a checkpoint folder (no config.json)", file=sys.stderr)
        return 2
    if not (ckpt / "config.json").is_file():
        print(f"[demo] building tiny checkpoint in {ckpt}", flush=True)
        build_tiny_model(ckpt, family=TINY_DEFAULT, seed=0)
    print("[demo] building the synthetic MPR-GUI set (cached after the first run)", flush=True)
    load_or_build(seed=0, per_dimension=8)
    out = Path(args.out)
    before = set(find_results(out))
    cmd = lmms_eval_command(f"pretrained={ckpt},device=cpu", args.tasks.split(","), out, limit=args.limit)
    print("[demo] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env)
    new = [p for p in find_results(out) if p not in before]
    if proc.returncode != 0 or not new:
        print(f"[demo] lmms-eval failed (exit {proc.returncode}, {len(new)} new result files in {out})", file=sys.stderr)
        return 1
    results = json.loads(new[-1].read_text(encoding="utf-8"))
    missing = [t for t in args.tasks.split(",") if t not in results.get("results", {})]
    if missing:
        print(f"[demo] lmms-eval wrote {new[-1]} without results for {missing}", file=sys.stderr)
        return 1
    from gui_tasks.mpr.report import main as report_main

    rc = report_main([str(new[-1]), "--out", str(out / "report")])
    if rc:
        return rc
    shown = [new[-1]]
    if args.view_tasks:
        view_tasks = args.view_tasks.split(",")
        before = set(find_results(out))
        cmd = lmms_eval_command(f"pretrained={ckpt},device=cpu", view_tasks, out, limit=args.view_limit,
                                extra=["--gen_kwargs", "max_new_tokens=32"])
        print("[demo] for the viewer: " + " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, env=env)
        more = [p for p in find_results(out) if p not in before]
        got = json.loads(more[-1].read_text(encoding="utf-8")).get("results", {}) if more else {}
        if proc.returncode != 0 or [t for t in view_tasks if t not in got]:
            print(f"[demo] lmms-eval failed on {view_tasks} (exit {proc.returncode}, results for {sorted(got)})", file=sys.stderr)
            return 1
        shown.append(more[-1])
    from gui_tasks.submit.leaderboard import _quiet_lmms_eval
    from gui_tasks.viewer.site import build_site

    _quiet_lmms_eval()
    build_site([shown], out / "view")
    print(f"[demo] viewer: open file://{(out / 'view' / 'index.html').resolve()}  (gui-eval view {out} --out DIR for every run)")
    return 0


def _add_reports(sub: argparse._SubParsersAction) -> None:
    """One sub-command per report the benchmark records name (``gui_core.benchmark.Report``: built-in and plugins'
    alike), its older names as aliases; the report's own parser reads every argument."""
    from gui_core.benchmark import report_commands, resolve

    for name, report in report_commands().items():
        if name != report.command:
            continue  # an alias: added with its command
        taken = [n for n in (name, *report.aliases) if n in sub.choices]
        if taken:  # a plugin's report must not shadow a command: named, left out
            print(f"gui-eval: WARNING: report {report.main} left out: command {taken[0]!r} is taken", file=sys.stderr)
            continue
        s = sub.add_parser(name, aliases=list(report.aliases), help=report.help or f"the report of {report.main}")
        s.add_argument("rest", nargs=argparse.REMAINDER)
        s.set_defaults(func=lambda a, main=report.main: resolve(main)(a.rest))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gui-eval", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("demo", help="offline end-to-end run: tiny checkpoint + synthetic MPR-GUI + report + viewer")
    s.add_argument("--out", default="runs/demo")
    s.add_argument("--tasks", default=",".join(DEMO_TASKS))
    s.add_argument("--limit", type=int, default=16)
    s.add_argument("--view-tasks", default=",".join(DEMO_VIEW_TASKS), help="a second small run for the viewer ('' skips it)")
    s.add_argument("--view-limit", type=int, default=2)
    s.add_argument("--checkpoint", default=None, help="use this checkpoint folder instead of the tiny one")
    s.set_defaults(func=_demo)

    s = sub.add_parser("make-tiny-model", help="write a tiny random Qwen2-VL-family checkpoint (offline)")
    s.add_argument("dir")
    s.add_argument("--family", default=TINY_DEFAULT, choices=list(TINY_FAMILIES))
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--grounding", action="store_true", help="also teach it the PSS answer format [x, y] (about 15 s)")
    s.set_defaults(func=_make_tiny_model)

    s = sub.add_parser("synth", help="build (or find in the cache) a synthetic set (MPR-GUI or GUI Knowledge Bench)")
    s.add_argument("--benchmark", choices=("mpr", "knowledge"), default="mpr")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--per-dimension", type=int, default=8, help="questions per dimension (per sub-task for knowledge)")
    s.add_argument("--split", choices=SPLITS, default="eval",
                   help="content split: eval (synthetic tasks), memory / search (GUI-XLI build / search), train (text-only baselines)")
    s.add_argument("--langs", default=None, help="comma-separated subset of en,zh,fr,ru,ja,th")
    s.add_argument("--out", default=None, help="write here instead of the cache")
    s.set_defaults(func=_synth)

    _add_reports(sub)

    s = sub.add_parser("compare", help="paired comparison of two runs: per metric and slice, difference, 95%% CI, "
                                       "McNemar/permutation p-value, Holm-adjusted")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_compare)

    s = sub.add_parser("xli", help="GUI-XLI: build memories, search (layer, alpha), t-SNE plot, with/without report")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_xli)

    s = sub.add_parser("import", help="a published per-sample grounding result file (ScreenSpot-Pro results format) -> a run "
                                      "folder for view / grounding-report, scored by our scorer beside the file's own figure")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_import)

    s = sub.add_parser("summary", help="headline figures with 95%% intervals and n per task, then each task that did not run")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=lambda a: __import__("gui_tasks.reports.summary", fromlist=["main"]).main(a.rest))

    s = sub.add_parser("submit", help="validated leaderboard submission from an lmms-eval run")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_submit)

    s = sub.add_parser("view", help="static offline HTML viewer of runs: every sample with its overlays, trajectories, diffs")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_view)

    s = sub.add_parser("validate", help="re-check a submission file: schema, hashes, completeness, every response re-scored")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_validate)

    s = sub.add_parser("verify", help="re-run random documents of a submission with a checkpoint: are the responses reproduced?")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=_verify)

    s = sub.add_parser("install-lmms-hook", help="make `lmms-eval tasks list` see our tasks (writes a .pth file)")
    s.add_argument("--remove", action="store_true")
    s.set_defaults(func=_hook)

    s = sub.add_parser("tasks-path", help="print the installed yaml_tasks folder (for --include_path)")
    s.set_defaults(func=_tasks_path)

    s = sub.add_parser("data", help="fetch (from the Hub) or inspect a copy of an official release before a long evaluation")
    data_sub = s.add_subparsers(dest="data_command", required=True)
    c = data_sub.add_parser("check", help="read a copy with the tasks' own loaders: documents per task vs the published "
                                           "counts, every unreadable row (file, row, field); exit 1 if anything is off")
    from gui_tasks.harness.data_check import checkers

    c.add_argument("benchmark", choices=sorted(checkers()))
    c.add_argument("dir", nargs="?", default=None, help="the copy (default: the benchmark's environment variable)")
    c.add_argument("--partial", action="store_true", help="a deliberate subset (e.g. a test fixture): show the counts "
                                                          "but fail only on unreadable rows or files")
    c.add_argument("--max-errors", type=int, default=50, help="unreadable rows to list (all are counted)")
    c.add_argument("--no-images", action="store_true", help="skip decoding every screenshot (faster; a truncated "
                                                            "screenshot then stops the evaluation instead)")
    c.set_defaults(func=_data_check)
    from gui_core.benchmark import BENCHMARKS

    f = data_sub.add_parser("fetch", help="download a benchmark's published data from the Hugging Face Hub (the "
                                          "repository lmms-eval's own task reads), verify its hashes, print its folder")
    f.add_argument("benchmark", choices=sorted(b.name for b in BENCHMARKS.values() if b.data.hub))
    f.add_argument("--to", default=None, help="also copy the readable folder here (default: the Hugging Face cache)")
    f.add_argument("--revision", default=None, help="a branch, tag or commit (default: the one the record names)")
    f.add_argument("--print-pins", action="store_true", help="print the HubRelease with every file's sha256 (to pin "
                                                             "in the benchmark record)")
    f.set_defaults(func=_data_fetch)

    s = sub.add_parser("benchmarks", help="list every benchmark: title, sources, data, tasks, report, data check and "
                                          "submission rules (--json: the records as JSON)")
    s.add_argument("--json", action="store_true", help="print the records as a JSON list")
    s.set_defaults(func=_benchmarks)

    s = sub.add_parser("metrics", help="list every registered gui metric and every metric plugin left out (exit 1 if any)")
    s.set_defaults(func=_metrics)

    s = sub.add_parser("interventions", help="list every installed intervention and every broken or shadowing one "
                                             "(exit 1 if any)")
    s.set_defaults(func=_interventions)
    return p


def pass_through(parser: argparse.ArgumentParser) -> frozenset[str]:
    """Sub-commands whose arguments all go to the command's own parser (``gui-eval mpr-report --help`` shows its options):
    every sub-command declared here with a ``rest`` remainder."""
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return frozenset(name for name, sp in subs.choices.items() if any(a.dest == "rest" for a in sp._actions))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["xli"]:  # its own sub-commands, each with its own --help
        return _xli(argparse.Namespace(rest=argv[1:]))
    parser = build_parser()
    if argv and argv[0] in pass_through(parser):  # the command's own parser sees every argument, --help included
        args = parser.parse_args(argv[:1])
        args.rest = argv[1:]
    else:
        args = parser.parse_args(argv)
    from gui_core.registry import UnknownName

    from gui_core.errors import ConfigError

    try:
        return int(args.func(args) or 0)
    except (ConfigError, UnknownName) as exc:  # a configuration mistake: one line naming the setting, no traceback
        print(f"gui-eval {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
