"""What a submission was made with, checked against this installation: the gui-eval and lmms-eval versions and the
third-party plugins that took part (``gui_tasks/runs/provenance.py``); responses are re-scored with this installation's
parsers, so a file recorded under other versions or plugin files is refused."""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Sequence

from gui_tasks.runs.hashing import canonical_json
from gui_tasks.submit.submission_input import SubmissionError


def _norm(obj: Any) -> Any:
    import json

    return json.loads(canonical_json(obj))


def _dist_version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _plugins(tasks: Any, interventions: Sequence[str]) -> list[dict[str, Any]]:
    """Every third-party plugin that took part: those in each task's metadata (task package, metric plugins) and the
    selected intervention plugins as installed now (``gui_tasks/runs/provenance.py``)."""
    from gui_tasks.runs.provenance import intervention_plugins, merged

    return merged(*((t["metadata"].get("plugins") or []) for t in tasks), intervention_plugins(interventions))


def _check_plugins(sub: dict[str, Any]) -> None:
    """The recorded plugins cover every task's and match the installed intervention plugins (version and files)."""
    from gui_tasks.runs.provenance import intervention_plugins

    recorded = sub["versions"].get("plugins") or []
    known = {canonical_json(p) for p in recorded}  # one pass over each list: linear in the entries (issue 37)
    for t in sub["tasks"]:
        missing = [p for p in t["metadata"].get("plugins") or [] if canonical_json(p) not in known]
        if missing:
            raise SubmissionError(f"task {t['task']}: plugin(s) {[p['distribution'] for p in missing]} of its metadata "
                                  "are missing from versions.plugins")
    def short(items: list[dict[str, Any]]) -> str:
        return ", ".join(f"{p['entry_point']} ({p['distribution']} {p['version']}, files {str(p['files_sha256'])[:12]})"
                         for p in items) or "none"

    installed = intervention_plugins(sub["model"]["interventions"])
    mine = [p for p in recorded if p["kind"] == "intervention"]
    if _norm(mine) != _norm(installed):
        raise SubmissionError(f"intervention plugins differ from the installed ones: the file records {short(mine)}; "
                              f"this installation has {short(installed)} (another version, or its files changed)")


def _check_versions(sub: dict[str, Any]) -> None:
    """The recorded gui-eval and lmms-eval versions are those installed here: responses are re-scored with this
    installation's parsers, so a file recorded under other versions (or with forged ones) is refused."""
    for key, dist in (("gui_eval", "gui-eval"), ("lmms_eval", "lmms_eval")):
        recorded, installed = sub["versions"].get(key), _dist_version(dist)
        if recorded != installed:
            raise SubmissionError(f"versions.{key} is {recorded!r} but this installation has {dist} {installed!r}: "
                                  "validate with the versions the submission was made with")


def _quiet_lmms_eval() -> None:
    """lmms-eval's loguru logger prints DEBUG lines while tasks load; the commands show warnings and up."""
    try:
        from loguru import logger
    except ImportError:
        return
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
