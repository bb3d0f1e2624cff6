"""The house (docs/layout.md): imports go only downward, floor by floor. gui_core at the bottom, then gui_metrics and
gui_interventions side by side, the backends (gui_models), then gui_tasks' role folders (runs, harness; reports, submit
and the synthetic world), the benchmarks side by side (none imports another), the viewer and the commands. Every import
is checked, lazy ones inside functions too; scoring takes its geometry from gui_core, never from an intervention
plugin. The house is drawn from the code and kept small: rooms, floors, no loose module in gui_tasks/."""


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
# The floors of the house, bottom to top (docs/layout.md): a room imports only rooms on lower floors, never a room on
# its own floor. A room is a top package below gui_tasks, or a folder of gui_tasks (all its modules together).
FLOORS: tuple[frozenset[str], ...] = tuple(frozenset(f) for f in (
    {"gui_core"},
    {"gui_metrics", "gui_interventions"},
    {"gui_models"},
    {"gui_tasks"},  # the package itself: the old module names' aliases (strings), nothing else
    {"gui_tasks.runs"},  # what a run writes and reads back: results, samples, hashes, provenance, fingerprints
    {"gui_tasks.harness"},  # lmms-eval integration: rows, task keys, thin YAML, data check, rescoring
    {"gui_tasks.reports", "gui_tasks.submit", "gui_tasks.synth"},  # shared reports, leaderboard files, the GUI world
    {f"gui_tasks.{b}" for b in BENCHMARKS},  # the benchmarks side by side: none imports another
    {"gui_tasks.viewer"},
    {"gui_tasks.commands"},  # gui-eval's command line
))
FLOOR_OF = {room: i for i, floor in enumerate(FLOORS) for room in floor}
# Modules that may lie loose in gui_tasks/ (no role folder): the package's own __init__.
LOOSE_ALLOWED = {"__init__.py"}
MAX_ROOMS, MAX_FLOORS = 22, 10


def _layer(module: str) -> tuple[str, str | None]:
    """(room, benchmark) of a dotted module name inside the project."""
    room = _room(module)
    return room, room.split(".")[1] if room.split(".")[-1] in BENCHMARKS and room.startswith("gui_tasks.") else None


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
            src, _ = _layer(_module_name(path))
            for line, mod in _imports(path):
                dst, _ = _layer(mod)
                if dst == src or src.startswith(dst + "."):
                    continue
                if src not in FLOOR_OF or dst not in FLOOR_OF:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} ({src if src not in FLOOR_OF else dst} "
                               f"is on no floor of docs/layout.md)")
                elif FLOOR_OF[dst] >= FLOOR_OF[src]:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} ({src} may not import {dst}: "
                               f"{'the same floor' if FLOOR_OF[dst] == FLOOR_OF[src] else 'a floor above'})")
    return bad


def test_imports_only_go_downward():
    assert _violations() == []


def test_the_checker_sees_a_sideways_import(tmp_path):
    """The rule itself: a benchmark importing another benchmark, and the floor importing a backend, are caught."""
    assert _layer("gui_tasks.star.judges") == ("gui_tasks.star", "star")
    assert _layer("gui_tasks.viewer.site") == ("gui_tasks.viewer", None)
    assert _layer("gui_tasks.harness.bad_rows") == ("gui_tasks.harness", None)
    assert FLOOR_OF["gui_tasks.star"] == FLOOR_OF["gui_tasks.mpr"]  # side by side: neither may import the other
    assert FLOOR_OF["gui_models"] > FLOOR_OF["gui_core"]


