"""The (layer, alpha) search and the before/after embedding plot, on the tiny checkpoint and on constructed states."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from gui_models.hf_backend import GuiHF
from gui_tasks.mpr.xli.build import build_memory
from gui_tasks.mpr.xli.data import DataSpec
from gui_tasks.mpr.xli.plots import alignment, collect_states, draw_states, embed
from gui_tasks.mpr.xli.search import Point, SearchResult, draw_landscape, run_search, write_outputs

VAL = DataSpec(seed=0, per_dimension=1, split="search")


@pytest.fixture(scope="module")
def lm(tiny_checkpoint):
    return GuiHF(pretrained=str(tiny_checkpoint), device="cpu", batch_size=4)


@pytest.fixture(scope="module")
def memory_dir(lm, tmp_path_factory):
    memory, _ = build_memory(lm, DataSpec(seed=0, per_dimension=1, split="memory"), "ja", memory_size=1, require_correctness=False,
                             max_new_tokens=4)
    return str(memory.save(tmp_path_factory.mktemp("m") / "ja"))


def test_two_stage_search_order_best_and_files(lm, memory_dir, tmp_path):
    result = run_search(lm, VAL, "ja", memory_dir, layers=[1, 2, 3], alphas=[0.05, 0.1, 20.0], stage1_alpha=0.1, k=1,
                        max_new_tokens=4)
    stages = [(p.stage, p.layer, p.alpha) for p in result.points]
    best_layer = max((p for p in result.points if p.stage == "layer"), key=lambda p: p.score).layer
    assert stages == [("baseline", None, None), ("layer", 1, 0.1), ("layer", 2, 0.1), ("layer", 3, 0.1),
                      ("alpha", best_layer, 0.05), ("alpha", best_layer, 20.0)]
    assert result.best.score == max(p.score for p in result.points if p.stage != "baseline")
    assert lm.interventions.names == []  # restored
    paths = write_outputs(result, tmp_path)
    with open(tmp_path / "search.csv", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 6
    best = json.loads((tmp_path / "best.json").read_text(encoding="utf-8"))
    assert (best["layer"], best["alpha"]) == (result.best.layer, result.best.alpha) and best["k"] == 1
    assert all(p.stat().st_size > 0 for p in paths)


def test_search_tie_goes_to_the_first_configuration_and_full_grid_draws_a_surface(tmp_path):
    pts = [Point("baseline", None, None, 0.5, {}), *(Point("grid", layer, a, 0.6 if (layer, a) != (3, 0.2) else 0.7, {"AU": 0.6})
                                                    for layer in (1, 2, 3) for a in (0.1, 0.2))]
    result = SearchResult("zh", "m", 3, pts)
    assert (result.best.layer, result.best.alpha) == (3, 0.2)
    tie = SearchResult("zh", "m", 3, [pts[0], Point("layer", 4, 0.1, 0.6, {}), Point("layer", 5, 0.1, 0.6, {})])
    assert tie.best.layer == 4
    draw_landscape(result, tmp_path / "grid.png")
    assert (tmp_path / "grid.png").stat().st_size > 1000
    assert "best: layer 3, alpha 0.2: 70.0 (+20.0 vs no intervention)" in result.render_text()


def test_embedding_and_alignment_on_constructed_states(tmp_path):
    rng = np.random.default_rng(0)
    en = rng.normal(size=(12, 8)) + 5.0
    far = rng.normal(size=(12, 8)) - 5.0
    assert alignment(en, en) == pytest.approx(1.0)
    assert alignment(en, -en) == pytest.approx(-1.0)
    coords, used = embed(np.concatenate([en, far]), "pca")
    assert used == "pca" and coords.shape == (24, 2)
    # PCA's first axis separates the two clusters
    signs_en, signs_far = set(np.sign(coords[:12, 0])), set(np.sign(coords[12:, 0]))
    assert len(signs_en) == len(signs_far) == 1 and signs_en != signs_far
    states = {"layer": 2, "alpha": 0.1, "en": en, "before": {"ja": far}, "after": {"ja": 0.5 * (en + far)}}
    summary = draw_states(states, tmp_path / "tsne.png", method="tsne")
    assert summary["method"] == "tsne" and (tmp_path / "tsne.png").stat().st_size > 1000
    assert summary["alignment"]["ja"]["after"] > summary["alignment"]["ja"]["before"]


def test_states_after_steering_move_and_english_is_shared(lm, memory_dir):
    states = collect_states(lm, VAL, [memory_dir], layer=2, alpha=5.0, k=1)
    before, after = states["before"]["ja"], states["after"]["ja"]
    assert states["en"].shape == before.shape == after.shape == (8, 64)
    np.testing.assert_allclose(np.linalg.norm(after, axis=1), np.linalg.norm(before, axis=1), rtol=1e-5)
    assert not np.allclose(after, before)


def test_search_and_tsne_commands(tiny_checkpoint, memory_dir, tmp_path, capsys):
    from gui_tasks.mpr.xli import cli

    common = ["--checkpoint", str(tiny_checkpoint), "--device", "cpu", "--memory", memory_dir, "--per-dimension", "1"]
    assert cli.main(["search", *common, "--lang", "ja", "--layers", "1-2", "--alphas", "0.5", "--stage1-alpha", "0.1",
                     "--max-new-tokens", "2", "--out", str(tmp_path / "s")]) == 0
    assert "best: layer" in capsys.readouterr().out
    assert json.loads((tmp_path / "s" / "best.json").read_text(encoding="utf-8"))["layer"] in (1, 2)
    assert cli.main(["tsne", *common, "--layer", "2", "--alpha", "5", "--method", "pca", "--out", str(tmp_path / "t")]) == 0
    summary = json.loads((tmp_path / "t" / "tsne.json").read_text(encoding="utf-8"))
    assert summary["method"] == "pca" and set(summary["alignment"]) == {"ja"}
    assert "mean cosine to the English counterpart" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["tsne", *common, "--layer", "2", "--alpha", "5", "--split", "eval", "--out", str(tmp_path / "u")])
    assert "invalid choice: 'eval'" in capsys.readouterr().err
