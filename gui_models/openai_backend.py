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
                    jitter, on 408/409/429/5xx, timeouts, dropped connections and bad answers; then an error naming
                    the server(s), which cancels every other request of the call. Bodies over 32 MiB are cut off;
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
    system_prompt, interventions, <intervention>.<param>   as in ``gui_hf``
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from lmms_eval.api.instance import GenerationResult, Instance, TokenCounts
from lmms_eval.api.model import lmms
from tqdm import tqdm

from gui_core.sample_faults import record as record_fault
from gui_core.sample_faults import served_fault
from gui_interventions import RequestContext, build_run
from gui_models.cores import usable_cores
from gui_core.logit_capture import Capture, Step, capture_mode, digit_groups
from gui_models.generation_core import (Generated, contained_request, cut_at_stops, record_sent_prompt, respond,
                                        run_multi_round)
from gui_models.model_args import check_gui_openai_args
from gui_models.served_client import (FAST_PNG_LEVEL, TRANSPORTS, BadResponse, EncodedImage, ResponseCache, RetryPolicy,
                                      ServerError, ServerPool, encode_image, request_key)

LOGPROB_MODES = ("auto", "token_ids", "top_logprobs")
# An answer may hold at most this many characters per token of its budget (max_tokens); longer text is cut and
# counted (``answer_cut``). 64 covers the longest tokens of common vocabularies with room to spare.
MAX_CHARS_PER_TOKEN = 64
LOGPROB_SLACK = 1e-4  # log-probabilities above this are not log-probabilities
FRAMES = ("auto", "smart_resize", "scale", "sent", "none")
OWNER = "gui_openai"


