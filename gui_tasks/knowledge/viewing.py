"""How ``gui-eval view`` shows a GUI Knowledge Bench run: the viewer's ``gui_viewer`` hooks for its benchmarks (their
records name this module as ``viewing``; ``gui_tasks.viewer.hookspecs``): the report in the layout of Table 2."""

from __future__ import annotations

from gui_core.viewing import Report, RunView, hookimpl


@hookimpl
def gui_viewer_run_reports(run: RunView) -> list[Report]:
    from gui_tasks.knowledge import report as knowledge

    return [Report("GUI Knowledge Bench: Table 2 layout", lambda: knowledge.render_text(knowledge.build_report(run.runs)))]
