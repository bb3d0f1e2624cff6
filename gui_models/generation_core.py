"""One generation core for ``gui_hf``, ``gui_wrap`` and ``gui_openai``: the three intervention stages and the digit capture.

- Requests: an lmms-eval ``Instance`` in either layout of lmms-eval 0.7.3 — simple
  ``(ctx, gen_kwargs, doc_to_visual, doc_id, task, split)`` or chat
  ``(ctx, doc_to_messages, gen_kwargs, doc_id, task, split)`` — becomes one
  ``RequestContext`` (prompt text, images in order, document), then the request stage runs.
- Forward stage and capture: :class:`GenerateHooks` replaces ``module.generate`` of a
  loaded ``torch.nn.Module`` for the duration of a call, so whoever calls ``generate``
  (our own backend or an existing lmms-eval backend) runs with the selected forward-stage
  interventions entered and the digit recorder in its logits processors; both are
  undone on exit, also on error. Each ``generate`` call leaves a :class:`GenerateRecord`
  (per-row captures, per-row sizes of the images the model saw).
- Response stage: :func:`respond` runs it and attaches ``extras["model_image_sizes"]``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from gui_interventions import ForwardContext, InterventionRun, RequestContext, ResponseContext
from gui_core.logit_capture import CapturedResponse, DigitLogitsProcessor, capture_of, extras_of
from gui_core.sample_faults import RunFault

Layout = str  # "simple" | "chat"


def request_layout(args: Sequence[Any]) -> Layout:
    """``chat`` when the second argument is the task's ``doc_to_messages`` (a callable), else ``simple``."""
    return "chat" if len(args) >= 2 and callable(args[1]) else "simple"


def messages_to_text_images(messages: Any) -> tuple[str, list[Any]]:
    """The user text (parts joined by newlines) and the images, in order, of lmms-eval chat messages."""
    from lmms_eval.protocol import ChatMessages

    chat = messages if isinstance(messages, ChatMessages) else ChatMessages(messages=messages)
    texts: list[str] = []
    images: list[Any] = []
    for message in chat.messages:
        if message.role == "system":
            continue
        for part in message.content:
            if part.type == "text":
                texts.append(part.text)
            elif part.type == "image":
                images.append(part.url)
    return "\n".join(texts), images


def _as_list(visuals: Any) -> list[Any]:
    items = visuals if isinstance(visuals, (list, tuple)) else [visuals]
    return [v for v in items if v is not None]


def parse_request(args: Sequence[Any], task_dict: Mapping[str, Any] | None) -> RequestContext:
    """A ``generate_until`` request (either layout) as a ``RequestContext`` (before the request stage)."""
    layout = request_layout(args)
    if layout == "chat":
        ctx, doc_to_messages, gen_kwargs, doc_id, task, split = args[:6]
    else:
        ctx, gen_kwargs, doc_to_visual, doc_id, task, split = args[:6]
    doc = task_dict[task][split][doc_id] if task_dict and task in task_dict else None
    if layout == "chat":
        if doc is None:
            raise ValueError(f"chat-layout request for task {task!r} but the backend has no task_dict entry for it")
        text, images = messages_to_text_images(doc_to_messages(doc))
    else:
        text, images = str(ctx), (_as_list(doc_to_visual(doc)) if doc is not None else [])
    return RequestContext(text=text, images=tuple(images), doc_id=int(doc_id), task=str(task), gen_kwargs=dict(gen_kwargs or {}),
                          doc=doc, metadata={"layout": layout, "split": split, "task_prompt": text})


