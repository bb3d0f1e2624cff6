"""``gui-eval verify``: run the submitted model again on documents chosen at random and compare the responses.

The hashes of a submission (``gui_tasks/submit/leaderboard.py``) show that nothing was edited after ``submit``
and re-scoring shows that the scores follow from the responses; neither shows that the model wrote
the responses. ``verify`` answers that for a sample: it loads the checkpoint the verifier names with
the submission's backend and model args, runs each chosen document through lmms-eval's own
``simple_evaluate`` (``--offset doc_id --limit 1``: the request building, filters and reasoning-tag
stripping of a real run) and compares the response, in the form lmms-eval logs it, with the logged one.
Decoding is greedy in our tasks (no ``do_sample``, temperature 0), so an honest run reproduces exactly
on the same software; a different GPU or batch size can change a near-tie token, hence the threshold.

A re-run proves nothing unless the verifier's checkpoint writes the responses, so (``docs/security.md``):

- local submissions re-run only on backends that load ``pretrained=`` themselves (:data:`LOCAL_BACKENDS`,
  ``gui_wrap`` around one of them); any model arg that could send requests elsewhere (a URL, an endpoint,
  ``model=``, ``base_url=``...) is refused, and the run fails unless transformers' ``from_pretrained`` really
  loaded the named checkpoint;
- served submissions (``gui_openai``) re-run against the server the verifier names (``--server``), never the
  submitter's, with the response cache off;
- API keys, tokens and endpoint variables are removed from the environment while the model loads and runs
  (``--api-key-env VAR`` keeps one, for the verifier's own server).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import secrets
import sys
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from gui_tasks.submit.leaderboard import SubmissionError, _quiet_lmms_eval, load_submission, partial_note, validate_submission

DEFAULT_DOCS = 20
DEFAULT_THRESHOLD = 1.0  # every chosen document must reproduce unless the verifier allows less
# lmms-eval backends that load the checkpoint named by ``pretrained=`` in this process with transformers'
# ``from_pretrained`` (lmms_eval/models/simple/<name>.py); API and engine backends (openai, vllm, sglang, ...) are not here.
LOCAL_BACKENDS = frozenset({"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "llava_onevision", "llava_hf", "idefics2", "internvl2",
                            "internvl3", "phi3v", "gemma3", "mistral3_vl", "llama_vision", "minicpm_v"})
SERVED_BACKEND = "gui_openai"
# Model args that name a place to send requests or a model other than ``pretrained``: never kept for a re-run.
REMOTE_ARGS = frozenset({"base_url", "api_base", "api_url", "url", "endpoint", "host", "port", "server", "address",
                         "api_key", "api_key_env", "model", "model_version", "model_name", "model_id", "path", "azure_endpoint",
                         "openai_api_base", "remote", "proxy"})
_URL = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*://")
# Environment variables removed while verify loads and runs a model: keys, tokens and endpoints.
SECRET_ENV = re.compile(r"(^|_)(API_?KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?|ACCESS_KEY|BASE_URL|API_BASE|"
                        r"ENDPOINT)(_|$)", re.IGNORECASE)
NO_KEY_ENV = "GUI_EVAL_VERIFY_NO_KEY"  # an api_key_env that is never set: the served backend sends "EMPTY"


@dataclass(frozen=True)
class DocVerdict:
    """One re-run document: the logged response, the new one and whether they are the same."""

    task: str
    doc_id: int
    logged: Any
    again: Any
    logged_side: Any = None
    again_side: Any = None
    """What scoring reads beyond the text (``gui_core.logit_capture.response_side``): digit captures are compared
    within ``CAPTURE_TOLERANCE``, the rest exactly."""

    @property
    def side_difference(self) -> str | None:
        from gui_core.logit_capture import side_difference

        return side_difference(self.logged_side, self.again_side)

    @property
    def reproduced(self) -> bool:
        return self.logged == self.again and self.side_difference is None


def choose_docs(sub: dict[str, Any], k: int, seed: int) -> list[tuple[str, int]]:
    """``k`` (task, doc id) pairs drawn without replacement from every sample of the submission, in a fixed order."""
    population = [(t["task"], s["doc_id"]) for t in sub["tasks"] for s in t["samples"]]
    return sorted(random.Random(seed).sample(population, min(max(k, 0), len(population))))


def _split_args(args_string: str) -> list[str]:
    from lmms_eval.utils import _smart_comma_split

    return [p for p in _smart_comma_split(args_string.strip()) if p.strip()] if args_string.strip() else []


def _replace_args(args_string: str, replace: dict[str, str]) -> str:
    """``args_string`` with every key of ``replace`` set (first, in order), split as lmms-eval splits them."""
    out = [p for p in _split_args(args_string) if p.split("=", 1)[0].strip() not in replace]
    return ",".join([*(f"{k}={v}" for k, v in replace.items()), *out])


def with_checkpoint(args_string: str, checkpoint: str, device: str | None = None) -> str:
    """The submission's model args with ``pretrained`` (and ``device``) set to the verifier's, split as lmms-eval splits them."""
    return _replace_args(args_string, {"pretrained": checkpoint, **({"device": device} if device else {})})


def _check_local_args(backend: str, args_string: str, owner: str) -> None:
    """Refuse every arg of a local backend that could send requests elsewhere or load another model."""
    for part in _split_args(args_string):
        key, _, value = part.partition("=")
        key = key.strip()
        if key.lower() in REMOTE_ARGS or any(w in key.lower() for w in ("url", "endpoint", "api_key", "host")):
            raise SubmissionError(f"{owner}: model arg {key}= can send requests elsewhere or name another model; "
                                  f"verify re-runs only the checkpoint it loads")
        if _URL.match(value):
            raise SubmissionError(f"{owner}: model arg {key}={value[:80]} is a URL; verify re-runs only the checkpoint it loads")


def rerun_args(model: dict[str, Any], *, checkpoint: str | None = None, device: str | None = None,
               server: str | None = None, served_model: str | None = None, api_key_env: str | None = None) -> str:
    """The model args a re-run uses, or a SubmissionError saying why this submission cannot be verified that way.

    Local backends (:data:`LOCAL_BACKENDS`, ``gui_hf``, ``gui_wrap`` around a local one) need ``checkpoint``; the
    served backend needs ``server`` (the verifier's, replacing the submitter's ``base_url``).
    """
    backend, args = str(model["backend"]), str(model["args"])
    if backend == SERVED_BACKEND:
        if not server or checkpoint:
            raise SubmissionError(f"a {SERVED_BACKEND} submission is verified against a server you run: give --server "
                                  "URL (and --served-model NAME where it serves the checkpoint under another name), "
                                  "not --checkpoint")
        if "|" in server or not re.match(r"^https?://", server):
            raise SubmissionError(f"--server {server!r}: one http(s) URL of an OpenAI-compatible server")
        keep = {"base_url": server, "api_key_env": api_key_env or NO_KEY_ENV, "response_cache": "none"}
        if served_model:
            keep["model"] = served_model
        return _replace_args(args, keep)
    if server:
        raise SubmissionError(f"--server verifies {SERVED_BACKEND} submissions; this one ran on {backend!r}: give --checkpoint")
    if not checkpoint:
        raise SubmissionError(f"a {backend!r} submission is verified by loading a checkpoint: give --checkpoint")
    if backend == "gui_hf":
        pass  # gui_hf's args are all local (gui_models.model_args.GUI_HF_KNOWN, checked by validate)
    elif backend == "gui_wrap":
        inner = next((p.partition("=")[2].strip() for p in _split_args(args) if p.split("=", 1)[0].strip() == "backend"), "")
        if inner not in LOCAL_BACKENDS:
            raise SubmissionError(f"gui_wrap around {inner!r}: verify re-runs only backends that load the checkpoint "
                                  f"themselves ({', '.join(sorted(LOCAL_BACKENDS))}, gui_hf)")
        _check_local_args(inner, args, f"gui_wrap({inner})")
    elif backend in LOCAL_BACKENDS:
        _check_local_args(backend, args, backend)
    else:
        raise SubmissionError(f"backend {backend!r} does not load the checkpoint itself (an API, engine or unknown "
                              f"backend); verify re-runs only {', '.join(sorted(LOCAL_BACKENDS | {'gui_hf', 'gui_wrap'}))} "
                              f"with --checkpoint, or {SERVED_BACKEND} with --server")
    return with_checkpoint(args, checkpoint, device)


@contextlib.contextmanager
def without_secrets(keep: Sequence[str] = ()) -> Iterator[list[str]]:
    """The environment without API keys, tokens and endpoint variables (:data:`SECRET_ENV`) except ``keep``; restored after."""
    removed = {k: v for k, v in os.environ.items() if SECRET_ENV.search(k) and k not in keep}
    for k in removed:
        del os.environ[k]
    try:
        yield sorted(removed)
    finally:
        os.environ.update(removed)


@contextlib.contextmanager
def recording_loads() -> Iterator[list[str]]:
    """Every name or path given to transformers' ``PreTrainedModel.from_pretrained`` meanwhile (the patch is undone after)."""
    from transformers import PreTrainedModel

    original = PreTrainedModel.__dict__["from_pretrained"]
    seen: list[str] = []

    def recording(cls: Any, name_or_path: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(name_or_path))
        return original.__func__(cls, name_or_path, *args, **kwargs)

    PreTrainedModel.from_pretrained = classmethod(recording)
    try:
        yield seen
    finally:
        PreTrainedModel.from_pretrained = original


