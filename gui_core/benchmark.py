"""What a benchmark is, as one frozen record, and the registry that holds the records (like ``gui_core.family``).

A benchmark's facts used to be repeated in about eight parallel tables (the grounding sources and inside rules, the
report's benchmark list, the data checkers, the report commands, the submission rules, the docs tables). Now each
benchmark is one :class:`Benchmark` record, registered by its own package's ``benchmark`` module, and every table is
read from :data:`BENCHMARKS`: ``gui-eval benchmarks``, ``gui-eval data check``, the reports, ``gui-eval submit``, the
YAML generator, the docs tables.

The floor imports nothing of ``gui_tasks``: a record names its loader, data check, task class, YAML generator and
report as dotted paths (``"package.module:attribute"``) resolved on use (:func:`resolve`). The built-in
records are registered by the modules named in the ``gui_eval.benchmarks`` entry-point group: each benchmark package's
``benchmark`` module in gui-eval's own ``setup.cfg``, a third party's module in its package's (both call
:func:`register_benchmark`; docs/adding.md). No module of this floor names a built-in record's module.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from gui_core.errors import ConfigError, DataError
from gui_core.hub_release import HubRelease
from gui_core.registry import Registry, load_records

if TYPE_CHECKING:
    from gui_core.hub_fetch import HubData

# The modules that register records, built-in (one per benchmark package, in gui-eval's setup.cfg) and third-party
# alike, imported on the registry's first use.
ENTRY_POINT_GROUP = "gui_eval.benchmarks"
_DOTTED = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_ENV = re.compile(r"[A-Z][A-Z0-9_]*")
_COMMAND = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def resolve(path: str) -> Any:
    """The object a dotted path ``"package.module:attribute"`` names (imported now: records stay below gui_tasks)."""
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Sources:
    """Where a benchmark is defined: its paper, the authors' repository, the file that scores it there and the commit
    it was read at."""

    paper: str
    repository: str = ""
    file: str = ""
    commit: str = ""


@dataclass(frozen=True)
class BenchmarkData:
    """Where a benchmark's data comes from.

    ``env`` names the environment variable pointing at a local copy of the official release ("" for a set this
    harness generates: ``generated`` then names the builder); ``layouts`` the release layouts the loader reads, in
    words; ``hub`` the pinned Hugging Face releases (``gui_core.hub_release``; ``gui-eval data fetch`` reads them) and
    ``hub_repos`` the other hub repositories the data is published in (lmms-eval's ``dataset_path`` where it has the
    task), not pinned: each hub id is written once, a release's in its ``HubRelease`` (:attr:`repos` lists them all): with the variable unset, the first release of ``hub`` is the copy (``gui_core.hub_fetch``: the Hugging
    Face cache first, downloaded on first use). ``unset`` is what the error for a missing variable asks for (a
    benchmark without a hub release); ``meta_key`` a task
    metadata key that names the copy before the variable does."""

    env: str = ""
    layouts: tuple[str, ...] = ()
    hub: tuple[HubRelease, ...] = ()
    hub_repos: tuple[str, ...] = ()
    unset: str = ""
    page: str = ""
    meta_key: str = ""
    generated: str = ""

    def __post_init__(self) -> None:
        if bool(self.env) == bool(self.generated):
            raise ValueError("benchmark data names either the environment variable of a local copy or the builder of a "
                             f"generated set (env={self.env!r}, generated={self.generated!r})")
        if self.env and not _ENV.fullmatch(self.env):
            raise ValueError(f"benchmark data: environment variable {self.env!r} is not UPPER_CASE")
        if self.generated and not _DOTTED.fullmatch(self.generated):
            raise ValueError(f"benchmark data: builder {self.generated!r} is not 'module:attribute'")
        if not all(isinstance(h, HubRelease) for h in self.hub):
            raise ValueError("benchmark data: hub holds HubRelease records (gui_core.hub_release)")
        twice = sorted({h.repo_id for h in self.hub} & set(self.hub_repos))
        if twice:
            raise ValueError(f"benchmark data: hub repository {twice[0]!r} is a pinned release (hub) and listed again in "
                             "hub_repos; name it once")

    @property
    def repos(self) -> tuple[str, ...]:
        """Every hub repository of the data: the pinned releases' first, then the others (``hub_repos``)."""
        return tuple(dict.fromkeys([*(h.repo_id for h in self.hub), *self.hub_repos]))


