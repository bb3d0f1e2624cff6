"""Fonts for every script of the synthetic world, with per-character fallback.

Exactly one file per script family, so a set renders to the same bytes on every machine
that ran ``scripts/install_fonts.sh``: Latin, Cyrillic and symbols from DejaVu Sans, Thai from
Garuda (TLWG), Chinese and Japanese from Droid Sans Fallback. Each character is drawn with
the first font whose character map holds it, so no glyph falls back to a missing-glyph box.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from PIL import ImageFont

# (script family, font file, Debian package that ships it), searched in this order per character.
FONTS: tuple[tuple[str, str, str], ...] = (
    ("latin+cyrillic", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "fonts-dejavu-core"),
    ("thai", "/usr/share/fonts/truetype/tlwg/Garuda.ttf", "fonts-tlwg-garuda-ttf"),
    ("cjk", "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "fonts-droid-fallback"),
)
FONT_DIR_ENV = "GUI_EVAL_FONT_DIR"  # a folder holding the same file names, for machines without the packages


@functools.lru_cache(maxsize=1)
def font_files() -> tuple[Path, ...]:
    """The font file of each script family, in fallback order; a clear error names what to install.

    ``$GUI_EVAL_FONT_DIR`` (if set) is searched first by file name.
    """
    extra = os.environ.get(FONT_DIR_ENV)
    found, missing = [], []
    for family, path, package in FONTS:
        candidates = ([Path(extra) / Path(path).name] if extra else []) + [Path(path)]
        hit = next((c for c in candidates if c.is_file()), None)
        if hit is None:
            missing.append((family, path, package))
        found.append(hit)
    if missing:
        names = ", ".join(f"{fam} ({Path(p).name})" for fam, p, _ in missing)
        pkgs = " ".join(pkg for *_, pkg in missing)
        raise FileNotFoundError(
            f"fonts for the synthetic GUI world are missing: {names}. Install them with "
            f"`bash scripts/install_fonts.sh` (Debian: apt-get install -y {pkgs}), or put the files in ${FONT_DIR_ENV}.")
    return tuple(found)


@functools.lru_cache(maxsize=None)
def cmap(path: Path) -> frozenset[int]:
    """Code points that the font file at ``path`` has a glyph for (fontTools)."""
    from fontTools.ttLib import TTFont

    with TTFont(str(path), fontNumber=0, lazy=True) as tt:
        return frozenset(tt.getBestCmap() or {})


@functools.lru_cache(maxsize=64)
def font(index: int, size: int) -> ImageFont.FreeTypeFont:
    """The ``index``-th font of ``font_files()`` at ``size`` pixels."""
    return ImageFont.truetype(str(font_files()[index]), size)


@functools.lru_cache(maxsize=4096)
def font_index_for(ch: str) -> int | None:
    """Index of the first font that has a glyph for ``ch`` (None if none has)."""
    cp = ord(ch)
    for i, path in enumerate(font_files()):
        if cp in cmap(path):
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


def describe() -> list[str]:
    """File names of the fonts in use (recorded in every scene file)."""
    return [p.name for p in font_files()]