def same_checkpoint(a: str, b: str) -> bool:
    """Whether two checkpoint names are the same (equal text, or the same existing folder)."""
    if a.rstrip("/") == b.rstrip("/"):
        return True
    try:
        return Path(a).exists() and Path(b).exists() and Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def logged_form(filtered_resps: list[Any]) -> Any:
    """A sample's ``filtered_resps`` as lmms-eval 0.7.3 writes it to the samples file
    (``loggers/evaluation_tracker.py``: every item ``str``-ed, a one-item list flattened)."""
    from lmms_eval.utils import sanitize_list

    value = sanitize_list(filtered_resps)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


@contextlib.contextmanager
def _cli_defaults(backend: str, task: str) -> Iterator[argparse.Namespace]:
    """lmms-eval's own CLI arguments with their defaults (reasoning tags, media handling), as a plain run has them."""
    from lmms_eval.__main__ import parse_eval_args

    saved = sys.argv
    sys.argv = ["lmms-eval", "--model", backend, "--tasks", task]
    try:
        _, args = parse_eval_args()
    finally:
        sys.argv = saved
    yield args


@contextlib.contextmanager
def _kept_loaded(lm: Any) -> Iterator[None]:
    """``simple_evaluate`` ends with ``lm.clean()``, which deletes the model's modules; between documents the
    loaded model is kept (the instance attribute is removed again, also on errors) and cleaned once at the end."""
    lm.clean = lambda: None
    try:
        yield
    finally:
        del lm.clean
        lm.clean()


