"""Writing a small installed distribution (module files + dist-info with entry points) into a folder (no tests here)."""

from __future__ import annotations

from pathlib import Path


def write_dist(site: Path, name: str, modules: dict[str, str], entry_points: str, version: str = "0.1") -> Path:
    """``site/<module>.py`` for each module and ``site/<name>-<version>.dist-info`` declaring ``entry_points``."""
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        path = site / (module.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    return info
