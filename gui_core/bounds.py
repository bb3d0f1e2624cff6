"""The bounds on what a document, a data file or a server may ask of a run, each defined once here (docs/security.md).

A document past a bound is that document's named error (its sample is scored as an empty answer; the run goes on);
a file past one is refused by name. The checks never raise anything but ``BoundError`` (a ``ValueError``) and take
time linear in their input.

- prompt length (:data:`MAX_PROMPT_CHARS`) and images per document (:data:`MAX_IMAGES_PER_DOC`): checked on every
  request before it reaches a model (``gui_models.generation_core.contained_request``);
- image aspect ratio (:data:`MAX_ASPECT_RATIO`): Qwen2-VL's ``smart_resize`` raises above 200:1, so every decode of
  ours refuses it (``gui_core.images``: at load, in ``gui-eval data check`` and on every request);
- numbers in JSON read from outside (:func:`loads`): NaN and +-Infinity refused, integers of more than
  :data:`MAX_INT_DIGITS` digits refused (Python would spend quadratic time converting a 5,000-digit one, then raise a
  ValueError naming nothing), floats beyond the double range refused;
- nesting depth of JSON values (:data:`MAX_JSON_DEPTH`, :func:`check_depth`, no recursion);
- generation settings from a file (:data:`MAX_NEW_TOKENS`: ``gui-eval validate`` refuses more, ``verify`` caps);
- cache entries (:data:`MAX_CACHE_STORE_BYTES`: a larger answer is used for its sample, never stored);
- archives of a data release (:data:`MAX_ZIP_MEMBER_BYTES`, :data:`MAX_ZIP_TOTAL_BYTES`, :data:`MAX_ZIP_RATIO`,
  :data:`MAX_ZIP_MEMBERS`): ``gui_core.archives``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

MAX_PROMPT_CHARS_ENV = "GUI_EVAL_MAX_PROMPT_CHARS"
# 262,144 characters: about 64k tokens of English, above every prompt of the benchmarks here (the longest, STaR's
# agentic history, stays under 20,000) and past the context of the models they evaluate (Qwen2-VL: 32,768 tokens).
MAX_PROMPT_CHARS = 1 << 18
MAX_IMAGES_PER_DOC = 64  # the benchmarks here send 1 (grounding, MPR-GUI, GKB) to a few (STaR, SPHINX history)
MAX_ASPECT_RATIO = 200  # Qwen2-VL's smart_resize: "absolute aspect ratio must be smaller than 200"
MAX_INT_DIGITS = 30  # any id, count, size or coordinate of a benchmark fits; 10**30 is past every one
MAX_JSON_DEPTH = 64  # the deepest benchmark row here (a SPHINX trajectory step) is under 10 levels
MAX_NEW_TOKENS = 32_768  # no benchmark here asks for more than 4,096; a file asking more is not an honest run
MAX_CACHE_STORE_BYTES = 8 << 20  # a response cache entry: a few KiB of text and logprobs; 8 MiB is far past it
# Archives from a data release (gui_core.archives: MMBench-GUI's images zip), checked against the header and while
# streaming. A screenshot is a few MiB and stored (PNG does not compress again): 1:1; 100:1 is a bomb's mark.
MAX_ZIP_MEMBER_BYTES = 256 << 20
MAX_ZIP_TOTAL_BYTES = 64 << 30
MAX_ZIP_RATIO = 100  # uncompressed / compressed, for a member (or the whole) above MAX_ZIP_RATIO_FLOOR bytes
MAX_ZIP_RATIO_FLOOR = 1 << 20  # small members may compress well (a JSON of zeros): below this the ratio is not asked
MAX_ZIP_MEMBERS = 1_000_000


class BoundError(ValueError):
    """An input past one of the bounds above (the message names the bound and the value)."""


def max_prompt_chars() -> int:
    """The prompt bound: ``$GUI_EVAL_MAX_PROMPT_CHARS`` when set (a positive integer), else :data:`MAX_PROMPT_CHARS`."""
    raw = os.environ.get(MAX_PROMPT_CHARS_ENV, "").strip()
    if not raw:
        return MAX_PROMPT_CHARS
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"${MAX_PROMPT_CHARS_ENV}={raw!r} must be a positive integer (characters)")
    return int(raw)


def check_request(text: Any, images: Any) -> None:
    """A request's prompt (characters) and image count within their bounds; :class:`BoundError` naming the bound."""
    limit = max_prompt_chars()
    n = len(text) if isinstance(text, str) else len(str(text))
    if n > limit:
        raise BoundError(f"the prompt has {n} characters, above the bound of {limit} (${MAX_PROMPT_CHARS_ENV})")
    count = len(images or ())
    if count > MAX_IMAGES_PER_DOC:
        raise BoundError(f"{count} images in one document, above the bound of {MAX_IMAGES_PER_DOC}")


def check_aspect(width: int, height: int) -> None:
    """:class:`BoundError` for an image whose long side is more than :data:`MAX_ASPECT_RATIO` times its short one."""
    lo, hi = min(width, height), max(width, height)
    if lo > 0 and hi / lo > MAX_ASPECT_RATIO:
        raise BoundError(f"{width} x {height} pixels: aspect ratio {hi / lo:.1f} is above {MAX_ASPECT_RATIO} "
                         "(Qwen2-VL's image processor refuses it)")


def _constant(name: str) -> Any:
    raise BoundError(f"{name} is not a number JSON allows (NaN and Infinity are refused)")


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise BoundError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS}): {text[:20]}...")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BoundError(f"the number {text[:40]} is beyond the range of a double")
    return value


