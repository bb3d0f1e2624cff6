"""The host side of ``gui_hf`` off the critical path: batches of like-sized requests, prepared ahead in a thread.

Three pieces, each usable alone (``gui_hf`` composes them in ``generate_until``):

- :func:`consecutive_batches`: the batching ``gui_hf`` always had: consecutive requests with equal generation
  settings, ``batch_size`` at most. Used at batch size 1 (nothing to bucket) and with ``bucket=1``.
- :func:`bucketed_batches`: requests read in windows of ``bucket`` batches (a window also closes when its decoded
  screenshots reach :data:`MAX_WINDOW_BYTES`); each window is split by generation settings and sorted by size
  (image pixels, image count, prompt characters; largest first, like lmms-eval's own ``Collator`` orders by
  length), then cut into batches. Rows of like length pad less: on the synthetic MPR-GUI set a batch that mixes a
  three-screenshot episode with single screenshots pads every row to three images' worth of tokens, and attention
  costs the square of that. Each row keeps its request index, so answers go back in request order whatever the
  batch order (lmms-eval's evaluator hands ``generate_until`` its requests and expects answers in that order).
- :class:`Prefetcher`: a bounded producer thread. Batch k+1 is read, its screenshots decoded and the processor run
  while batch k generates; batches come out in the order they were made; an exception in the producer is raised
  in the consumer, and closing stops the producer (also when the consumer fails).

Memory: the requests alive at once are at most :func:`requests_held`: the window being read, the prepared batches
in the queue, the batch generating and the last batch the generation hooks keep.
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, Generic, Iterable, Iterator, Mapping, Sequence, TypeVar

from gui_interventions import RequestContext

Row = tuple[int, RequestContext]
T = TypeVar("T")

DEFAULT_BUCKET = 8
"""Batches per sorting window (model arg ``bucket``): 1 keeps the requests' order. On the synthetic MPR-GUI set (one
episode of 2-4 screenshots in every 8 questions) 8 batches sort as well as the whole set: the attention cost of the
prefill (sum over batches of rows x longest row squared) is 39.4 M there, 52.7 M with windows of 4 batches, 107 M in
request order; lmms-eval's own chat Qwen2.5-VL backend, which sorts by prompt text, gets 41.0 M."""
DEFAULT_PREFETCH = 1
"""Prepared batches waiting in the queue (model arg ``prefetch``) when the model is on a GPU; 0 prepares each batch
when it is needed, ``gui_hf``'s default on the CPU: there the thread takes cores and the interpreter lock from the
forward pass (a tiny model's forward is mostly Python), and on the shared 2-core machine it cost more than it hid."""
MAX_WINDOW_BYTES = 512 << 20
"""A sorting window closes early when its decoded screenshots (RGB bytes) reach this: 8 ScreenSpot-Pro 6016x3384
screenshots, 690 of the synthetic 360x720 ones."""


def gen_key(gen_kwargs: Mapping[str, Any]) -> str:
    """Requests batch together only when their generation settings are equal."""
    return json.dumps(dict(gen_kwargs), sort_keys=True, default=str)


def image_bytes(req: RequestContext) -> int:
    """Decoded RGB bytes of the request's images (0 for images without a ``size``)."""
    total = 0
    for im in req.images:
        size = getattr(im, "size", None)
        if isinstance(size, tuple) and len(size) == 2:
            total += int(size[0]) * int(size[1]) * 3
    return total


def size_key(req: RequestContext) -> tuple[int, int, int]:
    """What decides a row's length: (image pixels, number of images, prompt characters)."""
    return image_bytes(req) // 3, len(req.images), len(req.text)


def consecutive_batches(rows: Iterable[Row], batch_size: int) -> Iterator[list[Row]]:
    """Consecutive requests with equal generation settings, ``batch_size`` at most per batch (request order)."""
    batch: list[Row] = []
    for row in rows:
        if batch and (len(batch) == batch_size or gen_key(row[1].gen_kwargs) != gen_key(batch[0][1].gen_kwargs)):
            yield batch
            batch = []
        batch.append(row)
    if batch:
        yield batch


def plan_window(window: Sequence[Row], batch_size: int) -> list[list[Row]]:
    """One window's batches: per generation settings (in order of first appearance), largest rows first, cut."""
    groups: dict[str, list[Row]] = {}
    for row in window:
        groups.setdefault(gen_key(row[1].gen_kwargs), []).append(row)
    batches: list[list[Row]] = []
    for rows in groups.values():
        ordered = sorted(rows, key=lambda r: size_key(r[1]), reverse=True)  # stable: equal sizes keep request order
        batches += [ordered[k:k + batch_size] for k in range(0, len(ordered), batch_size)]
    return batches


def bucketed_batches(rows: Iterable[Row], batch_size: int, bucket: int = DEFAULT_BUCKET,
                     max_window_bytes: int = MAX_WINDOW_BYTES) -> Iterator[list[Row]]:
    """Batches of like-sized requests, sorted within windows of ``bucket * batch_size`` requests (see module doc)."""
    if batch_size <= 1 or bucket <= 1:
        yield from consecutive_batches(rows, batch_size)
        return
    window: list[Row] = []
    held = 0
    for row in rows:
        window.append(row)
        held += image_bytes(row[1])
        if len(window) >= bucket * batch_size or held >= max_window_bytes:
            yield from plan_window(window, batch_size)
            window, held = [], 0
    if window:
        yield from plan_window(window, batch_size)


def requests_held(batch_size: int, bucket: int, prefetch: int) -> int:
    """The most requests (with their screenshots) alive at once in ``gui_hf.generate_until``."""
    window = bucket * batch_size if batch_size > 1 and bucket > 1 else batch_size + 1
    return window + (max(prefetch, 0) + 2) * batch_size


class Prefetcher(Generic[T]):
    """Items of ``source`` made in a background thread, at most ``depth`` waiting; ``depth=0``: made on demand.

    Iterate it once; use it as a context manager (or call :meth:`close`) so the producer stops with the consumer.
    """

    _POLL_S = 0.1

    def __init__(self, source: Iterable[T], depth: int, name: str = "gui_hf-prefetch") -> None:
        self._source = iter(source)
        self._thread: threading.Thread | None = None
        if depth <= 0:
            return
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name=name, daemon=True)
        self._thread.start()

    def _put(self, entry: tuple[str, Any]) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(entry, timeout=self._POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            for item in self._source:
                if not self._put(("item", item)):
                    return
            self._put(("end", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            self._put(("error", exc))

    def __iter__(self) -> Iterator[T]:
        if self._thread is None:
            yield from self._source
            return
        while True:
            kind, value = self._queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop the producer: it ends after the item it is making (what is queued is dropped)."""
        if self._thread is None:
            close = getattr(self._source, "close", None)
            if close is not None:
                close()
            return
        self._stop.set()
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            close = getattr(self._source, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> "Prefetcher[T]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
