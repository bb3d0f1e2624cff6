"""Which key ``gui_openai`` sends to which server."""

from __future__ import annotations

import os
from typing import Sequence


DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_KEY_HOSTS = ("api.openai.com",)  # where the default key variable may go (over https)


def key_for(urls: Sequence[str], api_key_env: str | None) -> str | None:
    """The key to send: the named variable's value (the user named the hosts with ``base_url``); without a name,
    ``OPENAI_API_KEY`` only when every URL is https to :data:`DEFAULT_KEY_HOSTS`."""
    from urllib.parse import urlsplit

    if api_key_env:
        return os.environ.get(str(api_key_env))
    if all(urlsplit(u).scheme == "https" and (urlsplit(u).hostname or "") in DEFAULT_KEY_HOSTS for u in urls):
        return os.environ.get(DEFAULT_KEY_ENV)
    return None

