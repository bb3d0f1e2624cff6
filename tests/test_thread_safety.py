"""Every benchmark family's ``process_results`` is thread-safe: lmms-eval 0.7.3 calls it from
``--process_docs_parallel`` threads (4 by default, PR #1477). The same (document, response) pairs scored one
at a time and from 8 threads at once, interleaved and repeated, give identical per-sample records."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from gui_tasks.harness.rescore import load_task, task_docs

FAMILIES = ["mpr_gui_synth_en", "gui_knowledge_synth_en_type", "gui_knowledge_synth_en_state", "icon_localization_synth",
            "star_state_control_synth", "star_agentic_synth", "sphinx_grounding_synth", "sphinx_completion_synth",
            "sphinx_focused_synth", "sphinx_sim"]
MULTI_ROUND = {"sphinx_sim"}  # results are the rounds of one episode: the simulator replays them
DOCS = 12


def _responses(target: str) -> list[str]:
    """A right answer, a wrong one, free text and malformed actions: every parser path."""
    return [target, f"Answer: {target}", "I cannot tell.", "click(500, 500)", '{"action": "click", "x": 1, "y": 2}',
            "[120, 340]", "<think>hm</think> B", ""]


def _record(values: dict) -> str:
    return json.dumps(values, sort_keys=True, default=str)


@pytest.mark.parametrize("name", FAMILIES)
def test_process_results_gives_the_same_records_from_1_and_8_threads(session_cache, name):
    task = load_task(name)
    docs = task_docs(task)[:DOCS]
    assert docs, f"{name}: no documents"
    jobs = [(i, r) for i, doc in enumerate(docs) for r in _responses(str(task.doc_to_target(doc)))]

    def results(r: str) -> list[str]:
        return [r, "click(3)", r] if name in MULTI_ROUND else [r]

    one = {(i, r): _record(task.process_results(docs[i], results(r))) for i, r in jobs}
    many = jobs * 3
    random.Random(0).shuffle(many)
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda job: (job, _record(task.process_results(docs[job[0]], results(job[1])))), many))
    differ = [job for job, rec in got if rec != one[job]]
    assert not differ, f"{name}: {len(differ)} records differ between 1 and 8 threads, e.g. {differ[:3]}"
