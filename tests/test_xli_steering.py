"""GUI-XLI on the tiny checkpoint: Eq. 6, alpha = 0, retrieval (Eq. 5), hooks removed, memory files, presets."""

from __future__ import annotations

import math

import pytest
import torch

from gui_core.sample_faults import RunFault
from gui_interventions import build_run
from gui_interventions.payloads import RequestContext
from gui_interventions.xli import PRESETS, GuiXLI, steer
from gui_interventions.xli_memory import XLIMemory, resolve
from gui_models.hf_backend import GuiHF

from test_backend import make_requests
from xli_helpers import hand_memory

HIDDEN = 64  # tiny checkpoint (gui_models.tiny_model.TEXT)


def test_steer_matches_eq6_on_a_hand_computed_example():
    h = torch.tensor([3.0, 4.0])  # ||h|| = 5
    v = torch.tensor([10.0, -40.0])
    # h + 0.1 v = (4, 0) -> rescaled to norm 5: (5, 0)
    torch.testing.assert_close(steer(h, v, 0.1), torch.tensor([5.0, 0.0]))
    assert torch.equal(steer(h, v, 0.0), h)


def test_steer_preserves_norm_and_direction_moves_toward_v():
    torch.manual_seed(0)
    h, v = torch.randn(5, 16), torch.randn(5, 16)
    out = steer(h, v, 0.7)
    torch.testing.assert_close(out.norm(dim=-1), h.norm(dim=-1))
    cos = torch.nn.functional.cosine_similarity
    assert bool((cos(out, v) > cos(h, v)).all())
    half = h.to(torch.bfloat16)
    assert torch.equal(steer(half, v, 0.0), half)  # alpha = 0 is exact in the model's dtype too


def test_retrieval_picks_the_entries_a_hand_built_memory_says():
    eye = torch.eye(4)
    keys = torch.stack([eye[0], eye[1], eye[2], -eye[0], eye[0] + eye[1]])
    values = torch.arange(5 * 4, dtype=torch.float32).reshape(5, 4)
    mem = hand_memory(keys, values, ["AU", "AU", "AU", "AU", "WF"])
    query = torch.tensor([2.0, 0.1, 0.0, 0.0])  # closest: e0, then e4 (dimension WF), then e1
    got = mem.retrieve(query, 1, mem.candidates("AU"), k=2)
    assert got.indices == (0, 1)  # only AU entries; e3 (opposite) last
    torch.testing.assert_close(got.vector, values[[0, 1]].mean(0))
    assert got.similarities[0] == pytest.approx(2 / math.sqrt(4.01))
    assert mem.retrieve(query, 1, mem.candidates("RI"), k=2).indices == (0, 4)  # RI: union of the basic dimensions
    assert mem.retrieve(query, 1, mem.candidates("AU", scope="all"), k=1).indices == (0,)
    assert mem.candidates("AU", memory_size=2) == [0, 1]
    assert mem.candidates("WI") == [0, 1, 2, 3, 4]  # no WI entries: fall back to the union
    assert len(mem.retrieve(query, 1, [0, 1], k=10).indices) == 2  # k larger than the candidates


def test_memory_round_trip_and_lookup_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_XLI_MEMORY_DIR", str(tmp_path))
    mem = hand_memory(torch.randn(3, 8), torch.randn(3, 8), ["AU", "AP", "AP"], layers=(2, 3),
                      provenance={"model": "tiny", "sample_ids": ["a", "b", "c"]})
    mem.save(tmp_path / "my-mem")
    back = XLIMemory.load("my-mem")
    assert resolve("my-mem") == tmp_path / "my-mem"
    assert back.layers == (2, 3) and back.counts() == {"AU": 1, "AP": 2}
    assert torch.equal(back.keys, mem.keys) and torch.equal(back.values, mem.values)
    assert back.provenance["model"] == "tiny" and back.lang == "ja"
    with pytest.raises(ValueError, match="holds layers \\[2, 3\\]"):
        back.layer_index(1)
    with pytest.raises(FileNotFoundError, match="gui-eval xli build"):
        XLIMemory.load("missing")


