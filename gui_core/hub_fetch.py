"""A benchmark's published data from the Hugging Face Hub: ``gui-eval data fetch`` and the tasks' first-use download.

One path for every benchmark record whose ``data.hub`` names a ``gui_core.hub_release.HubRelease`` (``HubData``: the
record's name, the variable naming a local copy, the release; ``release.convert`` names the converter when the hub
layout is not the one its loader reads). ``gui_core.benchmark.data_root`` calls :func:`data_root` when the variable is
unset.

1. **Find or download** into the Hugging Face cache (``$HF_HOME`` / ``$HF_HUB_CACHE``, ``$HF_ENDPOINT``,
   ``$HF_TOKEN``) through ``gui_core.hub_net``, which trusts no name, size or digest the server sends, places only
   verified bytes, and puts every request under a deadline (issue 54; ``huggingface_hub``'s own downloader builds
   cache paths from the server's commit id and ETag unchecked). A copy already in the cache (lmms-eval's own task
   fetched the same repository) is used as it is; nothing is downloaded again.
2. **Verify** every file's SHA-256: against the hashes pinned in the release, or, for a release with no pinned files
   yet, against a lock written on first use (trust on first use: ``<cache>/hub/<owner>--<name>/lock-<revision>.json``,
   and ``.gui-eval-hub-lock.json`` in a ``--to`` copy). A changed release is an error that names every file that
   differs, is missing or was added; it is never scored. A file whose bytes differ from its pin is removed from the
   cache, so the next run downloads it again instead of reading it.
3. **Convert** a hub layout to the official release layout the benchmark's loader reads (the converter writes into a
   temporary folder that is renamed into place only when complete): every row is then read and scored by the same
   loader as the same row of the official release.

A release with ``allow_patterns`` is the files they match: nothing else of the repository is downloaded, hashed or
compared (a copy of the whole repository already in the cache serves as well).

The tasks' automatic path (``data_root``): the variable when set; else the hub copy, downloaded on first use unless
``$GUI_EVAL_NO_DOWNLOAD=1`` or ``$HF_HUB_OFFLINE=1``, in which case only a copy already in the cache is used and its
absence is a one-line error naming ``gui-eval data fetch NAME``. Hashes are re-computed only for files whose size or
modification time changed (``hashes.json`` next to each converted copy).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gui_core import hub_net
from gui_core.errors import ConfigError, DataError
from gui_core.file_hash import sha256_file
from gui_core.hub_release import HubFile, HubRelease
from gui_core.paths import cache_dir

NO_DOWNLOAD_ENV = "GUI_EVAL_NO_DOWNLOAD"
LOCK_NAME = ".gui-eval-hub-lock.json"
# Files of a hub repository that are not data (the card, git attributes): never pinned, never compared.
NOT_DATA = frozenset({".gitattributes", "README.md"})


@dataclass(frozen=True)
class HubData:
    """One benchmark's hub release as this module needs it (built from its record by ``gui_core.benchmark.hub_data``)."""

    name: str
    env: str
    release: HubRelease
    page: str = ""
    unset: str = ""  # what the record's message for an unset variable asks for

    @property
    def fetch_command(self) -> str:
        return f"gui-eval data fetch {self.name}"

    @property
    def convert(self) -> Callable[[Path, Path], None] | None:
        """``release.convert`` imported (``module:function``), or None: the loader reads the snapshot as it is."""
        if not self.release.convert:
            return None
        import importlib

        module, attr = self.release.convert.split(":")
        return getattr(importlib.import_module(module), attr)


@dataclass
class Fetched:
    """Where a fetched release went: ``root`` is the folder the benchmark's loader reads (``$env`` may point there)."""

    spec: HubData
    root: Path
    snapshot: Path
    commit: str
    files: dict[str, str]  # path in the repository -> sha256 (data files only)
    downloaded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# ---- environment read at call time (huggingface_hub reads some of it once, at import) ----

