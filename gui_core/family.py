"""What a model family is, as one frozen record, and the registry that holds the records (``gui_core.families``).

A family's facts used to live in seven parallel tables; now everything a task, a scorer, the YAML generator, the
parser inventory, the conformance corpora and the docs need to know about a family is read from its record:
its grounding prompt(s) with their protocol ids, the coordinate frame of its numbers, the resize budget of its
released checkpoints (and canvas: ``gui_core.coords.BUDGETS``), the reader of its grounding answers and its authors'
own parser (``official_reader``: gui_core.grounding_authors, checked against their code on a differential
corpus), the agent protocol (action parser, frame under the agent prompt, prompt id,
history screenshots, own-history layout), its scroll semantics (from its action parser), the visual transform its
runner applies, and citations to the authors' files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from gui_core.coords import BUDGETS, DEFAULT_BUDGET, FRAMES, Frame
from gui_core.registry import Registry, load_records

# reader(body, frame, family) -> PointAnswer | None (None: the family's syntax is absent); see gui_core.grounding
Reader = Callable[..., Optional[object]]


@dataclass(frozen=True)
class GroundingPrompt:
    """One grounding prompt of a family: its name (the ``prompt:`` a task names), protocol id and template.

    Templates are ``str.format`` strings with ``{instruction}`` and, where the family's prompt states it, the size of
    the image the model sees, ``{resized_width}`` / ``{resized_height}`` (braces of JSON written doubled)."""

    name: str
    protocol: str
    template: str
    drop_final_period: bool = False  # one trailing "." of the instruction is dropped first (UI-Venus-1.5's script)
    max_new_tokens: int | None = None  # new tokens its runner allows where the task's default is too few (None: default)


@dataclass(frozen=True)
class AgentProtocol:
    """How the family acts as a step-wise agent (StaR appendix C, A.5): its action parser, the frame of its clicks
    under its agent prompt, the prompt's protocol id, earlier screenshots shown with the history (UI-TARS: four)
    and whether its own earlier answers can be replayed as history (UI-TARS own-history protocol)."""

    parser: str
    frame: Frame
    prompt_id: str
    history_images: int = 0
    own_history: bool = False
    # its prompt builder and action writer (gui_core.agent_formats shows their signatures); a record without them is
    # refused when its family is created
    build_prompt: Optional[Callable[..., str]] = None
    write_action: Optional[Callable[..., str]] = None
    # agent benchmarks that give it tasks of its own (<task>_<family>; "star_own_history": StaR's own-history tasks)
    benchmarks: tuple[str, ...] = ("star", "sphinx")
    default_of: tuple[str, ...] = ()  # benchmarks whose unsuffixed tasks it is the agent of (StaR A.5: OS-Atlas)
    missing_actions: tuple[str, ...] = ()  # action types its action space has no word for (steps left out for it)


@dataclass(frozen=True)
class Family:
    name: str
    title: str  # how the docs and reports name it
    frame: Frame  # the frame of the numbers in its grounding answers
    budget: str | None = None  # resize budget (gui_core.coords.BUDGETS) of its released checkpoints
    prompts: tuple[GroundingPrompt, ...] = ()
    reader: Reader | None = None  # its own grounding syntax (None: bare points / boxes / its action syntax)
    syntax: str = ""  # that syntax, in words
    # the authors' own parser of the whole answer (gui_core.grounding_authors): the ``official`` reading
    official_reader: Callable[[str], Optional[object]] | None = None
    # the ScreenSpot-Pro runner's reading of a computer_use tool call (the ``benchmark`` reading of Qwen2.5-VL)
    tool_call_reader: Reader | None = None
    action_parser: str | None = None  # an action answer's point is a grounding answer too (gui_core.action_parsers)
    reads_qwen_json: bool = False  # {"point_2d": ...} / {"bbox_2d": ...} grounding JSON (Qwen2.5-VL style)
    visual: str = "doc_to_visual"  # the doc_to_visual of gui_tasks.grounding.lmms_task that shows what its runner shows
    agent: AgentProtocol | None = None
    agent_from: str | None = None  # borrows another family's agent protocol (StaR A.5: Qwen2-VL uses OS-Atlas's)
    grounds: bool = True  # its answers are read as grounding answers (gui_core.grounding.parse_point)
    # its authors' grounding wrapper asks for a refusal when the element is absent (ScreenSpot-Pro's
    # ground_allow_negative): it gets the ``gui_screenspot_pro_negative_<family>`` task
    refusal: bool = False
    # Where its authors read the answer of a model that reasons first (issue 51): True, the text after the reasoning
    # (after the last closing reasoning tag; the reasoning is never searched for the answer); False, their own parser
    # runs over the whole text, reasoning included (GTA1's first "(x,y)" may sit inside a <think> block). Set per
    # family from the authors' code (docs/grounding_families.md). The ``official`` reader (``official_reader``)
    # always receives the whole text and makes the authors' own cut, so a True family's reader cuts where its authors
    # cut (Holo2: after the first </think>); the field tells the reading of the other strictnesses and the reasoning
    # accounting where the answer starts.
    answer_after_reasoning: bool = True
    sources: tuple[str, ...] = field(default=())  # the authors' files the facts above come from

    def __post_init__(self) -> None:
        from gui_core.record_types import check_record

        check_record(self, "family")  # a number where a string belongs is named here (issue 54)
        if self.frame not in FRAMES:
            raise ValueError(f"family {self.name!r}: frame {self.frame!r} unknown; known: {', '.join(FRAMES)}")
        if self.budget is not None and self.budget not in BUDGETS:
            raise ValueError(f"family {self.name!r}: resize budget {self.budget!r} unknown; known: {', '.join(BUDGETS)}")
        if self.frame == "resized_px" and self.budget is None:
            raise ValueError(f"family {self.name!r} answers in resized pixels but names no resize budget")
        if self.agent is not None and self.agent_from is not None:
            raise ValueError(f"family {self.name!r} has its own agent protocol and borrows {self.agent_from!r}'s")
        if self.agent is not None and (self.agent.build_prompt is None or self.agent.write_action is None):
            raise ValueError(f"family {self.name!r}: its agent protocol needs build_prompt and write_action "
                             "(gui_core.agent_formats)")

    @property
    def scroll_semantics(self) -> str | None:
        """What its scroll word names ("scroll" direction or "finger" movement): its action parser's semantics."""
        from gui_core.action_parsers import SCROLL_SEMANTICS

        parser = self.agent.parser if self.agent else self.action_parser
        return SCROLL_SEMANTICS.get(parser) if parser else None


