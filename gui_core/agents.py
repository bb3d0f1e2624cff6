"""Families as step-wise agents: each one's own prompt (StaR appendix C, Figures 7-10), action format and frame.

The facts of each family (parser, frame, prompt id, history screenshots, budget) are in its record
(``gui_core.families``); this module builds prompts and writes actions with the builder and writer its record names
(``gui_core.agent_formats``; the quoted texts are data, ``gui_core/prompts/agent_prompts.json``) and parses its answers.

A family names the prompt template a task builds, the parser that reads the answer
(``gui_core.action_parsers``) and the coordinate frame the numbers are in under that
prompt. StaR A.5: OS-Atlas, UI-TARS and AgentCPM-GUI click on the 0-1000 grid; GUI-Owl on
original pixels (so its prompt states the original resolution). Qwen2-VL uses the OS-Atlas
prompt (A.5), and proprietary models without an agent prompt use UI-TARS's. GUI-R1 keeps its original prompt
(ritzz-ai/GUI-R1 ``guir1/inference/``) with clicks in original pixels (A.5).

Released checkpoints that answer in pixels of the image their processor resized (UI-TARS-1.5, Qwen2.5-VL's
mobile_use) are the families ``ui_tars_1_5`` and ``qwen2_5_vl`` (frame ``resized_px``): scoring maps their
points back with the size the backend reports (``extras["model_image_sizes"]``), else with the family's named
resize budget (``gui_core.coords.BUDGETS``; task metadata ``resize_budget`` / ``min_pixels`` / ``max_pixels``
override it). Every record names the frame and where its size came from.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from gui_core import agent_prompts
from gui_core.action_parsers import SCROLL_SEMANTICS, GestureToScroll, ParsedAction, Reading, parse_action
from gui_core.actions import Action
from gui_core.coords import DEFAULT_BUDGET, FRAMES, Frame, Geometry, budget, model_geometry, reported_size
from gui_core.family import FAMILIES, agent_family_of
from gui_core.registry import UnknownName

# The paper's Figure 8 prompt (StaR appendix C): every dataset without a StaR template of its own and the SPHINX agents
OS_ATLAS = agent_prompts.text("star-figure-8-os-atlas")


@dataclass(frozen=True)
class AgentFamily:
    """A family's agent protocol as a task uses it (from its record, ``gui_core.families``)."""

    name: str
    parser: str  # gui_core.action_parsers family
    frame: Frame  # the frame of the coordinates this family writes under its prompt
    prompt_id: str  # protocol id recorded with results
    history_images: int = 0  # earlier screenshots shown with the history (UI-TARS: four, A.5)
    budget: str | None = None  # resize budget of a resized_px family (gui_core.coords.BUDGETS)
    own_history: bool = False  # its own earlier answers can be replayed as history (UI-TARS own-history protocol)
    build_prompt: Callable[..., str] | None = None  # the record's prompt builder (gui_core.agent_formats)
    write_action: Callable[..., str] | None = None  # the record's action writer

    @property
    def scroll_semantics(self) -> str:
        """What the family's scroll word names: "scroll" (the scroll direction) or "finger" (the finger's movement)."""
        return SCROLL_SEMANTICS[self.parser]


@lru_cache(maxsize=None)
def _agent_of(lender: str) -> AgentFamily:
    rec = agent_family_of(lender)
    a = rec.agent
    assert a is not None
    return AgentFamily(rec.name, a.parser, a.frame, a.prompt_id, a.history_images, rec.budget, a.own_history,
                       a.build_prompt, a.write_action)


def agent_families() -> dict[str, AgentFamily]:
    """Every family with an agent protocol of its own, by name (borrowers and aliases left out)."""
    return {f.name: _agent_of(f.name) for f in FAMILIES.values() if f.agent is not None}


def agent_names() -> list[str]:
    """Every name a task may give as its agent family: families with an agent protocol, borrowers and aliases."""
    names = [f.name for f in FAMILIES.values() if f.agent is not None or f.agent_from is not None]
    return names + [a for a, target in FAMILIES.aliases().items() if target in names]


def _family(name: str) -> AgentFamily:
    known = agent_names()
    if name not in known:
        close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise UnknownName(f"unknown agent family {name!r}{hint}; known: {', '.join(sorted(known))}")
    return _agent_of(agent_family_of(name).name)