def test_memories_live_under_the_harness_cache_unless_told_otherwise(monkeypatch, tmp_path):
    from gui_interventions.xli_memory import memory_root
    from gui_core.paths import cache_dir

    monkeypatch.delenv("GUI_XLI_MEMORY_DIR", raising=False)
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path / "cache"))
    assert memory_root() == cache_dir() / "xli_memories"
    monkeypatch.setenv("GUI_XLI_MEMORY_DIR", str(tmp_path / "mine"))
    assert memory_root() == tmp_path / "mine"


def test_presets_are_table_5():
    assert {k: (v["layer"], v["alpha"]) for k, v in PRESETS.items()} == {
        "qwen2.5-vl-7b/zh": (16, 0.12), "qwen2.5-vl-7b/ru": (18, 0.1), "qwen2.5-vl-7b/ja": (13, 0.1),
        "internvl2.5-8b/zh": (12, 0.12), "internvl2.5-8b/th": (17, 0.06), "internvl2.5-8b/ja": (14, 0.1)}
    mem = hand_memory(torch.randn(2, 8), torch.randn(2, 8), ["AU", "AU"], layers=tuple(range(1, 20)), lang="zh")
    plugin = GuiXLI(memory=mem, preset="qwen2.5-vl-7b/zh", layer=15)
    assert (plugin.layer, plugin.alpha, plugin.memory_size) == (15, 0.12, 10)  # explicit beats preset
    with pytest.raises(ValueError, match="Table 5 presets"):
        GuiXLI(memory=mem, preset="gpt")
    with pytest.raises(ValueError, match="decode must be one of"):
        GuiXLI(memory=mem, layer=1, alpha=0.1, decode="sometimes")


# --- on the tiny checkpoint, through the backend ---------------------------------------------------


@pytest.fixture(scope="module")
def lm(tiny_checkpoint):
    return GuiHF(pretrained=str(tiny_checkpoint), device="cpu", batch_size=2)


def _mem(tmp_path_factory, scale=1.0):
    torch.manual_seed(3)
    mem = hand_memory(torch.randn(4, HIDDEN), scale * torch.randn(4, HIDDEN), ["AU", "AU", "AP", "AP"], layers=(1, 2, 3, 4))
    return str(mem.save(tmp_path_factory.mktemp("mem") / "m"))


def _docs(lm, n, lang="ja"):
    """``make_requests`` rows that also carry the document fields gui_xli reads."""
    reqs = make_requests(lm, n=n)
    for i, doc in enumerate(lm.task_dict["t"]["test"]):
        doc.update(lang=lang, dimension=("AU", "AP")[i % 2])
    return reqs


def _run(lm, reqs, selection=None, **params):
    lm.interventions = build_run(selection, {f"gui_xli.{k}": v for k, v in params.items()} if selection else {})
    try:
        return lm.generate_until(reqs)
    finally:
        plugins = lm.interventions.plugins
        lm.interventions = build_run(None)
        lm._last_plugins = plugins


def test_alpha_zero_gives_identical_outputs(lm, tmp_path_factory):
    mem = _mem(tmp_path_factory)
    plain = _run(lm, _docs(lm, 4))
    zero = _run(lm, _docs(lm, 4), "gui_xli", memory=mem, layer=2, alpha=0.0, k=2)
    assert zero == plain
    strong = _run(lm, _docs(lm, 4), "gui_xli", memory=mem, layer=2, alpha=50.0, k=2)
    assert strong != plain  # the same hook with a real strength does change the answers


