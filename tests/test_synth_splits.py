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
from gui_tasks.mpr.synth import build_mpr_synth, text_docs
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


# --- the synthetic GUI Knowledge Bench (same splits, same baselines) ---------------------------------------------

KN = 128  # questions per sub-task and language


@pytest.fixture(scope="module")
def gkb_docs() -> dict[str, dict[str, list[dict]]]:
    """{split: {lang: GUI-KB documents}} at KN per sub-task, built without rendering; the question is the one the tasks
    ask (the red-box question on Interface Perception)."""
    from gui_tasks.knowledge.synth import text_docs as gkb_text_docs

    return {split: gkb_text_docs(split, 0, KN, LANGS) for split in SPLITS}


def _gkb_pair(d: dict) -> tuple:
    """What a model is asked and the right answer: question and action text, red box, screens shown, the right option."""
    return (d["question"], d["action"], tuple(d["box"] or ()), tuple(d["screens"]), d["options"]["ABCDEFG".index(d["answer"])],
            d["answer_screen"])


@pytest.mark.parametrize("lang", LANGS)
def test_gkb_splits_share_no_question_answer_pair_and_no_screen(gkb_docs, lang):
    from gui_metrics.knowledge import SUBTASKS

    pairs = {s: {_gkb_pair(d) for d in gkb_docs[s][lang]} for s in SPLITS}
    screens = {s: {k for d in gkb_docs[s][lang] for k in d["screens"]} for s in SPLITS}
    # questions whose text names what they ask about (layout: the reference; plan: the goal) belong to one split
    # through it: not even the text pair recurs (state, widget and goal ask a few texts of every split's screens)
    owned = {s: {(d["question"], d["options"]["ABCD".index(d["answer"])]) for d in gkb_docs[s][lang]
                 if d["dimension"] in ("layout", "plan")} for s in SPLITS}
    for s in SPLITS:
        assert [d["dimension"] for d in gkb_docs[s][lang]] == [t for t in SUBTASKS for _ in range(KN)]
        assert len(pairs[s]) == KN * len(SUBTASKS)  # distinct questions, not the same one with other distractors
        for t in SPLITS:
            if s < t:
                assert not pairs[s] & pairs[t] and not screens[s] & screens[t] and not owned[s] & owned[t], (lang, s, t)


@pytest.mark.parametrize("lang", LANGS)
def test_gkb_text_only_baselines_fitted_on_train_score_chance_on_eval(gkb_docs, lang):
    from gui_metrics.knowledge import SUBTASKS
    from gui_tasks.synth.baselines import chance

    expect = chance(gkb_docs["eval"][lang])
    assert expect["state"] == pytest.approx(1 / 3) and expect["widget"] == pytest.approx(0.25)
    res = score(gkb_docs["train"][lang], gkb_docs["eval"][lang])
    for name in BASELINES:
        assert abs(res[name]["all"] - expect["all"]) <= 0.03, (lang, name, res[name])
        for sub in SUBTASKS:
            assert abs(res[name][sub] - expect[sub]) <= 0.10, (lang, name, sub, res[name][sub])


def test_gkb_yes_no_answers_balanced_and_option_texts_right_one_time_in_four(gkb_docs):
    from collections import Counter

    for split in SPLITS:
        docs = gkb_docs[split]["en"]
        for sub in ("state", "goal"):
            answers = Counter(d["options"]["ABC".index(d["answer"])] for d in docs if d["dimension"] == sub)
            assert set(answers) == {"yes", "no", "unknown"} and max(answers.values()) - min(answers.values()) <= 1
        for sub in ("widget", "layout"):
            right, shown = Counter(), Counter()
            for d in (d for d in docs if d["dimension"] == sub):
                right[d["options"]["ABCD".index(d["answer"])]] += 1
                shown.update(d["options"])
            for text, n in shown.items():
                assert abs(right[text] / n - 0.25) <= 0.1, (split, sub, text, right[text], n)


@pytest.mark.slow
def test_gkb_splits_share_no_rendered_screen(tmp_path):
    """100 GUI Knowledge Bench questions per sub-task and split (English screenshots): no image file of one split has
    the bytes of an image of another, and every row records its split."""
    from gui_tasks.knowledge.synth import build_knowledge_synth

    hashes = {}
    for split in SPLITS:
        root = tmp_path / split
        build_knowledge_synth(root, seed=0, per_subtask=100, langs=("en",), split=split)
        hashes[split] = {hashlib.sha256(p.read_bytes()).hexdigest() for p in (root / "images" / "en").glob("*.png")}
        rows = [json.loads(line) for line in (root / "en.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 800 and {json.loads(r["meta"])["split"] for r in rows} == {split}
        assert len(hashes[split]) > 800
    for s in SPLITS:
        for t in SPLITS:
            if s < t:
                assert not hashes[s] & hashes[t], (s, t)
