"""The modules of gui_tasks/sphinx import each other in one direction only (issue 21, item 8)."""

from __future__ import annotations

import ast
from pathlib import Path

import gui_tasks.sphinx

PKG = Path(gui_tasks.sphinx.__file__).parent


def _imports(path: Path) -> set[str]:
    """Sibling modules a module imports anywhere (top level or inside a function)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "gui_tasks.sphinx":
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gui_tasks.sphinx."):
            names.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[2] for a in node.names if a.name.startswith("gui_tasks.sphinx."))
    return names


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in state and (found := visit(nxt, path + [node])):
                return found
        state[node] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n, [])):
            return found
    return None


def test_sphinx_modules_form_no_import_circle():
    graph = {p.stem: _imports(p) & {q.stem for q in PKG.glob("*.py")} for p in PKG.glob("*.py")}
    assert graph["check"] >= {"release", "static_tasks"}  # the data check sits above both
    assert "static_tasks" not in graph["release"]
    assert _cycle(graph) is None, _cycle(graph)


def test_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
