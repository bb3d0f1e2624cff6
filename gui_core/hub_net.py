"""The Hub's network side for ``gui_core.hub_fetch``: nothing a server sends is trusted (issue 54).

- **Names**: the commit id (40 lowercase hex digits), every file name (relative, inside the folder, no NUL, no
  ``.``/``..`` segment, no backslash, bounded length), every digest (ETag, ``X-Linked-Etag``, the API's ``blobId`` /
  ``lfs.sha256``: 40 or 64 hex digits) and every size (a non-negative integer within :data:`MAX_FILE_BYTES`) are
  checked for their form before any path is built from them; a response that names another commit than the one
  asked for is refused.
- **Bytes**: a file is streamed into a temporary folder of ours inside the repository's cache folder, hashed while it
  streams (sha256, and the git blob sha1 for files the Hub stores in git), and moved into the Hugging Face cache
  layout (``blobs/<digest>``, ``snapshots/<commit>/<name>`` a relative link to it) only when its size and digest are
  the announced ones (and its pin, when the release pins it). More bytes than announced are refused while streaming.
- **Deadlines**: every request has a connect/read timeout (``$GUI_EVAL_HUB_TIMEOUT``, seconds without a byte) and an
  overall deadline (``$GUI_EVAL_HUB_DEADLINE`` plus the file's size over ``$GUI_EVAL_HUB_MIN_RATE`` bytes a second),
  enforced by a watchdog around the whole request (a server that drips its headers one byte at a time is cut off
  too). A stall is one line naming the server and what stalled (:class:`HubStall`, a ``DataError``).
- **Secrets**: ``$HF_ENDPOINT`` carrying a credential (user-info, a key-like query parameter) is refused, shown
  redacted; every message carrying a server's text is redacted (``gui_core.redact``).

``huggingface_hub`` builds cache paths from the server's commit id and ETag without checking their form, so its
downloader is not used here; its URL and header helpers are (``hf_hub_url``, ``build_hf_headers``: the token, the
user agent), and the cache layout written is the one it reads (lmms-eval's ``datasets`` finds our copy and we its).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar
from urllib.parse import quote

from gui_core.errors import ConfigError, DataError
from gui_core.redact import redact_text, redact_url, url_secrets

TIMEOUT_ENV, DEADLINE_ENV, MIN_RATE_ENV = "GUI_EVAL_HUB_TIMEOUT", "GUI_EVAL_HUB_DEADLINE", "GUI_EVAL_HUB_MIN_RATE"
DEFAULT_TIMEOUT = 30.0  # seconds without a byte (connect, headers, body)
DEFAULT_DEADLINE = 120.0  # seconds for one request before its body's share (the repository info, a small file)
DEFAULT_MIN_RATE = 65536  # bytes a second: a 1 GiB file gets 16,384 s more; a drip of a byte a second does not pass
MAX_FILE_BYTES = 1 << 40  # 1 TiB: past every benchmark file; a larger announced size is a lie
MAX_API_BYTES = 64 << 20  # the repository info (a file list)
MAX_FILES = 200_000
MAX_NAME_CHARS = 1024
MAX_SEGMENT_BYTES = 255  # a path component on every common file system
_COMMIT = re.compile(r"[0-9a-f]{40}")
_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
_CHUNK = 1 << 16
PROGRESS_EVERY_S = 10.0

T = TypeVar("T")


class HubStall(DataError):
    """A Hub request past its timeout or deadline (the message names the server and what stalled)."""


@dataclass(frozen=True)
class Limits:
    timeout: float
    deadline: float
    min_rate: float

    def budget(self, size: int | None) -> float:
        """The overall deadline of one request whose body is ``size`` bytes (unknown: the base deadline)."""
        return self.deadline + (size or 0) / self.min_rate


def _positive(var: str, default: float) -> float:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"${var}", raw, page="docs/security.md", message=f"${var}={raw!r} must be a positive number")
    return value


def limits() -> Limits:
    """The deadlines from the environment (read at call time; docs/security.md, "Hub downloads")."""
    return Limits(_positive(TIMEOUT_ENV, DEFAULT_TIMEOUT), _positive(DEADLINE_ENV, DEFAULT_DEADLINE),
                  _positive(MIN_RATE_ENV, DEFAULT_MIN_RATE))


def endpoint() -> str:
    """``$HF_ENDPOINT`` (default ``https://huggingface.co``); one carrying a credential is refused, shown redacted."""
    url = (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").strip().rstrip("/")
    found = url_secrets(url)
    if found:
        raise ConfigError("$HF_ENDPOINT", redact_url(url), page="docs/security.md",
                          message=f"$HF_ENDPOINT {redact_url(url)} carries a credential ({', '.join(found)}); it would "
                                  "reach logs and result files. Give the mirror's URL without it and the token in $HF_TOKEN")
    if not re.match(r"https?://[^/\s]+", url):
        raise ConfigError("$HF_ENDPOINT", redact_url(url), page="docs/security.md",
                          message=f"$HF_ENDPOINT {redact_url(url)} is not an http(s) URL")
    return url


# ---- the form of what a server names ----

def check_commit(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _COMMIT.fullmatch(value):
        raise DataError(f"the server named commit {redact_text(repr(value)[:80])}, not 40 hex digits: refused, nothing "
                        "written", file=what)
    return value


def check_digest(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise DataError(f"the server announced digest (ETag) {redact_text(repr(value)[:80])}, not 40 or 64 hex digits: "
                        "refused, nothing written", file=what)
    return value


def check_size(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_FILE_BYTES:
        raise DataError(f"the server announced size {redact_text(repr(value)[:40])}, not an integer from 0 to "
                        f"{MAX_FILE_BYTES}: refused", file=what)
    return value


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be a relative file name inside a folder (None: it can)."""
    if not isinstance(name, str) or not name:
        return "it is not a non-empty string"
    if len(name) > MAX_NAME_CHARS:
        return f"it is longer than {MAX_NAME_CHARS} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or "\\" in name:
        return "it holds a NUL, a control character or a backslash"
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        return "it is absolute"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "it holds an empty, '.' or '..' segment"
    if any(len(p.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES for p in parts):
        return f"it has a segment longer than {MAX_SEGMENT_BYTES} bytes"
    return None


def check_name(name: Any, what: str) -> str:
    problem = name_problem(name)
    if problem:
        raise DataError(f"file name {redact_text(repr(name)[:120])} refused ({problem}); nothing written", file=what)
    return name


def inside(folder: Path, name: str) -> Path:
    """``folder / name`` for a checked name, refused when it would resolve outside ``folder`` (links included)."""
    target = folder / PurePosixPath(name)
    base = os.path.realpath(folder)
    if os.path.commonpath([base, os.path.realpath(target.parent)]) != base:
        raise DataError(f"{name!r} would land outside {folder}: refused", file=str(folder))
    return target


def check_revision(revision: str, what: str) -> str:
    if not _REVISION.fullmatch(revision) or ".." in revision.split("/") or "//" in revision:
        raise DataError(f"revision {revision!r} is not a branch, tag or commit name", file=what)
    return revision


# ---- the watchdog ----

def with_deadline(fn: Callable[[threading.Event], T], seconds: float, stalled: str, what: str) -> T:
    """``fn(cancel)`` in a worker thread; past ``seconds`` the caller gets :class:`HubStall` at once and ``cancel``
    is set (the worker stops at its next read, which its own timeout bounds, and places nothing)."""
    box: dict[str, Any] = {}
    cancel = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn(cancel)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    worker = threading.Thread(target=work, name="gui-eval-hub", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        cancel.set()
        raise HubStall(f"{stalled}: no complete answer within {seconds:.0f} s (${DEADLINE_ENV}, ${MIN_RATE_ENV}); "
                       "stopped", file=what)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _client(lim: Limits):
    import httpx

    return httpx.Client(timeout=httpx.Timeout(lim.timeout, connect=lim.timeout), follow_redirects=True)


def _server_text(resp) -> str:
    """What a refusing server said (X-Error-Message, the start of its body), one line, redacted."""
    said = (resp.headers.get("X-Error-Message") or "")[:300]
    head = bytearray()
    try:
        for chunk in resp.iter_raw(1024):  # the start only: a refusal with an endless body is not read to its end
            head += chunk
            if len(head) >= 300:
                break
    except Exception:  # noqa: BLE001, S110 - the body is only quoted; what arrived is kept
        pass
    body = bytes(head[:300]).decode("utf-8", "replace")
    return redact_text(" ".join(f"{said} {body}".split()))[:300]


def _timeout_error(exc: BaseException, server: str, doing: str, what: str, lim: Limits) -> DataError:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return HubStall(f"{server} stalled while {doing}: no byte for {lim.timeout:g} s (${TIMEOUT_ENV}); stopped",
                        file=what)
    said = redact_text(f"{type(exc).__name__}: {' '.join(str(exc).split())}")[:300]
    if doing.startswith("downloading"):
        return DataError(f"download failed: the connection to {server} broke while {doing} ({said})", file=what)
    return DataError(f"cannot reach {server} while {doing} ({said})", file=what)


# ---- the repository's file list ----

@dataclass(frozen=True)
class RemoteFile:
    name: str
    size: int | None
    sha256: str | None  # the LFS object's sha256, when the server gave it
    blob_id: str | None  # the git blob sha1, when the server gave it


def hub_token() -> str | None:
    """The token sent: ``$HF_TOKEN``, else the one ``hf auth login`` stored; remembered so no message shows it."""
    from huggingface_hub import get_token

    from gui_core.redact import remember_secret

    token = os.environ.get("HF_TOKEN") or get_token() or None
    if token:
        remember_secret(token)
    return token


def repo_files(repo_id: str, repo_type: str, revision: str, token: str | None) -> tuple[str, list[RemoteFile]]:
    """The commit ``revision`` resolves to and its files, every value checked for its form."""
    from huggingface_hub.utils import build_hf_headers

    from gui_core.bounds import loads

    server, lim = endpoint(), limits()
    check_revision(revision, repo_id)
    url = f"{server}/api/{repo_type}s/{repo_id}/revision/{quote(revision, safe='')}?blobs=true"
    headers = {**build_hf_headers(token=token or False), "Accept-Encoding": "identity"}

    def call(cancel: threading.Event) -> bytes:
        import httpx

        try:
            with _client(lim) as client, client.stream("GET", url, headers=headers) as resp:
                if resp.status_code != 200:
                    code, text = resp.headers.get("X-Error-Code", ""), _server_text(resp)
                    if code == "RevisionNotFound":
                        raise DataError(f"revision {revision!r} not found at {server} ({text})", file=repo_id)
                    if resp.status_code in (401, 403, 404) or code in ("RepoNotFound", "GatedRepo"):
                        raise DataError(f"repository not found at {server} (or gated: set $HF_TOKEN) (HTTP "
                                        f"{resp.status_code} {code}: {text})", file=repo_id)
                    raise DataError(f"{server} answered HTTP {resp.status_code} for the repository info ({text})",
                                    file=repo_id)
                body = bytearray()
                for chunk in resp.iter_bytes():  # decoded if the server compressed it anyway; counted decoded
                    body += chunk
                    if len(body) > MAX_API_BYTES:
                        raise DataError(f"the repository info from {server} is larger than {MAX_API_BYTES} bytes: "
                                        "refused", file=repo_id)
                    if cancel.is_set():
                        raise HubStall("cancelled", file=repo_id)
                return bytes(body)
        except (httpx.HTTPError, OSError) as exc:
            raise _timeout_error(exc, server, "asking for the repository info", repo_id, lim) from None

    body = with_deadline(call, lim.budget(None), f"{server} stalled answering the repository info", repo_id)
    try:
        info = loads(body)
    except ValueError as exc:
        raise DataError(f"the repository info from {server} is not JSON ({redact_text(exc)[:200]})", file=repo_id) from None
    if not isinstance(info, dict) or not isinstance(info.get("siblings", []), list):
        raise DataError(f"the repository info from {server} is not an object with a file list", file=repo_id)
    commit = check_commit(info.get("sha"), repo_id)
    if _COMMIT.fullmatch(revision) and commit != revision:
        raise DataError(f"{server} answered commit {commit} for commit {revision}: refused", file=repo_id)
    siblings = info.get("siblings") or []
    if len(siblings) > MAX_FILES:
        raise DataError(f"the repository lists {len(siblings)} files, above {MAX_FILES}: refused", file=repo_id)
    files, seen = [], set()
    for s in siblings:
        if not isinstance(s, dict):
            raise DataError(f"the repository info from {server} lists a file as {redact_text(repr(s))[:80]}, not an "
                            "object: refused", file=repo_id)
        name = check_name(s.get("rfilename"), repo_id)
        if name in seen:
            raise DataError(f"the server lists {name!r} twice", file=repo_id)
        seen.add(name)
        lfs = s.get("lfs") if isinstance(s.get("lfs"), dict) else {}
        size = lfs.get("size", s.get("size"))
        sha = lfs.get("sha256") or lfs.get("oid")
        files.append(RemoteFile(name, None if size is None else check_size(size, f"{repo_id}/{name}"),
                                None if sha is None else check_digest(sha, f"{repo_id}/{name}"),
                                None if s.get("blobId") is None else check_digest(s["blobId"], f"{repo_id}/{name}")))
    return commit, files


# ---- one file into the cache ----

def _announced(resp, commit: str, what: str, server: str) -> tuple[str | None, int | None]:
    """The digest and size the Hub announced for a GET (the first Hub hop's ``X-Linked-*`` before a redirect to a
    CDN), every value checked; another commit than the one asked for is refused."""
    hops = [*resp.history, resp]
    first = hops[0].headers
    named = first.get("X-Repo-Commit")
    if named is not None and check_commit(named, what) != commit:
        raise DataError(f"{server} answered with commit {named} for commit {commit}: refused", file=what)
    etag = first.get("X-Linked-Etag") or (resp.headers.get("ETag") if len(hops) == 1 else None)
    size = first.get("X-Linked-Size") or resp.headers.get("Content-Length")
    etag = etag.strip().removeprefix("W/").strip('"') if etag else None
    if size is not None:
        if not size.strip().isdigit() or len(size.strip()) > 16:
            raise DataError(f"{server} announced size {redact_text(size)[:40]!r}: refused", file=what)
        size = check_size(int(size), what)
    return (check_digest(etag, what) if etag else None), size


def download(repo_id: str, repo_type: str, commit: str, remote: RemoteFile, storage: Path, token: str | None,
             pins: Mapping[str, str]) -> Path:
    """``remote`` of ``commit`` into the cache folder ``storage`` (``<type>s--<owner>--<name>``); returns the
    snapshot's path of the file. Placed only when its size and digest are the announced ones and its pin matches."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    server, lim = endpoint(), limits()
    what = f"{repo_id}/{remote.name}"
    check_commit(commit, repo_id)
    pointer = inside(storage / "snapshots" / commit, check_name(remote.name, repo_id))
    url = hf_hub_url(repo_id, remote.name, repo_type=repo_type, revision=commit, endpoint=server)
    headers = {**build_hf_headers(token=token or False), "Accept-Encoding": "identity"}
    storage.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(prefix=".gui-eval-download-", dir=storage))
    placed = threading.Lock()

    def get(cancel: threading.Event) -> Path:
        import httpx

        sha, n = hashlib.sha256(), 0
        try:
            with _client(lim) as client, client.stream("GET", url, headers=headers) as resp:
                if resp.status_code != 200:
                    raise DataError(f"download failed: {server} answered HTTP {resp.status_code} "
                                    f"({_server_text(resp)})", file=what)
                digest, size = _announced(resp, commit, what, server)
                if remote.size is not None and size is not None and remote.size != size:
                    raise DataError(f"download failed: {server} listed {remote.size} bytes and sends {size}", file=what)
                size = remote.size if remote.size is not None else size
                git = hashlib.sha1(b"blob %d\0" % size) if size is not None else None
                note = time.monotonic() + PROGRESS_EVERY_S
                with open(tmp_dir / "blob", "wb") as out:
                    for chunk in resp.iter_raw(_CHUNK):
                        n += len(chunk)
                        if time.monotonic() >= note:  # a large file: a line every PROGRESS_EVERY_S seconds
                            note += PROGRESS_EVERY_S
                            print(f"[gui-eval] downloading {what}: {n >> 20} of "
                                  f"{size >> 20 if size is not None else '?'} MiB", file=sys.stderr, flush=True)
                        if n > (size if size is not None else MAX_FILE_BYTES):
                            raise DataError(f"download failed: {server} sent more than the {size} bytes announced: "
                                            "refused", file=what)
                        if cancel.is_set():
                            raise HubStall("cancelled", file=what)
                        sha.update(chunk)
                        if git is not None:
                            git.update(chunk)
                        out.write(chunk)
        except (httpx.HTTPError, OSError) as exc:
            raise _timeout_error(exc, server, f"downloading {remote.name}", what, lim) from None
        if size is not None and n != size:
            raise DataError(f"download failed: {n} of the {size} bytes announced arrived (truncated)", file=what)
        got = sha.hexdigest()
        wanted = remote.sha256 or (digest if digest and len(digest) == 64 else None)
        blob_id = remote.blob_id or (digest if digest and len(digest) == 40 else None)
        if wanted is None and (blob_id is None or git is None):
            raise DataError(f"download refused: {server} announced no digest (ETag) for the file, so its bytes "
                            "cannot be checked", file=what)
        if wanted is not None and got != wanted:
            raise DataError(f"corrupted download: its bytes hash to {got}, the Hub announced {wanted}; nothing was "
                            "placed in the cache", file=what)
        if wanted is None and git.hexdigest() != blob_id:
            raise DataError(f"corrupted download: its git blob hash is {git.hexdigest()}, the Hub announced {blob_id}; "
                            "nothing was placed in the cache", file=what)
        if remote.name in pins and pins[remote.name] != got:
            raise DataError(f"sha256 {got} differs from the pinned {pins[remote.name]} (commit {commit}); nothing was "
                            "placed in the cache", file=what)
        with placed:
            if cancel.is_set():
                raise HubStall("cancelled", file=what)
            return _place(tmp_dir / "blob", storage, wanted or blob_id, pointer)

    try:
        return with_deadline(get, lim.budget(remote.size), f"{server} stalled sending {remote.name}", what)
    finally:
        with placed:
            shutil.rmtree(tmp_dir, ignore_errors=True)


def _place(tmp: Path, storage: Path, digest: str, pointer: Path) -> Path:
    """The verified bytes as ``blobs/<digest>`` and ``pointer`` a relative link to it (a copy where links fail)."""
    blob = storage / "blobs" / digest
    blob.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, blob)
    pointer.parent.mkdir(parents=True, exist_ok=True)
    link = pointer.parent / f".{pointer.name}.gui-eval-link-{os.getpid()}-{threading.get_ident()}"
    link.unlink(missing_ok=True)
    try:
        os.symlink(os.path.relpath(blob, pointer.parent), link)
    except OSError:
        shutil.copyfile(blob, link)
    os.replace(link, pointer)
    return pointer


__all__ = ["DEADLINE_ENV", "MIN_RATE_ENV", "TIMEOUT_ENV", "HubStall", "Limits", "RemoteFile", "check_commit",
           "check_name", "download", "endpoint", "hub_token", "inside", "limits", "name_problem", "repo_files", "with_deadline"]
