"""Fonts for every script of the synthetic world, with per-character fallback.

Latin and Cyrillic come from DejaVu Sans, Thai from Noto Sans Thai, Chinese and Japanese
from Droid Sans Fallback (Debian packages, installed by ``scripts/install_fonts.sh``).
Each character is drawn with the first font whose character map contains it, so no
glyph falls back to a missing-glyph box.
"""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import ImageFont

# Searched in order; the first existing file of each entry is used.
FONT_CANDIDATES: tuple[tuple[str, ...], ...] = (
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",),
    ("/usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf", "/usr/share/fonts/truetype/tlwg/Garuda.ttf"),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
)
INSTALL_HINT = "run scripts/install_fonts.sh (Debian packages fonts-dejavu-core fonts-noto-core fonts-droid-fallback)"


@functools.lru_cache(maxsize=1)
def font_files() -> tuple[Path, ...]:
    """One font file per script family; a clear error names what is missing."""
    found, missing = [], []
    for options in FONT_CANDIDATES:
        hit = next((Path(p) for p in options if Path(p).is_file()), None)
        (found if hit else missing).append(hit or options[0])
    if missing:
        raise FileNotFoundError(f"fonts missing: {', '.join(map(str, missing))}; {INSTALL_HINT}")
    return tuple(found)


@functools.lru_cache(maxsize=None)
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    with TTFont(str(path), fontNumber=0, lazy=True) as tt:
        return frozenset(tt.getBestCmap() or {})


@functools.lru_cache(maxsize=64)
def font(index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_files()[index]), size)


def font_index_for(ch: str) -> int | None:
    """Index of the first font that has a glyph for ``ch`` (None if none has)."""
    cp = ord(ch)
    for i, path in enumerate(font_files()):
        if cp in _cmap(path):
            return i
    return None


def runs(text: str) -> list[tuple[int, str]]:
    """Split ``text`` into (font index, substring) runs; whitespace joins the current run."""
    out: list[tuple[int, str]] = []
    for ch in text:
        idx = font_index_for(ch)
        if idx is None or (ch.isspace() and out):
            idx = out[-1][0] if out else 0
        if out and out[-1][0] == idx:
            out[-1] = (idx, out[-1][1] + ch)
        else:
            out.append((idx, ch))
    return out


def missing_glyphs(text: str) -> set[str]:
    """Characters of ``text`` that no font can draw (whitespace excluded)."""
    return {ch for ch in text if not ch.isspace() and font_index_for(ch) is None}
