"""Build-once caching of generated sets: built in a temporary folder, renamed into place under a lock.

A half-written set is never reused, and several processes (accelerate ranks) asking for the
same set at once build it once and all read the same files.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterator


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (created if needed), released on exit."""
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def build_once(base: Path, name: str, write: Callable[[Path, Path], None], complete: Callable[[Path], bool]) -> Path:
    """``base/name``, built by ``write(tmp_dir, final_dir)`` unless ``complete(final_dir)`` already holds.

    ``write`` writes into ``tmp_dir`` with every path inside the files pointing at ``final_dir``.
    """
    base.mkdir(parents=True, exist_ok=True)
    final = base / name
    if complete(final):
        return final
    with locked(base / f".{name}.lock"):
        if complete(final):  # somebody finished it while we waited
            return final
        for stale in base.glob(f".{name}.building-*"):  # left by a crashed build
            shutil.rmtree(stale, ignore_errors=True)
        if final.exists():  # not produced by this code (it renames whole sets): rebuild
            shutil.rmtree(final)
        tmp = Path(tempfile.mkdtemp(dir=base, prefix=f".{name}.building-"))
        try:
            os.chmod(tmp, 0o755)  # mkdtemp makes it private; a finished set is an ordinary folder
            write(tmp, final)
            os.rename(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return final
