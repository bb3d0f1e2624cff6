"""The transport of ``gui_openai``: chat-completion bodies, a pool of OpenAI-compatible servers, retries and a response cache.

Nothing here knows about lmms-eval or tasks; ``gui_models.openai_backend`` turns requests into
bodies and responses into ``Generated``. Every network loop is bounded in attempts and time.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import hashlib
import io
import json
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

# Status codes worth another attempt besides every 5xx (timeout, conflict, rate limit); every other 4xx is final.
RETRY_STATUS = frozenset({408, 409, 429})
MAX_RESPONSE_BYTES = 32 << 20  # a response body larger than this is cut off and counted as a failed attempt


def _httpx() -> Any:
    """The HTTP package the installed ``openai`` client is built on (``httpx``, or ``httpx2`` in newer releases)."""
    import importlib

    import openai

    base = next(c for c in openai.DefaultAsyncHttpxClient.__mro__[1:] if c.__name__ == "AsyncClient")
    return importlib.import_module(base.__module__.split(".")[0])


def bounded_http_client(max_bytes: int = MAX_RESPONSE_BYTES, follow_redirects: bool = False) -> Any:
    """The ``http_client`` of every request: redirects not followed (a 3xx is a refused request: the prompt and
    images never go to another origin), bodies over ``max_bytes`` cut off (a :class:`BadResponse`)."""
    import openai

    httpx = _httpx()

    class Bounded(httpx.AsyncByteStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __aiter__(self) -> Any:
            total = 0
            async for chunk in self.inner:
                total += len(chunk)
                if total > max_bytes:
                    raise BadResponse(f"response body larger than {max_bytes} bytes; cut off")
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Transport(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            resp = await self.inner.handle_async_request(request)
            declared = resp.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                await resp.aclose()
                raise BadResponse(f"response body of {declared} bytes declared; the limit is {max_bytes}")
            resp.stream = Bounded(resp.stream)
            return resp

        async def aclose(self) -> None:
            await self.inner.aclose()

    return openai.DefaultAsyncHttpxClient(transport=Transport(), follow_redirects=follow_redirects)


FAST_PNG_LEVEL = 1  # zlib level of the PNG fallback: lossless at every level; 1 is several times faster than Pillow's 6
TRANSPORTS = ("auto", "png")  # auto: a marked file's own bytes when lossless (gui_core.image_files), else PNG


@dataclass(frozen=True)
class EncodedImage:
    """One image as sent: its data URL, [width, height], the sha256 of the bytes sent and how they were made."""

    url: str
    size: list[int]
    digest: str
    transport: str  # "file" (the file's own bytes) or "png"


def _data_url(mime: str, data: bytes) -> tuple[str, str]:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii"), f"{mime};sha256={hashlib.sha256(data).hexdigest()}"


def encode_image(image: Any, transport: str = "auto", png_level: int = FAST_PNG_LEVEL) -> EncodedImage:
    """``image`` (PIL image or file path) as a data URL the engine decodes to the RGB pixels ``gui_hf`` sees.

    ``transport=auto``: an image whose pixels are its file's (``gui_core.image_files``: RGB PNG or JPEG, decoded
    as is, unchanged since) goes as the file's own bytes with its MIME type (no re-encode: the engine decodes the
    same bytes); anything else, and ``transport=png``, as a lossless PNG of ``convert("RGB")`` at ``png_level``.
    """
    from PIL import Image

    from gui_core.image_files import file_source, lossless_mime, mark_file_source, read_source

    if transport not in TRANSPORTS:
        raise ValueError(f"gui_openai: image_transport={transport!r}; choose one of {TRANSPORTS}")
    opened = isinstance(image, (str, os.PathLike))
    im = Image.open(image) if opened else image
    try:
        if transport == "auto":
            if opened and lossless_mime(im, image):  # a path: its bytes, without decoding the pixels here
                mark_file_source(im, image)
            src = file_source(im)
            data = read_source(src) if src is not None else None
            if data is not None:
                url, digest = _data_url(src.mime, data)
                return EncodedImage(url, [im.width, im.height], digest, "file")
        rgb = im.convert("RGB")
        buf = io.BytesIO()
        rgb.save(buf, format="PNG", compress_level=int(png_level))
        url, digest = _data_url("image/png", buf.getvalue())
        return EncodedImage(url, [rgb.width, rgb.height], digest, "png")
    finally:
        if opened:
            im.close()


def request_key(body: Mapping[str, Any], image_digests: Sequence[str], server: Any = None, namespace: Any = None) -> str:
    """The cache key of a request: :func:`body_key` of the body with each image's data URL replaced by the digest of
    its bytes (``EncodedImage.digest``, computed once when the image was encoded), so keying a request costs a few
    hundred bytes of JSON, not the whole multi-megabyte body. Images are matched to digests in body order."""
    digests = iter(image_digests)

    def light(message: Any) -> Any:
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            return message
        return {**message, "content": [{"type": "image_url", "image_url": {"digest": next(digests)}}
                                       if isinstance(p, Mapping) and p.get("type") == "image_url" else p for p in content]}

    keyed = {**body, "messages": [light(m) for m in body.get("messages") or []]}
    if next(digests, None) is not None:
        raise ValueError("request_key: more image digests than images in the body")
    return body_key(keyed, server, namespace)


def body_key(body: Mapping[str, Any], server: Any = None, namespace: Any = None) -> str:
    """sha256 of the canonical JSON of the server's identity (its URLs and what it reports about the checkpoint,
    :meth:`ServerPool.fingerprint`), the run configuration's namespace and ``body``. Without ``server`` and
    ``namespace``: the body alone. ``gui_openai`` keys with :func:`request_key` (images by digest)."""
    keyed: Any = body if server is None and namespace is None else {"server": server, "namespace": namespace, "body": body}
    return hashlib.sha256(json.dumps(keyed, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


MAX_CACHE_ENTRY_BYTES = 64 << 20  # a stored response larger than this is damaged, not read


class ResponseCache:
    """Responses on disk, one JSON file per request key; written atomically, so a killed run leaves only whole files.

    An entry is ``{"response": <the server's answer>, "server": <URL that answered>}``; it is stored only after the
    backend checked it. :meth:`lookup` tells an absent entry from a damaged one, which the backend asks again and names.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def lookup(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """(entry, None) for a stored entry, (None, None) when absent, (None, why) when it cannot be read."""
        path = self.path(key)
        try:
            with path.open("rb") as fh:
                data = fh.read(MAX_CACHE_ENTRY_BYTES + 1)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"unreadable ({exc.strerror or exc})"
        if len(data) > MAX_CACHE_ENTRY_BYTES:
            return None, f"larger than {MAX_CACHE_ENTRY_BYTES} bytes"
        try:
            entry = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return None, f"not JSON ({str(exc)[:100]})"
        if not isinstance(entry, dict) or not isinstance(entry.get("response"), dict):
            return None, f"not a cache entry (a JSON {type(entry).__name__} without a response object)"
        return entry, None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response, or None (absent or damaged)."""
        entry, _why = self.lookup(key)
        return entry["response"] if entry else None

    def put(self, key: str, response: Mapping[str, Any], server: str | None = None) -> bool:
        """Store ``response``; an entry over ``gui_core.bounds.MAX_CACHE_STORE_BYTES`` is not written (False): the
        answer serves its sample and is asked again next time."""
        from gui_core.bounds import MAX_CACHE_STORE_BYTES

        data = json.dumps({"response": response, "server": server})
        if len(data) > MAX_CACHE_STORE_BYTES:
            return False
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}.{threading.get_ident()}")
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, path)
        return True


class ServerError(RuntimeError):
    """A request that failed for good: names the server(s), the attempts and the last error. ``gui_openai`` makes it
    that request's sample error (the run goes on) unless it is a :class:`ServerDown`."""


class ServerDown(ServerError):
    """The run's server(s) cannot serve this run at all (a refused key, every request in a row failing): the run stops."""


def retry_after_s(exc: BaseException) -> float | None:
    """The seconds a 429/503 answer asks to wait (``Retry-After`` in seconds, or ``retry-after-ms``), or None."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            seconds = float(value) / divisor if value is not None else None
        except (TypeError, ValueError):  # an HTTP date, or garbage: our own backoff applies
            seconds = None
        if seconds is not None and seconds == seconds and seconds >= 0:  # finite non-negative (NaN != NaN)
            return min(seconds, 1e9)
    return None


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

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError, BadResponse)):
        return True
    if isinstance(exc, openai.APIStatusError) and 300 <= exc.status_code < 400:
        return False  # a redirect is not followed (bounded_http_client)
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


class BadResponse(ValueError):
    """An HTTP 200 whose content is not a usable answer (no choices, an error object, non-finite numbers...)."""


def _describe(exc: BaseException) -> str:
    import openai

    if isinstance(exc, BadResponse):
        return f"bad response: {str(exc)[:300]}"
    if isinstance(exc, asyncio.TimeoutError):
        return "TimeoutError: the attempt's total deadline (connect, headers and body) passed"
    if isinstance(exc, openai.APIStatusError) and 300 <= exc.status_code < 400:
        return (f"HTTP {exc.status_code} redirect to {exc.response.headers.get('location')!r}: redirects are not "
                "followed (give the final URL as base_url)")
    if isinstance(exc, openai.APIStatusError) and exc.status_code in (401, 403):
        return (f"HTTP {exc.status_code}: {str(exc.message)[:300]} (a key is sent only when named: "
                "api_key_env=VAR; OPENAI_API_KEY goes by default to https://api.openai.com only)")
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
        # max_retries=0: retries are ours (bounded in count and time, and free to move to another server); each
        # attempt also has a total deadline (chat), the client's timeout only bounds each read
        self.servers = [_Server(u, AsyncOpenAI(base_url=u, api_key=self.api_key, timeout=self.timeout_s, max_retries=0,
                                               http_client=bounded_http_client()))
                        for u in self.base_urls]

    def _pick(self, avoid: str | None) -> _Server:
        choices = [s for s in self.servers if s.url != avoid] or self.servers
        return min(choices, key=lambda s: (s.in_flight, s.sent))

    async def fingerprint(self, model: str) -> list[dict[str, Any]]:
        """What each server reports about ``model`` at ``GET /models`` (id, root: vLLM's checkpoint path, parent,
        owner, context length), with its URL; part of every cache key, so another checkpoint served under the same
        name is asked, not replayed. A server that reports nothing is identified by its URL alone."""
        out = []
        for s in self.servers:
            try:
                listed = await asyncio.wait_for(s.client.models.list(), timeout=min(self.timeout_s, 30.0))
                entries = [m.model_dump(mode="json") for m in listed.data]
            except Exception as exc:  # noqa: BLE001 - hosted APIs may not list models; the URL still separates servers
                out.append({"url": s.url, "models": f"unreported ({type(exc).__name__})"})
                continue
            match = [e for e in entries if e.get("id") == model]
            out.append({"url": s.url, "model": [{k: e.get(k) for k in ("id", "root", "parent", "owned_by", "max_model_len")}
                                                for e in match] or f"{model!r} not listed"})
        return out

    async def chat(self, body: Mapping[str, Any], check: Any = None) -> tuple[dict[str, Any], str]:
        """The response (as a dict) and the URL that answered; :class:`ServerError` after the bounded retries.

        ``check(response, url)`` raising :class:`BadResponse` makes the answer a failed attempt (retried like a 5xx)."""
        import openai

        start = time.monotonic()
        tried: list[str] = []
        last: BaseException | None = None
        avoid = None
        waited = ""
        for attempt in range(max(1, self.policy.attempts)):
            left = self.policy.budget_s - (time.monotonic() - start)
            if attempt and left <= 0:
                break
            server = self._pick(avoid)
            tried.append(server.url)
            server.in_flight += 1
            server.sent += 1
            try:
                extra = {k: v for k, v in body.items() if k not in _STANDARD}
                std = {k: v for k, v in body.items() if k in _STANDARD}
                # one total deadline per attempt: connect, headers, the whole body and reading it, whatever its size,
                # never past the retry budget (the body is read as JSON here, off the event loop: the client's own
                # model of a 17 MB answer of 200,000 choices takes minutes, past any deadline)
                response = await asyncio.wait_for(self._attempt(server, std, extra), timeout=max(0.01, min(self.timeout_s, left)))
                if check is not None:
                    check(response, server.url)
                return response, server.url
            except Exception as exc:  # noqa: BLE001 - classified right below
                last = exc
                if isinstance(exc, openai.APIStatusError) and exc.status_code in (401, 403):  # the run's key
                    raise ServerDown(f"gui_openai: {server.url} refused the request ({_describe(exc)}); not retried") from exc
                if not _retryable(exc):
                    raise ServerError(f"gui_openai: {server.url} refused the request ({_describe(exc)}); not retried") from exc
            finally:
                server.in_flight -= 1
            avoid = server.url if len(self.servers) > 1 else None
            pause = self.policy.delay(attempt)
            asked = retry_after_s(last) if len(self.servers) == 1 else None  # another server need not wait
            if asked is not None and time.monotonic() - start + asked > self.policy.budget_s:
                waited = f"Retry-After {asked:g} s is past the retry budget"  # never waited: the budget is the deadline
                break
            pause = max(pause, asked or 0.0)
            if attempt + 1 >= self.policy.attempts or time.monotonic() - start + pause > self.policy.budget_s:
                break
            await asyncio.sleep(pause)
        where = ", ".join(dict.fromkeys(tried))
        raise ServerError(f"gui_openai: no answer from {where} after {len(tried)} attempt(s) in "
                          f"{time.monotonic() - start:.1f} s (max_retries={self.policy.attempts}, "
                          f"retry_budget_s={self.policy.budget_s:g}); last error: {_describe(last) if last else '?'}"
                          f"{'; ' + waited if waited else ''}") from last

    @staticmethod
    async def _attempt(server: _Server, std: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
        """One request: the response body as a JSON object; :class:`BadResponse` for a body that is not one (cut,
        not JSON, not an object): an HTTP 200 that cannot be read is retried like a 5xx."""
        raw = await server.client.chat.completions.with_raw_response.create(**std, extra_body=dict(extra) or None)
        body = raw.http_response.content
        try:
            response = await asyncio.to_thread(json.loads, body)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise BadResponse(f"HTTP {raw.http_response.status_code} with a body that is not JSON ({len(body)} bytes: "
                              f"{type(exc).__name__}: {str(exc)[:120]})") from exc
        if not isinstance(response, dict):
            raise BadResponse(f"a JSON {type(response).__name__}, not an object")
        return response

    async def close(self) -> None:
        for s in self.servers:
            await s.client.close()


# Parameters of the official client's chat.completions.create; everything else goes in extra_body.
_STANDARD = frozenset({"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "seed",
                       "logprobs", "top_logprobs", "n"})


class EventLoop:
    """An asyncio loop on a daemon thread: coroutines submitted from lmms-eval's (synchronous) calls."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="gui_openai-loop", daemon=True)
        self.thread.start()

    def submit(self, coro: Any) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)
