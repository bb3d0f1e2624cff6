"""Writing the static viewer: ``index.html`` (run pages, sample list), one page per sample, a diff page for two runs.

Everything is written under ``--out``: HTML built here with every run-supplied text escaped
(``html.escape``), ``assets/`` (our CSS and JS, no CDN), ``data/index.js`` (the compact sample index the
list pages and filters from: a script file, because pages opened from ``file://`` cannot fetch JSON),
``img/`` (screenshots copied once each) and ``traj/`` (SPHINX screens rendered by the simulator). Pages
carry a Content-Security-Policy that allows only the site's own script files: a response holding
``<script>`` or ``onerror=`` shows as text, and even a bug in escaping would run nothing inline.

A run folder may be shared and hostile (``docs/security.md``): the site is built in a new folder next to
``--out`` and moved into place (nothing is written through a symlink already there; an ``--out`` that is a
symlink, or a folder that is not an earlier site, is refused); images named by a samples file are copied only
from the run's own folders and the data cache (documents rebuilt by the installed task name the task's data);
a sample whose record cannot be shown becomes a note on its page; ``--serve`` answers only for 127.0.0.1 /
localhost, lists no folders and follows no symlink.

The model (runs, samples, images) is ``site_model``, the sample pages ``sample_pages``, the run pages and the list
``run_pages``; this module writes the site, serves it and is the command.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from gui_core.errors import DataError
from gui_tasks.viewer.images import IMAGE_MODES, ImageStore
from gui_tasks.viewer.plugins import ViewerPlugins
from gui_tasks.viewer.progress import MAX_SAMPLES, Progress
# the model, the sample pages and the run pages (some names re-exported: tests and plugins import them from here)
from gui_tasks.viewer.site_model import (STATIC, Entry, Side, Site, _copy_image, _head, _svg, collect,  # noqa: F401
                                         e)
from gui_tasks.viewer.sample_pages import _pre, _sections, _write, sample_view, write_sample_page  # noqa: F401
from gui_tasks.viewer.run_pages import (_diff, _index_data, _list_section, _lmms_eval_version, _metric_table,  # noqa: F401
                                        _protocols, _run_section, diff_counts)


SITE_MARK = ".gui-eval-view"  # a file in every site we build: the only kind of existing --out that is replaced


def _check_out(out: Path) -> None:
    """``--out`` may be absent, empty, or an earlier site (replaced whole); never a symlink or another folder."""
    if out.is_symlink():
        raise DataError("--out is a symlink; give the real folder (the site is never written through a link)", file=str(out))
    if out.exists():
        if not out.is_dir():
            raise DataError("--out exists and is not a folder", file=str(out))
        names = set(os.listdir(out))
        earlier = SITE_MARK in names or {"index.html", "assets"} <= names
        if names and not earlier:
            raise DataError("--out is a folder that is not an earlier gui-eval view site; give a new or empty folder "
                            "(a site replaces the folder whole)", file=str(out))


def _move_into_place(tmp: Path, out: Path) -> None:
    """``tmp`` becomes ``out``; an earlier site there is moved aside and removed (its symlinks unlinked, never followed)."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, old / "site")
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old)


def _image_roots(sides: Sequence[Side]) -> list[Path]:
    """The run's own folders (every results file's folder) and the data cache: where a samples file's images may be."""
    from gui_core.paths import cache_dir

    roots = {r.path.resolve().parent for side in sides for r in side.runs}
    roots |= {Path(side.path).resolve() for side in sides if Path(side.path).is_dir()}  # the RUN_DIR given
    try:
        roots.add(cache_dir().resolve())
    except Exception:  # noqa: BLE001 - no cache configured: the run's folders only
        pass
    return sorted(roots)


