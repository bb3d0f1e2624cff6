"""One page per sample: its document, the response and record, the images with their overlays, what interventions
sent, the episode or trajectory it belongs to, and the other run's same sample when two runs are compared."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from gui_core.viewing import Figure, SampleView, Section, Shape, Table, Trajectory
from gui_tasks.viewer.images import image_size
from gui_tasks.viewer.records import responses
from gui_tasks.viewer.site_model import (e, Entry, _figure, _head, Site)


# --- pages ------------------------------------------------------------------------------------------------
def _kv(rows: Iterable[tuple[str, Any]]) -> str:
    return "<table class='kv'>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows) + "</table>"


def _pre(text: Any, cls: str = "") -> str:
    return f"<pre class='{cls}'>{e(text)}</pre>"


def _reasoning(sample: Mapping[str, Any]) -> str:
    """A thinking model's reasoning, folded (a ``<details>`` block): its length in tokens, whether its budget cut it,
    and its text (from the raw response lmms-eval logged, ``resps``; the scored answer follows it)."""
    from gui_core.reasoning import REASONING_KEY, note_from_logged, split_reasoning

    record = sample.get(REASONING_KEY)
    note = note_from_logged(record)
    if note is None:
        return ""
    raw = sample.get("resps", sample.get("filtered_resps"))
    while isinstance(raw, list) and raw:
        raw = raw[0]
    text = "" if raw is None else str(raw)
    split = split_reasoning(text, note.tags)
    shown = split.reasoning if split.reasoning else (text if note.truncated else "")
    tokens = "length unknown" if note.reasoning_tokens is None else f"{note.reasoning_tokens} tokens"
    cut = ", cut by its budget (thinking_truncated: no answer)" if note.truncated else ""
    summary = f"Reasoning (thinking={note.thinking or 'default'}, {tokens}{cut})"
    return f"<details class='reasoning'><summary>{e(summary)}</summary>{_pre(shown, 'reasoning')}</details>"


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
    """Width and height of the image a sample's overlays are drawn on (the size its benchmark declares,
    ``SampleFacts.image_size``, else the first image's), or None."""
    from gui_tasks.viewer.images import document_image_pixels

    doc = entry.doc
    if doc is not None and entry.facts.image_size is not None:
        return entry.facts.image_size
    try:
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


def sample_view(site: Site, entry: Entry, episode: Sequence[SampleView] = ()) -> SampleView:
    """The payload plugin hooks get for one sample (``episode``: the list its episode's views are put in)."""
    size = entry.facts.image_size if entry.doc is not None else None
    return SampleView(entry.task, entry.benchmark, entry.sample.get("doc_id"), entry.doc, entry.record, entry.sample,
                      tuple(responses(entry.sample, multi_round=entry.facts.multi_round)), entry.outcome,
                      size if size is not None or not site.plugins.names else _main_image_size(site, entry),  # a header
                      site.sides[entry.side].label if site.sides else "", entry.number, episode)  # read: for plugins only


def _sections(sections: Sequence[tuple[str, Section]]) -> str:
    """Plugin sections: title, preformatted text, key-value rows; all escaped; each names its plugin."""
    return "".join(f"<section class='plugin' data-plugin='{e(name)}'><h2>{e(sec.title)}</h2>"
                   + (_pre(sec.text, "plugin") if sec.text else "") + (_kv(sec.rows) if sec.rows else "") + "</section>"
                   for name, sec in sections)


def _block(site: Site, entry: Entry, block: Figure | Trajectory | Table, shapes: Sequence[Shape]) -> str:
    """One block a benchmark's viewing module (or a plugin) gave for a sample page (``gui_core.viewing``)."""
    if isinstance(block, Figure):
        return _value_figure(site, entry, block.image, shapes, block.caption, block.size)
    if isinstance(block, Trajectory):
        return _trajectory(site, entry, block)
    return table_html(block)


