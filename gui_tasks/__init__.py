"""GUI-agent benchmarks for lmms-eval: role folders (runs, harness, reports, submit, commands), the synthetic world and
one folder per benchmark (docs/layout.md).

The modules that lay loose in this folder before the role folders (e.g. ``gui_tasks.doc_images``,
``gui_tasks.lmms_rows``, the ``.pth`` hook's ``gui_tasks.lmms_integration``) still import under their old names:
:data:`MOVED` maps each old name to its home, and an import of the old name gives the very same module object
(``python -m gui_tasks.cli`` included). New code imports the new names; docs/plugins.md lists the aliases."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

# old module name (under gui_tasks) -> its home since the role folders (issue 50). Only names: nothing is imported
# until an old name is.
MOVED: dict[str, str] = {
    **{m: f"runs.{m}" for m in ("input_files", "results_io", "hashing", "doc_images", "provenance", "fingerprint",
                                "protocols", "task_folders", "json_schema")},
    **{m: f"harness.{m}" for m in ("lmms_integration", "lmms_rows", "lmms_layout", "lmms_stats", "lmms_failures",
                                   "task_keys", "thin_yaml", "circular", "data_check", "rescore")},
    **{m: f"reports.{m}" for m in ("summary", "compare", "vision_gain", "letter_bias_report")},
    **{m: f"submit.{m}" for m in ("leaderboard", "verify", "submission_input", "submission_rules",
                                  "submission_versions")},
    **{m: f"commands.{m}" for m in ("cli", "parser_inventory")},
}
# gui_tasks.errors held the floor's error types and the bad-row tally; its names now live in three modules.
OLD_ERRORS = ("gui_core.errors", "gui_core.sample_faults", "gui_tasks.harness.bad_rows")


def _target(fullname: str) -> str | None:
    prefix, _, name = fullname.rpartition(".")
    return f"{__name__}.{MOVED[name]}" if prefix == __name__ and name in MOVED else None


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module at its new home (the same object, not a copy)."""

    def __init__(self) -> None:
        self._homes: dict = {}

    def find_spec(self, fullname, path=None, target=None):  # noqa: D401 - importlib protocol
        if _target(fullname) or fullname == f"{__name__}.errors":
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        if spec.name == f"{__name__}.errors":
            module = types.ModuleType(spec.name, "Old home of the error types (gui_core.errors) and the bad-row tally.")
            for home in OLD_ERRORS:
                source = importlib.import_module(home)
                module.__dict__.update({k: v for k, v in vars(source).items() if not k.startswith("__")})
            return module
        module = importlib.import_module(_target(spec.name))
        self._homes[spec.name] = module.__spec__  # importlib sets __spec__ to the alias's spec: put it back after
        return module

    def exec_module(self, module):
        home = self._homes.pop(module.__spec__.name, None)
        if home is not None:
            module.__spec__ = home

    def get_code(self, fullname):
        """For ``python -m gui_tasks.cli``: run the new module's code as ``__main__``."""
        new = _target(fullname) or fullname
        return importlib.util.find_spec(new).loader.get_code(new)


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.append(_Alias())
