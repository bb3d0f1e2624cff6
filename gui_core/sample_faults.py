"""The named errors of samples, met anywhere between the outside world and a score (one registry for the process).

A step that meets a fault for one document (its images cannot be decoded, its prompt cannot be written, the server
gave no usable text for it) records it here under (task, document key); the task's ``process_results``
(``gui_tasks.harness.lmms_rows``) reads it back, scores the sample as an empty answer and writes the error into the samples
file (``sample_error``), and the results count the samples that had one. The first fault met for a document wins.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Mapping
from typing import Any

DOC_ERROR = "gui_eval_error"  # a document field: why this document cannot be run (its loader found out)
SAMPLE_ERROR = "sample_error"  # a sample's named error in the samples file; in the results, how many samples had one

MAX_FAULT_CHARS = 600

class RunFault(ValueError):
    """A fault no document of the run gets past (a setting, or a memory, that does not fit the model): the run's error,
    never a sample's. Per-document containment (``gui_hf``) lets it through, so the run stops with its message instead
    of scoring every sample as an empty answer."""


_FAULTS: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()


def describe_fault(step: str, exc: BaseException) -> str:
    """One line naming the step that met the fault and its cause (the exception's type and message, cut), secrets
    redacted (``gui_core.redact``: a server's text may echo a token; this line reaches results and caches)."""
    from gui_core.redact import redact_text

    text = redact_text(f"{type(exc).__name__}: {exc}").replace("\n", " ")
    if len(text) > MAX_FAULT_CHARS:
        text = text[:MAX_FAULT_CHARS] + " ..."
    return f"{step}: {text}"


def doc_key(doc: Any) -> str:
    """The key of a document: its ``id``, else a digest of its JSON."""
    did = doc.get("id") if isinstance(doc, Mapping) else None
    if did is not None:
        return str(did)
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


def record(task: str, doc: Any, message: str) -> str:
    """Keep ``message`` as the named error of ``doc`` in ``task`` (the first one met wins; said once on stderr)."""
    key = (str(task), doc_key(doc))
    with _LOCK:
        first = key not in _FAULTS
        _FAULTS.setdefault(key, message)
        kept = _FAULTS[key]
    if first:
        print(f"gui-eval: {task}: document {key[1]}: {message}; this sample is scored as an empty answer and the run "
              "goes on", file=sys.stderr, flush=True)
    return kept


def fault_of(task: str, doc: Any) -> str | None:
    """The named error of ``doc`` in ``task``: its loader's (``DOC_ERROR``) or one recorded since; None when healthy."""
    own = doc.get(DOC_ERROR) if isinstance(doc, Mapping) else None
    if own:
        return str(own)
    with _LOCK:
        return _FAULTS.get((str(task), doc_key(doc)))


def served_fault(extras: Mapping[str, Any] | None) -> str | None:
    """What a backend noted on a response without usable text (``bad_response``: no usable answer within the retry
    budget; ``request_error``: the request failed for good, e.g. a 4xx, a refused redirect, the retry budget spent;
    ``tool_call_only``: tool calls and no text), as a sample's named error; None otherwise."""
    extras = extras or {}
    if extras.get("request_error"):
        return f"the request failed: {extras['request_error']}"
    if extras.get("bad_response"):
        return f"the server gave no usable answer: {extras['bad_response']}"
    call = extras.get("tool_call_only")
    if isinstance(call, Mapping):
        return (f"the server answered with {call.get('tool_calls')} tool call(s) ({', '.join(call.get('names') or [])}) "
                "and no text")
    return None
