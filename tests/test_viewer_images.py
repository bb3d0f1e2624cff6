"""The viewer's images, diff counts and plugin hooks on small hand-made runs (lmms-eval's file layout, no model).

Thumbnails with the full image one click away; the image interventions sent (``gui_interventions.sent_images``,
recorded by ``InterventionRun``) beside the original; images held in documents (PIL pixels, Hugging Face bytes,
paths relative to the task's folder) and a clear note when a sample has none; a diff that counts changed responses
and changed scores apart; ``gui_viewer`` plugins drawing on the image and adding sections, a broken one named and
skipped. The browser tests at the end open the pages in headless Chromium and click through to the full image.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from PIL import Image

from gui_interventions import RequestContext, hookimpl
from gui_interventions.manager import InterventionRun
from gui_interventions.sent_images import default_folder
from gui_core.pixels import pixels_sha256

MODEL_ARGS = "pretrained=tiny,interventions=blind"


def _screenshot(path: Path, size=(1080, 2400), colour=(30, 120, 200)) -> Path:
    im = Image.new("RGB", size, colour)
    im.paste((250, 250, 250), (100, 200, 600, 500))
    im.save(path, quality=90)
    return path


def _run(root: Path, task: str, lines: list[dict], model_args: str = MODEL_ARGS, benchmark: str = "acme") -> Path:
    """A results file and a samples file as lmms-eval writes them under ``root/model``."""
    d = root / "model"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"2026-01-01T00-00-00_samples_{task}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = {"results": {task: {"alias": task, "acc,none": 0.5}}, "configs": {task: {"metadata": {"benchmark": benchmark}}},
           "versions": {task: 1}, "n-samples": {task: {"original": len(lines), "effective": len(lines)}},
           "config": {"model": "gui_hf", "model_args": model_args}}
    (d / "2026-01-01T00-00-00_results.json").write_text(json.dumps(res))
    return root


def _line(doc_id: int, response: str, correct: bool, media: list[str] = ()) -> dict:
    rec = {"status": "parsed", "pred": response, "correct": correct}
    return {"doc_id": doc_id, "doc": {}, "target": "A", "arguments": [f"q{doc_id}"], "resps": [[response]],
            "filtered_resps": [response], "input": f"q{doc_id}", "acc": rec, **({"input_media": list(media)} if media else {})}


# --- sent images: recorded where interventions run -------------------------------------------------------------
class Blank:
    """An intervention that blanks every image (as ``blind`` does), registered directly."""

    @hookimpl
    def gui_intervention_request(self, request):
        return request.with_(images=tuple(Image.new(im.mode, im.size, (0, 0, 0)) for im in request.images))


class Prompt:
    @hookimpl
    def gui_intervention_request(self, request):
        return request.with_(text=request.text + " Think.")


def _request(images, doc_id=0) -> RequestContext:
    return RequestContext(text="q", images=tuple(images), doc_id=doc_id, task="acme_task", gen_kwargs={})


def test_the_image_an_intervention_changed_is_stored_once_by_its_pixels(tmp_path):
    shot = Image.new("RGB", (40, 80), (10, 200, 30))
    run = InterventionRun([("blank", Blank())], sent_images=tmp_path / "sent")
    out = [run.request(_request([shot], doc_id=i)) for i in range(3)]
    logs = list((tmp_path / "sent").glob("*.jsonl"))
    assert len(logs) == 1
    header, *rows = [json.loads(x) for x in logs[0].read_text().splitlines()]
    assert header["kind"] == "header" and header["interventions"] == ["blank"]
    assert [(r["task"], r["doc_id"], r["pass"], r["round"]) for r in rows] == [("acme_task", i, "request", 0) for i in range(3)]
    digest = pixels_sha256(out[0].images[0])
    assert all(r["images"] == [{"sha256": digest, "file": f"img/{digest}.png", "width": 40, "height": 80, "mode": "RGB"}]
               for r in rows)
    [png] = (tmp_path / "sent" / "img").iterdir()  # three requests, the same blank pixels: one file
    with Image.open(png) as im:
        assert im.size == (40, 80) and im.getcolors() == [(40 * 80, (0, 0, 0))]


def test_requests_whose_images_no_intervention_changed_write_nothing(tmp_path):
    shot = Image.new("RGB", (40, 80))
    run = InterventionRun([("prompt", Prompt())], sent_images=tmp_path / "sent")
    assert run.request(_request([shot])).text == "q Think."
    assert not (tmp_path / "sent").exists()
    assert InterventionRun([], sent_images=tmp_path / "sent").sent_images is None  # no intervention: nothing recorded


def test_removed_images_and_the_second_pass_are_recorded(tmp_path):
    class Remove:
        @hookimpl
        def gui_intervention_request(self, request):
            return request.with_(images=())

    run = InterventionRun([("remove", Remove())], sent_images=tmp_path / "sent")
    req = run.request(_request([Image.new("RGB", (4, 4))]))
    crop = Image.new("RGB", (2, 2), (255, 0, 0))
    run.pm.hook  # the response stage's re-run (a crop's second pass) goes through the run's wrapper
    from gui_interventions import ResponseContext

    class Again:
        @hookimpl
        def gui_intervention_response(self, response):
            return response.rerun(response.request.with_(images=(crop,)))

    run2 = InterventionRun([("again", Again())], sent_images=tmp_path / "sent2")
    assert run2.response(ResponseContext(text="x", request=req, rerun=lambda r: "second")) == "second"
    [row] = [json.loads(x) for x in next((tmp_path / "sent").glob("*.jsonl")).read_text().splitlines()][1:]
    assert row["images"] == [] and row["removed"] == 1
    [row2] = [json.loads(x) for x in next((tmp_path / "sent2").glob("*.jsonl")).read_text().splitlines()][1:]
    assert row2["pass"] == "rerun-1" and row2["images"][0]["width"] == 2


def test_sent_images_folder_comes_from_the_environment_or_the_lmms_eval_command_line(tmp_path):
    cli = ["/x/.venv/bin/lmms-eval", "--model", "gui_hf", "--output_path", str(tmp_path / "runs"), "--log_samples"]
    assert default_folder(cli, {}) == tmp_path / "runs" / "sent_images"
    assert default_folder(["/x/lmms_eval/__main__.py", f"--output_path={tmp_path}/r"], {}) == tmp_path / "r" / "sent_images"
    assert default_folder(["pytest", "--output_path", "x"], {}) is None  # not the lmms-eval command line
    assert default_folder(cli, {"GUI_EVAL_SENT_IMAGES": str(tmp_path / "e")}) == tmp_path / "e"
    assert default_folder(cli, {"GUI_EVAL_SENT_IMAGES": "off"}) is None


# --- the site ----------------------------------------------------------------------------------------------------
def _page(site: Path, n: int) -> str:
    return (site / "s" / f"{n}.html").read_text(encoding="utf-8")


@pytest.fixture()
def blind_run(tmp_path):
    """Two samples with 1080x2400 screenshots in the run folder; sample 0's image was blanked by an intervention."""
    root = tmp_path / "run"
    (root / "shots").mkdir(parents=True)
    shots = [_screenshot(root / "shots" / f"s{i}.jpg", colour=(30, 60 * i, 200)) for i in range(2)]
    _run(root, "acme_task", [_line(i, "A", True, [str(shots[i])]) for i in range(2)])
    sent = InterventionRun([("blank", Blank())], sent_images=root / "sent_images", )
    sent.sent_images.argv = ["lmms-eval", "--model_args", MODEL_ARGS]
    with Image.open(shots[0]) as im:
        sent.request(_request([im.convert("RGB")], doc_id=0))
    return root, shots


