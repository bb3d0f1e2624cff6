"""The backends extra (issue 53): ``pip install '.[backends]'`` installs what lmms-eval's own backends named in
docs/engines.md import, the main lock carries it, the engines table says which extra each backend needs, and each
backend the table names runs on a tiny checkpoint (tests/tiny_archs.py builds them; tests/backend_matrix.py runs)."""

from __future__ import annotations

import configparser
import importlib
import os
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
MARK = "<!-- backend extras: tests/test_backend_extra.py reads this table -->"


def extras_table() -> dict[str, str]:
    """backend -> its extra, from docs/engines.md's table."""
    text = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8").split(MARK, 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", text.split("\n\n", 1)[0], re.M)
    return {name: extra.strip().strip("`") for name, extra in rows}


def extra_requirements(extra: str) -> list[Requirement]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = cfg["options.extras_require"][extra].splitlines()
    return [Requirement(x.strip()) for x in lines if x.strip() and not x.strip().startswith("#")]


def lock_pins(name: str) -> dict[str, str]:
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    return {m[0].lower().replace("_", "-"): m[1] for m in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)}


def test_the_table_names_every_backend_the_docs_name():
    table = extras_table()
    assert {"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl_hf", "gemma3", "llava_hf", "llava_onevision", "huggingface",
            "vllm", "openai"} == set(table)
    assert table["qwen2_vl"] == "backends" and table["internvl_hf"] == "none"


def test_the_backends_extra_is_in_the_main_lock_within_its_ranges():
    runtime, test = lock_pins("runtime.lock"), lock_pins("test.lock")
    reqs = extra_requirements("backends")
    assert {r.name for r in reqs} == {"decord", "qwen-vl-utils"}
    for req in reqs:
        assert req.name in runtime and req.specifier.contains(runtime[req.name]), (req, runtime.get(req.name))
        assert test[req.name] == runtime[req.name]  # the test lock extends the main one with the same versions


@pytest.mark.parametrize("backend", [b for b, extra in extras_table().items() if extra in ("backends", "none")])
def test_each_backend_imports_with_the_extra_installed(backend):
    """Its lmms-eval classes import (decord at import time for the Qwen and LLaVA-HF backends)."""
    from lmms_eval.models import get_model_manifest

    manifest = get_model_manifest(backend)
    paths = [p for p in (manifest.simple_class_path, manifest.chat_class_path) if p]
    assert paths
    for path in paths:
        module, _, cls = path.rpartition(".")
        assert hasattr(importlib.import_module(module), cls)


# the tiny architecture of each backend that runs on one (tests/backend_matrix.py); openai and vllm run against a
# server in tests/test_layouts.py and tests/test_served_vllm.py
RUNS_HERE = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "llava_hf", "internvl_hf", "gemma3", "huggingface")
# lmms-eval's own failures, not a missing package (docs/engines.md): its huggingface backend loads AutoModel (no
# generate) for these architectures and passes audios=, which transformers 5 rejects
FAILS_IN_LMMS_EVAL = {"huggingface"}


@pytest.mark.slow
@pytest.mark.parametrize("backend", RUNS_HERE)
def test_each_backend_runs_a_task_on_a_tiny_checkpoint(backend, tmp_path, subprocess_env):
    from backend_matrix import BACKENDS, _run
    from tiny_archs import build

    assert extras_table()[backend] in ("backends", "none")
    arch, args = BACKENDS[backend]
    ckpt = build(arch, tmp_path / "ckpt")
    here = Path(__file__).resolve().parent
    env = {**subprocess_env, "PYTHONPATH": os.pathsep.join([str(here.parent), str(here), subprocess_env["PYTHONPATH"]])}
    scored, error = _run(backend, f"pretrained={ckpt},{args}", ("icon_localization_synth",), tmp_path / "run", env)
    assert "ModuleNotFoundError" not in error and "No module named" not in error, error
    if backend in FAILS_IN_LMMS_EVAL:
        assert not scored
    else:
        assert "icon_localization_synth" in scored, error
