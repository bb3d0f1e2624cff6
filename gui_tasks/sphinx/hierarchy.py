"""Android view hierarchies: one tree type for official SPHINX screens, the simulator and a live device.

The official material stores each screen as a uiautomator dump (``<hierarchy><node .../></hierarchy>``,
attributes ``text, resource-id, class, package, content-desc, checkable, checked, clickable, ...,
bounds="[x1,y1][x2,y2]"``; PKU-ASE-RISE/Sphinx ``groundtruth/<task>/<app>/<step>.xml``). Evaluators match
on those attribute names, observation modes render from this tree, and the simulator and an adb
device both produce it, so every consumer sees one shape.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

from gui_tasks.errors import DataError

Box = tuple[int, int, int, int]
_BOUNDS = re.compile(r"\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*")
SYSTEM_UI = "com.android.systemui"


def parse_bounds(s: str, *, file: str = "<memory>", row: int | None = None, field_name: str = "bounds") -> Box:
    """Official bounds string ``"[x1,y1][x2,y2]"`` (device pixels) to a box; DataError when malformed."""
    m = _BOUNDS.fullmatch(str(s))
    if not m:
        raise DataError(f"bad bounds {s!r}", file=file, row=row, field=field_name)
    x1, y1, x2, y2 = map(int, m.groups())
    return x1, y1, x2, y2


def format_bounds(box: Box) -> str:
    return "[{},{}][{},{}]".format(*box)


def center(box: Box) -> tuple[int, int]:
    """Integer centre, as Android tools tap it."""
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


@dataclass(frozen=True)
class Node:
    """One view: its attributes (strings, uiautomator names), depth in the tree and parent index."""

    attrib: Mapping[str, str]
    depth: int
    parent: int | None
    box: Box
    children: tuple[int, ...] = field(default=())

    def get(self, key: str, default: str = "") -> str:
        return self.attrib.get(key, default)

    def flag(self, key: str) -> bool:
        return self.attrib.get(key, "false") == "true"

    @property
    def interactable(self) -> bool:
        """Takes an action: clickable, long-clickable, checkable, scrollable or an editable text field."""
        return (any(self.flag(k) for k in ("clickable", "long-clickable", "checkable", "scrollable"))
                or self.get("class").endswith("EditText"))

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.box
        return x1 <= x <= x2 and y1 <= y <= y2


def values_match(expected: str, actual: str | None, match_type: str) -> bool:
    """SPHINX rule matching (section 3.2.1): ``equal`` is string equality, ``include`` substring (case-sensitive)."""
    if actual is None:
        return False
    if match_type == "equal":
        return str(actual) == str(expected)
    if match_type == "include":
        return str(expected) in str(actual)
    raise ValueError(f"match type must be 'equal' or 'include', got {match_type!r}")


def rules_match(rules: Mapping[str, str], attrib: Mapping[str, str], match_type: str) -> bool:
    return all(values_match(v, attrib.get(k), match_type) for k, v in rules.items())


@dataclass(frozen=True)
class Hierarchy:
    """Views in document (pre-)order; ``nodes[i].parent`` indexes into the same tuple."""

    nodes: tuple[Node, ...]
    size: tuple[int, int] | None = None  # screen size in pixels when known

    # --- construction ------------------------------------------------------------------
    @classmethod
    def from_xml(cls, text: str, *, file: str = "<memory>") -> "Hierarchy":
        """Parse a uiautomator dump; DataError names the file and the offending node."""
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise DataError(f"invalid view hierarchy XML: {exc}", file=file) from exc
        nodes: list[Node] = []
        kids: dict[int, list[int]] = {}

        def walk(el: ET.Element, depth: int, parent: int | None) -> None:
            for child in el:
                if child.tag != "node":
                    continue
                i = len(nodes)
                attrib = dict(child.attrib)
                box = parse_bounds(attrib.get("bounds", ""), file=file, row=i, field_name="node.bounds")
                nodes.append(Node(attrib, depth, parent, box))
                kids.setdefault(parent if parent is not None else -1, []).append(i)
                walk(child, depth + 1, i)

        walk(root, 0, None)
        if not nodes:
            raise DataError("view hierarchy has no <node>", file=file)
        return cls(tuple(Node(n.attrib, n.depth, n.parent, n.box, tuple(kids.get(i, ()))) for i, n in enumerate(nodes)))

    @classmethod
    def from_file(cls, path: str | Path) -> "Hierarchy":
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError(f"cannot read view hierarchy: {exc}", file=str(p)) from exc
        return cls.from_xml(text, file=str(p))

    @classmethod
    def build(cls, flat: list[tuple[int, Mapping[str, str]]], size: tuple[int, int] | None = None) -> "Hierarchy":
        """From ``(depth, attrib)`` pairs in document order (how the simulator describes its screens)."""
        nodes: list[Node] = []
        stack: list[int] = []
        kids: dict[int, list[int]] = {}
        for i, (depth, attrib) in enumerate(flat):
            while len(stack) > depth:
                stack.pop()
            parent = stack[-1] if stack else None
            nodes.append(Node(dict(attrib), depth, parent, parse_bounds(attrib["bounds"])))
            kids.setdefault(parent if parent is not None else -1, []).append(i)
            stack.append(i)
        return cls(tuple(Node(n.attrib, n.depth, n.parent, n.box, tuple(kids.get(i, ()))) for i, n in enumerate(nodes)), size)

    def to_xml(self) -> str:
        """A uiautomator-style dump of this tree (what an adb device or the official files hold)."""
        root = ET.Element("hierarchy", rotation="0")
        made: list[ET.Element] = []
        for n in self.nodes:
            parent = root if n.parent is None else made[n.parent]
            made.append(ET.SubElement(parent, "node", {k: str(v) for k, v in n.attrib.items()}))
        return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n" + ET.tostring(root, encoding="unicode")

    # --- queries -------------------------------------------------------------------------
    def visible(self, *, drop_system_ui: bool = True) -> Iterator[tuple[int, Node]]:
        """Nodes shown to a model; the status and navigation bars (``com.android.systemui``) are dropped by default."""
        for i, n in enumerate(self.nodes):
            if drop_system_ui and n.get("package") == SYSTEM_UI:
                continue
            yield i, n

    def interactables(self, *, drop_system_ui: bool = True) -> list[int]:
        """Node indices of interactable views in document order: position k is element id ``[k]`` (Table 2)."""
        return [i for i, n in self.visible(drop_system_ui=drop_system_ui) if n.interactable]

    def is_leaf_interactable(self, i: int, *, drop_system_ui: bool = True) -> bool:
        """No interactable view below it (simplified text keeps only these, section 3.4.1)."""
        inter = set(self.interactables(drop_system_ui=drop_system_ui))
        todo = list(self.nodes[i].children)
        while todo:
            j = todo.pop()
            if j in inter:
                return False
            todo.extend(self.nodes[j].children)
        return True

    def find(self, rules: Mapping[str, str], match_type: str = "equal", point: tuple[float, float] | None = None) -> Node | None:
        """First view (document order) whose attributes satisfy ``rules``; with ``point``, the deepest such view
        containing it (the view an action at that point lands on)."""
        hits = [n for n in self.nodes if rules_match(rules, n.attrib, match_type) and (point is None or n.contains(*point))]
        if not hits:
            return None
        return max(hits, key=lambda n: n.depth) if point is not None else hits[0]

    def at(self, x: float, y: float) -> Node | None:
        """Deepest interactable view under a point, or None."""
        inter = set(self.interactables(drop_system_ui=False))
        hits = [(n.depth, i) for i, n in enumerate(self.nodes) if i in inter and n.contains(x, y)]
        return self.nodes[max(hits)[1]] if hits else None
