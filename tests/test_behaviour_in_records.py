"""A judge, a family and a parser behave by their records, never by their names (issue 43, items 3 and 5).

Three checks drawn from the code: no package module compares a value with a registered judge, family or parser name;
every family name is written in at most three package modules; a judge or a family a plugin registers behaves fully
by its record (and a record missing its rules is refused).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from star_layouts import data_envs
from gui_core.action_parsers import PARSERS
from gui_core.coords import FRAMES
from gui_core.family import FAMILIES, AgentProtocol, Family, register_family
from gui_tasks.star import agentic_task, judges
from gui_tasks.star.judge_record import JUDGE_REGISTRY, Judge, Source, Verdict, register_judge
from gui_tasks.star.schema import action_from_json

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gui_core", "gui_tasks", "gui_models", "gui_metrics", "gui_interventions")
FIX = Path(__file__).parent / "fixtures" / "star_agentic"


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _names() -> set[str]:
    """Every registered judge, family (and alias) and action parser name. Names that are also coordinate frames
    (the family ``relative`` is named after its frame) are left out: a comparison with a frame is no family choice."""
    names = set(FAMILIES.names()) | set(FAMILIES.aliases()) | set(PARSERS) | set(JUDGE_REGISTRY.names())
    return names - set(FRAMES)


def _literals(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_literals(e) for e in node.elts)) if node.elts else set()
    return set()


def name_comparisons(source: str, names: set[str]) -> list[str]:
    """``line: code`` of every comparison with a string literal (or a literal tuple / list / set of them) that is one
    of ``names``: behaviour chosen by a name instead of read from a record."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            found = set().union(*(_literals(n) for n in (node.left, *node.comparators)))
            if found & names:
                hits.append(f"{node.lineno}: {ast.unparse(node)}")
    return hits


def test_no_package_module_compares_with_a_judge_family_or_parser_name():
    names = _names()
    assert {"star", "paper", "os_atlas", "ui_tars_1_5", "agentcpm_gui", "generic", "proprietary"} <= names
    found = {str(p.relative_to(ROOT)): hits for p in _modules() if (hits := name_comparisons(p.read_text(), names))}
    assert found == {}


# Comparisons with a benchmark's name choose behaviour by the name instead of reading it from the Benchmark record
# (gui_core.benchmark). A "name" is every word the records use for a benchmark: the record names and aliases, the
# `metadata.benchmark` values its tasks carry and the other values of its `match` (e.g. `dataset`); a word that is some
# record's `source` (official, synthetic, device) is provenance, not a name. A module that ports an official script line by
# line (`*official*.py`) is exempt: its per-dataset branches are the authors'. What is left may only go down (issue 50:
# at most 10 in the packages, none in the viewer); lower the numbers here when a change removes some.
BENCHMARK_COMPARISONS_LEFT = {
    "gui_tasks/grounding/yaml_spec.py": 2,  # ScreenSpot-Pro's splits and official metrics in the YAML generator
    "gui_tasks/star/judge_cpm.py": 2,  # AgentCPM-GUI's evaluator: its per-dataset conversions
    "gui_tasks/star/judge_rules.py": 5,  # OS-Atlas's evaluation_unify.py: its AndroidControl branches
}
BENCHMARK_COMPARISONS_MAX = 9


def benchmark_words() -> set[str]:
    """Every word the benchmark records use for a benchmark (see above)."""
    from gui_core.benchmark import BENCHMARKS

    recs = BENCHMARKS.values()
    sources = {v for b in recs for k, v in b.match if k == "source"}
    values = {v for b in recs for k, v in b.match if k != "source"} - sources
    return set(BENCHMARKS.names()) | set(BENCHMARKS.aliases()) | {b.results_name for b in recs} | values


def benchmark_comparisons() -> dict[str, int]:
    """Per package module (``*official*.py`` left out): how many comparisons with a benchmark word it makes."""
    words = benchmark_words()
    return {str(p.relative_to(ROOT)): len(hits) for p in _modules()
            if "official" not in p.name and (hits := name_comparisons(p.read_text(), words))}


