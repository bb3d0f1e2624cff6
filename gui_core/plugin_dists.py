"""Which distribution an entry point comes from, and whether it is ours: every plugin loader's precedence rule."""

from __future__ import annotations

from typing import Any

OWN_DIST = "gui-eval"  # built-in plugins win a name collision against third-party ones


def dist_name(dist: Any) -> str:
    """The distribution's name as its metadata gives it ("?" for None or a nameless one)."""
    return (dist.metadata["Name"] if dist is not None else None) or "?"


def ep_dist_name(ep: Any) -> str:
    """The name of the distribution an entry point was installed by (gui-eval's own: also from a checkout's setup.cfg
    with no metadata installed)."""
    dist = getattr(ep, "dist", None)
    return OWN_DIST if dist is None and getattr(ep, "own", False) is True else dist_name(dist)


def is_own(ep: Any) -> bool:
    """Whether an entry point is one of gui-eval's own (a built-in; also one read from a checkout's setup.cfg:
    ``gui_core.plugin_groups.Entry.own``)."""
    return getattr(ep, "own", False) is True or ep_dist_name(ep).replace("_", "-").lower() == OWN_DIST
