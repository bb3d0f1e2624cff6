"""The transport of ``gui_openai``: chat-completion bodies, a pool of OpenAI-compatible servers, retries and a response cache.

Nothing here knows about lmms-eval or tasks; ``gui_models.openai_backend`` turns requests into
bodies and responses into ``Generated``. Every network loop is bounded in attempts and time.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

# Status codes worth another attempt besides every 5xx (timeout, conflict, rate limit); every other 4xx is final.
RETRY_STATUS = frozenset({408, 409, 429})


def encode_image(image: Any) -> tuple[str, list[int]]:
    """A PNG data URL of ``image`` (PIL image or file path) as RGB, lossless, and its [width, height].

    RGB as ``gui_hf`` feeds its processor (``convert("RGB")``), so the engine sees the same pixels.
    """
    from PIL import Image

    im = Image.open(image) if isinstance(image, (str, os.PathLike)) else image
    im = im.convert("RGB")
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii"), [im.width, im.height]


def body_key(body: Mapping[str, Any]) -> str:
    """The cache key of a request: sha256 of its canonical JSON (model, messages with image bytes, decoding)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


class ResponseCache:
    """Responses on disk, one JSON file per request key; written atomically, so a killed run leaves only whole files."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # a damaged entry is asked again, never trusted
            return None

    def put(self, key: str, response: Mapping[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(response), encoding="utf-8")
        os.replace(tmp, path)


class ServerError(RuntimeError):
    """A request that failed for good: names the server(s), the attempts and the last error."""


@dataclass
class RetryPolicy:
    """Bounded retries: at most ``attempts`` tries within ``budget_s`` seconds, exponential backoff with jitter."""

    attempts: int = 5
    budget_s: float = 300.0
    base_s: float = 0.5
    cap_s: float = 20.0

    def delay(self, attempt: int) -> float:
        return min(self.cap_s, self.base_s * 2 ** attempt) * (0.5 + random.random() / 2)


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


def _describe(exc: BaseException) -> str:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {str(exc.message)[:300]}"
    return f"{type(exc).__name__}: {str(exc)[:300]}"


@dataclass
class _Server:
    url: str
    client: Any
    in_flight: int = 0
    sent: int = 0


@dataclass
class ServerPool:
    """Several OpenAI-compatible base URLs; each request goes to the least busy one, retries may move it."""

    base_urls: Sequence[str]
    api_key: str
    timeout_s: float = 120.0
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    servers: list[_Server] = field(default_factory=list)

    def __post_init__(self) -> None:
        from openai import AsyncOpenAI

        if not self.base_urls:
            raise ValueError("gui_openai: no base_url given")
        # max_retries=0: retries are ours (bounded in count and time, and free to move to another server)
        self.servers = [_Server(u, AsyncOpenAI(base_url=u, api_key=self.api_key, timeout=self.timeout_s, max_retries=0))
                        for u in self.base_urls]

    def _pick(self, avoid: str | None) -> _Server:
        choices = [s for s in self.servers if s.url != avoid] or self.servers
        return min(choices, key=lambda s: (s.in_flight, s.sent))

    async def chat(self, body: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """The response (as a dict) and the URL that answered; :class:`ServerError` after the bounded retries."""
        start = time.monotonic()
        tried: list[str] = []
        last: BaseException | None = None
        avoid = None
        for attempt in range(max(1, self.policy.attempts)):
            server = self._pick(avoid)
            tried.append(server.url)
            server.in_flight += 1
            server.sent += 1
            try:
                extra = {k: v for k, v in body.items() if k not in _STANDARD}
                std = {k: v for k, v in body.items() if k in _STANDARD}
                resp = await server.client.chat.completions.create(**std, extra_body=extra or None)
                return resp.model_dump(mode="json"), server.url
            except Exception as exc:  # noqa: BLE001 - classified right below
                last = exc
                if not _retryable(exc):
                    raise ServerError(f"gui_openai: {server.url} refused the request ({_describe(exc)}); not retried") from exc
            finally:
                server.in_flight -= 1
            avoid = server.url if len(self.servers) > 1 else None
            pause = self.policy.delay(attempt)
            if attempt + 1 >= self.policy.attempts or time.monotonic() - start + pause > self.policy.budget_s:
                break
            await asyncio.sleep(pause)
        where = ", ".join(dict.fromkeys(tried))
        raise ServerError(f"gui_openai: no answer from {where} after {len(tried)} attempt(s) in "
                          f"{time.monotonic() - start:.1f} s (max_retries={self.policy.attempts}, "
                          f"retry_budget_s={self.policy.budget_s:g}); last error: {_describe(last) if last else '?'}") from last

    async def close(self) -> None:
        for s in self.servers:
            await s.client.close()


# Parameters of the official client's chat.completions.create; everything else goes in extra_body.
_STANDARD = frozenset({"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "seed",
                       "logprobs", "top_logprobs", "n"})