def test_comparisons_with_benchmark_names_only_go_down():
    found = benchmark_comparisons()
    grown = {m: n for m, n in found.items() if n > BENCHMARK_COMPARISONS_LEFT.get(m, 0)}
    assert grown == {}
    assert sum(found.values()) <= BENCHMARK_COMPARISONS_MAX <= 10
    assert not [m for m in found if m.startswith("gui_tasks/viewer/")]


def test_the_benchmark_words_are_names_values_and_aliases_not_provenance():
    words = benchmark_words()
    assert {"star", "star_state_control", "star_agentic", "icon_localization", "androidcontrol", "mpr_gui", "sphinx_sim",
            "screenspot_pro"} <= words
    assert not {"official", "synthetic", "device"} & words
    code = ('if meta.get("benchmark") == "star_agentic": pass\nif b in ("icon_localization",): pass\n'
            'if source == "synthetic": pass\n')
    assert name_comparisons(code, words) == ["1: meta.get('benchmark') == 'star_agentic'",
                                             "2: b in ('icon_localization',)"]


def test_the_comparison_scan_sees_a_name_comparison():
    names = {"guievalkit", "ui_tars"}
    code = 'if judge == "guievalkit": pass\nif f.parser in ("x", "ui_tars"): pass\nif a == b: pass\nif k == "other": pass\n'
    assert name_comparisons(code, names) == ["1: judge == 'guievalkit'", "2: f.parser in ('x', 'ui_tars')"]


# A family's name in at most three package modules: its record (gui_core/families.py), its action parser
# (gui_core/action_parsers.py), its resize budget (gui_core/coords.py) or the one benchmark module that reads its
# answers with its authors' code. Strings that name a record of ANOTHER registry which happens to share the family's
# name are not the family: each such module and what the string names there (the test fails once one is not needed).
OTHER_REGISTRIES: dict[str, dict[str, str]] = {
    "qwen2_5_vl": {"gui_tasks/submit/verify.py": "lmms-eval model names (LOCAL_BACKENDS)",
                   "gui_models/model_args.py": "an lmms-eval model name in an error message's example",
                   "gui_models/wrap_backend.py": "an lmms-eval model name in an error message's example",
                   "gui_models/tiny_model.py": "the transformers architecture of a tiny checkpoint"},
    "qwen2_vl": {"gui_tasks/submit/verify.py": "lmms-eval model names (LOCAL_BACKENDS)",
                 "gui_models/tiny_model.py": "the transformers architecture of a tiny checkpoint"},
    "qwen3_vl": {"gui_tasks/submit/verify.py": "lmms-eval model names (LOCAL_BACKENDS)"},
}


def _strings(tree: ast.AST) -> list[str]:
    """The string constants of a module's code (docstrings left out: they document, they decide nothing)."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def modules_naming(names: list[str]) -> dict[str, list[str]]:
    """For each name, the package modules whose code has it as a whole word in a string."""
    out: dict[str, list[str]] = {n: [] for n in names}
    pats = {n: re.compile(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])") for n in names}
    for path in _modules():
        strings = _strings(ast.parse(path.read_text()))
        for n, pat in pats.items():
            if any(pat.search(s) for s in strings):
                out[n].append(str(path.relative_to(ROOT)))
    return out


def test_every_family_is_named_in_at_most_three_package_modules():
    names = sorted((set(FAMILIES.names()) | set(FAMILIES.aliases())) - set(FRAMES))
    named = modules_naming(names)
    over = {}
    for name, mods in named.items():
        other = OTHER_REGISTRIES.get(name, {})
        assert set(other) <= set(mods), f"{name}: exemptions no longer needed: {sorted(set(other) - set(mods))}"
        mine = [m for m in mods if m not in other]
        if len(mine) > 3:
            over[name] = mine
    assert over == {}
    assert len(named["ui_tars_1_5"]) <= 3


# --- a judge a plugin registers ------------------------------------------------------------------------------------

def _toy_step(judge, doc, response, parsed, geometry):
    """Exact when the answer says the judge's own word; the gold type from the doc."""
    gold = doc["gold"]
    return Verdict(True, (response or "").strip() == "toy!", response, gold, "TOY")


