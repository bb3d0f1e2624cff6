"""Where a benchmark's published data lives on the Hugging Face Hub, as frozen records a ``Benchmark`` record carries.

The same repositories lmms-eval's own tasks read (``dataset_path`` in their YAML), so a copy an lmms-eval user
already has in the Hugging Face cache is the copy we read. Content hashes are pinned per file: a release that
changed is reported with what changed, never silently scored (issue 42).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SHA256 = re.compile(r"[0-9a-f]{64}")
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class HubFile:
    """One file of a pinned release: its path inside the repository, its SHA-256 and size in bytes."""

    path: str
    sha256: str
    size: int | None = None

    def __post_init__(self) -> None:
        if not self.path or self.path.startswith("/") or ".." in self.path.split("/"):
            raise ValueError(f"hub file path {self.path!r} must be relative and stay inside the repository")
        if not _SHA256.fullmatch(self.sha256):
            raise ValueError(f"hub file {self.path!r}: sha256 {self.sha256!r} is not 64 lowercase hex digits")


@dataclass(frozen=True)
class HubRelease:
    """A benchmark's data in one Hub repository at one revision.

    ``layout`` names the reader of the files (the hub layout of that benchmark, e.g. parquet with embedded images);
    ``files`` pins each file's content hash (empty: no hashes pinned yet, which ``data fetch`` reports as such);
    ``read_by`` names the lmms-eval 0.7.3 task that reads the same repository (docs and messages); ``convert`` names the
    function (``module:function``, ``convert(snapshot, out)``) that writes the official release layout the benchmark's
    loader reads from the hub layout (empty: the loader reads the snapshot as it is). The converted copy is kept per
    commit under the ``layout`` name: a converter whose output changes gets a new layout name (``..._v2``).
    ``allow_patterns`` (``fnmatch`` patterns over paths in the repository, ``*`` crossing ``/``) restricts the release
    to the files the benchmark's loader reads when the repository holds more (UI-Vision's layout-grounding set,
    MMBench-GUI's level 1): only those are downloaded, hashed, pinned and compared; empty: every data file. ``evidence``
    cites where the hub layout was established (shown by ``gui-eval benchmarks --json``)."""

    repo_id: str
    revision: str
    layout: str
    repo_type: str = "dataset"
    files: tuple[HubFile, ...] = ()
    read_by: str = ""
    size_bytes: int | None = None
    convert: str = ""
    allow_patterns: tuple[str, ...] = ()
    evidence: str = ""  # where the hub layout (columns, box convention, files) was read: card, code, commit

    def __post_init__(self) -> None:
        if not _REPO_ID.fullmatch(self.repo_id):
            raise ValueError(f"hub repository id {self.repo_id!r} is not 'owner/name'")
        if not self.revision:
            raise ValueError(f"hub repository {self.repo_id!r}: a revision (commit or tag) is required")
        if self.repo_type not in ("dataset", "model"):
            raise ValueError(f"hub repository {self.repo_id!r}: repo_type {self.repo_type!r} is not dataset/model")
        if not self.layout:
            raise ValueError(f"hub repository {self.repo_id!r}: a layout name is required")
        if self.convert and not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", self.convert):
            raise ValueError(f"hub repository {self.repo_id!r}: convert {self.convert!r} is not 'module:function'")
        if isinstance(self.allow_patterns, str) or not all(isinstance(p, str) and p for p in self.allow_patterns):
            raise ValueError(f"hub repository {self.repo_id!r}: allow_patterns is a tuple of non-empty patterns")
        paths = [f.path for f in self.files]
        outside = [p for p in paths if not self.allows(p)]
        if outside:
            raise ValueError(f"hub repository {self.repo_id!r}: pinned {outside[0]!r} is outside allow_patterns")
        if len(set(paths)) != len(paths):
            raise ValueError(f"hub repository {self.repo_id!r}: a file is pinned twice")

    def allows(self, path: str) -> bool:
        """Whether ``path`` (relative, posix) is part of the release: every path when ``allow_patterns`` is empty."""
        from fnmatch import fnmatchcase

        return not self.allow_patterns or any(fnmatchcase(path, p) for p in self.allow_patterns)
