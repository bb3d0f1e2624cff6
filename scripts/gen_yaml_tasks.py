"""Writes every benchmark's task YAMLs from its record's generator (run after changing one; a test checks freshness).

No list of folders here: each ``gui_core.benchmark`` record names the ``yaml_folder`` of its tasks and the generator
of their YAML (``yaml_spec``, ``"module:function"`` returning file name -> full text), built-in records and plugins'
alike; records that share a folder share one generator. Each folder is written thin over shared base files
(:mod:`gui_tasks.harness.thin_yaml`); a generator module may set ``YAML_BASE_PREFIX``, the prefix of its folder's base
files (default: the folder's name). ``--check`` writes nothing and exits 1 when a folder is stale; ``--only
NAME[,NAME...]`` limits both to the folders of those benchmark records (a plugin's: ``--only toy_grounding``,
docs/adding.md).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from gui_core.benchmark import BENCHMARKS, resolve, yaml_root
from gui_tasks.harness.thin_yaml import BASE_SUFFIX, factor

ROOT = Path(__file__).resolve().parent.parent


def specs(only: frozenset[str] | None = None) -> dict[Path, str]:
    """Each generated folder and the ``yaml_spec`` that writes it, read from the records (those named in ``only``
    when given; a folder claimed by two different generators is an error naming both records)."""
    out: dict[Path, str] = {}
    owner: dict[Path, str] = {}
    for rec in BENCHMARKS.values():
        if only is not None and rec.name not in only:
            continue
        folder = Path(rec.yaml_folder) if Path(rec.yaml_folder).is_absolute() else yaml_root() / rec.yaml_folder
        if out.setdefault(folder, rec.yaml_spec) != rec.yaml_spec:
            raise SystemExit(f"gen_yaml_tasks: {folder} is written by {out[folder]} (record {owner[folder]}) and by "
                             f"{rec.yaml_spec} (record {rec.name}); records sharing a folder name one yaml_spec")
        owner.setdefault(folder, rec.name)
    return out


def folders(only: frozenset[str] | None = None) -> dict[Path, dict[str, str]]:
    """Every generated folder of yaml_tasks (and of plugin benchmarks) and its full task texts."""
    return {folder: resolve(spec)() for folder, spec in specs(only).items()}


def base_prefix(folder: Path, spec: str) -> str:
    """The prefix of ``folder``'s shared base files: the generator module's ``YAML_BASE_PREFIX``, else the folder name."""
    return getattr(importlib.import_module(spec.partition(":")[0]), "YAML_BASE_PREFIX", folder.name)


def written(only: frozenset[str] | None = None) -> dict[Path, dict[str, str]]:
    """What the generator writes: every folder's task files thin over its shared bases (:mod:`gui_tasks.harness.thin_yaml`)."""
    spec = specs(only)
    return {out: factor(files, base_prefix(out, spec[out])) for out, files in folders(only).items()}


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    only = None
    if "--only" in argv:
        names = argv[argv.index("--only") + 1].split(",") if argv.index("--only") + 1 < len(argv) else []
        only = frozenset(BENCHMARKS.canonical(n) for n in names if n)  # an unknown name: "did you mean"
        if not only:
            raise SystemExit("gen_yaml_tasks: --only needs benchmark names (gui-eval benchmarks lists them)")
    status = 0
    for out, files in written(only).items():
        stale = [n for n, t in files.items() if not (out / n).is_file() or (out / n).read_text(encoding="utf-8") != t]
        present = list(out.glob("*.yaml")) + list(out.glob(f"_*{BASE_SUFFIX}")) if out.is_dir() else []
        extra = [p.name for p in present if p.name not in files]
        if check:
            if stale or extra:
                print(f"{_shown(out)} is stale: {sorted(stale + extra)}; run python scripts/gen_yaml_tasks.py")
                status = 1
            continue
        out.mkdir(parents=True, exist_ok=True)
        for name in extra:
            (out / name).unlink()
        for name, text in files.items():
            (out / name).write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} files to {_shown(out)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
