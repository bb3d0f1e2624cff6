"""The viewer's model: the runs given (``Side``), one entry per logged sample (``Entry``), the site being written
(``Site``), reading them (``collect``), and how images and their overlays are shown (stored copies, SVG figures).
Every run-supplied text is escaped with :func:`e`."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gui_core.errors import DataError
from gui_tasks.runs.results_io import RunResults, find_result_files, load_results
from gui_tasks.viewer.images import IMAGE_SUFFIXES, ImageStore, Shown, image_size, inside
from gui_core.viewing import SampleFacts, SampleView, Shape
from gui_tasks.viewer.plugins import ViewerPlugins, builtin
from gui_tasks.viewer.progress import MAX_SAMPLES, read_samples
from gui_tasks.viewer.sent import sent_images
from gui_tasks.viewer.records import facets, outcome, sample_record


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
    view: SampleView | None = None  # the plugin hooks' payload, made before the pages are written
    facts: SampleFacts = SampleFacts()  # how its benchmark reads it (gui_viewer_sample_facts)
    viewing: str | None = None  # its benchmark's viewing module (gui_tasks.viewer.plugins.ViewerPlugins.viewing_of)


@dataclass
class Site:
    out: Path
    sides: list[Side]
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    images: dict[str, Shown] = field(default_factory=dict)  # path -> as shown
    episodes: dict[tuple[int, str, str], list[Entry]] = field(default_factory=dict)  # steps by (side, task, episode)
    twins: dict[int, Entry] = field(default_factory=dict)  # two runs: sample number -> the other run's same sample
    image_roots: list[Path] = field(default_factory=list)  # where images named by a samples file may be copied from
    images_mode: str = "thumbs"  # gui_tasks.viewer.images.IMAGE_MODES
    store: ImageStore = None  # type: ignore[assignment]  # made from out and images_mode
    task_folders: dict[str, Path | None] = field(default_factory=dict)  # task -> its YAML's folder
    plugins: ViewerPlugins = None  # type: ignore[assignment]  # the installed viewer plugins (gui_tasks.viewer.plugins)
    say: Any = None  # told the progress while pages are written (gui_tasks.viewer.progress.Progress)

    def __post_init__(self) -> None:
        if self.store is None:
            self.store = ImageStore(self.out, self.images_mode)
        if self.plugins is None:
            self.plugins = ViewerPlugins(load_entry_points=False)


# --- reading ----------------------------------------------------------------------------------------------
def _docs(task: str, notes: list[str], cache: dict[str, list[dict[str, Any]] | None]) -> list[dict[str, Any]] | None:
    """The task's documents rebuilt by the installed lmms-eval task (as ``gui-eval submit`` does), or None."""
    if task not in cache:
        from gui_tasks.harness.rescore import load_task, task_docs

        try:
            cache[task] = task_docs(load_task(task))
        except Exception as exc:  # not installed here, data missing: the samples are shown without documents
            notes.append(f"{task}: documents not rebuilt ({exc.__class__.__name__}: {exc}); shown from the samples file only")
            cache[task] = None
    return cache[task]


def collect(run_dirs: Sequence[str | Path | Sequence[Path]], *, rebuild_docs: bool = True,
            plugins: ViewerPlugins | None = None, max_samples: int = MAX_SAMPLES,
            say: Any = None) -> tuple[list[Side], list[Entry], list[str]]:
    """Every results file under each RUN_DIR (a folder, a results file, or a list of them: one side each), every logged
    sample with its document and record, read as its benchmark's viewing module says (``plugins``: by default the
    benchmarks' own): the first ``max_samples`` of a task (0: all; ``gui_tasks.viewer.progress``), ``say`` told as
    they are read."""
    plugins = plugins or builtin()
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
                    samples = read_samples(run, name, notes, max_samples, say)
                except DataError as exc:
                    notes.append(f"{run.path.name} {name}: {exc}")
                    continue
                docs = _docs(name, notes, docs_cache) if rebuild_docs else None
                bench = str(res.metadata.get("benchmark", ""))
                viewing = plugins.viewing_of(res.metadata)
                for s in sorted(samples, key=lambda s: s.get("doc_id") if isinstance(s.get("doc_id"), int) else -1):
                    doc_id = s.get("doc_id")
                    doc = docs[doc_id] if docs is not None and isinstance(doc_id, int) and 0 <= doc_id < len(docs) else None
                    facts = SampleFacts()
                    try:
                        rec = sample_record(s)
                        facts = plugins.sample_facts(viewing, bench, rec, doc, res.metadata, f"{name} doc {doc_id!r}")
                        out, kind = outcome(bench, rec, facts)
                        lang, group = facets(doc, rec, res.metadata, facts)
                    except Exception as exc:  # noqa: BLE001 - a malformed record is a note on its sample, not a lost site
                        rec = {"viewer_note": f"record not readable: {type(exc).__name__}: {str(exc)[:300]}"}
                        out, kind, lang, group = "unscored", "", "", ""
                        notes.append(f"{run.path.name} {name} doc {doc_id!r}: record not readable ({type(exc).__name__})")
                    entries.append(Entry(i, run, name, bench, s, doc, rec, out, kind, lang, group,
                                         sent=sent.get((name, doc_id), []) if isinstance(doc_id, int) else [],
                                         facts=facts, viewing=viewing))
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
