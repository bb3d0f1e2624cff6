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
from functools import cached_property
from pathlib import Path
from typing import Iterator, Mapping

from gui_core.errors import DataError

Box = tuple[int, int, int, int]
_BOUNDS = re.compile(r"\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*")
SYSTEM_UI = "com.android.systemui"
# How element ids ``[i]`` are assigned (and observations rendered, gui_tasks.sphinx.observation):
# ``official`` = the official code (breadth-first, its interactable rule), ``paper-prose`` = document order
# with the rule read from the paper's prose. The rendering that produced a prompt also parses its answer.
RENDERINGS = ("official", "paper-prose")
DEFAULT_RENDERING = "official"
# Bounds on a view hierarchy from outside (a device's dump, a data file): Android's own view trees stay far below
# them (uiautomator dumps of the SPHINX apps: < 30 levels, < 2,000 views). Beyond them the tree is refused by name.
MAX_XML_BYTES = 16 << 20
MAX_DEPTH = 256
MAX_NODES = 50_000
MAX_COORD = 1 << 20  # a screen coordinate beyond +-1,048,576 pixels is not a screen (Pillow cannot draw it)


def parse_bounds(s: str, *, file: str = "<memory>", row: int | None = None, field_name: str = "bounds") -> Box:
    """Official bounds string ``"[x1,y1][x2,y2]"`` (device pixels) to a box; DataError when malformed."""
    m = _BOUNDS.fullmatch(str(s))
    if not m:
        raise DataError(f"bad bounds {s!r}", file=file, row=row, field=field_name)
    if any(len(g) > 8 for g in m.groups()) or any(abs(int(g)) > MAX_COORD for g in m.groups()):
        raise DataError(f"bounds {str(s)[:80]!r} beyond +-{MAX_COORD} pixels", file=file, row=row, field=field_name)
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
        """Takes an action: clickable, long-clickable, checkable, scrollable or an editable text field (the
        ``paper-prose`` rendering's rule)."""
        return (any(self.flag(k) for k in ("clickable", "long-clickable", "checkable", "scrollable"))
                or self.get("class").endswith("EditText"))

    def official_actions(self) -> tuple[str, ...]:
        """The action verbs the official code offers on this view (``infra/hierarchy.py``, ``_available_actions``):
        ``text`` for a view of class exactly ``android.widget.EditText``, otherwise ``click`` (clickable or
        checkable) and ``longclick``; then ``swipe`` when scrollable. Empty for a view not visible to the user."""
        if self.get("visible-to-user", "true") != "true":
            return ()
        out: list[str] = []
        if self.get("class").strip() == "android.widget.EditText":
            out.append("text")
        else:
            if self.flag("clickable") or self.flag("checkable"):
                out.append("click")
            if self.flag("long-clickable"):
                out.append("longclick")
        if self.flag("scrollable"):
            out.append("swipe")
        return tuple(out)

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
    """Every rule key is an attribute of the view and matches (a key the view lacks never matches)."""
    return all(values_match(v, attrib.get(k), match_type) for k, v in rules.items())


