"""The dependency rule between packages: gui_metrics and gui_interventions import nothing from gui_tasks, and
scoring takes its geometry from the model side (gui_models.geometry), never from an intervention plugin."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("package", ["gui_metrics", "gui_interventions"])
def test_plugin_packages_import_nothing_from_gui_tasks(package):
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in imported_modules(p) if m.split(".")[0] == "gui_tasks")
                 for p in sorted((ROOT / package).rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_scoring_does_not_import_intervention_plugins():
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in imported_modules(p) if m.startswith("gui_interventions.crop"))
                 for p in sorted((ROOT / "gui_tasks").rglob("*.py")) + sorted((ROOT / "gui_metrics").rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_crop_plugin_and_grounding_scoring_share_one_geometry():
    from gui_interventions import crop
    from gui_models import geometry
    from gui_tasks.grounding import score

    assert crop.crop_window is geometry.crop_window and crop.to_relative is geometry.to_relative
    assert score.answer_geometry is geometry.answer_geometry and score.map_back is geometry.map_back