@dataclass(frozen=True)
class Report:
    """A benchmark's report: the ``gui-eval`` sub-command ``command`` (and its ``aliases``, older names that keep
    working) runs ``main`` (``"module:function"``, ``main(argv) -> int``, parsing its own arguments and ``--help``);
    ``help`` is its line in ``gui-eval --help``. ``gui_tasks.commands.cli`` builds one sub-command per report the
    records name, so a plugin benchmark's report gets its command as the built-in ones do. Named after the benchmark
    (``mpr-report``, ``grounding-report``)."""

    command: str
    main: str
    help: str = ""
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in (self.command, *self.aliases):
            if not _COMMAND.fullmatch(name or ""):
                raise ValueError(f"report command {name!r} is not lower-kebab-case (e.g. 'mpr-report')")
        if not _DOTTED.fullmatch(self.main or ""):
            raise ValueError(f"report {self.command!r}: main {self.main!r} is not 'module:function'")


@dataclass(frozen=True)
class Submission:
    """What ``gui-eval submit`` asks of this benchmark's tasks: the protocol tags their metadata must carry, and when a
    set of them is complete (``"task"``: each task on its own, all its documents; otherwise the dotted path of a
    function ``gaps(entries) -> list[str]`` over the submission entries of this benchmark's tasks), in words in
    ``rule`` (docs/submissions.md)."""

    protocol_tags: tuple[str, ...] = ("prompt_protocol", "parser_protocol")
    completeness: str = "task"
    rule: str = "each task complete on its own (every document)"
    # "module:attribute" naming the metrics every task must report (empty: its metric_list)
    required_metrics: str = ""
    # "module:function" check(metadata, docs or None) -> why a task is refused, or None (empty: no check)
    task_check: str = ""
    # the thinking settings (model arg ``thinking``, gui_core.reasoning) its leaderboard accepts: "default" (unset:
    # the model's own), "on", "off"; a run with another is refused by ``gui-eval submit`` / ``validate``
    thinking: tuple[str, ...] = ("default", "on", "off")

    def __post_init__(self) -> None:
        if self.completeness != "task" and not _DOTTED.fullmatch(self.completeness):
            raise ValueError(f"submission completeness {self.completeness!r} is 'task' or 'module:function'")
        bad = [t for t in self.thinking if t not in ("default", "on", "off")]
        if bad or not self.thinking:
            raise ValueError(f"submission thinking {self.thinking!r}: a non-empty subset of default, on, off")
        for key, path in (("task_check", self.task_check), ("required_metrics", self.required_metrics)):
            if path and not _DOTTED.fullmatch(path):
                raise ValueError(f"submission {key} {path!r} is not 'module:attribute'")


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: everything the harness needs to know about it, in one place.

    ``match`` is the task metadata that marks a task as this benchmark's (``metadata.benchmark`` first, then e.g.
    ``source`` or ``dataset``); ``yaml_folder`` the ``yaml_tasks`` folder of its tasks (a plugin: its own folder's
    absolute path); ``task_class`` the lmms-eval
    task class of the family of tasks it belongs to and ``yaml_spec`` the generator of their YAML; ``loader`` reads its
    documents, ``data_check`` checks a local copy (``gui-eval data check NAME``), ``cluster_key`` says what clustered
    intervals resample by; ``official_report`` computes the authors' own figures from per-sample records, ``report``
    is the :class:`Report` whose ``gui-eval`` command reads its runs (or the command name of a report another record
    defines, which it shares); ``inside_rule`` the default point-in-box rule of a grounding set; ``viewing`` the module
    implementing the viewer's hooks for its samples (``gui-eval view``)."""

    name: str
    title: str
    sources: Sources
    data: BenchmarkData
    match: tuple[tuple[str, str], ...]
    yaml_folder: str
    task_class: str
    yaml_spec: str
    loader: str
    report: Report | str
    submission: Submission = Submission()
    data_check: str = ""
    cluster_key: str = "screenshot"
    official_report: str = ""
    inside_rule: str = ""
    docs: str = ""
    # the published document counts a copy is checked against (gui-eval data check), by what each counts: "release"
    # (every row), a split file's name, "per_language"; where the loaders and tests read them
    published_docs: Mapping[str, int] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)  # other benchmark-specific facts (e.g. clips_boxes)
    # the module that implements the viewer's gui_viewer hooks for this benchmark's samples and runs
    # (gui_core.viewing, gui_tasks.viewer.hookspecs; "": the viewer's generic pages)
    viewing: str = ""

    def __post_init__(self) -> None:
        from gui_core.record_types import check_record

        check_record(self, "benchmark")  # a number where a string belongs is named here, not deep in a report
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name or ""):
            raise ValueError(f"benchmark name {self.name!r} must be lower_snake_case")
        if not self.title:
            raise ValueError(f"benchmark {self.name!r} needs a title")
        if not self.sources.paper:
            raise ValueError(f"benchmark {self.name!r}: sources.paper is required (cite the paper or say why none)")
        if not self.match or self.match[0][0] != "benchmark":
            raise ValueError(f"benchmark {self.name!r}: match must start with ('benchmark', <metadata.benchmark>)")
        for key, path in (("task_class", self.task_class), ("yaml_spec", self.yaml_spec), ("loader", self.loader),
                          ("data_check", self.data_check), ("official_report", self.official_report)):
            if (path or key not in ("data_check", "official_report")) and not _DOTTED.fullmatch(path):
                raise ValueError(f"benchmark {self.name!r}: {key} {path!r} is not 'module:attribute'")
        if isinstance(self.report, str) and self.report not in report_commands():
            raise ValueError(f"benchmark {self.name!r}: report command {self.report!r} unknown (name a Report, or the "
                             f"command of one another record defines); known: {', '.join(sorted(report_commands()))}")
        if not isinstance(self.report, (Report, str)):
            raise ValueError(f"benchmark {self.name!r}: report is a Report record or a report command name")
        if not all(isinstance(k, str) and isinstance(v, int) and v >= 0 for k, v in self.published_docs.items()):
            raise ValueError(f"benchmark {self.name!r}: published_docs maps what is counted to a count")
        if self.viewing and not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", self.viewing):
            raise ValueError(f"benchmark {self.name!r}: viewing {self.viewing!r} is not a dotted module name")
        if self.inside_rule not in ("", "strict", "inclusive"):
            raise ValueError(f"benchmark {self.name!r}: inside_rule {self.inside_rule!r} is strict or inclusive")

    @property
    def report_command(self) -> str:
        """The ``gui-eval`` command that reads this benchmark's runs (an alias resolved to the command it stands for)."""
        return self.report.command if isinstance(self.report, Report) else report_commands()[self.report].command

    @property
    def results_name(self) -> str:
        """The ``metadata.benchmark`` value its tasks' results carry."""
        return self.match[0][1]

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        """Whether a task with this metadata is one of this benchmark's."""
        return all(str(metadata.get(k)) == v for k, v in self.match)

    def tasks(self, root: Path | None = None) -> list[str]:
        """The lmms-eval task names of this benchmark: the generated YAMLs of ``yaml_folder`` whose metadata it is the
        most specific match of (:func:`benchmark_of`)."""
        return [name for name, meta in task_metadata(self.yaml_folder, root) if benchmark_of(meta) is self]


