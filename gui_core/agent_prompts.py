"""The agent prompt texts quoted from papers and repositories, read once from ``gui_core/prompts/agent_prompts.json``.

Each text is stored byte for byte with its citation (repository, file, commit and the constant's name, or the paper's
section); ``source(name)`` returns it. The texts are data, not code: a family's prompt builder
(``gui_core.agent_formats``) fills them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPTS_FILE = Path(__file__).parent / "prompts" / "agent_prompts.json"


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    return json.loads(PROMPTS_FILE.read_text(encoding="utf-8"))


def text(name: str) -> str:
    """The prompt text called ``name`` (e.g. ``"star-os-atlas/aitz"``)."""
    return _load()["texts"][name]["text"]


def value(name: str) -> Any:
    """A quoted JSON object (e.g. GUI-Owl's ``mobile_use`` tool), as a fresh copy."""
    return json.loads(json.dumps(_load()["objects"][name]["value"]))


def source(name: str) -> dict[str, str]:
    """Where the text or object ``name`` is quoted from."""
    data = _load()
    entry = data["texts"].get(name) or data["objects"][name]
    return dict(entry["source"])


def names() -> list[str]:
    """Every stored text and object."""
    data = _load()
    return [*data["texts"], *data["objects"]]
