"""The thinking settings of one backend (model args ``thinking``, ``think_budget``, ``reasoning_tags``,
``thinking_key``) and what they change in a request: the chat template's ``enable_thinking``, the token budget, the
stop strings (answer only) and the reading of each generation (``gui_core.reasoning``).

``gui_hf`` passes ``enable_thinking`` to ``apply_chat_template`` (Qwen3 / Qwen3-VL templates read it; a template
without it ignores it, as Jinja ignores unknown variables); ``gui_openai`` sends it as
``chat_template_kwargs: {"enable_thinking": ...}``, the vLLM / SGLang convention (lmms-eval 0.7.3's OpenAI backend,
``enable_thinking_kwarg``, sends the same; ``thinking_key`` names another variable where a server's template wants
one); ``gui_wrap`` hands ``enable_thinking`` to a wrapped backend whose constructor takes it (lmms-eval's
``qwen3_vl``, ``qwen3_5``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gui_core.reasoning import (DEFAULT_TAGS, DEFAULT_TEMPLATE_KEY, DEFAULT_THINK_BUDGET, REASONING_KEY, ReasoningNote,
                                answer_budget, read_generation, reasoning_tags, split_reasoning, think_budget,
                                thinking_mode)

THINKING_ARGS = frozenset({"thinking", "think_budget", "reasoning_tags", "thinking_key"})


@dataclass(frozen=True)
class Thinking:
    mode: str | None = None  # on, off, None (the model's default)
    budget: int = DEFAULT_THINK_BUDGET
    tags: tuple[tuple[str, str], ...] = DEFAULT_TAGS
    key: str = DEFAULT_TEMPLATE_KEY

    @classmethod
    def from_args(cls, args: Mapping[str, Any], owner: str) -> "Thinking":
        """The settings from model args (checked: a bad value is refused naming the backend and the arg)."""
        key = str(args.get("thinking_key") or DEFAULT_TEMPLATE_KEY).strip()
        if not key.isidentifier():
            raise ValueError(f"{owner}: thinking_key={key!r} must name a chat template variable (e.g. enable_thinking)")
        return cls(thinking_mode(args.get("thinking"), owner), think_budget(args.get("think_budget"), owner),
                   reasoning_tags(args.get("reasoning_tags"), owner), key)

    @property
    def on(self) -> bool:
        return self.mode == "on"

    def template_kwargs(self) -> dict[str, bool]:
        """What the chat template is told: ``{key: True|False}``, nothing when unset (the model's default)."""
        return {} if self.mode is None else {self.key: self.mode == "on"}

    def max_tokens(self, task_budget: int) -> int:
        return answer_budget(task_budget, self.mode, self.budget)

    def sent_stops(self, until: Any) -> list[str]:
        """The stop strings a served engine may be given: none with thinking on (they would end the reasoning; they
        are applied to the answer on our side, :meth:`cut`)."""
        stops = [until] if isinstance(until, str) else [s for s in (until or []) if s]
        return [] if self.on else list(stops)

    def cut(self, text: str, until: Any) -> str:
        """``text`` cut at the task's first stop string, searched only in the answer after the reasoning."""
        from gui_models.generation_core import cut_at_stops

        split = split_reasoning(text, self.tags)
        if split.reasoning and not split.closed:  # no answer yet: nothing to cut
            return text
        answer = text[split.answer_start:]
        lead = len(answer) - len(answer.lstrip())  # "</think>\n\nB": the blank line after the tag ends nothing
        return text[:split.answer_start] + answer[:lead] + cut_at_stops(answer[lead:], until)

    def read(self, text: str, hit_budget: bool, count_tokens: Callable[[str], int] | None = None,
             reported_tokens: int | None = None) -> ReasoningNote | None:
        return read_generation(text, self.tags, self.mode, hit_budget, count_tokens, reported_tokens)

    def apply_to_body(self, body: dict[str, Any]) -> None:
        """A served request body (``gui_openai``): the budget grown by ``think_budget``, no ``stop`` with thinking on (a
        blank line would end the reasoning: the answer is cut on our side), the switch as ``chat_template_kwargs``."""
        body["max_tokens"] = self.max_tokens(int(body["max_tokens"]))
        if self.on:
            body.pop("stop", None)
        if self.mode is not None:
            body["chat_template_kwargs"] = self.template_kwargs()

    def counting_tokenizer(self, tokenizer: Any, folder: str | None) -> Any:
        """The tokenizer that counts reasoning tokens: ``tokenizer``, else the folder's when thinking is set."""
        if tokenizer is not None or not folder or self.mode is None:
            return tokenizer
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(folder)

    def describe(self) -> dict[str, Any]:
        """What a run records of its thinking settings (results, provenance, submissions read the model args)."""
        return {"thinking": self.mode, "think_budget": self.budget if self.on else None,
                "reasoning_tags": [list(p) for p in self.tags], "thinking_key": self.key}


def token_counter(tokenizer: Any) -> Callable[[str], int] | None:
    """Counts a text's tokens with ``tokenizer`` (no special tokens added); None without a tokenizer."""
    if tokenizer is None:
        return None
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def attach_note(extras: dict[str, Any] | None, found: ReasoningNote | None) -> dict[str, Any] | None:
    """``extras`` with the generation's reasoning note under ``REASONING_KEY`` (unchanged when there is none)."""
    if found is None:
        return extras
    return {**(extras or {}), REASONING_KEY: found.to_json()}


class AnswerStops:
    """A transformers ``StoppingCriteria``: a row stops once one of the task's stop strings appears in its answer,
    after the reasoning's closing tag (a blank line inside the reasoning stops nothing). Rows that finished are
    reported done per row (transformers >= 4.39 takes a bool tensor per row)."""

    def __init__(self, tokenizer: Any, prompt_len: int, until: Any, tags: Sequence[Sequence[str]]) -> None:
        self.tokenizer, self.prompt_len = tokenizer, int(prompt_len)
        self.stops = [until] if isinstance(until, str) else [s for s in (until or []) if s]
        self.closes = [c for _o, c in tags]
        self.answer_from: dict[int, int] = {}  # row -> the token index (after the prompt) where its answer begins

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        if not self.stops:
            return done
        for row in range(input_ids.shape[0]):
            gen = input_ids[row, self.prompt_len:].tolist()
            if row not in self.answer_from:
                tail = self.tokenizer.decode(gen[-8:], skip_special_tokens=False)
                if any(c in tail for c in self.closes):
                    self.answer_from[row] = len(gen)
                continue
            answer = self.tokenizer.decode(gen[self.answer_from[row]:], skip_special_tokens=True)
            done[row] = any(s in answer.lstrip() for s in self.stops)  # the blank line after the tag ends nothing
        return done
