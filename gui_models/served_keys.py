"""Which key ``gui_openai`` sends to which server."""

from __future__ import annotations

import os
from collections.abc import Sequence

# The URL checks live in gui_core.redact (one place: the Hub's $HF_ENDPOINT uses them too).
from gui_core.redact import SECRET_PARTS, redact_url, url_secrets  # noqa: F401

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



def check_base_urls(urls: Sequence[str], owner: str = "gui_openai") -> None:
    """Refuse a ``base_url`` that carries a credential: lmms-eval writes the model args into every results file (and
    logs them), so a key there would be in every run file. The message shows the URL redacted."""
    for url in urls:
        found = url_secrets(url)
        if found:
            raise ValueError(f"{owner}: base_url {redact_url(url)} carries a credential ({', '.join(found)}); lmms-eval "
                             "writes model args into its results files. Give the server's URL without it and put the "
                             "key in an environment variable named by api_key_env=VAR")
