"""Prompt protocols for MPR-GUI questions, each with a stable identifier.

The paper fixes the four-option single-choice format and exact match on the letter
(seed section 3.4) but does not print its evaluation prompt, so the prompt is a named,
recorded choice. The answer instruction stays in English for every language: the
question and options carry the target language, the instruction is the harness's.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

LETTERS = "ABCD"

DIRECT = "mpr-direct-v1"
REASONING = "mpr-cot-v1"

_INSTRUCTIONS: dict[str, str] = {
    DIRECT: "Answer with the option's letter from the given choices directly.",
    # Reasoning-chain mode (seed section 6.3, Table 6): reason first, then answer.
    REASONING: (
        "First think step by step about the screenshot(s) and the options. "
        "Then give your final answer on the last line in the form 'Answer: <letter>'."
    ),
}
PROTOCOLS: tuple[str, ...] = tuple(_INSTRUCTIONS)


def format_options(options: Sequence[str]) -> str:
    """``A. text`` lines in letter order."""
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))


def build_prompt(question: str, options: Sequence[str], protocol: str = DIRECT) -> str:
    """The text part of a request; images are passed separately by the backend."""
    if protocol not in _INSTRUCTIONS:
        raise ValueError(f"unknown MPR prompt protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    return f"{question}\n{format_options(options)}\n{_INSTRUCTIONS[protocol]}"


def protocol_from_kwargs(kwargs: Mapping[str, Any] | None) -> str:
    """The protocol named in ``lmms_eval_specific_kwargs`` (default: direct answer)."""
    return str((kwargs or {}).get("prompt_protocol", DIRECT))