def _load_builtins() -> None:
    load_records(ENTRY_POINT_GROUP, "benchmark")


BENCHMARKS: Registry[Benchmark] = Registry("benchmark", loader=_load_builtins)


def register_benchmark(bench: Benchmark, *, aliases: tuple[str, ...] = ()) -> Benchmark:
    """Register a benchmark record (built-in modules and third parties alike).

    A plugin's record (registered while its entry point loads) whose ``match`` holds all of a built-in record's
    would be the most specific match of that record's tasks (:func:`benchmark_of`) and take them over silently: it
    is refused, naming both."""
    from gui_core.plugin_errors import current_plugin

    BENCHMARKS._load()
    plugin = current_plugin()
    if plugin is not None:
        for other in BENCHMARKS.values():
            if BENCHMARKS.origin(other.name) is None and set(other.match) <= set(bench.match):
                raise ValueError(
                    f"benchmark {bench.name!r} of {plugin} refused: its match {list(map(list, bench.match))} holds all "
                    f"of built-in benchmark {other.name!r}'s match {list(map(list, other.match))}, so it would claim "
                    f"{other.name!r}'s tasks; start its match with ('benchmark', <a name of its own>)")
    return BENCHMARKS.register(bench.name, bench, aliases=aliases)


def benchmark(name: str) -> Benchmark:
    """The record of benchmark ``name`` (aliases resolved); an unknown name is an error with "did you mean"."""
    return BENCHMARKS.get(name)


