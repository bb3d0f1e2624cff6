"""What a step judge is, as one frozen record, and the registry that holds the records (``gui_tasks.star.judges``).

A judge's whole behaviour is on its record: ``step`` gives the verdict on one step, ``drop`` says why a step does not
exist for it. Nothing asks for a judge's name to decide what it does, so a judge a plugin registers behaves fully by
its record; a record without its rules is refused when registered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_core.registry import Registry, load_records


@dataclass(frozen=True)
class Source:
    """Where a judge's reading comes from: a repository at a commit and the files read (or a paper's section)."""

    repo: str  # owner/name on GitHub, or "paper: <title>"
    files: tuple[str, ...]
    commit: str = ""  # 40 hex digits for a repository


@dataclass(frozen=True)
class Verdict:
    type_match: bool
    exact: bool
    pred: str | None  # the prediction as the judge read it (StaR: its Atlas string)
    gold: str | None  # the gold as the judge derived it
    gold_type: str  # the judge's action type of the gold (StaR: its ActionType name; others: ours)


# step(judge, doc, response, parsed_action, geometry) -> Verdict; ``parsed_action``: our family parser's reading
StepRule = Callable[["Judge", Mapping[str, Any], Optional[str], Optional[Action], Geometry], Verdict]
# drop(judge, doc) -> why the step is left out for the doc's agent family (None: it is scored)
DropRule = Callable[["Judge", Mapping[str, Any]], Optional[str]]


@dataclass(frozen=True)
class Judge:
    """One step judge: which benchmarks it is defined for, its matching rule in one line, its sources, and its rules."""

    name: str
    datasets: tuple[str, ...]  # "not defined" is said when a task starts (agentic_task.task_rows)
    rule: str  # the matching rule, one line (the docs' judge table)
    sources: tuple[Source, ...]
    recent_apps: bool = False  # scores GUI-Odyssey's recent-apps steps (KEY_APPSELECT); others leave them out
    variant_family: str | None = None  # the prompt of its ``<task>_judge_<name>`` variants (None: the default agent)
    step: StepRule | None = None  # the verdict on one step
    drop: DropRule | None = None  # why a step does not exist for it
    native_family: str | None = None  # the family whose whole answer it reads with its authors' own reading
    takes_match_rule: bool = False  # the task's match_rule and gesture_to_scroll choices apply (StaR A.2 as written)
    type_names: str = "ours"  # the vocabulary of its Verdict.gold_type ("star-actiontype": StaR's ActionType names)
    # family -> its authors' extractor of a whole answer, and family -> the label its preprocessing writes for the gold
    # (StaR: evaluators.py predictionExtractor, dataPreprocessor/actions.py); other families: our parser, the plain gold
    readers: Mapping[str, Callable[[str], Optional[str]]] = field(default_factory=dict, hash=False, compare=False)
    labels: Mapping[str, Callable[[str, str], Optional[str]]] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        for src in self.sources:
            if not src.repo.startswith("paper:") and len(src.commit) != 40:
                raise ValueError(f"judge {self.name!r}: source {src.repo} needs its 40-digit commit")

    def rule_label(self, doc: Mapping[str, Any]) -> str:
        """What a step record names as its rule: the task's match rule where it applies, else the judge."""
        return str(doc["match_rule"]) if self.takes_match_rule else self.name


JUDGE_GROUP = "gui_eval.judges"  # modules that call register_judge: the built-ins' (gui_tasks.star.judges) and plugins'
JUDGE_REGISTRY: Registry[Judge] = Registry("judge", loader=lambda: load_records(JUDGE_GROUP, "judge"))


def register_judge(judge: Judge) -> Judge:
    """Add a judge record (a name already taken is an error; so is a record without its step or drop rule)."""
    if not JUDGE_REGISTRY.holds(judge.name) and (judge.step is None or judge.drop is None):
        missing = " and ".join(n for n, r in (("step", judge.step), ("drop", judge.drop)) if r is None)
        raise ValueError(f"judge {judge.name!r} has no {missing} rule: a judge's behaviour is its record's "
                         "(gui_tasks.star.judge_rules shows the signatures)")
    return JUDGE_REGISTRY.register(judge.name, judge)


def raw(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The dataset's own fields of a step (``doc["judge_data"]``), which judges derive their gold from."""
    return json.loads(doc.get("judge_data") or "{}")
