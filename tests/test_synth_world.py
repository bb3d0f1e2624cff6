"""The synthetic GUI world end to end: determinism, cross-language alignment, answers that follow from the scene files."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from gui_tasks.mpr.schema import DIMENSIONS, LANGS, validate_row
from gui_tasks.synth import i18n
from gui_tasks.mpr.synth import build_mpr_synth
from gui_tasks.synth.questions import INTERACTION_OF, region_of, relation_of
from gui_tasks.synth.scene import ICON_FUNCTIONS, screen, tap

N = 8


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    root = tmp_path_factory.mktemp("synth")
    files = build_mpr_synth(root, seed=0, per_dimension=N)
    rows = {lang: [json.loads(line) for line in files[lang].read_text(encoding="utf-8").splitlines()] for lang in LANGS}
    return root, rows


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes().replace(str(root.resolve()).encode(), b"<root>"))
    return h.hexdigest()


def test_same_seed_same_bytes_different_seed_different(built, tmp_path):
    root, _ = built
    again = tmp_path / "again"
    build_mpr_synth(again, seed=0, per_dimension=N)
    assert _digest(again) == _digest(root)
    other = tmp_path / "other"
    build_mpr_synth(other, seed=1, per_dimension=N)
    assert _digest(other) != _digest(root)


def test_pngs_carry_no_metadata_chunks(built):
    root, _ = built
    for png in list((root / "images" / "en").glob("*.png"))[:20]:
        data, pos, chunks = png.read_bytes(), 8, set()
        while pos < len(data):
            length = int.from_bytes(data[pos:pos + 4], "big")
            chunks.add(data[pos + 4:pos + 8])
            pos += 12 + length
        assert chunks <= {b"IHDR", b"IDAT", b"IEND"}, chunks


def test_every_row_is_canonical_with_absolute_existing_images(built):
    root, rows = built
    for lang, rs in rows.items():
        assert len(rs) == N * len(DIMENSIONS)
        for i, r in enumerate(rs):
            validate_row(r, file=f"{lang}.jsonl", row_index=i)
            assert r["lang"] == lang and r["source"] == "synthetic"
            assert all(Path(p).is_absolute() and Path(p).is_file() for p in r["images"])
            assert Path(json.loads(r["meta"])["scene"]).is_file()


def test_languages_are_aligned(built):
    _, rows = built
    ref = [(r["id"], r["dimension"], r["answer"], len(r["images"]), json.loads(r["meta"])["scene_id"]) for r in rows["en"]]
    for lang in LANGS[1:]:
        assert [(r["id"], r["dimension"], r["answer"], len(r["images"]), json.loads(r["meta"])["scene_id"]) for r in rows[lang]] == ref
        assert all(r["question"] != e["question"] for r, e in zip(rows[lang], rows["en"]))
        # same screens: image file names are keyed on the language-independent screen
        assert [[Path(p).name for p in r["images"]] for r in rows[lang]] == [[Path(p).name for p in r["images"]] for r in rows["en"]]


def test_correct_letter_is_balanced(built):
    _, rows = built
    for dim in DIMENSIONS:
        counts = Counter(r["answer"] for r in rows["en"] if r["dimension"] == dim)
        assert counts == {letter: N // 4 for letter in "ABCD"}


def test_options_are_distinct_in_every_language(built):
    _, rows = built
    assert all(len(set(r["options"])) == 4 for rs in rows.values() for r in rs)


def test_sequences_have_rich_and_sparse_frames(built):
    _, rows = built
    assert min(len(r["images"]) for r in rows["en"] if r["dimension"] == "RI") >= 3
    assert {len(r["images"]) for r in rows["en"] if r["dimension"] == "SI"} == {2}
    assert {len(r["images"]) for r in rows["en"] if r["dimension"] not in ("RI", "SI")} == {1}


def _scene(row: dict) -> dict:
    return json.loads(Path(json.loads(row["meta"])["scene"]).read_text(encoding="utf-8"))


def _element(scene: dict, eid: str, frame: int = 0) -> dict:
    return next(e for e in scene["frames"][frame]["screen"]["elements"] if e["id"] == eid)


def _screen(scene: dict, frame: int = 0):
    s = scene["frames"][frame]["screen"]
    return screen(s["app"], s["page"], s["state"])


def _answer_text(row: dict) -> str:
    return row["options"]["ABCD".index(row["answer"])]


@pytest.mark.parametrize("lang", LANGS)
def test_answers_follow_from_the_scene_files(built, lang):
    """Recompute each answer from the annotations alone (boxes, roles, icons, the transition table)."""
    _, rows = built
    for row in rows[lang]:
        scene = _scene(row)
        facts, answer, dim = scene["facts"], _answer_text(row), row["dimension"]
        opt = i18n.as_option
        if dim == "AEL":
            assert answer == opt(i18n.REGIONS[region_of(_element(scene, facts["element"])["box"])][lang])
        elif dim == "REL":
            a, b = _element(scene, facts["element"])["box"], _element(scene, facts["reference"])["box"]
            assert answer == opt(i18n.RELATIONS[relation_of(a, b)][lang])
        elif dim == "WF":
            assert answer == opt(i18n.FUNCTIONS[ICON_FUNCTIONS[_element(scene, facts["element"])["icon"]]][lang])
        elif dim == "WI":
            el = _element(scene, facts["element"])
            kind = "chevron" if el["role"] == "row" else el["role"]
            assert answer == opt(i18n.INTERACTIONS[INTERACTION_OF[kind]][lang])
        elif dim == "AU":
            assert scene["frames"][0]["boxed"] == facts["element"]
            assert _screen(scene).to_json() == scene["frames"][0]["screen"]  # the annotation is the world's screen
            outcome = tap(_screen(scene), facts["element"])[2]
            assert outcome == facts["outcome"]
            head = i18n.OUTCOMES[outcome][lang].split("{x}")[0]
            assert answer.startswith(opt(head)) if head else answer.endswith(i18n.OUTCOMES[outcome][lang].split("{x}")[1])
        elif dim == "AP":
            scr = _screen(scene)
            for step in facts["steps"]:
                assert step[1] == "act_tap"
            assert " → " in answer or len(facts["steps"]) == 1
            final = scr
            for eid in facts["tapped_ids"]:
                page, state, _ = tap(final, eid)
                final = screen(final.app, page, state)
            assert bool(dict(final.state).get(facts["goal_state"]["key"])) == facts["goal_state"]["value"]
        elif dim in ("RI", "SI"):
            template = i18n.GOALS[facts["goal"]][lang].split("{x}")[0]
            assert answer.lower().startswith(template.lower())
            # the frames are consecutive states of the world: replaying the taps gives the next frame
            for k in range(len(scene["frames"]) - 1):
                tapped = scene["frames"][k]["tapped"]
                page, state, _ = tap(_screen(scene, k), tapped)
                if dim == "RI":
                    nxt = scene["frames"][k + 1]["screen"]
                    assert (page, state) == (nxt["page"], nxt["state"])


def test_scene_files_hold_labels_in_every_language(built):
    _, rows = built
    scene = _scene(rows["en"][0])
    labels = scene["frames"][0]["labels"]
    assert labels and all(set(v) == set(LANGS) for v in labels.values())
    assert all(len(e["box"]) == 4 for e in scene["frames"][0]["screen"]["elements"])
