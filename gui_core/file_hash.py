"""The sha256 of a file's bytes, read in 1 MiB blocks: the one streaming file hash (pinned hub files, synthetic-set
manifests, run-file hashes; ``gui_tasks.runs.hashing.file_sha256`` caches it by path, size and modification time)."""

from __future__ import annotations

import hashlib
import os


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
