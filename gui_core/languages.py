"""The six aligned languages every multilingual benchmark and the synthetic world share (MPR-GUI seed section 3.1)."""

from __future__ import annotations

# Seed section 3.1: six strictly aligned languages, lower case everywhere.
LANGS: tuple[str, ...] = ("en", "zh", "fr", "ru", "ja", "th")