def test_steered_prompt_state_equals_formula_in_padded_batches(lm, tmp_path_factory):
    """h^(3) of each row's last real token, with the steering on layer 3, is Eq. 6 of the unsteered state."""
    mem_path = _mem(tmp_path_factory)
    memory = XLIMemory.load(mem_path)
    reqs = [lm._request_context(r) for r in _docs(lm, 3)]
    reqs[1] = reqs[1].with_(text=reqs[1].text + " and a much longer question so that the other rows are padded")
    lm.batch_size_per_gpu = 3  # one padded batch
    before = lm.last_token_states(reqs, [2, 3])
    lm.interventions = build_run("gui_xli", {"gui_xli.memory": mem_path, "gui_xli.layer": 3, "gui_xli.alpha": 0.4, "gui_xli.k": 2})
    try:
        after = lm.last_token_states(reqs, [2, 3])
        plugin = lm.interventions.plugins[0][1]
        retrieved = plugin.last_retrievals
    finally:
        lm.interventions = build_run(None)
        lm.batch_size_per_gpu = 2
    for i, req in enumerate(reqs):
        found = memory.retrieve(before[3][i], 3, memory.candidates(req.doc["dimension"]), 2)
        assert retrieved[i].indices == found.indices
        assert set(found.indices) <= ({0, 1} if req.doc["dimension"] == "AU" else {2, 3})
        torch.testing.assert_close(after[3][i], steer(before[3][i], found.vector, 0.4), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(after[3].norm(dim=-1), before[3].norm(dim=-1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(after[2], before[2])


def test_rows_in_other_languages_are_not_steered(lm, tmp_path_factory):
    mem = _mem(tmp_path_factory)
    plain = _run(lm, _docs(lm, 2, lang="en"))
    assert _run(lm, _docs(lm, 2, lang="en"), "gui_xli", memory=mem, layer=2, alpha=50.0) == plain
    assert lm._last_plugins[0][1].last_retrievals == [None, None]


def test_hooks_removed_after_requests_and_on_error(lm, tmp_path_factory):
    mem = _mem(tmp_path_factory)
    plain = _run(lm, _docs(lm, 4))
    _run(lm, _docs(lm, 4), "gui_xli", memory=mem, layer=2, alpha=50.0)
    assert not any(layer._forward_hooks for layer in lm.layers)
    assert _run(lm, _docs(lm, 4)) == plain
    wrong = hand_memory(torch.randn(2, 8), torch.randn(2, 8), ["AU", "AU"], layers=(2,))  # hidden 8 != 64: raises in the hook
    lm.interventions = build_run("gui_xli", {"gui_xli.memory": str(wrong.save(tmp_path_factory.mktemp("w") / "w")),
                                             "gui_xli.layer": 2, "gui_xli.alpha": 0.1})
    try:
        with pytest.raises(RunFault, match="size 8"):  # the run's fault, not the documents': never contained
            lm.generate_until(_docs(lm, 2))
    finally:
        lm.interventions = build_run(None)
    assert not any(layer._forward_hooks for layer in lm.layers)
    assert _run(lm, _docs(lm, 4)) == plain


def test_decode_modes_differ_only_after_the_prompt(lm, tmp_path_factory):
    mem = _mem(tmp_path_factory, scale=3.0)
    outs = {mode: _run(lm, _docs(lm, 4), "gui_xli", memory=mem, layer=2, alpha=5.0, decode=mode)
            for mode in ("none", "reuse", "retrieve")}
    # the first generated token depends only on the prompt pass, which every mode steers alike
    firsts = {mode: [o[:1] for o in out] for mode, out in outs.items()}
    assert firsts["none"] == firsts["reuse"] == firsts["retrieve"]
    assert outs["none"] != outs["reuse"]


def test_request_stage_payload_without_document_is_steered_with_all_entries():
    mem = hand_memory(torch.eye(3), torch.eye(3), ["AU", "AP", "WF"], layers=(1,))
    plugin = GuiXLI(memory=mem, layer=1, alpha=0.1)
    from gui_interventions.payloads import ForwardContext

    ctx = ForwardContext(None, None, {}, [RequestContext(text="q", images=(), doc_id=0, task="t", gen_kwargs={})], layers=[None])
    assert plugin._rows(ctx) == [None]
    assert mem.candidates(None) == [0, 1, 2]
