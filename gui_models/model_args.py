"""Model args of our backends, checked without loading a checkpoint.

One check, used where a backend starts (``gui_hf``, ``gui_wrap``, ``gui_openai``) and where a submission is re-checked
(``gui_tasks.submit.leaderboard``): a run that ``gui_hf`` would have refused (an intervention parameter such as
``prompt_affix.suffix=...`` with no ``interventions=prompt_affix``) is refused as a submission too.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.logit_capture import capture_mode

GUI_HF = "gui_hf"
GUI_WRAP = "gui_wrap"
GUI_OPENAI = "gui_openai"
DTYPE_CHOICES = ("auto", "float32", "bfloat16", "float16")
GUI_HF_KNOWN = frozenset({"pretrained", "device", "dtype", "batch_size", "max_batch_size", "max_new_tokens", "min_pixels",
                          "max_pixels", "system_prompt", "trust_remote_code", "attn_implementation", "interventions",
                          "device_map", "capture_logits", "bucket", "prefetch", "image_device", "max_prompt_tokens",
                          "thinking", "think_budget", "reasoning_tags", "thinking_key"})
GUI_HF_KNOWN |= {"resume"}  # the run journal's folder, or none (gui_models.run_journal)
IMAGE_DEVICES = ("auto", "cpu")
# The digit-capture kinds (gui_core.logit_capture.CAPTURE_KINDS) each backend can produce: gui_hf and gui_wrap read
# every digit token's score in process ("exact"); a served engine gives exact values for named token ids or a hosted
# API's top-k ("top_logprobs"); any other backend captures nothing. validate refuses a logged capture of another kind.
CAPTURE_KINDS_OF = {GUI_HF: ("exact",), GUI_WRAP: ("exact",), GUI_OPENAI: ("exact", "top_logprobs")}


def capture_kinds_of(backend: str) -> tuple[str, ...]:
    """The capture kinds ``backend`` can log (empty: it captures nothing)."""
    return CAPTURE_KINDS_OF.get(backend, ())


def check_gui_hf_args(args: Mapping[str, Any], owner: str = GUI_HF) -> None:
    """``gui_hf``'s model args: known names, dtype, batch size, capture mode and the intervention parameters."""
    from gui_interventions.manager import resolve

    bad = [k for k in args if "." not in k and k not in GUI_HF_KNOWN]
    if bad:
        raise ValueError(f"{owner}: unknown model args {bad}; known: {sorted(GUI_HF_KNOWN)} and <intervention>.<param>")
    dtype = args.get("dtype", "auto")
    if str(dtype) not in DTYPE_CHOICES:
        raise ValueError(f"{owner}: dtype={dtype} is not a dtype this backend loads; choose one of {', '.join(DTYPE_CHOICES)}")
    batch_size = args.get("batch_size", 1)
    try:
        batch = int(batch_size)
    except (TypeError, ValueError):
        batch = 0
    if batch < 1:
        raise ValueError(f"{owner}: batch_size={batch_size} must be a whole number >= 1 (requests per forward pass)")
    for name, least, what in (("bucket", 1, "batches per sorting window"), ("prefetch", 0, "batches prepared ahead"),
                              ("max_prompt_tokens", 1, "prompt tokens per request")):
        if args.get(name) is not None:
            whole_arg(owner, name, args[name], least, what)
    if str(args.get("image_device", "auto")) not in IMAGE_DEVICES:
        raise ValueError(f"{owner}: image_device={args['image_device']}; choose one of {', '.join(IMAGE_DEVICES)}")
    capture_mode(args.get("capture_logits"), owner)
    check_thinking_args(args, owner)
    resolve(args.get("interventions"), {k: v for k, v in args.items() if "." in k})


def check_thinking_args(args: Mapping[str, Any], owner: str) -> None:
    """``thinking``, ``think_budget``, ``reasoning_tags``, ``thinking_key`` (gui_models.thinking), checked."""
    from gui_models.thinking import THINKING_ARGS, Thinking

    Thinking.from_args({k: v for k, v in args.items() if k in THINKING_ARGS}, owner)