def _toy_drop(judge, doc):
    return "the toy judge scores no CLICK" if '"CLICK"' in doc["gold"] else None


@pytest.fixture()
def toy_judge():
    rec = register_judge(Judge("toy", ("androidcontrol",), "says toy!", (Source("paper: a toy", ("none",)),),
                               step=_toy_step, drop=_toy_drop))
    try:
        yield rec
    finally:
        JUDGE_REGISTRY._items.pop("toy", None)


def test_a_plugin_judge_is_used_by_its_record(toy_judge, monkeypatch):
    for name, env in data_envs().items():
        monkeypatch.setenv(env, str(FIX / name))
    assert judges.check("toy", "androidcontrol") is None
    docs = agentic_task.task_rows({"dataset": "androidcontrol", "judge": "toy"})
    assert [action_from_json(d["gold"]).type for d in docs] == ["OPENAPP", "SCROLL", "TYPE", "PRESS_BACK", "COMPLETE"]
    assert agentic_task._DROPPED[agentic_task._key({"dataset": "androidcontrol", "judge": "toy"})] == \
        {"the toy judge scores no CLICK": 1}
    hit, miss = agentic_task.score_response(docs[1], "toy!"), agentic_task.score_response(docs[1], "CLICK <point>[[1, 2]]</point>")
    assert (hit["judge"], hit["rule"], hit["exact"], hit["judge_type"], hit["judge_type_names"]) == ("toy", "toy", True, "TOY", "ours")
    assert (miss["exact"], miss["judge_pred"]) == (False, "CLICK <point>[[1, 2]]</point>")


def test_a_judge_without_its_rules_is_refused():
    with pytest.raises(ValueError, match="judge 'half' has no step rule"):
        register_judge(Judge("half", ("aitz",), "x", (), drop=_toy_drop))
    with pytest.raises(ValueError, match="judge 'half' has no step and drop rule"):
        register_judge(Judge("half", ("aitz",), "x", ()))
    assert "half" not in JUDGE_REGISTRY


# --- a family a plugin registers -----------------------------------------------------------------------------------

def _toy_prompt(f, instruction, geometry, history, low_level, meta, history_lines, instructions):
    return f"TOY[{instruction}|{len(history)}|{f.frame}]"


def _toy_action(f, action, geometry, finger_words):
    return f"toy:{action.type}"


def test_a_plugin_family_prompts_and_writes_actions_by_its_record():
    from gui_core.actions import Action
    from gui_core.agents import build_prompt, format_action
    from gui_core.coords import Geometry

    fam = Family("toy_agent", "Toy", "grid1000", agent=AgentProtocol("os_atlas", "grid1000", "toy-v1", build_prompt=_toy_prompt,
                                                                     write_action=_toy_action, benchmarks=()))
    register_family(fam)
    try:
        geo = Geometry.identity(100, 200)
        assert build_prompt("toy_agent", "open it", geo, ["a", "b"], meta={"dataset": "androidcontrol"}) == "TOY[open it|2|grid1000]"
        assert format_action(Action("PRESS_BACK"), "toy_agent", geo) == "toy:PRESS_BACK"
        # its record says it gets no StaR / SPHINX tasks of its own
        from gui_core.family import agents_of

        assert "toy_agent" not in [f.name for f in agents_of("star")]
    finally:
        FAMILIES._items.pop("toy_agent", None)


def test_an_agent_protocol_without_its_prompt_builder_is_refused():
    with pytest.raises(ValueError, match="its agent protocol needs build_prompt and write_action"):
        Family("toy_agent2", "Toy", "grid1000", agent=AgentProtocol("os_atlas", "grid1000", "p", write_action=_toy_action))

