"""Parsers from each agent family's output format to the typed action space (StaR appendix C formats and each
family's own published action space; the conformance corpus ``gui_core/conformance/<family>.json`` cites them).

Model outputs are untrusted: a parser never raises, it returns a ``ParsedAction`` whose status is ``parsed``,
``malformed`` or ``empty``. Each family states the coordinate frame its numbers are in; nothing is guessed from
their size. Non-finite or absurd numbers (``nan``, ``inf``, beyond ``MAX_COORD``) are format errors. Every parser
runs in time linear in the length of the output (no regex with overlapping unbounded quantifiers; JSON objects
found in one pass), so a hostile output cannot hang an evaluation.

Thought and action are separated before the action is read: the part after the last ``Action:`` /
``actions:`` label (OS-Atlas, UI-TARS), after the last closing reasoning tag (``</think>``, ``</thinking>``),
inside ``<tool_call>`` blocks (GUI-Owl, Qwen2.5-VL), or the JSON object itself (AgentCPM-GUI's ``thought`` field).
Action words are read case-insensitively.

Scroll semantics are per family and named (``SCROLL_SEMANTICS``): OS-Atlas ``SCROLL [UP]`` and UI-TARS
``scroll(direction=)`` name the scroll direction (the side whose content is revealed, AndroidControl's
convention and the canonical SCROLL direction here); AgentCPM-GUI's ``to`` and the ``swipe`` of GUI-Owl /
Qwen2.5-VL's mobile_use name the finger's movement, the opposite. ``gesture_to_scroll`` overrides a family's
default ("inverse": a finger moving up is a scroll down; "same": the finger word is taken as the direction).

``reading="star_official"`` reproduces the official StaR evaluator (ZrW00/StaR ``evaluator/actions.py``,
``translateACG2Atlas``) where it differs from AgentCPM-GUI's schema: ``to`` read by ``gesture_to_scroll`` like the schema, any
``duration`` with a POINT is a long press, only ``STATUS: finish`` ends a task (``satisfied`` / ``impossible``
are no action). The default ``reading="schema"`` follows the family's own schema and evaluator.
``reading="official"`` is a family's own published evaluation's reading where it differs from its format
(``OFFICIAL_READINGS``, declared at registration: GUI-R1, whose regexes read single-quoted words only and a missing point as ``(0, 0)``).

The parsers live by syntax in ``action_parsers_text`` (OS-Atlas, UI-TARS), ``action_parsers_json`` (AgentCPM-GUI, the
mobile_use tool calls) and ``action_parsers_r1`` (GUI-R1) over the shared floor ``action_reading``; importing this
module registers them all.
"""

from __future__ import annotations

import inspect
from typing import Any

from gui_core import action_parsers_json, action_parsers_r1, action_parsers_text  # noqa: F401  (register the parsers)
from gui_core.action_parsers_r1 import gui_r1_official_fields
from gui_core.action_reading import (AGENTCPM_DEFAULT_DURATION_MS, GENERIC_ORDER, PARSERS, READINGS, SCROLL_SEMANTICS,
                                     SCROLL_WORDS, GestureToScroll, ParsedAction, Parser, Reading, Status, _bad,
                                     action_part, after_reasoning, default_gesture_to_scroll, finite_number,
                                     json_objects, plausible_index, readers_of, register_parser, scroll_direction)

__all__ = ["AGENTCPM_DEFAULT_DURATION_MS", "OFFICIAL_READINGS", "PARSERS", "READINGS", "SCROLL_SEMANTICS", "SCROLL_WORDS",
           "STAR_OFFICIAL_READINGS", "GestureToScroll", "ParsedAction", "Parser", "Reading", "Status", "action_part",
           "after_reasoning", "default_gesture_to_scroll", "finite_number", "gui_r1_official_fields", "json_objects",
           "parse_action", "parse_generic", "plausible_index", "register_parser", "scroll_direction"]

# families whose own published evaluation reads their text differently from their format: reading="official"
OFFICIAL_READINGS = readers_of("official")
# parsers with a reading="star_official" of their own (StaR's translateACG2Atlas differs from AgentCPM-GUI's schema)
STAR_OFFICIAL_READINGS = readers_of("star_official")


def parse_action(text: Any, family: str, *, gesture_to_scroll: GestureToScroll | None = None,
                 reading: Reading = "schema") -> ParsedAction:
    """Parse ``text`` with the parser of ``family``; never raises on model output.

    ``gesture_to_scroll=None`` uses the family's own scroll semantics (``SCROLL_SEMANTICS``).
    """
    if family not in PARSERS:
        raise ValueError(f"no action parser for family {family!r}; known: {', '.join(sorted(PARSERS))}")
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; known: {', '.join(READINGS)}")
    if reading == "official" and family not in OFFICIAL_READINGS:
        raise ValueError(f"family {family!r} has no official reading; families with one: {', '.join(sorted(OFFICIAL_READINGS))}")
    if not isinstance(text, str) or not text.strip():
        return ParsedAction(None, "empty", family, "empty output")
    mode = gesture_to_scroll or default_gesture_to_scroll(family)
    try:
        fn = PARSERS[family]
        kwargs: dict[str, Any] = {"gesture_to_scroll": mode}
        if reading != "schema" and "reading" in inspect.signature(fn).parameters:
            kwargs["reading"] = reading  # AgentCPM-GUI (official StaR evaluator), GUI-R1 (its own evaluation)
        return fn(str(text), **kwargs)
    except Exception as exc:  # a parser bug counts as a format error, never a crash
        return ParsedAction(None, "malformed", family, f"parser error: {type(exc).__name__}")


@register_parser("generic", scroll="scroll")
def parse_generic(text: str, *, gesture_to_scroll: GestureToScroll = "same") -> ParsedAction:
    """Fallback: the first family whose parser succeeds, tried from the most to the least structured
    (``register_parser(generic_rank=...)``)."""
    for fam in sorted(GENERIC_ORDER, key=GENERIC_ORDER.__getitem__):
        res = PARSERS[fam](text, gesture_to_scroll=default_gesture_to_scroll(fam))
        if res.status == "parsed":
            return ParsedAction(res.action, "parsed", "generic", f"as {fam}")
    return _bad("generic", "no known action format")
