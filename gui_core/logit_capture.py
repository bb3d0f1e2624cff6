"""Digit-logit capture during generation, and the side channel that carries it to ``process_results``.

What is captured (``gui_hf`` model arg ``capture_logits=digits``), per generated token and
per row, without keeping any full-vocabulary distribution:

- ``digits``: ten values v_0..v_9, one per leading digit. ``v_d`` is the log of the total
  probability mass (up to a constant shared by the ten) of every vocabulary token whose
  text, spaces removed, is all digits and starts with ``d``: ``logsumexp`` of their logits.
  For tokenizers that split numbers into single digits (Qwen2/2.5/3-VL) that is exactly the
  logit of the token "d". For tokenizers that merge several digits into one token ("71"),
  v_d is the model's score for "the next token starts with digit d", i.e. for the most
  significant digit that step writes: PSS then describes that leading digit, and a key
  digit that sits in the middle of a merged token has no digit distribution of its own
  (it is reported as not captured, never guessed).
- ``logprob``: log-probability of the token actually chosen (full-vocabulary softmax).
- ``entropy``: entropy (nats) of the full-vocabulary distribution at that step.
- ``logz``: log of the full-vocabulary normaliser, so ``digits[d] - logz`` is the
  log-probability of the next token starting with digit d (``Step.digit_logprobs``).

Values are the scores generation decides on: after the model's own logits processors
(e.g. a repetition penalty in its generation config), before sampling warpers
(temperature, top-p). With the default greedy decoding these are the raw logits.

Side channel: ``gui_hf`` returns each response as a ``CapturedResponse``, a ``str``
subclass with a ``capture`` attribute (and ``extras`` for interventions such as ``crop``).
Tasks that do not look for it see an ordinary string. lmms-eval hands the object to
``process_results`` unchanged as long as no filter rebuilds the string: our grounding
task YAMLs set ``reasoning_tags: none`` (lmms-eval strips reasoning tags by default,
which returns a new plain ``str``). lmms-eval's ``--use_cache`` replays plain text without captures: the
backend's run journal gives them back (``gui_core.replayed_answers``) or the run stops naming PSS; a capture
missing otherwise is reported (``pss_no_capture_rate``), never invented.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gui_core.coords import MAX_NUMBER_CHARS

CAPTURE_MODES = ("none", "digits")
CAPTURE_VERSION = "digits-v1"
# How the ten digit values were obtained. "exact": every digit token's score (HF logits processor, or a
# served engine's logprobs for named token ids). "top_logprobs": only the k most likely tokens per step
# were returned (hosted APIs): a digit outside them has a log-probability at most the step's lowest
# returned one (``Step.floor``; a lower bound only when digits merge into multi-digit tokens). Values of
# the two kinds are never averaged together (gui_metrics.pss keeps separate aggregates).
CAPTURE_KINDS = ("exact", "top_logprobs")
KeyDigits = str  # "leading" | "all"


def capture_mode(value: str | None, owner: str) -> str:
    """The ``capture_logits`` model arg, normalised; an unknown mode names the backend and the choices."""
    mode = str(value or "none").strip().lower()
    if mode not in CAPTURE_MODES:
        raise ValueError(f"{owner}: capture_logits={value!r}; choose one of {CAPTURE_MODES}")
    return mode

KEY_DIGIT_MODES = ("leading", "all")


@dataclass(frozen=True)
class Step:
    """One generated token."""

    token_id: int
    text: str
    logprob: float
    entropy: float
    digits: tuple[float, ...]
    """v_0..v_9 as defined in the module docstring."""
    start: int = 0
    """Offset of the token's first character in the decoded response (special tokens skipped)."""
    end: int = 0
    logz: float = 0.0
    """logsumexp of the step's full-vocabulary scores (0 when ``digits`` are already log-probabilities)."""
    missing: tuple[int, ...] = ()
    """top_logprobs captures: the digits absent from the returned top-k (their value in ``digits`` is ``floor``)."""
    floor: float | None = None
    """top_logprobs captures: the lowest log-probability returned at this step (the cap of a missing digit)."""

    @property
    def digit_logprobs(self) -> tuple[float, ...]:
        """Full-vocabulary log-probability of each digit group."""
        return tuple(v - self.logz for v in self.digits)


