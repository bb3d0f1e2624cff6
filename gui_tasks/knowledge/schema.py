"""The canonical GUI Knowledge Bench document: sub-tasks, platforms, validation.

One row per question, produced by ``process_docs`` from official rows or by the synthetic world::

    id              str   stable id ("gkb-synth-state-0003", or the official question_id)
    subtask         str   one of SUBTASKS (Table 2 columns)
    knowledge_type  str   its knowledge type (KNOWLEDGE_TYPES)
    question_type   str   "multiple_choice" | "yes_or_no"
    platform        str   "desktop" | "mobile" (chooses the action-space text, appendix A.3)
    lang            str   one of LANGS
    question        str   the question text (effect: empty, the action is in ``action``; goal: the task)
    action          str   effect: the action call; parameter: the action call name; else ""
    options         list[str]  option texts in letter order ("" for image options); yes/no: yes, no, unknown
    option_images   list[str]  effect: one screenshot per option, in letter order; else []
    option_actions  list[str]  type: the action call name of each option ("" if not one); else []
    images          list[str]  the question's screenshots, in order (absolute paths)
    image_size      list[int]  [width, height] of images[0] in pixels (the frame of ``marks`` and of points)
    marks           str   JSON list of marks drawn on images[0]: {"kind": "box", "box": [x1, y1, x2, y2]},
                          {"kind": "point", "xy": [x, y], "label": "A"}, {"kind": "arrow", "from": .., "to": ..}
    answer          str   "A".."G" or "yes" | "no" | "unknown"
    source          str   "official" | "synthetic"
    variant         str   one of VARIANTS (red-box question, seed section 3.3)
    tip             str   official_tip: the needed_knowledge tip appended to the prompt; else "" (optional field)
    meta            str   JSON-encoded dict with anything else
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_metrics.knowledge import KNOWLEDGE_TYPES, SUBTASK_TYPE, SUBTASKS, YES_NO
from gui_core.actions import CALL_TYPES, DESKTOP_CALLS, MOBILE_CALLS
from gui_core.errors import DataError
from gui_core.languages import LANGS

PLATFORMS: tuple[str, ...] = ("desktop", "mobile")
QUESTION_TYPES: tuple[str, ...] = ("multiple_choice", "yes_or_no")
# plain: question_text; augmented: red box + augmented_question wherever given; official: that on Interface
# Perception only (the paper and the official runner); official_tip: official + the needed_knowledge tip.
VARIANTS: tuple[str, ...] = ("plain", "augmented", "official", "official_tip")
SOURCES: tuple[str, ...] = ("official", "synthetic")
LETTERS = "ABCDEFG"  # seven options at most: the desktop action types (seed section 3.4)
PLATFORM_CALLS: dict[str, tuple[str, ...]] = {"desktop": DESKTOP_CALLS, "mobile": MOBILE_CALLS}
MARK_KINDS: tuple[str, ...] = ("box", "point", "arrow")
# Synthetic rows also carry the red-box variant's question and marks; process_docs swaps them in (and drops them).
AUG_FIELDS: tuple[str, ...] = ("augmented_question", "augmented_marks")

__all__ = ["KNOWLEDGE_TYPES", "SUBTASKS", "SUBTASK_TYPE", "YES_NO", "LANGS", "PLATFORMS", "QUESTION_TYPES", "VARIANTS",
           "LETTERS", "PLATFORM_CALLS", "CALL_TYPES", "letters_for", "validate_doc"]


def letters_for(n_options: int) -> str:
    """The option letters of a multiple-choice question with ``n_options`` options."""
    return LETTERS[:n_options]


def validate_doc(doc: Mapping[str, Any], *, file: str, row_index: int) -> None:
    """Raise DataError naming file, row and field unless ``doc`` is a canonical GUI Knowledge Bench document."""

    def bad(name: str, why: str) -> DataError:
        return DataError(why, file=file, row=row_index, field=name)

    def strings(name: str) -> list[str]:
        value = doc.get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad(name, "must be a list of strings")
        return value

    if not isinstance(doc.get("id"), str) or not doc["id"]:
        raise bad("id", "must be a non-empty string")
    for name, allowed in (("subtask", SUBTASKS), ("question_type", QUESTION_TYPES), ("platform", PLATFORMS), ("lang", LANGS),
                          ("source", SOURCES), ("variant", VARIANTS)):
        if doc.get(name) not in allowed:
            raise bad(name, f"must be one of {allowed}, got {doc.get(name)!r}")
    if doc.get("knowledge_type") != SUBTASK_TYPE[doc["subtask"]]:
        raise bad("knowledge_type", f"must be {SUBTASK_TYPE[doc['subtask']]!r} for sub-task {doc['subtask']!r}")
    for name in ("question", "action"):
        if not isinstance(doc.get(name), str):
            raise bad(name, "must be a string")
    options, option_images, option_actions, images = (strings(n) for n in ("options", "option_images", "option_actions", "images"))
    if not images or not all(images):
        raise bad("images", "must be a non-empty list of paths")
    if doc["question_type"] == "yes_or_no":
        if options != list(YES_NO):
            raise bad("options", f"a yes/no question has the options {list(YES_NO)}")
        if doc.get("answer") not in YES_NO:
            raise bad("answer", f"must be one of {YES_NO}, got {doc.get('answer')!r}")
    else:
        if not 2 <= len(options) <= len(LETTERS):
            raise bad("options", f"a multiple-choice question needs 2 to {len(LETTERS)} options, got {len(options)}")
        if doc.get("answer") not in tuple(letters_for(len(options))):
            raise bad("answer", f"must be one of {letters_for(len(options))}, got {doc.get('answer')!r}")
    if doc["subtask"] == "effect" and (len(option_images) != len(options) or not all(option_images)):
        raise bad("option_images", "an action-effect question needs one screenshot per option")
    if option_actions and len(option_actions) != len(options):
        raise bad("option_actions", "must name one action per option")
    size = doc.get("image_size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise bad("image_size", "must be [width, height] in pixels")
    try:
        marks = json.loads(doc.get("marks", "[]"))
    except (TypeError, json.JSONDecodeError):
        raise bad("marks", "must be a JSON-encoded list") from None
    if not isinstance(marks, list) or not all(isinstance(m, dict) and m.get("kind") in MARK_KINDS for m in marks):
        raise bad("marks", f"must be a list of marks of kinds {MARK_KINDS}")
    try:
        meta = json.loads(doc.get("meta", "{}"))
    except (TypeError, json.JSONDecodeError):
        raise bad("meta", "must be a JSON-encoded object") from None
    if not isinstance(meta, dict):
        raise bad("meta", "must encode a JSON object")
