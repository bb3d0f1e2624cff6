"""``gui_hf``: an lmms-eval backend for Hugging Face VLMs with the intervention stages wired in.

Model args (``--model_args k=v,...``):
    pretrained         checkpoint folder or hub id (required)
    device             ``cpu``, ``cuda``, ``cuda:1`` (default: cuda if available, else cpu);
                       under ``accelerate launch`` each rank takes its local GPU, or the CPU
    device_map         e.g. ``auto``: shard one large model over the visible GPUs instead of ``device``
    dtype              ``auto`` (float32 on CPU, bfloat16 on GPU), ``float32``, ``bfloat16``, ``float16``
    batch_size         requests per forward pass (left padding)
    max_new_tokens     default when the task sets none (128)
    min_pixels, max_pixels   override the processor's image budget (Qwen2-VL family)
    system_prompt      optional system message
    trust_remote_code, attn_implementation   passed to ``from_pretrained``
    interventions      ``a+b``: intervention plugins by name, applied in that order
    capture_logits     ``none`` (default) or ``digits``: record per generated token the ten digit values,
                       the chosen token's log-probability and the step entropy (gui_core.logit_capture);
                       responses then carry them as ``CapturedResponse.capture``
    bucket             batches per sorting window (default 8): requests of like size (image pixels, image count,
                       prompt length) batch together, answers come back in request order; 1 keeps request order
    prefetch           batches prepared ahead in a background thread (default: 1 when the model is on a GPU, 0 on
                       the CPU, where the thread competes with the forward pass for cores and the interpreter lock):
                       the next batch's screenshots are decoded and processed while this one generates
    image_device       ``auto`` (default: the image processor runs on the model's GPU when the model is on one and
                       the processor is torchvision-backed) or ``cpu``
    max_prompt_tokens  prompt tokens one request may have (default: the model's max_position_embeddings); a longer
                       request is that sample's named error (gui_models.request_bounds)
    thinking           ``on`` / ``off``: the chat template's ``enable_thinking`` (Qwen3-style templates); unset: the
                       model's default. With ``on`` each request may generate the task's budget + ``think_budget``
                       tokens (default 8192) and the task's stop strings end only the answer after the reasoning
    reasoning_tags     JSON list of [open, close] pairs (default ``[["<think>","</think>"]]``): the answer is read
                       after the last closing tag; a reasoning cut by the budget is ``thinking_truncated``
    thinking_key       the template variable (default ``enable_thinking``)
    resume             the run journal's folder (default: beside ``--output_path``, or in the ``--use_cache`` folder),
                       or ``none``: finished answers are kept there and a run again sends only what is missing
                       (gui_models.run_journal)
    <name>.<param>     a parameter for intervention ``name`` (e.g. ``prompt_affix.suffix=...``)
Decoding is greedy unless the task's ``generation_kwargs`` set ``do_sample`` or a temperature > 0.

One document's fault costs that document alone: a batch whose processor call or ``generate`` raises is retried one
document at a time, and the document that still fails (an image the processor refuses, a prompt over the bound, a
capture that cannot be read) gets its named ``sample_error`` (``gui_core.sample_faults``); the run goes on.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import torch
from accelerate import Accelerator
from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from tqdm import tqdm

from gui_interventions import ForwardContext, RequestContext, build_run
from gui_models.generation_core import (RUN_FAULTS, GenerateHooks, Generated, contained_request,
                                        record_args_fault, record_fault, record_sent_prompt, respond, run_multi_round)
from gui_models.hf_pipeline import DEFAULT_BUCKET, DEFAULT_PREFETCH, Prefetcher, Row, bucketed_batches, requests_held
from gui_models.request_bounds import prompt_refusal, prompt_token_bound
from gui_models.layers import capture_last_token, decoder_layers
from gui_core.logit_capture import capture_mode, digit_groups
from gui_models.model_args import DTYPE_CHOICES, check_gui_hf_args
from gui_models.thinking import THINKING_ARGS, AnswerStops, Thinking, attach_note, token_counter
from gui_models.run_journal import checkpoint_identity, open_journal

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
assert set(DTYPE_CHOICES) == {"auto", *_DTYPES}
DEFAULT_BATCH_SIZE = 1  # lmms-eval's --batch_size default, which the CLI always passes


def _as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes"}


def merge_cli_args(name: str, args: dict[str, Any], cli: dict[str, Any]) -> dict[str, Any]:
    """Model args plus the CLI's ``--batch_size``/``--device``; the same parameter given both ways must agree.

    lmms-eval passes ``--batch_size`` (default 1) next to ``--model_args``; a model-args value
    wins over the CLI default, and two different explicit values are an error naming both.
    """
    merged = dict(args)
    for key, value in cli.items():
        if value is None:
            continue
        if key not in merged:
            merged[key] = value
        elif str(merged[key]) != str(value) and not (key == "batch_size" and str(value) == str(DEFAULT_BATCH_SIZE)):
            raise ValueError(f"{name}: {key} given twice: model_args {key}={merged[key]} and --{key} {value}; give it once")
    if "max_batch_size" in merged and "max_batch_size" not in args:
        merged.pop("max_batch_size")
    return merged


def check_pretrained(name: str, pretrained: Any) -> str:
    """A local-looking ``pretrained`` must be an existing folder (hub ids are ``org/name``)."""
    text = str(pretrained or "").strip()
    if not text:
        raise ValueError(f"{name}: model arg pretrained is required (a checkpoint folder or a hub id)")
    looks_local = text.startswith(("/", ".", "~")) or os.sep + os.sep in text or text.count("/") > 1
    path = Path(text).expanduser()
    if looks_local and not path.is_dir():
        raise ValueError(f"{name}: pretrained={text}: no such folder ({path.resolve()})")
    return str(path) if looks_local else text


class GuiHF(lmms):
    """Greedy, batched generation with a HF ``AutoModelForImageTextToText`` and its processor."""

    keeps_journal = True  # model arg ``resume`` (gui_models.run_journal); ``gui_wrap`` around it keeps the only one

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None) -> "GuiHF":
        from lmms_eval import utils

        return cls(**merge_cli_args("gui_hf", utils.simple_parse_args_string(arg_string), additional_config or {}))

    def __init__(self, pretrained: str, device: str | None = None, dtype: str = "auto", batch_size: int | str = 1,
                 max_new_tokens: int | str = 128, min_pixels: int | None = None, max_pixels: int | None = None,
                 system_prompt: str | None = None, trust_remote_code: bool | str = False,
                 attn_implementation: str | None = None, interventions: str | None = None, capture_logits: str = "none",
                 bucket: int | str = DEFAULT_BUCKET, prefetch: int | str | None = None, image_device: str = "auto",
                 max_prompt_tokens: int | str | None = None, **kwargs: Any) -> None:
        super().__init__()
        from transformers import AutoModelForImageTextToText, AutoProcessor

        kwargs.pop("max_batch_size", None)  # passed by the lmms-eval CLI; batching is fixed-size here
        device_map = kwargs.pop("device_map", None)
        thinking_args = {k: kwargs.pop(k) for k in list(kwargs) if k in THINKING_ARGS}
        self.thinking = Thinking.from_args(thinking_args, "gui_hf")
        resume = kwargs.pop("resume", None)
        check_gui_hf_args({"dtype": dtype, "batch_size": batch_size, "capture_logits": capture_logits,
                           "interventions": interventions, "bucket": bucket, "prefetch": prefetch,
                           "image_device": image_device, "max_prompt_tokens": max_prompt_tokens,
                           **kwargs})  # before the (slow) load; submissions re-check the same
        batch = int(batch_size)
        self.bucket = int(bucket)
        pretrained = check_pretrained("gui_hf", pretrained)
        self.capture_logits = capture_mode(capture_logits, "gui_hf")
        self.accelerator = Accelerator()
        self._rank, self._world_size = self.accelerator.process_index, self.accelerator.num_processes
        if self._world_size > 1:
            device = f"cuda:{self.accelerator.local_process_index}" if torch.cuda.is_available() else "cpu"
        self._device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        torch_dtype = (torch.bfloat16 if self._device.type == "cuda" else torch.float32) if dtype == "auto" else _DTYPES[str(dtype)]

        proc_kwargs: dict[str, Any] = {"trust_remote_code": _as_bool(trust_remote_code)}
        self.processor = AutoProcessor.from_pretrained(str(pretrained), **proc_kwargs)
        if min_pixels is not None or max_pixels is not None:
            # Qwen2-VL-family pixel budget, as the image processor's size dict (min/max_pixels are deprecated)
            size = dict(self.processor.image_processor.size)
            size = {"shortest_edge": int(min_pixels) if min_pixels is not None else size["shortest_edge"],
                    "longest_edge": int(max_pixels) if max_pixels is not None else size["longest_edge"]}
            self.processor = AutoProcessor.from_pretrained(str(pretrained), size=size, **proc_kwargs)
        self.tokenizer = self.processor.tokenizer
        self.tokenizer.padding_side = "left"  # generated tokens start at the same column for every row
        model_kwargs: dict[str, Any] = {"dtype": torch_dtype, "trust_remote_code": _as_bool(trust_remote_code)}
        if attn_implementation:
            model_kwargs["attn_implementation"] = attn_implementation
        if device_map and self._world_size == 1:
            model = AutoModelForImageTextToText.from_pretrained(str(pretrained), device_map=device_map, **model_kwargs)
            self._device = next(model.parameters()).device  # inputs go where the embeddings live
        else:
            model = AutoModelForImageTextToText.from_pretrained(str(pretrained), **model_kwargs).to(self._device)
        self.model = model.eval()
        try:  # forward-stage interventions steer these; other runs work without them
            self.layers = decoder_layers(self.model)
        except ValueError:
            self.layers = ()
        self.batch_size_per_gpu = batch
        self.max_new_tokens = int(max_new_tokens)
        self.system_prompt = system_prompt
        self._digit_groups = digit_groups(self.tokenizer) if self.capture_logits == "digits" else None
        self.interventions = build_run(interventions, kwargs)
        self.max_prompt_tokens = prompt_token_bound(self.model, max_prompt_tokens)
        self.prefetch = int(prefetch) if prefetch is not None else (DEFAULT_PREFETCH if self._device.type == "cuda" else 0)
        image_processor = getattr(self.processor, "image_processor", None)
        on_gpu = self._device.type == "cuda" and getattr(image_processor, "backend", None) == "torchvision"
        # the fast (torchvision) image processor resizes and normalises on the GPU the model runs on
        self._image_kwargs: dict[str, Any] = {"device": self._device} if on_gpu and image_device == "auto" else {}
        # what decides an answer (a journal written with other settings is refused by name): gui_models.run_journal
        journal_settings = {"backend": "gui_hf", "checkpoint": checkpoint_identity(pretrained), "dtype": str(torch_dtype),
                            "max_new_tokens": self.max_new_tokens, "system_prompt": system_prompt,
                            "min_pixels": min_pixels, "max_pixels": max_pixels, "attn_implementation": attn_implementation,
                            "max_prompt_tokens": self.max_prompt_tokens, "interventions": interventions or None,
                            "intervention_params": {k: str(v) for k, v in sorted(kwargs.items()) if "." in k},
                            "capture_logits": self.capture_logits, "thinking": self.thinking.describe()}
        self.journal = open_journal("gui_hf", journal_settings, resume, self._rank, self.capture_logits)

    @property
    def interventions(self):
        return self._interventions

    @interventions.setter
    def interventions(self, run) -> None:
        """The selected plugins; the generation core (forward stage, capture) follows them."""
        self._interventions = run
        self.hooks = GenerateHooks(run, self._digit_groups, self.tokenizer, owner="gui_hf")

    # --- lmms-eval interface -------------------------------------------------------------

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def world_size(self) -> int:
        return self._world_size

    @property
    def batch_size(self) -> int:
        return self.batch_size_per_gpu

    @property
    def device(self) -> torch.device:
        return self._device

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError("gui_hf does not score loglikelihood requests; our tasks use generate_until")

    def generate_until_multi_round(self, requests: list[Instance]) -> list[list[str]]:
        """Per request, the outputs of every round (either lmms-eval layout; see ``generation_core.run_multi_round``).

        A request that raises is that document's named error (one empty round), the others go on.
        """
        task_dict = getattr(self, "task_dict", None)
        if getattr(self, "journal", None) is not None:
            return self.journal.run(requests, self._multi_round_fresh, task_dict)
        return self._multi_round_fresh(requests, None)

    def _multi_round_fresh(self, requests: list[Instance], done: Any) -> list[list[str]]:
        task_dict = getattr(self, "task_dict", None)
        out: list[list[str]] = []
        for r in tqdm(requests, disable=self.rank != 0, desc="gui_hf multi-round"):
            try:
                out.append(run_multi_round(r, task_dict, self.interventions, lambda req: self._generate([req])[0]))
            except Exception as exc:  # noqa: BLE001 - one document's fault, never the run's
                if isinstance(exc, RUN_FAULTS):
                    raise
                record_args_fault(tuple(r.args), task_dict, "its rounds (processor, generation, interventions)", exc)
                out.append([""])
            if done is not None:
                done(len(out) - 1, out[-1])
        return out

    def generate_until(self, requests: list[Instance]) -> list[str]:
        """Responses in request order; a batch holds requests with equal gen_kwargs (``hf_pipeline``).

        Streamed: requests are parsed (their images decoded) as the sorting window fills, and a batch is prepared
        (processor, bounds) in the background while the previous one generates; memory holds
        ``hf_pipeline.requests_held`` requests' screenshots at most, whatever the benchmark's size. With a run journal
        (model arg ``resume``) the answers it holds come from it and only the others are generated.
        """
        if getattr(self, "journal", None) is not None:
            return self.journal.run(requests, self._generate_fresh, getattr(self, "task_dict", None))
        return self._generate_fresh(requests, None)

    def _generate_fresh(self, requests: list[Instance], done: Any) -> list[str]:
        """:meth:`generate_until` without the journal; ``done(i, answer)`` is told each answer as it is final."""
        results: list[str | None] = [None] * len(requests)
        pbar = tqdm(total=len(requests), disable=self.rank != 0, desc="gui_hf")
        rows = ((i, self._request_context(r)) for i, r in enumerate(requests))
        # the producer thread gets its own processor: a fast tokenizer is not to be used from two threads at once
        processor = copy.deepcopy(self.processor) if self.prefetch > 0 else self.processor
        batches = bucketed_batches(rows, self.batch_size, self.bucket)
        with Prefetcher((self._prepare(b, processor) for b in batches), self.prefetch) as ahead:
            for prepared in ahead:
                for j in prepared.refused:
                    results[j] = ""
                    if done is not None:
                        done(j, "")
                for group, inputs in prepared.groups:
                    for (j, ctx), gen in zip(group, self._run(group, inputs)):
                        results[j] = self._respond(gen, ctx)
                        if done is not None:
                            done(j, results[j])
                pbar.update(prepared.size)
        pbar.close()
        return [r if r is not None else "" for r in results]

    @property
    def requests_held(self) -> int:
        """The most requests whose screenshots ``generate_until`` holds at once."""
        return requests_held(self.batch_size, self.bucket, self.prefetch)

    # --- direct use (memory building, analyses) ------------------------------------------

    def generate_texts(self, reqs: Sequence[RequestContext]) -> list[str]:
        """Raw responses (no response stage) for already-built requests, in ``batch_size`` batches."""
        out: list[str] = []
        for i in range(0, len(reqs), self.batch_size_per_gpu):
            out += [g.response() for g in self._generate(list(reqs[i:i + self.batch_size_per_gpu]))]
        return out

    def last_token_states(self, reqs: Sequence[RequestContext], layers: Sequence[int],
                          continuations: Sequence[str] | None = None) -> dict[int, torch.Tensor]:
        """``{l: [len(reqs), hidden]}``: h^(l) of the last token of the chat-templated prompt, or of prompt + continuation.

        With ``continuations`` the text after the generation prompt is the given response (GUI-XLI's X =
        question + reasoning chain + answer, seed Eq. 2). The forward-stage interventions are active,
        so states can be read with and without steering.
        """
        found: dict[int, list[torch.Tensor]] = {int(n): [] for n in layers}
        for i in range(0, len(reqs), self.batch_size_per_gpu):
            batch = list(reqs[i:i + self.batch_size_per_gpu])
            conts = list(continuations[i:i + len(batch)]) if continuations is not None else None
            inputs = self._inputs(batch, conts)
            forward = ForwardContext(self.model, self.processor, inputs, batch, layers=self.layers)
            # capture hooks go on after the steering hooks, so they read the steered state
            with torch.inference_mode(), self.interventions.forward(forward):
                with capture_last_token(self.model, list(found), inputs.get("attention_mask")) as got:
                    self.model(**inputs, use_cache=False)
            for layer in found:
                found[layer].append(got[layer])
        return {layer: torch.cat(parts) for layer, parts in found.items()}

    # --- internals ------------------------------------------------------------------------------

    def _inputs(self, reqs: Sequence[RequestContext], continuations: Sequence[str] | None = None,
                processor: Any = None) -> Any:
        processor = processor or self.processor
        prompts = [processor.apply_chat_template(self._messages(r), add_generation_prompt=True, tokenize=False,
                                                 **self.thinking.template_kwargs()) for r in reqs]
        if continuations is not None:
            prompts = [p + c for p, c in zip(prompts, continuations)]
        # one image list per request: processors that batch images per sample (Gemma3, Idefics3/SmolVLM)
        # need the nesting; the others flatten it in order
        images = [[im.convert("RGB") for im in r.images] for r in reqs]
        if not any(images):
            images = None
        extra = self._image_kwargs if images is not None else {}
        return processor(text=prompts, images=images, return_tensors="pt", padding=True, **extra).to(self._device)

    def _prepare(self, batch: list[Row], processor: Any) -> "Prepared":
        """A batch ready for ``generate`` (runs in the prefetch thread): the processor run and the prompt bound checked,
        contained (the document-side bounds, ``gui_core.bounds``, were checked when the request was parsed)."""
        refused: list[int] = []
        return Prepared(self._groups(list(batch), processor, refused), refused)

    def _groups(self, rows: list[Row], processor: Any, refused: list[int]) -> list[tuple[list[Row], Any]]:
        """The rows' processor inputs as one group; when the batch's processor call raises, one group per document
        that the processor accepts alone (the others are refused by name). Prompts over the bound are refused."""
        if not rows:
            return []
        try:
            inputs = self._inputs([c for _j, c in rows], processor=processor)
        except Exception as exc:  # noqa: BLE001 - find the guilty document
            if isinstance(exc, RUN_FAULTS):
                raise
            if len(rows) == 1:
                record_fault(rows[0][1], "the model's processor (gui_hf)", exc)
                refused.append(rows[0][0])
                return []
            return [g for row in rows for g in self._groups([row], processor, refused)]
        long = {k for k, n in enumerate(_row_lengths(inputs)) if prompt_refusal(n, self.max_prompt_tokens)}
        if not long:
            return [(rows, inputs)]
        for k in sorted(long):
            record_fault(rows[k][1], "its prompt (gui_hf bounds)", prompt_refusal(_row_lengths(inputs)[k], self.max_prompt_tokens))
            refused.append(rows[k][0])
        return self._groups([r for k, r in enumerate(rows) if k not in long], processor, refused)

    def _run(self, rows: list[Row], inputs: Any) -> list[Generated | None]:
        """``generate`` on a prepared group; when it raises, each document alone (None: that document's error)."""
        reqs = [c for _j, c in rows]
        try:
            return self._generate_inputs(reqs, inputs)
        except Exception as exc:  # noqa: BLE001 - one document's fault, never the run's
            if isinstance(exc, RUN_FAULTS):
                raise
            if len(rows) == 1:
                record_fault(reqs[0], "its generation (gui_hf)", exc)
                return [None]
        out: list[Generated | None] = []
        for req in reqs:
            try:
                out.append(self._generate([req])[0])
            except Exception as exc:  # noqa: BLE001
                if isinstance(exc, RUN_FAULTS):
                    raise
                record_fault(req, "its generation (gui_hf)", exc)
                out.append(None)
        return out

    def _respond(self, generated: Generated | None, request: RequestContext) -> str:
        """The response stage on one answer, contained; a document without an answer answers \"\"."""
        if generated is None:
            return ""
        try:
            return respond(self.interventions, generated, request, lambda req: self._generate([req])[0])
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, RUN_FAULTS):
                raise
            record_fault(request, "its response stage (interventions)", exc)
            return ""

    def _request_context(self, request: Instance) -> RequestContext:
        req = contained_request(self.interventions, request.args, getattr(self, "task_dict", None))
        record_sent_prompt(request, req)
        return req

    def _messages(self, req: RequestContext) -> list[dict[str, Any]]:
        content = [{"type": "image"} for _ in req.images] + [{"type": "text", "text": req.text}]
        msgs = [{"role": "user", "content": content}]
        if self.system_prompt:
            msgs.insert(0, {"role": "system", "content": [{"type": "text", "text": self.system_prompt}]})
        return msgs

    def _generate(self, reqs: Sequence[RequestContext]) -> list[Generated]:
        return self._generate_inputs(reqs, self._inputs(reqs))

    def _generate_inputs(self, reqs: Sequence[RequestContext], inputs: Any) -> list[Generated]:
        gen = _generation_args(reqs[0].gen_kwargs, self.max_new_tokens, self.tokenizer)
        gen["max_new_tokens"] = self.thinking.max_tokens(gen["max_new_tokens"])
        prompt_len = inputs["input_ids"].shape[1]
        until = reqs[0].gen_kwargs.get("until")
        if self.thinking.on and until:  # the task's stops end the answer, never the reasoning before it
            from transformers import StoppingCriteriaList

            gen["stopping_criteria"] = StoppingCriteriaList([AnswerStops(self.tokenizer, prompt_len, until, self.thinking.tags)])
        with self.hooks.attached(self.model, self.processor, self.layers, list(reqs)) as records:
            out = self.model.generate(**inputs, **gen)
        new = out[:, prompt_len:]
        texts = self.tokenizer.batch_decode(new, skip_special_tokens=True)
        stop_ids = set(self.hooks.stop_ids(self.model))
        # a row that never wrote an end token used its whole budget (a reasoning without its closing tag: truncated)
        hit = [int(new.shape[1]) >= gen["max_new_tokens"] and not (set(row.tolist()) & stop_ids) for row in new]
        notes = [self.thinking.read(t, h, token_counter(self.tokenizer)) for t, h in zip(texts, hit)]
        texts = [self.thinking.cut(t, until) for t in texts]
        rec = records[-1]
        caps = rec.captures or [None] * len(texts)
        return [Generated(t, c, s, attach_note(None, n)) for t, c, s, n in zip(texts, caps, rec.image_sizes, notes)]


