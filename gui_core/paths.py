"""Where generated data and tiny checkpoints are cached."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "GUI_EVAL_CACHE"


def cache_dir() -> Path:
    """``$GUI_EVAL_CACHE`` or ``~/.cache/gui_eval`` (created on demand)."""
    root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "gui_eval").expanduser()
    root.mkdir(parents=True, exist_ok=True)
    return root