def contained_request(run: InterventionRun, args: Sequence[Any], task_dict: Mapping[str, Any] | None) -> RequestContext:
    """:func:`parse_request` and the request stage, contained: a fault for this one request (a document whose images
    cannot be read, an intervention that raises, a prompt or image count past ``gui_core.bounds``) becomes the
    sample's named error (``gui_core.sample_faults``; the task scores it as an empty answer) and the request goes on
    with no image and an empty prompt; the run goes on."""
    from gui_core.bounds import check_request

    try:
        req = run.request(parse_request(args, task_dict))
        check_request(req.text, req.images)  # a prompt or image count past its bound never reaches the model
        return req
    except Exception as exc:  # noqa: BLE001 - one request's fault, never the run's
        layout = request_layout(args)
        doc_id, task, split = args[3:6]
        gen_kwargs = args[2] if layout == "chat" else args[1]
        doc = record_args_fault(args, task_dict, "its request (documents and interventions)", exc)
        return RequestContext(text="", images=(), doc_id=int(doc_id), task=str(task), gen_kwargs=dict(gen_kwargs or {}),
                              doc=doc, metadata={"layout": layout, "split": split, "task_prompt": "", "fault": True})


RUN_FAULTS = (RunFault, NameError, ImportError, SyntaxError)
"""Exceptions that are never one document's fault (a setting no document can run with, a bug in our code or an
install): per-document containment re-raises them, else every sample would be scored as an empty answer and the run
would look finished."""


def record_args_fault(args: Sequence[Any], task_dict: Mapping[str, Any] | None, step: str, exc: BaseException) -> Any:
    """Record ``exc`` as the named error of the document a request's arguments point at; returns that document.

    Every request layout (simple, chat, multi-round) ends with ``(doc_id, task, split)``.
    """
    from gui_core.sample_faults import describe_fault, record

    doc_id, task, split = args[-3:]
    try:
        doc = task_dict[task][split][doc_id] if task_dict and task in task_dict else {"id": doc_id}
    except Exception:  # noqa: BLE001
        doc = {"id": doc_id}
    record(str(task), doc, describe_fault(step, exc))
    return doc


def record_fault(request: RequestContext, step: str, fault: BaseException | str) -> None:
    """Record the named error of ``request``'s document (an exception met at ``step``, or a refusal's text)."""
    from gui_core.sample_faults import describe_fault, record

    doc = request.doc if request.doc is not None else {"id": request.doc_id}
    record(request.task, doc, describe_fault(step, fault) if isinstance(fault, BaseException) else f"{step}: {fault}")


def cut_at_stops(text: str, until: Any) -> str:
    """Truncate at the first stop string the task asked for (``until``: a string, a list or None).

    Every backend of ours cuts on its side too: lmms-eval's ``vllm`` and ``openai`` backends drop ``until``.
    """
    stops = [until] if isinstance(until, str) else list(until or [])
    for stop in stops:
        if stop and stop in text:
            text = text.split(stop, 1)[0]
    return text


def record_sent_prompt(instance: Any, request: RequestContext) -> None:
    """Make lmms-eval's samples log (``input`` = first argument) show the prompt text actually sent."""
    args = tuple(instance.arguments)
    if args and args[0] != request.text:
        instance.arguments = (request.text,) + args[1:]


@dataclass
class GenerateRecord:
    """What one ``generate`` call left: per-row captures (None without capture) and image sizes (None when unknown)."""

    captures: list[Any] | None
    image_sizes: list[list[list[int]] | None]
    rows: int
    requests: list[RequestContext] = field(default_factory=list)
    """The requests of the rows, when known (one per row)."""


def model_image_sizes(inputs: Mapping[str, Any], counts: Sequence[int], patch_size: int | None) -> list[list[list[int]] | None]:
    """Per row, ``[[width, height], ...]`` of each image as fed to the model, or None when the inputs do not say it.

    Qwen-family processors (Qwen2-VL, Qwen2.5-VL, Qwen3-VL) report each image's patch grid
    ``image_grid_thw`` = (t, h, w): the resized image is ``w * patch_size`` x ``h * patch_size``.
    Other processors give no per-image size: absent (scoring falls back to a named budget).
    """
    grid = inputs.get("image_grid_thw") if hasattr(inputs, "get") else None
    if grid is None or not patch_size:
        return [None] * len(counts)
    sizes = [[int(w) * int(patch_size), int(h) * int(patch_size)] for _t, h, w in grid.tolist()]
    if sum(counts) != len(sizes):
        return [sizes] if len(counts) == 1 else [None] * len(counts)
    out, at = [], 0
    for n in counts:
        out.append(sizes[at:at + n] if n else None)
        at += n
    return out