def build_site(run_dirs: Sequence[str | Path | Sequence[Path]], out: str | Path, *, rebuild_docs: bool = True,
               images: str = "thumbs", plugins: ViewerPlugins | None = None, max_samples: int = MAX_SAMPLES,
               say: Any = None) -> Site:
    """Write the whole viewer for ``run_dirs`` into a new folder and move it to ``out``; returns what was written.
    ``images``: how screenshots enter the site (``gui_tasks.viewer.images.IMAGE_MODES``); ``plugins``: the viewer
    plugins (default: every installed one, entry-point group ``gui_viewer``); ``max_samples``: samples shown per task
    (0: all), ``say``: told the progress (``gui_tasks.viewer.progress``)."""
    ImageStore(Path(out), images)  # an unknown mode fails before anything is read or written
    out = Path(out).absolute()
    _check_out(out)
    plugins = plugins if plugins is not None else ViewerPlugins()
    sides, entries, notes = collect(run_dirs, rebuild_docs=rebuild_docs, plugins=plugins, max_samples=max_samples,
                                    say=say)
    if say is not None:
        say(f"writing {len(entries):,} sample page(s) ...", force=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        site = _build_into(tmp, sides, entries, notes, images, plugins, say)
        os.chmod(tmp, 0o755)
        _check_out(out)
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    site.out = out
    return site


def _build_into(out: Path, sides: list[Side], entries: list[Entry], notes: list[str], images: str = "thumbs",
                plugins: ViewerPlugins | None = None, say: Any = None) -> Site:
    """Every file of the site under ``out``, a folder this process just created (nothing in it but what it writes)."""
    site = Site(out, sides, entries, notes, image_roots=_image_roots(sides), images_mode=images, plugins=plugins,
                say=say)
    try:
        return _write_site(site)
    finally:
        site.store.finish()  # no thumbnail thread outlives the build, also when it fails


def _write_site(site: Site) -> Site:
    """:func:`_build_into`'s files."""
    out, sides, entries, notes = site.out, site.sides, site.entries, site.notes
    for sub in ("assets", "data", "img", "s"):
        (out / sub).mkdir()
    _write(out / SITE_MARK, "built by gui-eval view; the whole folder is replaced by the next build\n")
    for f in ("viewer.css", "viewer.js"):
        _write(out / "assets" / f, (STATIC / f).read_text(encoding="utf-8"))
    _views(site)
    if len(sides) == 2:
        first = {(x.task, x.sample.get("doc_id")): x for x in entries if x.side == 0}
        for y in entries:
            x = first.get((y.task, y.sample.get("doc_id"))) if y.side == 1 else None
            if x is not None:
                site.twins[x.number], site.twins[y.number] = y, x
    for i, entry in enumerate(entries):
        write_sample_page(site, entry, i - 1 if i > 0 else None, i + 1 if i + 1 < len(entries) else None)
        if site.say is not None and i % 500 == 499:
            site.say(f"{i + 1:,} of {len(entries):,} sample page(s) written")  # spaced by Progress
    data = _index_data(site)
    diff_html = ""
    if len(sides) == 2:
        data["diff"], diff_html = _diff(site)
    _write(out / "data" / "index.js", "window.GUI_EVAL_INDEX = " + json.dumps(data, ensure_ascii=True, separators=(",", ":"))
           + ";\n")
    runs_html = "".join(_run_section(s, site) for s in sides)
    notes.extend(site.store.finish())  # every thumbnail written
    notes.extend(site.plugins.notes)  # broken viewer plugins and hooks, by name
    note_html = ("<ul class='notes'>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>") if notes else ""
    page = (_head("gui-eval viewer", 0) + "<h1>gui-eval viewer</h1>" + note_html
            + runs_html + diff_html + _list_section(len(sides) == 2)
            + "<script src='data/index.js'></script><script src='assets/viewer.js'></script></body></html>")
    _write(out / "index.html", page)
    return site


def _views(site: Site) -> None:
    """Every sample's plugin payload (``SampleView``), the samples of one episode (``SampleFacts.episode``: same side,
    task and key, in the benchmark's order) sharing one list of their views."""
    for x in site.entries:
        if x.facts.episode is not None and x.doc is not None:
            site.episodes.setdefault((x.side, x.task, x.facts.episode[0]), []).append(x)
    for steps in site.episodes.values():
        steps.sort(key=lambda x: x.facts.episode[1])
    shared: dict[int, list[Any]] = {}
    for steps in site.episodes.values():
        views: list[Any] = []
        for x in steps:
            shared[x.number] = views
    for x in site.entries:
        try:
            x.view = sample_view(site, x, shared.get(x.number, ()))
        except Exception:  # noqa: BLE001 - made again when its page is written: that page shows the note
            x.view = None
    for steps in site.episodes.values():
        shared[steps[0].number][:] = [x.view for x in steps if x.view is not None]


def make_server(out: Path, port: int) -> Any:
    """Python's HTTP server on 127.0.0.1 for ``out``: answers only requests whose Host is 127.0.0.1 or localhost (a
    page of another site cannot reach it by DNS rebinding), lists no folder, serves no path through a symlink."""
    import functools
    import http.server

    root = Path(out).resolve()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def send_head(self) -> Any:
            host = (self.headers.get("Host") or "").strip().lower()
            name, _, hport = host.rpartition(":") if not host.startswith("[") else (host, "", "")
            if name not in ("127.0.0.1", "localhost") or (hport and hport != str(self.server.server_address[1])):
                self.send_error(403, "Forbidden: unknown Host")
                return None
            path = Path(self.translate_path(self.path))
            try:
                rel = path.relative_to(root)
            except ValueError:
                self.send_error(404)
                return None
            at = root
            for part in rel.parts:  # no symlink anywhere on the way
                at = at / part
                if at.is_symlink():
                    self.send_error(404)
                    return None
            if path.is_dir():
                if not (path / "index.html").is_file() or (path / "index.html").is_symlink():
                    self.send_error(404)
                    return None
            return super().send_head()

        def list_directory(self, path: Any) -> Any:
            self.send_error(404)
            return None

    handler = functools.partial(Handler, directory=str(root))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(out: Path, port: int) -> None:
    """:func:`make_server` until interrupted."""
    with make_server(out, port) as httpd:
        print(f"serving {out} at http://127.0.0.1:{port}/index.html (Ctrl-C stops)", flush=True)
        httpd.serve_forever()


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval view RUN_DIR [RUN_DIR ...] --out DIR [--serve PORT]``."""
    ap = argparse.ArgumentParser(prog="gui-eval view", description="Static offline HTML viewer of lmms-eval runs: run "
                                 "pages, every sample with its overlays, trajectories, and a diff of two runs.")
    ap.add_argument("run_dirs", nargs="+", help="lmms-eval --output_path folders (or results files); two: side by side")
    ap.add_argument("--out", required=True, help="folder to write the site into (open its index.html)")
    ap.add_argument("--serve", type=int, metavar="PORT", default=None, help="then serve it on 127.0.0.1:PORT")
    ap.add_argument("--no-docs", action="store_true", help="do not rebuild documents through the installed tasks")
    ap.add_argument("--images", choices=IMAGE_MODES, default="thumbs",
                    help="thumbs (default): thumbnails, the full image linked at its file; copy: full-size copies, "
                         "once per distinct image (a self-contained site); links: nothing copied, the files shown in place")
    ap.add_argument("--max-samples", type=int, default=MAX_SAMPLES, metavar="N",
                    help=f"samples shown per task (default {MAX_SAMPLES:,}; a task cut down is named; 0: all)")
    args = ap.parse_args(argv)
    say = Progress()
    say(f"reading {len(args.run_dirs)} run(s) ...", force=True)
    from gui_tasks.submit.leaderboard import _quiet_lmms_eval

    _quiet_lmms_eval()
    t0 = time.perf_counter()
    try:
        site = build_site(args.run_dirs, args.out, rebuild_docs=not args.no_docs, images=args.images,
                          max_samples=args.max_samples, say=say)
    except DataError as exc:
        print(f"gui-eval view: {exc}", file=sys.stderr)
        return 1
    index = (Path(args.out) / "index.html").resolve()
    print(f"wrote {len(site.entries)} sample page(s) in {time.perf_counter() - t0:.1f} s; open file://{index}")
    for n in site.notes:
        print(f"note: {n}", file=sys.stderr)
    if args.serve is not None:
        serve(Path(args.out), args.serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
