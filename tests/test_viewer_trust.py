"""``gui-eval view`` on a hostile run folder: nothing written outside ``--out``, no foreign image copied, no traceback."""

from __future__ import annotations

import http.client
import threading

import pytest
from PIL import Image
from submission_helpers import edit_results, edit_samples, honest_run

from gui_core.errors import DataError

EN = "mpr_gui_synth_en"


@pytest.fixture()
def run(session_cache, tmp_path):
    honest_run(tmp_path / "run", ["en"], limit=3)
    return tmp_path / "run"


def _plant(view, outside):
    """The issue's layout: RUN/view already holds symlinks to the victim's files and folders."""
    view.mkdir()
    (view / "index.html").symlink_to(outside / ".bashrc")
    for sub in ("assets", "s", "img", "data", "traj"):
        (view / sub).symlink_to(outside / "dir")
    (view / ".gui-eval-view").symlink_to(outside / ".profile")


def test_a_run_folder_with_planted_symlinks_writes_nothing_outside_out(run, tmp_path):
    from gui_tasks.viewer.site import build_site

    outside = tmp_path / "home"
    (outside / "dir").mkdir(parents=True)
    (outside / ".bashrc").write_text("original bashrc\n")
    (outside / ".profile").write_text("original profile\n")
    Image.new("RGB", (5, 5), (255, 0, 0)).save(outside / "private.png")
    Image.new("RGB", (6, 6), (0, 255, 0)).save(run / "own.png")

    def hostile(lines):
        lines[0]["input_media"] = [str(outside / "private.png"), str(run / "own.png")]
        return lines

    results = next(run.rglob("*_results.json"))
    edit_samples(results, EN, hostile)
    _plant(run / "view", outside)
    site = build_site([run], run / "view", rebuild_docs=False)
    assert (outside / ".bashrc").read_text() == "original bashrc\n"
    assert (outside / ".profile").read_text() == "original profile\n"
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc", ".profile", "dir", "private.png"]
    assert list((outside / "dir").iterdir()) == []
    view = run / "view"
    assert not any(p.is_symlink() for p in view.rglob("*")) and (view / "index.html").is_file()
    assert len(site.entries) == 3 and sorted(p.name for p in (view / "s").iterdir()) == ["0.html", "1.html", "2.html"]
    copied = [p.read_bytes() for p in (view / "img").iterdir()]
    assert copied == [(run / "own.png").read_bytes()]  # the run's own image only
    assert any("private.png not copied: outside the run's folders" in n for n in site.notes)
    assert not [p for p in run.iterdir() if p.name.startswith(".view.")]  # no building or old folder left


def test_a_malformed_record_is_a_note_on_its_sample_not_a_lost_site(run, tmp_path):
    from gui_tasks.viewer.site import build_site

    def hostile(lines):
        for key, value in list(lines[1].items()):
            if isinstance(value, dict):
                lines[1][key] = {"satisfied": 5, "n_actions": 1}
        return lines

    def as_sphinx_episodes(raw):  # the task's records read by SPHINX's viewing: evaluators that are no list fail there
        raw["configs"][EN]["metadata"]["benchmark"] = "sphinx_sim"

    results = next(run.rglob("*_results.json"))
    edit_samples(results, EN, hostile)
    edit_results(results, as_sphinx_episodes)
    site = build_site([run], tmp_path / "view", rebuild_docs=False)
    assert any(f"{EN} doc 1: record not readable (TypeError)" in n for n in site.notes)
    assert "record not readable: TypeError" in (tmp_path / "view" / "s" / "1.html").read_text()
    assert "record not readable" in (tmp_path / "view" / "index.html").read_text()


def test_out_that_is_a_symlink_or_another_folder_is_refused(run, tmp_path):
    from gui_tasks.viewer.site import build_site

    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(DataError, match="--out is a symlink"):
        build_site([run], tmp_path / "link", rebuild_docs=False)
    assert list((tmp_path / "target").iterdir()) == []
    before = sorted(p.name for p in run.rglob("*"))
    with pytest.raises(DataError, match="not an earlier gui-eval view site"):
        build_site([run], run, rebuild_docs=False)  # would replace the run itself
    assert sorted(p.name for p in run.rglob("*")) == before


def test_a_second_build_replaces_the_earlier_site_whole(run, tmp_path):
    from gui_tasks.viewer.site import build_site

    build_site([run], tmp_path / "view", rebuild_docs=False)
    (tmp_path / "view" / "s" / "stale.html").write_text("old")
    build_site([run], tmp_path / "view", rebuild_docs=False)
    assert not (tmp_path / "view" / "s" / "stale.html").exists() and (tmp_path / "view" / "index.html").is_file()


def _get(port, path, host=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


def test_serve_refuses_symlinks_listings_and_foreign_hosts(run, tmp_path):
    from gui_tasks.viewer.site import build_site, make_server

    view = tmp_path / "view"
    build_site([run], view, rebuild_docs=False)
    (tmp_path / "secret.txt").write_text("secret")
    (view / "s" / "leak.html").symlink_to(tmp_path / "secret.txt")  # planted after the build
    (view / "etc").symlink_to(tmp_path)
    httpd = make_server(view, 0)  # port 0: the system picks a free one, bound at once (pytest-xdist workers never collide)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        status, body = _get(port, "/index.html")
        assert status == 200 and b"gui-eval viewer" in body
        assert _get(port, "/index.html", host=f"localhost:{port}")[0] == 200
        assert _get(port, "/index.html", host="evil.example")[0] == 403  # DNS rebinding
        assert _get(port, "/index.html", host=f"evil.example:{port}")[0] == 403
        assert _get(port, "/s/leak.html")[0] == 404
        assert _get(port, "/etc/secret.txt")[0] == 404
        status, body = _get(port, "/s/")
        assert status == 404 and b"0.html" not in body  # no listing
        assert _get(port, "/../secret.txt")[0] == 404
    finally:
        httpd.shutdown()
        httpd.server_close()
