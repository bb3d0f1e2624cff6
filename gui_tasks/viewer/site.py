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
"""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import shutil
import tempfile
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from gui_tasks.errors import DataError
from gui_tasks.results_io import RunResults, find_result_files, load_results, load_task_samples, skipped_rows_notes
from gui_tasks.viewer.images import IMAGE_MODES, IMAGE_SUFFIXES, ImageStore, Shown, image_size, inside
from gui_tasks.viewer.overlays import Shape, agentic_shapes, grounding_shapes, star_shapes
from gui_tasks.viewer.payloads import RunView, SampleView, Section
from gui_tasks.viewer.plugins import ViewerPlugins
from gui_tasks.viewer.sent import sent_images
from gui_tasks.viewer.records import GROUNDING, LOG_KEYS, OUTCOMES, facets, outcome, responses, sample_record

STATIC = Path(__file__).with_name("static")
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: file:; "
       "base-uri 'none'; form-action 'none'")
TEXT_CHARS = 300  # characters of prompt and response kept in the index for free-text search


def e(value: Any) -> str:
    """Escaped text for an HTML body or a double-quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def _head(title: str, depth: int) -> str:
    up = "../" * depth
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{e(CSP)}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{e(title)}</title><link rel="stylesheet" href="{up}assets/viewer.css"></head><body>')


@dataclass
class Side:
    """The runs given as one RUN_DIR argument (one model and setting, usually): one side of a comparison."""

    index: int
    path: str  # the RUN_DIR (or the results files) it was read from
    runs: list[RunResults]

    @property
    def label(self) -> str:
        labels = list(dict.fromkeys(r.model_label for r in self.runs))
        return " | ".join(labels) or str(self.path)


@dataclass
class Entry:
    """One sample of one task of one side, with what the index and its page need."""

    side: int
    run: RunResults
    task: str
    benchmark: str
    sample: dict[str, Any]
    doc: dict[str, Any] | None
    record: dict[str, Any]
    outcome: str
    kind: str
    lang: str
    group: str
    number: int = -1
    sent: list[Any] = field(default_factory=list)  # gui_tasks.viewer.sent.SentRequest: images interventions changed
    view: SampleView | None = None  # the plugin hooks' payload, made when its page is written


@dataclass
class Site:
    out: Path
    sides: list[Side]
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    images: dict[str, Shown] = field(default_factory=dict)  # path -> as shown
    episodes: dict[tuple[int, str, str], list[Entry]] = field(default_factory=dict)  # StaR agentic steps by episode
    twins: dict[int, Entry] = field(default_factory=dict)  # two runs: sample number -> the other run's same sample
    image_roots: list[Path] = field(default_factory=list)  # where images named by a samples file may be copied from
    images_mode: str = "thumbs"  # gui_tasks.viewer.images.IMAGE_MODES
    store: ImageStore = None  # type: ignore[assignment]  # made from out and images_mode
    task_folders: dict[str, Path | None] = field(default_factory=dict)  # task -> its YAML's folder
    plugins: ViewerPlugins = None  # type: ignore[assignment]  # the installed viewer plugins (gui_tasks.viewer.plugins)

    def __post_init__(self) -> None:
        if self.store is None:
            self.store = ImageStore(self.out, self.images_mode)
        if self.plugins is None:
            self.plugins = ViewerPlugins(load_entry_points=False)


# --- reading ----------------------------------------------------------------------------------------------
def _docs(task: str, notes: list[str], cache: dict[str, list[dict[str, Any]] | None]) -> list[dict[str, Any]] | None:
    """The task's documents rebuilt by the installed lmms-eval task (as ``gui-eval submit`` does), or None."""
    if task not in cache:
        from gui_tasks.rescore import load_task, task_docs

        try:
            cache[task] = task_docs(load_task(task))
        except Exception as exc:  # not installed here, data missing: the samples are shown without documents
            notes.append(f"{task}: documents not rebuilt ({exc.__class__.__name__}: {exc}); shown from the samples file only")
            cache[task] = None
    return cache[task]


def collect(run_dirs: Sequence[str | Path | Sequence[Path]], *, rebuild_docs: bool = True) -> tuple[list[Side], list[Entry], list[str]]:
    """Every results file under each RUN_DIR (a folder, a results file, or a list of them: one side each), every logged
    sample with its document and record."""
    sides, entries, notes = [], [], []
    docs_cache: dict[str, list[dict[str, Any]] | None] = {}
    for i, d in enumerate(run_dirs):
        files = find_result_files(d)
        if not files:
            raise DataError("no lmms-eval *_results.json file found", file=str(d))
        runs = [load_results(f) for f in files]
        sides.append(Side(i, str(d) if isinstance(d, (str, Path)) else ", ".join(map(str, d)), runs))
        for run in runs:
            sent = sent_images(run, notes)
            for name, res in sorted(run.tasks.items()):
                if res.is_group:
                    continue
                if res.metadata.get("not_run"):  # a multi-round task the backend could not run (lmms_rows.RowsTask)
                    notes.append(f"{run.path.name} {name}: not run: {res.metadata['not_run']}")
                    continue
                try:
                    samples = load_task_samples(run, name)
                except DataError as exc:
                    notes.append(f"{run.path.name} {name}: {exc}")
                    continue
                docs = _docs(name, notes, docs_cache) if rebuild_docs else None
                bench = str(res.metadata.get("benchmark", ""))
                for s in sorted(samples, key=lambda s: s.get("doc_id") if isinstance(s.get("doc_id"), int) else -1):
                    doc_id = s.get("doc_id")
                    doc = docs[doc_id] if docs is not None and isinstance(doc_id, int) and 0 <= doc_id < len(docs) else None
                    try:
                        rec = sample_record(s)
                        out, kind = outcome(bench, rec)
                        lang, group = facets(bench, doc, rec, res.metadata)
                    except Exception as exc:  # noqa: BLE001 - a malformed record is a note on its sample, not a lost site
                        rec = {"viewer_note": f"record not readable: {type(exc).__name__}: {str(exc)[:300]}"}
                        out, kind, lang, group = "unscored", "", "", ""
                        notes.append(f"{run.path.name} {name} doc {doc_id!r}: record not readable ({type(exc).__name__})")
                    entries.append(Entry(i, run, name, bench, s, doc, rec, out, kind, lang, group,
                                         sent=sent.get((name, doc_id), []) if isinstance(doc_id, int) else []))
    for n, entry in enumerate(entries):
        entry.number = n
    return sides, entries, notes


