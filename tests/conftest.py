"""Shared fixtures: offline environment, a private cache, the tiny checkpoint."""

from __future__ import annotations

import os
from pathlib import Path

import sys

import pytest

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
os.environ.update(OFFLINE)

# Network guard: a test that reaches beyond this machine fails (loopback stays open for accelerate).
NETGUARD_DIR = Path(__file__).resolve().parent / "netguard"
sys.path.insert(0, str(NETGUARD_DIR))
import network_guard  # noqa: E402

network_guard.install()


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory) -> Path:
    """A cache root shared by the whole session (synthetic sets, run folders), set as ``GUI_EVAL_CACHE`` before the first
    test (autouse: no test ever falls back to ``~/.cache/gui_eval``, whatever order the tests run in). Under
    pytest-xdist each worker has its own (its tests run in their usual order there); ``GUI_EVAL_TEST_CACHE`` names one
    for all (the synthetic sets are built once under a lock, ``gui_tasks.synth.cache.build_once``)."""
    root = Path(os.environ.get("GUI_EVAL_TEST_CACHE") or tmp_path_factory.mktemp("gui_eval_cache"))
    os.environ["GUI_EVAL_CACHE"] = str(root)
    return root


@pytest.fixture(scope="session")
def checkpoint_root(tmp_path_factory) -> Path:
    """Where the tiny checkpoints are built: one folder for all pytest-xdist workers of a run (each checkpoint built once,
    under a lock, by ``tiny_archs.built_once``), or ``GUI_EVAL_TEST_CACHE``."""
    if os.environ.get("GUI_EVAL_TEST_CACHE"):
        return Path(os.environ["GUI_EVAL_TEST_CACHE"])
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "gui_eval_checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="session")
def tiny_checkpoint(checkpoint_root) -> Path:
    """A tiny random Qwen2-VL checkpoint, built once per run."""
    from tiny_archs import session_checkpoint

    return session_checkpoint(checkpoint_root, "qwen2_vl")


@pytest.fixture(scope="session")
def tiny_qwen2_5_vl(checkpoint_root) -> Path:
    """A tiny random Qwen2.5-VL checkpoint (its own 4..64 x 28 x 28 pixel budget), built once per run."""
    from tiny_archs import session_checkpoint

    return session_checkpoint(checkpoint_root, "qwen2_5_vl")


def lmms_subprocess_env(cache: Path) -> dict[str, str]:
    """Environment for lmms-eval subprocesses: offline, our cache, a private HF datasets cache."""
    env = {**os.environ, **OFFLINE, "GUI_EVAL_CACHE": str(cache)}
    env["HF_DATASETS_CACHE"] = str(cache / "hf_datasets")
    env["LMMS_EVAL_DATASETS_CACHE"] = str(cache / "hf_datasets")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(NETGUARD_DIR), env.get("PYTHONPATH", "")) if p)  # sitecustomize: the guard
    return env


@pytest.fixture()
def subprocess_env(session_cache) -> dict[str, str]:
    """:func:`lmms_subprocess_env` for one test (after its own environment changes)."""
    return lmms_subprocess_env(session_cache)


@pytest.fixture(scope="session")
def tiny_grounding_checkpoint(checkpoint_root) -> Path:
    """The tiny checkpoint taught the PSS answer format "[x, y]" (about 15 s on one CPU thread), built once per run."""
    from gui_models.tiny_grounding import build_tiny_grounding_model
    from tiny_archs import built_once

    return built_once(checkpoint_root / "tiny-qwen2-vl-grounding", "gui_eval_tiny_grounding.json",
                      lambda tmp: build_tiny_grounding_model(tmp, steps=120, seed=0))


@pytest.fixture(scope="session")
def honest(session_cache, tmp_path_factory) -> dict:
    """One honest MPR-GUI submission (six synthetic languages, scripted answers) for every submission test; each test
    deep-copies it before changing anything."""
    from submission_helpers import honest_run

    from gui_tasks.submit.leaderboard import build_submission

    root = tmp_path_factory.mktemp("honest")
    honest_run(root)
    return build_submission(root)


def pytest_collection_modifyitems(config, items) -> None:
    """Under pytest-xdist (``--dist loadscope --no-loadscope-reorder``, scripts/test.sh), modules slowest first, by
    the measured ``tests/module_times.json`` (``scripts/test_times.py``): the workers take modules in this order, so
    the longest never start last and leave one core idle at the end. Tests keep their order inside a module; a serial
    run keeps file order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import json

    times_file = Path(__file__).with_name("module_times.json")
    try:
        times = json.loads(times_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    first_seen: dict[str, int] = {}
    for i, item in enumerate(items):
        first_seen.setdefault(item.path.name, i)
    # measured modules by their time, longest first; new ones after them, in file order (a stable sort keeps each
    # module's tests together and in order)
    items.sort(key=lambda item: (-float(times.get(item.path.name, -1.0)), first_seen[item.path.name]))
