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



# Query parameters that carry a credential (matched as a part of the name split at ``_``, ``-`` and ``.``, any case).
SECRET_PARTS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential", "credentials",
                          "sig", "signature", "auth", "authorization", "session"})


def _secret_name(name: str) -> bool:
    import re

    parts = [p for p in re.split(r"[_\-.]", name.lower()) if p]
    return any(p in SECRET_PARTS for p in parts) or name.lower().replace("-", "").replace("_", "") in SECRET_PARTS


def url_secrets(url: str) -> list[str]:
    """What in ``url`` looks like a credential: its user-info (``user:KEY@host``) and the names of key-like query
    parameters (``?api_key=...``, ``&token=...``); empty when none. Values are never returned."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(str(url))
    except ValueError:
        return []
    found = ["user-info (user:password@)"] if "@" in parts.netloc else []
    found += [f"query parameter {name!r}" for name, _v in parse_qsl(parts.query, keep_blank_values=True)
              if _secret_name(name)]
    return found


def redact_url(url: str) -> str:
    """``url`` with its user-info and the values of key-like query parameters replaced by ``***``."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(str(url))
    except ValueError:
        return "<a URL that cannot be parsed>"
    netloc = parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc
    netloc = ("***@" + netloc) if "@" in parts.netloc else netloc
    query = urlencode([(k, "***" if _secret_name(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def check_base_urls(urls: Sequence[str], owner: str = "gui_openai") -> None:
    """Refuse a ``base_url`` that carries a credential: lmms-eval writes the model args into every results file (and
    logs them), so a key there would be in every run file. The message shows the URL redacted."""
    for url in urls:
        found = url_secrets(url)
        if found:
            raise ValueError(f"{owner}: base_url {redact_url(url)} carries a credential ({', '.join(found)}); lmms-eval "
                             "writes model args into its results files. Give the server's URL without it and put the "
                             "key in an environment variable named by api_key_env=VAR")
