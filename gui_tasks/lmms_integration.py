"""The one place where this package attaches itself to an unmodified lmms-eval.

lmms-eval has no entry-point group for tasks, but it loads the ``lmms_eval.models``
entry points when ``lmms_eval.models`` is imported, which every CLI path does before it
builds a ``TaskManager``. Our entry point (``manifests``) therefore (1) returns the
``gui_hf`` and ``gui_wrap`` model manifests, (2) registers every gui metric with lmms-eval's registries
and (3) makes ``TaskManager`` index our installed ``yaml_tasks`` folder as if it had
been passed with ``--include_path``. An explicit ``--include_path`` to the same folder
is de-duplicated, so both forms work.

One lmms-eval path builds a ``TaskManager`` without importing its models
(``lmms-eval tasks list``). For it, ``gui-eval install-lmms-hook`` writes a one-line
``.pth`` file into site-packages that registers a post-import hook: when
``lmms_eval.tasks`` is first imported, the same patch is applied. ``setup.sh`` runs it;
``gui-eval install-lmms-hook --remove`` undoes it.
"""

from __future__ import annotations

import functools
import os
import sys
TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module loads at every interpreter start (.pth hook)
if TYPE_CHECKING:
    from pathlib import Path

_MARK = "__gui_eval_patched__"


def yaml_tasks_dir() -> Path:
    """The installed folder of our lmms-eval task YAMLs."""
    from pathlib import Path

    import yaml_tasks

    return Path(yaml_tasks.__file__).resolve().parent


def _with_our_path(include_path) -> list[str]:
    paths = [] if include_path is None else [include_path] if isinstance(include_path, (str, os.PathLike)) else list(include_path)
    ours = str(yaml_tasks_dir())
    seen = {os.path.realpath(str(p)).rstrip("/") for p in paths}
    if ours.rstrip("/") not in seen:
        paths.append(ours)
    return [str(p) for p in paths]


def install_task_path() -> None:
    """Patch ``TaskManager.initialize_tasks`` (once) to include our YAML folder."""
    if os.environ.get("GUI_EVAL_NO_AUTO_TASKS"):
        return
    from lmms_eval.tasks import TaskManager

    original = TaskManager.initialize_tasks
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def initialize_tasks(self, include_path=None, include_defaults=True):
        return original(self, include_path=_with_our_path(include_path), include_defaults=include_defaults)

    setattr(initialize_tasks, _MARK, True)
    TaskManager.initialize_tasks = initialize_tasks


def attach() -> None:
    """Everything lmms-eval needs from us before it builds tasks (idempotent)."""
    from gui_metrics.lmms_bridge import register_with_lmms_eval
    from gui_tasks.lmms_layout import install_layout_hook

    install_task_path()
    install_layout_hook()
    register_with_lmms_eval()


class _TasksImportHook:  # a meta path finder (duck-typed: importlib.abc costs ~10 ms at start-up)
    """Runs :func:`attach` right after ``lmms_eval.tasks`` is imported."""

    TARGET = "lmms_eval.tasks"

    def find_spec(self, name, path, target=None):
        if name != self.TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _AttachingLoader(spec.loader)
                return spec
        return None


class _AttachingLoader:  # wraps the real loader of lmms_eval.tasks
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            attach()
        except Exception as exc:  # never break lmms-eval itself
            print(f"gui-eval: could not attach to lmms-eval: {exc!r}", file=sys.stderr)


def register_import_hook() -> None:
    """Called from the ``.pth`` line at interpreter start: cheap, imports nothing heavy."""
    if "lmms_eval.tasks" in sys.modules:
        attach()
    elif not any(isinstance(f, _TasksImportHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _TasksImportHook())


PTH_NAME = "gui_eval_lmms_hook.pth"


def install_lmms_hook(*, remove: bool = False, site_dir: str | None = None) -> Path:
    """Write (or remove) the ``.pth`` file that registers the import hook."""
    import sysconfig
    from pathlib import Path

    target = Path(site_dir or sysconfig.get_paths()["purelib"]) / PTH_NAME
    if remove:
        target.unlink(missing_ok=True)
    else:
        # One line starting with "import", so site.py executes it; a no-op once we are uninstalled.
        line = (
            'import importlib.util as _u; _u.find_spec("gui_tasks") and '
            '__import__("gui_tasks.lmms_integration").lmms_integration.register_import_hook()\n'
        )
        target.write_text(line, encoding="utf-8")
    return target


def manifests():
    """Entry point payload for ``lmms_eval.models``: our model backends."""
    from lmms_eval.models.registry_v2 import ModelManifest

    attach()
    return [ModelManifest(model_id="gui_hf", simple_class_path="gui_models.hf_backend.GuiHF"),
            # chat by default (like lmms-eval's own chat backends); --force_simple picks the simple class
            ModelManifest(model_id="gui_wrap", simple_class_path="gui_models.wrap_backend.GuiWrap",
                          chat_class_path="gui_models.wrap_backend.GuiWrapChat")]