def _generation_kwargs(generation: dict[str, Any] | None) -> dict[str, Any]:
    """``simple_evaluate`` arguments re-applying a submission's recorded ``--gen_kwargs`` and seeds (lmms-eval's defaults
    for a file that records none)."""
    from gui_core.bounds import check_generation

    gen = generation or {}
    check_generation(gen.get("gen_kwargs"))  # a file asking for 10,000,000 new tokens is never re-run
    seeds = list(gen.get("seeds") or [None] * 4) + [None] * 4
    out: dict[str, Any] = {"gen_kwargs": gen.get("gen_kwargs") or None}
    for key, value in zip(("random_seed", "numpy_random_seed", "torch_random_seed", "fewshot_random_seed"), seeds):
        if isinstance(value, int):
            out[key] = value
    return out


def rerun(lm: Any, backend: str, picks: Sequence[tuple[str, int]],
          generation: dict[str, Any] | None = None, sides: dict[tuple[str, int], Any] | None = None) -> dict[tuple[str, int], Any]:
    """The response lmms-eval logs for each (task, doc id), from ``lm``, one ``simple_evaluate`` per document, with the
    submission's recorded ``generation`` (``--gen_kwargs``, seeds) applied; ``sides`` receives each response's side
    channel (re-captured digits, image sizes) where the task logs one."""
    from gui_core.logit_capture import SIDE_KEY

    from lmms_eval.evaluator import simple_evaluate

    from gui_tasks.harness.rescore import _task_manager

    out: dict[tuple[str, int], Any] = {}
    with _kept_loaded(lm):
        for task, doc_id in picks:
            with _cli_defaults(backend, task) as cli_args:
                results = simple_evaluate(model=lm, tasks=[task], limit=1, offset=doc_id, log_samples=True,
                                          task_manager=_task_manager(), cli_args=cli_args, verbosity="ERROR",
                                          **_generation_kwargs(generation))
            samples = ((results or {}).get("samples") or {}).get(task) or []
            if len(samples) != 1 or samples[0].get("doc_id") != doc_id:
                raise SubmissionError(f"task {task}: lmms-eval ran {[s.get('doc_id') for s in samples]}, not doc {doc_id}")
            out[(task, doc_id)] = logged_form(samples[0]["filtered_resps"])
            if sides is not None:
                sides[(task, doc_id)] = samples[0].get(SIDE_KEY)
    return out


