"""Documents are hashed by content whatever they hold (issue 30): PIL images by pixels, files by bytes, never str()."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from gui_core.pixels import pixels_sha256
from gui_tasks.runs.doc_images import image_pixels, resolve_path
from gui_tasks.harness.rescore import UnhashableValue, canonical_json, doc_sha256


def _png(path: Path, color=(10, 20, 30), size=(6, 4)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path)
    return path


def test_pil_images_hash_by_pixels_not_by_object_identity():
    a, b = Image.new("RGB", (6, 4), (1, 2, 3)), Image.new("RGB", (6, 4), (1, 2, 3))
    assert doc_sha256({"image": a}) == doc_sha256({"image": b})
    assert doc_sha256({"image": a}) != doc_sha256({"image": Image.new("RGB", (4, 6), (1, 2, 3))})  # size counts
    assert doc_sha256({"image": a}) != doc_sha256({"image": a.convert("RGBA")})  # mode counts
    c = a.copy()
    c.putpixel((5, 3), (1, 2, 4))
    assert doc_sha256({"image": a}) != doc_sha256({"image": c})


def test_pixel_hash_is_the_documented_digest():
    im = Image.new("L", (2, 1), 7)
    assert pixels_sha256(im) == hashlib.sha256(b"L;2x1;;" + bytes([7, 7])).hexdigest()


def test_a_decoded_png_and_the_image_it_was_written_from_hash_alike(tmp_path):
    im = Image.new("RGB", (5, 3), (200, 100, 0))
    im.save(tmp_path / "a.png")
    assert doc_sha256({"image": Image.open(tmp_path / "a.png")}) == doc_sha256({"image": im})


def test_image_hash_is_the_same_in_another_process():
    code = ("from PIL import Image; from gui_tasks.harness.rescore import doc_sha256; "
            "print(doc_sha256({'image': Image.new('RGB', (6, 4), (1, 2, 3)), 'id': 'x'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == doc_sha256({"image": Image.new("RGB", (6, 4), (1, 2, 3)), "id": "x"})


def test_relative_paths_are_hashed_by_the_bytes_of_the_file_in_the_task_folder(tmp_path):
    _png(tmp_path / "screens" / "a.png")
    doc = {"id": "a", "image": "screens/a.png"}
    before = doc_sha256(doc, tmp_path)
    assert before != doc_sha256(doc)  # without the folder the text is hashed, not the file
    _png(tmp_path / "screens" / "a.png", color=(255, 255, 255))  # replaced by a blank screenshot
    assert doc_sha256(doc, tmp_path) != before
    (tmp_path / "screens" / "a.png").unlink()
    assert doc_sha256(doc, tmp_path) == doc_sha256(doc)  # a missing file is its text


def test_paths_inside_json_metadata_and_lists_are_resolved_too(tmp_path):
    _png(tmp_path / "s" / "b.png")
    doc = {"images": ["s/b.png"], "meta": '{"frames": ["s/b.png"]}'}
    first = doc_sha256(doc, tmp_path)
    _png(tmp_path / "s" / "b.png", color=(0, 0, 0))
    assert doc_sha256(doc, tmp_path) != first


def test_bytes_numpy_dates_and_sets_have_canonical_forms():
    import datetime

    doc = {"raw": b"\x00\x01", "arr": np.arange(3, dtype=np.int16), "n": np.float32(0.5), "day": datetime.date(2024, 1, 2),
           "tags": {"b", "a"}}
    again = {"raw": bytearray(b"\x00\x01"), "arr": np.arange(3, dtype=np.int16), "n": 0.5, "day": "2024-01-02",
             "tags": frozenset({"a", "b"})}
    assert doc_sha256(doc) == doc_sha256(again)
    assert doc_sha256(doc) != doc_sha256({**doc, "arr": np.arange(3, dtype=np.int32)})


def test_an_object_without_canonical_form_is_refused_naming_the_field():
    class Widget:
        pass

    with pytest.raises(UnhashableValue, match=r"field 'meta\.parts\[1\]' holds a .*Widget, which has no canonical form"):
        doc_sha256({"id": "x", "meta": {"parts": [1, Widget()]}})
    with pytest.raises(UnhashableValue, match="has no canonical JSON form"):
        canonical_json({"x": object()})


def test_image_pixels_reads_every_in_document_form(tmp_path):
    path = _png(tmp_path / "s" / "c.png", color=(9, 8, 7))
    data = path.read_bytes()
    for value, base in ((Image.open(path), None), (str(path), None), ("s/c.png", tmp_path), (data, None),
                        ({"bytes": data, "path": None}, None), ({"bytes": None, "path": "s/c.png"}, tmp_path)):
        im = image_pixels(value, base)
        assert im is not None and im.size == (6, 4) and im.convert("RGB").getpixel((0, 0)) == (9, 8, 7), value
    assert image_pixels("s/c.png") is None  # relative without the task's folder: not guessed from the working directory
    assert image_pixels("just a question?", tmp_path) is None
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    assert image_pixels("notes.txt", tmp_path) is None and resolve_path("notes.txt", tmp_path) == tmp_path / "notes.txt"


class _FolderTask:
    """The few members of an lmms-eval task that re-scoring reads; documents name screenshots relative to ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.config = type("Config", (), {"metadata": {"version": "1"}, "metric_list": [{"metric": "hit"}]})()
        self.eval_docs = [{"id": "a", "image": "screens/a.png", "answer": "x"}]
        self.gui_eval_task_folder = str(folder)  # what gui_tasks.harness.rescore.load_task sets

    def doc_to_target(self, doc):
        return doc["answer"]

    def process_results(self, doc, results):
        return {"hit": float(results[0] == doc["answer"])}

    def aggregation(self):
        return {"hit": lambda v: sum(v) / len(v)}


def test_rescoring_refuses_a_submission_whose_relative_path_screenshot_was_replaced(tmp_path):
    from gui_tasks.submit.leaderboard import _rescore

    shot = _png(tmp_path / "screens" / "a.png")
    samples = [{"doc_id": 0, "target": "x", "response": "x"}]
    logged = _rescore("t", {"version": "1"}, samples, lambda name: _FolderTask(tmp_path))["doc_hashes"][0]
    file_hash = hashlib.sha256(shot.read_bytes()).hexdigest()
    expected = hashlib.sha256(canonical_json({"answer": "x", "id": "a", "image": f"file-sha256:{file_hash}"}).encode()).hexdigest()
    assert logged == expected
    _png(tmp_path / "screens" / "a.png", color=(255, 255, 255))
    again = _rescore("t", {"version": "1"}, samples, lambda name: _FolderTask(tmp_path))["doc_hashes"][0]
    assert again != logged