@dataclass(frozen=True)
class Capture:
    """The captured steps of one response (generation up to, not including, the end-of-sequence token)."""

    steps: tuple[Step, ...]
    version: str = CAPTURE_VERSION
    kind: str = "exact"
    """One of CAPTURE_KINDS."""
    logprob_sum: float | None = None
    """Key-digit form (:func:`key_digit_capture`): the sum of the chosen tokens' log-probabilities over the response's
    steps (``steps`` then holds only the steps that may carry a coordinate digit); None: sum over ``steps``."""
    n_steps: int | None = None
    """Key-digit form: how many steps ``logprob_sum`` sums."""

    @property
    def key_digit_form(self) -> bool:
        return self.n_steps is not None

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "kind": self.kind,
                "steps": [s.__dict__ | {"digits": list(s.digits), "missing": list(s.missing)} for s in self.steps]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Capture":
        steps = tuple(Step(int(s["token_id"]), str(s["text"]), float(s["logprob"]), float(s["entropy"]),
                           tuple(float(v) for v in s["digits"]), int(s.get("start", 0)), int(s.get("end", 0)),
                           float(s.get("logz", 0.0)), tuple(int(d) for d in s.get("missing", ())),
                           None if s.get("floor") is None else float(s["floor"]))
                      for s in data["steps"])
        return cls(steps, str(data.get("version", CAPTURE_VERSION)), str(data.get("kind", "exact")))


class CapturedResponse(str):
    """A response text that also carries its ``Capture`` (None when not captured) and intervention ``extras``."""

    capture: Capture | None
    extras: dict[str, Any]

    def __new__(cls, text: str, capture: Capture | None = None, extras: Mapping[str, Any] | None = None) -> "CapturedResponse":
        obj = super().__new__(cls, text)
        obj.capture = capture
        obj.extras = dict(extras or {})
        return obj

    def __reduce__(self):  # keep the attributes through pickling (accelerate gathers objects)
        return (CapturedResponse, (str(self), self.capture, self.extras))


# --- what a run logs of a capture: the key-digit form ----------------------------------------------
#
# The grounding records need, of a capture, only (1) the steps whose text starts with a digit (every possible key token:
# ``key_tokens`` takes a digit only as the first non-space character of its step) with their ten digit values, and (2)
# the sum and count of the chosen tokens' log-probabilities (perplexity). Scoring always reads this form, from a live
# capture or from the logged one, so a response re-scored from the samples file gives the same figures bit for bit.
KEY_DIGIT_FORM = "key-digits-v1"
# The top-level field of a grounding task's ``process_results`` output (logged once per sample by lmms-eval, not a
# metric: it is never aggregated) holding what scoring reads of a response beyond its text (:func:`response_side`).
SIDE_KEY = "response_side"
# verify: a re-captured digit distribution matches the logged one when every key step's ten digit log-probabilities
# (log-softmax over the ten) and the response's mean chosen-token log-probability differ by at most this (nats)
CAPTURE_TOLERANCE = 1e-3


def key_digit_capture(capture: Capture, text: str) -> Capture:
    """The key-digit form of ``capture`` for response ``text`` (idempotent)."""
    if capture.key_digit_form:
        return capture
    steps = [s for s in capture.steps if s.start < len(text)] or list(capture.steps)
    logprobs = [s.logprob for s in steps]

    def digit_led(s: Step) -> bool:
        head = text[s.start:s.end].lstrip()[:1]
        return bool(head) and head.isdigit()

    keep = tuple(s for s in steps if digit_led(s))
    return Capture(keep, capture.version, capture.kind, sum(logprobs) if logprobs else None, len(logprobs))


def mean_logprob(capture: Capture) -> float | None:
    """Mean chosen-token log-probability of the response (None: no steps)."""
    if capture.key_digit_form:
        return capture.logprob_sum / capture.n_steps if capture.n_steps and capture.logprob_sum is not None else None
    lp = [s.logprob for s in capture.steps]
    return sum(lp) / len(lp) if lp else None


def key_digits_json(capture: Capture) -> dict[str, Any]:
    """The logged (JSON) key-digit form: per kept step its span and ten digit values (top_logprobs: missing, floor)."""
    steps = []
    for s in capture.steps:
        row: dict[str, Any] = {"start": s.start, "end": s.end, "digits": list(s.digits)}
        if s.missing or s.floor is not None:
            row.update(missing=list(s.missing), floor=s.floor)
        steps.append(row)
    return {"form": KEY_DIGIT_FORM, "version": capture.version, "kind": capture.kind, "n_steps": capture.n_steps,
            "logprob_sum": capture.logprob_sum, "steps": steps}


