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


# --- the house: no circles, no arrows back up, small rooms ----------------------------------------------------------
# Every module of the packages is a node; every import (lazy ones included) an arrow. A circle is a set of modules
# that import each other round (a strongly connected component of more than one module). A room is a benchmark or
# command folder of gui_tasks (all its modules together) or any other module on its own; an arrow back up is an
# import between two rooms that also reach each other the other way (a circle among rooms: e.g. the viewer importing
# gui_tasks.compare while compare imports the viewer's records). A registry names its built-in record modules as
# strings (gui_core.family.BUILTIN_MODULES, gui_core.benchmark.BUILTIN_MODULES), like entry points: the records
# depend on the registry, never the other way round.

MAX_MODULE_LINES = 500


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (a name resolves to the longest module it starts with; a module's
    own parent packages are left out: importing a submodule runs them anyway)."""
    mods = _modules()

    def target(name: str) -> str | None:
        parts = name.split(".")
        while parts:
            if ".".join(parts) in mods:
                return ".".join(parts)
            parts.pop()
        return None

    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        out = {target(name) for _line, name in _imports(path)}
        graph[mod] = {d for d in out if d and d != mod and not mod.startswith(d + ".")}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _room(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "gui_tasks" and len(parts) > 2 else module


def test_no_circles_among_modules():
    assert _circles(_graph()) == []


def test_no_arrows_back_up_between_rooms():
    rooms: dict[str, set[str]] = {}
    for mod, deps in _graph().items():
        rooms.setdefault(_room(mod), set()).update(_room(d) for d in deps if _room(d) != _room(mod))
    assert _circles(rooms) == []


def test_the_circle_finder_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    assert _room("gui_tasks.viewer.site") == "gui_tasks.viewer" and _room("gui_tasks.compare") == "gui_tasks.compare"


def test_no_package_module_over_500_lines():
    """Small modules named after what they hold (docs/CONVENTIONS.md); the offenders are listed by path and size."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()}
    over = {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES}
    assert over == {}