# --- the house: no circles, no arrows back up, small rooms ----------------------------------------------------------
# Every module of the packages is a node; every import (lazy ones included) an arrow. A circle is a set of modules
# that import each other round (a strongly connected component of more than one module). A room is a benchmark or
# command folder of gui_tasks (all its modules together) or any other module on its own; an arrow back up is an
# import between two rooms that also reach each other the other way (a circle among rooms: e.g. the viewer importing
# gui_tasks.reports.compare while compare imports the viewer's records). A registry finds its built-in record modules
# as entry points of gui-eval's own setup.cfg (gui_core.plugin_groups), as a third party's: the records depend on the
# registry, never the other way round.

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
    """A top package below gui_tasks, or a folder of gui_tasks (a loose module of gui_tasks is a room of its own)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "gui_tasks" else parts[0]


def _rooms() -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for mod, deps in _graph().items():
        rooms.setdefault(_room(mod), set()).update(_room(d) for d in deps if _room(d) != _room(mod))
    return rooms


def _floors(rooms: dict[str, set[str]]) -> dict[str, int]:
    """Each room's floor drawn from the code: 1 + the highest floor it imports (a room importing nothing is on 1)."""
    out: dict[str, int] = {}

    def floor(room: str) -> int:
        if room not in out:
            out[room] = 0  # a circle would stop here; test_no_arrows_back_up_between_rooms names it
            out[room] = 1 + max((floor(d) for d in rooms.get(room, ())), default=0)
        return out[room]

    for room in rooms:
        floor(room)
    return out


def test_no_circles_among_modules():
    assert _circles(_graph()) == []


def test_no_arrows_back_up_between_rooms():
    assert _circles(_rooms()) == []


def test_the_house_drawn_from_the_code_is_small():
    """Issue 50: at most 22 rooms on at most 10 floors, and every room is on a floor docs/layout.md names."""
    rooms = _rooms()
    floors = _floors(rooms)
    assert len(rooms) <= MAX_ROOMS, sorted(rooms)
    assert max(floors.values()) <= MAX_FLOORS, sorted(floors.items(), key=lambda kv: kv[1])
    assert sorted(r for r in rooms if r not in FLOOR_OF) == []


def test_no_loose_module_in_gui_tasks():
    """The glue lives in role folders; a new module goes into the folder its role names (docs/layout.md)."""
    assert sorted(p.name for p in (ROOT / "gui_tasks").glob("*.py") if p.name not in LOOSE_ALLOWED) == []


def test_layout_page_names_every_folder():
    page = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    folders = [f"gui_tasks/{p.name}/" for p in sorted((ROOT / "gui_tasks").iterdir())
               if p.is_dir() and (p / "__init__.py").exists()]
    assert [f for f in folders if f not in page] == []


def test_the_circle_finder_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    assert _room("gui_tasks.viewer.site") == "gui_tasks.viewer" and _room("gui_core.geometry") == "gui_core"
    assert _floors({"a": {"b"}, "b": {"c"}, "c": set(), "d": set()}) == {"a": 3, "b": 2, "c": 1, "d": 1}


def test_no_package_module_over_500_lines():
    """Small modules named after what they hold (docs/CONVENTIONS.md); the offenders are listed by path and size."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()}
    over = {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES}
    assert over == {}


def _draw_house():
    import importlib.util

    spec = importlib.util.spec_from_file_location("draw_house", ROOT / "scripts" / "draw_house.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_house_picture_is_current():
    """docs/images/house.svg (docs/layout.md) is the house drawn from the code now: ``python scripts/draw_house.py``."""
    rooms = _rooms()
    svg = _draw_house().house_svg(rooms, _floors(rooms))
    assert (ROOT / "docs" / "images" / "house.svg").read_text(encoding="utf-8") == svg, "run python scripts/draw_house.py"


def test_the_house_picture_draws_each_room_on_its_floor_and_each_arrow():
    svg = _draw_house().house_svg({"gui_tasks.top": {"gui_core"}, "gui_core": set(), "gui_metrics": {"gui_core"}},
                                  {"gui_tasks.top": 2, "gui_core": 1, "gui_metrics": 2})
    assert "3 rooms, 2 floors, 2 arrows" in svg
    assert svg.count("<line ") == 2 and "gui_tasks.top imports gui_core" in svg and "gui_metrics imports gui_core" in svg
    assert ">gui_tasks/top/</text>" in svg and ">gui_core</text>" in svg and ">floor 2</text>" in svg
    top_y = float(svg.split(">gui_tasks/top/</text>")[0].rsplit('y="', 1)[1].split('"')[0])
    core_y = float(svg.split(">gui_core</text>")[0].rsplit('y="', 1)[1].split('"')[0])
    assert top_y < core_y  # floor 2 above floor 1
