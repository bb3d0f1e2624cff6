"""The docs' reference tables list everything the code has: every ``gui-eval`` sub-command in docs/running.md's command
table, every grounding family (prompt and answer family) in docs/grounding_families.md's family table."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def table_rows(page: Path, header: str) -> list[str]:
    """The rows of the markdown table whose header row starts with ``header``."""
    lines = page.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def first_cell(row: str) -> str:
    return row.split("|")[1].strip()


def test_every_gui_eval_command_is_in_the_running_page_table():
    from gui_tasks.commands.cli import build_parser

    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    cells = " ".join(first_cell(r) for r in table_rows(ROOT / "docs" / "running.md", "| command |"))
    named = set(re.findall(r"gui-eval ([a-z-]+)", cells)) | set(re.findall(r"`([a-z-]+)`", cells))
    missing = sorted(set(subs.choices) - named)
    assert not missing, f"docs/running.md's command table lacks {missing}"


def test_every_grounding_family_is_in_the_family_table():
    from gui_core.family import PROMPTS, grounding_families

    rows = table_rows(ROOT / "docs" / "grounding_families.md", "| family (prompt) |")
    listed = {name for r in rows for name in re.findall(r"`([a-z0-9_]+)`", first_cell(r).split(" (")[0])}
    missing = sorted(({f.name for f in grounding_families()} | set(PROMPTS.names())) - listed)
    assert not missing, f"docs/grounding_families.md's family table lacks {missing}"


def test_the_table_reader_finds_a_missing_row(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("| command | what |\n|---|---|\n| `gui-eval demo` | d |\n| `gui-eval submit`, `validate` | s |\n\nafter\n")
    assert [first_cell(r) for r in table_rows(page, "| command |")] == ["`gui-eval demo`", "`gui-eval submit`, `validate`"]
