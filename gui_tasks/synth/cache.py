"""Building a synthetic set once: in a temporary folder renamed into place, under a file lock.

A half-written set is never reused, and two ranks asking at once build once and read the same set.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Sequence


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (created if needed), released on exit."""
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def build_once(base: Path, name: str, files: Sequence[str], write: Callable[[Path, Path], object]) -> Path:
    """``base/name``, built by ``write(tmp_folder, final_folder)`` unless every one of ``files`` is already there."""
    base.mkdir(parents=True, exist_ok=True)
    final = base / name

    def complete() -> bool:
        return all((final / f).is_file() for f in files)

    if not complete():
        with locked(base / f".{name}.lock"):
            if not complete():  # nobody finished it while we waited
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
