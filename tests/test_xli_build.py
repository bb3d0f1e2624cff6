"""Building GUI-XL-Memories on the tiny checkpoint: the qualifying rule, stored keys/values, provenance, disjointness."""

from __future__ import annotations

import pytest
import torch

from gui_interventions.xli_memory import XLIMemory
from gui_models.hf_backend import GuiHF
from gui_tasks.mpr.xli import cli
from gui_tasks.mpr.xli.build import PairOutcome, _request, answer_pairs, build_memory, select
from gui_tasks.mpr.xli.data import DataSpec, parallel_pairs

SPEC = DataSpec(seed=0, per_dimension=2, split="memory")


def _o(i, dim, en, tgt):
    return PairOutcome(f"q{i}", dim, "A", "", "", None, None, en, tgt)


def test_only_pairs_right_in_english_and_wrong_in_target_qualify():
    outcomes = [_o(0, "AU", True, False), _o(1, "AU", True, True), _o(2, "AU", False, False), _o(3, "AP", True, False),
                _o(4, "AU", True, False), _o(5, "AU", True, False)]
    assert [o.qualifies for o in outcomes] == [True, False, False, True, True, True]
    assert select(outcomes, memory_size=10, seed=0) == [0, 3, 4, 5]
    capped = select(outcomes, memory_size=2, seed=0)
    assert 3 in capped and len(capped) == 3 and set(capped) <= {0, 3, 4, 5}
    assert capped == select(outcomes, memory_size=2, seed=0)  # seeded
    assert select(outcomes, memory_size=10, seed=0, require_correctness=False) == [0, 1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def lm(tiny_checkpoint):
    return GuiHF(pretrained=str(tiny_checkpoint), device="cpu", batch_size=4)


def test_memory_holds_eq3_keys_and_eq4_values(lm):
    memory, report = build_memory(lm, SPEC, "ja", memory_size=1, require_correctness=False, max_new_tokens=6,
                                  model_name="tiny")
    assert report.candidates == 12 and report.kept == {d: 1 for d in ("AU", "AP", "WF", "WI", "AEL", "REL")}
    assert memory.layers == (1, 2, 3, 4) and memory.keys.shape == (4, 6, 64)
    prov = memory.provenance
    assert prov["lang"] == "ja" and prov["model"] == "tiny" and prov["require_correctness"] is False
    assert prov["data"] == {"source": "synthetic", "split": "memory", "seed": 0, "per_dimension": 2} and prov["memory_size"] == 1
    assert prov["sample_ids"] == [e["id"] for e in memory.entries]
    # recompute the first entry independently
    entry = memory.entries[0]
    en, tgt = next(p for p in parallel_pairs(SPEC, "ja", [entry["dimension"]]) if p[0]["id"] == entry["id"])
    out = answer_pairs(lm, [(en, tgt)], 6)[0]
    key = lm.last_token_states([_request(tgt, "mpr-direct-v1", 0, 6)], [3])[3][0]
    x_en = lm.last_token_states([_request(en, "mpr-cot-v1", 0, 6)], [3], continuations=[out.en_response])[3][0]
    x_tgt = lm.last_token_states([_request(tgt, "mpr-cot-v1", 0, 6)], [3], continuations=[out.tgt_response])[3][0]
    # built in padded batches of 4, recomputed alone: equal up to float32 summation order
    torch.testing.assert_close(memory.keys[2, 0], key, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(memory.values[2, 0], x_en - x_tgt, rtol=1e-4, atol=1e-4)
    assert not torch.equal(memory.values[1, 0], memory.values[2, 0])


def test_paper_rule_keeps_only_qualifying_pairs(lm):
    memory, report = build_memory(lm, SPEC, "ja", layers=[2], max_new_tokens=6)
    assert report.qualifying_total == sum(report.kept.values())  # fewer than 10 per dimension: all kept
    if memory is not None:
        assert all(e["qualifies"] and e["en_pred"] == e["answer"] != e["tgt_pred"] for e in memory.entries)


def test_items_of_the_evaluation_set_are_dropped(lm):
    memory, report = build_memory(lm, SPEC, "ja", layers=[2], require_correctness=False, max_new_tokens=2, exclude=SPEC)
    assert memory is None and report.overlap_dropped == 12 and report.candidates == 0


def test_build_command_reports_counts_and_refuses_the_evaluation_split(tiny_checkpoint, tmp_path, capsys):
    args = ["build", "--checkpoint", str(tiny_checkpoint), "--device", "cpu", "--lang", "ja", "--per-dimension", "2",
            "--max-new-tokens", "4", "--layers", "2-3", "--memory-size", "1", "--out", str(tmp_path / "m"),
            "--no-require-correctness", "--alpha", "0.1", "--layer", "2"]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "qualifying pairs:" in printed and "kept in memory: 6" in printed
    memory = XLIMemory.load(tmp_path / "m")
    assert memory.layers == (2, 3) and memory.provenance["defaults"] == {"layer": 2, "alpha": 0.1}
    assert memory.provenance["data"]["split"] == "memory"
    with pytest.raises(SystemExit):
        cli.main(args[:-4] + ["--split", "eval"])
    assert "invalid choice: 'eval'" in capsys.readouterr().err
