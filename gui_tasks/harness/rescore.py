"""Re-scoring logged responses from the documents and the installed task (what a leaderboard checks).

lmms-eval 0.7.3 logs a ``doc_hash`` that is the sha256 of ``"null"`` for every sample
(``evaluator.py`` hashes ``requests[0].doc``, and ``api/task.py`` never sets ``Instance.doc``),
and its per-sample metric values are whatever the file says. Here the task is rebuilt
through lmms-eval's own ``TaskManager`` (our YAMLs, third-party task packages), each
document gets a content hash computed by us, and every response is scored again with the
task's own ``process_results`` and aggregations.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Mapping


# the content hashes (documents, scores, files) live in gui_tasks.runs.hashing, below everything that records them
from gui_tasks.runs.hashing import (UnhashableValue, _content, _json_default, canonical_json, doc_sha256,  # noqa: E402,F401
                               file_sha256, scores_sha256, sha256_text)


@functools.lru_cache(maxsize=1)
def _task_manager():
    from lmms_eval.tasks import TaskManager

    from gui_tasks.harness.lmms_integration import attach

    attach()  # our metrics in lmms-eval's registries; our (and third-party) task folders in the index
    return TaskManager(verbosity="ERROR", include_defaults=False)


_FOLDER_ATTR = "gui_eval_task_folder"  # set on every task load_task returns: where its relative paths point


@functools.lru_cache(maxsize=64)
def load_task(name: str):
    """The installed lmms-eval task ``name`` (documents loaded); a ValueError when it is not one of ours."""
    from lmms_eval.tasks import get_task_dict

    tm = _task_manager()
    if name not in tm.all_tasks:
        raise ValueError(f"task {name!r} is not in the task index gui-eval re-scores from (its own yaml_tasks and the "
                         "task folders of installed packages with a `gui_eval.tasks` entry point); a task found only "
                         "through lmms-eval's --include_path cannot be re-scored or submitted: put its folder in a "
                         "package with that entry point and pip-install it (docs/plugins.md#re-scoring-and-submissions)")
    task = get_task_dict([name], tm)[name]
    if isinstance(task, dict):  # a group
        raise ValueError(f"{name!r} is a group; submit its tasks")
    setattr(task, _FOLDER_ATTR, yaml_folder(name))
    return task


def yaml_folder(name: str) -> str | None:
    """The folder of installed task ``name``'s YAML file (None: not indexed or no file): where relative paths in its
    documents point, for the content hash and the viewer alike."""
    entry = _task_manager().task_index.get(name) or {}
    yaml_path = entry.get("yaml_path") if isinstance(entry, dict) else None
    return os.path.dirname(os.path.abspath(yaml_path)) if isinstance(yaml_path, (str, os.PathLike)) else None


def task_folder(task) -> str | None:
    """The folder of the task's YAML file, against which relative paths in its documents are resolved (None: unknown)."""
    return getattr(task, _FOLDER_ATTR, None)


def task_metadata(task) -> dict[str, Any]:
    from gui_tasks.harness.lmms_rows import task_metadata as meta

    return meta(task.config)


def task_docs(task) -> list[dict[str, Any]]:
    """The evaluation documents in lmms-eval's order (doc_id = position)."""
    return [dict(d) for d in task.eval_docs]


def as_results(response: Any) -> list[Any]:
    """The ``results`` list ``process_results`` received for a logged (flattened) ``filtered_resps``."""
    return list(response) if isinstance(response, list) else [response]


def score(task, doc: Mapping[str, Any], response: Any, side: Mapping[str, Any] | None = None,
          reasoning: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The task's own per-sample values for ``response`` to ``doc``; ``side``: what the run logged of the response
    beyond its text (``gui_core.logit_capture.response_side``: digit capture, image sizes, crop), attached again;
    ``reasoning``: the sample's logged reasoning record (``gui_core.reasoning``), read again as the run read it (a
    reasoning cut by its budget is no answer)."""
    from gui_core import reasoning as thinking
    from gui_core.logit_capture import with_side

    name = str(getattr(getattr(task, "config", None), "task", "") or "")
    thinking.notes_of(name, doc)  # nothing left over from another scoring of this document
    thinking.note(name, doc, thinking.note_from_logged(reasoning))
    try:
        return dict(task.process_results(doc, as_results(with_side(response, side))))
    finally:
        thinking.notes_of(name, doc)


def aggregate(task, per_sample: list[dict[str, Any]]) -> dict[str, float]:
    """Every metric of the task aggregated over the per-sample values, as lmms-eval does."""
    aggregations = task.aggregation()
    out: dict[str, float] = {}
    for metric, fn in aggregations.items():
        values = [s[metric] for s in per_sample if metric in s]
        if values:
            out[metric] = float(fn(values))
    return out