def loads(text: str | bytes) -> Any:
    """``json.loads`` with the number bounds above; :class:`BoundError` for a refused number, ``ValueError`` (json's
    own, naming line and column) for text that is not JSON, and :class:`BoundError` past :data:`MAX_JSON_DEPTH`."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_int=_int, parse_float=_float)
    except RecursionError:
        raise BoundError(f"nested deeper than Python can parse (the bound is {MAX_JSON_DEPTH} levels)") from None
    check_depth(value)
    return value


def depth_of(value: Any, stop: int | None = None) -> int:
    """How many levels of lists and objects ``value`` nests (a scalar: 0), without recursion; stops counting past
    ``stop``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if stop is not None and deepest > stop:
            return deepest
        stack.extend((c, level) for c in children)
    return deepest


def check_depth(value: Any, limit: int = MAX_JSON_DEPTH, what: str = "a JSON value") -> None:
    """:class:`BoundError` when ``value`` nests deeper than ``limit`` levels."""
    if depth_of(value, stop=limit) > limit:
        raise BoundError(f"{what} nested deeper than {limit} levels")


def is_finite(value: Any) -> bool:
    """A real number that is neither NaN nor infinite (bools excluded)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def finite_number(value: Any, what: str) -> float:
    """``value`` as a finite float (bools refused); :class:`BoundError` naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BoundError(f"{what}: expected a number, got {type(value).__name__}")
    try:
        out = float(value)
    except OverflowError:
        raise BoundError(f"{what}: the number is beyond the range of a double") from None
    if not math.isfinite(out):
        raise BoundError(f"{what}: {out} is not a finite number")
    return out


# Generation settings a file (a submission's --gen_kwargs) may ask for: token budgets and beam counts.
GEN_BUDGET_KEYS = ("max_new_tokens", "max_tokens", "max_completion_tokens", "max_length")
MAX_BEAMS = 16


def check_generation(gen_kwargs: Any) -> None:
    """A run's ``--gen_kwargs`` (lmms-eval's ``k=v,...`` string, or a mapping) within what an honest run uses: token
    budgets up to :data:`MAX_NEW_TOKENS`, at most :data:`MAX_BEAMS` beams; :class:`BoundError` naming the setting.
    ``gui-eval validate`` refuses such a file; ``verify`` never re-runs one (a budget of 10,000,000 tokens would never
    end)."""
    if not gen_kwargs:
        return
    if isinstance(gen_kwargs, str):
        pairs = [p.split("=", 1) for p in gen_kwargs.split(",") if "=" in p]
        items = {k.strip(): v.strip() for k, v in pairs}
    elif isinstance(gen_kwargs, dict):
        items = dict(gen_kwargs)
    else:
        raise BoundError(f"--gen_kwargs is a {type(gen_kwargs).__name__}, not k=v,... text")
    limits = {**{k: MAX_NEW_TOKENS for k in GEN_BUDGET_KEYS}, "num_beams": MAX_BEAMS}
    for key, limit in limits.items():
        if key not in items:
            continue
        raw = str(items[key])
        if len(raw) > MAX_INT_DIGITS:
            raise BoundError(f"--gen_kwargs {key}={raw[:20]}...: not a number an honest run uses")
        try:
            value = float(raw)
        except ValueError:
            raise BoundError(f"--gen_kwargs {key}={raw!r} is not a number") from None
        if not math.isfinite(value) or value > limit or value < 0:
            raise BoundError(f"--gen_kwargs {key}={raw} is outside 0..{limit} (gui_core.bounds): no honest run uses it")


class Refused(str):
    """A JSON number :func:`loads_marked` kept as its text because it is past the number bounds (NaN, Infinity, an
    integer of more than :data:`MAX_INT_DIGITS` digits, a float beyond a double); :func:`row_problem` names it."""


def _marked_int(text: str) -> Any:
    return Refused(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _marked_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else Refused(text)


def loads_marked(text: str | bytes) -> Any:
    """``json.loads`` that never fails on a number: each one past the bounds becomes a :class:`Refused` marker, so a
    file of rows costs only the rows that hold one (:func:`row_problem`), not the whole file."""
    return json.loads(text, parse_constant=Refused, parse_int=_marked_int, parse_float=_marked_float)


def _number_problem(value: Any) -> str | None:
    if isinstance(value, Refused):
        text = str(value)
        if text.lstrip("-").isdigit():
            return f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS}): {text[:20]}..."
        return f"{text[:40]} is not a finite number (NaN, Infinity and numbers beyond a double are refused)"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** MAX_INT_DIGITS:
        return f"an integer of more than {MAX_INT_DIGITS} digits"
    return None


def _child_path(path: str, key: Any) -> str:
    """``bbox[0]``, ``meta.size``: how a field inside a row is named in errors."""
    if isinstance(key, str):
        return f"{path}.{key}" if path else key
    return f"{path}[{key}]"


def row_problem(row: Any, limit: int = MAX_JSON_DEPTH) -> tuple[str, str] | None:
    """The first value of a data row past a bound, as (field path, reason): a refused or non-finite number, nesting
    deeper than ``limit``; None for a healthy row. Walks the row without recursion, in its own order."""
    stack: list[tuple[Any, str, int]] = [(row, "", 0)]
    while stack:
        value, path, level = stack.pop()
        problem = _number_problem(value)
        if problem:
            return path or "<row>", problem
        if isinstance(value, (dict, list, tuple)):
            if level >= limit:
                return path or "<row>", f"nested deeper than {limit} levels"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = [(v, _child_path(path, k), level + 1) for k, v in items]
            stack.extend(reversed(children))
    return None
