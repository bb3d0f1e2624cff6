"""A stand-in for the Hugging Face Hub's HTTP API on 127.0.0.1, enough for the real ``huggingface_hub`` client.

Serves ``GET /api/{type}s/{repo}[/revision/{rev}]`` (id, sha, siblings) and ``HEAD``/``GET
/{type}s/{repo}/resolve/{rev}/{path}`` (for datasets; ``/{repo}/resolve/...`` for models) with ``ETag`` (the sha256,
as the Hub gives for LFS files), ``X-Repo-Commit``, ``Content-Length`` and ``Range``; errors carry the Hub's
``X-Error-Code`` (RepoNotFound, RevisionNotFound, EntryNotFound). ``faults`` changes what one file's GET sends:
``"truncate"`` (fewer bytes than announced) or ``"corrupt"`` (same length, other bytes). Every request is recorded.

The hostile knobs (issue 54), keyed ``"api:<repo>"`` for the repository info or ``"<repo>/<path>"`` for a file:
``commit_names`` (the commit id the server names in ``sha`` and ``X-Repo-Commit``: path segments, anything),
``etags`` (the ``ETag`` sent), ``sizes`` (the size listed for a file, any JSON value), ``extra_files`` (file names
listed in the repository info that are not served), ``info_bodies`` (the repository info's body, any bytes) and
``hostile``: ``"stall"`` (accept, then never answer),
``"drip"`` (headers, then one body byte every :attr:`drip_interval` s), ``"drip_headers"`` (the status line, then one
header byte at a time) or ``"echo"`` (HTTP 500 whose message and body echo the request's ``Authorization`` header).

Fixture repositories are built here in the hub schemas lmms-eval 0.7.3's own tasks read (parquet with the screenshot
embedded as ``{"bytes", "path"}``): :func:`screenspot_pro_rows`, :func:`osworld_g_rows`, :func:`parquet_bytes`.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse


class HubStandIn:
    def __init__(self) -> None:
        # (repo_type, repo_id) -> {"refs": {name: commit}, "commits": {commit: {path: bytes}}}
        self.repos: dict[tuple[str, str], dict] = {}
        self.faults: dict[str, str] = {}  # path in repo -> "truncate" | "corrupt"
        self.requests: list[tuple[str, str]] = []
        self.commit_names: dict[str, str] = {}
        self.etags: dict[str, str] = {}
        self.sizes: dict[str, object] = {}
        self.extra_files: dict[str, list[str]] = {}
        self.info_bodies: dict[str, bytes] = {}  # repo -> the repository info's body as sent (any bytes)
        self.hostile: dict[str, str] = {}
        self.drip_interval = 0.3
        self.released = threading.Event()  # set by stop(): stalled handlers end
        self.lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                standin._handle(self, head=True)

            def do_GET(self):
                standin._handle(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def publish(self, repo_id: str, files: dict[str, bytes], *, repo_type: str = "dataset", ref: str = "main") -> str:
        """A new commit of ``repo_id`` holding ``files``, ``ref`` moved to it; returns the commit hash."""
        commit = hashlib.sha1(json.dumps(sorted((p, hashlib.sha256(b).hexdigest()) for p, b in files.items())).encode()
                              + repo_id.encode()).hexdigest()
        repo = self.repos.setdefault((repo_type, repo_id), {"refs": {}, "commits": {}})
        repo["commits"][commit] = dict(files)
        repo["refs"][ref] = commit
        return commit

    def clear_hostile(self) -> None:
        for knob in (self.commit_names, self.etags, self.sizes, self.extra_files, self.info_bodies, self.hostile,
                     self.faults):
            knob.clear()

    def stop(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    # ---- request handling ----
    def _error(self, h, status: int, code: str, message: str, head: bool) -> None:
        body = json.dumps({"error": message}).encode()
        h.send_response(status)
        h.send_header("X-Error-Code", code)
        h.send_header("X-Error-Message", message)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(0 if head else len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    def _hostile(self, h, key: str, data: bytes = b"") -> bool:
        """Play the hostile mode set for ``key``; True when the request was answered (or left hanging) by it."""

        mode = self.hostile.get(key)
        if mode == "stall":
            self.released.wait(90)
        elif mode == "echo":
            said = f"refused: Authorization: {h.headers.get('Authorization')} is not valid for {h.path}"
            self._error(h, 500, "Internal", said, h.command == "HEAD")
        elif mode == "drip_headers":
            h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Pad: ")
            while not self.released.wait(self.drip_interval):
                h.wfile.write(b"a")
                h.wfile.flush()
        elif mode == "drip":
            h.send_response(200)
            h.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            for i in range(len(data)):
                if self.released.wait(self.drip_interval):
                    break
                h.wfile.write(data[i:i + 1])
                h.wfile.flush()
        else:
            return False
        h.close_connection = True
        return True

    def _commit(self, repo: dict, rev: str) -> str | None:
        return repo["refs"].get(rev) or (rev if rev in repo["commits"] else None)

    def _handle(self, h, head: bool) -> None:
        path = urlparse(h.path).path
        with self.lock:
            self.requests.append((h.command, path))
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[:1] == ["api"] and len(parts) >= 4:
            repo_type = parts[1].rstrip("s")
            repo_id = "/".join(parts[2:4])
            rev = parts[5] if len(parts) >= 6 and parts[4] == "revision" else "main"
            repo = self.repos.get((repo_type, repo_id))
            if repo is None:
                return self._error(h, 404, "RepoNotFound", f"Repository not found: {repo_id}", head)
            commit = self._commit(repo, rev)
            if commit is None:
                return self._error(h, 404, "RevisionNotFound", f"Invalid rev id: {rev}", head)
            files = repo["commits"][commit]
            if self._hostile(h, f"api:{repo_id}"):
                return
            listed = [{"rfilename": p, "size": self.sizes.get(f"{repo_id}/{p}", len(b))} for p, b in sorted(files.items())]
            listed += [{"rfilename": p} for p in self.extra_files.get(repo_id, [])]
            body = json.dumps({"id": repo_id, "sha": self.commit_names.get(f"api:{repo_id}", commit), "private": False,
                               "siblings": listed}).encode()
            body = self.info_bodies.get(repo_id, body)
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            if not head:
                h.wfile.write(body)
            return
        if parts and parts[0] == "datasets":
            repo_type, parts = "dataset", parts[1:]
        else:
            repo_type = "model"
        if len(parts) < 5 or parts[2] != "resolve":
            return self._error(h, 404, "EntryNotFound", f"no route {path}", head)
        repo_id, rev, name = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
        repo = self.repos.get((repo_type, repo_id))
        if repo is None:
            return self._error(h, 404, "RepoNotFound", f"Repository not found: {repo_id}", head)
        commit = self._commit(repo, rev)
        if commit is None:
            return self._error(h, 404, "RevisionNotFound", f"Invalid rev id: {rev}", head)
        data = repo["commits"][commit].get(name)
        if data is None:
            return self._error(h, 404, "EntryNotFound", f"{name} does not exist at {rev}", head)
        if self._hostile(h, f"{repo_id}/{name}", data):
            return
        start, end = 0, len(data)
        rng = h.headers.get("Range")
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            start, end = int(a or 0), (int(b) + 1 if b else len(data))
        sent = data[start:end]
        fault = self.faults.get(name)
        h.send_response(206 if rng else 200)
        h.send_header("ETag", self.etags.get(f"{repo_id}/{name}", f'"{hashlib.sha256(data).hexdigest()}"'))
        h.send_header("X-Repo-Commit", self.commit_names.get(f"{repo_id}/{name}", commit))
        h.send_header("Content-Length", str(len(sent)))
        h.send_header("Accept-Ranges", "bytes")
        h.end_headers()
        if head:
            return
        if fault == "truncate":
            h.wfile.write(sent[: len(sent) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        if fault == "corrupt":
            sent = bytes(b ^ 0xFF for b in sent)
        h.wfile.write(sent)


# ---- fixture repositories in the hub schemas ----

def png(width: int, height: int, seed: int = 0) -> bytes:
    from PIL import Image

    img = Image.new("RGB", (width, height), ((seed * 53) % 256, (seed * 97) % 256, 180))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def parquet_bytes(rows: list[dict], image_column: str = "image") -> bytes:
    """Rows as a parquet file, the screenshot column as the ``datasets`` Image struct ``{bytes, path}``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = list(rows[0])
    cols = {}
    for name in names:
        values = [r.get(name) for r in rows]
        if name == image_column:
            cols[name] = pa.array(values, type=pa.struct([("bytes", pa.binary()), ("path", pa.string())]))
        else:
            cols[name] = pa.array(values)
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf)
    return buf.getvalue()


