"""Help text for a terminal: a docstring's reST markup (``literal``, :func:`name`) as plain backquoted text."""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|obj|ref|doc):`~?([^`]+)`")


def plain(text: str | None) -> str:
    """``text`` with reST roles and double backquotes written as single backquotes (argparse prints descriptions as
    they are: no ``%`` formatting, so none is escaped here either)."""
    return _ROLE.sub(r"`\1`", text or "").replace("``", "`")