def key_digits_from_json(data: Mapping[str, Any], text: str) -> Capture:
    """A logged key-digit form back as a ``Capture`` (step texts are the response's characters at their spans)."""
    if data.get("form") != KEY_DIGIT_FORM:
        raise ValueError(f"logged capture form {data.get('form')!r}; this version reads {KEY_DIGIT_FORM!r}")
    steps = tuple(Step(-1, text[int(s["start"]):int(s["end"])], 0.0, math.nan, tuple(float(v) for v in s["digits"]),
                       int(s["start"]), int(s["end"]), 0.0, tuple(int(d) for d in s.get("missing") or ()),
                       None if s.get("floor") is None else float(s["floor"]))
                  for s in data.get("steps") or ())
    total = data.get("logprob_sum")
    return Capture(steps, str(data.get("version", CAPTURE_VERSION)), str(data.get("kind", "exact")),
                   None if total is None else float(total), int(data.get("n_steps") or 0))


def capture_from_json(data: Mapping[str, Any], text: str) -> Capture:
    """A capture as JSON in either form: full (``Capture.to_json``) or key-digit (:func:`key_digits_json`)."""
    return key_digits_from_json(data, text) if data.get("form") == KEY_DIGIT_FORM else Capture.from_json(data)


# Extras scoring reads (gui_tasks.grounding.score): the size the model saw, a served engine's frame, the crop's first
# prediction. They are logged with the capture so that a re-scored response sees what the live one carried.
SCORED_EXTRAS = ("model_image_sizes", "image_frame", "crop")


def response_side(response: Any) -> dict[str, Any] | None:
    """What scoring reads of ``response`` beyond its text, as JSON (None: nothing): the key-digit capture and the
    scored extras (a crop's first capture in key-digit form too)."""
    capture, extras = capture_of(response), extras_of(response)
    out: dict[str, Any] = {}
    if capture is not None:
        out["capture"] = key_digits_json(key_digit_capture(capture, str(response)))
    for key in SCORED_EXTRAS:
        if extras.get(key) is None:
            continue
        value = extras[key]
        if key == "crop" and isinstance(value, Mapping) and value.get("first_capture"):
            first_text = str(value.get("first_text") or "")
            first = capture_from_json(value["first_capture"], first_text)
            value = {**value, "first_capture": key_digits_json(key_digit_capture(first, first_text))}
        out.setdefault("extras", {})[key] = value
    return out or None


def with_side(text: Any, side: Mapping[str, Any] | None) -> Any:
    """A logged response text with its logged side channel (:func:`response_side`) attached again."""
    if not side or not isinstance(text, str):
        return text
    capture = key_digits_from_json(side["capture"], text) if side.get("capture") else None
    return CapturedResponse(text, capture, side.get("extras") or None)


