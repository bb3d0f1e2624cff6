"""The docs cannot drift from the code: every command they mark runnable runs, and every relative link resolves.

A block is runnable when the line before its ```bash fence is ``<!-- runnable -->`` (docs/CONVENTIONS.md, "Docs").
Each block runs with bash (``-euo pipefail``) in a fresh folder, after the substitutions of ``SUBSTITUTIONS``
(a real checkpoint, the user's data folders and servers become the tiny checkpoint, the fixtures and the scripted
local server) with ``--limit 2`` and ``--gen_kwargs max_new_tokens=16`` added to every lmms-eval run; then each run's
results file must hold every task it asked for (the lmms-eval CLI exits 0 on failure) and each report folder must
have been written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import lmms_subprocess_env

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- runnable -->"
LIMIT = 2
NEW_TOKENS = 16  # the random tiny model writes until the budget: GUI-KB's 1,024 tokens cost minutes, not the point here
API_KEY = "sk-docs-test"

# What a runnable command may name that only a user has, and what stands in for it here.
SUBSTITUTIONS = {
    "Qwen/Qwen2.5-VL-7B-Instruct": "{checkpoint}",
    "/data/MPR-GUI-Bench": str(FIXTURES / "mpr_official"),
    "/data/GUI-Knowledge-Bench": str(FIXTURES / "gui_knowledge"),
    "/data/StaR": str(FIXTURES / "star_official"),
    "/data/ScreenSpot-v2": str(FIXTURES / "screenspot_v2"),
    "/data/ScreenSpot-Pro": str(FIXTURES / "screenspot_pro_official"),
    "/data/UI-Vision": str(FIXTURES / "uivision_official"),
    "/data/MMBench-GUI": str(FIXTURES / "mmbench_gui_l2"),
    "/data/OSWorld-G": str(FIXTURES / "osworld_g"),
    "/data/Sphinx": str(FIXTURES / "sphinx"),
    "http://127.0.0.1:8000/v1": "{server}",  # a vLLM server: the scripted local server stands in
    "https://api.openai.com/v1": "{server}",  # a hosted API: likewise
    "~/.cache/gui_eval": "{cache}",
}
# The data variables of the benchmarks that fetch their data on first use: their recipes name no variable (a user's
# run fetches from the Hub), so the test supplies the fixture copy through the environment, never the recipe text.
DATA_ENV = {
    "GUI_KNOWLEDGE_DATA_DIR": SUBSTITUTIONS["/data/GUI-Knowledge-Bench"],
    "STAR_DATA_DIR": SUBSTITUTIONS["/data/StaR"],
    "SCREENSPOT_PRO_DATA_DIR": SUBSTITUTIONS["/data/ScreenSpot-Pro"],
    "UIVISION_DATA_DIR": SUBSTITUTIONS["/data/UI-Vision"],
    "MMBENCH_GUI_DATA_DIR": SUBSTITUTIONS["/data/MMBench-GUI"],
    "OSWORLD_G_DATA_DIR": SUBSTITUTIONS["/data/OSWorld-G"],
}
# The tasks the Hub stand-in serves: a block naming only these and no data variable fetches them from it.
HUB_TASKS = {"gui_screenspot_pro", "gui_osworld_g"}
# Left after substitution, these mean a runnable command names something this test cannot provide.
UNRESOLVED = re.compile(r"/data/|=\.\.\.|\bDIR\b|/models/")


@dataclass(frozen=True)
class Block:
    """One runnable block: the page, the line of its fence, its commands."""

    page: Path
    line: int
    text: str

    @property
    def id(self) -> str:
        return f"{rel(self.page)}:{self.line}"


def rel(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def runnable_blocks(page: Path) -> list[Block]:
    """Every block of ``page`` marked runnable; a marker not followed by a ```bash fence is an error."""
    lines = page.read_text(encoding="utf-8").split("\n")
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        if i + 1 >= len(lines) or lines[i + 1].strip() != "```bash":
            raise AssertionError(f"{rel(page)}:{i + 1}: {MARKER} must stand right before a ```bash fence")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise AssertionError(f"{rel(page)}:{i + 2}: unclosed ```bash fence")
        blocks.append(Block(page, i + 2, "\n".join(lines[i + 2:end])))
    return blocks


ALL_BLOCKS = [b for page in DOCS for b in runnable_blocks(page)]


