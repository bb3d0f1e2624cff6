"""Rendering: glyph coverage in all six scripts (cmap and .notdef), layout independent of language."""

from __future__ import annotations

import functools

import pytest
from PIL import Image, ImageDraw

from gui_tasks.mpr.schema import LANGS
from gui_tasks.synth import fonts
from gui_tasks.mpr.synth import build_questions
from gui_tasks.synth.questions import option_text, stem_text
from gui_tasks.synth.render import draw_text, fit, render, strings, text_width
from gui_tasks.synth.scene import APPS, screen

# A state that shows every optional element: sub-rows, cart items, toasts, the delete dialog.
RICH = {"wifi": True, "bt": True, "toast": "added", "cart_headphones": True, "d1": True, "n1": True}


def _screens():
    for app, pages in APPS.items():
        for page in pages:
            yield screen(app, page, RICH)
    yield screen("files", "root", {**RICH, "dialog": True, "toast": "select_first"})
    yield screen("notes", "list", {"toast": "deleted", "gone_n2": True})


@functools.lru_cache(maxsize=None)
def _mask(index: int, ch: str) -> bytes:
    im = Image.new("L", (40, 40), 0)
    ImageDraw.Draw(im).text((4, 4), ch, font=fonts.font(index, 24), fill=255)
    return im.tobytes()


def _notdef(index: int) -> bytes:
    return _mask(index, "\U0010fffd")  # a private-use code point no font maps: its .notdef glyph


def test_every_drawn_run_is_covered_by_the_font_chosen_for_it():
    log: list = []
    for scr in _screens():
        for lang in LANGS:
            render(scr, lang, log=log)
    assert {idx for idx, _ in log} == {0, 1, 2}  # Latin/Cyrillic, Thai and CJK fonts all used
    files = fonts.font_files()
    for idx, text in log:
        missing = {ch for ch in text if not ch.isspace() and ord(ch) not in fonts.cmap(files[idx])}
        assert not missing, (files[idx].name, text, missing)


def test_no_character_of_any_string_renders_as_the_missing_glyph_box():
    texts = [t for scr in _screens() for lang in LANGS for t in strings(scr, lang)]
    texts += [t for q in build_questions(0, per_dimension=4) for lang in LANGS
              for t in [stem_text(q, lang), *(option_text(q, i, lang) for i in range(4))]]
    chars = {ch for t in texts for ch in t if not ch.isspace()}
    assert not {ch for ch in chars if fonts.font_index_for(ch) is None}
    for ch in chars:
        idx = fonts.font_index_for(ch)
        if ch.isprintable() and not (0x0E31 <= ord(ch) <= 0x0E4E):  # Thai combining marks have no standalone box shape
            assert _mask(idx, ch) != _notdef(idx), (ch, fonts.font_files()[idx].name)
    for script in ("设置", "アラーム", "การตั้งค่า", "Настройки", "Paramètres"):
        assert len(fonts.runs(script)) == 1


def test_boxes_and_widgets_are_identical_across_languages():
    for scr in _screens():
        images = {lang: render(scr, lang) for lang in LANGS}
        for e in scr.elements:
            if e.role in ("toggle", "checkbox", "back") or (e.role == "icon" and e.icon != "heart"):
                crops = {im.crop(e.box).tobytes() for im in images.values()}
                assert len(crops) == 1, (scr.key, e.id)


def test_long_text_is_truncated_inside_its_box():
    assert fit("short", 17, 200) == "short"
    cut = fit("Économiseur d'énergie très très long " * 3, 17, 120)
    assert cut.endswith("…") and text_width(cut, 17) <= 120


def test_missing_fonts_give_an_error_naming_the_packages(monkeypatch, tmp_path):
    monkeypatch.setattr(fonts, "FONTS", (("thai", str(tmp_path / "nope.ttf"), "fonts-tlwg-garuda-ttf"),))
    fonts.font_files.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="fonts-tlwg-garuda-ttf.*install_fonts.sh|install_fonts.sh.*fonts-tlwg-garuda-ttf"):
            fonts.font_files()
    finally:
        monkeypatch.undo()
        fonts.font_files.cache_clear()
    assert len(fonts.font_files()) == 3


def test_draw_text_logs_runs_per_script():
    log: list = []
    draw_text(ImageDraw.Draw(Image.new("RGB", (300, 40))), (2, 20), "Wi-Fi 设置 ไฟ", 16, (255, 255, 255), log=log)
    assert [idx for idx, _ in log] == [0, 2, 1]