def family(name: str, meta: Mapping[str, Any] | None = None) -> AgentFamily:
    """The family ``name`` (aliases resolved), with the frame ``meta["coordinate_frame"]`` names when given.

    GUI-Owl answers in original pixels under StaR's prompt (A.5, the StaR-trained checkpoints); a released GUI-Owl
    checkpoint answering in pixels of its resized image is ``coordinate_frame: resized_px`` (its budget: ``gui_owl``).
    """
    f = _family(name)
    frame = str((meta or {}).get("coordinate_frame") or "")
    if frame and frame != f.frame:
        if frame not in FRAMES:
            raise ValueError(f"coordinate_frame {frame!r} unknown; known: {', '.join(FRAMES)}")
        f = replace(f, frame=frame, budget=f.budget or DEFAULT_BUDGET)  # type: ignore[arg-type]
    return f


def prompt_geometry(fam: str, width: int, height: int, meta: Mapping[str, Any] | None = None) -> Geometry:
    """The geometry a prompt is written for: the budget's resize for a resized_px family, else the original."""
    f = family(fam, meta)
    if f.frame != "resized_px":
        return Geometry.identity(width, height)
    return Geometry.from_budget(width, height, family_budget(f, meta))


def family_budget(f: AgentFamily, meta: Mapping[str, Any] | None = None):
    """The family's resize budget, overridden by ``resize_budget`` / ``min_pixels`` / ``max_pixels`` in ``meta``."""
    meta = meta or {}
    name = meta.get("resize_budget") or f.budget or DEFAULT_BUDGET
    return budget(str(name), min_pixels=meta.get("min_pixels"), max_pixels=meta.get("max_pixels"))


def scoring_geometry(fam: str, width: int, height: int, response: Any = None, *, image_index: int = -1,
                     meta: Mapping[str, Any] | None = None) -> tuple[Geometry, dict[str, Any]]:
    """The geometry a family's answer is read in, and a record of where the model's image size came from
    (``gui_core.coords.model_geometry``: the backend's ``extras["model_image_sizes"][image_index]``, else the
    family's budget). Families that do not answer in resized pixels need no model size."""
    from gui_core.logit_capture import extras_of

    f = family(fam, meta)
    size = reported_size(extras_of(response).get("model_image_sizes"), image_index)
    fallback = family_budget(f, meta) if f.frame == "resized_px" else None
    return model_geometry(f.frame, width, height, model_size=size, fallback=fallback)


def format_action(action: Action, fam: str, geometry: Geometry, meta: Mapping[str, Any] | None = None, *,
                  finger_words: bool = False) -> str:
    """``action`` written the way family ``fam`` writes it (points converted to the family's frame), by its record's
    ``write_action``.

    ``finger_words``: the action's SCROLL direction already names the finger's movement (AITZ and GUI-Odyssey gold,
    ``agentic_task.gold_scroll_space``), so the finger families write it as is instead of inverting it."""
    f = family(fam, meta)
    assert f.write_action is not None  # the family record refuses an agent protocol without one
    return f.write_action(f, action, geometry, finger_words)


def build_prompt(fam: str, instruction: str, geometry: Geometry, history: Sequence[str] = (), low_level: str | None = None,
                 meta: Mapping[str, Any] | None = None, *, history_lines: Sequence[str] | None = None,
                 instructions: Sequence[str] | None = None) -> str:
    """The family's prompt for one step, by its record's ``build_prompt``. ``history``: earlier actions already in the
    family's syntax.

    ``geometry``: ``prompt_geometry`` (a resized_px family's mobile_use prompt states the resized resolution,
    as Mobile-Agent-v3 does; GUI-Owl under StaR states the original one, A.5). ``history_lines``: UI-TARS's
    ``## Action History`` lines as given (its own answers, ``own_history``), instead of lines made from ``history``.
    ``instructions``: the earlier steps' instructions, OS-Atlas's history under StaR's per-dataset templates
    (``agent_formats.os_atlas_star_prompt``; ``low_level`` "" there is StaR's low setting with an empty instruction)."""
    f = family(fam, meta)
    assert f.build_prompt is not None  # the family record refuses an agent protocol without one
    return f.build_prompt(f, instruction, geometry, history, low_level, meta, history_lines, instructions)


def parse(text: str, fam: str, *, gesture_to_scroll: GestureToScroll | None = None,
          reading: Reading = "schema", meta: Mapping[str, Any] | None = None) -> ParsedAction:
    """Parse a response with the family's parser and tag its point with the family's frame under this prompt.

    ``gesture_to_scroll=None``: the family's own scroll semantics; ``reading``: see ``gui_core.action_parsers``;
    ``meta``: ``coordinate_frame`` override (``family``)."""
    f = family(fam, meta)
    res = parse_action(text, f.parser, gesture_to_scroll=gesture_to_scroll, reading=reading)
    if res.action is not None and res.action.point is not None and res.action.frame != f.frame:
        res = replace(res, action=replace(res.action, frame=f.frame))
    return res
