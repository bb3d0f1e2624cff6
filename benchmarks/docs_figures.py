"""The measured figures the docs quote, from one place: ``docs/figures.json``.

A page quotes a figure as ``<!-- figure:KEY -->VALUE`` (the comment is invisible on GitHub). ``check`` lists every
quote whose VALUE is not the file's, and every key the file has that no page quotes; ``write`` sets figures in the
file and rewrites every quote of them. Benchmark scripts that measure a figure call ``write`` (or print the command).

    python benchmarks/docs_figures.py                       # check: exit 1 on any mismatch
    python benchmarks/docs_figures.py demo_setup="207 s"    # record a new measurement everywhere
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures.json"
QUOTE = re.compile(r"<!-- figure:([a-z0-9_]+) -->")


def figures() -> dict[str, str]:
    data = json.loads(FIGURES.read_text(encoding="utf-8"))
    return {k: v["value"] for k, v in data.items() if not k.startswith("_")}


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def check() -> list[str]:
    """Every quote that disagrees with ``docs/figures.json`` (page, key, quoted text), and unquoted or unknown keys."""
    known, seen, problems = figures(), set(), []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for m in QUOTE.finditer(text):
            key = m.group(1)
            seen.add(key)
            if key not in known:
                problems.append(f"{page.name}: figure {key!r} is not in docs/figures.json")
            elif not text.startswith(known[key], m.end()):
                problems.append(f"{page.name}: figure {key} reads {text[m.end():m.end() + len(known[key]) + 10]!r}, "
                                f"docs/figures.json says {known[key]!r}")
    problems += [f"docs/figures.json: {k} is quoted by no page" for k in sorted(set(known) - seen)]
    return problems


def write(updates: dict[str, str]) -> None:
    """Set ``updates`` in the file and in every quote (the old value right after the marker is replaced)."""
    data = json.loads(FIGURES.read_text(encoding="utf-8"))
    old = figures()
    for key, value in updates.items():
        data.setdefault(key, {})["value"] = value
    FIGURES.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for key, value in updates.items():
            marker = f"<!-- figure:{key} -->"
            if key in old:
                text = text.replace(marker + old[key], marker + value)
        page.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv:
        write(dict(a.split("=", 1) for a in argv))
    problems = check()
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
