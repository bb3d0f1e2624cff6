"""``gui-eval ... --help`` reads as plain text: no ``%%`` left from escaping, no reST markup (issue 53)."""

from __future__ import annotations

import argparse

import pytest

from gui_core.help_text import plain
from gui_tasks.commands import cli

MARKUP = ("%%", "``", ":func:", ":class:", ":mod:", ":meth:")


def _commands() -> list[list[str]]:
    parser = cli.build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = [[]]
    for name, sp in subs.choices.items():
        out.append([name])
        for action in sp._actions:
            if isinstance(action, argparse._SubParsersAction):
                out += [[name, inner] for inner in action.choices]
    return out + [["xli", name] for name in ("build", "search", "tsne", "report")]


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "gui-eval")
def test_help_has_no_escapes_or_markup(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "usage:" in text
    found = [m for m in MARKUP if m in text]
    assert not found, f"gui-eval {' '.join(command)} --help shows {found}:\n{text}"


def test_plain_writes_roles_and_literals_as_backquotes():
    assert plain("``gui-eval view`` reads :func:`gui_tasks.x.load` and :class:`~a.B`") == (
        "`gui-eval view` reads `gui_tasks.x.load` and `a.B`")
