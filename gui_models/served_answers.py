"""Reading a served answer: digit captures from logprobs (exact from vLLM's token ids, ranged from ``top_logprobs``),
the checks a capture must pass, and the text cleaning every answer gets (``gui_models.openai_backend`` uses them)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from gui_core.logit_capture import Capture, Step
from gui_core.sample_faults import record as record_fault
from gui_core.sample_faults import served_fault
from gui_interventions import RequestContext
from gui_models.generation_core import Generated
from lmms_eval.api.instance import TokenCounts

OWNER = "gui_openai"
LOGPROB_SLACK = 1e-4  # log-probabilities above this are not log-probabilities


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _token_id(token: str) -> int | None:
    return int(token.split(":", 1)[1]) if token.startswith("token_id:") else None


def capture_from_token_ids(content: Sequence[Mapping[str, Any]], groups: Sequence[Sequence[int]], tokenizer: Any,
                           stop_ids: Sequence[int]) -> Capture:
    """An exact capture from vLLM's ``logprob_token_ids`` answer (``return_tokens_as_token_ids``).

    Each step lists the log-probability of every named digit token (and the chosen one): ``v_d`` is the
    log-sum over the ids starting with digit d, as ``DigitLogitsProcessor`` computes from logits
    (here normalised: ``logz`` = 0). Entropy needs the full distribution: NaN. Offsets as in ``finish``.
    """
    ids: list[int] = []
    rows: list[tuple[float, tuple[float, ...]]] = []
    stops = set(int(s) for s in stop_ids)
    for step in content:
        tid = _token_id(str(step.get("token", "")))
        if tid is None:
            raise ValueError(f"{OWNER}: the server did not return token ids (return_tokens_as_token_ids); got {step.get('token')!r}")
        if tid in stops:
            break
        table = {_token_id(str(t["token"])): float(t["logprob"]) for t in step.get("top_logprobs") or []}
        missing = [i for g in groups for i in g if i not in table]
        if missing:
            raise ValueError(f"{OWNER}: the server ignored logprob_token_ids (no log-probability for token ids {missing[:5]}...); "
                             "use logprobs=top_logprobs for servers without this vLLM extension")
        digits = tuple(_logsumexp([table[i] for i in g]) for g in groups)
        ids.append(tid)
        rows.append((float(step.get("logprob") if step.get("logprob") is not None else math.nan), digits))
    bounds = [0] + [len(tokenizer.decode(ids[: k + 1], skip_special_tokens=True)) for k in range(len(ids))]
    steps = tuple(Step(ids[i], tokenizer.decode([ids[i]]), rows[i][0], math.nan, rows[i][1], bounds[i], bounds[i + 1], 0.0)
                  for i in range(len(ids)))
    return Capture(steps, kind="exact")


def _digit_of(token: str) -> int | None:
    text = token.strip()
    return int(text[0]) if text and text.isascii() and text.isdigit() else None


def capture_from_top_logprobs(content: Sequence[Mapping[str, Any]]) -> Capture:
    """A ranged capture from OpenAI-style ``top_logprobs``: per step, the digits found among the top k and the rest missing.

    Missing digits get the step's lowest returned log-probability (``floor``) and are listed in ``missing``;
    scoring reports PSS over both extremes (``gui_tasks.grounding.score``). Offsets are the lengths of the
    token strings as returned.
    """
    steps: list[Step] = []
    at = 0
    for k, step in enumerate(content):
        token = str(step.get("token", ""))
        tops = [(str(t.get("token", "")), float(t["logprob"])) for t in step.get("top_logprobs") or [] if t.get("logprob") is not None]
        groups: dict[int, list[float]] = {}
        for tok, lp in tops:
            d = _digit_of(tok)
            if d is not None:
                groups.setdefault(d, []).append(lp)
        floor = min((lp for _t, lp in tops), default=float(step.get("logprob") or 0.0))
        missing = tuple(d for d in range(10) if d not in groups)
        digits = tuple(_logsumexp(groups[d]) if d in groups else floor for d in range(10))
        logprob = step.get("logprob")
        steps.append(Step(k, token, float(logprob) if logprob is not None else math.nan, math.nan, digits, at, at + len(token),
                          0.0, missing, floor))
        at += len(token)
    return Capture(tuple(steps), kind="top_logprobs")



def clean_text(text: str, notes: dict[str, Any]) -> str:
    """``text`` with lone surrogates (which no UTF-8 file can hold: lmms-eval's samples file would stay empty)
    replaced by U+FFFD; how many is recorded in ``notes["surrogates_replaced"]``."""
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return text
    clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    notes["surrogates_replaced"] = sum(1 for c in clean if c == "\ufffd") - text.count("\ufffd")
    return clean



def logprob_problem(content: Any, max_tokens: int, max_top: int) -> str | None:
    """Why a response's ``logprobs.content`` cannot be a capture (non-finite or positive log-probabilities, more steps
    than the budget, more alternatives than asked for, wrong shape), or None."""
    if not isinstance(content, list):
        return f"logprobs.content is a {type(content).__name__}, not a list"
    if len(content) > max_tokens + 1:
        return f"{len(content)} logprob steps for max_tokens={max_tokens}"
    for k, step in enumerate(content):
        if not isinstance(step, Mapping) or not isinstance(step.get("token", ""), str):
            return f"step {k}: not a {{token, logprob}} object"
        tops = step.get("top_logprobs") or []
        if not isinstance(tops, list) or len(tops) > max_top:
            return f"step {k}: {len(tops) if isinstance(tops, list) else type(tops).__name__} alternatives (at most {max_top} asked)"
        for entry in [step, *tops]:
            if not isinstance(entry, Mapping):
                return f"step {k}: an alternative is not an object"
            lp = entry.get("logprob")
            if lp is None and entry is step:
                continue
            if isinstance(lp, bool) or not isinstance(lp, (int, float)) or not math.isfinite(lp) or lp > LOGPROB_SLACK:
                return f"step {k}: log-probability {lp!r} is not a finite number <= 0"
            if not isinstance(entry.get("token", ""), str):
                return f"step {k}: a token is not text"
    return None



def noted(req: RequestContext, out: Generated) -> Generated:
    """``out``, after recording a response without usable text (``bad_response``, ``tool_call_only``) as its sample's
    named error (``gui_core.sample_faults``; the task scores it as the empty answer it is). Every path (one request,
    rounds, a response-stage re-run) passes here."""
    fault = served_fault(out.extras)
    if fault is not None and req.task:
        record_fault(req.task, req.doc if req.doc is not None else {"id": req.doc_id}, fault)
    return out


def joined_reasoning(message: Mapping[str, Any], content: str, tags: Sequence[Sequence[str]], cut: bool = False) -> str:
    """The answer text with a reasoning the server returned apart (vLLM / SGLang reasoning parsers:
    ``reasoning_content``, newer vLLM ``reasoning``) joined back in front, in the first tag pair, so the sample keeps it
    and the answer is read after it as for any other response. ``cut``: the budget ended the reasoning (no closing
    tag is written: the reading then finds it truncated)."""
    reasoning = message.get("reasoning_content")
    if not isinstance(reasoning, str) or not reasoning:
        reasoning = message.get("reasoning")
    if not isinstance(reasoning, str) or not reasoning:
        return content
    opening, closing = tags[0]
    return f"{opening}{reasoning}" if cut else f"{opening}{reasoning}{closing}{content}"


def usage_of(response: Mapping[str, Any]) -> tuple[dict[str, Any], int | None]:
    """A response's ``usage`` (counts that are not whole numbers >= 0 become None) and the reasoning tokens the server
    reported (OpenAI's ``usage.completion_tokens_details.reasoning_tokens``; None when not said)."""
    usage = response.get("usage") or {}
    if not isinstance(usage, Mapping):
        usage = {}
    details = usage.get("completion_tokens_details")
    reported = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    reported = reported if isinstance(reported, int) and not isinstance(reported, bool) and reported >= 0 else None
    return {k: (v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None) for k, v in usage.items()}, reported


def token_counts(generated: Sequence[Generated]) -> TokenCounts | None:
    """Summed usage of a request's generations (the original and any response-stage re-run); None when unknown."""
    ins = [((g.extras or {}).get("usage") or {}).get("input_tokens") for g in generated]
    outs = [((g.extras or {}).get("usage") or {}).get("output_tokens") for g in generated]
    if any(v is None for v in ins + outs):
        return None
    return TokenCounts(input_tokens=sum(ins), output_tokens=sum(outs))