# --- images (stored by gui_tasks.viewer.images: thumbnails, one copy per content hash) -----------------------------
def _show_file(site: Site, path: str, trusted: bool = False) -> Shown | None:
    """``path`` as the site shows it (:class:`ImageStore`), or None when it is missing or not an image file (a samples
    file names the paths: only images enter a site that may be shared). A path that is not ``trusted`` (it comes from
    a samples file, not from a document the installed task rebuilt) is used only from inside :attr:`Site.image_roots`
    (the run's folders, the data cache), symlinks resolved."""
    if path in site.images:
        return site.images[path]
    src = Path(path)
    size = image_size(src) if src.suffix.lower() in IMAGE_SUFFIXES and src.is_file() else None
    if size is None:
        return None
    real = src.resolve()
    if not trusted and not inside(real, site.image_roots):
        site.notes.append(f"image {path} not copied: outside the run's folders and the data cache")
        return None
    site.images[path] = shown = site.store.file(real, size)
    return shown


def _copy_image(site: Site, path: str, trusted: bool = False) -> str | None:
    """The site-relative path (or ``file://`` URI in ``links`` mode) the page shows for ``path``, or None."""
    shown = _show_file(site, path, trusted)
    return shown.src if shown is not None else None


# --- overlays as SVG ------------------------------------------------------------------------------------
def _svg(shapes: Sequence[Shape], width: int, height: int) -> str:
    """An SVG in the screenshot's pixel space (viewBox), laid over the image; shapes carry data-role."""
    base = r = max(4.0, min(width, height) / 60)
    parts = []
    for s in shapes:
        role, label = e(s.role), e(s.label)
        if s.shape == "rect":
            x1, y1, x2, y2 = s.xy
            parts.append(f'<rect class="ov ov-{role}" data-role="{role}" x="{x1:g}" y="{y1:g}" width="{x2 - x1:g}" '
                         f'height="{y2 - y1:g}"><title>{label}</title></rect>')
        elif s.shape == "point":
            x, y = s.xy
            r = base * (1.8 if s.role == "gold" else 1.0)  # a gold point under a prediction on it stays visible
            parts.append(f'<g class="ov ov-{role}" data-role="{role}" data-x="{x:g}" data-y="{y:g}"><title>{label}</title>'
                         f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}"></circle>'
                         f'<line x1="{x - 2 * r:g}" y1="{y:g}" x2="{x + 2 * r:g}" y2="{y:g}"></line>'
                         f'<line x1="{x:g}" y1="{y - 2 * r:g}" x2="{x:g}" y2="{y + 2 * r:g}"></line></g>')
        elif s.shape == "arrow":
            x1, y1, x2, y2 = s.xy
            parts.append(f'<line class="ov ov-{role}" data-role="{role}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                         f'marker-end="url(#arrowhead)"><title>{label}</title></line>')
        elif s.shape == "text":
            x, y = s.xy
            parts.append(f'<text class="ov ov-{role}" data-role="{role}" x="{x:g}" y="{y:g}" '
                         f'font-size="{2.5 * base:g}">{label}</text>')
    defs = ('<defs><marker id="arrowhead" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">'
            '<path d="M0,0 L8,4 L0,8 z" class="ov-arrowhead"></path></marker></defs>')
    return (f'<svg class="overlay" viewBox="0 0 {width} {height}" preserveAspectRatio="none" '
            f'xmlns="http://www.w3.org/2000/svg">{defs}{"".join(parts)}</svg>')


def _figure(site: Site, path: str | None, shapes: Sequence[Shape], caption: str, size: tuple[int, int] | None = None,
            src: str | None = None, trusted: bool = True, shown: Shown | None = None) -> str:
    """A screenshot with its overlay, the full-size image one click away. ``shown``: an image already stored (document
    pixels); ``src`` (site-relative): a file the site wrote itself; else ``path`` is stored (:func:`_show_file`;
    ``trusted``: it comes from a rebuilt document, else from a samples file). ``size``: the original size the shapes
    are in (the document's, else the image's)."""
    if shown is None and src is not None:
        shown = Shown(src, src, size) if size else None
        if size is None:
            return f'<p class="missing">screenshot not readable: {e(src)}</p>'
    if shown is None:
        shown = _show_file(site, path, trusted) if path else None
        if shown is None:
            return f'<p class="missing">screenshot not found or not an image: {e(path)}</p>'
    w, h = size or shown.size
    up = "" if shown.src.startswith("file:") else "../"
    full = shown.full if shown.full.startswith("file:") else "../" + shown.full
    thumb = ' class="thumb"' if shown.src != shown.full else ""  # shown at its own resolution (viewer.css)
    return (f'<figure class="shot" data-width="{w}" data-height="{h}"><div class="stage">'
            f'<a class="full" href="{e(full)}"><img{thumb} src="{up}{e(shown.src)}" width="{w}" height="{h}" alt="screenshot"></a>'
            f'{_svg(shapes, w, h) if shapes else ""}</div>'
            f'<figcaption>{e(caption)} &middot; <a class="full" href="{e(full)}">full size</a> ({w}x{h})</figcaption></figure>')


# --- pages ------------------------------------------------------------------------------------------------
def _kv(rows: Iterable[tuple[str, Any]]) -> str:
    return "<table class='kv'>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows) + "</table>"


def _pre(text: Any, cls: str = "") -> str:
    return f"<pre class='{cls}'>{e(text)}</pre>"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def _digits(record: Mapping[str, Any], title: str) -> str:
    """The per-digit distributions at each key digit (captured runs) and the PSS value."""
    keys = record.get("key_tokens") or []
    if not record.get("captured"):
        return ""
    out = [(f"<h3>{e(title)}: PSS {e(_fmt(record.get('pss')))}, digit entropy {e(_fmt(record.get('digit_entropy')))}, "
            f"perplexity {e(_fmt(record.get('perplexity')))}</h3>")]
    if not keys:
        out.append("<p>no key digit in this answer</p>")
    for k in keys:
        head = f"key digit '{k.get('digit')}' at character {k.get('char')}"  # KeyToken: char = offset, digit = the digit
        if k.get("merged") or not k.get("logits"):
            out.append(f"<p>{e(head)}: merged with another character in one token; no distribution</p>")
            continue
        logits = [float(v) for v in k["logits"]]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        probs = [x / total for x in exps]
        bars = "".join(f'<div class="bar{" chosen" if str(d) == str(k.get("digit")) else ""}"><span style="height:{100 * p:.1f}%">'
                       f'</span><b>{d}</b><i>{p:.2f}</i></div>' for d, p in enumerate(probs))
        out.append(f"<div class='digit'><p>{e(head)}: PSS {e(_fmt(k.get('pss')))}, entropy {e(_fmt(k.get('entropy')))}</p>"
                   f"<div class='bars'>{bars}</div></div>")
    return "".join(out)


def _not_json(value: Any) -> str:
    """How a document value JSON cannot hold shows on a page (bytes, images): its type and size, never ``str()``."""
    size = getattr(value, "size", None)
    return f"<{type(value).__name__}{f' {size[0]}x{size[1]}' if isinstance(size, tuple) and len(size) == 2 else ''}>" \
        if not isinstance(value, (bytes, bytearray)) else f"<{len(value)} bytes>"


def _doc_rows(doc: Mapping[str, Any]) -> list[tuple[str, Any]]:
    from PIL import Image

    skip = {"images", "image", "meta"}
    rows = []
    for k, v in doc.items():
        if k in skip or v is None or isinstance(v, (str, list, dict)) and not v:
            continue
        items = v if isinstance(v, (list, tuple)) else [v]
        if items and all(isinstance(x, Image.Image) for x in items):  # shown above; never str(image) (a memory address)
            rows.append((k, ", ".join(f"image {x.size[0]}x{x.size[1]} {x.mode}" for x in items)))
            continue
        rows.append((k, json.dumps(v, ensure_ascii=False, default=_not_json) if isinstance(v, (list, dict)) else v))
    return rows


def _why(entry: Entry) -> str:
    rec = entry.record
    bits = [entry.outcome.replace("_", " ")]
    for key in ("status", "detail", "rule", "response_type", "distance", "pred", "answer", "pred_type", "type_match",
                "exact", "hits_toggle", "frame", "frame_source", "model_size", "satisfied", "n_actions", "format_errors"):
        if key in rec and rec[key] not in (None, ""):
            bits.append(f"{key}={_fmt(rec[key]) if not isinstance(rec[key], (list, dict)) else json.dumps(rec[key])}")
    return "; ".join(bits)


def _main_image_size(site: Site, entry: Entry) -> tuple[int, int] | None:
    """Width and height of the image a sample's overlays are drawn on (the document's declared size where the
    benchmark has one, else the first image's), or None."""
    from gui_tasks.viewer.images import document_image_pixels

    doc = entry.doc
    try:
        if doc is not None and entry.benchmark in GROUNDING:
            return int(doc["width"]), int(doc["height"])
        if doc is not None and entry.benchmark in ("star_state_control", "star_agentic"):
            return int(doc["image_width"]), int(doc["image_height"])
        values = _image_values(doc) if doc is not None else []
        if not values:
            media = entry.sample.get("input_media") or []
            p = media[0] if isinstance(media, list) and media and isinstance(media[0], str) else None
            return image_size(Path(p)) if p else None
        if entry.task not in site.task_folders:
            site.task_folders[entry.task] = _task_folder(entry.task)
        image, path, _ = document_image_pixels(values[0][1], site.task_folders[entry.task])
        return image.size if image is not None else image_size(path) if path is not None and path.is_file() else None
    except (KeyError, TypeError, ValueError, OSError):
        return None


def sample_view(site: Site, entry: Entry) -> SampleView:
    """The payload plugin hooks get for one sample."""
    multi = entry.benchmark == "sphinx_sim"
    return SampleView(entry.task, entry.benchmark, entry.sample.get("doc_id"), entry.doc, entry.record, entry.sample,
                      tuple(responses(entry.sample, multi_round=multi)), entry.outcome,
                      _main_image_size(site, entry) if site.plugins.names else None,  # a header read: only for plugins
                      site.sides[entry.side].label if site.sides else "")


def _sections(sections: Sequence[tuple[str, Section]]) -> str:
    """Plugin sections: title, preformatted text, key-value rows; all escaped; each names its plugin."""
    return "".join(f"<section class='plugin' data-plugin='{e(name)}'><h2>{e(sec.title)}</h2>"
                   + (_pre(sec.text, "plugin") if sec.text else "") + (_kv(sec.rows) if sec.rows else "") + "</section>"
                   for name, sec in sections)


def _sample_body(site: Site, entry: Entry) -> str:
    doc, rec = entry.doc, entry.record
    view = entry.view = sample_view(site, entry)
    extra = site.plugins.overlays(view)  # plugin overlays: on the main image, in its original pixels
    parts = []
    if entry.benchmark == "sphinx_sim" and doc is not None and "package" not in doc:  # a device episode: no replay
        parts.append(_trajectory(site, entry))
    elif doc is not None and entry.benchmark in GROUNDING:
        parts.append(_value_figure(site, entry, doc["image"], grounding_shapes(doc, rec) + extra,
                                   "green: target box; red: predicted point" + ("; blue: crop window, orange: first pass"
                                                                               if rec.get("crop") else ""),
                                   (int(doc["width"]), int(doc["height"]))))
    elif doc is not None and entry.benchmark == "star_state_control":
        images = doc.get("images") or []
        parts.append(_value_figure(site, entry, images[-1] if images else None, star_shapes(doc, rec) + extra,
                                   "purple: toggle box; green: gold point; red: predicted point",
                                   (int(doc["image_width"]), int(doc["image_height"]))))
    elif doc is not None and entry.benchmark == "star_agentic":
        images = doc.get("images") or []
        shapes = agentic_shapes(doc, rec, responses(entry.sample)[0]) + extra
        parts.append(_value_figure(site, entry, images[-1] if images else None, shapes,
                                   "green: gold action; red: predicted action; grey: element boxes",
                                   (int(doc["image_width"]), int(doc["image_height"]))))
        parts.append(_episode(site, entry))
    else:
        parts.append(_document_images(site, entry, extra))
    if entry.sent:  # side by side: the original (the main figure) and what the interventions sent
        parts[0] = (f"<div class='compare'><section class='original'><h3>Original</h3>{parts[0]}</section>"
                    f"{_sent_section(site, entry)}</div>")
    parts.append("<h2>Score</h2>" + _pre(_why(entry), "why"))
    parts.append(_sections(site.plugins.sample_sections(view)))
    parts.append("<h2>Prompt sent</h2>" + _pre(entry.sample.get("input", "")))
    outs = responses(entry.sample, multi_round=entry.benchmark == "sphinx_sim")
    parts.append("<h2>Raw response" + ("s" if len(outs) > 1 else "") + "</h2>"
                 + "".join(_pre(o, "response") for o in outs))
    if rec.get("first"):
        parts.append("<h2>First pass (before the crop)</h2>" + _pre(json.dumps({k: v for k, v in rec["first"].items()
                                                                               if k != "key_tokens"}, ensure_ascii=False)))
    if rec.get("captured"):
        parts.append("<h2>Captured digits</h2>" + _digits(rec, "final answer")
                     + (_digits(rec["first"], "first pass") if isinstance(rec.get("first"), dict) else ""))
    parts.append("<h2>Target</h2>" + _pre(entry.sample.get("target", "")))
    if doc is not None:
        parts.append("<h2>Document</h2>" + _kv(_doc_rows(doc)))
    parts.append("<h2>Per-sample record (as logged)</h2>" + _pre(json.dumps(rec, ensure_ascii=False, indent=1, default=str)))
    return "".join(parts)


def _task_folder(task: str) -> Path | None:
    """The folder of the installed task's YAML: in-document relative image paths are read from there."""
    try:
        from gui_tasks.rescore import yaml_folder

        folder = yaml_folder(task)
        return Path(folder) if folder else None
    except Exception:  # noqa: BLE001 - no task index (lmms-eval unusable): relative paths are reported, not guessed
        return None


def _image_values(doc: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(field, value)`` of every image a document holds: ``images`` and ``image`` (paths, PIL images, Hugging Face
    ``{"bytes", "path"}`` dicts), then any other field holding PIL images (a dataset's own image column)."""
    from PIL import Image

    out: list[tuple[str, Any]] = []
    for key, value in doc.items():
        if key in ("option_images",):
            continue
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        named = key in ("images", "image")
        if not named and not (items and all(isinstance(x, Image.Image) for x in items)):
            continue
        for i, x in enumerate(items):
            if x is None or isinstance(x, str) and not x:
                continue
            out.append((f"{key}[{i}]" if isinstance(value, (list, tuple)) else key, x))
    return out


def _value_figure(site: Site, entry: Entry, value: Any, shapes: Sequence[Shape], caption: str,
                  size: tuple[int, int] | None = None) -> str:
    """A figure for an in-document image value (path, relative path, PIL image, bytes dict), or a note saying why not."""
    from gui_tasks.viewer.images import document_image_pixels

    if value is None:
        return "<p class='missing no-image'>This sample's document names no image.</p>"
    if entry.task not in site.task_folders:
        site.task_folders[entry.task] = _task_folder(entry.task)
    folder = site.task_folders[entry.task]
    image, path, why = document_image_pixels(value, folder)
    if image is not None:
        return _figure(site, None, shapes, caption, size, shown=site.store.pixels(image))
    if path is None:
        return f"<p class='missing no-image'>{e(caption)}: cannot show this image: {e(why)}</p>"
    return _figure(site, str(path), shapes, caption, size)


def _document_images(site: Site, entry: Entry, extra: Sequence[Shape] = ()) -> str:
    """Every image of a sample on a page without overlays: the rebuilt document's images (paths, relative paths,
    pixels), else the samples file's ``input_media``; a sample with none says so."""
    doc = entry.doc
    out = []
    values = _image_values(doc) if doc is not None else []
    for label, value in values:
        name = Path(value).name if isinstance(value, str) else label
        out.append(_value_figure(site, entry, value, [] if out else list(extra), f"{name} ({label})" if name != label else label))
    if not values:
        media = entry.sample.get("input_media") or []
        for p in media if isinstance(media, list) else []:
            if isinstance(p, str):
                out.append(_figure(site, p, [] if out else list(extra), Path(p).name + " (samples file)", trusted=False))
    for letter, p in zip("ABCDEFG", (doc or {}).get("option_images") or []):  # GUI-KB effect: one screen per option
        if isinstance(p, str) and p:
            out.append(_figure(site, p, [], f"option {letter}"))
    if not out:
        why = ("its document has no image field (image, images, or a column of images) and the samples file names no "
               "input_media" if doc is not None else
               "its document was not rebuilt (see the notes on the index page) and the samples file names no input_media")
        out.append(f"<p class='missing no-image'>No image to show for this sample: {e(why)}.</p>")
    return "".join(out)


def _sent_section(site: Site, entry: Entry) -> str:
    """The images the model was sent where an intervention changed them (``gui_interventions.sent_images``), beside
    the original above: per round and pass (the crop's second pass is ``rerun-1``), unchanged and removed ones named."""
    out = ["<section class='sent'><h3>Images sent to the model (after interventions)</h3>"]
    for req in entry.sent:
        where = f"round {req.round}, " if req.round else ""
        for im in req.images:
            label = f"sent: {where}{req.stage}, image {im.index + 1}"
            if im.unchanged:
                out.append(f"<p class='sent-unchanged' data-role='sent'>{e(label)}: unchanged (the original)</p>")
            elif im.path is None:
                out.append(f"<p class='missing' data-role='sent'>{e(label)}: not stored ({e(im.note)})</p>")
            else:
                out.append(_figure(site, str(im.path), [], label, trusted=True).replace(
                    '<figure class="shot"', '<figure class="shot sent" data-role="sent"', 1))
        if req.removed:
            out.append(f"<p class='sent-removed' data-role='sent'>sent: {e(where)}{e(req.stage)}: {req.removed} image(s) "
                       "removed by an intervention</p>")
        if not req.images and not req.removed:
            out.append(f"<p data-role='sent'>sent: {e(where)}{e(req.stage)}: no image</p>")
    return "".join(out) + "</section>"


def _episode(site: Site, entry: Entry) -> str:
    """The StaR agentic episode this step belongs to: every logged step, its verdicts, a link to its page."""
    steps = site.episodes.get((entry.side, entry.task, str(entry.doc.get("episode_id"))), [entry])
    rows = []
    for x in steps:
        r = x.record
        here = " class='here'" if x is entry else ""
        gold = json.loads(x.doc["gold"]) if isinstance(x.doc["gold"], str) else x.doc["gold"]
        rows.append(f"<tr{here}><td><a href='{x.number}.html'>step {e(x.doc.get('step'))}</a></td><td>{e(gold.get('type'))}</td>"
                    f"<td>{e(r.get('pred_type') or r.get('status'))}</td><td>{e(r.get('type_match'))}</td>"
                    f"<td class='outcome {e(x.outcome)}'>{e(r.get('exact'))}</td></tr>")
    return (f"<h2>Episode {e(entry.doc.get('episode_id'))}: goal</h2>{_pre(entry.doc.get('goal', ''))}"
            "<table class='episode'><tr><th>step</th><th>gold</th><th>predicted</th><th>type match</th><th>exact</th></tr>"
            + "".join(rows) + "</table>")


def _trajectory(site: Site, entry: Entry) -> str:
    from gui_tasks.viewer.trajectory import sphinx_episode

    views = sphinx_episode(entry.doc, responses(entry.sample, multi_round=True))
    if not (site.out / "traj").is_dir():
        (site.out / "traj").mkdir()
    out = ["<h2>Trajectory</h2><ol class='steps' start='0'>"]
    for v in views:
        rel = f"traj/{entry.number}_{v.index}.png"
        v.image.convert("RGB").save(site.out / rel, optimize=False)
        verdict = "" if v.verdicts is None else " ".join("✓" if ok else "✗" for ok in v.verdicts)
        caption = ("final screen" if v.status == "final" else f"step {v.index}: {v.status}") + (f"; verdicts {verdict}" if verdict else "")
        out.append(f"<li class='step' data-step='{v.index}'>"
                   + _figure(site, None, v.shapes, caption, v.image.size, src=rel)
                   + ("" if v.status == "final" else "<h3>Output</h3>" + _pre(v.output, "response")
                      + "<h3>Parsed action</h3>" + _pre(json.dumps(v.action, ensure_ascii=False)))
                   + "</li>")
    out.append("</ol>")
    return "".join(out)


def write_sample_page(site: Site, entry: Entry, prev_n: int | None, next_n: int | None) -> None:
    """The sample's page; a record (or document) that cannot be shown becomes a note on the page, never a lost site."""
    try:
        body = _sample_page(site, entry, prev_n, next_n)
    except Exception as exc:  # noqa: BLE001 - hostile or malformed run data
        site.notes.append(f"{entry.task} doc {entry.sample.get('doc_id')!r}: page shows a note ({type(exc).__name__})")
        body = (_head(f"{entry.task} sample", 1) + "<nav><a href='../index.html'>sample list</a></nav>"
                + f"<h1>{e(entry.task)} #{e(entry.sample.get('doc_id'))}</h1><p class='missing'>This sample's record could "
                + f"not be shown: {e(type(exc).__name__)}: {e(str(exc)[:500])}</p></body></html>")
    _write(site.out / "s" / f"{entry.number}.html", body)


def _write(path: Path, text: str) -> None:
    """A new file (``O_EXCL|O_NOFOLLOW``: never through a symlink or over a file already there)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def _sample_page(site: Site, entry: Entry, prev_n: int | None, next_n: int | None) -> str:
    side = site.sides[entry.side].label
    nav = "".join([f"<a href='{prev_n}.html'>&larr; previous</a> " if prev_n is not None else "",
                   "<a href='../index.html'>sample list</a>",
                   f" <a href='{next_n}.html'>next &rarr;</a>" if next_n is not None else ""])
    title = f"{entry.task} #{entry.sample.get('doc_id')}"
    body = (_head(title, 1) + f"<nav>{nav}</nav><h1>{e(title)}</h1>"
            + f"<p class='meta'>{e(side)} &middot; <span class='outcome {e(entry.outcome)}'>{e(entry.outcome)}</span> "
            + (f"&middot; {e(entry.kind)} " if entry.kind else "") + f"&middot; {e(entry.lang)} {e(entry.group)}</p>"
            + _twin(site, entry) + _sample_body(site, entry) + "</body></html>")
    return body


def _twin(site: Site, entry: Entry) -> str:
    """With two runs: the other run's outcome and response on this sample, and a link to its page."""
    other = site.twins.get(entry.number)
    if other is None:
        return ""
    outs = responses(other.sample, multi_round=other.benchmark == "sphinx_sim")
    return (f"<aside class='twin'><p>Run {other.side + 1} ({e(site.sides[other.side].label)}) on this sample: "
            f"<span class='outcome {e(other.outcome)}'>{e(other.outcome)}</span> {e(other.kind)} "
            f"<a href='{other.number}.html'>its page</a></p>{''.join(_pre(o, 'response twin') for o in outs)}</aside>")


def _heatmap(runs: Sequence[RunResults]) -> str:
    """The MPR language x dimension table (``gui_tasks.mpr.report.build_table``) as a coloured HTML table."""
    from gui_tasks.mpr.report import COLUMNS, build_table, header

    table = build_table(runs)
    if not table.rows:
        return ""
    head = header(table, show_model=True)
    rows = []
    for r in table.rows:
        cells = [f"<td>{e(r.model)}</td><td>{e(r.lang.upper())}</td>"]
        for c in COLUMNS:
            v = r.values[c]
            style = "" if math.isnan(v) else f" style='background:hsl({1.2 * v:.0f},70%,{85 - 0.2 * v:.0f}%)'"
            cells.append(f"<td class='num'{style}>{'-' if math.isnan(v) else f'{v:.1f}'}</td>")
        gap = "" if r.gap_to_en is None or math.isnan(r.gap_to_en) else f"{r.gap_to_en:+.1f}"
        cells.append(f"<td class='num'>{gap}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f"<li>{e(n)}</li>" for n in table.notes)
    return ("<h3>MPR-GUI: accuracy (%) per language and dimension, FPR-ACC and gap to EN</h3><table class='heat'><tr>"
            + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>"
            + (f"<ul class='notes'>{notes}</ul>" if notes else ""))


def _reports(side: Side) -> str:
    """Each benchmark's own report over this side's runs (its report module, as ``gui-eval *-report`` prints it)."""
    benches = {str(t.metadata.get("benchmark")) for r in side.runs for t in r.tasks.values()}
    out = []

    def add(title: str, make) -> None:
        try:
            text = make()
        except Exception as exc:  # a report that cannot be built from this run says why; the viewer goes on
            text = f"(not available: {exc.__class__.__name__}: {exc})"
        if text and text.strip():
            out.append(f"<details class='report'><summary>{e(title)}</summary>{_pre(text)}</details>")

    if benches & {"star_state_control", "star_agentic"}:
        from gui_tasks.star import report as star

        if "star_state_control" in benches:
            add("StaR: Table 7 layout (state control)", lambda: star.render_text(star.build_table(side.runs)))
        if "star_agentic" in benches:
            add("StaR: step-wise agentic accuracy", lambda: star.render_step_text(star.build_step_table(side.runs)))
    if benches & GROUNDING:
        from gui_tasks.grounding import report as grounding

        add("Grounding: PSS, Algorithm-1 response types, cropping",
            lambda: grounding.markdown([grounding.summarise(x) for x in grounding.collect([r.path for r in side.runs])]))
    if "gui_knowledge" in benches:
        from gui_tasks.knowledge import report as knowledge

        add("GUI Knowledge Bench: Table 2 layout", lambda: knowledge.render_text(knowledge.build_report(side.runs)))
    if benches & {"sphinx", "sphinx_sim"}:
        from gui_tasks.sphinx import report as sphinx

        add("SPHINX: Tables 4-9", lambda: "\n".join(f"### {k}\n{v}" for k, v in sphinx.build_report(side.runs).items()))
    return "".join(out)


def _lmms_eval_version(run: RunResults) -> str:
    """The lmms-eval package that is installed (the results file records none: its ``lmms_eval_version`` is the git
    branch@commit of the folder lmms-eval ran in, shown beside it)."""
    from gui_tasks.leaderboard import _dist_version

    installed = _dist_version("lmms_eval")
    text = f"{installed} (installed)" if installed else "?"
    return text + (f"; the run's folder was at git {run.lmms_eval_version}" if run.lmms_eval_version else "")


def _protocols(md: Mapping[str, Any], interventions: Sequence[str]) -> tuple[str, str]:
    """(protocol, parser) shown for a task: an imported published run ran its author's prompt, not the task's; it is
    labelled by the file it came from and the answer family it is read as."""
    if md.get("published"):
        pub = md["published"] if isinstance(md["published"], dict) else {}
        return (f"published ({pub.get('format') or 'file'}: the author's own prompt)",
                f"read as {md.get('answer_family') or '?'} ({md.get('strictness') or 'official'})")
    proto = "+".join(p for p in (str(md.get("prompt_protocol") or ""), *interventions) if p)
    return proto, str(md.get("parser_protocol", ""))


def _metric_table(res: Any) -> str:
    """A task's metrics as a compact table (value, ± stderr where the results carry one), defined ones first; the
    undefined (NaN) and format-error ones are left out or folded under one line."""
    defined = [(k, v) for k, v in res.metrics.items() if "format_error" not in k and isinstance(v, (int, float))
               and not math.isnan(v)]
    undefined = sorted(k for k, v in res.metrics.items() if "format_error" not in k and (not isinstance(v, (int, float))
                                                                                          or math.isnan(v)))
    def spread(k: str) -> str:  # the run's 95% interval (docs/statistics.md), else lmms-eval's stderr
        ci = res.interval(k) if hasattr(res, "interval") else None
        if ci is not None:
            return f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"
        return "± " + _fmt(res.stderr[k + "_stderr"]) if k + "_stderr" in res.stderr else ""

    rows = "".join(f"<tr><td>{e(k)}</td><td class='num'>{e(_fmt(v))}</td><td class='num'>{e(spread(k))}</td></tr>"
                   for k, v in defined)
    folded = (f"<details><summary>{len(undefined)} undefined (NaN: no sample in the denominator)</summary>"
              f"{e(', '.join(undefined))}</details>") if undefined else ""
    return (f"<table class='metrics'>{rows}</table>" if rows else "") + folded


def _with_ci(res: Any, metric: str, value: Any) -> str:
    """A figure with its 95% interval when the run recorded one (docs/statistics.md)."""
    ci = res.interval(metric)
    if ci is None:
        return _fmt(value)
    return f"{_fmt(value)} [{_fmt(ci[0])}, {_fmt(ci[1])}]"


def _run_section(side: Side, site: Site | None = None) -> str:
    from gui_tasks.leaderboard import interventions_of

    out = [f"<section class='run' data-side='{side.index}'><h2>Run {side.index + 1}: {e(side.label)}</h2>"]
    for run in side.runs:
        inter = interventions_of(run.model_args)
        out.append(_kv([("results file", run.path), ("backend", run.model), ("checkpoint", run.model_name),
                        ("model args", run.model_args), ("interventions", "+" + "+".join(inter) if inter else "none"),
                        ("lmms-eval", _lmms_eval_version(run)), ("date", run.date or "?"),
                        ("limit", run.limit if run.limit is not None else "none")]))
        rows = []
        for name, res in sorted(run.tasks.items()):
            md = res.metadata
            n = res.n_samples or {}
            proto, parser = _protocols(md, inter)
            fmt = ", ".join(f"{k} {_fmt(v)}" for k, v in sorted(res.metrics.items()) if "format_error" in k)
            rows.append("<tr>" + "".join(f"<td>{e(x)}</td>" for x in (
                name, md.get("benchmark", ""), f"{n.get('effective', '')}/{n.get('original', '')}" if n else "group",
                proto, parser, res.version, fmt)) + f"<td>{_metric_table(res)}</td></tr>")
        out.append("<table class='tasks'><tr><th>task</th><th>benchmark</th><th>samples</th><th>protocol</th><th>parser</th>"
                   "<th>version</th><th>format errors</th><th>metrics</th></tr>" + "".join(rows) + "</table>")
    skipped = [n for b in sorted({str(t.metadata.get("benchmark")) for r in side.runs for t in r.tasks.values()})
               for n in skipped_rows_notes(side.runs, b)]
    if skipped:
        out.append("<ul class='notes skipped'>" + "".join(f"<li>{e(n)}</li>" for n in skipped) + "</ul>")
    plugin = ""
    if site is not None:
        views = [x.view for x in site.entries if x.side == side.index and x.view is not None]
        plugin = _sections(site.plugins.run_sections(RunView(side.label, tuple(side.runs), tuple(views))))
    out.append(_heatmap(side.runs) + _reports(side) + plugin + "</section>")
    return "".join(out)


def _score_values(entry: Entry) -> tuple[Any, ...]:
    """What a sample scored: its outcome, finer kind, and every per-sample metric value lmms-eval logged that is not the
    record (numbers, e.g. a task's plain accuracy); the record itself enters through the outcome and kind."""
    plain = sorted((k, v) for k, v in entry.sample.items() if k not in LOG_KEYS and not isinstance(v, (dict, list)))
    return (entry.outcome, entry.kind, tuple((k, _fmt(v)) for k, v in plain))


def _diff(site: Site) -> tuple[list[list[Any]], str]:
    """Per-sample pairs of sides 0 and 1 (same task, same doc id) and the table of metric differences.

    Each pair is ``[number in run 1, number in run 2, outcome change, response changed (0/1), score changed (0/1)]``:
    responses and scores are counted apart (every response may differ while no score does, and the reverse)."""
    a = {(x.task, x.sample.get("doc_id")): x for x in site.entries if x.side == 0}
    b = {(x.task, x.sample.get("doc_id")): x for x in site.entries if x.side == 1}
    pairs = []
    for key in sorted(set(a) & set(b), key=lambda k: (k[0], k[1] if isinstance(k[1], int) else -1)):
        x, y = a[key], b[key]
        change = ("fixed" if x.outcome != "correct" and y.outcome == "correct" else
                  "broken" if x.outcome == "correct" and y.outcome != "correct" else
                  "same" if x.outcome == y.outcome else "changed")
        multi = x.benchmark == "sphinx_sim"
        response_changed = responses(x.sample, multi_round=multi) != responses(y.sample, multi_round=multi)
        score_changed = _score_values(x) != _score_values(y)
        pairs.append([x.number, y.number, change, int(response_changed), int(score_changed)])
    counts = diff_counts(pairs)
    summary = (f"{counts['pairs']} samples in both runs: responses changed {counts['responses_changed']}, "
               f"scores changed {counts['scores_changed']}; outcomes: fixed {counts['fixed']}, broken {counts['broken']}, "
               f"changed otherwise {counts['changed']}, same {counts['same']}")
    table = (f"<h2>Differences: run 1 - run 2</h2><p id='diff-summary'>{e(summary)}</p>" + _diff_table(site))
    return pairs, table


def _side_tasks(site: Site, side: int) -> dict[str, Any]:
    """One side's logged samples per task, as ``gui-eval compare`` reads a run (``gui_tasks.compare.TaskSamples``)."""
    from gui_tasks.compare import TaskSamples, _doc_key

    out: dict[str, TaskSamples] = {}
    for x in site.entries:
        if x.side != side:
            continue
        if x.task not in out:
            res = x.run.tasks.get(x.task)
            config = res.config if res is not None else {}
            metrics = [str(m.get("metric")) for m in config.get("metric_list") or [] if isinstance(m, dict)]
            out[x.task] = TaskSamples(x.task, {}, config.get("cluster_key"), metrics)
        out[x.task].samples[_doc_key(x.sample)] = x.sample
    return out


def _diff_table(site: Site) -> str:
    """The paired comparison of ``gui-eval compare RUN1 RUN2`` (run 1 as A, run 2 as B: one sign convention, A - B, in
    compare, the viewer and the reports): per metric and slice, the difference, its 95% interval (paired cluster
    bootstrap), the McNemar or permutation p-value and the Holm-adjusted one."""
    from gui_tasks.compare import compare_tasks

    c = compare_tasks(_side_tasks(site, 0), _side_tasks(site, 1), "run 1", "run 2")
    head = ("task", "metric", "slice", "n", "run 1", "run 2", "run 1 - run 2", "95% CI", "test", "p", f"p ({c.correction})")
    def size(r: Any) -> tuple[bool, float]:  # the largest change first; an undefined difference (NaN) last
        d = r.diff if isinstance(r.diff, (int, float)) else math.nan
        return (math.isnan(d), -abs(d) if not math.isnan(d) else 0.0)

    rows = []
    for r in sorted(c.rows, key=size):
        cells = [r.task, r.metric, r.slice, str(r.n), _fmt(r.a), _fmt(r.b), _fmt(r.diff), f"[{_fmt(r.low)}, {_fmt(r.high)}]",
                 r.test, _fmt(r.p_value), _fmt(r.p_adjusted) + (" *" if r.significant else "")]
        rows.append("<tr" + (" class='significant'" if r.significant else "") + ">"
                    + "".join(("<td class='num'>" if i >= 3 else "<td>") + f"{e(x)}</td>" for i, x in enumerate(cells)) + "</tr>")
    note = (f"95% CI: paired bootstrap over the task's clusters ({c.resamples} resamples, seed {c.seed}); p: exact McNemar "
            f"for 0/1 scores, else paired permutation; adjusted for {len(c.rows)} tests ({c.correction}); * adjusted p < 0.05 "
            "(docs/statistics.md).")
    return ("<table class='diff'><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>" + "".join(rows)
            + f"</table><p class='diff-note'>{e(note)}</p>")


def diff_counts(pairs: Sequence[Sequence[Any]]) -> dict[str, int]:
    """Counts of a diff's pairs (:func:`_diff`): each outcome change, and responses and scores changed, separately."""
    counts = {"pairs": len(pairs), "fixed": 0, "broken": 0, "changed": 0, "same": 0,
              "responses_changed": sum(int(p[3]) for p in pairs), "scores_changed": sum(int(p[4]) for p in pairs)}
    for p in pairs:
        counts[p[2]] += 1
    return counts


def _index_data(site: Site) -> dict[str, Any]:
    """The compact index: value tables and one short row per sample (columns named in ``cols``)."""
    tables: dict[str, list[str]] = {"task": [], "lang": [], "group": [], "kind": []}
    pos: dict[str, dict[str, int]] = {k: {} for k in tables}

    def ref(col: str, value: str) -> int:
        if value not in pos[col]:
            pos[col][value] = len(tables[col])
            tables[col].append(value)
        return pos[col][value]

    rows = []
    for x in site.entries:
        # the response first (the list shows the start of this text), then the item id and the prompt (searched)
        text = " | ".join([" ".join(responses(x.sample))[:TEXT_CHARS], str((x.doc or {}).get("id", x.record.get("id", ""))),
                           str(x.sample.get("input", ""))[:TEXT_CHARS]])
        rows.append([x.side, ref("task", x.task), x.sample.get("doc_id"), ref("lang", x.lang), ref("group", x.group),
                     OUTCOMES.index(x.outcome), ref("kind", x.kind), text])
    return {"cols": ["side", "task", "doc_id", "lang", "group", "outcome", "kind", "text"],
            "sides": [s.label for s in site.sides], "outcomes": list(OUTCOMES), **tables, "rows": rows}


def _list_section(with_diff: bool) -> str:
    selects = "".join(f"<label>{e(t)} <select id='f-{k}'><option value=''>all</option></select></label>"
                      for k, t in (("side", "run"), ("task", "task"), ("lang", "language"), ("group", "dimension / sub-task"),
                                   ("outcome", "outcome"), ("kind", "type")))
    diff = ("<label>diff <select id='f-diff'><option value=''>all</option><option>fixed</option><option>broken</option>"
            "<option>changed</option><option>same</option><option value='response'>response changed</option>"
            "<option value='score'>score changed</option></select></label>") if with_diff else ""
    return ("<section id='samples'><h2>Samples</h2><form id='filters'>" + selects + diff
            + "<label>text <input id='f-text' type='search' placeholder='prompt, response, id'></label>"
            + "<label>sort <select id='f-sort'><option value='task'>task, doc id</option><option value='outcome'>outcome"
            + "</option></select></label></form><p id='count'></p><table id='list'><thead><tr><th>#</th><th>run</th>"
            + "<th>task</th><th>doc</th><th>lang</th><th>group</th><th>outcome</th><th>type</th><th>response | id | prompt</th></tr></thead>"
            + "<tbody></tbody></table><p id='pager'><button id='prev' type='button'>&larr;</button> <span id='page'></span> "
            + "<button id='next' type='button'>&rarr;</button></p></section>")


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
               images: str = "thumbs", plugins: ViewerPlugins | None = None) -> Site:
    """Write the whole viewer for ``run_dirs`` into a new folder and move it to ``out``; returns what was written.
    ``images``: how screenshots enter the site (``gui_tasks.viewer.images.IMAGE_MODES``); ``plugins``: the viewer
    plugins (default: every installed one, entry-point group ``gui_viewer``)."""
    ImageStore(Path(out), images)  # an unknown mode fails before anything is read or written
    out = Path(out).absolute()
    _check_out(out)
    sides, entries, notes = collect(run_dirs, rebuild_docs=rebuild_docs)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        site = _build_into(tmp, sides, entries, notes, images, plugins if plugins is not None else ViewerPlugins())
        os.chmod(tmp, 0o755)
        _check_out(out)
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    site.out = out
    return site


def _build_into(out: Path, sides: list[Side], entries: list[Entry], notes: list[str], images: str = "thumbs",
                plugins: ViewerPlugins | None = None) -> Site:
    """Every file of the site under ``out``, a folder this process just created (nothing in it but what it writes)."""
    site = Site(out, sides, entries, notes, image_roots=_image_roots(sides), images_mode=images, plugins=plugins)
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
    for x in entries:
        if x.benchmark == "star_agentic" and x.doc is not None:
            site.episodes.setdefault((x.side, x.task, str(x.doc.get("episode_id"))), []).append(x)
    for steps in site.episodes.values():
        steps.sort(key=lambda x: int(x.doc.get("step") or 0))
    if len(sides) == 2:
        first = {(x.task, x.sample.get("doc_id")): x for x in entries if x.side == 0}
        for y in entries:
            x = first.get((y.task, y.sample.get("doc_id"))) if y.side == 1 else None
            if x is not None:
                site.twins[x.number], site.twins[y.number] = y, x
    for i, entry in enumerate(entries):
        write_sample_page(site, entry, i - 1 if i > 0 else None, i + 1 if i + 1 < len(entries) else None)
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
    args = ap.parse_args(argv)
    from gui_tasks.leaderboard import _quiet_lmms_eval

    _quiet_lmms_eval()
    t0 = time.perf_counter()
    try:
        site = build_site(args.run_dirs, args.out, rebuild_docs=not args.no_docs, images=args.images)
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
