"""One record per model family (gui_core/families.py): the registry refuses collisions, answers unknown names with
"did you mean", and every table that used to repeat a family's facts is read from its record."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gui_core.agents import agent_families, agent_names, family as agent_family
from gui_core.family import FAMILIES, PROMPTS, AgentProtocol, Family, GroundingPrompt, grounding_families, register_family
from gui_core.registry import Registry, UnknownName

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_registry_refuses_a_second_record_under_a_taken_name():
    reg: Registry[int] = Registry("widget")
    reg.register("a", 1, aliases=("alpha",))
    reg.register("a", 1)  # the same record again is harmless
    with pytest.raises(ValueError, match="widget 'a' is already registered"):
        reg.register("a", 2)
    with pytest.raises(ValueError, match="widget 'alpha' is already registered"):
        reg.register("b", 3, aliases=("alpha",))
    with pytest.raises(ValueError, match="widget 'alpha' is already registered"):
        reg.register("alpha", 4)
    assert reg.get("alpha") == 1 and reg.names() == ["a"]


def test_unknown_name_says_did_you_mean_and_lists_the_accepted_ones():
    with pytest.raises(UnknownName) as err:
        FAMILIES.get("ui_tars15")
    msg = str(err.value)
    assert msg.startswith("unknown model family 'ui_tars15' (did you mean 'ui_tars_1_5'")
    assert "; known: " in msg and "phi_ground" in msg
    with pytest.raises(UnknownName, match="unknown agent family 'os_atlass' \\(did you mean 'os_atlas'"):
        agent_family("os_atlass")


def test_a_family_record_refuses_inconsistent_facts():
    with pytest.raises(ValueError, match="answers in resized pixels but names no resize budget"):
        Family("x", "X", "resized_px")
    with pytest.raises(ValueError, match="frame 'pixels' unknown"):
        Family("x", "X", "pixels")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resize budget 'huge' unknown"):
        Family("x", "X", "resized_px", budget="huge")
    with pytest.raises(ValueError, match="has its own agent protocol and borrows"):
        Family("x", "X", "grid1000", agent=AgentProtocol("os_atlas", "grid1000", "p"), agent_from="ui_tars")


def test_a_prompt_name_taken_by_another_family_is_refused():
    with pytest.raises(ValueError, match="grounding prompt 'gta1' is already registered \\(family 'gta1'\\)"):
        register_family(Family("gta1_copy", "GTA1 copy", "grid1000", prompts=(GroundingPrompt("gta1", "p", "{instruction}"),)))
    assert "gta1_copy" not in FAMILIES


def test_aliases_and_borrowed_agent_protocols_resolve_to_one_record():
    assert agent_family("proprietary") is agent_family("ui_tars")  # StaR A.5: proprietary models use UI-TARS's prompt
    assert agent_family("qwen2_vl") is agent_family("os_atlas")  # StaR A.5: Qwen2-VL uses OS-Atlas's
    assert "qwen2_vl" in agent_names() and "qwen2_vl" not in agent_families()
    assert FAMILIES.get("qwen2_vl").frame == "grid1000"  # as a grounding family it keeps its own frame and reader
    assert {n for n, f in agent_families().items() if f.own_history} == {"ui_tars", "ui_tars_1_5"}


def test_every_family_fact_table_is_read_from_the_records():
    from gui_core.conformance import FAMILIES as CORPORA
    from gui_tasks.grounding.yaml_spec import family_prompts, render_all
    from gui_tasks.commands.parser_inventory import GROUNDING_FAMILIES

    grounding = [f.name for f in grounding_families()]
    assert list(GROUNDING_FAMILIES) == grounding
    assert set(CORPORA) == set(FAMILIES.names()) - {"relative"}
    files = render_all()
    for prompt in family_prompts():
        rec = PROMPTS.get(prompt)
        text = files[f"gui_screenspot_pro_{prompt}.yaml"]
        assert f"  coordinate_frame: {rec.frame}\n" in text
        assert (f"  resize_budget: {rec.budget}\n" in text) == (rec.budget is not None)
        assert f"doc_to_visual: !function gui_tasks.grounding.lmms_task.{rec.visual}\n" in text


def _docs_family_rows() -> dict[str, list[str]]:
    """Every name in the first cell of the family table (one row per prompt; a row may name two), mapped to its row."""
    rows = {}
    for line in (DOCS / "grounding_families.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if line.startswith("| `") and len(cells) == 6:  # the family table (the frame table above it has three columns)
            for name in re.findall(r"`([a-z0-9_]+)`", cells[0]):
                rows[name] = cells
    return rows


def test_docs_family_table_has_every_grounding_family_with_its_records_frame_and_budget():
    rows = _docs_family_rows()
    for rec in grounding_families():
        assert rec.name in rows, rec.name
        _name, _prompt, frame, budget, *_ = rows[rec.name]
        assert frame.split(" ")[0] == rec.frame, rec.name
        assert budget.startswith(f"`{rec.budget}`") if rec.budget else budget == "-" or budget.startswith("("), rec.name
    for prompt in PROMPTS.names():
        assert rows[prompt][2].split(" ")[0] == PROMPTS.get(prompt).frame, prompt


def test_a_grounding_task_must_score_the_prompt_it_sends():
    from gui_core.errors import ConfigError, DataError
    from gui_tasks.grounding.lmms_task import check_prompt_agrees, score_params

    check_prompt_agrees({"prompt": "gta1"}, {"prompt": "gta1"})
    with pytest.raises(DataError, match="sends prompt 'gta1' .* scores answers for prompt 'ui_venus'"):
        check_prompt_agrees({"prompt": "ui_venus"}, {"prompt": "gta1"})
    with pytest.raises(ConfigError, match="coordinate_frame 'grid1000' differs from family 'gta1'"):
        score_params({"prompt": "gta1", "coordinate_frame": "grid1000", "source": "screenspot_pro"})
    with pytest.raises(ConfigError, match="unknown grounding prompt 'gta' \\(did you mean 'gta1'"):
        score_params({"prompt": "gta", "source": "screenspot_pro"})


def test_a_family_without_a_grounding_reading_is_refused_by_name():
    from gui_core.grounding import parse_point

    with pytest.raises(ValueError, match="family 'gui_r1' has no grounding reading; families with one: relative, os_atlas"):
        parse_point("(1, 2)", "gui_r1")