def patch_size_of(processor: Any) -> int | None:
    ip = getattr(processor, "image_processor", None)
    size = getattr(ip, "patch_size", None)
    return int(size) if isinstance(size, int) else None


class GenerateHooks:
    """Forward-stage interventions and digit capture around ``module.generate`` (see module docstring)."""

    def __init__(self, run: InterventionRun, digit_groups: Sequence[Sequence[int]] | None, tokenizer: Any,
                 owner: str = "gui_hf") -> None:
        self.run, self.digit_groups, self.tokenizer, self.owner = run, digit_groups, tokenizer, owner
        self.records: list[GenerateRecord] = []

    @property
    def needs_rows(self) -> bool:
        """True when generate's rows must match the requests one to one (capture or a forward-stage plugin)."""
        return self.digit_groups is not None or bool(self.run._impls("gui_intervention_forward"))

    def stop_ids(self, module: Any) -> list[int]:
        """Token ids that end a response: the generation config's EOS id(s) and the tokenizer's pad/EOS ids."""
        eos = getattr(getattr(module, "generation_config", None), "eos_token_id", None)
        ids = list(eos) if isinstance(eos, (list, tuple)) else [eos]
        return [int(i) for i in ids + [self.tokenizer.pad_token_id, self.tokenizer.eos_token_id] if i is not None]

    @contextmanager
    def attached(self, module: Any, processor: Any, layers: Sequence[Any],
                 requests: Sequence[RequestContext] | Callable[[], Sequence[RequestContext]]) -> Iterator[list[GenerateRecord]]:
        """While active, ``module.generate`` runs the forward stage and the capture for ``requests`` (its rows).

        ``requests`` may be a callable giving the rows of each ``generate`` call as it happens.
        """
        import torch

        original = module.generate
        had_own = "generate" in vars(module)
        records: list[GenerateRecord] = []
        patch = patch_size_of(processor)

        def generate(*args: Any, **kwargs: Any) -> Any:
            reqs = list(requests() if callable(requests) else requests)
            counts = [len(r.images) for r in reqs]
            inputs = dict(kwargs)
            if args and "input_ids" not in inputs:
                inputs["input_ids"] = args[0]
            ids = inputs.get("input_ids")
            rows = int(ids.shape[0]) if ids is not None else len(reqs)
            if self.needs_rows and rows != len(reqs):
                raise RunFault(f"{self.owner}: generate() saw {rows} rows for {len(reqs)} requests; the forward stage "
                                 "and capture need one row per request")
            recorder = None
            if self.digit_groups is not None:
                from transformers import LogitsProcessorList

                beams = kwargs.get("num_beams") or getattr(getattr(module, "generation_config", None), "num_beams", 1) or 1
                if int(beams) > 1:  # beams reorder rows between steps: per-row records would mix hypotheses
                    raise RunFault(f"{self.owner}: capture_logits needs num_beams=1")
                recorder = DigitLogitsProcessor(self.digit_groups, ids.device)
                kwargs["logits_processor"] = LogitsProcessorList([*(kwargs.get("logits_processor") or []), recorder])
            forward = ForwardContext(module, processor, inputs, reqs, layers=tuple(layers))
            with torch.inference_mode(), self.run.forward(forward):
                out = original(*args, **kwargs)
            seqs = out if isinstance(out, torch.Tensor) else out.sequences
            prompt_len = int(ids.shape[1])
            captures = recorder.finish(seqs, prompt_len, self.tokenizer, self.stop_ids(module)) if recorder is not None else None
            known = rows == len(reqs)
            sizes = model_image_sizes(inputs, counts, patch) if known else [None] * rows
            records.append(GenerateRecord(captures, sizes, rows, reqs if known else []))
            return out

        module.generate = generate
        try:
            yield records
        finally:
            if had_own:
                module.generate = original
            else:
                del module.generate
            self.records = records