def benchmark_of(metadata: Mapping[str, Any]) -> Benchmark | None:
    """The record a task with this metadata belongs to (the most specific match), or None."""
    found = [b for b in BENCHMARKS.values() if b.matches(metadata)]
    return max(found, key=lambda b: len(b.match)) if found else None


def report_commands() -> dict[str, Report]:
    """Every report command the records define, and each alias, -> its :class:`Report` (registration order). Two
    reports claiming one command name are an error naming both."""
    out: dict[str, Report] = {}
    for b in BENCHMARKS.values():
        r = b.report
        if not isinstance(r, Report):
            continue
        for name in (r.command, *r.aliases):
            if out.setdefault(name, r) != r:
                raise ValueError(f"report command {name!r} is claimed by {out[name].main} and by {r.main} "
                                 f"(benchmark {b.name!r})")
    return out


def results_names(report: str | None = None) -> tuple[str, ...]:
    """Every ``metadata.benchmark`` value of the records (those read by the ``report`` command, or alias, when given)."""
    command = report_commands()[report].command if report in report_commands() else report
    out: list[str] = []
    for b in BENCHMARKS.values():
        if (report is None or b.report_command == command) and b.results_name not in out:
            out.append(b.results_name)
    return tuple(out)


def results_names_of(module: str) -> tuple[str, ...]:
    """The ``metadata.benchmark`` values of the records whose task class is defined in ``module`` or a module below it
    (``"gui_tasks.mpr"``, ``"gui_tasks.star.agentic_task"``): how a benchmark folder's report finds its own tasks in a
    run without naming them."""
    return tuple(dict.fromkeys(b.results_name for b in BENCHMARKS.values()
                               if (b.task_class.partition(":")[0] + ".").startswith(module + ".")))


def data_root(bench: Benchmark | str, meta: Mapping[str, Any] | None = None) -> Path:
    """The local copy of ``bench``'s data: the task metadata key the record names, else its environment variable,
    else (where the record names one) its hub release (``gui_core.hub_fetch.data_root``: cache first, fetched on first
    use unless downloads are off, then a one-line error naming ``gui-eval data fetch NAME``). With no release an unset
    variable is a ConfigError naming it and what to point it at; a path that is not a folder a DataError."""
    rec = benchmark(bench) if isinstance(bench, str) else bench
    d = rec.data
    if not d.env:
        raise ConfigError(f"benchmark {rec.name}", None, page=d.page, message=f"{rec.title} is generated "
                          f"({d.generated}); it has no local copy to point at")
    local = ((meta or {}).get(d.meta_key) if d.meta_key else None) or os.environ.get(d.env)
    if local:
        root = Path(str(local)).expanduser()
        if not root.is_dir():
            see = f"; see {d.page}" if d.page else ""
            raise DataError(f"${d.env} points to {root}, which is not a directory{see}", file=str(root))
        return root
    if d.hub:  # the first hub release: the HF cache first, downloaded on first use (gui_core.hub_fetch)
        from gui_core.hub_fetch import data_root as hub_root

        return hub_root(hub_data(rec))
    raise ConfigError(f"${d.env}", None, page=d.page, message=f"${d.env} is not set: {d.unset}")


