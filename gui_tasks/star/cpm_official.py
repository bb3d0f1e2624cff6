"""An AgentCPM-GUI answer as the two evaluation pipelines built on AgentCPM-GUI's evaluator read it, whole.

- ``agentcpm``: OpenBMB/AgentCPM-GUI@acbaf509 ``eval/run_predict_minicpm.py`` ``extract_and_validate_json``
  (``json.loads`` of the whole answer, then ``jsonschema.validate`` against ``eval/utils/schema/
  schema_for_extraction.json``), ``eval/utils/convert_output.py`` ``parse_action`` and ``eval/utils/evaluator.py``
  ``ActionEvaluator.action_map``. Fenced JSON, leading prose, ``<think>``, extra keys, decimals, strings or values
  outside 0-1000 in ``POINT`` fail the schema and are no action.
- ``guievalkit``: xiaomi-research/guievalkit@d5e954e ``guieval/models/agentcpm_gui.py`` (``parse_response``: the first
  brace-balanced block that ``json.loads`` reads, ``ParserTools.parse_json_dict_block``), ``guieval/utils/
  action_space.py`` ``ActionType.action_map`` (any ``STATUS`` but ``finish`` is no action), ``guieval/main/
  step_task.py`` + ``guieval/eval/convert_output.py`` (its own schema, which adds ``OPEN_APP`` and ``INPUT``) and
  ``guieval/eval/evaluator.py`` ``action_map`` (``OPEN_APP`` is "open", a bare ``duration`` "wait"). The adapter reads
  ``parsed_matches['answer'].group(1)`` of the pattern ``r'.*'``, which has no group 1 (every answer raises there and
  scores a miss); this reading takes group 0, the whole answer, which the pattern evidently means.

The JSON schema is checked here by hand (the checks the two schema files make, jsonschema's draft 2020-12 semantics:
an integer is an ``int`` that is not a ``bool`` or a ``float`` with no fraction). Never raises on model output.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

Pipeline = Literal["agentcpm", "guievalkit"]
DEFAULT_DURATION = 200  # schema_for_extraction.json properties.duration.default
_STOP = ("finish", "satisfied", "impossible", "interrupt", "need_feedback")  # evaluator.py self._stop_status
_STATUS = ("continue", "start", "finish", "satisfied", "impossible", "interrupt", "need_feedback")
_KEYS = {"agentcpm": frozenset({"thought", "POINT", "to", "duration", "PRESS", "TYPE", "DEEP_LINK", "CLEAR", "STATUS"}),
         "guievalkit": frozenset({"thought", "OPEN_APP", "POINT", "to", "duration", "PRESS", "TYPE", "DEEP_LINK", "CLEAR",
                                  "INPUT", "STATUS"})}
# the schema's oneOf: at most one of these keys; allOf[1]: one of NEEDS_ONE unless STATUS says the task ends
_EXCLUSIVE = {"agentcpm": ("POINT", "PRESS", "TYPE", "DEEP_LINK", "CLEAR"),
              "guievalkit": ("POINT", "PRESS", "TYPE", "DEEP_LINK", "CLEAR", "INPUT")}
_NEEDS_ONE = {"agentcpm": ("POINT", "PRESS", "TYPE", "DEEP_LINK", "CLEAR", "duration"),
              "guievalkit": ("POINT", "PRESS", "TYPE", "DEEP_LINK", "CLEAR", "duration", "OPEN_APP", "INPUT")}
# convert_output.py: the keys copied into ACTION
_ACTION_KEYS = {"agentcpm": ("POINT", "to", "PRESS", "TYPE"), "guievalkit": ("POINT", "to", "PRESS", "TYPE", "OPEN_APP", "duration")}
DIRECTIONS = ("up", "down", "left", "right")


@dataclass(frozen=True)
class CpmAction:
    """The evaluator's reading: ``kind`` is its action type (click, long_point, scroll, type, open, press, stop, wait)."""

    kind: str
    point: tuple[float, float] | None = None  # relative (x, y): POINT / 1000
    direction: str | None = None  # the finger's word (get_direction), or "no direction"
    text: str | None = None  # TYPE text / OPEN_APP name
    button: str | None = None  # PRESS, lower-cased


def _integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _location(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_integer(c) and 0 <= c <= 1000 for c in v)


