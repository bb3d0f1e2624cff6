"""Thinking models: the thinking switch, the reasoning budget, and the answer read after the reasoning (issue 51).

One place for what every backend (``gui_hf``, ``gui_wrap``, ``gui_openai``) and the task harness share:

- :func:`thinking_mode` / :func:`reasoning_tags`: the model args ``thinking=on|off`` (unset: the model's default) and
  ``reasoning_tags`` (a JSON list of ``[open, close]`` pairs, as lmms-eval 0.7.3's ``--reasoning_tags``;
  default ``[["<think>", "</think>"]]``, the Qwen3 / Qwen3-VL Thinking / GUI-R1 tags).
- :func:`answer_budget`: with thinking on, a request's token budget is the task's answer budget plus ``think_budget``
  (:data:`DEFAULT_THINK_BUDGET`), and the task's stop strings apply only to the answer after the reasoning.
- :func:`split_reasoning`: the answer is the text after the last closing tag. A reasoning that never closes is no
  answer at all: cut by the token budget it is the named outcome ``thinking_truncated``
  (:data:`THINKING_TRUNCATED`), counted per task beside the format-error rate, never read as a (wrong) answer.
- :func:`note` / :func:`notes_of`: what each generation's reading found (:class:`ReasoningNote`), kept per
  (task, document) for the task's ``process_results`` (``gui_tasks.harness.reasoning_results``), as
  ``gui_core.sample_faults`` keeps named errors: lmms-eval's own reasoning-tag pass returns a plain ``str``, so a note
  riding on the response would be lost for tasks that let lmms-eval strip.
- :func:`answer_part`: a response (with its digit capture) cut to the answer after the reasoning, so the digit capture
  and PSS read the answer's digits and never digits inside the reasoning.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping, Sequence

THINKING_MODES = ("on", "off")
THINKING_TRUNCATED = "thinking_truncated"  # per-sample metric: 1 when the reasoning was cut by its token budget
REASONING_TOKENS = "reasoning_tokens"  # per-sample metric: tokens the model spent reasoning (None: not known)
REASONING_KEY = "reasoning"  # the samples-file field and the extras key holding a response's reasoning note
DEFAULT_TAGS: tuple[tuple[str, str], ...] = (("<think>", "</think>"),)
# The reasoning budget added to the task's answer budget when thinking is on. Qwen3's model cards suggest 32,768 output
# tokens for reasoning tasks; GUI grounding / action answers need far less reasoning (GUI-R1-style models reason in a
# few hundred tokens), and a screenshot benchmark of thousands of samples cannot afford 32k per request. 8192 covers
# the long tail while keeping a run's cost bounded; a reasoning cut by it is counted (thinking_truncated), never hidden.
DEFAULT_THINK_BUDGET = 8192
DEFAULT_TEMPLATE_KEY = "enable_thinking"  # the chat template variable (Qwen3 / Qwen3-VL templates, vLLM, SGLang)


def thinking_mode(value: Any, owner: str) -> str | None:
    """``thinking`` as ``"on"``, ``"off"`` or None (unset: the model's own default); anything else is refused."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    text = str(value).strip().lower()
    aliases = {"true": "on", "1": "on", "yes": "on", "false": "off", "0": "off", "no": "off"}
    text = aliases.get(text, text)
    if text not in THINKING_MODES:
        raise ValueError(f"{owner}: thinking={value!r}; choose on or off (unset: the model's default)")
    return text


def think_budget(value: Any, owner: str) -> int:
    """``think_budget``: reasoning tokens allowed on top of the task's answer budget (default :data:`DEFAULT_THINK_BUDGET`)."""
    if value is None or str(value).strip() == "":
        return DEFAULT_THINK_BUDGET
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 1:
        raise ValueError(f"{owner}: think_budget={value} must be a whole number >= 1 (reasoning tokens per request)")
    return number


def reasoning_tags(value: Any, owner: str) -> tuple[tuple[str, str], ...]:
    """``reasoning_tags``: a JSON list of ``[open, close]`` pairs (lmms-eval's ``--reasoning_tags`` form); unset: <think>."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return DEFAULT_TAGS
    data = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{owner}: reasoning_tags={value!r} is not JSON; write e.g. "
                             "reasoning_tags='[[\"<think>\",\"</think>\"]]'") from exc
    ok = isinstance(data, list) and data and all(isinstance(p, (list, tuple)) and len(p) == 2 and all(
        isinstance(t, str) and t for t in p) for p in data)
    if not ok:
        raise ValueError(f"{owner}: reasoning_tags={value!r} must be a list of [open, close] tag pairs, "
                         "e.g. [[\"<think>\",\"</think>\"]]")
    return tuple((str(a), str(b)) for a, b in data)


def answer_budget(task_budget: int, thinking: str | None, budget: int) -> int:
    """Tokens one request may generate: the task's answer budget, plus the reasoning budget when thinking is on."""
    return int(task_budget) + (int(budget) if thinking == "on" else 0)


@dataclass(frozen=True)
class Split:
    """A response read as reasoning then answer."""

    answer_start: int  # offset of the answer in the text, after the blanks that follow the tag (len(text): none)
    reasoning: str  # the reasoning text, tags included ("" when there was none)
    closed: bool  # a closing tag was found (the answer follows it)


def split_reasoning(text: str, tags: Sequence[Sequence[str]] = DEFAULT_TAGS) -> Split:
    """Where the answer begins: after the last closing tag of any pair. Without one, an opening tag means the reasoning
    never ended (no answer); no tag at all: the whole text is the answer (as lmms-eval's stripping leaves it)."""
    ends = [text.rfind(close) + len(close) for _open, close in tags if close and close in text]
    if ends:
        at = max(ends)
        rest = text[at:]
        # the answer begins at its first visible character ("</think>\n\nB": B), as lmms-eval's stripping leaves it
        return Split(at + len(rest) - len(rest.lstrip()), text[:at], True)
    if any(o and o in text for o, _c in tags):
        return Split(len(text), text, False)
    return Split(0, "", False)


@dataclass(frozen=True)
class ReasoningNote:
    """What one generation's reading found (``Generated.extras["reasoning"]``, and the registry of this module)."""

    thinking: str | None  # the run's switch: on, off, None (the model's default)
    answer_start: int  # offset of the answer in the returned text
    reasoning_chars: int
    reasoning_tokens: int | None  # None: no tokenizer and the server did not say
    truncated: bool  # the reasoning never closed and the generation hit its token budget
    closed: bool
    tags: tuple[tuple[str, str], ...] = DEFAULT_TAGS  # the tag pairs it was read with
    generations: int = 1  # generations it sums (1; a note rebuilt from a sample's logged record: all of them)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def read_generation(text: str, tags: Sequence[Sequence[str]], thinking: str | None, hit_budget: bool,
                    count_tokens: Any = None, reported_tokens: int | None = None) -> ReasoningNote | None:
    """The note of one generation, or None when there is nothing to say (thinking not set and no reasoning found).

    ``count_tokens(text) -> int`` counts the reasoning's tokens (a tokenizer); ``reported_tokens`` (a server's own
    count) wins over it."""
    split = split_reasoning(text, tags)
    if not split.reasoning and thinking == "on" and hit_budget and text:
        # no tag at all, the budget spent: a template that wrote the opening tag into the prompt (Qwen3-VL Thinking),
        # the reasoning cut before it closed
        split = Split(len(text), text, False)
    if thinking is None and not split.reasoning:
        return None
    tokens = reported_tokens
    if tokens is None and count_tokens is not None:
        tokens = int(count_tokens(split.reasoning)) if split.reasoning else 0
    if tokens is None and not split.reasoning:
        tokens = 0
    return ReasoningNote(thinking, split.answer_start, len(split.reasoning), tokens,
                         truncated=not split.closed and bool(split.reasoning) and hit_budget, closed=split.closed,
                         tags=tuple((str(a), str(b)) for a, b in tags))


