"""``gui_wrap``: our intervention stages and digit capture on an existing lmms-eval backend.

    lmms-eval --model gui_wrap --model_args backend=qwen2_5_vl,pretrained=...,interventions=gui_xli,gui_xli.memory=...,capture_logits=digits

Model args: ``backend`` (an lmms-eval model name, resolved by lmms-eval's registry as
``--model`` would be), ``interventions``, ``capture_logits`` and ``<intervention>.<param>``
are ours; every other argument (and the CLI's ``--batch_size``/``--device``) goes to the
wrapped backend unchanged. ``thinking=on|off`` (with ``think_budget``, ``reasoning_tags``) is handed to a wrapped
backend whose constructor takes the chat template's ``enable_thinking`` (lmms-eval's ``qwen3_vl``, ``qwen3_5``) and
refused for one that does not; with it on each request's budget grows by ``think_budget`` and its stop strings are
applied to the answer after the reasoning, here (``gui_models.thinking``).

How it runs (the same core as ``gui_hf``: ``gui_models.generation_core``):

- Request stage: each request (chat or simple layout) becomes a ``RequestContext``, the
  selected plugins rewrite it, and the wrapped backend receives it in the layout it
  consumes (its ``is_simple``): the rewritten text as context / user turn, the rewritten
  images through ``doc_to_visual`` / ``doc_to_messages``. The samples log shows the prompt sent.
- Forward stage and ``capture_logits=digits``: attached around ``generate`` of the
  backend's own ``torch.nn.Module`` (found as the backend stores it: ``model``, ``_model``,
  or any attribute holding a module with ``generate``). When they are active the backend
  gets one request per call, so each ``generate`` row is known to be that request (the
  rows must match for steering and capture); otherwise it gets every request at once and batches
  as it likes. Backends without a module (API backends) run request/response-stage
  interventions only; asking for more fails naming the backend.
- Response stage and multi-round: as in ``gui_hf``; every round is one request to the backend.
- Run journal (model arg ``resume``, ours): as in ``gui_hf`` (``gui_models.run_journal``).
"""

from __future__ import annotations

import functools
from typing import Any, Mapping, Sequence

from lmms_eval.api.instance import GenerationResult, Instance
from lmms_eval.api.model import lmms
from tqdm import tqdm

from gui_interventions import RequestContext, build_run
from gui_interventions.manager import parse_selection
from gui_models.generation_core import (RUN_FAULTS, GenerateHooks, Generated, contained_request, record_sent_prompt, respond,
                                        run_multi_round)
from gui_core.logit_capture import capture_mode, digit_groups
from gui_models.model_args import split_wrap_args
from gui_models.thinking import THINKING_ARGS, Thinking, attach_note, token_counter
from gui_models.run_journal import checkpoint_identity, open_journal

OURS = ("backend", "interventions", "capture_logits", "resume")
OPERATIONAL = ("device", "batch_size", "max_batch_size", "device_map")  # left out of the journal's settings
WINDOW = 64  # requests parsed and handed to the wrapped backend per call of its generate_until (at least 4 batches)
# lmms-eval backends that generate max(task budget, their own max_new_tokens) (4096 by default): wrapped, they get
# max_new_tokens=1 unless the user gives one, so every task's own budget wins (docs/ENGINES.md).
MAX_OF_BUDGETS = ("vllm", "vllm_generate")
MODULE_ATTRS = ("model", "_model")


class _KeyedDoc(dict):
    """A task document handed to the wrapped backend, remembering which request it belongs to."""

    gui_key: tuple[str, str, int]


class _KeyedSplit:
    def __init__(self, docs: Any, task: str, split: str) -> None:
        self.docs, self.task, self.split = docs, task, split

    def __getitem__(self, doc_id: int) -> _KeyedDoc:
        doc = _KeyedDoc(self.docs[doc_id])
        doc.gui_key = (self.task, self.split, int(doc_id))
        return doc

    def __len__(self) -> int:
        return len(self.docs)


class _KeyedTaskDict(Mapping):
    """``task_dict`` as the wrapped backend sees it: the wrapper's, with keyed documents."""

    def __init__(self, outer: Any) -> None:
        self.outer = outer

    def __getitem__(self, task: str) -> Any:
        splits = self.outer.task_dict[task]
        return {split: _KeyedSplit(splits[split], task, split) for split in splits}

    def __iter__(self):
        return iter(self.outer.task_dict)

    def __len__(self) -> int:
        return len(self.outer.task_dict)