@dataclass(frozen=True)
class Hierarchy:
    """Views in document (pre-)order; ``nodes[i].parent`` indexes into the same tuple.

    System UI (the status and navigation bars) is every subtree whose root view has package
    ``com.android.systemui``: it is not part of the screen for any search or rendering (the official code
    drops the top-level windows of that package; a nested one is dropped here too). ``bfs()`` is the
    official traversal: each remaining top-level window breadth-first, windows in document order."""

    nodes: tuple[Node, ...]
    size: tuple[int, int] | None = None  # screen size in pixels when known

    # --- construction ------------------------------------------------------------------
    @classmethod
    def from_xml(cls, text: str, *, file: str = "<memory>") -> "Hierarchy":
        """Parse a uiautomator dump under the size, depth and node bounds (``MAX_XML_BYTES``, ``MAX_DEPTH``,
        ``MAX_NODES``); DataError names the file and the offending node."""
        if len(text) > MAX_XML_BYTES:
            raise DataError(f"view hierarchy of {len(text)} characters; the bound is {MAX_XML_BYTES}", file=file)
        parser = ET.XMLPullParser(events=("start", "end"))
        nodes: list[Node] = []
        kids: dict[int, list[int]] = {}
        stack: list[int | None] = []  # the enclosing views of the element being read (None: not a <node>)
        depth = 0
        try:
            parser.feed(text)
            parser.close()
            events = list(parser.read_events())
        except ET.ParseError as exc:
            raise DataError(f"invalid view hierarchy XML: {exc}", file=file) from exc
        for event, el in events:  # document order, without recursion
            if event == "end":
                depth -= 1
                if stack:
                    stack.pop()
                continue
            depth += 1
            if depth > MAX_DEPTH:
                raise DataError(f"view hierarchy deeper than {MAX_DEPTH} levels", file=file, row=len(nodes))
            if el.tag != "node" or depth == 1:
                stack.append(None)
                continue
            parents = [p for p in stack if p is not None]
            if None in stack[1:]:  # a <node> inside a non-node element is not a view (nor is anything below it)
                stack.append(None)
                continue
            if len(nodes) >= MAX_NODES:
                raise DataError(f"view hierarchy of more than {MAX_NODES} views", file=file, row=len(nodes))
            i, parent = len(nodes), (parents[-1] if parents else None)
            attrib = dict(el.attrib)
            box = parse_bounds(attrib.get("bounds", ""), file=file, row=i, field_name="node.bounds")
            nodes.append(Node(attrib, len(parents), parent, box))
            kids.setdefault(parent if parent is not None else -1, []).append(i)
            stack.append(i)
        if not nodes:
            raise DataError("view hierarchy has no <node>", file=file)
        return cls(tuple(Node(n.attrib, n.depth, n.parent, n.box, tuple(kids.get(i, ()))) for i, n in enumerate(nodes)))

    @classmethod
    def from_file(cls, path: str | Path) -> "Hierarchy":
        p = Path(path)
        from gui_tasks.runs.input_files import read_text  # a regular file within the size bound

        text = read_text(p)
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
    def system_ui(self) -> frozenset[int]:
        """Indices of the views inside a system-UI subtree (status bar, navigation bar)."""
        return self._system_ui

    @cached_property
    def _system_ui(self) -> frozenset[int]:
        out: set[int] = set()
        for i, n in enumerate(self.nodes):  # document order: a parent comes before its children
            if n.get("package") == SYSTEM_UI or (n.parent is not None and n.parent in out):
                out.add(i)
        return frozenset(out)

    def visible(self, *, drop_system_ui: bool = True) -> Iterator[tuple[int, Node]]:
        """Nodes shown to a model in document order; system-UI subtrees are dropped by default."""
        sys_ui = self.system_ui() if drop_system_ui else frozenset()
        for i, n in enumerate(self.nodes):
            if i not in sys_ui:
                yield i, n

    def bfs(self, *, drop_system_ui: bool = True) -> list[int]:
        """Node indices in the official order: each top-level window breadth-first, windows in document order
        (``infra/hierarchy.py``: ``UIHierarchy._nodes``), system UI left out."""
        if drop_system_ui:
            return list(self._bfs_app)
        return self._bfs(frozenset())

    @cached_property
    def _bfs_app(self) -> tuple[int, ...]:
        return tuple(self._bfs(self.system_ui()))

    def _bfs(self, sys_ui: frozenset[int]) -> list[int]:
        out: list[int] = []
        for top, n in enumerate(self.nodes):
            if n.parent is not None or top in sys_ui:
                continue
            queue = [top]
            while queue:
                i = queue.pop(0)
                out.append(i)
                queue.extend(j for j in self.nodes[i].children if j not in sys_ui)
        return out

    def official_widgets(self) -> list[int]:
        """Interactable views of the official code, in its order: element id ``[k]`` is position k."""
        return [i for i in self.bfs() if self.nodes[i].official_actions()]

    def interactables(self, *, drop_system_ui: bool = True) -> list[int]:
        """Node indices of interactable views in document order: position k is element id ``[k]`` (Table 2)."""
        return [i for i, n in self.visible(drop_system_ui=drop_system_ui) if n.interactable]

    def element_ids(self, rendering: str = DEFAULT_RENDERING) -> list[int]:
        """Node indices of the element ids ``[0], [1], ...`` under ``rendering`` (one of RENDERINGS)."""
        if rendering == "official":
            return self.official_widgets()
        if rendering == "paper-prose":
            return self.interactables()
        raise ValueError(f"unknown rendering {rendering!r}; one of {RENDERINGS}")

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
        """First view in breadth-first order (``bfs``, system UI excluded) whose attributes satisfy ``rules`` and,
        with ``point``, whose bounds contain it: the official ``UIHierarchy.find_element``."""
        for i in self._bfs_app:
            n = self.nodes[i]
            if rules_match(rules, n.attrib, match_type) and (point is None or n.contains(*point)):
                return n
        return None

    def at(self, x: float, y: float) -> Node | None:
        """Deepest interactable view under a point, or None."""
        inter = set(self.interactables(drop_system_ui=False))
        hits = [(n.depth, i) for i, n in enumerate(self.nodes) if i in inter and n.contains(x, y)]
        return self.nodes[max(hits)[1]] if hits else None