# --- the per-document notes (read by the task's process_results) --------------------------------------------------

_NOTES: dict[tuple[str, str], list[ReasoningNote]] = {}
_LOCK = threading.Lock()


def note(task: str, doc: Any, found: ReasoningNote | None) -> None:
    """Keep ``found`` for ``doc`` of ``task`` (every generation of it: rounds, re-runs, in order)."""
    if found is None or not task:
        return
    from gui_core.sample_faults import doc_key

    with _LOCK:
        _NOTES.setdefault((str(task), doc_key(doc)), []).append(found)


def notes_of(task: str, doc: Any) -> list[ReasoningNote]:
    """The notes kept for ``doc`` of ``task`` (taken: a second call gets none)."""
    from gui_core.sample_faults import doc_key

    with _LOCK:
        return _NOTES.pop((str(task), doc_key(doc)), [])


def note_from_extras(extras: Mapping[str, Any] | None) -> ReasoningNote | None:
    data = (extras or {}).get(REASONING_KEY)
    if not isinstance(data, Mapping):
        return None
    try:
        fields = {k: data[k] for k in ReasoningNote.__dataclass_fields__ if k in data}
        fields["tags"] = tuple(tuple(p) for p in fields.get("tags") or DEFAULT_TAGS)
        return ReasoningNote(**fields)
    except (KeyError, TypeError, ValueError):
        return None


