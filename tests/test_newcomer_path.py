"""A newcomer's whole path, as docs/submissions.md shows it: a synthetic run of every benchmark (MPR-GUI six languages,
GUI Knowledge Bench, StaR state control, icon localization, SPHINX static + simulator) on the tiny checkpoint, submitted
as a partial submission, validated and verified.

The block after ``<!-- newcomer-path -->`` is run as written: its lmms-eval line in a subprocess (once for the module),
its ``gui-eval`` lines in this process (``gui_tasks.commands.cli.main``, so the tasks are built once for submit, validate and
verify); the placeholder checkpoint becomes the tiny one.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import lmms_subprocess_env

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "submissions.md"
MARKER = "<!-- newcomer-path -->"
PLACEHOLDER = "Qwen/Qwen2.5-VL-7B-Instruct"

pytestmark = pytest.mark.slow


def path_commands() -> list[list[str]]:
    """The commands of the page's newcomer-path block, one per line."""
    lines = PAGE.read_text(encoding="utf-8").split("\n")
    start = lines.index(MARKER)
    assert lines[start + 1].strip() == "```bash", f"{PAGE.name}: {MARKER} must stand right before a ```bash fence"
    end = next(j for j in range(start + 2, len(lines)) if lines[j].strip() == "```")
    return [shlex.split(line) for line in lines[start + 2:end] if line.strip()]


def test_the_block_runs_every_benchmark_then_submit_validate_verify():
    cmds = path_commands()
    assert [c[0] for c in cmds] == ["lmms-eval", "gui-eval", "gui-eval", "gui-eval"]
    assert [c[1] for c in cmds[1:]] == ["submit", "validate", "verify"]
    tasks = cmds[0][cmds[0].index("--tasks") + 1].split(",")
    assert {"mpr_gui_synth", "gui_knowledge_synth", "star_state_control_synth", "icon_localization_synth", "sphinx_sim"} <= set(tasks)


@pytest.fixture(scope="module")
def ran(tmp_path_factory, tiny_checkpoint, session_cache):
    """The block's lmms-eval run (once), in a fresh folder; returns (folder, commands)."""
    cwd = tmp_path_factory.mktemp("newcomer")
    cmds = [[w.replace(PLACEHOLDER, str(tiny_checkpoint)) for w in c] for c in path_commands()]
    lmms = [sys.executable, "-m", "lmms_eval", *cmds[0][1:]]
    proc = subprocess.run(lmms, cwd=cwd, env=lmms_subprocess_env(session_cache), capture_output=True, text=True,
                          timeout=900, check=False)
    assert proc.returncode == 0 and list((cwd / "runs").rglob("*_results.json")), (proc.stdout + proc.stderr)[-4000:]
    return cwd, cmds


def test_submit_validate_verify_accept_the_partial_run(ran, monkeypatch, capsys):
    from gui_tasks.commands.cli import main as cli_main

    cwd, cmds = ran
    monkeypatch.chdir(cwd)
    assert cli_main(cmds[1][1:]) == 0, capsys.readouterr().err
    assert "PARTIAL submission: --limit 2; leaderboards may refuse it" in capsys.readouterr().out
    sub = json.loads((cwd / "quick.json").read_text(encoding="utf-8"))
    assert sub["partial"] == {"limit": 2.0, "incomplete": []}
    assert sub["generation"] == {"gen_kwargs": "max_new_tokens=4", "seeds": [0, 1234, 1234, 1234]}
    benchmarks = {t["metadata"]["benchmark"] for t in sub["tasks"]}
    assert benchmarks == {"mpr_gui", "gui_knowledge", "star_state_control", "icon_localization", "sphinx", "sphinx_sim"}
    assert sorted(t["metadata"]["lang"] for t in sub["tasks"] if t["metadata"]["benchmark"] == "mpr_gui") == \
        sorted(["en", "zh", "fr", "ru", "ja", "th"])
    assert all(t["n_samples"] == 2 and t["n_documents"] > 2 for t in sub["tasks"])
    for t in sub["tasks"]:  # an undefined metric is null with its reason, never a refusal
        assert {m for m, v in t["metrics"].items() if v is None} == set(t.get("undefined") or {})

    assert cli_main(cmds[2][1:]) == 0, capsys.readouterr().err
    assert "valid (" in capsys.readouterr().out
    assert cli_main([*cmds[2][1:], "--full"]) == 1  # what a leaderboard does with a partial file
    assert "PARTIAL submission" in capsys.readouterr().err

    assert cli_main(cmds[3][1:]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "re-applied: model args" in out and "--gen_kwargs 'max_new_tokens=4', seeds [0, 1234, 1234, 1234]" in out
    assert "2/2 responses reproduced" in out and ": verified (PARTIAL submission" in out