def _digit_logsoftmax(values: Sequence[float]) -> list[float]:
    top = max(values)
    z = top + math.log(sum(math.exp(v - top) for v in values))
    return [v - z for v in values]


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _capture_difference(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    if (a is None) != (b is None):
        return f"digit capture {'logged but not re-captured' if b is None else 're-captured but not logged'}"
    if a is None or b is None:
        return None
    for key in ("form", "version", "kind"):
        if a.get(key) != b.get(key):
            return f"digit capture {key} differs (logged {a.get(key)!r}, now {b.get(key)!r})"
    sa = [(s["start"], s["end"]) for s in a.get("steps") or []]
    sb = [(s["start"], s["end"]) for s in b.get("steps") or []]
    if sa != sb or a.get("n_steps") != b.get("n_steps"):
        return f"digit capture steps differ (logged spans {sa[:6]}, now {sb[:6]})"
    worst = 0.0
    for i, (x, y) in enumerate(zip(a.get("steps") or [], b.get("steps") or [])):
        if len(x["digits"]) != 10 or len(y["digits"]) != 10:
            return f"digit capture step {i}: {len(x['digits'])} logged digit values, {len(y['digits'])} now (ten expected)"
        if sorted(x.get("missing") or []) != sorted(y.get("missing") or []):
            return f"digit capture step {i}: missing digits differ (logged {x.get('missing')}, now {y.get('missing')})"
        if (x.get("floor") is None) != (y.get("floor") is None):
            return f"digit capture step {i}: floor {'logged but not re-captured' if y.get('floor') is None else 'not logged'}"
        if x.get("floor") is not None:
            worst = max(worst, abs(x["floor"] - y["floor"]))
        worst = max([worst] + [abs(u - v) for u, v in zip(_digit_logsoftmax(x["digits"]), _digit_logsoftmax(y["digits"]))])
    n = a.get("n_steps") or 0
    if _is_null(a.get("logprob_sum")) != _is_null(b.get("logprob_sum")):
        return (f"digit capture log-prob sum {'logged as null' if _is_null(a.get('logprob_sum')) else 'logged'}, "
                f"{'null' if _is_null(b.get('logprob_sum')) else 'a value'} now")
    if n and not _is_null(a.get("logprob_sum")):
        worst = max(worst, abs(a["logprob_sum"] - b["logprob_sum"]) / n)
    if worst > CAPTURE_TOLERANCE:
        return f"digit capture differs by {worst:.2g} nats (tolerance {CAPTURE_TOLERANCE:g})"
    return None


def side_difference(logged: Mapping[str, Any] | None, again: Mapping[str, Any] | None) -> str | None:
    """None when two side channels (:func:`response_side`) agree: captures (the crop's first one too) within
    :data:`CAPTURE_TOLERANCE`, every other scored extra equal; else what differs, in words."""
    import json

    a, b = (json.loads(json.dumps(x or {})) for x in (logged, again))
    diff = _capture_difference(a.get("capture"), b.get("capture"))
    if diff:
        return diff
    ea, eb = a.get("extras") or {}, b.get("extras") or {}
    ca, cb = ea.get("crop"), eb.get("crop")
    if isinstance(ca, dict) and isinstance(cb, dict):
        diff = _capture_difference(ca.pop("first_capture", None), cb.pop("first_capture", None))
        if diff:
            return "the crop's first prediction: " + diff
    if ea != eb:
        keys = sorted(k for k in set(ea) | set(eb) if ea.get(k) != eb.get(k))
        return f"scored extras differ: {', '.join(keys)}"
    return None


def capture_of(response: Any) -> Capture | None:
    """The capture a response carries, or None (plain strings, other backends)."""
    return getattr(response, "capture", None) if isinstance(response, str) else None


def extras_of(response: Any) -> dict[str, Any]:
    return dict(getattr(response, "extras", None) or {}) if isinstance(response, str) else {}


# --- the digit table of a tokenizer -------------------------------------------------------------


def digit_groups(tokenizer: Any) -> list[list[int]]:
    """For d = 0..9, the ids of every token whose text (spaces removed) is all digits and starts with d."""
    groups: list[list[int]] = [[] for _ in range(10)]
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    for tid in range(len(tokenizer)):
        if tid in special:
            continue
        text = tokenizer.decode([tid]).strip()
        if text and text.isascii() and text.isdigit():
            groups[int(text[0])].append(tid)
    missing = [d for d in range(10) if not groups[d]]
    if missing:
        raise ValueError(f"tokenizer has no token for digit(s) {missing}; PSS needs all ten")
    return groups


class DigitLogitsProcessor:
    """A ``transformers`` logits processor that records digit values, entropy and chosen log-probs, and changes nothing.

    Per step it reads the ten digit groups by index (``scores[:, ids]``), and takes the normaliser and the entropy
    as tensor reductions over the vocabulary on the scores' device; no Python loop over the vocabulary and no copy
    to the host until :meth:`finish`.
    """

    def __init__(self, groups: Sequence[Sequence[int]], device: Any) -> None:
        import torch

        width = max(len(g) for g in groups)
        index = torch.zeros(10, width, dtype=torch.long)
        mask = torch.zeros(10, width, dtype=torch.bool)
        for d, g in enumerate(groups):
            index[d, : len(g)] = torch.tensor(list(g), dtype=torch.long)
            mask[d, : len(g)] = True
        self.index, self.mask = index.to(device), mask.to(device)
        self.flat = self.index.reshape(-1)
        self.single = width == 1
        self.digits: list[Any] = []  # per step: (batch, 10) float32
        self.entropy: list[Any] = []  # per step: (batch,)
        self.logz: list[Any] = []  # per step: (batch,)
        self.chosen: list[Any] = []  # per step >= 1: (batch,) log-prob of the token chosen at the previous step
        self._prev_logp = None  # (batch, vocab), transient: only the last step is kept

    def __call__(self, input_ids, scores):
        import torch

        with torch.no_grad():
            logits = scores.float()
            if self._prev_logp is not None:
                self.chosen.append(self._prev_logp.gather(1, input_ids[:, -1:]).squeeze(1))
            logz = torch.logsumexp(logits, dim=-1, keepdim=True)
            logp = logits - logz
            self.logz.append(logz.squeeze(1))
            # -(p * log p) summed; in place: one vocabulary-sized buffer instead of three, the same values
            terms = logp.exp()
            terms.mul_(logp).nan_to_num_(0.0)
            self.entropy.append(-terms.sum(-1))
            del terms
            picked = logits[:, self.flat].reshape(logits.shape[0], 10, -1)
            if self.single:
                self.digits.append(picked[:, :, 0])
            else:
                self.digits.append(torch.logsumexp(picked.masked_fill(~self.mask, float("-inf")), dim=-1))
            self._prev_logp = logp
        return scores

    def finish(self, sequences, prompt_len: int, tokenizer: Any, stop_ids: Sequence[int]) -> list[Capture]:
        """One ``Capture`` per row, cut at the row's first stop token."""
        import torch

        n = len(self.digits)
        if n == 0:
            return [Capture(()) for _ in range(sequences.shape[0])]
        gen = sequences[:, prompt_len: prompt_len + n]
        if self._prev_logp is not None and len(self.chosen) < n:
            self.chosen.append(self._prev_logp.gather(1, gen[:, -1:]).squeeze(1))
        self._prev_logp = None
        digits = torch.stack(self.digits, 1).cpu()  # (batch, steps, 10)
        entropy = torch.stack(self.entropy, 1).cpu()
        logz = torch.stack(self.logz, 1).cpu()
        chosen = torch.stack(self.chosen, 1).cpu()
        stops = set(int(s) for s in stop_ids)
        out = []
        for row in range(gen.shape[0]):
            ids = gen[row].tolist()
            end = next((i for i, t in enumerate(ids) if t in stops), len(ids))
            bounds = [0] + [len(tokenizer.decode(ids[: k + 1], skip_special_tokens=True)) for k in range(end)]
            steps = tuple(Step(ids[i], tokenizer.decode([ids[i]]), float(chosen[row, i]), float(entropy[row, i]),
                               tuple(float(v) for v in digits[row, i].tolist()), bounds[i], bounds[i + 1], float(logz[row, i]))
                          for i in range(end))
            out.append(Capture(steps))
        return out

    def stored_bytes(self) -> int:
        """Bytes the capture holds for the steps so far (digits, entropy, logz, chosen), excluding the transient last row."""
        return sum(t.element_size() * t.nelement() for ts in (self.digits, self.entropy, self.logz, self.chosen) for t in ts)


# --- key tokens -----------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _key_char(number: str, start: int) -> int:
    """Index of the most significant digit of a number literal: the first fractional digit of 0.xx."""
    integer, _, frac = number.partition(".")
    if frac and set(integer) == {"0"}:
        return start + len(integer) + 1
    return start


def coordinate_numbers(text: str, point: Sequence[float] | None, start: int = 0) -> list[tuple[int, str]]:
    """(start, literal) of the two numbers in ``text[start:]`` that carry the point's x and y, in order.

    The first number equal to x, then the first later number equal to y; without a point,
    or when they cannot be found, the result is empty (nothing is guessed).
    """
    if point is None:
        return []
    found: list[tuple[int, str]] = []
    pos = start
    for target in point[:2]:
        for m in _NUMBER.finditer(text, pos):
            if len(m.group()) > MAX_NUMBER_CHARS:  # an unbounded digit run is never read (nor a coordinate)
                continue
            if math.isclose(float(m.group()), float(target), rel_tol=0, abs_tol=1e-9):
                found.append((m.start(), m.group()))
                pos = m.end()
                break
        else:
            return []
    return found


@dataclass(frozen=True)
class KeyToken:
    char: int
    digit: str
    step: int | None
    """Index of the step that writes this digit as its first digit; None when it is inside a merged token."""
    values: tuple[float, ...] | None = field(default=None)
    missing: tuple[int, ...] = ()
    floor: float | None = None


def key_tokens(text: str, steps: Sequence[Step], point: Sequence[float] | None, mode: KeyDigits = "leading",
               start: int = 0) -> list[KeyToken]:
    """The key tokens of a coordinate answer (section 4.2): the digits that carry the point's values.

    ``leading``: the most significant digit of x and of y ("7" and "2" in "[0.71, 0.23]");
    ``all``: every digit of both numbers. The search starts at ``start`` (after a reasoning block).
    """
    if mode not in KEY_DIGIT_MODES:
        raise ValueError(f"key digit mode must be one of {KEY_DIGIT_MODES}, got {mode!r}")
    spans = [(s.start, s.end) for s in steps]
    keys: list[KeyToken] = []
    for begin, literal in coordinate_numbers(text, point, start):
        chars = [_key_char(literal, begin)] if mode == "leading" else [begin + i for i, c in enumerate(literal) if c.isdigit()]
        for ch in chars:
            step = None
            for i, (a, b) in enumerate(spans):
                if a <= ch < b:
                    # the digit must be the token's first non-space character
                    if text[a:ch].strip() == "":
                        step = i
                    break
            found = steps[step] if step is not None else None
            keys.append(KeyToken(ch, text[ch], step, found.digits if found else None, found.missing if found else (),
                                 found.floor if found else None))
    return keys
