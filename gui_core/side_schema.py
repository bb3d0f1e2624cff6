"""The one schema of a logged side channel (``gui_core.logit_capture.response_side``): what ``validate`` checks before
anything reads a submission's captures, so that a forged capture is refused by its form (issue 54).

A side channel is ``{"capture": key-digit capture?, "extras": {scored extra: value}?}``. The key-digit capture
(``key_digits_json``) holds its form, version, kind, ``n_steps`` and ``logprob_sum`` (both or neither: the
perplexity's numerator and denominator) and per kept step its span and exactly ten finite digit values; a
``top_logprobs`` step names the digits absent from the returned top-k and the floor they were set to, an ``exact``
step has neither. A crop's first prediction carries its own capture, checked the same way.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from gui_core.bounds import is_finite
from gui_core.logit_capture import CAPTURE_KINDS, CAPTURE_VERSION, KEY_DIGIT_FORM, SCORED_EXTRAS

CAPTURE_FIELDS = {"form", "version", "kind", "n_steps", "logprob_sum", "steps"}
STEP_FIELDS = {"start", "end", "digits", "missing", "floor"}
MAX_STEPS = 32_768  # a response's tokens: validate's bound on a budget (gui_core.bounds) caps real ones below this
MAX_SPAN = 8 * 1024 * 1024  # characters: a response is at most the cache entry bound
LOGPROB_SLACK = 1e-3  # a log-probability computed as logit - logsumexp may round a hair above 0


def _count(value: Any, top: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top


def capture_problem(capture: Any, where: str = "capture") -> str | None:
    """None when ``capture`` is a well-formed key-digit capture; else what is wrong, naming the field."""
    if not isinstance(capture, Mapping):
        return f"{where}: not an object"
    extra = sorted(set(capture) - CAPTURE_FIELDS)
    if extra:
        return f"{where}: unknown field(s) {extra}"
    if capture.get("form") != KEY_DIGIT_FORM:
        return f"{where}.form: {capture.get('form')!r}, expected {KEY_DIGIT_FORM!r}"
    if capture.get("version") != CAPTURE_VERSION:
        return f"{where}.version: {capture.get('version')!r}, expected {CAPTURE_VERSION!r}"
    kind = capture.get("kind")
    if kind not in CAPTURE_KINDS:
        return f"{where}.kind: {kind!r}, expected one of {list(CAPTURE_KINDS)}"
    n_steps, total = capture.get("n_steps"), capture.get("logprob_sum")
    if not _count(n_steps, MAX_STEPS):
        return f"{where}.n_steps: {n_steps!r}, expected an integer 0..{MAX_STEPS}"
    # the perplexity's numerator: a finite sum of log-probabilities (<= 0, a rounding's worth above allowed) over
    # n_steps; null only without steps, or for a top_logprobs capture whose server left a chosen token's out
    unknown_ok = n_steps == 0 or kind == "top_logprobs"
    if total is None or (isinstance(total, float) and math.isnan(total)):
        if not unknown_ok:
            return f"{where}.logprob_sum: null with n_steps {n_steps} (an exact capture sums its steps' log-probabilities)"
    elif not (is_finite(total) and total <= LOGPROB_SLACK) or n_steps == 0:
        return f"{where}.logprob_sum: {total!r} with n_steps {n_steps} (a finite sum <= 0 over the steps expected)"
    steps = capture.get("steps")
    if not isinstance(steps, list) or len(steps) > n_steps:
        return f"{where}.steps: expected a list of at most n_steps ({n_steps}) steps"
    last_end = 0
    for i, step in enumerate(steps):
        at = f"{where}.steps[{i}]"
        if not isinstance(step, Mapping):
            return f"{at}: not an object"
        extra = sorted(set(step) - STEP_FIELDS)
        if extra:
            return f"{at}: unknown field(s) {extra}"
        start, end = step.get("start"), step.get("end")
        if not (_count(start, MAX_SPAN) and _count(end, MAX_SPAN) and last_end <= start < end):
            return f"{at}: span {start!r}..{end!r} (increasing, non-overlapping character offsets expected)"
        last_end = end
        digits = step.get("digits")
        if not isinstance(digits, list) or len(digits) != 10 or not all(is_finite(v) for v in digits):
            n = len(digits) if isinstance(digits, list) else None
            return f"{at}.digits: expected exactly ten finite values{'' if n is None else f', got {n}'}"
        missing, floor = step.get("missing"), step.get("floor")
        if kind == "exact":
            if missing or floor is not None:
                return f"{at}: an exact capture has no missing digits and no floor"
            continue
        missing = missing or []
        if not isinstance(missing, list) or len(set(missing)) != len(missing) or \
                not all(_count(d, 9) for d in missing):
            return f"{at}.missing: expected distinct digits 0..9"
        if floor is None:
            if missing:
                return f"{at}.floor: missing digits {missing} without the floor they were set to"
            continue
        if not is_finite(floor) or floor > LOGPROB_SLACK:
            return f"{at}.floor: {floor!r}, expected a finite log-probability <= 0"
        if any(digits[d] != floor for d in missing):
            return f"{at}: a missing digit's value is not the step's floor {floor!r}"
    return None


def side_problem(side: Any) -> str | None:
    """None when ``side`` is a well-formed logged side channel; else the first problem, naming the field."""
    if not isinstance(side, Mapping):
        return "side: not an object"
    extra = sorted(set(side) - {"capture", "extras"})
    if extra:
        return f"side: unknown field(s) {extra}"
    if "capture" in side:
        problem = capture_problem(side["capture"], "side.capture")
        if problem:
            return problem
    extras = side.get("extras", {})
    if not isinstance(extras, Mapping):
        return "side.extras: not an object"
    unknown = sorted(set(extras) - set(SCORED_EXTRAS))
    if unknown:
        return f"side.extras: unknown field(s) {unknown}"
    crop = extras.get("crop")
    if crop is not None:
        if not isinstance(crop, Mapping):
            return "side.extras.crop: not an object"
        if crop.get("first_capture") is not None:
            return capture_problem(crop["first_capture"], "side.extras.crop.first_capture")
    return None


def capture_kinds(side: Any) -> set[str]:
    """The capture kinds a well-formed side channel holds (its own and its crop's first prediction's)."""
    out = set()
    if isinstance(side, Mapping):
        if isinstance(side.get("capture"), Mapping):
            out.add(side["capture"].get("kind"))
        crop = (side.get("extras") or {}).get("crop")
        if isinstance(crop, Mapping) and isinstance(crop.get("first_capture"), Mapping):
            out.add(crop["first_capture"].get("kind"))
    return out