def _is_true(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes"}


@dataclass
class Prepared:
    """A request ready to send: its body, the sizes of the images sent and the digest of each image's bytes (cache key)."""

    body: dict[str, Any]
    sizes: list[list[int]]
    digests: list[str]


def build_body(req: RequestContext, model: str, default_max: int, system_prompt: str | None = None,
               transport: str = "auto", png_level: int = FAST_PNG_LEVEL) -> Prepared:
    """The chat-completion body of one request (images first, then the text, as ``gui_hf`` builds its prompt).

    Images as ``served_client.encode_image`` sends them (``transport``: a file's own bytes when lossless, else PNG).
    The task's ``max_new_tokens`` -> ``max_tokens``, ``until`` -> ``stop``, greedy unless ``do_sample`` or a
    temperature > 0 (then ``temperature`` and ``top_p`` as given).
    """
    gen = req.gen_kwargs
    content: list[dict[str, Any]] = []
    sizes: list[list[int]] = []
    digests: list[str] = []
    for im in req.images:
        enc: EncodedImage = encode_image(im, transport, png_level)
        content.append({"type": "image_url", "image_url": {"url": enc.url}})
        sizes.append(enc.size)
        digests.append(enc.digest)
    content.append({"type": "text", "text": req.text})
    messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
    if system_prompt:
        messages.insert(0, {"role": "system", "content": system_prompt})
    temperature = float(gen.get("temperature") or 0.0)
    sample = _is_true(gen.get("do_sample", False)) or temperature > 0
    body: dict[str, Any] = {"model": model, "messages": messages,
                            "max_tokens": int(gen.get("max_new_tokens") or default_max),
                            "temperature": (temperature or 1.0) if sample else 0.0}
    if sample and gen.get("top_p") is not None:
        body["top_p"] = float(gen["top_p"])
    stops = [gen["until"]] if isinstance(gen.get("until"), str) else [s for s in (gen.get("until") or []) if s]
    if stops:
        body["stop"] = list(stops)
    return Prepared(body, sizes, digests)


def generation_body(req: RequestContext, model: str, default_max: int, system_prompt: str | None = None,
                    transport: str = "auto", png_level: int = FAST_PNG_LEVEL) -> tuple[dict[str, Any], list[list[int]]]:
    """:func:`build_body` as (body, sizes sent)."""
    p = build_body(req, model, default_max, system_prompt, transport, png_level)
    return p.body, p.sizes


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _token_id(token: str) -> int | None:
    return int(token.split(":", 1)[1]) if token.startswith("token_id:") else None


def capture_from_token_ids(content: Sequence[Mapping[str, Any]], groups: Sequence[Sequence[int]], tokenizer: Any,
                           stop_ids: Sequence[int]) -> Capture:
    """An exact capture from vLLM's ``logprob_token_ids`` answer (``return_tokens_as_token_ids``).

    Each step lists the log-probability of every named digit token (and the chosen one): ``v_d`` is the
    log-sum over the ids starting with digit d, as ``DigitLogitsProcessor`` computes from logits
    (here normalised: ``logz`` = 0). Entropy needs the full distribution: NaN. Offsets as in ``finish``.
    """
    ids: list[int] = []
    rows: list[tuple[float, tuple[float, ...]]] = []
    stops = set(int(s) for s in stop_ids)
    for step in content:
        tid = _token_id(str(step.get("token", "")))
        if tid is None:
            raise ValueError(f"{OWNER}: the server did not return token ids (return_tokens_as_token_ids); got {step.get('token')!r}")
        if tid in stops:
            break
        table = {_token_id(str(t["token"])): float(t["logprob"]) for t in step.get("top_logprobs") or []}
        missing = [i for g in groups for i in g if i not in table]
        if missing:
            raise ValueError(f"{OWNER}: the server ignored logprob_token_ids (no log-probability for token ids {missing[:5]}...); "
                             "use logprobs=top_logprobs for servers without this vLLM extension")
        digits = tuple(_logsumexp([table[i] for i in g]) for g in groups)
        ids.append(tid)
        rows.append((float(step.get("logprob") if step.get("logprob") is not None else math.nan), digits))
    bounds = [0] + [len(tokenizer.decode(ids[: k + 1], skip_special_tokens=True)) for k in range(len(ids))]
    steps = tuple(Step(ids[i], tokenizer.decode([ids[i]]), rows[i][0], math.nan, rows[i][1], bounds[i], bounds[i + 1], 0.0)
                  for i in range(len(ids)))
    return Capture(steps, kind="exact")


def _digit_of(token: str) -> int | None:
    text = token.strip()
    return int(text[0]) if text and text.isascii() and text.isdigit() else None


def capture_from_top_logprobs(content: Sequence[Mapping[str, Any]]) -> Capture:
    """A ranged capture from OpenAI-style ``top_logprobs``: per step, the digits found among the top k and the rest missing.

    Missing digits get the step's lowest returned log-probability (``floor``) and are listed in ``missing``;
    scoring reports PSS over both extremes (``gui_tasks.grounding.score``). Offsets are the lengths of the
    token strings as returned.
    """
    steps: list[Step] = []
    at = 0
    for k, step in enumerate(content):
        token = str(step.get("token", ""))
        tops = [(str(t.get("token", "")), float(t["logprob"])) for t in step.get("top_logprobs") or [] if t.get("logprob") is not None]
        groups: dict[int, list[float]] = {}
        for tok, lp in tops:
            d = _digit_of(tok)
            if d is not None:
                groups.setdefault(d, []).append(lp)
        floor = min((lp for _t, lp in tops), default=float(step.get("logprob") or 0.0))
        missing = tuple(d for d in range(10) if d not in groups)
        digits = tuple(_logsumexp(groups[d]) if d in groups else floor for d in range(10))
        logprob = step.get("logprob")
        steps.append(Step(k, token, float(logprob) if logprob is not None else math.nan, math.nan, digits, at, at + len(token),
                          0.0, missing, floor))
        at += len(token)
    return Capture(tuple(steps), kind="top_logprobs")


def _qwen_processor(folder: str | None) -> Any | None:
    """The Qwen2-VL-family image processor of a checkpoint folder, or None (other families, no folder)."""
    if not folder or not Path(folder).is_dir():
        return None
    try:
        from transformers import AutoImageProcessor

        ip = AutoImageProcessor.from_pretrained(folder)
    except Exception:  # noqa: BLE001 - a folder without an image processor: no declared frame
        return None
    size = getattr(ip, "size", None)
    try:
        lo, hi = int(size["shortest_edge"]), int(size["longest_edge"])  # dict or transformers' SizeDict
    except (TypeError, KeyError, ValueError):
        return None
    return ip if type(ip).__name__.startswith("Qwen2VLImageProcessor") and lo > 0 and hi > 0 else None


class FramePolicy:
    """How ``gui_openai`` declares the size each image reaches the model in (see the module docstring)."""

    def __init__(self, frame: str, tokenizer: str | None, min_pixels: Any, max_pixels: Any, resize_budget: str | None,
                 image_scale: Any) -> None:
        from gui_core.coords import BUDGETS, QWEN_FACTOR, budget

        if frame not in FRAMES:
            raise ValueError(f"{OWNER}: frame={frame!r}; choose one of {FRAMES}")
        ip = _qwen_processor(tokenizer) if frame in ("auto", "smart_resize") else None
        self.budget = None
        self.scale = None
        self.source = None
        if frame == "auto":
            frame = "smart_resize" if (ip is not None or min_pixels or max_pixels or resize_budget) else "none"
        if frame == "smart_resize":
            if min_pixels or max_pixels or ip is None:
                if not (min_pixels and max_pixels) and not resize_budget:
                    raise ValueError(f"{OWNER}: frame=smart_resize needs min_pixels and max_pixels, a tokenizer folder with "
                                     f"a Qwen2-VL-family processor, or resize_budget (one of {', '.join(BUDGETS)})")
                name = resize_budget or "qwen2_vl_class_default"
                self.budget = budget(name, min_pixels=min_pixels, max_pixels=max_pixels)
                self.source = f"smart_resize:{self.budget.name}"
            else:
                from gui_core.coords import Budget

                factor = int(getattr(ip, "patch_size", 14)) * int(getattr(ip, "merge_size", 2)) or QWEN_FACTOR
                self.budget = Budget("served_processor", int(ip.size["shortest_edge"]), int(ip.size["longest_edge"]), factor,
                                     source=f"{tokenizer}/preprocessor")
                self.source = "smart_resize:served_processor"
        elif frame == "scale":
            try:
                self.scale = float(image_scale)
            except (TypeError, ValueError):
                raise ValueError(f"{OWNER}: frame=scale needs image_scale=<model size / size sent>, e.g. 0.766") from None
            if not 0 < self.scale <= 1:
                raise ValueError(f"{OWNER}: image_scale={image_scale} must be in (0, 1]")
            self.source = f"declared_scale:{self.scale:g}"
        elif frame == "sent":
            self.source = "sent"
        self.frame = frame

    def model_sizes(self, sent: Sequence[Sequence[int]]) -> list[list[int]] | None:
        if not sent or self.frame == "none":
            return None
        if self.budget is not None:
            return [list(self.budget.resized(int(w), int(h))) for w, h in sent]
        if self.scale is not None:
            return [[max(1, round(w * self.scale)), max(1, round(h * self.scale))] for w, h in sent]
        return [list(map(int, s)) for s in sent]

    def describe(self, sent: Sequence[Sequence[int]]) -> dict[str, Any]:
        out: dict[str, Any] = {"sent_sizes": [list(s) for s in sent], "source": self.source or "none"}
        if self.budget is not None:
            out["budget"] = self.budget.describe()
        return out


class _Loop:
    """An asyncio loop on a daemon thread: coroutines submitted from lmms-eval's (synchronous) calls."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="gui_openai-loop", daemon=True)
        self.thread.start()

    def submit(self, coro: Any) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


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
                 prefetch: int | str | None = None, **kwargs: Any) -> None:
        super().__init__()
        for k in ("batch_size", "max_batch_size", "device"):  # passed by the lmms-eval CLI; concurrency is ours
            kwargs.pop(k, None)
        check_gui_openai_args({**kwargs, "interventions": interventions, "capture_logits": capture_logits}, OWNER)
        urls = [u.strip() for u in str(base_url or os.environ.get("OPENAI_BASE_URL") or "").split("|") if u.strip()]
        if not urls:
            raise ValueError(f"{OWNER}: model arg base_url=<http://host:port/v1> is required (several: url1|url2)")
        if not model:
            raise ValueError(f"{OWNER}: model arg model=<served model name> is required")
        self.model_name = str(model)
        key = api_key or _key_for(urls, api_key_env) or "EMPTY"  # local servers accept any key
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
        self.frame = FramePolicy(str(frame), tok_dir, int(min_pixels) if min_pixels else None,
                                 int(max_pixels) if max_pixels else None, resize_budget, image_scale)
        self.interventions = build_run(interventions, kwargs)
        self._loop = _Loop()
        self._sem: asyncio.Semaphore | None = None
        self.requests_sent = 0
        self.cache_hits = 0

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
                prepared = self.prepare(req)
            if not keep_images:
                req = req.with_(images=())
            generated = self._wait(self._generate(req, prepared))
            del prepared
            usage = [generated]
            text = respond(self.interventions, generated, req, lambda r: usage.append(self._generate_sync(r)) or usage[-1])
            return GenerationResult(text=text, token_counts=_token_counts(usage))

        return self._stream(len(requests), one, OWNER)

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
        """Every request's answer, in order, streamed as in :meth:`generate_until` (``concurrency`` in flight); the
        first failure (a :class:`ServerError` naming the server, after its bounded retries) cancels every other
        request at once and is raised."""

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
                    out = self._parse(entry["response"], body, sent, None)
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
                checked["out"] = self._parse(response, body, sent, url)  # BadResponse: retried, never stored
            except BadResponse:
                raise
            except ValueError as exc:  # a refusal of ours (e.g. no token ids for logprobs=token_ids): raised as is
                checked["error"] = exc

        async with self._sem:
            self.requests_sent += 1
            try:
                response, server = await self.pool.chat(body, check)
            except ServerError as exc:
                if not isinstance(exc.__cause__, BadResponse):
                    raise
                # the server answered, but never usably: this sample's answer is empty (a format error), the run goes on
                return _noted(req, Generated("", None, None, {"bad_response": str(exc)[:500], "from_cache": False,
                                                              "served_by": None, "usage": {},
                                                              "image_frame": self.frame.describe(sent)}))
        if "error" in checked:
            raise checked["error"]
        out = checked.get("out") or self._parse(response, body, sent, server)
        if self.cache is not None and key is not None and "tool_call_only" not in out.extras:
            self.cache.put(key, response, server)  # a tool-call-only answer is recorded on its sample, never replayed
        out.extras["from_cache"] = False
        return _noted(req, out)

    def _damaged(self, path: Path, why: str) -> None:
        """A cache entry that cannot be used: named once (warning) and asked again; the new answer replaces it."""
        import warnings

        self.cache_bad.append(str(path))
        warnings.warn(f"{OWNER}: response cache entry {path} {why}; asking the server again", stacklevel=2)

    def _parse(self, response: Mapping[str, Any], body: Mapping[str, Any], sent: list[list[int]], server: str | None) -> Generated:
        """The answer as ``Generated``; :class:`BadResponse` for a body that is not a usable chat completion."""
        try:
            return self._parse_checked(response, body, sent, server)
        except BadResponse:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            if str(exc).startswith(OWNER):  # our own refusals (a server without token ids...) stay as they are
                raise
            raise BadResponse(f"from {server or 'the cache'}: {type(exc).__name__}: {str(exc)[:200]}") from exc

    def _parse_checked(self, response: Mapping[str, Any], body: Mapping[str, Any], sent: list[list[int]],
                       server: str | None) -> Generated:
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
        calls = (choice.get("message") or {}).get("tool_calls")
        if not content and isinstance(calls, list) and calls:  # an answer, but no text a task can read: said so
            names = [str(((c or {}).get("function") or {}).get("name"))[:100] for c in calls[:10] if isinstance(c, Mapping)]
            text_notes["tool_call_only"] = {"tool_calls": len(calls), "names": names}
        content = _clean_text(content or "", text_notes)
        limit = int(body.get("max_tokens") or self.max_new_tokens) * MAX_CHARS_PER_TOKEN
        if len(content) > limit:  # longer than the budget allows: cut, and counted
            text_notes["answer_cut"] = {"chars": len(content), "kept": limit}
            content = content[:limit]
        text = cut_at_stops(content, body.get("stop") or [])
        capture = None
        if self.logprobs != "none":
            content = (choice.get("logprobs") or {}).get("content") or []
            problem = _logprob_problem(content, int(body.get("max_tokens") or self.max_new_tokens),
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
        usage = response.get("usage") or {}
        if not isinstance(usage, Mapping):
            usage = {}
        usage = {k: (v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None) for k, v in usage.items()}
        extras = {"image_frame": self.frame.describe(sent), "served_by": server or "cache",
                  "usage": {"input_tokens": usage.get("prompt_tokens"), "output_tokens": usage.get("completion_tokens")},
                  "finish_reason": choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
                  **text_notes}
        return Generated(text, capture, self.frame.model_sizes(sent), extras)


DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_KEY_HOSTS = ("api.openai.com",)  # where the default key variable may go (over https)


def _key_for(urls: Sequence[str], api_key_env: str | None) -> str | None:
    """The key to send: the named variable's value (the user named the hosts with ``base_url``); without a name,
    ``OPENAI_API_KEY`` only when every URL is https to :data:`DEFAULT_KEY_HOSTS`."""
    from urllib.parse import urlsplit

    if api_key_env:
        return os.environ.get(str(api_key_env))
    if all(urlsplit(u).scheme == "https" and (urlsplit(u).hostname or "") in DEFAULT_KEY_HOSTS for u in urls):
        return os.environ.get(DEFAULT_KEY_ENV)
    return None


def _noted(req: RequestContext, out: Generated) -> Generated:
    """``out``, after recording a response without usable text (``bad_response``, ``tool_call_only``) as its sample's
    named error (``gui_core.sample_faults``; the task scores it as the empty answer it is). Every path (one request,
    rounds, a response-stage re-run) passes here."""
    fault = served_fault(out.extras)
    if fault is not None and req.task:
        record_fault(req.task, req.doc if req.doc is not None else {"id": req.doc_id}, fault)
    return out


def _clean_text(text: str, notes: dict[str, Any]) -> str:
    """``text`` with lone surrogates (which no UTF-8 file can hold: lmms-eval's samples file would stay empty)
    replaced by U+FFFD; how many is recorded in ``notes["surrogates_replaced"]``."""
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return text
    clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    notes["surrogates_replaced"] = sum(1 for c in clean if c == "\ufffd") - text.count("\ufffd")
    return clean


def _logprob_problem(content: Any, max_tokens: int, max_top: int) -> str | None:
    """Why a response's ``logprobs.content`` cannot be a capture (non-finite or positive log-probabilities, more steps
    than the budget, more alternatives than asked for, wrong shape), or None."""
    if not isinstance(content, list):
        return f"logprobs.content is a {type(content).__name__}, not a list"
    if len(content) > max_tokens + 1:
        return f"{len(content)} logprob steps for max_tokens={max_tokens}"
    for k, step in enumerate(content):
        if not isinstance(step, Mapping) or not isinstance(step.get("token", ""), str):
            return f"step {k}: not a {{token, logprob}} object"
        tops = step.get("top_logprobs") or []
        if not isinstance(tops, list) or len(tops) > max_top:
            return f"step {k}: {len(tops) if isinstance(tops, list) else type(tops).__name__} alternatives (at most {max_top} asked)"
        for entry in [step, *tops]:
            if not isinstance(entry, Mapping):
                return f"step {k}: an alternative is not an object"
            lp = entry.get("logprob")
            if lp is None and entry is step:
                continue
            if isinstance(lp, bool) or not isinstance(lp, (int, float)) or not math.isfinite(lp) or lp > LOGPROB_SLACK:
                return f"step {k}: log-probability {lp!r} is not a finite number <= 0"
            if not isinstance(entry.get("token", ""), str):
                return f"step {k}: a token is not text"
    return None


def _token_counts(generated: Sequence[Generated]) -> TokenCounts | None:
    """Summed usage of a request's generations (the original and any response-stage re-run); None when unknown."""
    ins = [((g.extras or {}).get("usage") or {}).get("input_tokens") for g in generated]
    outs = [((g.extras or {}).get("usage") or {}).get("output_tokens") for g in generated]
    if any(v is None for v in ins + outs):
        return None
    return TokenCounts(input_tokens=sum(ins), output_tokens=sum(outs))