def _sample_body(site: Site, entry: Entry) -> str:
    doc, rec = entry.doc, entry.record
    view = entry.view if entry.view is not None else sample_view(site, entry)
    media = site.plugins.sample_media(entry.viewing, view)  # the benchmark's main image or trajectory, and more
    extra = site.plugins.overlays(view, entry.viewing)  # overlays: on the main image, in its original pixels
    parts = []
    if media:
        parts += [_block(site, entry, b, extra if i == 0 else []) for i, b in enumerate(media)]
    else:
        parts.append(_document_images(site, entry, extra))
    if entry.sent:  # side by side: the original (the main figure) and what the interventions sent
        parts[0] = (f"<div class='compare'><section class='original'><h3>Original</h3>{parts[0]}</section>"
                    f"{_sent_section(site, entry)}</div>")
    parts.append("<h2>Score</h2>" + _pre(_why(entry), "why"))
    parts.append(_sections(site.plugins.sample_sections(view)))
    parts.append("<h2>Prompt sent</h2>" + _pre(entry.sample.get("input", "")))
    outs = list(view.responses)
    parts.append(_reasoning(entry.sample))
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
        from gui_tasks.harness.rescore import yaml_folder

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


def table_html(t: Table) -> str:
    """A :class:`gui_core.viewing.Table`: heading, text, cells (escaped; a cell's link is a sample page, its shade a
    percentage coloured red to green), notes."""
    def cell(c: Any) -> str:
        cls = f" class='{e(c.cls)}'" if c.cls else ""
        shade = c.shade if isinstance(c.shade, (int, float)) and not math.isnan(c.shade) else None
        style = "" if shade is None else f" style='background:hsl({1.2 * shade:.0f},70%,{85 - 0.2 * shade:.0f}%)'"
        text = f"<a href='{int(c.link)}.html'>{e(c.text)}</a>" if c.link is not None else e(c.text)
        return f"<td{cls}{style}>{text}</td>"

    level = 3 if t.level == 3 else 2
    rows = "".join(f"<tr{f' class={chr(39)}{e(r.cls)}{chr(39)}' if r.cls else ''}>" + "".join(cell(c) for c in r.cells)
                   + "</tr>" for r in t.rows)
    notes = "".join(f"<li>{e(n)}</li>" for n in t.notes)
    return (f"<h{level}>{e(t.title)}</h{level}>" + (_pre(t.text) if t.text is not None else "")
            + f"<table class='{e(t.cls)}'><tr>" + "".join(f"<th>{e(h)}</th>" for h in t.head) + "</tr>" + rows + "</table>"
            + (f"<ul class='notes'>{notes}</ul>" if notes else ""))


def _trajectory(site: Site, entry: Entry, traj: Trajectory) -> str:
    """A replayed episode: each screen written under ``traj/``, the action drawn on it, the output and parsed action."""
    if not (site.out / "traj").is_dir():
        (site.out / "traj").mkdir()
    out = [f"<h2>{e(traj.title)}</h2><ol class='steps' start='0'>"]
    for v in traj.steps:
        rel = f"traj/{entry.number}_{int(v.index)}.png"
        v.image.convert("RGB").save(site.out / rel, optimize=False)
        out.append(f"<li class='step' data-step='{int(v.index)}'>"
                   + _figure(site, None, v.shapes, v.caption, v.image.size, src=rel)
                   + ("" if v.final else "<h3>Output</h3>" + _pre(v.output, "response")
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
    outs = responses(other.sample, multi_round=other.facts.multi_round)
    return (f"<aside class='twin'><p>Run {other.side + 1} ({e(site.sides[other.side].label)}) on this sample: "
            f"<span class='outcome {e(other.outcome)}'>{e(other.outcome)}</span> {e(other.kind)} "
            f"<a href='{other.number}.html'>its page</a></p>{''.join(_pre(o, 'response twin') for o in outs)}</aside>")
