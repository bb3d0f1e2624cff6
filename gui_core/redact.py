"""Secrets out of URLs and of any text a server sent, before it is shown, logged, stored or written (one place).

lmms-eval writes model args into every results file, and a task's not-run reason lands in ``*_results.json``, the
stopped-rows file and the ``datasets`` cache: a credential in a URL's user-info, a key-like query parameter, a token
in a server's error text (an echoed ``Authorization: Bearer ...`` header, an ``hf_...`` token) must never get there.
:func:`url_secrets` / :func:`redact_url` serve ``gui_openai``'s ``base_url`` check and the Hub's ``$HF_ENDPOINT``;
:func:`redact_text` every message that carries a server's text (issue 54).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

# Query parameters that carry a credential (matched as a part of the name split at ``_``, ``-`` and ``.``, any case).
SECRET_PARTS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential", "credentials",
                          "sig", "signature", "auth", "authorization", "session"})
# Environment variables whose values are secrets wherever they appear in a text (the Hub token, the OpenAI key).
SECRET_ENV = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "OPENAI_API_KEY")
MASK = "***"

_PATTERNS = (
    # an Authorization header's value: scheme and credential (``Bearer hf_x``, ``Basic dXNlcjpwdw==``, ``token abc``)
    re.compile(r"(?i)\b(bearer|basic|token|digest)(\s+)[A-Za-z0-9._~+/=:-]{4,}"),
    # Hugging Face and OpenAI style tokens wherever they stand
    re.compile(r"\b(hf|api|sk|sk-proj)([_-])[A-Za-z0-9_-]{8,}"),
    # ``name: value`` / ``name=value`` / ``"name": "value"`` for a credential-like name
    re.compile(r"(?i)([\"']?\b(?:[a-z0-9]+[_-])*(?:authorization|api[_-]?key|token|secret|password|passwd|pwd|"
               r"credentials?|sig|signature|access[_-]?key|session)[\"']?)(\s*[:=]\s*[\"']?)[^\s\"',;&}]+"),
    # user-info in any URL: ``scheme://user:password@host``
    re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@"),
)


def _secret_name(name: str) -> bool:
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


_REMEMBERED: set[str] = set()


def remember_secret(value: str) -> None:
    """A secret this process sends that is in no :data:`SECRET_ENV` variable (a token read from a login file)."""
    if value and len(value) >= 4:
        _REMEMBERED.add(value)


def known_secrets() -> list[str]:
    """The values of :data:`SECRET_ENV` set in this process and the remembered secrets (4 characters or more),
    longest first."""
    values = {os.environ.get(v, "").strip() for v in SECRET_ENV} | _REMEMBERED
    return sorted((v for v in values if len(v) >= 4), key=len, reverse=True)


def redact_text(text: object, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential replaced by ``***``: the values of ``secrets`` and of :data:`SECRET_ENV`,
    Authorization values (``Bearer ...``, ``Basic ...``), ``hf_...`` / ``sk-...`` tokens, ``token=...`` pairs and
    URL user-info. Linear in the text; never raises."""
    out = str(text)
    for value in sorted({*(s for s in secrets if s and len(s) >= 4), *known_secrets()}, key=len, reverse=True):
        out = out.replace(value, MASK)
    bearer, token, pair, userinfo = _PATTERNS
    out = bearer.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", out)
    out = token.sub(MASK, out)
    out = pair.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", out)
    return userinfo.sub(lambda m: f"{m.group(1)}{MASK}@", out)


__all__ = ["MASK", "SECRET_ENV", "SECRET_PARTS", "known_secrets", "redact_text", "redact_url", "remember_secret",
           "url_secrets"]