def hub_data(bench: Benchmark | str) -> HubData:
    """``bench``'s first hub release as ``gui_core.hub_fetch.HubData`` (``gui-eval data fetch``, the first-use path); a
    ConfigError naming the benchmarks that have one when it has none."""
    from gui_core.hub_fetch import HubData

    rec = benchmark(bench) if isinstance(bench, str) else bench
    if not rec.data.hub:
        have = sorted(b.name for b in BENCHMARKS.values() if b.data.hub)
        raise ConfigError("benchmark", rec.name, page=rec.data.page or "docs/data_checks.md",
                          message=f"{rec.name!r} has no data on the Hugging Face Hub this harness fetches; those that "
                                  f"have: {', '.join(have)}")
    return HubData(rec.name, rec.data.env, rec.data.hub[0], rec.data.page, rec.data.unset)


# --- the tasks of a benchmark, read from the generated YAML files (yaml_tasks/<folder>) -------------------------------

_TOP = re.compile(r"^([A-Za-z_][\w-]*):(.*)$")
_ITEM = re.compile(r"^  ([A-Za-z_]\w*): *(.*?)\s*$")


def yaml_root() -> Path:
    """The ``yaml_tasks`` folder next to the packages (the one lmms-eval reads through the harness)."""
    return Path(__file__).resolve().parent.parent / "yaml_tasks"


def _top_blocks(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    key = None
    for line in text.splitlines():
        m = _TOP.match(line)
        if m:
            key = m.group(1)
            out[key] = [m.group(2).strip()]
        elif key is not None and line.startswith(" "):
            out[key].append(line)
    return out


def task_metadata(folder: str, root: Path | None = None) -> list[tuple[str, dict[str, str]]]:
    """``(task name, metadata)`` of every task YAML in ``yaml_tasks/<folder>`` (groups left out), the metadata of a
    thin task file read through its ``include:`` bases (a top-level merge, as lmms-eval's)."""
    base = Path(folder) if Path(folder).is_absolute() else (root or yaml_root()) / folder  # a plugin's own folder
    out = []
    for path in sorted(base.glob("*.yaml")):
        blocks = _top_blocks(path.read_text(encoding="utf-8"))
        if "task" not in blocks or not blocks["task"][0]:
            continue  # a group (its task: is a list)
        merged: dict[str, list[str]] = {}
        for inc in [ln.strip()[2:].strip() for ln in blocks.get("include", [])[1:] if ln.strip().startswith("- ")]:
            if (base / inc).is_file():
                merged.update(_top_blocks((base / inc).read_text(encoding="utf-8")))
        merged.update(blocks)
        meta = {}
        for line in merged.get("metadata", [])[1:]:
            m = _ITEM.match(line)
            if m:
                meta[m.group(1)] = m.group(2).strip('"\'')
        out.append((blocks["task"][0], meta))
    return out


def describe(bench: Benchmark, root: Path | None = None) -> dict[str, Any]:
    """The record as ``gui-eval benchmarks --json`` lists it: name, title, sources, data, tasks, report, data_check,
    submission (and the rest of the record under ``record``)."""
    from dataclasses import asdict

    data = asdict(bench.data)
    data["hub"] = [asdict(h) for h in bench.data.hub]
    data["hub_repos"] = list(bench.data.repos)
    return {
        "name": bench.name,
        "title": bench.title,
        "sources": asdict(bench.sources),
        "data": data,
        "tasks": bench.tasks(root),
        "report": {"command": f"gui-eval {bench.report_command}",
                   "function": report_commands()[bench.report_command].main, "official": bench.official_report,
                   "results_name": bench.results_name},
        "data_check": {"command": f"gui-eval data check {bench.name}", "function": bench.data_check} if bench.data_check
        else {},
        "submission": asdict(bench.submission),
        "record": {"match": dict(bench.match), "yaml_folder": bench.yaml_folder, "task_class": bench.task_class,
                   "yaml_spec": bench.yaml_spec, "loader": bench.loader, "cluster_key": bench.cluster_key,
                   "inside_rule": bench.inside_rule, "docs": bench.docs,
                   "published_docs": dict(bench.published_docs)},
    }




def task_stem(task: str, suffix: str) -> str:
    """``task`` without its ``_<suffix>`` (``mpr_gui_en`` -> ``mpr_gui``): the set a per-language or per-sub-task task
    belongs to, as the submission rules group them."""
    return task[: -len(suffix) - 1] if suffix and task.endswith("_" + suffix) else task