def load_model(backend: str, model_args: str) -> Any:
    """The backend as the lmms-eval CLI builds it (batch size 1)."""
    from lmms_eval import models

    from gui_tasks.harness.lmms_integration import attach

    attach()
    return models.get_model(backend).create_from_arg_string(model_args, {"batch_size": 1, "max_batch_size": None, "device": None})


def verify(sub: dict[str, Any], checkpoint: str | None = None, *, docs: int = DEFAULT_DOCS, seed: int = 0,
           device: str | None = None, server: str | None = None, served_model: str | None = None,
           api_key_env: str | None = None) -> list[DocVerdict]:
    """Validate ``sub`` (every check of ``gui-eval validate``), then re-run ``docs`` random documents with ``checkpoint``
    (local backends) or against ``server`` (served submissions); refuses what cannot be verified (module docstring)."""
    validate_submission(sub)
    model = sub["model"]
    args = rerun_args(model, checkpoint=checkpoint, device=device, server=server, served_model=served_model,
                      api_key_env=api_key_env)
    picks = choose_docs(sub, docs, seed)
    with without_secrets(keep=[api_key_env] if api_key_env and server else []):
        if server:
            lm = load_model(model["backend"], args)
        else:
            with recording_loads() as loaded:
                lm = load_model(model["backend"], args)
            if not any(same_checkpoint(name, str(checkpoint)) for name in loaded):
                raise SubmissionError(f"backend {model['backend']!r} did not load {checkpoint} (transformers loaded "
                                      f"{loaded or 'nothing'}); its responses would not come from that checkpoint")
        sides: dict[tuple[str, int], Any] = {}
        again = rerun(lm, model["backend"], picks, sub.get("generation"), sides)
    logged = {(t["task"], s["doc_id"]): s for t in sub["tasks"] for s in t["samples"]}
    return [DocVerdict(task, doc_id, logged[(task, doc_id)]["response"], again[(task, doc_id)],
                       logged[(task, doc_id)].get("side"), sides.get((task, doc_id))) for task, doc_id in picks]