@dataclass
class Generated:
    """One response before the response stage: its text, capture and the sizes of the images the model saw."""

    text: str
    capture: Any = None
    image_sizes: list[list[int]] | None = None
    extras: dict[str, Any] | None = None
    """Backend-specific per-response facts (e.g. ``gui_openai``: sizes sent, declared frame, server, usage)."""

    def response(self) -> str:
        """The text, as a ``CapturedResponse`` (logit_capture's side channel) when it carries a capture, sizes or extras."""
        if self.capture is None and self.image_sizes is None and not self.extras:
            return self.text
        extras = {**(self.extras or {}), **({"model_image_sizes": self.image_sizes} if self.image_sizes else {})}
        return CapturedResponse(self.text, self.capture, extras or None)


def respond(run: InterventionRun, generated: Generated, request: RequestContext,
            rerun: Callable[[RequestContext], Generated]) -> str:
    """Run the response stage; the result carries ``extras["model_image_sizes"]`` when the sizes are known.

    The sizes are those of the generation that produced the returned text: the original one,
    or the last re-run (context-aware cropping answers on the crop).
    """
    last = {"sizes": generated.image_sizes}
    _note_reasoning(request, generated)

    def again(req: RequestContext) -> str:
        g = rerun(req)
        _note_reasoning(req, g)
        last["sizes"] = g.image_sizes
        return g.response()

    out = run.response(ResponseContext(text=generated.response(), request=request, rerun=again))
    if last["sizes"] is None or "model_image_sizes" in extras_of(out):
        return out
    return CapturedResponse(str(out), capture_of(out), {**extras_of(out), "model_image_sizes": last["sizes"]})


def _note_reasoning(request: RequestContext, generated: Generated) -> None:
    """Keep the generation's reasoning note (``gui_core.reasoning``) for its document's ``process_results``."""
    from gui_core.reasoning import note, note_from_extras

    found = note_from_extras(generated.extras)
    if found is not None:
        note(request.task, request.doc if request.doc is not None else {"id": request.doc_id}, found)


def run_multi_round(instance: Any, task_dict: Mapping[str, Any] | None, run: InterventionRun,
                    generate: Callable[[RequestContext], Generated]) -> list[str]:
    """All rounds of one ``generate_until_multi_round`` request (lmms-eval 0.7.3 protocol, either layout).

    Simple: ``(ctx, gen_kwargs, doc_to_visual, doc_to_text, doc_id, task, split)``; round k > 0 comes
    from ``doc_to_text(doc, round_idx=k, previous_output=[...], previous_round_info=...)`` =
    ``(visuals, text, terminal, previous_output, info)``. Chat: ``(ctx, doc_to_messages, gen_kwargs,
    doc_id, task, split)``; round k > 0 from ``doc_to_messages(doc, round_idx=k, ...)`` =
    ``(messages, terminal, previous_output, info)``. Every round passes the request and response stages.
    """
    args = tuple(instance.args)
    chat = request_layout(args) == "chat"
    if chat:
        ctx, doc_to_messages, gen_kwargs, doc_id, task, split = args
        first = parse_request(args, task_dict)
    else:
        ctx, gen_kwargs, doc_to_visual, doc_to_text, doc_id, task, split = args
        first = parse_request((ctx, gen_kwargs, doc_to_visual, doc_id, task, split), task_dict)
    req = run.request(first)
    record_sent_prompt(instance, req)
    outs: list[str] = []
    info = None
    while True:
        outs.append(respond(run, generate(req), req, generate))
        k = len(outs)
        if chat:
            payload = doc_to_messages(first.doc, round_idx=k, previous_output=list(outs), previous_round_info=info)
            if not (isinstance(payload, tuple) and len(payload) == 4):
                break
            messages, terminal, _prev, info = payload
            if terminal:
                break
            text, images = messages_to_text_images(messages)
        else:
            visuals, text, terminal, _prev, info = doc_to_text(first.doc, round_idx=k, previous_output=list(outs),
                                                               previous_round_info=info)
            if terminal:
                break
            images = _as_list(visuals or [])
        req = run.request(first.with_(text=str(text), images=tuple(images), metadata={**first.metadata, "round": k}))
    return outs