def downloads_off() -> str | None:
    """The variable that turns automatic downloads off, or None."""
    from huggingface_hub import constants

    for var in (NO_DOWNLOAD_ENV, "HF_HUB_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return var
    return "HF_HUB_OFFLINE" if constants.HF_HUB_OFFLINE and "HF_HUB_OFFLINE" not in os.environ else None


def hub_cache() -> Path:
    """The Hugging Face hub cache: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface"
    return Path(home).expanduser() / "hub"


def endpoint() -> str:
    """``$HF_ENDPOINT``, refused when it carries a credential (``gui_core.hub_net.endpoint``)."""
    return hub_net.endpoint()


def _repo_cache(release: HubRelease) -> Path:
    """The repository's folder in the Hugging Face cache (``datasets--owner--name``), as huggingface_hub names it."""
    return hub_cache() / f"{release.repo_type}s--{_slug(release.repo_id)}"


def _slug(repo_id: str) -> str:
    return repo_id.replace("/", "--")


def _work_dir(release: HubRelease) -> Path:
    return cache_dir() / "hub" / _slug(release.repo_id)


# ---- hashing ----



def _data_files(snapshot: Path) -> list[str]:
    """Paths (posix, relative) of the snapshot's data files: hidden folders and ``NOT_DATA`` left out."""
    out = []
    for p in sorted(snapshot.rglob("*")):
        rel = p.relative_to(snapshot).as_posix()
        if p.is_dir() or rel in NOT_DATA or any(part.startswith(".") for part in rel.split("/")):
            continue
        out.append(rel)
    return out


def _hashes(snapshot: Path, names: list[str], stamp: Path) -> dict[str, str]:
    """sha256 of each file, re-using ``stamp`` (path -> [size, mtime_ns, sha256]) for files that did not change."""
    try:
        known = json.loads(stamp.read_text()) if stamp.is_file() else {}
    except (OSError, ValueError):
        known = {}
    out, fresh = {}, {}
    for name in names:
        real = (snapshot / name).resolve()
        st = real.stat()
        entry = known.get(name)
        if entry and entry[0] == st.st_size and entry[1] == st.st_mtime_ns:
            out[name] = entry[2]
        else:
            out[name] = sha256_file(real)
        fresh[name] = [st.st_size, st.st_mtime_ns, out[name]]
    if fresh != known:
        _write_json_atomic(stamp, fresh)
    return out


def _write_json_atomic(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


# ---- comparing a copy with its pins or its lock ----

def differences(expected: Mapping[str, str], got: Mapping[str, str]) -> dict[str, list[str]]:
    """Files that differ, are missing or were added (each list sorted; all empty: the same release)."""
    return {"differ": sorted(p for p in expected.keys() & got.keys() if expected[p] != got[p]),
            "missing": sorted(expected.keys() - got.keys()), "added": sorted(got.keys() - expected.keys())}


def describe(diff: Mapping[str, list[str]]) -> str:
    return "; ".join(f"{k}: {', '.join(v[:8])}{' ...' if len(v) > 8 else ''}" for k, v in diff.items() if v)


def _lock_path(release: HubRelease, revision: str) -> Path:
    return _work_dir(release) / f"lock-{revision.replace('/', '--')}.json"


def _verify(spec: HubData, revision: str, snapshot: Path, commit: str, got: dict[str, str], out: Fetched) -> None:
    """Pins when the release has them, else the trust-on-first-use lock; a difference raises, naming the files."""
    rel = spec.release
    if rel.files:
        pins = {f.path: f.sha256 for f in rel.files}
        diff = differences(pins, got)
        corrupt = diff["differ"]
        for name in corrupt:  # bytes that are not the pinned ones: out of the cache, downloaded again next time
            _evict(snapshot / name)
        if corrupt:
            raise DataError(f"sha256 {got[corrupt[0]]} differs from the pinned {pins[corrupt[0]]} (revision {revision}, "
                            f"commit {commit}); the file was removed from the cache: run `{spec.fetch_command}` again"
                            + (f"; also {describe({**diff, 'differ': corrupt[1:]})}" if describe({**diff, 'differ': corrupt[1:]}) else ""),
                            file=f"{rel.repo_id}/{corrupt[0]}")
        if diff["missing"] or diff["added"]:
            raise DataError(f"the release at revision {revision} (commit {commit}) is not the pinned one: {describe(diff)}",
                            file=rel.repo_id)
        return
    lock = _lock_path(rel, revision)
    if not lock.is_file():
        _write_json_atomic(lock, {"repo_id": rel.repo_id, "revision": revision, "commit": commit, "files": got})
        out.warnings.append(f"{rel.repo_id} has no pinned hashes in this harness: trusting this first copy (commit "
                            f"{commit}) and locking its {len(got)} file hashes in {lock}; a later change is reported. "
                            f"Maintainers: pin them in the record with `{spec.fetch_command} --print-pins`")
        return
    locked = json.loads(lock.read_text())
    diff = differences(locked.get("files", {}), got)
    if any(diff.values()):
        raise DataError(f"the release changed since it was first fetched (commit {locked.get('commit')} -> {commit}): "
                        f"{describe(diff)}; not scored. If the change is wanted, delete {lock} and fetch again",
                        file=rel.repo_id)


def _check_blobs(spec: HubData, snap: Path, got: Mapping[str, str]) -> None:
    """A cached LFS file is stored under its sha256 (the Hub's ETag): bytes that do not hash to it were corrupted on
    the way; the file is removed from the cache and named (pins or not)."""
    for name, sha in sorted(got.items()):
        blob = (snap / name).resolve().name
        if len(blob) == 64 and all(c in "0123456789abcdef" for c in blob) and blob != sha:
            _evict(snap / name)
            raise DataError(f"corrupted download: its bytes hash to {sha}, the Hub announced {blob}; the file was "
                            f"removed from the cache: run `{spec.fetch_command}` again", file=f"{spec.release.repo_id}/{name}")


def _evict(path: Path) -> None:
    """Remove a cached file: the snapshot's link and the blob it points to."""
    try:
        real = path.resolve()
        path.unlink(missing_ok=True)
        if real != path:
            real.unlink(missing_ok=True)
    except OSError:
        pass


# ---- finding and downloading ----

def _cached_snapshot(release: HubRelease, revision: str) -> tuple[Path, str] | None:
    """The snapshot folder and commit of ``revision`` in the hub cache, without any request (None: not there).

    ``datasets`` (lmms-eval's own tasks) downloads by commit and leaves no ``refs/<branch>``: with no ref for a branch
    the newest snapshot of the repository stands for it (its files are then verified like any other)."""
    repo = _repo_cache(release)
    ref = repo / "refs" / revision
    commit = ref.read_text().strip() if ref.is_file() else revision
    if hub_net.name_problem(revision) or hub_net.name_problem(commit):  # a ref file of another hand: not followed
        return None
    snap = repo / "snapshots" / commit
    if snap.is_dir():
        return snap, commit
    if ref.is_file() or len(revision) == 40:  # a ref to a missing snapshot, or a commit not in the cache
        return None
    found = sorted((p for p in (repo / "snapshots").glob("*") if p.is_dir()), key=lambda p: p.stat().st_mtime)
    return (found[-1], found[-1].name) if found else None


def _download(spec: HubData, revision: str, out: Fetched) -> tuple[Path, str, list[str]]:
    """Every data file of ``revision`` into the hub cache (files already there are not downloaded again), through
    ``gui_core.hub_net``: every name the server gives checked for its form, every file hashed before it is placed,
    every request under a deadline."""
    rel = spec.release
    token = hub_net.hub_token()
    try:
        commit, listed = hub_net.repo_files(rel.repo_id, rel.repo_type, revision, token)
    except DataError as exc:  # no network, a stall, a refusal: what to do next, on the same line
        if "cannot reach" not in exc.reason and not isinstance(exc, hub_net.HubStall):
            raise
        raise type(exc)(f"{exc.reason}; run `{spec.fetch_command}` where the Hub answers, or point ${spec.env} at a "
                        "local copy", file=exc.file) from None
    remote = [f for f in listed if f.name not in NOT_DATA and rel.allows(f.name)]
    names = sorted(f.name for f in remote)
    storage = _repo_cache(rel)
    pins = {f.path: f.sha256 for f in rel.files}
    have = _cached_snapshot(rel, commit)
    for f in sorted(remote, key=lambda f: f.name):
        if have and (have[0] / f.name).is_file():
            continue
        try:
            hub_net.download(rel.repo_id, rel.repo_type, commit, f, storage, token, pins)
        except hub_net.HubStall:
            raise
        except DataError as exc:
            if "download failed" in exc.reason or "corrupted" in exc.reason or "pinned" in exc.reason:
                raise DataError(f"{exc.reason} (revision {revision}); run `{spec.fetch_command}` again",
                                file=exc.file) from None
            raise
        out.downloaded.append(f.name)
    found = _cached_snapshot(rel, commit)
    if found is None:
        raise DataError(f"revision {revision} (commit {commit}) lists no data files", file=rel.repo_id)
    # the cache keeps the branch name -> commit the way hf_hub_download does, for the offline lookup
    if revision != commit:
        ref = hub_net.inside(storage / "refs", revision)
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(commit)
    return found[0], commit, names


def fetch(spec: HubData, *, revision: str | None = None, to: Path | None = None, download: bool = True) -> Fetched:
    """Find (and, when ``download``, fetch) ``spec``'s release, verify it, convert it; ``to``: also copy it there."""
    rel = spec.release
    revision = revision or rel.revision
    out = Fetched(spec, Path(), Path(), "", {})
    cached = _cached_snapshot(rel, revision)
    expected: list[str] | None = None
    if download:
        snap, commit, expected = _download(spec, revision, out)
    elif cached is None:
        off = downloads_off()
        raise ConfigError(f"${spec.env}", None, page=spec.page or "docs/data_checks.md",
                          message=f"${spec.env} is not set: {spec.unset or 'point it at a local copy'}, or fetch a copy "
                                  f"with `{spec.fetch_command}` and point ${spec.env} at it ({rel.repo_id} is not in "
                                  f"the Hugging Face cache {hub_cache()} and downloads are off: "
                                  f"${off or NO_DOWNLOAD_ENV})")
    else:
        snap, commit = cached
    present = [p for p in _data_files(snap) if rel.allows(p)]  # a whole-repository copy: the release's files only
    if expected is not None and set(expected) - set(present):
        missing = sorted(set(expected) - set(present))
        raise DataError("downloaded but not in the cache snapshot", file=f"{rel.repo_id}/{missing[0]}")
    got = _hashes(snap, present, _work_dir(rel) / commit / "hashes.json")
    _check_blobs(spec, snap, got)
    _verify(spec, revision, snap, commit, got, out)
    out.snapshot, out.commit, out.files = snap, commit, got
    convert = spec.convert
    out.root = _converted(spec, snap, commit, convert) if convert else snap
    if to is not None:
        out.root = _copy_to(out, Path(to).expanduser(), revision)
    return out


def _converted(spec: HubData, snap: Path, commit: str, convert: Callable[[Path, Path], None]) -> Path:
    """The official-layout folder converted from a verified snapshot (written once; temp folder, then rename)."""
    dest = _work_dir(spec.release) / commit / spec.release.layout
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        convert(snap, tmp)
        try:
            os.replace(tmp, dest)
        except OSError:  # another process finished first: keep its copy
            if not dest.is_dir():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _copy_to(out: Fetched, to: Path, revision: str) -> Path:
    """Copy the readable folder to ``to`` (links followed) with its lock file; ``to`` is replaced only when complete."""
    rel = out.spec.release
    if to.exists() and any(to.iterdir()) and not (to / LOCK_NAME).is_file():
        raise DataError(f"{to} exists and is not a copy made by `gui-eval data fetch` (no {LOCK_NAME}): choose an empty "
                        "or new folder", file=str(to))
    to.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{to.name}.partial-", dir=to.parent))
    try:
        if out.root == out.snapshot:  # the snapshot as it is: the release's files only (allow_patterns)
            for name in out.files:
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile((out.snapshot / name).resolve(), tmp / name)
        else:
            shutil.copytree(out.root, tmp, symlinks=False, dirs_exist_ok=True)
        (tmp / LOCK_NAME).write_text(json.dumps({"repo_id": rel.repo_id, "revision": revision, "commit": out.commit,
                                                 "layout": rel.layout, "files": out.files}, indent=1, sort_keys=True))
        old = None
        if to.exists():
            old = to.parent / f".{to.name}.old-{os.getpid()}"
            os.replace(to, old)
        os.replace(tmp, to)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return to


_STALLED: dict[tuple[str, str], hub_net.HubStall] = {}  # (repository, revision) -> the stall met in this process


def data_root(spec: HubData) -> Path:
    """The folder a task reads: ``$env`` when set; else the hub copy (cache first; downloaded on first use unless
    downloads are off, ``$GUI_EVAL_NO_DOWNLOAD`` / ``$HF_HUB_OFFLINE``)."""
    local = os.environ.get(spec.env)
    if local:
        root = Path(local).expanduser()
        if not root.is_dir():
            raise DataError(f"${spec.env} points to {root}, which is not a directory", file=str(root))
        return root
    off = downloads_off()
    cached = _cached_snapshot(spec.release, spec.release.revision)
    if cached is None and not off:
        print(f"[gui-eval] ${spec.env} is not set: fetching {spec.release.repo_id} (revision {spec.release.revision}) "
              f"into the Hugging Face cache ({hub_cache()}); `{spec.fetch_command}` does the same", file=sys.stderr)
    key = (spec.release.repo_id, spec.release.revision)
    if key in _STALLED:  # this process met a stalled server for this release: the benchmark's next task stops at once
        raise _STALLED[key]
    try:
        fetched = fetch(spec, download=cached is None and not off)
    except hub_net.HubStall as exc:
        _STALLED[key] = exc
        raise
    for w in fetched.warnings:
        print(f"[gui-eval] {w}", file=sys.stderr)
    return fetched.root


def print_pins(fetched: Fetched) -> str:
    """Python source of the release's pins, to paste into the benchmark record (maintainers, with network)."""
    rel = fetched.spec.release
    sizes = {p: (fetched.snapshot / p).resolve().stat().st_size for p in fetched.files}
    lines = [f"HubRelease({rel.repo_id!r}, {fetched.commit!r}, {rel.layout!r}, read_by={rel.read_by!r},"
             + (f" convert={rel.convert!r}," if rel.convert else "")
             + (f" allow_patterns={rel.allow_patterns!r}," if rel.allow_patterns else "")
             + (f" evidence={rel.evidence!r}," if rel.evidence else ""),
             f"           size_bytes={sum(sizes.values())}, files=("]
    lines += [f"    HubFile({p!r}, {h!r}, {sizes[p]})," for p, h in sorted(fetched.files.items())]
    return "\n".join(lines + ["))"])


__all__ = [
    "LOCK_NAME",
    "NO_DOWNLOAD_ENV",
    "Fetched",
    "HubData",
    "HubFile",
    "HubRelease",
    "data_root",
    "differences",
    "downloads_off",
    "fetch",
    "hub_cache",
    "print_pins",
]
