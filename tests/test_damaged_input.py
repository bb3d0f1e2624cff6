"""Damaged input fails loudly: truncated screenshots, cut or edited synthetic caches, corrupted cache lines."""

from __future__ import annotations

import json

import pytest
from PIL import Image, ImageFile

from gui_core.errors import DataError
from gui_tasks.harness.lmms_rows import doc_to_visual, load_image, read_jsonl
from gui_tasks.synth.cache import MANIFEST, damage
from gui_tasks.mpr.synth import load_or_build, set_name


def _png(path, size=(64, 48)):
    Image.new("RGB", size, (200, 10, 10)).save(path)
    return path


def test_truncated_png_is_rejected_with_file_and_document_although_lmms_eval_allows_truncation(tmp_path):
    import lmms_eval.utils  # noqa: F401  (sets PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True, as in a real run)

    good = _png(tmp_path / "good.png", (300, 200))
    Image.effect_noise((300, 200), 64).convert("RGB").save(good)
    cut = tmp_path / "cut.png"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True
    with Image.open(cut) as im:
        im.load()  # Pillow alone accepts it under lmms-eval's setting: the model would see grey padding
    with pytest.raises(DataError, match=rf"{cut}, field 'images': image cannot be fully decoded \(document synth-au-0001\)"):
        doc_to_visual({"id": "synth-au-0001", "images": [str(good), str(cut)]})
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True  # restored for lmms-eval
    assert load_image(str(good)).size == (300, 200)


def test_not_an_image_is_rejected_with_its_file(tmp_path):
    bad = tmp_path / "x.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(DataError, match=f"{bad}, field 'image'"):
        load_image(str(bad), field="image")


def test_corrupted_cache_line_names_file_and_line(tmp_path):
    path = tmp_path / "en.jsonl"
    path.write_text('{"id": 1}\n{"id": 2\n', encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path}, row 1: line 2: invalid JSON \(Expecting .,. delimiter\); delete the file to rebuild it"):
        read_jsonl(path)


@pytest.mark.parametrize("damage_it, problem", [
    (lambda root: (root / "en.jsonl").write_text((root / "en.jsonl").read_text()[:-200]), "bytes, expected"),
    (lambda root: (root / "en.jsonl").write_text((root / "en.jsonl").read_text().replace('"A"', '"B"', 1)), "content differs"),
    (lambda root: next((root / "images").rglob("*.png")).unlink(), "missing"),
])
def test_damaged_synthetic_cache_is_detected_and_rebuilt(tmp_path, capfd, damage_it, problem):
    files = load_or_build(seed=7, per_dimension=1, root=tmp_path)
    root = files["en"].parent
    original = files["en"].read_bytes()
    assert (root / MANIFEST).is_file() and damage(root) is None
    damage_it(root)
    assert problem in damage(root)
    again = load_or_build(seed=7, per_dimension=1, root=tmp_path)
    assert again["en"].read_bytes() == original and damage(root) is None
    err = capfd.readouterr().err
    assert f"cached set {tmp_path / set_name(7, 1)} is damaged, rebuilding it:" in err and problem in err
    assert json.loads(again["en"].read_text().splitlines()[0])["lang"] == "en"


@pytest.mark.parametrize("spec, params, message", [
    ("gui_xli", {"gui_xli.memory": "m", "gui_xli.alpha": "nan", "gui_xli.layer": "3"},
     r"gui_xli.alpha='nan' is out of range; allowed: a finite number in \[0, inf\)"),
    ("gui_xli", {"gui_xli.memory": "m", "gui_xli.alpha": "0.1", "gui_xli.layer": "abc"},
     r"gui_xli.layer='abc' is not an integer; allowed: an integer in \[1, inf\)"),
    ("gui_xli", {"gui_xli.memory": "m", "gui_xli.alpha": "0.1", "gui_xli.layer": "0"}, r"gui_xli.layer='0' is out of range"),
    ("gui_xli", {"gui_xli.memory": "m", "gui_xli.alpha": "0.1", "gui_xli.layer": "2", "gui_xli.k": "2.5"},
     r"gui_xli.k='2.5' is not an integer"),
    ("crop", {"crop.alpha": "abc"}, r"crop.alpha='abc' is not a finite number; allowed: a finite number in \(0, 1\]"),
    ("crop", {"crop.alpha": "inf"}, r"crop.alpha='inf' is out of range; allowed: a finite number in \(0, 1\]"),
    ("crop", {"crop.alpha": "0.8", "crop.max_pixels": "lots"}, r"crop.max_pixels='lots' is not an integer"),
])
def test_intervention_parameters_name_parameter_value_and_range(spec, params, message):
    from gui_interventions import build_run

    with pytest.raises(ValueError, match=message):
        build_run(spec, params)


def test_number_accepts_what_is_in_range():
    from gui_interventions.params import number

    assert number("crop.alpha", "0.8", low=0, low_open=True, high=1) == 0.8
    assert number("gui_xli.layer", "13", low=1, integer=True) == 13 and number("x", 4.0, integer=True) == 4


def test_damaged_rows_file_is_rewritten_not_reused(session_cache):
    from gui_tasks.harness.lmms_rows import write_rows

    rows = [{"id": "a", "lang": "en"}, {"id": "b", "lang": "en"}]
    path = write_rows(rows, "damage_test", {"source": "synthetic", "lang": "en"})
    good = path.read_bytes()
    path.write_bytes(good[:10])  # cut by a full disk, an interrupted copy...
    assert write_rows(rows, "damage_test", {"source": "synthetic", "lang": "en"}) == path and path.read_bytes() == good
    assert read_jsonl(path) == rows