def test_thumbnails_by_default_with_the_full_image_a_click_away(blind_run, tmp_path):
    from gui_tasks.viewer.images import THUMB_PX
    from gui_tasks.viewer.site import build_site

    root, shots = blind_run
    build_site([root], tmp_path / "site", rebuild_docs=False)
    page = _page(tmp_path / "site", 1)
    src = re.search(r'<img class="thumb" src="\.\./(img/[0-9a-f]{32}\.t\.jpg)" width="1080" height="2400"', page).group(1)
    with Image.open(tmp_path / "site" / src) as im:
        assert im.size == (THUMB_PX * 1080 // 2400, THUMB_PX)
    assert f'<a class="full" href="{shots[1].resolve().as_uri()}">' in page  # the original file, nothing copied
    assert sum(p.stat().st_size for p in (tmp_path / "site" / "img").iterdir()) < shots[1].stat().st_size


def test_copy_mode_copies_each_distinct_image_once_and_links_mode_none(blind_run, tmp_path):
    from gui_tasks.viewer.site import build_site

    root, shots = blind_run
    build_site([root], tmp_path / "copy", rebuild_docs=False, images="copy")
    copied = sorted(p.read_bytes() for p in (tmp_path / "copy" / "img").iterdir() if p.suffix == ".jpg")
    assert copied == sorted([shots[0].read_bytes(), shots[1].read_bytes()])
    build_site([root], tmp_path / "links", rebuild_docs=False, images="links")
    assert f'src="{shots[0].resolve().as_uri()}"' in _page(tmp_path / "links", 0)
    assert not [p for p in (tmp_path / "links" / "img").iterdir() if p.suffix == ".jpg"]
    with pytest.raises(ValueError, match="images mode 'big'"):
        build_site([root], tmp_path / "bad", rebuild_docs=False, images="big")


def test_the_sent_image_is_shown_next_to_the_original(blind_run, tmp_path):
    from gui_tasks.viewer.site import build_site

    root, _ = blind_run
    site = build_site([root], tmp_path / "site", rebuild_docs=False)
    page = _page(tmp_path / "site", 0)
    assert "Images sent to the model (after interventions)" in page
    full = re.search(r'<figure class="shot sent" data-role="sent".*?<a class="full" href="file://([^"]+)"', page).group(1)
    assert Path(full).parent == (root / "sent_images" / "img").resolve()  # the run's stored copy, linked, not copied
    with Image.open(full) as im:  # the blanked pixels, full size
        assert im.size == (1080, 2400) and im.getcolors() == [(1080 * 2400, (0, 0, 0))]
    assert "sent: request, image 1" in page
    assert "Images sent to the model" not in _page(tmp_path / "site", 1)  # no intervention changed sample 1
    assert not [n for n in site.notes if "sent images" in n]
    # a log of another command (other model args) in the same folder is not this run's
    other = tmp_path / "other"
    _run(other, "acme_task", [_line(0, "A", True)], model_args="pretrained=tiny")
    (other / "sent_images").mkdir()
    for f in (root / "sent_images").iterdir():
        if f.suffix == ".jsonl":
            (other / "sent_images" / f.name).write_text(f.read_text())
    build_site([other], tmp_path / "site2", rebuild_docs=False)
    assert "Images sent to the model" not in _page(tmp_path / "site2", 0)


def test_a_sent_image_log_pointing_outside_its_folder_is_skipped_with_a_note(blind_run, tmp_path):
    from gui_tasks.viewer.site import build_site

    root, _ = blind_run
    log = next((root / "sent_images").glob("*.jsonl"))
    head, row = log.read_text().splitlines()
    row = json.loads(row)
    row["images"][0]["file"] = "img/" + "0" * 64 + ".png"
    (root / "sent_images" / "img" / ("0" * 64 + ".png")).symlink_to(tmp_path / "secret.png")
    Image.new("RGB", (3, 3)).save(tmp_path / "secret.png")
    log.write_text(head + "\n" + json.dumps(row) + "\n" + "{not json\n")
    site = build_site([root], tmp_path / "site", rebuild_docs=False)
    assert any("leaves the sent_images folder" in n for n in site.notes)
    assert "Images sent to the model" not in _page(tmp_path / "site", 0)


def test_images_held_in_documents_and_a_note_when_there_is_none(tmp_path, monkeypatch):
    from gui_tasks.viewer import sample_pages, site_model  # where the reading and the sample pages live
    from gui_tasks.viewer import site as site_mod

    folder = tmp_path / "task_folder"
    (folder / "screens").mkdir(parents=True)
    _screenshot(folder / "screens" / "rel.png", size=(300, 200))
    pil = Image.new("RGB", (900, 1600), (200, 10, 10))
    import io

    buf = io.BytesIO()
    Image.new("RGB", (50, 60), (0, 0, 255)).save(buf, "PNG")
    docs = [{"id": "pil", "image": pil}, {"id": "hf-bytes", "images": [{"bytes": buf.getvalue(), "path": None}]},
            {"id": "relative", "images": ["screens/rel.png"]}, {"id": "text only", "question": "q"},
            {"id": "column", "screenshot": pil}]
    root = _run(tmp_path / "run", "acme_docs", [_line(i, "A", True) for i in range(len(docs))])
    monkeypatch.setattr(site_model, "_docs", lambda task, notes, cache: [dict(d) for d in docs])
    monkeypatch.setattr(sample_pages, "_task_folder", lambda task: folder)
    site_mod.build_site([root], tmp_path / "site")
    pages = [_page(tmp_path / "site", n) for n in range(len(docs))]

    def full_of(page):
        return tmp_path / "site" / re.search(r'<a class="full" href="\.\./(img/[^"]+)"', page).group(1)

    with Image.open(full_of(pages[0])) as im:  # PIL pixels: written once, full size, lossless
        assert im.size == (900, 1600) and pixels_sha256(im.convert("RGB")) == pixels_sha256(pil)
    assert re.search(r'<img class="thumb" src="\.\./img/[0-9a-f]{32}\.t\.jpg" width="900" height="1600"', pages[0])
    with Image.open(full_of(pages[1])) as im:
        assert im.size == (50, 60)
    with Image.open(full_of(pages[2])) as im:  # read from the task's folder
        assert im.size == (300, 200)
    assert "No image to show for this sample: its document has no image field" in pages[3]
    assert full_of(pages[4]) == full_of(pages[0])  # a dataset's own image column; the same pixels stored once
    assert "image 900x1600 RGB" in pages[4] and "object at 0x" not in "".join(pages)


def test_an_unreadable_document_image_is_named_not_silent(tmp_path, monkeypatch):
    from gui_tasks.viewer import sample_pages, site_model  # where the reading and the sample pages live
    from gui_tasks.viewer import site as site_mod

    docs = [{"id": "rel", "image": "screens/x.png"}, {"id": "junk", "images": [{"bytes": b"not an image"}]}]
    root = _run(tmp_path / "run", "acme_docs", [_line(i, "A", True) for i in range(2)])
    monkeypatch.setattr(site_model, "_docs", lambda task, notes, cache: [dict(d) for d in docs])
    monkeypatch.setattr(sample_pages, "_task_folder", lambda task: None)
    site_mod.build_site([root], tmp_path / "site")
    assert "relative image path &#x27;screens/x.png&#x27; and the task&#x27;s folder is unknown" in _page(tmp_path / "site", 0)
    assert "image bytes not decodable" in _page(tmp_path / "site", 1)


# --- diff: responses and scores counted apart --------------------------------------------------------------------
def test_diff_counts_changed_responses_and_changed_scores_separately(tmp_path):
    from gui_tasks.viewer.site import build_site, diff_counts

    a = _run(tmp_path / "a", "acme_task", [_line(0, "A", True), _line(1, "B", False), _line(2, "C", False)])
    b = _run(tmp_path / "b", "acme_task", [_line(0, "A.", True), _line(1, "B!", False), _line(2, "A", True)])
    site = build_site([a, b], tmp_path / "site", rebuild_docs=False)
    data = json.loads((tmp_path / "site" / "data" / "index.js").read_text().split("=", 1)[1].rstrip().rstrip(";"))
    counts = diff_counts(data["diff"])
    assert counts == {"pairs": 3, "fixed": 1, "broken": 0, "changed": 0, "same": 2, "responses_changed": 3,
                      "scores_changed": 1}
    assert ("3 samples in both runs: responses changed 3, scores changed 1; outcomes: fixed 1, broken 0, "
            "changed otherwise 0, same 2") in (tmp_path / "site" / "index.html").read_text()
    assert len(site.entries) == 6


# --- plugins: overlays and sections, a broken one named and skipped ----------------------------------------------
def _docs_example() -> str:
    """The viewer plugin of docs/plugins.md, as written there (the test installs exactly what the page shows)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    return re.search(r"```python\n# acme_view\.py\n(.*?)```", text, re.S).group(1)


GOOD_PLUGIN = _docs_example()
BROKEN_PLUGIN = '''
from gui_tasks.viewer.plugins import hookimpl


@hookimpl
def gui_viewer_overlays(sample):
    raise RuntimeError("overlay exploded")


@hookimpl
def gui_viewer_sample_sections(sample):
    return "not a list"


@hookimpl
def gui_viewer_overlay(sample):  # a typo: no such hook
    return []
'''


@pytest.fixture()
def viewer_plugins(tmp_path, monkeypatch):
    """Three installed viewer plugins (a fake distribution on sys.path): a good one, a broken one, one that fails to import."""
    from fake_dist import write_dist

    site = tmp_path / "site-packages"
    write_dist(site, "acme-view", {"acme_view": GOOD_PLUGIN}, "[gui_viewer]\nacme_view = acme_view\n")
    write_dist(site, "acme-broken-view", {"acme_broken_view": BROKEN_PLUGIN},
               "[gui_viewer]\nacme_broken_view = acme_broken_view\n")
    write_dist(site, "acme-noimport", {"acme_noimport": "import no_such_module_xyz\n"},
               "[gui_viewer]\nacme_noimport = acme_noimport\n")
    monkeypatch.syspath_prepend(str(site))
    yield
    for name in [m for m in sys.modules if m.startswith("acme_")]:
        del sys.modules[name]


def test_plugins_draw_on_the_image_and_add_sections_and_a_broken_one_is_named_and_skipped(viewer_plugins, blind_run,
                                                                                         tmp_path):
    from gui_tasks.viewer.site import build_site

    root, _ = blind_run
    site = build_site([root], tmp_path / "site", rebuild_docs=False)
    page = _page(tmp_path / "site", 0)
    assert '<rect class="ov ov-acme_band" data-role="acme_band" x="0" y="0" width="1080" height="240">' in page
    assert "<section class='plugin' data-plugin='acme_view'><h2>Acme: answer length</h2>" in page
    assert "<th>characters</th><td>1</td>" in page
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<h2>Acme: samples</h2><pre class='plugin'>2 samples</pre>" in index
    notes = "\n".join(site.notes)
    assert "viewer plugin 'acme_broken_view': gui_viewer_overlays failed on acme_task doc 0 (RuntimeError: overlay exploded)" \
        in notes
    assert "viewer plugin 'acme_broken_view': gui_viewer_sample_sections failed" in notes and "not a list" not in page
    assert "viewer plugin 'acme_noimport' (acme-noimport: acme_noimport) left out: failed to load: ModuleNotFoundError" in notes
    assert notes.count("acme_broken_view': gui_viewer_overlays") == 1  # named once, then skipped
    assert "viewer plugin 'acme_broken_view': gui_viewer_overlay is not a gui_viewer hook, never called" in notes
    assert "overlay exploded" in index


def test_plugin_sections_are_escaped():
    from gui_tasks.viewer.payloads import Section
    from gui_tasks.viewer.site import _sections

    html = _sections([("acme", Section("<i>t</i>", text="<script>x</script>", rows=[("<b>", "<img src=x onerror=y>")]))])
    assert "<script>" not in html and "<img" not in html and "<i>" not in html and "&lt;script&gt;" in html


# --- in the browser: thumbnails click through to the full image; the sent image; document pixels --------------------
def _browser_or_skip():
    from browser import missing

    why = missing()
    if why:
        pytest.skip(why)


@pytest.mark.slow
def test_thumbnail_click_opens_the_full_image_and_the_sent_image_shows(blind_run, tmp_path):
    _browser_or_skip()
    from browser import browser, console_errors

    from gui_tasks.viewer.site import build_site

    root, shots = blind_run
    build_site([root], tmp_path / "site", rebuild_docs=False)
    with browser() as d:
        d.get((tmp_path / "site" / "s" / "0.html").as_uri())
        assert console_errors(d) == []
        figs = d.find_elements("css selector", "figure.shot")
        assert len(figs) == 2 and "sent" in figs[1].get_attribute("class")
        for f in figs:
            img = f.find_element("css selector", "img")
            assert d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
        shown = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]",
                                 figs[0].find_element("css selector", "img"))
        assert shown[1] <= 602 and abs(shown[0] / shown[1] - 1080 / 2400) < 0.01  # the thumbnail (1 px border), aspect kept
        figs[0].find_element("css selector", "img").click()  # the thumbnail links to the original file
        assert d.current_url == shots[0].resolve().as_uri()
        assert d.execute_script("return [document.images[0].naturalWidth, document.images[0].naturalHeight]") == [1080, 2400]
        d.back()
        d.find_elements("css selector", "figure.shot")[1].find_element("css selector", "figcaption a.full").click()
        assert d.current_url.endswith(".png")  # the sent image, full size, inside the site
        assert d.execute_script("return [document.images[0].naturalWidth, document.images[0].naturalHeight]") == [1080, 2400]


@pytest.mark.slow
def test_document_pixels_show_in_the_browser_and_links_mode_loads_files(tmp_path, monkeypatch):
    _browser_or_skip()
    from browser import browser, console_errors

    from gui_tasks.viewer import site_model  # where the reading and the sample pages live
    from gui_tasks.viewer import site as site_mod

    pil = Image.new("RGB", (900, 1600), (200, 10, 10))
    root = _run(tmp_path / "run", "acme_docs", [_line(0, "A", True), _line(1, "A", True)])
    monkeypatch.setattr(site_model, "_docs", lambda task, notes, cache: [{"id": "pil", "image": pil}, {"id": "none"}])
    site_mod.build_site([root], tmp_path / "site")
    (tmp_path / "links_run").mkdir()
    shot = _screenshot(tmp_path / "links_run" / "shot.png", size=(700, 300))  # inside the run: a samples file's path
    links = _run(tmp_path / "links_run", "acme_task", [_line(0, "A", True, [str(shot)])])
    site_mod.build_site([links], tmp_path / "links", rebuild_docs=False, images="links")
    with browser() as d:
        d.get((tmp_path / "site" / "s" / "0.html").as_uri())
        img = d.find_element("css selector", "figure.shot img")
        assert d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
        assert console_errors(d) == []
        img.click()
        assert d.execute_script("return [document.images[0].naturalWidth, document.images[0].naturalHeight]") == [900, 1600]
        d.get((tmp_path / "site" / "s" / "1.html").as_uri())
        assert "No image to show for this sample" in d.find_element("css selector", "p.no-image").text
        d.get((tmp_path / "links" / "s" / "0.html").as_uri())  # links mode: the page shows the file in place
        img = d.find_element("css selector", "figure.shot img")
        assert d.execute_script("return arguments[0].naturalWidth", img) == 700
        assert console_errors(d) == []