def find_module(backend: Any) -> Any | None:
    """The backend's ``torch.nn.Module`` with a ``generate`` method, as the backend stores it, or None."""
    import torch.nn as nn

    for name in MODULE_ATTRS:
        try:
            value = getattr(backend, name, None)
        except Exception:  # a property that fails (e.g. API clients)
            value = None
        if isinstance(value, nn.Module) and callable(getattr(value, "generate", None)):
            return value
    for value in vars(backend).values():
        if isinstance(value, nn.Module) and callable(getattr(value, "generate", None)):
            return value
    return None


def _attr(obj: Any, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


class GuiWrap(lmms):
    """Runs an lmms-eval backend by name with the intervention stages and digit capture attached."""

    is_simple = True

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None) -> "GuiWrap":
        from lmms_eval import utils

        args = utils.simple_parse_args_string(arg_string)
        return cls(**args, _cli={k: v for k, v in (additional_config or {}).items() if v is not None})

    def __init__(self, backend: str | None = None, interventions: str | None = None, capture_logits: str = "none",
                 _cli: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__()
        from lmms_eval.models import get_model

        if not backend:
            raise ValueError("gui_wrap: model arg backend=<lmms-eval model name> is required (e.g. backend=qwen2_5_vl)")
        names = parse_selection(interventions)
        self.thinking = Thinking.from_args({k: kwargs.pop(k) for k in list(kwargs) if k in THINKING_ARGS}, "gui_wrap")
        resume = kwargs.pop("resume", None)
        ours, kwargs = split_wrap_args(interventions, kwargs)  # unselected intervention params refused, as gui_hf does
        self.capture_logits = capture_mode(capture_logits, "gui_wrap")
        run = build_run(names, ours)
        self.backend_name = str(backend)
        inner_cls = get_model(self.backend_name, force_simple=self.is_simple)
        passed = {**{k: v for k, v in (_cli or {}).items() if k not in kwargs}, **kwargs}
        if getattr(inner_cls, "keeps_journal", False):  # one journal per run: the wrapper's, of the answers it returns
            passed.setdefault("resume", "none")
        if self.backend_name in MAX_OF_BUDGETS and "max_new_tokens" not in passed:
            passed["max_new_tokens"] = 1
        if self.thinking.mode is not None:
            passed[self.thinking.key] = thinking_arg(inner_cls, self.backend_name, self.thinking)
        self.inner = inner_cls(**passed)
        self.inner.task_dict = _KeyedTaskDict(self)
        self.module = find_module(self.inner)
        self.processor = _attr(self.inner, "processor", "_processor")
        self.tokenizer = _attr(self.inner, "tokenizer", "_tokenizer") or getattr(self.processor, "tokenizer", None)
        self.layers: Sequence[Any] = ()
        if self.module is not None:
            from gui_models.layers import decoder_layers

            try:
                self.layers = decoder_layers(self.module)
            except ValueError:
                self.layers = ()
        forward = [i.plugin_name for i in run._impls("gui_intervention_forward")]
        if self.module is None and (forward or self.capture_logits != "none"):
            wanted = ", ".join(forward + (["capture_logits=" + self.capture_logits] if self.capture_logits != "none" else []))
            raise ValueError(f"gui_wrap: backend {self.backend_name!r} ({type(self.inner).__name__}) holds no torch.nn.Module with "
                             f"generate() (looked at {', '.join(MODULE_ATTRS)} and its attributes); {wanted} need one. "
                             "Request- and response-stage interventions work on any backend.")
        groups = digit_groups(self.tokenizer) if self.capture_logits == "digits" else None
        self.hooks = GenerateHooks(run, groups, self.tokenizer, owner=f"gui_wrap({self.backend_name})")
        self.interventions = run
        self._pending: dict[tuple[str, str, int], RequestContext] = {}
        self._materialised: list[RequestContext] = []
        settings = {"backend": f"gui_wrap({self.backend_name})", "checkpoint": checkpoint_identity(passed.get("pretrained")),
                    "backend_args": {k: str(v) for k, v in sorted(passed.items()) if k not in OPERATIONAL},
                    "interventions": interventions or None, "intervention_params": {k: str(v) for k, v in sorted(ours.items())},
                    "capture_logits": self.capture_logits, "thinking": self.thinking.describe()}
        self.journal = open_journal("gui_wrap", settings, resume, self.rank, self.capture_logits)

    # --- lmms-eval interface -------------------------------------------------------------

    @property
    def rank(self) -> int:
        return self.inner.rank

    @property
    def world_size(self) -> int:
        return self.inner.world_size

    @property
    def batch_size(self) -> int:
        return getattr(self.inner, "batch_size", 1)

    @property
    def accelerator(self) -> Any:
        return getattr(self.inner, "accelerator", None)

    @property
    def device(self) -> Any:
        return getattr(self.inner, "device", None)

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        return self.inner.loglikelihood(requests)

    def generate_until(self, requests: list[Instance]) -> list[str]:
        """Responses in request order, streamed in windows of :attr:`window` requests: each window is parsed (images
        decoded), handed to the wrapped backend in one call and answered before the next is parsed, so memory holds
        one window of screenshots whatever the benchmark's size. The wrapped backend batches (and may sort) within a
        window; with ``batch_size`` 1 its calls are the same as with every request at once. With a run journal the
        answers it holds come from it and only the others are generated."""
        if getattr(self, "journal", None) is not None:
            return self.journal.run(requests, self._generate_fresh, self.task_dict)
        return self._generate_fresh(requests, None)

    def _generate_fresh(self, requests: list[Instance], done: Any) -> list[str]:
        rerun = lambda req: self._run([req])[0]  # noqa: E731 - one re-run, as in gui_hf
        out: list[str] = []
        pbar = tqdm(total=len(requests), disable=self.rank != 0 or len(requests) < 2, desc=f"gui_wrap({self.backend_name})")
        for start in range(0, len(requests), self.window):
            reqs = []
            for r in requests[start:start + self.window]:
                req = contained_request(self.interventions, r.args, self.task_dict)
                record_sent_prompt(r, req)
                reqs.append(req)
            outs = self._run(reqs)
            for g, req in zip(outs, reqs):
                out.append(respond(self.interventions, g, req, rerun))
                if done is not None:
                    done(len(out) - 1, out[-1])
            pbar.update(len(reqs))
        pbar.close()
        return out

    @property
    def window(self) -> int:
        """Requests parsed and handed to the wrapped backend at once (:meth:`generate_until`)."""
        return max(WINDOW, 4 * int(self.batch_size or 1))

    def generate_until_multi_round(self, requests: list[Instance]) -> list[list[str]]:
        if getattr(self, "journal", None) is not None:
            return self.journal.run(requests, self._multi_round_fresh, self.task_dict)
        return self._multi_round_fresh(requests, None)

    def _multi_round_fresh(self, requests: list[Instance], done: Any) -> list[list[str]]:
        out: list[list[str]] = []
        for r in tqdm(requests, disable=self.rank != 0, desc=f"gui_wrap({self.backend_name}) multi-round"):
            out.append(run_multi_round(r, self.task_dict, self.interventions, lambda req: self._run([req])[0]))
            if done is not None:
                done(len(out) - 1, out[-1])
        return out

    # --- internals ------------------------------------------------------------------------------

    def _visuals(self, doc: Any) -> list[Any]:
        req = self._pending[doc.gui_key]
        self._materialised.append(req)
        return list(req.images)

    def _messages(self, doc: Any) -> list[dict[str, Any]]:
        req = self._pending[doc.gui_key]
        self._materialised.append(req)
        content = [{"type": "image", "url": im} for im in req.images] + [{"type": "text", "text": req.text}]
        return [{"role": "user", "content": content}]

    def _instance(self, req: RequestContext) -> Instance:
        """The request in the layout the wrapped backend consumes, carrying the rewritten text and images."""
        split = req.metadata.get("split", "test")
        gen = dict(req.gen_kwargs)
        if self.thinking.on:  # room to reason, and no stop string that would end the reasoning (cut here, after it)
            gen["max_new_tokens"] = self.thinking.max_tokens(int(gen.get("max_new_tokens") or 128))
            gen["until"] = []
        if getattr(self.inner, "is_simple", True):
            args = (req.text, gen, functools.partial(GuiWrap._visuals, self), req.doc_id, req.task, split)
        else:
            args = (req.text, functools.partial(GuiWrap._messages, self), gen, req.doc_id, req.task, split)
        return Instance("generate_until", args, 0, {"task": req.task, "doc_id": req.doc_id, "repeats": 1})

    def _rows(self) -> list[RequestContext]:
        """The requests the backend materialised since its last ``generate`` call: the rows of the next one."""
        rows, self._materialised = self._materialised, []
        return rows

    def _run(self, reqs: Sequence[RequestContext], progress: bool = False) -> list[Generated]:
        """Generate through the wrapped backend; per-request calls when rows must be known (see module docstring)."""
        groups = [[r] for r in reqs] if self.hooks.needs_rows else [list(reqs)]
        out: list[Generated] = []
        for group in tqdm(groups, disable=not progress or self.rank != 0 or len(groups) == 1,
                          desc=f"gui_wrap({self.backend_name})"):
            out += self._call(group)
        return out

    def _call(self, reqs: list[RequestContext]) -> list[Generated]:
        """The wrapped backend's answers to ``reqs``, contained: a call that raises is made again one request at a
        time, so only the request that raises alone gets a named error (``gui_core.sample_faults``) and an empty
        answer; the run goes on."""
        keys = [(r.task, str(r.metadata.get("split", "test")), r.doc_id) for r in reqs]
        if len(set(keys)) != len(keys):  # the same document twice in one call (re-runs): one call each
            return [g for r in reqs for g in self._call([r])]
        try:
            return self._call_inner(reqs, keys)
        except RUN_FAULTS:  # never one document's fault (a setting, a bug of ours, an install)
            raise
        except Exception as exc:  # noqa: BLE001 - one request's fault, never the run's
            if len(reqs) > 1:
                return [g for r in reqs for g in self._call([r])]
            from gui_core.sample_faults import describe_fault, record

            req = reqs[0]
            record(req.task, req.doc if req.doc is not None else {"id": req.doc_id},
                   describe_fault(f"the wrapped backend ({self.backend_name})", exc))
            return [Generated("")]

    def _call_inner(self, reqs: list[RequestContext], keys: list[tuple[str, str, int]]) -> list[Generated]:
        self._pending = dict(zip(keys, reqs))
        self._materialised = []
        records: list[Any] = []
        try:
            if self.module is not None:
                with self.hooks.attached(self.module, self.processor, self.layers, self._rows) as records:
                    raw = self.inner.generate_until([self._instance(r) for r in reqs])
            else:
                raw = self.inner.generate_until([self._instance(r) for r in reqs])
        finally:
            self._pending = {}
        # `until` is cut on our side too: lmms-eval's vllm and openai backends drop it
        texts = [r.text if isinstance(r, GenerationResult) else str(r) for r in raw]
        # a reasoning that never closed is taken as cut by its budget: the wrapped backend does not say why it stopped
        notes = [self.thinking.read(t, True, token_counter(self.tokenizer)) for t in texts]
        texts = [self.thinking.cut(t, q.gen_kwargs.get("until")) for t, q in zip(texts, reqs)]
        captures: dict[int, Any] = {}
        sizes: dict[int, Any] = {}
        for rec in records:
            for i, req in enumerate(rec.requests):
                at = next((j for j, r in enumerate(reqs) if r is req), None)
                if at is None:
                    continue
                if rec.captures is not None:
                    captures[at] = rec.captures[i]
                sizes[at] = rec.image_sizes[i] if i < len(rec.image_sizes) else None
        return [Generated(t, captures.get(i), sizes.get(i), attach_note(None, notes[i])) for i, t in enumerate(texts)]


def thinking_arg(inner_cls: Any, name: str, thinking: Thinking) -> bool:
    """The value of the wrapped backend's ``enable_thinking`` constructor argument; refused when it takes none."""
    import inspect

    params = inspect.signature(inner_cls.__init__).parameters
    if thinking.key not in params:
        raise ValueError(f"gui_wrap: backend {name!r} ({inner_cls.__name__}) takes no {thinking.key!r} argument, so "
                         f"thinking={thinking.mode} cannot reach its chat template; run it through gui_hf or gui_openai, "
                         "or leave thinking unset (the model's default)")
    return thinking.on


class GuiWrapChat(GuiWrap):
    """``gui_wrap`` as lmms-eval resolves it by default (chat requests); ``--force_simple`` gives :class:`GuiWrap`."""

    is_simple = False
