"""``gui-eval view``: outcomes and overlay geometry (fast), and the written site in real headless Chromium (slow).

The slow tests make one real lmms-eval run (gui_hf, tiny checkpoint; grounding, StaR, SPHINX simulator, MPR),
then a second run from it whose chosen samples carry known responses scored again by the installed tasks'
own ``process_results`` (``gui_tasks.harness.rescore``): a point inside the target, a StaR click, a SPHINX click, and
script-injection texts. The viewer writes both side by side; Chromium opens every page from ``file://``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_tasks.grounding.viewing import grounding_shapes
from gui_tasks.star.viewing import agentic_shapes, star_shapes
from gui_tasks.viewer.overlays import Shape
from gui_tasks.viewer.records import outcome, responses, sample_record

INJECTIONS = ("<script>window.__pwned = 1</script>", '<img src="x" onerror="window.__pwned = 2">',
              '<a id="evil" href="javascript:window.__pwned = 3">click</a>')


# --- fast: records and geometry ----------------------------------------------------------------------------
def test_outcome_reads_each_benchmarks_record():
    assert outcome("icon_localization", {"status": "parsed", "correct": False, "response_type": "biased"}) == ("wrong", "biased")
    assert outcome("screenspot_v2", {"status": "malformed", "correct": False, "response_type": "invalid"}) == \
        ("format_error", "invalid")
    assert outcome("mpr_gui", {"status": "parsed", "correct": True}) == ("correct", "")
    assert outcome("star_state_control", {"status": "parsed", "exact": False, "polarity": "negative"}) == ("wrong", "negative")
    assert outcome("sphinx_sim", {"satisfied": [True, True], "n_actions": 2, "format_errors": 0}) == ("correct", "2/2 evaluators")
    assert outcome("sphinx_sim", {"satisfied": [False], "n_actions": 0, "format_errors": 1}) == ("format_error", "format error")
    assert outcome("sphinx_sim", {"satisfied": [True, False], "n_actions": 3, "format_errors": 0}) == ("wrong", "1/2 evaluators")
    assert outcome("anything", {}) == ("unscored", "")


def test_sample_record_and_responses_from_a_logged_line():
    rec = {"status": "parsed", "correct": True}
    line = {"doc_id": 3, "target": "A", "filtered_resps": ["B"], "input": "q", "mcq_acc": rec, "fpr_acc": rec}
    assert sample_record(line) == rec and responses(line) == ["B"]
    rounds = ["click [1]", "press [stop]"]
    assert responses({"filtered_resps": [rounds]}, multi_round=True) == rounds
    assert responses({"filtered_resps": [str(tuple(rounds))]}, multi_round=True) == rounds
    assert responses({"filtered_resps": "('a', 'b')"}) == ["('a', 'b')"]  # single-round text stays as it is
    assert responses({"filtered_resps": None}) == [""]


def test_grounding_shapes_in_screenshot_pixels():
    doc = {"width": 640, "height": 400, "target_box": [100, 50, 140, 90], "other_boxes": [[0, 0, 10, 10]]}
    rec = {"point": [0.25, 0.5], "crop": {"window": [60, 20, 380, 220]}, "first": {"point": [0.2, 0.3]}}
    shapes = {s.role: s for s in grounding_shapes(doc, rec)}
    assert shapes["target"].xy == (100.0, 50.0, 140.0, 90.0)
    assert shapes["other"].xy == (0.0, 0.0, 10.0, 10.0)
    assert shapes["pred"].xy == pytest.approx((160.0, 200.0)) and shapes["pred"].label == "second pass"
    assert shapes["first_pred"].xy == pytest.approx((128.0, 120.0))
    assert shapes["crop_window"].xy == (60.0, 20.0, 380.0, 220.0)
    assert "pred" not in {s.role for s in grounding_shapes(doc, {"point": None})}
    assert "pred" not in {s.role for s in grounding_shapes(doc, {"point": [math.nan, 0.1]})}


def test_star_shapes_from_the_0_1000_grid():
    doc = {"image_width": 1080, "image_height": 2400, "toggle_box": [800, 100, 1000, 150],
           "gold": {"type": "CLICK", "point": [900, 125], "frame": "grid1000"}}
    shapes = {s.role: s for s in star_shapes(doc, {"pred_point": [500, 500], "pred_type": "CLICK"})}
    assert shapes["toggle_box"].xy == pytest.approx((864.0, 240.0, 1080.0, 360.0))
    assert shapes["gold"].xy == pytest.approx((972.0, 300.0))
    assert shapes["pred"].xy == pytest.approx((540.0, 1200.0)) and shapes["pred"].label == "CLICK"


def test_agentic_shapes_read_the_answer_in_the_frame_the_record_names():
    doc = {"image_width": 1000, "image_height": 2000, "boxes": [[100, 100, 300, 200]], "agent_family": "ui_tars_1_5",
           "gold": {"type": "CLICK", "point": [200, 150], "frame": "grid1000"}, "parser_reading": "schema"}
    # UI-TARS-1.5 answers in pixels of the image it saw: here 500 x 1000, so (100, 300) is (200, 600) on the screenshot
    rec = {"frame": "resized_px", "frame_source": "model_image_sizes", "model_size": [500, 1000]}
    shapes = {s.role: s for s in agentic_shapes(doc, rec, "Action: click(start_box='(100,300)')")}
    assert shapes["other"].xy == pytest.approx((100.0, 200.0, 300.0, 400.0))
    assert shapes["gold"].xy == pytest.approx((200.0, 300.0))
    assert shapes["pred"].xy == pytest.approx((200.0, 600.0))
    scroll = {s.role: s for s in agentic_shapes(doc, rec, "Action: scroll(direction='down')")}
    assert scroll["pred_scroll"].xy == pytest.approx((500.0, 1000.0, 500.0, 1500.0))
    assert "pred" not in {s.role for s in agentic_shapes(doc, rec, "no action here")}


def test_only_image_files_are_copied_into_the_site(tmp_path):
    from PIL import Image

    from gui_tasks.viewer.site import Site, _copy_image

    (tmp_path / "out" / "img").mkdir(parents=True)
    (tmp_path / "run").mkdir()
    site = Site(tmp_path / "out", [], image_roots=[(tmp_path / "run").resolve()])
    Image.new("RGB", (4, 3)).save(tmp_path / "run" / "a.png")
    Image.new("RGB", (4, 3)).save(tmp_path / "elsewhere.png")
    (tmp_path / "run" / "link.png").symlink_to(tmp_path / "elsewhere.png")
    assert _copy_image(site, str(tmp_path / "elsewhere.png")) is None  # a samples file's path outside the run
    assert _copy_image(site, str(tmp_path / "run" / "link.png")) is None  # ... also through a link inside it
    assert _copy_image(site, str(tmp_path / "elsewhere.png"), trusted=True).startswith("img/")  # a rebuilt document's
    (tmp_path / "a.png").symlink_to(tmp_path / "run" / "a.png")
    (tmp_path / "secret.txt").write_text("token")
    (tmp_path / "fake.png").write_text("not a png")
    assert _copy_image(site, str(tmp_path / "a.png")).startswith("img/")
    assert _copy_image(site, str(tmp_path / "secret.txt")) is None
    assert _copy_image(site, str(tmp_path / "fake.png")) is None
    assert _copy_image(site, str(tmp_path / "missing.png")) is None
    # a.png and elsewhere.png hold the same bytes: one file in the site (copied once per content hash)
    assert _copy_image(site, str(tmp_path / "a.png")) == _copy_image(site, str(tmp_path / "elsewhere.png"), trusted=True)
    assert len(list((tmp_path / "out" / "img").iterdir())) == 1


@given(st.text())
def test_escaped_text_never_opens_a_tag(text):
    from gui_tasks.viewer.site import _pre, _svg, e

    for out in (e(text), _pre(text)[len("<pre class=''>"):-len("</pre>")]):
        assert "<" not in out and ">" not in out and '"' not in out
    svg = _svg([Shape("typed", "text", (1, 2), text)], 10, 10)
    assert svg.count("<text") == 1 and "<script" not in svg


def test_svg_escapes_labels():
    from gui_tasks.viewer.site import _svg

    svg = _svg([Shape("typed", "text", (1, 2), INJECTIONS[0])], 10, 10)
    assert "<script>" not in svg and "&lt;script&gt;" in svg


# --- slow: a real run, a second one with chosen responses, the site in Chromium ------------------------------
# The real run is `gui-eval demo` itself (MPR zh/en, then these tasks for its viewer), so the demo's viewer is tested too.
DEMO_MPR = ["mpr_gui_synth_zh", "mpr_gui_synth_en"]
VIEW_TASKS = ["icon_localization_synth", "star_state_control_synth", "star_agentic_synth", "sphinx_sim_toggle"]
TASKS = DEMO_MPR + VIEW_TASKS


def _browser_or_skip():
    from browser import missing

    why = missing()
    if why:
        pytest.skip(why)


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory, session_cache, tiny_checkpoint):
    """The output folder of a small real `gui-eval demo` (tiny checkpoint; it ends by writing its viewer)."""
    import contextlib
    import io

    from gui_tasks.commands.cli import main

    out = tmp_path_factory.mktemp("viewer") / "demo"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        rc = main(["demo", "--checkpoint", str(tiny_checkpoint), "--out", str(out), "--limit", "2",
                   "--view-tasks", ",".join(VIEW_TASKS), "--view-limit", "2"])
    assert rc == 0, printed.getvalue()[-3000:]
    assert f"open file://{(out / 'view' / 'index.html').resolve()}" in printed.getvalue()
    return out


@pytest.fixture(scope="module")
def runs(demo_out):
    """(real run dir, edited run dir, {task: (doc_id, doc)} of the edited samples)."""
    edited = demo_out.parent / "edited"
    shutil.copytree(demo_out, edited, ignore=shutil.ignore_patterns("view", "report"))
    chosen = _edit(edited)
    return demo_out, edited, chosen


def _edit(run_dir: Path) -> dict[str, tuple[int, dict]]:
    """Give chosen samples known responses, scored again by the installed task (rescore.score)."""
    from gui_tasks.harness.rescore import load_task, score, task_docs

    chosen = {}
    for f in sorted(run_dir.rglob("*_samples_*.jsonl")):
        task_name = f.name.split("_samples_", 1)[1][: -len(".jsonl")]
        task = load_task(task_name)
        docs = task_docs(task)
        lines = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        for s in lines:
            doc = docs[s["doc_id"]]
            if task_name == "icon_localization_synth" and s["doc_id"] == 0:
                x1, y1, x2, y2 = doc["target_box"]  # the target's centre, relative, as the prompt asks
                response = f"[{(x1 + x2) / 2 / doc['width']:.4f}, {(y1 + y2) / 2 / doc['height']:.4f}]"
            elif task_name == "icon_localization_synth":
                response = INJECTIONS[0] + " [0.5, 0.5] " + INJECTIONS[1]
            elif task_name == "star_state_control_synth" and s["doc_id"] == 0:
                response = "CLICK <point>[[500, 250]]</point>"
            elif task_name == "star_agentic_synth" and s["doc_id"] == 0:
                response = s["target"]  # the gold action in the family's own format
            elif task_name == "sphinx_sim_toggle" and s["doc_id"] == 0:
                response = ["click [1]", "press [stop]"]
            elif task_name == "mpr_gui_synth_en":
                response = "B " + INJECTIONS[2]
            else:
                continue
            values = score(task, doc, response)
            s.update(values)
            # a multi-round answer as lmms-eval logs a backend's tuple of rounds: its text (unwrap_generation_output)
            s["filtered_resps"] = [str(tuple(response))] if isinstance(response, list) else response
            chosen.setdefault(task_name, (s["doc_id"], doc))
        f.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in lines), encoding="utf-8")
    return chosen


@pytest.fixture(scope="module")
def site(runs, tmp_path_factory):
    from gui_tasks.viewer.site import main

    real, edited, _ = runs
    out = tmp_path_factory.mktemp("site")
    assert main([str(real), str(edited), "--out", str(out)]) == 0
    return out


def _page(site_dir: Path, task: str, doc_id: int, side: int) -> Path:
    data = json.loads((site_dir / "data" / "index.js").read_text(encoding="utf-8").split("=", 1)[1].rstrip().rstrip(";"))
    t = data["task"].index(task)
    n = next(i for i, r in enumerate(data["rows"]) if r[0] == side and r[1] == t and r[2] == doc_id)
    return site_dir / "s" / f"{n}.html"


def _shots_dir(tmp_path: Path) -> Path:
    """Where screenshots go: ``GUI_EVAL_VIEWER_SHOTS`` (docs/viewer.md's come from here) or the test's folder."""
    out = Path(os.environ.get("GUI_EVAL_VIEWER_SHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


GEOMETRY_JS = """
const img = document.querySelector(arguments[0] + ' img'); const ir = img.getBoundingClientRect();
const fig = img.closest('figure');  // the original size: the page may show a thumbnail (fewer natural pixels)
const sx = ir.width / Number(fig.dataset.width), sy = ir.height / Number(fig.dataset.height);
const out = {scale: [sx, sy], complete: img.complete && img.naturalWidth > 0};
for (const el of document.querySelectorAll(arguments[0] + ' [data-role]')) {
  const r = (el.tagName === 'g' ? el.querySelector('circle') : el).getBoundingClientRect();
  out[el.getAttribute('data-role')] = {attr: Object.fromEntries(Array.from(el.attributes).map(a => [a.name, a.value])),
    px: [(r.left - ir.left) / sx, (r.top - ir.top) / sy, (r.right - ir.left) / sx, (r.bottom - ir.top) / sy]};
}
return out;"""


@pytest.mark.slow
def test_every_page_opens_from_file_without_console_errors(site):
    _browser_or_skip()
    from browser import browser, console_errors

    pages = [site / "index.html", *sorted((site / "s").glob("*.html"))]
    assert len(pages) == 1 + 2 * 2 * len(TASKS)
    with browser() as d:
        for p in pages:
            d.get(p.as_uri())
            assert console_errors(d) == [], p
            for img in d.find_elements("css selector", "img"):
                assert d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img), p
        d.get((site / "index.html").as_uri())
        assert d.find_element("css selector", "body").get_attribute("data-ready") == "1"
        heat = d.find_element("css selector", "table.heat").text  # the MPR language x dimension table of each run
        assert "Gap to EN" in heat and "EN" in heat.split() and "FPR-ACC" in heat
        assert d.find_element("id", "count").text == f"{2 * 2 * len(TASKS)} of {2 * 2 * len(TASKS)} samples"


@pytest.mark.slow
def test_grounding_target_and_prediction_drawn_at_the_samples_pixels(site, runs, tmp_path):
    _browser_or_skip()
    from browser import browser, console_errors

    _, edited, chosen = runs
    doc_id, doc = chosen["icon_localization_synth"]
    line = next(json.loads(x) for f in edited.rglob("*_samples_icon_localization_synth.jsonl")
                for x in f.read_text().splitlines() if json.loads(x)["doc_id"] == doc_id)
    rec = line["grounding_acc"]
    assert rec["status"] == "parsed" and rec["correct"] is True
    px = (rec["point"][0] * doc["width"], rec["point"][1] * doc["height"])
    with browser() as d:
        d.get(_page(site, "icon_localization_synth", doc_id, side=1).as_uri())
        g = d.execute_script("return (" + "() => {" + GEOMETRY_JS.replace("arguments[0]", "'figure.shot'") + "})()")
        assert g["complete"]
        x1, y1, x2, y2 = doc["target_box"]
        attr = g["target"]["attr"]
        assert [float(attr[k]) for k in ("x", "y", "width", "height")] == pytest.approx([x1, y1, x2 - x1, y2 - y1])
        # where the browser drew them, in screenshot pixels (strokes are 3 screen px wide: half lies outside)
        tol = 3 / min(g["scale"])
        assert g["target"]["px"] == pytest.approx([x1, y1, x2, y2], abs=tol)
        assert float(g["pred"]["attr"]["data-x"]) == pytest.approx(px[0]) and float(g["pred"]["attr"]["data-y"]) == pytest.approx(px[1])
        cx = (g["pred"]["px"][0] + g["pred"]["px"][2]) / 2
        cy = (g["pred"]["px"][1] + g["pred"]["px"][3]) / 2
        assert (cx, cy) == pytest.approx(px, abs=tol)
        assert console_errors(d) == []
        d.save_screenshot(str(_shots_dir(tmp_path) / "viewer_grounding.png"))
        d.get((site / "index.html").as_uri())
        d.save_screenshot(str(_shots_dir(tmp_path) / "viewer_index.png"))
    assert (_shots_dir(tmp_path) / "viewer_grounding.png").stat().st_size > 10_000


@pytest.mark.slow
def test_star_toggle_box_and_click_drawn(site, runs):
    _browser_or_skip()
    from browser import browser

    _, _, chosen = runs
    doc_id, doc = chosen["star_state_control_synth"]
    w, h = doc["image_width"], doc["image_height"]
    with browser() as d:
        d.get(_page(site, "star_state_control_synth", doc_id, side=1).as_uri())
        g = d.execute_script("return (" + "() => {" + GEOMETRY_JS.replace("arguments[0]", "'figure.shot'") + "})()")
    assert [float(g["pred"]["attr"][k]) for k in ("data-x", "data-y")] == pytest.approx([500 / 1000 * w, 250 / 1000 * h])
    if doc["toggle_box"]:
        bx1, _by1, bx2, _by2 = doc["toggle_box"]
        assert float(g["toggle_box"]["attr"]["x"]) == pytest.approx(bx1 / 1000 * w)
        assert float(g["toggle_box"]["attr"]["width"]) == pytest.approx((bx2 - bx1) / 1000 * w)


@pytest.mark.slow
def test_star_agentic_step_gold_and_prediction_drawn_with_its_episode(site, runs, tmp_path):
    _browser_or_skip()
    from browser import browser

    from gui_tasks.star.schema import action_from_json

    _, _, chosen = runs
    doc_id, doc = chosen["star_agentic_synth"]
    gold = action_from_json(doc["gold"])
    with browser() as d:
        d.get(_page(site, "star_agentic_synth", doc_id, side=1).as_uri())
        g = d.execute_script("return (" + "() => {" + GEOMETRY_JS.replace("arguments[0]", "'figure.shot'") + "})()")
        rows = d.find_elements("css selector", "table.episode tr")
        assert len(rows) >= 2  # header + the logged steps of this episode
        d.save_screenshot(str(_shots_dir(tmp_path) / "viewer_star_agentic.png"))
    if gold.point is not None:  # the response was the gold action itself: both at the gold pixels
        w, h = doc["image_width"], doc["image_height"]
        want = [gold.point[0] / 1000 * w, gold.point[1] / 1000 * h]
        assert [float(g["gold"]["attr"][k]) for k in ("data-x", "data-y")] == pytest.approx(want)
        assert [float(g["pred"]["attr"][k]) for k in ("data-x", "data-y")] == pytest.approx(want, abs=1.0)


@pytest.mark.slow
def test_sphinx_trajectory_step_drawn_on_the_element_clicked(site, runs, tmp_path):
    _browser_or_skip()
    from browser import browser, console_errors

    from gui_tasks.sphinx.actions import parse_action
    from gui_tasks.sphinx.lmms_task import _task
    from gui_tasks.sphinx.simulator import Simulator, resolve

    _, _, chosen = runs
    doc_id, doc = chosen["sphinx_sim_toggle"]
    obs = Simulator().reset(_task(doc).initial)
    element = resolve(obs, parse_action("click [1]")[1], doc["rendering"])["element"]
    box = obs.screen.get(element).box
    with browser() as d:
        d.get(_page(site, "sphinx_sim_toggle", doc_id, side=1).as_uri())
        steps = d.find_elements("css selector", "li.step")
        assert len(steps) == 3  # click, stop, final screen
        g = d.execute_script("return (" + "() => {" + GEOMETRY_JS.replace("arguments[0]", "'li.step[data-step=\"0\"]'") + "})()")
        assert g["complete"]
        attr = g["action"]["attr"]
        assert [float(attr[k]) for k in ("x", "y")] == pytest.approx(list(box[:2]))
        assert g["action"]["px"] == pytest.approx(list(box), abs=3 / min(g["scale"]))
        assert "click [1]" in steps[0].text
        assert console_errors(d) == []
        d.save_screenshot(str(_shots_dir(tmp_path) / "viewer_sphinx.png"))


@pytest.mark.slow
def test_injection_texts_show_as_text_and_run_nothing(site, runs):
    _browser_or_skip()
    from browser import browser, console_errors

    pages = [_page(site, "icon_localization_synth", 1, side=1), _page(site, "mpr_gui_synth_en", 0, side=1), site / "index.html"]
    with browser() as d:
        for p in pages:
            d.get(p.as_uri())
            for a in d.find_elements("css selector", "a"):  # follow no link, but none may be a javascript: one
                assert not (a.get_attribute("href") or "").startswith("javascript:")
            assert d.execute_script("return window.__pwned === undefined")
            assert d.execute_script("return document.querySelectorAll('[onerror], #evil').length") == 0
            assert len(d.find_elements("css selector", "script")) == (2 if p.name == "index.html" else 0)
            assert console_errors(d) == []
        d.get(pages[0].as_uri())
        shown = " ".join(el.text for el in d.find_elements("css selector", "pre.response"))
        assert INJECTIONS[0] in shown and INJECTIONS[1] in shown
        d.get(pages[1].as_uri())
        assert INJECTIONS[2] in " ".join(el.text for el in d.find_elements("css selector", "pre.response"))
        d.get(pages[2].as_uri())
        d.find_element("id", "f-text").send_keys("onerror")
        rows = d.find_elements("css selector", "#list tbody tr")
        assert len(rows) == 1 and "onerror" in rows[0].text
        assert d.execute_script("return window.__pwned === undefined")


@pytest.mark.slow
def test_index_filters_and_diff_of_two_runs(site, runs):
    _browser_or_skip()
    from browser import browser

    from gui_tasks.viewer.site import collect

    real, edited, _ = runs
    _, entries, _ = collect([real, edited])
    by_key = {}
    for x in entries:
        by_key.setdefault((x.task, x.sample["doc_id"]), {})[x.side] = x.outcome
    fixed = sum(1 for o in by_key.values() if o[0] != "correct" and o[1] == "correct")
    fmt = sum(1 for x in entries if x.outcome == "format_error")
    with browser() as d:
        d.get((site / "index.html").as_uri())
        from selenium.webdriver.support.ui import Select

        Select(d.find_element("id", "f-outcome")).select_by_visible_text("format_error")
        assert d.find_element("id", "count").text == f"{fmt} of {len(entries)} samples"
        Select(d.find_element("id", "f-outcome")).select_by_visible_text("all")
        Select(d.find_element("id", "f-diff")).select_by_visible_text("fixed")
        assert d.find_element("id", "count").text == f"{2 * fixed} of {len(entries)} samples"
        assert fixed >= 1  # the grounding answer on the target's centre
        assert "Differences: run 1 - run 2" in d.find_element("css selector", "body").text
        # changed responses are counted apart from changed scores (an injection text around the same answer)
        summary = d.find_element("id", "diff-summary").text
        both = sum(1 for o in by_key.values() if len(o) == 2)
        assert summary.startswith(f"{both} samples in both runs: responses changed ")
        changed = int(summary.split("responses changed ")[1].split(",")[0])
        assert changed >= 3  # at least the chosen icon, StaR and SPHINX samples got new responses
        Select(d.find_element("id", "f-diff")).select_by_visible_text("response changed")
        assert d.find_element("id", "count").text == f"{2 * changed} of {len(entries)} samples"
        # a sample page shows the other run's answer on the same sample
        d.get(_page(site, "icon_localization_synth", 0, side=1).as_uri())
        twin = d.find_element("css selector", "aside.twin").text
        assert twin.startswith("Run 1 (") and by_key[("icon_localization_synth", 0)][0] in twin


@pytest.mark.slow
def test_serve_answers_on_loopback_and_stops_by_pid(runs, tmp_path):
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    _, edited, _ = runs
    with socket.socket() as s:  # a free port in the range the project's tests use
        port = next(p for p in range(19000 + os.getpid() % 900, 20000) if s.connect_ex(("127.0.0.1", p)) != 0)
    proc = subprocess.Popen([sys.executable, "-m", "gui_tasks.commands.cli", "view", str(edited), "--out", str(tmp_path / "site"),
                             "--no-docs", "--serve", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        body, deadline = None, time.monotonic() + 120
        while body is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=2) as r:
                    body = r.read().decode("utf-8")
            except OSError:
                time.sleep(0.3)
        assert body is not None, proc.stdout.read() if proc.poll() is not None else "no answer"
        assert "gui-eval viewer" in body and "data/index.js" in body
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.slow
def test_crop_run_window_first_and_second_pass_and_digits(tmp_path, tiny_grounding_checkpoint, subprocess_env):
    """A real ``interventions=crop`` run with captured digits: the page draws the window and both passes' points
    where the record puts them, and shows the digit distributions with their PSS."""
    _browser_or_skip()
    from browser import browser, console_errors
    from lmms_helpers import run, samples

    from gui_tasks.commands.cli import lmms_eval_command
    from gui_tasks.viewer.site import build_site

    args = f"pretrained={tiny_grounding_checkpoint},device=cpu,capture_logits=digits,interventions=crop,crop.alpha=0.8"
    _, log = run(lmms_eval_command(args, ["icon_localization_synth"], tmp_path / "run", limit=3), subprocess_env)
    cropped = [s["doc_id"] for s in samples(tmp_path / "run", "icon_localization_synth")
               if s["grounding_acc"]["crop"]["window"] is not None and s["grounding_acc"]["point"] is not None]
    assert cropped, log[-3000:]
    site = build_site([tmp_path / "run"], tmp_path / "site")
    entry = next(x for x in site.entries if x.sample["doc_id"] == cropped[0])
    rec, doc = entry.record, entry.doc
    with browser() as d:
        d.get((tmp_path / "site" / "s" / f"{entry.number}.html").as_uri())
        assert console_errors(d) == []
        g = d.execute_script("return (" + "() => {" + GEOMETRY_JS.replace("arguments[0]", "'figure.shot'") + "})()")
        body = d.find_element("css selector", "body").text
        # the crop the second pass sent (recorded by InterventionRun under the run's --output_path), next to the original
        sent = d.find_element("css selector", "figure.sent")
        assert "rerun-1, image 1" in sent.text
        assert d.execute_script("return arguments[0].querySelector('img').complete", sent)
        x0, y0, x1, y1 = rec["crop"]["window"]
        assert [int(sent.get_attribute(k)) for k in ("data-width", "data-height")] == [round(x1 - x0), round(y1 - y0)]
        d.get((tmp_path / "site" / "index.html").as_uri())
        assert "+crop" in d.find_element("css selector", "table.kv").text
    assert [float(g["crop_window"]["attr"][k]) for k in ("x", "y", "width", "height")] == pytest.approx([x0, y0, x1 - x0, y1 - y0])
    assert [float(g["pred"]["attr"][k]) for k in ("data-x", "data-y")] == \
        pytest.approx([rec["point"][0] * doc["width"], rec["point"][1] * doc["height"]])
    if rec["first"]["point"] is not None:
        assert [float(g["first_pred"]["attr"][k]) for k in ("data-x", "data-y")] == \
            pytest.approx([rec["first"]["point"][0] * doc["width"], rec["first"]["point"][1] * doc["height"]])
    keys = [k for k in rec["key_tokens"] if not k["merged"]]
    if keys:
        assert f"PSS {rec['pss']:.4g}" in body and len(keys) <= body.count("key digit")


@pytest.mark.slow
def test_demo_ends_with_a_viewer_with_overlays(demo_out):
    """`gui-eval demo`'s own viewer opens, and its grounding, StaR and SPHINX pages carry their overlays."""
    _browser_or_skip()
    from browser import browser, console_errors

    view = demo_out / "view"
    data = json.loads((view / "data" / "index.js").read_text(encoding="utf-8").split("=", 1)[1].rstrip().rstrip(";"))
    assert set(data["task"]) == set(TASKS) and data["sides"] == ["qwen2_vl"]
    want = {"icon_localization_synth": "figure.shot [data-role='target']",
            "star_state_control_synth": "figure.shot [data-role='toggle_box'], figure.shot [data-role='gold']",
            "star_agentic_synth": "figure.shot [data-role='gold'], figure.shot [data-role='gold_text']",
            "sphinx_sim_toggle": "li.step figure.shot img"}
    with browser() as d:
        d.get((view / "index.html").as_uri())
        assert console_errors(d) == [] and d.find_element("css selector", "table.heat")
        for task, selector in want.items():
            d.get(_page(view, task, 0, side=0).as_uri())
            assert console_errors(d) == [], task
            assert d.find_elements("css selector", selector), task