def schema_valid(o: Any, pipeline: Pipeline) -> bool:
    """``jsonschema.validate(o, schema_for_extraction.json)`` of the pipeline's repository, without raising."""
    if not isinstance(o, dict) or not set(o) <= _KEYS[pipeline]:
        return False
    checks = {"thought": lambda v: isinstance(v, str), "OPEN_APP": lambda v: isinstance(v, str), "POINT": _location,
              "to": lambda v: (isinstance(v, str) and v in DIRECTIONS) != _location(v),
              "duration": lambda v: _integer(v) and v >= 0, "PRESS": lambda v: v in ("HOME", "BACK", "ENTER", "APPSELECT"),
              "TYPE": lambda v: isinstance(v, str), "DEEP_LINK": lambda v: v is None, "CLEAR": lambda v: v is None,
              "INPUT": lambda v: isinstance(v, dict) and set(v) == {"point", "text"} and _location(v["point"])
              and isinstance(v["text"], str),
              "STATUS": lambda v: isinstance(v, str) and v in _STATUS}
    if not all(checks[k](v) for k, v in o.items()):
        return False
    if "to" in o and "POINT" not in o:
        return False
    if o.get("STATUS", "continue") in ("continue", "start") and not any(k in o for k in _NEEDS_ONE[pipeline]):
        return False
    return sum(k in o for k in _EXCLUSIVE[pipeline]) <= 1


def _brace_blocks(text: str) -> list[tuple[int, int]]:
    """``ParserTools.fetch_matched_exterior_braces``: outermost ``{...}`` spans by brace counting (strings not skipped)."""
    if text.count("{") * text.count("}") == 0:
        return []
    pairs, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            if not depth:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if not depth and i > start:
                pairs.append((start, i))
    return pairs


def _guievalkit_arguments(text: str) -> dict | None:
    """``parse_response`` + ``model_2_minicpm``: the first block ``json.loads`` reads; None where either raises or the
    action is None (``ActionType.action_map``: a STATUS other than finish, an unknown action, an uncomparable duration)."""
    for a, b in _brace_blocks(text.strip()):
        try:
            args = json.loads(text.strip()[a:b + 1])
        except ValueError:
            continue
        break
    else:
        return None
    if not isinstance(args, dict):
        return None
    try:
        if "STATUS" in args:
            return args if args["STATUS"] == "finish" else None
        if "TYPE" in args or "OPEN_APP" in args:
            return args
        if "POINT" in args:
            if "to" in args:
                args.get("duration", 0) <= 200  # noqa: B015 - raises TypeError where the official comparison does
            elif "duration" in args:
                args.get("duration", 1000) > 200  # noqa: B015
            return args
        return args if "PRESS" in args or "duration" in args else None
    except TypeError:
        return None


def _finger_word(start: Any, to: Any) -> str:
    """``get_direction``: a word as it is; a point: the axis word of largest cosine, first of up, down, left, right."""
    if isinstance(to, str):
        return to if to in DIRECTIONS else "no direction"
    vx, vy = to[0] - start[0], to[1] - start[1]
    n = math.sqrt(vx ** 2 + vy ** 2)
    if n == 0:
        return "no direction"
    best, word = -math.inf, "no direction"
    for name, (dx, dy) in zip(DIRECTIONS, ((0, -1), (0, 1), (-1, 0), (1, 0))):
        cos = (vx / n * dx + vy / n * dy) / 1.0
        if cos > best:
            best, word = cos, name
    return word


def _json_answer(text: str) -> Any:
    """AgentCPM-GUI's ``run_predict_minicpm.py``: the whole answer is ``json.loads``-ed (None: it raises)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


# how each pipeline finds the answer's object, and what an answer with no action key is
_ANSWER_OF = {"agentcpm": _json_answer, "guievalkit": _guievalkit_arguments}
_NO_ACTION = {"agentcpm": "stop", "guievalkit": "wait"}


def read(text: str | None, pipeline: Pipeline) -> CpmAction | None:
    """The evaluator's action for an AgentCPM-GUI answer; None: no action (the official ``format_hit`` is False)."""
    if not isinstance(text, str):
        return None
    o = _ANSWER_OF[pipeline](text)
    if o is None or not schema_valid(o, pipeline):
        return None
    action = {k: o[k] for k in _ACTION_KEYS[pipeline] if k in o}
    duration = o.get("duration", DEFAULT_DURATION)
    status = o.get("STATUS", "continue")
    if status in _STOP:
        return CpmAction("stop")
    if "TYPE" in action:
        return CpmAction("type", text=action["TYPE"])
    if "OPEN_APP" in action:
        return CpmAction("open", text=action["OPEN_APP"])
    if "POINT" in action:
        x, y = action["POINT"]
        if "to" not in o and duration == DEFAULT_DURATION:
            return CpmAction("click", point=(x / 1000, y / 1000))
        if "to" in o and duration == DEFAULT_DURATION:
            return CpmAction("scroll", direction=_finger_word(action["POINT"], o["to"]))
        if duration > DEFAULT_DURATION:
            return CpmAction("long_point", point=(x / 1000, y / 1000))
    if "PRESS" in action:
        return CpmAction("press", button=action["PRESS"].lower())
    return CpmAction(_NO_ACTION[pipeline])  # "duration" is always among the arguments