def whole_arg(owner: str, name: str, value: Any, least: int, what: str) -> int:
    """A model arg that must be a whole number >= ``least``; the error names the backend, the arg and what it counts."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = least - 1
    if number < least:
        raise ValueError(f"{owner}: {name}={value} must be a whole number >= {least} ({what})")
    return number


GUI_OPENAI_KNOWN = frozenset({"base_url", "model", "api_key_env", "concurrency", "timeout", "max_retries",
                              "retry_budget_s", "max_new_tokens", "response_cache", "capture_logits", "logprobs",
                              "top_logprobs", "tokenizer", "frame", "min_pixels", "max_pixels", "resize_budget",
                              "image_scale", "system_prompt", "interventions", "batch_size", "max_batch_size", "device",
                              "cache_namespace", "image_transport", "png_level", "prefetch",
                              "stop_after_failures", "thinking", "think_budget", "reasoning_tags", "thinking_key"})


def forward_stage_names(interventions: Any) -> list[str]:
    """The selected interventions that act inside the forward pass (checked before any is built)."""
    from gui_interventions.manager import available, parse_selection

    found = available()
    return [n for n in parse_selection(interventions) if n in found and hasattr(found[n], "gui_intervention_forward")]


def check_gui_openai_args(args: Mapping[str, Any], owner: str = GUI_OPENAI) -> None:
    """``gui_openai``'s model args: known names, capture mode, no forward-stage intervention, the intervention parameters."""
    from gui_interventions.manager import resolve

    if "api_key" in args:  # lmms-eval writes --model_args into every results file (and submissions carry them)
        raise ValueError(f"{owner}: api_key= in model args would be written into lmms-eval's results files; put the key "
                         "in an environment variable and name it with api_key_env=VAR (default OPENAI_API_KEY)")
    bad = [k for k in args if "." not in k and k not in GUI_OPENAI_KNOWN]
    if bad:
        raise ValueError(f"{owner}: unknown model args {bad}; known: {sorted(GUI_OPENAI_KNOWN)} and <intervention>.<param>")
    if args.get("base_url"):
        from gui_models.served_keys import check_base_urls

        check_base_urls([u.strip() for u in str(args["base_url"]).split("|") if u.strip()], owner)
    capture_mode(args.get("capture_logits"), owner)
    check_thinking_args(args, owner)
    forward = forward_stage_names(args.get("interventions"))
    if forward:
        raise ValueError(f"{owner}: intervention(s) {', '.join(forward)} act inside the model's forward pass and need its "
                         "activations: run them on an HF backend (gui_hf, or gui_wrap around an lmms-eval HF backend). "
                         "A served engine carries request- and response-stage interventions only.")
    resolve(args.get("interventions"), {k: v for k, v in args.items() if "." in k})


def installed_interventions() -> set[str]:
    """Every name in the ``gui_interventions`` entry-point group, loadable or not."""
    from gui_interventions.manager import _load_all

    found, broken = _load_all()
    return set(found) | set(broken)


def split_wrap_args(interventions: Any, args: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``gui_wrap``'s model args: (intervention parameters, checked; the args left for the wrapped backend).

    A dotted key whose prefix is an installed intervention is ours, selected or not: an unselected one is
    refused (``gui_hf`` does the same) instead of being handed to the wrapped backend.
    """
    from gui_interventions.manager import parse_selection, resolve

    names = set(parse_selection(interventions))
    known = names | (installed_interventions() if any("." in k for k in args) else set())
    ours = {k: v for k, v in args.items() if "." in k and k.split(".", 1)[0] in known}
    resolve(interventions, ours)
    return ours, {k: v for k, v in args.items() if k not in ours}


def check_model_args(backend: str, args_string: str) -> None:
    """Re-check a run's ``--model`` and ``--model_args`` as the backend would before loading the checkpoint.

    Parsed by lmms-eval's own parser; ``gui_hf``, ``gui_wrap`` and ``gui_openai`` run their own checks; any other backend
    applies no interventions, so intervention arguments given to it are refused.
    """
    from lmms_eval.utils import simple_parse_args_string

    try:
        args = simple_parse_args_string(args_string)
    except ValueError as exc:
        raise ValueError(f"model args {args_string!r} are not k=v,k=v: {exc}") from exc
    if backend == GUI_HF:
        check_gui_hf_args(args)
    elif backend == GUI_OPENAI:
        check_gui_openai_args(args)
    elif backend == GUI_WRAP:
        if not args.get("backend"):
            raise ValueError("gui_wrap: model arg backend=<lmms-eval model name> is required (e.g. backend=qwen2_5_vl)")
        capture_mode(args.get("capture_logits"), GUI_WRAP)
        check_thinking_args(args, GUI_WRAP)
        split_wrap_args(args.get("interventions"), {k: v for k, v in args.items() if k not in ("interventions", "capture_logits")})
    else:
        ours = sorted(k for k in args if k == "interventions" or ("." in k and k.split(".", 1)[0] in installed_interventions()))
        if ours:
            raise ValueError(f"backend {backend!r} applies no interventions but the model args set {ours}; "
                             f"interventions run through gui_hf or gui_wrap (backend={backend})")
