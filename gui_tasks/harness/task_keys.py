"""The YAML keys our tasks accept: a ``metadata`` or ``lmms_eval_specific_kwargs`` key that nothing reads is a
configuration error at task start (did you mean ...), never silence.

Each ``RowsTask`` subclass declares ``METADATA_KEYS`` and ``KWARGS_KEYS`` (what its code reads, and the records the
generator writes beside them, which ``conflicts`` checks against what the code derives) and may implement
``conflicts(meta, kwargs)`` (two fields that must agree, e.g. the prompt family and the scoring family).
"""

from __future__ import annotations

import difflib
import sys
from typing import Any, Iterable, Mapping

# Read or written for every task: lmms-eval's ``version``; ``benchmark`` (reports, results); the opt-in
# ``skip_bad_rows`` (gui_tasks.harness.bad_rows); and what the harness adds to a built task's metadata (it lands in the results'
# task config, which a re-run or a re-score may hand back).
COMMON_METADATA = frozenset({"version", "benchmark", "skip_bad_rows", "interaction", "interaction_reason", "not_run",
                             "bad_rows_skipped", "plugins", "repeats_refused"})


def _unknown(where: str, keys: Iterable[str], accepted: frozenset[str]) -> list[str]:
    out = []
    for key in sorted(set(keys) - accepted):
        close = difflib.get_close_matches(str(key), sorted(accepted), n=1)
        out.append(f"{where} key {key!r} is read by nothing" + (f" (did you mean {close[0]!r}?)" if close else "")
                   + f"; accepted: {', '.join(sorted(accepted)) or 'none'}")
    return out


def merged_metadata(meta: Any) -> dict[str, Any]:
    """A config's ``metadata`` as one dict (lmms-eval may keep a list of them)."""
    if isinstance(meta, list):
        out: dict[str, Any] = {}
        for m in meta:
            out.update(m or {})
        return out
    return dict(meta) if isinstance(meta, Mapping) else {}


def default_kwargs(kwargs: Any) -> dict[str, Any]:
    """The ``default`` section of ``lmms_eval_specific_kwargs`` (what doc_to_text sees for a model without its own)."""
    if not isinstance(kwargs, Mapping):
        return {}
    section = kwargs.get("default")
    return dict(section) if isinstance(section, Mapping) else {k: v for k, v in kwargs.items() if not isinstance(v, Mapping)}


def config_problems(cls: type, config: Mapping[str, Any]) -> list[str]:
    """One line per configuration error of a task config for task class ``cls`` (empty: the config is fine)."""
    meta = merged_metadata(config.get("metadata"))
    declared = getattr(cls, "METADATA_KEYS", None)
    if declared is None:  # a task class that declares nothing is not checked
        return []
    problems = _unknown("metadata", meta, COMMON_METADATA | declared)
    kwargs = config.get("lmms_eval_specific_kwargs")
    if isinstance(kwargs, Mapping) and getattr(cls, "KWARGS_KEYS", None) is not None:  # sections (default, a model's name) of keys, or keys directly
        keys = {k for v in kwargs.values() if isinstance(v, Mapping) for k in v}
        keys |= {k for k, v in kwargs.items() if not isinstance(v, Mapping)}
        problems += _unknown("lmms_eval_specific_kwargs", keys, getattr(cls, "KWARGS_KEYS", frozenset()))
    if not problems:
        check = getattr(cls, "conflicts", None)
        try:
            problems = list(check(meta, default_kwargs(kwargs))) if check else []
        except (KeyError, ValueError) as exc:  # an unknown prompt or family: the task's own check names it later
            problems = [str(exc)]
    return problems


_REPORTED: list[str] = []


def report(task: str, problems: list[str]) -> None:
    """Repeat configuration errors at exit, after lmms-eval's own output (``RowsTask`` prints them when it meets them)."""
    if problems and not _REPORTED:
        import atexit

        atexit.register(_print_at_exit)
    _REPORTED.extend(f"task {task}: {p}" for p in problems)


def _print_at_exit() -> None:
    lines = "\n".join(f"  {m}" for m in dict.fromkeys(_REPORTED))
    print(f"\ngui-eval: tasks not run (configuration errors):\n{lines}", file=sys.stderr, flush=True)