def answer_part(response: Any, start: int) -> Any:
    """``response`` from offset ``start`` on, its digit capture (``gui_core.logit_capture``) cut and shifted with it:
    steps inside the reasoning are dropped, so PSS never reads a digit the model wrote while reasoning."""
    from gui_core.logit_capture import Capture, CapturedResponse, capture_of, extras_of

    text = str(response)
    if start <= 0:
        return response
    capture = capture_of(response)
    if capture is not None and not capture.key_digit_form:
        steps = tuple(replace(s, start=s.start - start, end=s.end - start) for s in capture.steps if s.start >= start)
        capture = Capture(steps, capture.version, capture.kind)
    elif capture is not None:
        steps = tuple(replace(s, start=s.start - start, end=s.end - start) for s in capture.steps if s.start >= start)
        capture = Capture(steps, capture.version, capture.kind, capture.logprob_sum, capture.n_steps)
    extras = extras_of(response)
    if capture is None and not extras:
        return text[start:]
    return CapturedResponse(text[start:], capture, extras or None)


def logged_record(notes: Sequence[ReasoningNote], read: str) -> dict[str, Any]:
    """A sample's logged ``reasoning`` field: the last generation's reading, lengths summed over every generation
    (rounds, re-runs). :func:`note_from_logged` turns it back into the note re-scoring reads."""
    last = notes[-1]
    tokens = [n.reasoning_tokens for n in notes]
    return {"thinking": last.thinking, "tokens": None if any(t is None for t in tokens) else sum(tokens),
            "chars": sum(n.reasoning_chars for n in notes), "truncated": last.truncated, "closed": last.closed,
            "tags": [list(p) for p in last.tags], "generations": sum(n.generations for n in notes), "read": read}


def note_from_logged(data: Any) -> ReasoningNote | None:
    """The note a sample's logged ``reasoning`` record stands for (None when it is not one)."""
    if not isinstance(data, Mapping):
        return None
    try:
        tags = tuple((str(a), str(b)) for a, b in (data.get("tags") or DEFAULT_TAGS))
        tokens = data.get("tokens")
        return ReasoningNote(data.get("thinking"), 0, int(data.get("chars") or 0),
                             None if tokens is None else int(tokens), bool(data.get("truncated")),
                             bool(data.get("closed")), tags, int(data.get("generations") or 1))
    except (TypeError, ValueError):
        return None


def side_in_full_text(side: Any, offset: int) -> Any:
    """A logged side channel (``gui_core.logit_capture.response_side``) of an answer read ``offset`` characters into
    its response, with its capture's spans moved back to the whole response's: the samples file logs the whole
    response, and re-scoring reads the answer after the reasoning from it again (:func:`answer_part`)."""
    if offset <= 0 or not isinstance(side, Mapping) or not isinstance(side.get("capture"), Mapping):
        return side
    capture = dict(side["capture"])
    capture["steps"] = [{**step, "start": int(step["start"]) + offset, "end": int(step["end"]) + offset}
                        for step in capture.get("steps") or []]
    return {**side, "capture": capture}
