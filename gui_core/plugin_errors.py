"""How a plugin's failure is told: the exception, the file and line it came from, the traceback on request.

Shared by every plugin loader (metrics, interventions, task packages and their YAML files) so that each
message names the place to fix. ``GUI_EVAL_PLUGIN_TRACEBACK=1`` appends the full traceback.
"""

from __future__ import annotations

import os
import sys
import traceback
from contextvars import ContextVar
from typing import Any

TRACEBACK_ENV = "GUI_EVAL_PLUGIN_TRACEBACK"


def where(exc: BaseException) -> str | None:
    """``file:line`` of the error: the YAML mark of a YAML error, the file of a SyntaxError, else the innermost frame."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)  # yaml.MarkedYAMLError
    if mark is not None and getattr(mark, "name", None):
        return f"{mark.name}:{mark.line + 1}:{mark.column + 1}"
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen")]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None


def describe(exc: BaseException) -> str:
    """``repr(exc)`` with where it was raised; the traceback too when :data:`TRACEBACK_ENV` is set."""
    place = where(exc)
    if getattr(exc, "problem_mark", None) is not None:  # yaml.MarkedYAMLError: its repr shows Mark objects
        said = "; ".join(str(p) for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p)
        text = f"{type(exc).__name__}: {said}"
    else:
        text = repr(exc)
    text += f" at {place}" if place else ""
    if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
        return text + "\n" + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()
    return text + f" ({TRACEBACK_ENV}=1 shows the traceback)"


# ---- one plugin, one fault: loading one entry point (issue 54 item 5) ----------------------------------------------

_CURRENT: ContextVar[str | None] = ContextVar("gui_eval_loading_plugin", default=None)


def current_plugin() -> str | None:
    """The label of the plugin whose entry point is being loaded (``None``: our own code registers): a registry
    records it as the record's origin and names it in what it refuses."""
    return _CURRENT.get()


def plugin_label(ep: Any, what: str) -> str:
    """``<what> plugin 'name' (distribution: module:attr)``: how messages name an entry point."""
    from gui_core.plugin_dists import dist_name

    return f"{what} plugin {ep.name!r} ({dist_name(getattr(ep, 'dist', None))}: {ep.value})"


def load_contained(ep: Any, what: str) -> tuple[bool, Any]:
    """Load one entry point; any exception at its import, ``SystemExit`` included, is named on stderr and the plugin
    skipped: ``(False, None)``. ``KeyboardInterrupt`` still ends the process. While it loads,
    :func:`current_plugin` names it (records it registers are marked as its own)."""
    label = plugin_label(ep, what)
    token = _CURRENT.set(label)
    try:
        return True, ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit at import too: one plugin never ends a command or a run
        print(f"gui-eval: WARNING: {label} failed to load and is skipped: {describe(exc)}", file=sys.stderr, flush=True)
        return False, None
    finally:
        _CURRENT.reset(token)
