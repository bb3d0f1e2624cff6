"""The dependency rule between packages (docs/layout.md): imports go only downward. gui_core at the bottom, then
gui_metrics and gui_interventions side by side, then the backends (gui_models), then gui_tasks' shared modules, then the
benchmarks side by side (none imports another), then the commands (cli, viewer, leaderboard, verify). Every import is
checked, lazy ones inside functions too; scoring takes its geometry from gui_core, never from an intervention plugin."""


from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` / ``from ... import`` in the file names (at any depth, lazy imports included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_scoring_does_not_import_intervention_plugins():
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in imported_modules(p) if m.startswith("gui_interventions.crop"))
                 for p in sorted((ROOT / "gui_tasks").rglob("*.py")) + sorted((ROOT / "gui_metrics").rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_crop_plugin_and_grounding_scoring_share_one_geometry():
    from gui_interventions import crop
    from gui_core import geometry
    from gui_tasks.grounding import score

    assert crop.crop_window is geometry.crop_window and crop.to_relative is geometry.to_relative
    assert score.answer_geometry is geometry.answer_geometry and score.map_back is geometry.map_back

BENCHMARKS = ("grounding", "knowledge", "mpr", "sphinx", "star")
# gui_tasks modules above the benchmarks: they may import any benchmark.
APPS = ("cli", "viewer", "leaderboard", "verify", "parser_inventory", "compare")


def _layer(module: str) -> tuple[str, str | None]:
    """(layer, benchmark) of a dotted module name inside the project."""
    parts = module.split(".")
    top = parts[0]
    if top != "gui_tasks":
        return top, None
    if len(parts) > 1 and parts[1] in BENCHMARKS:
        return "benchmark", parts[1]
    if len(parts) > 1 and parts[1] in APPS:
        return "apps", None
    return "gui_tasks", None


# layer -> layers it may import (besides itself)
ALLOWED = {
    "gui_core": set(),
    "gui_metrics": {"gui_core"},
    "gui_interventions": {"gui_core"},
    "gui_models": {"gui_core", "gui_metrics", "gui_interventions"},
    "gui_tasks": {"gui_core", "gui_metrics", "gui_interventions", "gui_models"},
    "benchmark": {"gui_core", "gui_metrics", "gui_interventions", "gui_models", "gui_tasks"},
    "apps": {"gui_core", "gui_metrics", "gui_interventions", "gui_models", "gui_tasks", "benchmark"},
}
PACKAGES = ("gui_core", "gui_metrics", "gui_interventions", "gui_models", "gui_tasks")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = _module_name(path).split(".")
    is_pkg = path.name == "__init__.py"
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names if f"{mod}.{a.name}".count(".") == 1]
    return [(line, m) for line, m in out if m.split(".")[0] in PACKAGES]


def _violations() -> list[str]:
    bad = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            src_layer, src_bench = _layer(_module_name(path))
            for line, mod in _imports(path):
                dst_layer, dst_bench = _layer(mod)
                if dst_layer == src_layer:
                    if src_layer == "benchmark" and dst_bench != src_bench:
                        bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} (a benchmark imports another benchmark)")
                    continue
                if dst_layer not in ALLOWED[src_layer]:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} ({src_layer} may not import {dst_layer})")
    return bad


def test_imports_only_go_downward():
    assert _violations() == []


def test_the_checker_sees_a_sideways_import(tmp_path):
    """The rule itself: a benchmark importing another benchmark, and the floor importing a backend, are caught."""
    assert _layer("gui_tasks.star.judges") == ("benchmark", "star")
    assert _layer("gui_tasks.viewer.site") == ("apps", None)
    assert _layer("gui_tasks.errors") == ("gui_tasks", None)
    assert "benchmark" not in ALLOWED["gui_tasks"] and "gui_models" not in ALLOWED["gui_core"]