def screenspot_pro_rows() -> list[dict]:
    """Five ScreenSpot-Pro rows (two applications), official fields plus the embedded screenshot."""
    shots = {"vscode_macos/a.png": png(120, 80, 1), "vscode_macos/b.png": png(100, 60, 2), "word_windows/c.png": png(90, 70, 3)}
    specs = [("vscode_macos", "vscode", "macos", "dev", "a.png", [10, 10, 40, 30], "text"),
             ("vscode_macos", "vscode", "macos", "dev", "b.png", [50, 20, 90, 50], "icon"),
             ("vscode_macos", "vscode", "macos", "dev", "a.png", [60, 40, 110, 70], "icon"),
             ("word_windows", "word", "windows", "office", "c.png", [5, 5, 45, 35], "text"),
             ("word_windows", "word", "windows", "office", "c.png", [40, 30, 80, 60], "icon")]
    rows = []
    for i, (folder, app, platform, group, shot, box, ui) in enumerate(specs):
        name = f"{folder}/{shot}"
        w, h = {"a.png": (120, 80), "b.png": (100, 60), "c.png": (90, 70)}[shot]
        rows.append({"id": f"{folder}_{i}", "img_filename": name, "bbox": box, "instruction": f"open item {i}",
                     "instruction_cn": f"打开 {i}", "ui_type": ui, "group": group, "platform": platform,
                     "application": app, "img_size": [w, h], "image": {"bytes": shots[name], "path": name}})
    return rows


