"""Every grounding family prompt equals its authors' text character for character (issue 35, item 4).

tests/fixtures/prompts/grounding_sources.json quotes each prompt string from the cited file (repository, commit,
path): short factual quotes of prompt text, not code. The authors send a system turn and a user text; a task sends
one user text, so ours is the parts joined by a newline, each filled the way the authors fill it (``str.format``,
or ``str.replace`` for JEDI and SE-GUI, whose doubled braces therefore stay doubled).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_core import grounding_prompts as prompts
from gui_core.coords import BUDGETS
from gui_core.family import PROMPTS, family

SOURCES = json.loads((Path(__file__).parent / "fixtures" / "prompts" / "grounding_sources.json").read_text(encoding="utf-8"))
ENTRIES = {e["prompt"]: e for e in SOURCES["prompts"]}
INSTRUCTION = "open the {settings} menu"  # braces in the instruction must come through untouched
WIDTH, HEIGHT = 1920, 1080


def _fill(part: dict, fields: dict) -> str:
    text = part["text"]
    if part["fill"] == "none":
        return text
    if part["fill"] == "positional":
        return text.format(fields["instruction"])
    if part["fill"] == "replace":
        for marker, ours in part["fields"].items():
            text = text.replace(marker, str(fields[ours]))
        return text
    named = {"instruction": fields["instruction"], **{src: fields[ours] for src, ours in part["fields"].items()}}
    return text.format(**named)


def expected(prompt: str, instruction: str) -> str:
    entry = ENTRIES[prompt]
    fields: dict = {"instruction": instruction}
    budget = family(prompts.answer_family(prompt)).budget
    if budget is not None:
        fields["resized_width"], fields["resized_height"] = BUDGETS[budget].resized(WIDTH, HEIGHT)
    return "\n".join(_fill(p, fields) for p in entry["parts"])


def test_every_quoted_prompt_names_its_source():
    assert len(ENTRIES) >= 15
    for e in SOURCES["prompts"]:
        if "url" in e:  # published only on the authors' documentation page (Holo3's guide): its address and day read
            assert e["url"].startswith("https://") and e["retrieved"], e["prompt"]
        else:
            assert len(e["commit"]) == 40 and e["path"] and e["repo"], e["prompt"]
        assert e["prompt"] in PROMPTS.names(), e["prompt"]


@pytest.mark.parametrize("prompt", sorted(ENTRIES))
def test_family_prompt_is_the_authors_text(prompt):
    ours = prompts.build_prompt(INSTRUCTION, prompt, WIDTH, HEIGHT)
    assert ours == expected(prompt, INSTRUCTION)


def test_ui_venus_1_5_drops_one_trailing_full_stop_as_its_script_does():
    ours = prompts.build_prompt("Click the save button.", "ui_venus_1_5")
    assert ours == expected("ui_venus_1_5", "Click the save button")
    assert "instruction: \nClick the save button. \n\n" in ours


def test_jedi_prompt_keeps_its_doubled_braces():
    ours = prompts.build_prompt("save", "jedi", WIDTH, HEIGHT)
    assert '{{"type": "function", "function": {{"name": "computer_use"' in ours
    w, h = BUDGETS["jedi"].resized(WIDTH, HEIGHT)
    assert f"The screen's resolution is {w}x{h}." in ours and "{width}" not in ours and ours.endswith("\n\nsave")
