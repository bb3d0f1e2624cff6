"""Grounding prompts: the PSS paper's (appendix A) and one per agent family, each with a protocol id.

lmms-eval gives a task one user text per document, so the paper's system prompt is sent as
the first paragraph of the user turn (``gui_hf ... system_prompt=`` can carry it instead;
use prompt family ``relative_bare`` then). The family prompts follow each family's published
grounding usage as closely as this offline machine allows; their protocol ids are recorded
in every result so a changed prompt is a changed protocol.
"""

from __future__ import annotations

from typing import Any, Mapping

# Appendix A, system prompt (verbatim).
PAPER_SYSTEM = ("According to the image I provide, identify the relative coordinates of the specified object, with values "
                "ranging from 0 to 1. The output format must be [x, y], and do not output anything else.")

# prompt family -> (protocol id, answer family in gui_models.grounding, template)
PROMPTS: dict[str, tuple[str, str, str]] = {
    "relative": ("pss-relative-v1", "relative", PAPER_SYSTEM + "\n{instruction}"),
    "relative_bare": ("pss-relative-bare-v1", "relative", "{instruction}"),
    "os_atlas": ("grounding-os-atlas-v1", "os_atlas",
                 'In this UI screenshot, what is the position of the element corresponding to the command "{instruction}" '
                 "(with point)?"),
    "ui_tars": ("grounding-ui-tars-v1", "ui_tars",
                "Output only the coordinate of one point in your response. What element matches the following task: {instruction}"),
    "ui_tars_1_5": ("grounding-ui-tars-1.5-v1", "ui_tars_1_5",
                    "Output only the coordinate of one point in your response. What element matches the following task: "
                    "{instruction}"),
    "qwen2_5_vl": ("grounding-qwen2.5-vl-v1", "qwen2_5_vl",
                   'Locate "{instruction}" in the screenshot and output its click point in pixels as JSON: '
                   '{{"point_2d": [x, y]}}'),
    "agentcpm_gui": ("grounding-agentcpm-gui-v1", "agentcpm_gui",
                     'Instruction: click {instruction}. Answer with one JSON action {{"POINT": [x, y]}} on the 0-1000 grid.'),
}
DEFAULT_PROMPT = "relative"


def prompt_family(kwargs: Mapping[str, Any] | None) -> str:
    name = str((kwargs or {}).get("prompt", DEFAULT_PROMPT))
    if name not in PROMPTS:
        raise ValueError(f"unknown grounding prompt {name!r}; known: {', '.join(PROMPTS)}")
    return name


def build_prompt(instruction: str, prompt: str = DEFAULT_PROMPT) -> str:
    return PROMPTS[prompt][2].format(instruction=instruction)


def answer_family(prompt: str) -> str:
    return PROMPTS[prompt][1]


def protocol(prompt: str) -> str:
    return PROMPTS[prompt][0]
