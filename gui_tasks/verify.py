"""``gui-eval verify``: run the submitted model again on documents chosen at random and compare the responses.

The hashes of a submission (``gui_tasks/leaderboard.py``) show that nothing was edited after ``submit``
and re-scoring shows that the scores follow from the responses; neither shows that the model wrote
the responses. ``verify`` answers that for a sample: it loads the checkpoint the verifier names with
the submission's backend and model args, runs each chosen document through lmms-eval's own
``simple_evaluate`` (``--offset doc_id --limit 1``: the request building, filters and reasoning-tag
stripping of a real run) and compares the response, in the form lmms-eval logs it, with the logged one.
Decoding is greedy in our tasks (no ``do_sample``, temperature 0), so an honest run reproduces exactly
on the same software; a different GPU or batch size can change a near-tie token, hence the threshold.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import secrets
import sys
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from gui_tasks.leaderboard import SubmissionError, _quiet_lmms_eval, load_submission, validate_submission

DEFAULT_DOCS = 20
DEFAULT_THRESHOLD = 1.0  # every chosen document must reproduce unless the verifier allows less


@dataclass(frozen=True)
class DocVerdict:
    """One re-run document: the logged response, the new one and whether they are the same."""

    task: str
    doc_id: int
    logged: Any
    again: Any

    @property
    def reproduced(self) -> bool:
        return self.logged == self.again


def choose_docs(sub: dict[str, Any], k: int, seed: int) -> list[tuple[str, int]]:
    """``k`` (task, doc id) pairs drawn without replacement from every sample of the submission, in a fixed order."""
    population = [(t["task"], s["doc_id"]) for t in sub["tasks"] for s in t["samples"]]
    return sorted(random.Random(seed).sample(population, min(max(k, 0), len(population))))


def with_checkpoint(args_string: str, checkpoint: str, device: str | None = None) -> str:
    """The submission's model args with ``pretrained`` (and ``device``) set to the verifier's, split as lmms-eval splits them."""
    from lmms_eval.utils import _smart_comma_split

    parts = [p for p in _smart_comma_split(args_string.strip()) if p.strip()] if args_string.strip() else []
    replace = {"pretrained": checkpoint, **({"device": device} if device else {})}
    out = [p for p in parts if p.split("=", 1)[0].strip() not in replace]
    return ",".join([*(f"{k}={v}" for k, v in replace.items()), *out])


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


def rerun(lm: Any, backend: str, picks: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Any]:
    """The response lmms-eval logs for each (task, doc id), from ``lm``, one ``simple_evaluate`` per document."""
    from lmms_eval.evaluator import simple_evaluate

    from gui_tasks.rescore import _task_manager

    out: dict[tuple[str, int], Any] = {}
    with _kept_loaded(lm):
        for task, doc_id in picks:
            with _cli_defaults(backend, task) as cli_args:
                results = simple_evaluate(model=lm, tasks=[task], limit=1, offset=doc_id, log_samples=True,
                                          task_manager=_task_manager(), cli_args=cli_args, verbosity="ERROR")
            samples = ((results or {}).get("samples") or {}).get(task) or []
            if len(samples) != 1 or samples[0].get("doc_id") != doc_id:
                raise SubmissionError(f"task {task}: lmms-eval ran {[s.get('doc_id') for s in samples]}, not doc {doc_id}")
            out[(task, doc_id)] = logged_form(samples[0]["filtered_resps"])
    return out


def load_model(backend: str, model_args: str) -> Any:
    """The backend as the lmms-eval CLI builds it (batch size 1)."""
    from lmms_eval import models

    from gui_tasks.lmms_integration import attach

    attach()
    return models.get_model(backend).create_from_arg_string(model_args, {"batch_size": 1, "max_batch_size": None, "device": None})


def verify(sub: dict[str, Any], checkpoint: str, *, docs: int = DEFAULT_DOCS, seed: int = 0,
           device: str | None = None) -> list[DocVerdict]:
    """Validate ``sub`` (every check of ``gui-eval validate``), then re-run ``docs`` random documents with ``checkpoint``."""
    validate_submission(sub)
    picks = choose_docs(sub, docs, seed)
    model = sub["model"]
    lm = load_model(model["backend"], with_checkpoint(model["args"], checkpoint, device))
    again = rerun(lm, model["backend"], picks)
    logged = {(t["task"], s["doc_id"]): s["response"] for t in sub["tasks"] for s in t["samples"]}
    return [DocVerdict(task, doc_id, logged[(task, doc_id)], again[(task, doc_id)]) for task, doc_id in picks]


def _short(value: Any, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-eval verify SUBMISSION --checkpoint PATH [--docs K] [--seed S] [--threshold T]``."""
    ap = argparse.ArgumentParser(prog="gui-eval verify",
                                 description="Re-run random documents of a submission with its backend and model args; "
                                             "report per document whether the logged response is reproduced.")
    ap.add_argument("file", help="a submission written by gui-eval submit")
    ap.add_argument("--checkpoint", required=True, help="the checkpoint to run (replaces pretrained= in the model args)")
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
        verdicts = verify(load_submission(args.file), args.checkpoint, docs=args.docs, seed=seed, device=args.device)
    except ValueError as exc:  # SubmissionError, a backend refusing its args, DataError
        print(f"gui-eval verify: {args.file}: refused: {exc}", file=sys.stderr)
        return 1
    for v in verdicts:
        mark = "reproduced" if v.reproduced else f"DIFFERS: logged {_short(v.logged)}, now {_short(v.again)}"
        print(f"{v.task} doc {v.doc_id}: {mark}")
    ok = sum(v.reproduced for v in verdicts)
    rate = ok / len(verdicts) if verdicts else 0.0
    verdict = "verified" if verdicts and rate >= args.threshold else "NOT verified"
    print(f"{args.file}: {ok}/{len(verdicts)} responses reproduced ({rate:.0%}; threshold {args.threshold:.0%}): {verdict}")
    return 0 if verdict == "verified" else 2


if __name__ == "__main__":
    sys.exit(main())
