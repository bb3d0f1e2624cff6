"""Thin task YAMLs over shared bases: the generator's full task texts, factored into lmms-eval ``include:`` files.

Every generated task text is cut into its top-level blocks (a key, its indented value and the comments above it).
Keys whose blocks split a folder's tasks the same way form a cluster; each group of two or more tasks with the same
blocks for a cluster gets one base file holding them, and each task file keeps its name, the list of its bases and
the blocks it shares with nobody. lmms-eval's include is a top-level merge (``dict.update``), so factoring whole
top-level blocks gives exactly the config of the full text; :func:`factor` checks that for every task it writes.

Base files end in ``_yaml``, not ``.yaml``: lmms-eval's task index reads only ``*.yaml`` files (its own tasks'
``_default_template_yaml`` use the same convention), so a base never registers as a task.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from typing import Any

BASE_SUFFIX = "_yaml"
# a cluster's blocks go into bases only when they are at least this many lines (smaller ones stay in the task file:
# an include entry costs a line and, at index time, a file read)
MIN_BASE_LINES = 5
_KEY = re.compile(r"^([A-Za-z_][\w-]*):")


def blocks(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """``(leading comment lines, [(key, block text)])`` of a block-style YAML mapping text.

    A comment line belongs to the block of the key below it, except the file's leading comments (its header).
    """
    lines = text.splitlines(keepends=True)
    header: list[str] = []
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        header.append(lines[i])
        i += 1
    out: list[tuple[str, str]] = []
    pending: list[str] = []  # comments waiting for their key
    for line in lines[i:]:
        match = _KEY.match(line)
        if match:
            out.append((match.group(1), "".join(pending) + line))
            pending = []
        elif line.startswith("#"):
            pending.append(line)
        elif out and (line[:1] in (" ", "\t", "-", "\n", "\r") or not line.strip()):
            key, block = out[-1]
            out[-1] = (key, block + "".join(pending) + line)
            pending = []
        else:
            raise ValueError(f"line {line!r} is not a top-level key, an indented value or a comment")
    if pending:
        raise ValueError(f"comment lines at the end of the text belong to no key: {pending!r}")
    return header, out


def base_name(folder: str, label: str) -> str:
    """The file name of a base: never ``*.yaml``, so lmms-eval's index skips it."""
    return f"_{folder}_{label}{BASE_SUFFIX}"


def factor(files: dict[str, str], folder: str) -> dict[str, str]:
    """File name -> text: ``files`` (full task and group texts of one folder) as thin task files plus base files.

    Files that are not task configs (groups) are kept as they are. Raises ``ValueError`` when a factored task would
    not load to the config of its full text.
    """
    parsed: dict[str, tuple[list[str], dict[str, str]]] = {}
    out: dict[str, str] = {}
    for name, text in files.items():
        header, items = blocks(text)
        keys = [k for k, _ in items]
        if keys.count("task") != 1 or len(set(keys)) != len(keys) or "include" in keys or "group" in keys:
            out[name] = text  # a group, or a text this factoring does not handle: written as it is
            continue
        parsed[name] = (header, dict(items))
    tasks = sorted(parsed)
    # key -> the partition of the tasks by that key's block (a task without the key is its own part)
    partition: dict[str, tuple] = {}
    order: dict[str, int] = {}
    for name in tasks:
        for pos, key in enumerate(parsed[name][1]):
            order.setdefault(key, pos)
    for key in sorted(order, key=lambda k: (order[k], k)):
        if key == "task":
            continue
        groups: dict[str, list[str]] = defaultdict(list)
        for name in tasks:
            block = parsed[name][1].get(key)
            groups[block if block is not None else f"\0{name}"].append(name)
        partition[key] = tuple(sorted(tuple(g) for g in groups.values()))
    clusters: dict[tuple, list[str]] = defaultdict(list)  # keys that split the tasks alike travel together
    for key, parts in partition.items():
        clusters[parts].append(key)
    includes: dict[str, list[str]] = defaultdict(list)
    factored: dict[str, set[str]] = defaultdict(set)
    for parts, keys in clusters.items():
        shared = [p for p in parts if len(p) > 1 and all(k in parsed[p[0]][1] for k in keys)]
        for i, members in enumerate(shared):
            body = "".join(parsed[members[0]][1][k] for k in keys)
            if body.count("\n") < MIN_BASE_LINES:
                continue
            label = "common" if len(members) == len(tasks) else keys[0] + ("" if len(shared) == 1 else f"_{i + 1}")
            base = base_name(folder, label)
            header = parsed[members[0]][0]
            out[base] = "".join(header) + f"# Shared base of {len(members)} task files (their include: lists it).\n" + body
            for member in members:
                includes[member].append(base)
                factored[member].update(keys)
    for name in tasks:
        header, items = parsed[name]
        text = "".join(header) + items["task"]
        bases = includes.get(name, [])
        if bases:
            text += "include:\n" + "".join(f"  - {b}\n" for b in bases)
        text += "".join(block for key, block in items.items() if key != "task" and key not in factored[name])
        out[name] = text
        _check(name, files[name], text, {b: out[b] for b in bases})
    return out


class _Function(str):
    """A ``!function`` value, kept as its dotted name (equal only to another ``!function`` of that name)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Function) and str.__eq__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)


@functools.lru_cache(maxsize=1)
def _plain_loader() -> type:
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    Loader.add_constructor("!function", lambda loader, node: _Function(loader.construct_scalar(node)))
    return Loader


@functools.lru_cache(maxsize=256)
def _load_base(text: str) -> dict:
    return load_plain(text)


def load_plain(text: str) -> Any:
    """A YAML text as data, ``!function`` values kept as :class:`_Function` names (nothing is imported)."""
    import yaml

    return yaml.load(text, Loader=_plain_loader())


def _check(name: str, full: str, thin: str, bases: dict[str, str]) -> None:
    merged: dict[str, Any] = {}
    for base in bases.values():  # disjoint keys: the order of the bases does not matter
        merged.update(_load_base(base))
    own = load_plain(thin)
    own.pop("include", None)
    merged.update(own)
    if merged != load_plain(full):
        raise ValueError(f"{name}: the thin file over {sorted(bases)} does not load to its full config")


def inline(path) -> str:
    """The full text of a thin task file: its own blocks with its bases' blocks in place of ``include:`` (a template
    to copy into another folder, where the bases are not)."""
    from pathlib import Path

    path = Path(path)
    header, items = blocks(path.read_text(encoding="utf-8"))
    text = "".join(header)
    for key, block in items:
        if key != "include":
            text += block
            continue
        names = load_plain(block)["include"]
        for name in [names] if isinstance(names, str) else names:
            text += "".join(b for _, b in blocks((path.parent / name).read_text(encoding="utf-8"))[1])
    return text