def osworld_g_rows() -> list[dict]:
    """Four OSWorld-G rows in the hub schema: bbox, polygon, refusal, bbox."""
    shot, other = png(200, 100, 4), png(160, 120, 5)
    return [
        {"id": "g1", "image_path": "s1.png", "image_size": [200, 100], "instruction": "click save", "box_type": "bbox",
         "box_coordinates": [10.0, 10.0, 40.0, 20.0], "GUI_types": ["Button"], "image": {"bytes": shot, "path": "s1.png"},
         "mimo_bbox": [10.0, 10.0, 50.0, 30.0]},
        {"id": "g2", "image_path": "s1.png", "image_size": [200, 100], "instruction": "the notch", "box_type": "polygon",
         "box_coordinates": [100.0, 10.0, 150.0, 10.0, 150.0, 60.0, 100.0, 60.0], "GUI_types": ["Icon"],
         "image": {"bytes": shot, "path": "s1.png"}, "mimo_bbox": [100.0, 10.0, 150.0, 60.0]},
        {"id": "g3", "image_path": "s2.png", "image_size": [160, 120], "instruction": "the missing menu",
         "box_type": "refusal", "box_coordinates": [], "GUI_types": [], "image": {"bytes": other, "path": "s2.png"},
         "mimo_bbox": []},
        {"id": "g4", "image_path": "s2.png", "image_size": [160, 120], "instruction": "click ok", "box_type": "bbox",
         "box_coordinates": [60.0, 50.0, 30.0, 20.0], "GUI_types": ["Button"], "image": {"bytes": other, "path": "s2.png"},
         "mimo_bbox": [60.0, 50.0, 90.0, 70.0]},
    ]


def github_layout_pro(rows: list[dict], root) -> None:
    """The same rows written as the official GitHub release (``annotations/<app>_<platform>.json`` + ``images/``)."""
    from pathlib import Path

    root = Path(root)
    files: dict[str, list] = {}
    for r in rows:
        (root / "images" / r["img_filename"]).parent.mkdir(parents=True, exist_ok=True)
        (root / "images" / r["img_filename"]).write_bytes(r["image"]["bytes"])
        files.setdefault(f"{r['application']}_{r['platform']}", []).append({k: v for k, v in r.items() if k != "image"})
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    for stem, rs in files.items():
        (root / "annotations" / f"{stem}.json").write_text(json.dumps(rs, ensure_ascii=False))


def github_layout_osworld_g(rows: list[dict], root) -> None:
    from pathlib import Path

    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    for r in rows:
        (root / "images" / r["image_path"]).write_bytes(r["image"]["bytes"])
    (root / "OSWorld-G.json").write_text(json.dumps([{k: v for k, v in r.items() if k not in ("image", "mimo_bbox")}
                                                     for r in rows]))


# ---- ScreenSpot (rootsautomation/ScreenSpot), UI-Vision and MMBench-GUI repositories ----