def run_differences(sub: dict[str, Any], args: str, checkpoint: str | None) -> list[str]:
    """What the re-run loads and applies that differs from the run's, named before any answer is compared: the
    checkpoint (path, content fingerprint, processor files), the dtype (``gui_tasks/runs/fingerprint.py``)."""
    from gui_tasks.runs.fingerprint import checkpoint_fingerprint, differences

    if checkpoint is None:  # served: the server says what it serves
        return []
    return differences(sub["model"].get("checkpoint"), str(sub["model"]["args"]), checkpoint_fingerprint(checkpoint), args)


def _escaped(text: str, n: int = 40) -> str:
    """``text`` with every non-printable or non-ASCII character escaped (``\\n``, ``\\u200b``), cut to ``n`` characters."""
    out = text.encode("unicode_escape").decode("ascii").replace('"', '\\"')
    return '"' + (out if len(out) <= n else out[: n - 3] + "...") + '"'


def first_difference(logged: Any, again: Any) -> str:
    """Where two responses part: the character position, the word it falls in (whitespace-separated, from 0) and the
    text from there on of each, escaped (two prefixes that look alike show their bytes)."""
    if not (isinstance(logged, str) and isinstance(again, str)):
        return f"logged {_escaped(repr(logged))}, now {_escaped(repr(again))}"
    pos = next((i for i, (a, b) in enumerate(zip(logged, again)) if a != b), min(len(logged), len(again)))
    before = logged[:pos]
    word = len(before.split()) - (1 if before and not before[-1].isspace() else 0)
    return (f"first difference at character {pos} (word {max(word, 0)}), after {_escaped(before[-12:], 20)}: "
            f"logged {_escaped(logged[pos:])} ({len(logged)} chars), now {_escaped(again[pos:])} ({len(again)} chars)")


def setting_differences(sub: dict[str, Any]) -> list[str]:
    """Recorded settings the re-run could not re-apply: package versions installed here that differ from the file's
    (a different library can change a near-tie token), and a file that records no generation settings."""
    from gui_tasks.submit.leaderboard import _dist_version

    out = []
    if "generation" not in sub:
        out.append("the file records no --gen_kwargs or seeds (older schema): the re-run used the task defaults")
    names = {"lmms_eval": "lmms_eval", "gui_eval": "gui-eval"}
    for key, recorded in sorted((sub.get("versions") or {}).items()):
        if not isinstance(recorded, str) or key == "lmms_eval_git":
            continue
        installed = _dist_version(names.get(key, key))
        if installed is not None and installed != recorded:
            out.append(f"{key} {recorded} in the file, {installed} here")
    return out


