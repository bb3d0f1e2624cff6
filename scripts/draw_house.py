"""Draw the house from the code: ``docs/images/house.svg`` (linked from docs/layout.md).

The rooms (a top package, or a folder of ``gui_tasks``) and the arrows between them (a room imports another) are the
ones ``tests/test_package_layers.py`` checks (``_rooms``), each room on the floor drawn from the code (``_floors``: one
above the highest room it imports). Pure Python, no graphviz: boxes in rows, floor 1 at the bottom, an arrow from each
room down to every room it imports. ``tests/test_package_layers.py`` fails when the picture is not current.

    python scripts/draw_house.py          # write docs/images/house.svg
    python scripts/draw_house.py --check  # exit 1 when it is not current
"""

from __future__ import annotations

import html
import sys
from pathlib import Path
from typing import Mapping

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "house.svg"
BOX_W, BOX_H, GAP, ROW_H, LEFT, TOP = 170, 34, 18, 96, 90, 56


def _label(room: str) -> str:
    return room.replace(".", "/") + ("/" if "." in room else "")


def house_svg(rooms: Mapping[str, set[str]], floors: Mapping[str, int]) -> str:
    """The SVG text of the house: ``rooms`` maps each room to the rooms it imports, ``floors`` each room to its floor."""
    top = max(floors.values(), default=1)
    rows = {f: sorted(r for r in rooms if floors[r] == f) for f in range(1, top + 1)}
    widest = max((len(r) for r in rows.values()), default=1)
    width = LEFT + widest * (BOX_W + GAP) + GAP
    height = TOP + top * ROW_H + 20
    at: dict[str, tuple[float, float]] = {}  # room -> the top-left corner of its box
    for f, names in rows.items():
        y = TOP + (top - f) * ROW_H + (ROW_H - BOX_H) / 2
        x0 = LEFT + (widest - len(names)) * (BOX_W + GAP) / 2 + GAP
        for i, name in enumerate(names):
            at[name] = (x0 + i * (BOX_W + GAP), y)
    arrows = sorted((a, b) for a, deps in rooms.items() for b in deps if b in at)
    # each arrow leaves its room's bottom edge and reaches its target's top edge at its own point, ordered left to right
    outs = {r: sorted((b for a, b in arrows if a == r), key=lambda b: at[b]) for r in at}
    ins = {r: sorted((a for a, b in arrows if b == r), key=lambda a: at[a]) for r in at}

    def port(x: float, i: int, n: int) -> float:
        return x + BOX_W * (i + 1) / (n + 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
           f'viewBox="0 0 {width:g} {height:g}" font-family="sans-serif" font-size="13">',
           '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
           '<path d="M0,0 L8,4 L0,8 z" fill="#7a7a7a"/></marker></defs>',
           f'<rect width="{width:g}" height="{height:g}" fill="#ffffff"/>',
           f'<text x="14" y="24" font-size="15" font-weight="bold">The house drawn from the code: {len(rooms)} rooms, '
           f'{top} floors, {len(arrows)} arrows</text>',
           '<text x="14" y="43" fill="#555555">each arrow points down to a room imported; scripts/draw_house.py from '
           'tests/test_package_layers.py</text>']
    for f in range(1, top + 1):
        y = TOP + (top - f) * ROW_H
        out.append(f'<rect x="4" y="{y + 4:g}" width="{width - 8:g}" height="{ROW_H - 8:g}" rx="6" '
                   f'fill="{"#f4f6fa" if f % 2 else "#eaeef5"}"/>')
        out.append(f'<text x="14" y="{y + ROW_H / 2 + 4:g}" fill="#555555">floor {f}</text>')
    for a, b in arrows:
        (xa, ya), (xb, yb) = at[a], at[b]
        x1, x2 = port(xa, outs[a].index(b), len(outs[a])), port(xb, ins[b].index(a), len(ins[b]))
        out.append(f'<line x1="{x1:.1f}" y1="{ya + BOX_H:g}" x2="{x2:.1f}" y2="{yb:g}" stroke="#7a7a7a" '
                   f'stroke-opacity="0.5" marker-end="url(#head)"><title>{html.escape(a)} imports {html.escape(b)}</title>'
                   '</line>')
    for name, (x, y) in sorted(at.items()):
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="#ffffff" stroke="#2b4c7e"/>')
        out.append(f'<text x="{x + BOX_W / 2:g}" y="{y + BOX_H / 2 + 4:g}" text-anchor="middle">'
                   f'{html.escape(_label(name))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def current() -> str:
    """The house as the code draws it now."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_package_layers import _floors, _rooms

    rooms = _rooms()
    return house_svg(rooms, _floors(rooms))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    svg = current()
    if "--check" in args:
        ok = OUT.is_file() and OUT.read_text(encoding="utf-8") == svg
        print(f"{OUT.relative_to(ROOT)} is {'current' if ok else 'not current: run python scripts/draw_house.py'}")
        return 0 if ok else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(svg, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
