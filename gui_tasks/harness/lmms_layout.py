"""Which request layout our tasks emit (lmms-eval's chat or simple protocol), and reading multi-round results.

lmms-eval 0.7.3 decides the layout from the model: ``task_type = "chat"`` when
``lm.is_simple`` is False, and its ``TaskManager.load_task_or_group(tasks, task_type)``
then builds ``ConfigurableMessagesTask`` (chat: the task provides ``doc_to_messages``)
instead of ``ConfigurableTask`` (simple: ``doc_to_visual`` + context). A YAML ``class:``
task is built by its own class and never learns ``task_type``; so we record the
``task_type`` (and the model name the ``TaskManager`` was made for) while tasks load,
and ``RowsTask`` emits the layout lmms-eval would have chosen for a plain YAML task.

Multi-round requests: the chat protocol (``ConfigurableMessagesTask``) sends
``(ctx, doc_to_messages, gen_kwargs, doc_id, task, split)``; but a chat backend whose
``generate_until_multi_round`` is inherited from a simple class (its defining class has
``is_simple = True``) unpacks the simple layout ``(ctx, gen_kwargs, doc_to_visual,
doc_to_text, doc_id, task, split)``. We send what the method that will run consumes,
found from the class lmms-eval's registry resolves, never from backend names.
"""

from __future__ import annotations

import ast
import contextvars
import functools
import json
from typing import Any, Literal, Sequence

Layout = Literal["simple", "chat"]
_MARK = "__gui_eval_layout__"
# lmms_eval_specific_kwargs key telling a multi-round task's doc_to_text that lmms-eval's agentic loop runs it
INTERACTION_KEY = "gui_eval_interaction"
# ... and the task's stop strings there: lmms-eval's openai / vllm backends drop ``until``, ours cut at it (cut_at_stops);
# the agentic rounds are cut the same way, so both paths read the same outputs
UNTIL_KEY = "gui_eval_until"
# the key of the JSON object that carries every round of an agentic episode to process_results (see pack_rounds)
ROUNDS_KEY = "gui_eval_rounds"
# (task_type, model) of the load in progress; None outside a TaskManager load (lmms-eval's default is "simple")
_LOADING: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar("gui_eval_task_type", default=None)


def install_layout_hook() -> None:
    """Wrap ``TaskManager.load_task_or_group`` (once) so tasks built inside it can read ``task_type``."""
    from lmms_eval.tasks import TaskManager

    original = TaskManager.load_task_or_group
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def load_task_or_group(self, task_list=None, task_type="simple"):
        outer = _LOADING.get()
        # nested loads (lmms-eval's tag path drops task_type) keep the outermost one
        token = _LOADING.set(outer if outer is not None else (str(task_type), getattr(self, "model_name", None)))
        try:
            return original(self, task_list, task_type)
        finally:
            _LOADING.reset(token)

    setattr(load_task_or_group, _MARK, True)
    TaskManager.load_task_or_group = load_task_or_group


def current_task_type() -> tuple[Layout, Any]:
    """``(task_type, model)`` of the task load in progress (``("simple", None)`` outside one)."""
    found = _LOADING.get()
    if found is None:
        return "simple", None
    kind = "chat" if found[0] == "chat" else "simple"
    return kind, found[1]


def _model_class(model: Any) -> type | None:
    """The class lmms-eval runs for ``model`` (a registry name in the chat resolution, or an instance)."""
    if model is None:
        return None
    if not isinstance(model, str):
        return type(model)
    try:
        from lmms_eval.models import get_model

        return get_model(model, False)
    except Exception:
        return None


def multi_round_layout(task_type: Layout, model: Any) -> Layout:
    """The layout ``generate_until_multi_round`` of ``model`` consumes under ``task_type``."""
    if task_type == "simple":
        return "simple"
    cls = _model_class(model)
    if cls is None:
        return "chat"
    owner = next((c for c in cls.__mro__ if "generate_until_multi_round" in vars(c)), None)
    return "simple" if owner is not None and getattr(owner, "is_simple", True) else "chat"


