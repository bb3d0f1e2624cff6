"""Answers replayed by lmms-eval's ``--use_cache``, given back what scoring reads beyond their text, or refused.

lmms-eval 0.7.3's response cache (``lmms_eval/caching/response_cache.py``: ``ResponseCache.execute`` stores
``json.dumps(response)`` in a per-rank SQLite file and, on a hit, hands the stored JSON back without calling the model)
keeps a response's text only: a ``gui_core.logit_capture.CapturedResponse`` comes back as a plain ``str``, without
its digit capture (PSS, perplexity) or its extras (the image sizes the model saw). The backend never sees a hit.

So a backend that keeps its answers in a run journal (``gui_models.run_journal``) registers a :class:`Source` here
when the lmms-eval command line has ``--use_cache``; the tasks' ``process_results`` (``gui_tasks.harness.lmms_rows``)
hand every plain-text answer to :func:`restore`, which returns the journal's answer with the same text for that
document (side channel attached), or, when the source says what would be lost (``capture_logits=digits``: PSS and
perplexity), raises :class:`LostSideChannel` naming those metrics: the run stops instead of reporting them as
missing. Without a registered source nothing changes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from gui_core.sample_faults import RunFault, doc_key


class LostSideChannel(RunFault):
    """A replayed answer whose side channel (digit capture) no journal holds: the run's error, never a sample's."""


@dataclass(frozen=True)
class Source:
    """Where replayed answers get their side channel back: ``lookup(task, doc_key, text)`` (None: not held)."""

    owner: str
    lookup: Callable[[str, str, str], Any]
    where: str
    """The journal's folder, named in messages."""
    lost: str | None = None
    """What a replayed answer without its side channel would lose (e.g. the metrics of ``capture_logits=digits``);
    None: nothing a run cannot do without (the answer is then scored as replayed)."""


_SOURCES: list[Source] = []
_LOCK = threading.Lock()


def register(source: Source) -> None:
    """Add ``source`` (a backend's journal, while lmms-eval's ``--use_cache`` is on)."""
    with _LOCK:
        _SOURCES[:] = [s for s in _SOURCES if s.where != source.where] + [source]


def clear() -> None:
    """Forget every source (tests; a process that builds a second model)."""
    with _LOCK:
        _SOURCES.clear()


def _restore_one(task: str, doc: Any, answer: Any, sources: Sequence[Source]) -> Any:
    if type(answer) is not str:  # noqa: E721 - a CapturedResponse (live answer) or a nested list is left alone
        return answer
    key = doc_key(doc)
    for source in sources:
        found = source.lookup(task, key, answer)
        if found is not None:
            return found
    needs = [s for s in sources if s.lost]
    if needs:
        s = needs[0]
        raise LostSideChannel(
            f"{s.owner}: task {task}, document {key}: an answer replayed by lmms-eval's --use_cache has no "
            f"side channel and the run journal ({s.where}) does not hold it; {s.lost} would be lost for it. Run without "
            "--use_cache (the run journal resumes the run), or with the --use_cache folder the answers were "
            "generated with (docs/running.md, 'Resume a long run')")
    return answer


def restore(task: str, doc: Any, outputs: Any) -> Any:
    """``outputs`` (a task's ``process_results`` list of answers) with replayed answers given their side channel back."""
    with _LOCK:
        sources = list(_SOURCES)
    if not sources or not isinstance(outputs, list):
        return outputs
    out = []
    for answer in outputs:
        if isinstance(answer, list):  # repeats: lmms-eval nests the answers
            out.append([_restore_one(task, doc, a, sources) for a in answer])
        else:
            out.append(_restore_one(task, doc, answer, sources))
    return out
