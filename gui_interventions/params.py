"""Checked intervention parameters: values arrive as strings from ``--model_args``; errors name parameter, value and range."""

from __future__ import annotations

import math
from typing import Any


def number(param: str, value: Any, *, low: float | None = None, high: float | None = None, low_open: bool = False,
           integer: bool = False) -> Any:
    """``value`` as a finite float (or int with ``integer``) within [low, high] (``low_open``: (low, high]).

    ``param`` is the full name used in model args (``gui_xli.alpha``), so the message says what to fix.
    """
    lo = "" if low is None else f"{'(' if low_open else '['}{low:g}"
    hi = "" if high is None else f"{high:g}]"
    kind = "an integer" if integer else "a finite number"
    allowed = kind + (f" in {lo or '(-inf'}, {hi or 'inf)'}" if lo or hi else "")
    try:
        if isinstance(value, bool):
            raise ValueError
        if integer:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            out: Any = int(str(value).strip()) if not isinstance(value, (int, float)) else int(value)
        else:
            out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{param}={value!r} is not {kind}; allowed: {allowed}") from None
    if not math.isfinite(out) or (low is not None and (out <= low if low_open else out < low)) or (high is not None and out > high):
        raise ValueError(f"{param}={value!r} is out of range; allowed: {allowed}")
    return out