def _short(value: Any, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval verify SUBMISSION (--checkpoint PATH | --server URL) [--docs K] [--seed S] [--threshold T]``."""
    ap = argparse.ArgumentParser(prog="gui-eval verify",
                                 description="Re-run random documents of a submission with its backend and model args; "
                                             "report per document whether the logged response is reproduced.")
    ap.add_argument("file", help="a submission written by gui-eval submit")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--checkpoint", help="the checkpoint to load (replaces pretrained= in the model args); for "
                                            "backends that load it themselves")
    where.add_argument("--server", help="gui_openai submissions: the base URL of an OpenAI-compatible server you run "
                                        "(replaces base_url=; the response cache is off)")
    ap.add_argument("--served-model", default=None, help="with --server: the name your server serves the checkpoint "
                                                         "under (replaces model=; default: the submission's)")
    ap.add_argument("--api-key-env", default=None, help="with --server: the environment variable holding your server's "
                                                        "key (every other key variable is removed while verify runs)")
    ap.add_argument("--docs", type=int, default=DEFAULT_DOCS, help=f"documents to re-run (default {DEFAULT_DOCS})")
    ap.add_argument("--seed", type=int, default=None, help="seed of the draw (default: a fresh one, printed)")
    ap.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                    help="fraction of documents that must reproduce (default 1.0: all)")
    ap.add_argument("--device", default=None, help="device for the model (replaces device= in the model args)")
    args = ap.parse_args(argv)
    if args.docs < 1 or not 0.0 <= args.threshold <= 1.0:
        ap.error("--docs must be >= 1 and --threshold within [0, 1]")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    print(f"seed {seed} (repeat this draw with --seed {seed})")
    _quiet_lmms_eval()
    try:
        sub = load_submission(args.file)
        rerun_with = rerun_args(sub["model"], checkpoint=args.checkpoint, device=args.device, server=args.server,
                                served_model=args.served_model, api_key_env=args.api_key_env)
        gen = sub.get("generation") or {}
        recorded = (sub["model"].get("checkpoint") or {})
        print(f"checkpoint: the run loaded {recorded.get('path') or sub['model']['name']!r}"
              + (f" (fingerprint {str(recorded.get('fingerprint'))[:16]}, processor {str(recorded.get('processor'))[:16]}, "
                 f"dtype {recorded.get('dtype')})" if recorded else " (no fingerprint recorded)")
              + f"; generation settings re-applied: --gen_kwargs {gen.get('gen_kwargs') or '(task defaults)'!r}, "
                f"seeds {gen.get('seeds') or '(lmms-eval defaults)'}")
        before = run_differences(sub, rerun_with, args.checkpoint)
        print("differs from the run before any answer is compared: " + ("; ".join(before) if before else "nothing found "
              "(same checkpoint path and content, processor files and dtype)"))
        verdicts = verify(sub, args.checkpoint, docs=args.docs, seed=seed, device=args.device,
                          server=args.server, served_model=args.served_model, api_key_env=args.api_key_env)
    except (ValueError, RuntimeError) as exc:  # SubmissionError, a backend refusing its args, DataError, ServerError
        print(f"gui-eval verify: {args.file}: refused: {exc}", file=sys.stderr)
        return 1
    print(f"re-applied: model args {sub['model']['args']!r}, --gen_kwargs {gen.get('gen_kwargs') or '(task defaults)'!r}, "
          f"seeds {gen.get('seeds') or '(lmms-eval defaults)'}, interventions {sub['model']['interventions'] or 'none'}")
    from gui_core.logit_capture import CAPTURE_TOLERANCE

    if any(v.logged_side or v.again_side for v in verdicts):
        print(f"digit captures compared within {CAPTURE_TOLERANCE:g} nats (each key digit's ten log-probabilities, the "
              "mean chosen-token log-probability)")
    for v in verdicts:
        if v.reproduced:
            mark = "reproduced" + (" (text and digit capture)" if v.logged_side else "")
        elif v.logged != v.again:
            mark = f"DIFFERS: {first_difference(v.logged, v.again)}"
        else:
            mark = f"DIFFERS: same text, {v.side_difference}"
        print(f"{v.task} doc {v.doc_id}: {mark}")
    ok = sum(v.reproduced for v in verdicts)
    rate = ok / len(verdicts) if verdicts else 0.0
    verdict = "verified" if verdicts and rate >= args.threshold else "NOT verified"
    if ok < len(verdicts):
        diffs = setting_differences(sub)
        diffs = before + diffs
        print("settings that differ from the run's: " + ("; ".join(diffs) if diffs else
              "none recorded (same gen_kwargs, seeds, model args, interventions and package versions): another device, "
              "dtype or batch size can change a near-tie token"))
    print(f"{args.file}: {ok}/{len(verdicts)} responses reproduced ({rate:.0%}; threshold {args.threshold:.0%}): {verdict}"
          + (f" ({partial_note(sub)})" if "partial" in sub else ""))
    return 0 if verdict == "verified" else 2


if __name__ == "__main__":
    sys.exit(main())