def screenspot_release() -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    """SeeClick's release in small: rows per platform (``bbox`` [x, y, w, h] whole pixels) and the screenshots. Sizes
    and boxes are picked so that fraction * width is not exactly the pixel in floating point (7/123*123 != 7)."""
    shots = {"mac_a.png": png(123, 77, 6), "ios_b.png": png(91, 157, 7), "web_c.png": png(211, 97, 8)}
    rows = {"desktop": [{"img_filename": "mac_a.png", "bbox": [7, 11, 29, 13], "instruction": "open the menu",
                         "data_type": "text", "data_source": "macos"},
                        {"img_filename": "mac_a.png", "bbox": [70, 40, 49, 33], "instruction": "close it",
                         "data_type": "icon", "data_source": "windows"}],
            "mobile": [{"img_filename": "ios_b.png", "bbox": [3, 101, 41, 23], "instruction": "tap send",
                        "data_type": "icon", "data_source": "ios"}],
            "web": [{"img_filename": "web_c.png", "bbox": [113, 5, 97, 19], "instruction": "search", "data_type": "text",
                     "data_source": "gitlab"}]}
    return rows, shots


def screenspot_hub_rows() -> list[dict]:
    """The same rows in rootsautomation/ScreenSpot's schema: ``bbox`` as fractions [x1, y1, x2, y2] of the screenshot."""
    from PIL import Image

    rows, shots = screenspot_release()
    out = []
    for platform in ("desktop", "mobile", "web"):
        for r in rows[platform]:
            w, h = Image.open(io.BytesIO(shots[r["img_filename"]])).size
            x, y, bw, bh = r["bbox"]
            out.append({"file_name": r["img_filename"], "bbox": [x / w, y / h, (x + bw) / w, (y + bh) / h],
                        "instruction": r["instruction"], "data_type": r["data_type"], "data_source": r["data_source"],
                        "image": {"bytes": shots[r["img_filename"]], "path": r["img_filename"]}})
    return out


def github_layout_screenspot(root) -> None:
    from pathlib import Path

    root = Path(root)
    rows, shots = screenspot_release()
    (root / "screenspot_imgs").mkdir(parents=True, exist_ok=True)
    for name, data in shots.items():
        (root / "screenspot_imgs" / name).write_bytes(data)
    for platform, rs in rows.items():
        (root / f"screenspot_{platform}.json").write_text(json.dumps(rs))


def uivision_repo() -> dict[str, bytes]:
    """ServiceNow/ui-vision in small: the element-grounding files (read) and a layout-grounding file and a card asset
    (not part of the release: never downloaded)."""
    shot = png(160, 90, 9)
    files = {"images/element_grounding/app/s1.png": shot, "images/layout_grounding/l1.png": png(40, 30, 10),
             "annotations/layout_grounding/layout_grounding.json": b"[]", "assets/teaser.png": png(20, 20, 11)}
    for k, setting in enumerate(("basic", "functional", "spatial")):
        rows = [{"image_path": "element_grounding/app/s1.png", "image_size": [160, 90], "bbox": [10 + k, 20, 60, 40],
                 "prompt_to_evaluate": f"{setting} target", "platform": "Linux", "element_type": "button",
                 "category": "Productivity"}]
        files[f"annotations/element_grounding/element_grounding_{setting}.json"] = json.dumps(rows).encode()
    return files


def mmbench_gui_repo(folder: str = "offline_images") -> dict[str, bytes]:
    """OpenGVLab/MMBench-GUI in small: L2 annotations and the images zip (``folder/<platform>/...`` inside), plus L1
    (not part of the release)."""
    import zipfile

    rows = [{"index": 0, "image_path": "w1.png", "platform": "os_windows", "instruction": "open settings",
             "bbox": [0.1, 0.2, 0.3, 0.4], "data_type": "icon", "grounding_type": "basic", "app_name": "settings"},
            {"index": 1, "image_path": "m1.png", "platform": "os_mac", "instruction": "the save button",
             "bbox": [20, 10, 60, 30], "data_type": "text", "grounding_type": "advanced", "app_name": "pages"}]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(f"{folder}/os_windows/w1.png", png(100, 50, 12))
        zf.writestr(f"{folder}/os_mac/m1.png", png(120, 60, 13))
        zf.writestr("__MACOSX/._w1.png", b"junk")
    return {"L2_annotations.json": json.dumps(rows).encode(), "L1_annotations.json": b"[]",
            "MMBench-GUI-OfflineImages.zip": buf.getvalue()}