@dataclass
class Prepared:
    """One planned batch after the processor: groups to generate (normally one; one per document after a processor
    fault) and the request indices refused before the model (their named error is recorded)."""

    groups: list[tuple[list[Row], Any]]
    refused: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(rows) for rows, _inputs in self.groups) + len(self.refused)


def _row_lengths(inputs: Any) -> list[int]:
    """Prompt tokens per row (padding excluded when the processor returns an attention mask)."""
    mask = inputs.get("attention_mask") if hasattr(inputs, "get") else None
    if mask is not None:
        return [int(n) for n in mask.sum(dim=1).tolist()]
    ids = inputs["input_ids"]
    return [int(ids.shape[1])] * int(ids.shape[0])

def _generation_args(gen_kwargs: dict[str, Any], default_max: int, tokenizer: Any) -> dict[str, Any]:
    temperature = float(gen_kwargs.get("temperature") or 0.0)
    sample = _as_bool(gen_kwargs.get("do_sample", False)) or temperature > 0
    args: dict[str, Any] = {"max_new_tokens": int(gen_kwargs.get("max_new_tokens") or default_max), "do_sample": sample,
                            "num_beams": int(gen_kwargs.get("num_beams") or 1), "pad_token_id": tokenizer.pad_token_id}
    if sample:
        args["temperature"] = temperature or 1.0
        if gen_kwargs.get("top_p") is not None:
            args["top_p"] = float(gen_kwargs["top_p"])
    else:
        args.update(temperature=None, top_p=None, top_k=None)
    return args