# The modules that call register_family: the built-in records' (gui_core.families, in gui-eval's own setup.cfg) and
# third parties' (docs/adding.md), imported on the registry's first use; the records depend on this module, never the
# other way round.
ENTRY_POINT_GROUP = "gui_eval.families"


def _load_builtins() -> None:
    load_records(ENTRY_POINT_GROUP, "family")


FAMILIES: Registry[Family] = Registry("model family", loader=_load_builtins)
# grounding prompt name -> the family it belongs to (filled by register_family)
PROMPTS: Registry[Family] = Registry("grounding prompt", loader=_load_builtins)


def register_family(fam: Family, *, aliases: tuple[str, ...] = ()) -> Family:
    """Register a family record (third parties too); its prompt names must be new as well."""
    FAMILIES._load()
    for p in fam.prompts:
        if p.name in PROMPTS._items:
            raise ValueError(f"grounding prompt {p.name!r} is already registered (family "
                             f"{PROMPTS._items[p.name].name!r})")
    FAMILIES.register(fam.name, fam, aliases=aliases)
    for p in fam.prompts:
        PROMPTS.register(p.name, fam)
    return fam


def family(name: str) -> Family:
    """The record of family ``name`` (aliases resolved); an unknown name is a configuration error with "did you mean"."""
    return FAMILIES.get(name)


def grounding_prompt(name: str) -> GroundingPrompt:
    """The grounding prompt called ``name`` (any family's)."""
    fam = PROMPTS.get(name)
    return next(p for p in fam.prompts if p.name == name)


def budget_of(name: str, default: str = DEFAULT_BUDGET) -> str:
    """The resize budget a family's answers in resized pixels are read with: its record's, else ``default``."""
    return family(name).budget or default


def grounding_families() -> list[Family]:
    """Every family whose answers are read as grounding answers, in registration order."""
    return [f for f in FAMILIES.values() if f.grounds]


def agent_family_of(name: str) -> Family:
    """The family whose agent protocol ``name`` uses (itself, or the one it borrows from)."""
    fam = family(name)
    if fam.agent is None and fam.agent_from is not None:
        fam = family(fam.agent_from)
    if fam.agent is None:
        agents = [f.name for f in FAMILIES.values() if f.agent is not None]
        raise ValueError(f"family {name!r} has no agent protocol; families with one: {', '.join(agents)}")
    return fam


def default_agent(benchmark: str) -> Family:
    """The family whose agent protocol a benchmark's unsuffixed tasks use (``AgentProtocol.default_of``)."""
    found = [f for f in FAMILIES.values() if f.agent is not None and benchmark in f.agent.default_of]
    if len(found) != 1:
        raise ValueError(f"benchmark {benchmark!r} needs exactly one default agent family, found "
                         f"{[f.name for f in found]}")
    return found[0]


def agents_of(benchmark: str) -> list[Family]:
    """Families with an agent protocol of their own that get ``benchmark``'s per-family tasks, in registration order."""
    return [f for f in FAMILIES.values() if f.agent is not None and benchmark in f.agent.benchmarks]
