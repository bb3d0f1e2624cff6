"""Build-once caching of generated sets: built in a temporary folder, renamed into place under a lock.

A half-written set is never reused, and several processes (accelerate ranks) asking for the
same set at once build it once and all read the same files. Every finished set carries
``MANIFEST`` (sha256 and size of each file); a set whose files no longer match it (cut,
edited or deleted files) is reported on stderr, naming the file, and rebuilt. The
full check runs once per set and process.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator

from gui_core.file_hash import sha256_file

MANIFEST = ".content-sha256.json"
_VERIFIED: set[tuple[str, int]] = set()  # (set folder, manifest mtime) checked by this process
_VERIFY_LOCK = threading.Lock()




def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST)


def write_manifest(root: Path) -> None:
    """Record sha256 and size of every file under ``root`` (relative paths)."""
    entries = {p.relative_to(root).as_posix(): {"sha256": sha256_file(p), "size": p.stat().st_size} for p in _files(root)}
    (root / MANIFEST).write_text(json.dumps({"files": entries}, indent=0, sort_keys=True), encoding="utf-8")


def damage(root: Path) -> str | None:
    """What is wrong with the set at ``root`` compared with its manifest, or None when every file matches."""
    try:
        entries = json.loads((root / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{root / MANIFEST}: no readable content manifest ({exc.__class__.__name__})"
    present = {p.relative_to(root).as_posix() for p in _files(root)}
    for rel in sorted(set(entries) - present):
        return f"{root / rel}: missing"
    for rel, want in sorted(entries.items()):
        path = root / rel
        if path.stat().st_size != want["size"]:
            return f"{path}: {path.stat().st_size} bytes, expected {want['size']} (cut or edited)"
    for rel, want in sorted(entries.items()):
        if sha256_file(root / rel) != want["sha256"]:
            return f"{root / rel}: content differs from the stored sha256 (edited or damaged)"
    return None


def _intact(final: Path, complete: Callable[[Path], bool], *, quiet: bool = False) -> bool:
    if not complete(final):
        return False
    try:
        key = (str(final), (final / MANIFEST).stat().st_mtime_ns)
    except OSError:
        key = None
    with _VERIFY_LOCK:
        if key is not None and key in _VERIFIED:
            return True
        problem = damage(final)
        if problem is None:
            _VERIFIED.add(key)  # type: ignore[arg-type]
            return True
    if not quiet:
        print(f"gui-eval: cached set {final} is damaged, rebuilding it: {problem}", file=sys.stderr, flush=True)
    return False


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
    if _intact(final, complete):
        return final
    with locked(base / f".{name}.lock"):
        if _intact(final, complete, quiet=True):  # somebody finished it while we waited
            return final
        for stale in base.glob(f".{name}.building-*"):  # left by a crashed build
            shutil.rmtree(stale, ignore_errors=True)
        if final.exists():  # damaged, or not produced by this code (it renames whole sets): rebuild
            shutil.rmtree(final)
        tmp = Path(tempfile.mkdtemp(dir=base, prefix=f".{name}.building-"))
        try:
            os.chmod(tmp, 0o755)  # mkdtemp makes it private; a finished set is an ordinary folder
            write(tmp, final)
            write_manifest(tmp)
            os.rename(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return final
