"""lmms-eval's own backends run one task of every benchmark family, and gui_wrap adds our analyses to them (CLI, tiny checkpoints).

The full table (every backend, docs/engines.md) comes from ``python tests/backend_matrix.py``; this test runs
the backends that represent each path within the suite's time budget: ``qwen2_5_vl`` (chat in its
default mode; multi-round through its inherited simple loop), ``qwen2_vl`` (simple) and ``internvl_hf``
(chat, a non-Qwen architecture whose backend has no multi-round support: the simulator task runs through lmms-eval's
agentic loop, and gui_wrap supplies multi-round generation).
"""

from __future__ import annotations

import pytest

from backend_matrix import TASKS, measure

pytestmark = pytest.mark.slow
ANALYSES = {"capture": True, "gui_xli": True, "star_prompting": True, "crop": True, "multi_round": True}
# backend -> is sphinx_sim_toggle scored (its own generate_until_multi_round, else lmms-eval's agentic loop: every backend)
EXPECTED_MULTI_ROUND = {"qwen2_5_vl": True, "qwen2_vl": True, "internvl_hf": True}


@pytest.mark.parametrize("backend", sorted(EXPECTED_MULTI_ROUND))
def test_backend_runs_every_family_and_gui_wrap_adds_the_analyses(backend, tmp_path, subprocess_env):
    import os
    from pathlib import Path

    here = Path(__file__).resolve().parent
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(here.parent), str(here), subprocess_env.get("PYTHONPATH", "")])}
    row = measure(backend, tmp_path, env)
    assert row["tasks"] == {t: (EXPECTED_MULTI_ROUND[backend] if t == "sphinx_sim_toggle" else True) for t in TASKS}, row["error"]
    assert row["analyses"] == ANALYSES, row["wrap_error"]
