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
which returns a new plain ``str``). ``--use_cache`` replays plain text without captures;
a missing capture is reported (``pss_no_capture_rate``), never invented.
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
