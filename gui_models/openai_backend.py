"""``gui_openai``: an lmms-eval backend for served models (vLLM, SGLang, ``transformers serve``) and hosted APIs.

    lmms-eval --model gui_openai --model_args base_url=http://127.0.0.1:8000/v1,model=/ckpt,capture_logits=digits

Talks to OpenAI-compatible chat-completion endpoints with the official ``openai`` async client.
Requests, the request and response intervention stages and multi-round tasks go through the same
generation core as ``gui_hf`` (``gui_models.generation_core``); forward-stage interventions
(``gui_xli``) need the model's activations and are refused.

Model args (``--model_args k=v,...``):
    base_url        one server, or several separated by ``|`` (requests go to the least busy one)
    model           the served model name (vLLM: the ``--model`` path or ``--served-model-name``)
    api_key_env     the environment variable holding the key, sent to every ``base_url`` given; unset: ``EMPTY``
                    (local servers need none). Not given: ``OPENAI_API_KEY`` is sent only to https://api.openai.com
                    (an exported OpenAI key never goes to another host by default). ``api_key=`` itself is refused in model args: lmms-eval writes
                    them into its results files (the Python constructor still takes ``api_key``)
    concurrency     requests in flight over all servers (default 8). Requests stream: each is parsed, decoded, encoded,
                    sent and answered within a window of ``concurrency`` + ``prefetch`` requests (default prefetch: the
                    CPU cores), results in request order; memory does not grow with the benchmark
    image_transport ``auto`` (default): a screenshot whose decoded pixels are its file's (an RGB PNG or JPEG decoded as
                    is by the task, unchanged by any intervention; ``gui_core.image_files``) is sent as the file's own
                    bytes; every other image as a lossless PNG of its RGB pixels. ``png``: always PNG
    png_level       zlib level of those PNGs (default 1: lossless like every level, several times faster than 6)
    timeout         total seconds per attempt: connect, headers and the whole body (default 120); ``max_retries``
                    attempts (default 5) within ``retry_budget_s`` seconds (default 300) for everything, backoff with
                    jitter (a ``Retry-After`` is honoured up to the budget; one past it ends the request at once), on
                    408/409/429/5xx, timeouts, dropped connections and bad answers; then an error naming the server(s),
                    which is that sample's ``sample_error`` (an empty answer; the run goes on). Bodies over 32 MiB are cut off;
                    redirects are not followed (``gui_models.served_client``)
    max_new_tokens  default when the task sets none (128, as ``gui_hf``)
    response_cache  folder of the response cache (default ``<GUI_EVAL_CACHE>/openai_responses``; ``none`` turns it
                    off): an interrupted run asks only for what is missing. The key is the request body, the
                    server (its URLs and what ``GET /models`` reports about the model: vLLM's checkpoint path) and
                    the namespace; answers are checked before they are stored; a damaged entry is asked again
                    and named; each sample records ``from_cache``
    cache_namespace a name that separates cache entries of otherwise identical requests (default ``default``;
                    e.g. a date for a hosted alias whose model changes over time)
    capture_logits  ``none`` or ``digits``; ``logprobs`` = ``auto`` (``token_ids`` when a tokenizer is known,
                    else ``top_logprobs``), ``token_ids`` (vLLM's ``logprob_token_ids``: exact digit values) or
                    ``top_logprobs`` (the k most likely tokens per step, ``top_logprobs`` = k, default 20: ranges)
    tokenizer       folder of the served checkpoint's tokenizer (digit token ids; default: ``model`` when it
                    is a folder)
    frame           the size the engine resizes each image to, recorded as ``model_image_sizes``:
                    ``auto`` (``smart_resize`` when the tokenizer folder has a Qwen2-VL-family image processor,
                    else ``none``), ``smart_resize`` (with ``min_pixels``/``max_pixels``, else the folder's
                    processor, else ``resize_budget`` = a ``gui_core.coords.BUDGETS`` name), ``scale``
                    (hosted APIs: ``image_scale`` = declared model size / size sent), ``sent`` (the engine
                    sees what was sent) or ``none`` (not declared: grounding falls back to its budget)
    stop_after_failures  the run stops (every other request cancelled) after this many requests in a row failed
                    for good with no answer between (default 16; 0: never): the server is down or refuses all. A
                    401/403 (the run's key) stops it at once
    thinking, think_budget, reasoning_tags, thinking_key   as in ``gui_hf``; ``thinking`` is sent as
                    ``chat_template_kwargs`` (vLLM / SGLang), no ``stop`` with it on (gui_models.thinking)
    system_prompt, interventions, <intervention>.<param>   as in ``gui_hf``
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from lmms_eval.api.instance import GenerationResult, Instance
from lmms_eval.api.model import lmms
from tqdm import tqdm

from gui_core.logit_capture import capture_mode, digit_groups, extras_of
from gui_core.sample_faults import describe_fault
from gui_core.sample_faults import record as record_fault
from gui_interventions import RequestContext, build_run
from gui_models.cores import usable_cores
from gui_models.generation_core import (Generated, contained_request, cut_at_stops, record_sent_prompt, respond,
                                        run_multi_round)
from gui_models.model_args import check_gui_openai_args
from gui_models.served_answers import (capture_from_token_ids, capture_from_top_logprobs, clean_text,  # noqa: F401
                                       joined_reasoning, logprob_problem, token_counts as _token_counts,
                                       usage_of)
from gui_models.served_answers import noted as _noted
from gui_models.served_body import Prepared, build_body, generation_body  # noqa: F401 - the public names stay here too
from gui_models.run_journal import say_resumed
from gui_models.served_client import EventLoop as _Loop
from gui_models.served_client import (FAST_PNG_LEVEL, TRANSPORTS, BadResponse, ResponseCache, RetryPolicy, ServerDown,
                                      ServerError, ServerPool, request_key)
from gui_models.served_frame import FRAMES, FramePolicy  # noqa: F401
from gui_models.served_keys import DEFAULT_KEY_ENV, DEFAULT_KEY_HOSTS, check_base_urls, key_for  # noqa: F401
from gui_models.thinking import THINKING_ARGS, Thinking, attach_note, token_counter

_key_for = key_for  # the name tests and older callers use
LOGPROB_MODES = ("auto", "token_ids", "top_logprobs")
# An answer may hold at most this many characters per token of its budget (max_tokens); longer text is cut and
# counted (``answer_cut``). 64 covers the longest tokens of common vocabularies with room to spare.
MAX_CHARS_PER_TOKEN = 64
OWNER = "gui_openai"


class GuiOpenAI(lmms):
    """Generation through OpenAI-compatible chat completions, with our request/response stages and digit capture."""

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None) -> "GuiOpenAI":
        from lmms_eval import utils

        args = utils.simple_parse_args_string(arg_string)
        check_gui_openai_args(args, OWNER)  # model args land in results files: no key among them
        return cls(**args)

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 api_key_env: str | None = None, concurrency: int | str = 8, timeout: float | str = 120,
                 max_retries: int | str = 5, retry_budget_s: float | str = 300, max_new_tokens: int | str = 128,
                 response_cache: str | None = None, capture_logits: str = "none", logprobs: str = "auto",
                 top_logprobs: int | str = 20, tokenizer: str | None = None, frame: str = "auto",
                 min_pixels: int | str | None = None, max_pixels: int | str | None = None, resize_budget: str | None = None,
                 image_scale: float | str | None = None, system_prompt: str | None = None, interventions: str | None = None,
                 cache_namespace: str = "default", image_transport: str = "auto", png_level: int | str = FAST_PNG_LEVEL,
                 prefetch: int | str | None = None, stop_after_failures: int | str = 16, **kwargs: Any) -> None:
        super().__init__()
        for k in ("batch_size", "max_batch_size", "device"):  # passed by the lmms-eval CLI; concurrency is ours
            kwargs.pop(k, None)
        check_gui_openai_args({**kwargs, "interventions": interventions, "capture_logits": capture_logits}, OWNER)
        self.thinking = Thinking.from_args({k: kwargs.pop(k) for k in list(kwargs) if k in THINKING_ARGS}, OWNER)
        urls = [u.strip() for u in str(base_url or os.environ.get("OPENAI_BASE_URL") or "").split("|") if u.strip()]
        if not urls:
            raise ValueError(f"{OWNER}: model arg base_url=<http://host:port/v1> is required (several: url1|url2)")
        check_base_urls(urls, OWNER)  # also OPENAI_BASE_URL: a credential in a URL would be logged and written
        if not model:
            raise ValueError(f"{OWNER}: model arg model=<served model name> is required")
        self.model_name = str(model)
        key = api_key or key_for(urls, api_key_env) or "EMPTY"  # local servers accept any key
        self.concurrency = int(concurrency)
        if self.concurrency < 1:
            raise ValueError(f"{OWNER}: concurrency={concurrency} must be >= 1")
        self.pool = ServerPool(urls, key, float(timeout), RetryPolicy(int(max_retries), float(retry_budget_s)))
        if image_transport not in TRANSPORTS:
            raise ValueError(f"{OWNER}: image_transport={image_transport!r}; choose one of {TRANSPORTS}")
        self.image_transport = str(image_transport)
        self.png_level = int(png_level)
        if not 0 <= self.png_level <= 9:
            raise ValueError(f"{OWNER}: png_level={png_level} must be 0-9 (zlib levels; every level is lossless)")
        self.workers = usable_cores()
        self.prefetch = self.workers if prefetch is None else int(prefetch)
        if self.prefetch < 0:
            raise ValueError(f"{OWNER}: prefetch={prefetch} must be >= 0")
        self._cpu = threading.BoundedSemaphore(self.workers)  # requests being parsed, decoded and encoded at once
        self._encoder: concurrent.futures.ThreadPoolExecutor | None = None
        self.max_new_tokens = int(max_new_tokens)
        self.system_prompt = system_prompt
        if response_cache is None:
            from gui_core.paths import cache_dir

            response_cache = str(cache_dir() / "openai_responses")
        self.cache = None if str(response_cache).lower() in ("none", "off", "") else ResponseCache(response_cache)
        # What a cached answer must share besides the body: the namespace and how answers are read (frame, capture).
        self.cache_namespace = {"name": str(cache_namespace), "frame": str(frame), "logprobs": str(logprobs),
                                "tokenizer": str(tokenizer or "")}
        self._server_id: list[dict[str, Any]] | None = None
        self._server_id_lock: asyncio.Lock | None = None
        self.cache_bad: list[str] = []  # damaged cache files met (asked again)
        self.capture_logits = capture_mode(capture_logits, OWNER)
        if logprobs not in LOGPROB_MODES:
            raise ValueError(f"{OWNER}: logprobs={logprobs!r}; choose one of {LOGPROB_MODES}")
        tok_dir = tokenizer or (self.model_name if Path(self.model_name).is_dir() else None)
        self.tokenizer = None
        self.groups: list[list[int]] | None = None
        self.logprobs = "none"
        if self.capture_logits == "digits":
            self.logprobs = logprobs if logprobs != "auto" else ("token_ids" if tok_dir else "top_logprobs")
            if self.logprobs == "token_ids":
                if not tok_dir:
                    raise ValueError(f"{OWNER}: logprobs=token_ids needs tokenizer=<folder of the served checkpoint's tokenizer> "
                                     "(the digit token ids come from it)")
                from transformers import AutoTokenizer

                self.tokenizer = AutoTokenizer.from_pretrained(tok_dir)
                self.groups = digit_groups(self.tokenizer)
        self.top_logprobs = int(top_logprobs)
        self.count_tokenizer = self.thinking.counting_tokenizer(self.tokenizer, tok_dir)  # reasoning lengths in tokens
        self.frame = FramePolicy(str(frame), tok_dir, int(min_pixels) if min_pixels else None,
                                 int(max_pixels) if max_pixels else None, resize_budget, image_scale)
        self.interventions = build_run(interventions, kwargs)
        self._loop = _Loop()
        self._sem: asyncio.Semaphore | None = None
        self.requests_sent = 0
        self.cache_hits = 0
        self.stop_after_failures = int(stop_after_failures)
        if self.stop_after_failures < 0:
            raise ValueError(f"{OWNER}: stop_after_failures={stop_after_failures} must be >= 0 (0: never stop)")
        self._failures_in_row = 0
        self._failure_lock = threading.Lock()

    # --- lmms-eval interface -------------------------------------------------------------

    @property
    def rank(self) -> int:
        return 0

    @property
    def world_size(self) -> int:
        return 1

    @property
    def batch_size(self) -> int:
        return self.concurrency

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError(f"{OWNER} does not score loglikelihood requests; our tasks use generate_until")

    @property
    def window(self) -> int:
        """Requests held at once by :meth:`generate_until`: ``concurrency`` in flight plus ``prefetch`` being prepared."""
        return self.concurrency + self.prefetch

    def generate_until(self, requests: list[Instance]) -> list[GenerationResult]:
        """Responses in request order, streamed: each request is parsed, decoded, encoded, sent and answered within a
        window of :attr:`window` requests (``concurrency`` in flight), so memory does not grow with the benchmark and
        the first request leaves as soon as it is encoded. Its images are dropped once the body is built (kept only
        while a response-stage intervention may re-run on them)."""
        task_dict = getattr(self, "task_dict", None)
        keep_images = bool(self.interventions._impls("gui_intervention_response"))

        def one(i: int) -> GenerationResult:
            instance = requests[i]
            with self._cpu:
                req = contained_request(self.interventions, instance.args, task_dict)
                record_sent_prompt(instance, req)
                try:
                    prepared = self.prepare(req)
                except Exception as exc:  # noqa: BLE001 - an image that cannot be encoded: this sample's error
                    record_fault(req.task, req.doc if req.doc is not None else {"id": req.doc_id},
                                 describe_fault("its request body (gui_openai: images encoded for sending)", exc))
                    return GenerationResult(text="", token_counts=None)
            if not keep_images:
                req = req.with_(images=())
            generated = self._wait(self._generate(req, prepared))
            del prepared
            usage = [generated]
            text = respond(self.interventions, generated, req, lambda r: usage.append(self._generate_sync(r)) or usage[-1])
            return GenerationResult(text=text, token_counts=_token_counts(usage))

        out = self._stream(len(requests), one, OWNER)
        if self.cache is not None:  # its response cache is this backend's journal: a run again resumes through it
            reused = sum(bool(extras_of(r.text).get("from_cache")) for r in out if isinstance(r, GenerationResult))
            if reused:
                say_resumed(OWNER, reused, len(requests), self.cache.root)
        return out

    def generate_until_multi_round(self, requests: list[Instance]) -> list[list[str]]:
        """Every round of each request; rounds of one request in order, ``concurrency`` requests at once."""
        task_dict = getattr(self, "task_dict", None)
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="gui_openai-mr") as pool:
            jobs = [pool.submit(run_multi_round, r, task_dict, self.interventions, self._generate_sync) for r in requests]
            try:  # the first failure cancels every episode not yet started (running ones end within their deadline)
                for j in tqdm(concurrent.futures.as_completed(jobs), total=len(jobs), desc=f"{OWNER} multi-round",
                              disable=len(jobs) < 2):
                    if j.exception() is not None:
                        raise j.exception()
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            return [j.result() for j in jobs]

    # --- internals ------------------------------------------------------------------------------

    def generate_all(self, reqs: Sequence[RequestContext]) -> list[Generated]:
        """Every request's answer, in order, streamed as in :meth:`generate_until` (``concurrency`` in flight). A request
        that fails for good is its own empty answer (``request_error``); a :class:`ServerDown` (a refused key,
        ``stop_after_failures`` failures in a row) cancels every other request at once and is raised."""

        def one(i: int) -> Generated:
            with self._cpu:
                prepared = self.prepare(reqs[i])
            return self._wait(self._generate(reqs[i], prepared))

        return self._stream(len(reqs), one, OWNER)

    def _stream(self, n: int, job: Any, desc: str) -> list[Any]:
        """``job(i)`` for i in 0..n-1 on :attr:`window` threads, results in order; the first failure cancels the jobs not
        yet started and the requests in flight, and is raised."""
        if n == 0:
            return []
        failed = threading.Event()
        inflight: set[concurrent.futures.Future] = set()
        self._stream_state = (failed, inflight)

        def guarded(i: int) -> Any:
            if failed.is_set():
                raise concurrent.futures.CancelledError()
            return job(i)

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(n, self.window), thread_name_prefix="gui_openai-req")
        futures = [pool.submit(guarded, i) for i in range(n)]
        try:
            for fut in tqdm(concurrent.futures.as_completed(futures), total=n, desc=desc, disable=n < 2):
                if fut.exception() is not None:
                    raise fut.exception()
        except BaseException:
            failed.set()
            pool.shutdown(wait=False, cancel_futures=True)
            for f in list(inflight):
                f.cancel()
            raise
        pool.shutdown(wait=True)
        return [f.result() for f in futures]

    def _wait(self, coro: Any) -> Any:
        """Run ``coro`` on the backend's event loop and wait for it (cancelled with the others when a request fails)."""
        failed, inflight = getattr(self, "_stream_state", (None, None))
        if failed is not None and failed.is_set():  # another request failed while this one was being prepared
            coro.close()
            raise concurrent.futures.CancelledError()
        fut = self._loop.submit(coro)
        if inflight is not None:
            inflight.add(fut)
            if failed.is_set():
                fut.cancel()
        try:
            return fut.result()
        finally:
            if inflight is not None:
                inflight.discard(fut)

    def _generate_sync(self, req: RequestContext) -> Generated:
        return self._loop.submit(self._generate(req)).result()

    def prepare(self, req: RequestContext) -> Prepared:
        """The request body (with the logprob fields of the capture mode), the sizes of the images sent and their digests."""
        prepared = build_body(req, self.model_name, self.max_new_tokens, self.system_prompt, self.image_transport,
                              self.png_level)
        body = prepared.body
        self.thinking.apply_to_body(body)  # budget, stops, chat_template_kwargs (gui_models.thinking)
        if self.logprobs == "token_ids":
            body.update(logprobs=True, logprob_token_ids=sorted({i for g in self.groups or [] for i in g}),
                        return_tokens_as_token_ids=True)
        elif self.logprobs == "top_logprobs":
            body.update(logprobs=True, top_logprobs=self.top_logprobs)
        return prepared

    def body(self, req: RequestContext) -> tuple[dict[str, Any], list[list[int]]]:
        """The request body (with the logprob fields of the capture mode) and the sizes of the images sent."""
        prepared = self.prepare(req)
        return prepared.body, prepared.sizes

    async def _prepare_off_loop(self, req: RequestContext) -> Prepared:
        """:meth:`prepare` on the encoder threads (sized to the cores), never on the event loop."""
        if self._encoder is None:
            self._encoder = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="gui_openai-enc")
        return await asyncio.get_running_loop().run_in_executor(self._encoder, self.prepare, req)

    async def _server_identity(self) -> list[dict[str, Any]]:
        """The pool's :meth:`ServerPool.fingerprint`, asked once per backend (the first request waits for it)."""
        if self._server_id_lock is None:
            self._server_id_lock = asyncio.Lock()
        async with self._server_id_lock:
            if self._server_id is None:
                self._server_id = await self.pool.fingerprint(self.model_name)
        return self._server_id

    async def _generate(self, req: RequestContext, prepared: Prepared | None = None) -> Generated:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.concurrency)
        if prepared is None:
            prepared = await self._prepare_off_loop(req)
        body, sent = prepared.body, prepared.sizes
        key = None
        if self.cache is not None:
            key = request_key(body, prepared.digests, await self._server_identity(), self.cache_namespace)
            entry, damaged = self.cache.lookup(key)
            if entry is not None:
                try:
                    out = self._parse(entry["response"], body, sent, None, prepared.until)
                except BadResponse as exc:
                    damaged = f"holds a bad response ({exc})"
                else:
                    self.cache_hits += 1
                    out.extras.update(from_cache=True, cached_from=entry.get("server"))
                    return out
            if damaged:
                self._damaged(self.cache.path(key), damaged)
        checked: dict[str, Any] = {}

        def check(response: Mapping[str, Any], url: str) -> None:
            try:
                checked["out"] = self._parse(response, body, sent, url, prepared.until)  # BadResponse: retried
            except BadResponse:
                raise
            except ValueError as exc:  # a refusal of ours (e.g. no token ids for logprobs=token_ids): raised as is
                checked["error"] = exc

        async with self._sem:
            self.requests_sent += 1
            try:
                response, server = await self.pool.chat(body, check)
            except ServerDown:
                raise
            except ServerError as exc:
                # a final error of this request (a 4xx, 5xx or bad answers after the retries, the budget spent, a
                # refused redirect): this sample's answer is empty (a format error, named), the run goes on
                self._failed_for_good(exc)
                what = "bad_response" if isinstance(exc.__cause__, BadResponse) else "request_error"
                return _noted(req, Generated("", None, None, {what: str(exc)[:500], "from_cache": False,
                                                              "served_by": None, "usage": {},
                                                              "image_frame": self.frame.describe(sent)}))
        self._failures_in_row = 0
        if "error" in checked:
            raise checked["error"]
        out = checked.get("out") or self._parse(response, body, sent, server, prepared.until)
        if self.cache is not None and key is not None and not ({"tool_call_only", "answer_cut"} & set(out.extras)):
            # a tool-call-only answer is recorded on its sample, never replayed; a cut one serves its sample only
            self.cache.put(key, response, server)
        out.extras["from_cache"] = False
        return _noted(req, out)

    def _failed_for_good(self, exc: ServerError) -> None:
        """Count a request that failed for good; :class:`ServerDown` when ``stop_after_failures`` did so in a row (no
        answer between): the server is down or refuses every request, and the run stops instead of waiting out each
        remaining request's retry budget."""
        with self._failure_lock:
            self._failures_in_row += 1
            many = self.stop_after_failures and self._failures_in_row >= self.stop_after_failures
        if many:
            raise ServerDown(f"{OWNER}: {self._failures_in_row} requests in a row failed for good (stop_after_failures="
                             f"{self.stop_after_failures}); the server is down or refuses every request. Last: {exc}") from exc

    def _damaged(self, path: Path, why: str) -> None:
        """A cache entry that cannot be used: named once (warning) and asked again; the new answer replaces it."""
        import warnings

        self.cache_bad.append(str(path))
        warnings.warn(f"{OWNER}: response cache entry {path} {why}; asking the server again", stacklevel=2)

    def _parse(self, response: Mapping[str, Any], body: Mapping[str, Any], sent: list[list[int]], server: str | None,
               until: Any = None) -> Generated:
        """The answer as ``Generated``; :class:`BadResponse` for a body that is not a usable chat completion."""
        try:
            return self._parse_checked(response, body, sent, server, body.get("stop") if until is None else until)
        except BadResponse:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            if str(exc).startswith(OWNER):  # our own refusals (a server without token ids...) stay as they are
                raise
            raise BadResponse(f"from {server or 'the cache'}: {type(exc).__name__}: {str(exc)[:200]}") from exc

    def _parse_checked(self, response: Mapping[str, Any], body: Mapping[str, Any], sent: list[list[int]],
                       server: str | None, until: Any = None) -> Generated:
        if not isinstance(response, Mapping):
            raise BadResponse(f"from {server or 'the cache'}: a JSON {type(response).__name__}, not an object")
        if response.get("error") is not None:
            raise BadResponse(f"from {server or 'the cache'}: an error object: {str(response.get('error'))[:300]}")
        choices = response.get("choices") or []
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise BadResponse(f"a response without choices from {server or 'the cache'}: {str(response)[:300]}")
        choice = choices[0]
        content = (choice.get("message") or {}).get("content")
        if content is not None and not isinstance(content, str):
            raise BadResponse(f"from {server or 'the cache'}: message content is a {type(content).__name__}, not text")
        text_notes: dict[str, Any] = {}
        if isinstance(choice.get("message"), Mapping):  # a reasoning returned apart joins the text, in its tags
            joined = joined_reasoning(choice["message"], content or "", self.thinking.tags,
                                      cut=choice.get("finish_reason") == "length" and not content)
            content = joined if joined or content is not None else None
        calls = (choice.get("message") or {}).get("tool_calls")
        if content is None and not (isinstance(calls, list) and calls):  # no text and no call: not an answer
            raise BadResponse(f"from {server or 'the cache'}: message content is null and there are no tool calls")
        if not content and isinstance(calls, list) and calls:  # an answer, but no text a task can read: said so
            names = [str(((c or {}).get("function") or {}).get("name"))[:100] for c in calls[:10] if isinstance(c, Mapping)]
            text_notes["tool_call_only"] = {"tool_calls": len(calls), "names": names}
        content = clean_text(content or "", text_notes)
        limit = int(body.get("max_tokens") or self.max_new_tokens) * MAX_CHARS_PER_TOKEN
        if len(content) > limit:  # longer than the budget allows: cut, and counted
            text_notes["answer_cut"] = {"chars": len(content), "kept": limit}
            content = content[:limit]
        text = self.thinking.cut(content, until or [])
        capture = None
        if self.logprobs != "none":
            content = (choice.get("logprobs") or {}).get("content") or []
            problem = logprob_problem(content, int(body.get("max_tokens") or self.max_new_tokens),
                                       len(body.get("logprob_token_ids") or []) + int(body.get("top_logprobs") or 0) + 1)
            if problem:  # a bad capture is recorded on the sample (no capture), never a lost run
                text_notes["capture_error"] = problem
                content = []
            if not content and text:  # the server ignored `logprobs` (e.g. transformers serve)
                if self.logprobs == "token_ids" and "capture_error" not in text_notes:
                    raise ValueError(f"{OWNER}: {server or 'the cached response'} returned no logprobs for "
                                     "capture_logits=digits,logprobs=token_ids; this server cannot give exact digit values")
            elif self.logprobs == "token_ids":
                stop_ids = [i for i in (self.tokenizer.eos_token_id, self.tokenizer.pad_token_id) if i is not None]
                capture = capture_from_token_ids(content, self.groups or [], self.tokenizer, stop_ids)
            else:
                capture = capture_from_top_logprobs(content)
        usage, reported = usage_of(response)
        found = self.thinking.read(content, choice.get("finish_reason") == "length", token_counter(self.count_tokenizer),
                                   reported)
        extras = {"image_frame": self.frame.describe(sent), "served_by": server or "cache",
                  "usage": {"input_tokens": usage.get("prompt_tokens"), "output_tokens": usage.get("completion_tokens")},
                  "finish_reason": choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
                  **text_notes}
        return Generated(text, capture, self.frame.model_sizes(sent), attach_note(extras, found))