def commands(text: str) -> list[list[str]]:
    """The block's commands as argument lists (comments dropped, one command per line)."""
    return [shlex.split(line, comments=True) for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")]


def flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def is_lmms_run(argv: list[str]) -> bool:
    words = [w for w in argv if "=" not in w or w.startswith("-")]  # after VAR=value prefixes
    return bool(words) and words[0] == "lmms-eval" and "tasks" not in words[1:2]


def prepare(text: str, values: dict[str, str]) -> str:
    """The block as this test runs it: substitutions made, ``--limit`` and a small token budget added to every lmms-eval
    run that sets none."""
    for old, new in SUBSTITUTIONS.items():
        text = text.replace(old, new.format(**values))
    out = []
    for line in text.split("\n"):
        argv = shlex.split(line, comments=True) if line.strip() else []
        if argv and is_lmms_run(argv):
            code, hash_, comment = line.partition(" #")
            code = code.rstrip() + (f" --limit {LIMIT}" if "--limit" not in argv else "")
            code += f" --gen_kwargs max_new_tokens={NEW_TOKENS}" if "--gen_kwargs" not in argv else ""
            line = code + (f" #{comment}" if hash_ else "")
        out.append(line)
    return "\n".join(out)


def slow_if_lmms(block: Block):
    runs_lmms = any(argv and "lmms-eval" in argv for argv in commands(block.text))
    return pytest.param(block, id=block.id, marks=[pytest.mark.slow] if runs_lmms else [])


def check_lmms_run(argv: list[str], cwd: Path, log: str) -> None:
    """The results file of one lmms-eval run holds every task asked for, scored; samples were written if asked."""
    from gui_tasks.commands.cli import find_results

    out = cwd / flag(argv, "--output_path")
    files = find_results(out)
    assert files, f"lmms-eval wrote no results under {out}:\n{log[-3000:]}"
    written = json.loads(files[-1].read_text(encoding="utf-8"))
    scored = {**written.get("results", {}), **written.get("groups", {})}
    asked = flag(argv, "--tasks").split(",")
    assert not [t for t in asked if t not in scored], f"no results for {[t for t in asked if t not in scored]}:\n{log[-3000:]}"
    configs = written.get("configs", {})
    not_run = {t: c["metadata"]["not_run"] for t, c in configs.items() if (c.get("metadata") or {}).get("not_run")}
    assert not not_run, f"tasks not run: {not_run}"
    if "--log_samples" in argv:
        missing = [t for t in configs if not list(out.rglob(f"*_samples_{t}.jsonl"))]
        assert not missing, f"no samples file for {missing} under {out}"


@pytest.mark.parametrize("block", [slow_if_lmms(b) for b in ALL_BLOCKS])
def test_runnable_block_runs_on_the_tiny_checkpoint_and_fixtures(block, tmp_path, tiny_checkpoint, session_cache):
    from fake_openai import FakeServer

    needs_server = any(old in block.text for old, new in SUBSTITUTIONS.items() if new == "{server}")
    server = FakeServer(["ok"], text="A") if needs_server else None
    hub = None
    try:
        values = {"checkpoint": str(tiny_checkpoint), "server": server.base_url if server else "", "cache": str(session_cache)}
        script = prepare(block.text, values)
        assert not UNRESOLVED.search(script), f"{block.id}: names something with no stand-in here:\n{script}"
        env = lmms_subprocess_env(session_cache)
        if needs_hub(block.text):  # a recipe with no data variable: the tasks fetch from a Hub stand-in
            from hub_standin import (
                HubStandIn,
                osworld_g_rows,
                parquet_bytes,
                screenspot_pro_rows,
            )

            hub = HubStandIn()
            hub.publish("TIGER-Lab/ScreenSpot-Pro", {"data/test-00000-of-00001.parquet": parquet_bytes(screenspot_pro_rows())})
            hub.publish("MMInstruction/OSWorld-G", {"data/test-00000-of-00001.parquet": parquet_bytes(osworld_g_rows())})
            for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
                env.pop(var, None)
            env.update({"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / ".hf"), "GUI_EVAL_CACHE": str(tmp_path / ".cache")})
            for var in DATA_ENV:
                env.pop(var, None)
        else:  # the fixture copies of the benchmarks that would fetch on first use
            env.update(DATA_ENV)
        env.update({"PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]), "OPENAI_API_KEY": API_KEY,
                    "MPLBACKEND": "Agg"})
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600, check=False)
        log = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{block.id} exited {proc.returncode}:\n{script}\n{log[-4000:]}"
        for argv in commands(script):
            if is_lmms_run(argv):
                check_lmms_run(argv, tmp_path, log)
            elif argv and argv[0] == "gui-eval" and flag(argv, "--out"):
                out = tmp_path / flag(argv, "--out")
                assert out.exists() and (out.is_file() or any(out.iterdir())), f"{block.id}: {' '.join(argv)} wrote nothing"
        if server:
            assert server.hits > 0, f"{block.id}: the scripted server got no request"
            if "api_key_env=OPENAI_API_KEY" in block.text:  # the hosted-API recipe sends the key from the environment
                assert set(server.auth) == {f"Bearer {API_KEY}"}
    finally:
        if server:
            server.stop()
        if hub:
            hub.stop()


def needs_hub(text: str) -> bool:
    """A block that runs only ScreenSpot-Pro / OSWorld-G tasks without naming a local copy reads them from the Hub."""
    tasks = {t for argv in commands(text) if is_lmms_run(argv) and flag(argv, "--tasks") for t in flag(argv, "--tasks").split(",")}
    return bool(tasks) and tasks <= HUB_TASKS and "_DATA_DIR" not in text


def test_readme_recipes_cover_every_benchmark_and_engine():
    """The README's first screen: one gui_hf recipe per benchmark, a served model and a hosted API, all runnable."""
    text = "\n".join(b.text for b in ALL_BLOCKS if b.page.name == "README.md")
    for data in ("MPR_GUI_DATA_DIR", "SCREENSPOT_V2_DATA_DIR", "SPHINX_DATA_DIR"):  # no hub copy: the variable stays
        assert re.search(rf"^{data}=\S+ lmms-eval --model gui_hf ", text, re.MULTILINE), data
    for task in ("gui_knowledge", "star_state_control", "gui_uivision_basic", "gui_mmbench_gui_l2"):  # fetched on first use
        assert re.search(rf"^lmms-eval --model gui_hf .*--tasks \S*\b{task}\b", text, re.MULTILINE), task
    from gui_core.benchmark import BENCHMARKS

    fetched = sorted({b.data.env for b in BENCHMARKS.values() if b.data.hub})
    assert not [v for v in fetched if re.search(rf"\b{v}=", text)], "a recipe names the variable of a fetched benchmark"
    assert set(DATA_ENV) <= set(fetched)
    assert "--model gui_openai --model_args base_url=http://127.0.0.1:8000/v1," in text
    assert "--model gui_openai --model_args base_url=https://api.openai.com/v1," in text and "api_key_env=" in text
    first = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")[:2]
    assert [line.split()[:3] for line in first] == [["bash", "scripts/demo.sh", "#"], ["bash", "scripts/test.sh", "#"]]


def test_prepare_substitutes_and_limits_only_lmms_runs():
    text = ("MPR_GUI_DATA_DIR=/data/MPR-GUI-Bench lmms-eval --model gui_hf --model_args pretrained=Qwen/Qwen2.5-VL-7B-Instruct"
            " --tasks mpr_gui  # all six\nlmms-eval tasks list | grep mpr\nlmms-eval --tasks x --limit 5")
    got = prepare(text, {"checkpoint": "/ck", "server": "", "cache": "/c"}).split("\n")
    assert got[0] == (f"MPR_GUI_DATA_DIR={FIXTURES / 'mpr_official'} lmms-eval --model gui_hf --model_args pretrained=/ck"
                      f" --tasks mpr_gui --limit {LIMIT} --gen_kwargs max_new_tokens={NEW_TOKENS} # all six")
    assert got[1:] == ["lmms-eval tasks list | grep mpr", f"lmms-eval --tasks x --limit 5 --gen_kwargs max_new_tokens={NEW_TOKENS}"]


def test_a_marker_must_precede_a_bash_fence(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"{MARKER}\n\n```bash\nls\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="must stand right before"):
        runnable_blocks(page)
    page.write_text(f"text\n{MARKER}\n```bash\nls\necho\n```\n", encoding="utf-8")
    assert [(b.line, b.text) for b in runnable_blocks(page)] == [(3, "ls\necho")]


# ---- links ----

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", strip_blocks(page.read_text(encoding="utf-8")), re.MULTILINE):
        slug = github_slug(heading)
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def strip_blocks(text: str) -> str:
    """The text without fenced blocks and indented code."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return "\n".join(line for line in text.split("\n") if not line.startswith("    "))


def strip_code(text: str) -> str:
    """The text without code blocks and inline code spans (links there are not links)."""
    return re.sub(r"`[^`\n]*`", "", strip_blocks(text))


def relative_links(page: Path) -> list[str]:
    return [t for t in LINK.findall(strip_code(page.read_text(encoding="utf-8")))
            if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", DOCS, ids=rel)
def test_every_relative_link_resolves(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(target)
    assert not broken, f"{rel(page)}: broken links {broken}"


def test_every_docs_page_is_reachable_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(ROOT / "README.md")}
    assert not [p.name for p in DOCS[1:] if p not in linked]
    assert not [p.name for p in linked if not p.exists()]


def test_link_checker_finds_a_broken_link_and_a_wrong_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Two words\n\n[ok](b.md) [x](#two-words) [bad](#nope) `[code](c.md)` [gone](c.md)\n",
                                   encoding="utf-8")
    (tmp_path / "b.md").write_text("b\n", encoding="utf-8")
    assert relative_links(tmp_path / "a.md") == ["b.md", "#two-words", "#nope", "c.md"]
    assert anchors(tmp_path / "a.md") == {"two-words"}
    assert github_slug("`gui_hf` model arguments") == "gui_hf-model-arguments"
    assert github_slug("Blind runs: how much is answered?") == "blind-runs-how-much-is-answered"
