"""The grounding tasks of a model family installed as a plugin (entry-point group ``gui_eval.families``), written on
first use into a folder lmms-eval indexes.

Our ``yaml_tasks/grounding`` folder holds the tasks of the families this package ships (``scripts/gen_yaml_tasks.py``).
A family installed later gets the same tasks (``gui_screenspot_<family>``, ``gui_screenspot_pro_<family>``,
``gui_osworld_g_<family>``, ``icon_localization_synth_<family>``, ...) without editing anything: its package names
:func:`family_task_folder` in the task entry-point group ``gui_eval.tasks`` (docs/adding.md), and lmms-eval's index
calls it like any plugin's task folder (gui_tasks/runs/task_folders.py). The YAMLs are rendered from the family's
record by the same generator as ours (gui_tasks/grounding/yaml_spec.py), into ``$GUI_EVAL_CACHE/family_tasks/
<family>-<content hash>/`` (a changed record gets a new folder; a complete folder is never rewritten). Tasks already
shipped in our folder are left out, so a built-in family gets an empty folder, never a second copy.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from gui_core.family import family
from gui_core.paths import cache_dir
from gui_tasks.grounding.yaml_spec import render_all

HEADER = "# Generated for an installed family plugin by gui_tasks/grounding/family_tasks.py - not edited by hand.\n"


def _shipped() -> set[str]:
    """File names of the grounding task YAMLs this package ships."""
    from gui_tasks.runs.task_folders import yaml_tasks_dir

    return {p.name for p in (yaml_tasks_dir() / "grounding").glob("*.yaml")}


def family_task_files(name: str) -> dict[str, str]:
    """File name -> YAML text of every grounding task sending one of family ``name``'s prompts (not shipped by us)."""
    rec = family(name)
    shipped = _shipped()
    files = render_all({p.name for p in rec.prompts})
    return {f: HEADER + text.split("\n", 1)[1] for f, text in sorted(files.items()) if f not in shipped}


def family_task_folder(name: str) -> str:
    """The folder holding family ``name``'s grounding tasks (written once per record content), for ``gui_eval.tasks``."""
    files = family_task_files(name)
    digest = hashlib.sha256("\0".join(f"{k}\0{v}" for k, v in files.items()).encode()).hexdigest()[:16]
    root = cache_dir() / "family_tasks"
    dest = root / f"{family(name).name}-{digest}"
    if dest.is_dir():
        return str(dest)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=root))
    for file_name, text in files.items():
        (tmp / file_name).write_text(text, encoding="utf-8")
    try:
        os.replace(tmp, dest)
    except OSError:  # another process wrote it first: keep that copy
        for p in tmp.iterdir():
            p.unlink()
        tmp.rmdir()
    return str(dest)