def multi_round_refusal(model: Any) -> str | None:
    """Why ``model`` cannot run a multi-round task, or None when it can (or when that cannot be told).

    Many lmms-eval backends (``openai``, ``sglang``, ``claude``, ``gemini``, ...) define
    ``generate_until_multi_round`` as a bare ``raise NotImplementedError``; lmms-eval sends every task's
    multi-round requests in one call, so that raise drops the results of every task of the run. Read from
    the method that will run (its source, parsed, never executed), not from backend names.
    """
    import inspect
    import textwrap

    cls = _model_class(model)
    owner = next((c for c in cls.__mro__ if "generate_until_multi_round" in vars(c)), None) if cls is not None else None
    if owner is None:
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(vars(owner)["generate_until_multi_round"])))
    except (OSError, TypeError, SyntaxError):
        return None
    fn = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if fn is None:
        return None
    body = [st for st in fn.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]  # docstrings
    exc = body[0].exc if len(body) == 1 and isinstance(body[0], ast.Raise) else None
    target = exc.func if isinstance(exc, ast.Call) else exc
    if not (isinstance(target, ast.Name) and target.id == "NotImplementedError"):
        return None
    name = model if isinstance(model, str) else cls.__name__
    return (f"backend {name!r} has no multi-round generation ({owner.__module__}.{owner.__name__}."
            "generate_until_multi_round raises NotImplementedError): this task was not run. Run it with "
            "--model gui_openai (served engines and APIs) or --model gui_wrap --model_args backend="
            f"{name},... (one request per round); the other tasks of the run are scored as usual")


def pack_rounds(outputs: Sequence[str]) -> str:
    """Every round's output as the one response lmms-eval's agentic loop keeps (its last ``model_outputs`` entry).

    ``_run_generate_until_agentic`` hands ``process_results`` only its final response; the task's terminal
    ``doc_to_text`` appends this JSON object to the outputs it returns, so the final response carries all rounds.
    ``<`` and ``>`` are escaped so that lmms-eval's reasoning-tag stripping (``<think>``...) finds nothing to cut
    across rounds: each round reaches the scorer exactly as the rounds' own prompts read it."""
    text = json.dumps({ROUNDS_KEY: [str(o) for o in outputs]}, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def agentic_rounds(results: Any) -> list[str] | None:
    """The rounds packed by ``pack_rounds`` in ``results`` (what ``process_results`` receives), or None when the
    results are not such a package (a multi-round backend's list, or anything else)."""
    first = results[0] if isinstance(results, (list, tuple)) and len(results) == 1 else results
    if not isinstance(first, str) or not first.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return None
    rounds = value.get(ROUNDS_KEY) if isinstance(value, dict) else None  # --agentic_trace_mode full adds keys
    return list(rounds) if isinstance(rounds, list) and all(isinstance(x, str) for x in rounds) else None


def rounds_of(results: Any) -> list[str]:
    """The per-round outputs of a multi-round request, whatever sequence the backend returned.

    Backends return a list or a tuple per request. lmms-eval's ``unwrap_generation_output``
    keeps a list but turns a tuple into ``str(tuple)``; that text is read back here (a literal
    tuple of strings only, evaluated by ``ast.literal_eval``, never executed). lmms-eval's agentic loop
    returns one text, the ``pack_rounds`` object, read back here too. ``results`` is
    what ``process_results`` receives: one entry per request of the document.
    """
    packed = agentic_rounds(results)
    if packed is not None:
        return packed
    first = results[0] if isinstance(results, (list, tuple)) and len(results) == 1 else results
    if isinstance(first, (list, tuple)):
        return [str(x) for x in first]
    if isinstance(first, str):
        text = first.strip()
        if text.startswith("(") and text.endswith(")"):
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
            if isinstance(value, tuple) and all(isinstance(x, str) for x in value):
                return list(value)
        return [first]
    return [] if first is None else [str(first)]
