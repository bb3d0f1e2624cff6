"""The viewer's pages of the built-in benchmarks stay the same: a site built from a fixture run is compared page by
page with the pages written when each benchmark's viewing moved into its own folder (issue 50).

The run (``tests/fixtures/viewer_pages/run``: a tiny-checkpoint ``gui-eval demo`` run of MPR-GUI zh/en, icon
localization, StaR state control and agentic steps and a SPHINX simulator episode, some samples given known answers
as in tests/test_viewer.py; the per-sample record kept under one metric, ``input_media`` and local paths left out)
is shown without rebuilding its documents: outcomes and kinds, groups, rounds, the run's tables and every benchmark's
report. A deliberate change of a page: ``GUI_EVAL_UPDATE_VIEWER_PAGES=1`` rewrites the expected pages.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

FIX = Path(__file__).parent / "fixtures" / "viewer_pages"
EXPECTED = FIX / "expected"


def _pages(site: Path, run: Path) -> dict[str, str]:
    files = [site / "index.html", site / "data" / "index.js", *sorted((site / "s").glob("*.html"))]
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8").replace(str(run), "{RUN}") for p in files}


def test_pages_of_the_built_in_benchmarks_stay_the_same(tmp_path):
    from gui_tasks.viewer.plugins import no_plugins
    from gui_tasks.viewer.site import build_site

    run = tmp_path / "run"
    shutil.copytree(FIX / "run", run)
    site = build_site([run], tmp_path / "site", rebuild_docs=False, plugins=no_plugins())
    pages = _pages(tmp_path / "site", run)
    if os.environ.get("GUI_EVAL_UPDATE_VIEWER_PAGES"):
        shutil.rmtree(EXPECTED, ignore_errors=True)
        for name, text in pages.items():
            (EXPECTED / name).parent.mkdir(parents=True, exist_ok=True)
            (EXPECTED / name).write_text(text, encoding="utf-8")
    expected = {str(p.relative_to(EXPECTED)): p.read_text(encoding="utf-8") for p in sorted(EXPECTED.rglob("*"))
                if p.is_file()}
    assert len(site.entries) == 12 and sorted(pages) == sorted(expected)
    assert [name for name in sorted(pages) if pages[name] != expected[name]] == []
    index = pages["index.html"]
    for title in ("MPR-GUI: accuracy (%) per language and dimension", "StaR: Table 7 layout (state control)",
                  "StaR: step-wise agentic accuracy", "SPHINX: Tables 4-9", "Grounding: PSS, Algorithm-1 response types"):
        assert title in index  # every built-in benchmark's report, from its own viewing module
