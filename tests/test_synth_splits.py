"""Content splits of the synthetic MPR-GUI world and text-only baselines (issue 22).

The splits share no (question, correct answer) pair and no rendered screen; baselines that read only the text,
fitted on ``train``, score chance on ``eval`` in every language (25% +- 3 points overall, +- 10 per dimension).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from gui_tasks.mpr.schema import DIMENSIONS, LANGS
from gui_tasks.synth.baselines import BASELINES, score, tokens
from gui_tasks.synth.mpr import build_mpr_synth, text_docs
from gui_tasks.synth.splits import SPLITS, brand_split, check_split, owner_split, split_of
from gui_tasks.synth.scene import BRANDS

N = 128  # questions per dimension and language in the text-only checks


@pytest.fixture(scope="module")
def docs() -> dict[str, dict[str, list[dict]]]:
    """{split: {lang: documents}} at N per dimension, built without rendering."""
    return {split: text_docs(split, 0, N, LANGS) for split in SPLITS}


def test_split_names_and_owners():
    assert SPLITS == ("eval", "memory", "search", "train")
    with pytest.raises(ValueError, match="unknown split 'test'"):
        check_split("test")
    for app, brands in BRANDS.items():  # two brands of every app per split, round robin
        assert [brand_split(app, b) for b in brands] == list(SPLITS) * 2
    assert owner_split("brand|notes|Jotter") == "memory"
    assert owner_split("GOAL|x") == split_of("GOAL|x") and split_of("GOAL|x") in SPLITS


@pytest.mark.parametrize("lang", LANGS)
def test_splits_share_no_question_answer_pair(docs, lang):
    pairs = {s: {(d["question"], d["options"]["ABCD".index(d["answer"])]) for d in docs[s][lang]} for s in SPLITS}
    for s in SPLITS:
        assert len(docs[s][lang]) == N * len(DIMENSIONS)
        for t in SPLITS:
            if s < t:
                assert not pairs[s] & pairs[t], (lang, s, t, sorted(pairs[s] & pairs[t])[:3])


@pytest.mark.parametrize("lang", LANGS)
def test_text_only_baselines_fitted_on_train_score_chance_on_eval(docs, lang):
    res = score(docs["train"][lang], docs["eval"][lang])
    for name in BASELINES:
        assert abs(res[name]["all"] - 0.25) <= 0.03, (lang, name, res[name])
        for dim in DIMENSIONS:
            assert abs(res[name][dim] - 0.25) <= 0.10, (lang, name, dim, res[name][dim])


def test_baselines_find_a_tell_when_there_is_one():
    """The baselines are not blind themselves: on a set whose answer is always the longest option that echoes the
    question, longest, overlap, prior and lookup all score 100%."""
    docs = [{"id": f"q{i}", "lang": "en", "dimension": "AU", "question": f"What does item {i} open?",
             "options": ["No", f"It opens item {i} for sure", "Maybe", "Never"], "answer": "B"} for i in range(8)]
    res = score(docs, docs)
    assert {n: res[n]["all"] for n in BASELINES} == {"option_prior": 1.0, "pair_lookup": 1.0, "word_overlap": 1.0,
                                                      "longest": 1.0, "shortest": 0.0}


def test_overlap_tokens_are_words_or_characters_of_unspaced_scripts():
    assert tokens("Tap the 'Wi-Fi' switch") == {"tap", "the", "wi", "fi", "switch"}
    assert tokens("点击第3行") == {"点", "击", "第", "行", "3"}
    assert tokens("แตะแถว 2") == {"แ", "ต", "ะ", "ถ", "ว", "2"}


@pytest.mark.slow
def test_splits_share_no_rendered_screen(tmp_path):
    """Hundreds of questions per dimension (English screenshots; every language draws the same screens): no image
    file of one split has the bytes of an image of another, and no screen state occurs in two splits."""
    hashes, states = {}, {}
    for split in SPLITS:
        root = tmp_path / split
        build_mpr_synth(root, seed=0, per_dimension=100, langs=("en",), split=split)
        hashes[split] = {hashlib.sha256(p.read_bytes()).hexdigest() for p in (root / "images" / "en").glob("*.png")}
        states[split] = {json.dumps(f["screen"], sort_keys=True) for p in (root / "scenes").glob("*.json")
                         for f in json.loads(p.read_text(encoding="utf-8"))["frames"]}
        rows = [json.loads(line) for line in (root / "en.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 800 and {json.loads(r["meta"])["split"] for r in rows} == {split}
        assert len(hashes[split]) > 500
    for s in SPLITS:
        for t in SPLITS:
            if s < t:
                assert not hashes[s] & hashes[t] and not states[s] & states[t], (s, t)
