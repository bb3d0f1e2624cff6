"""A safe stand-in for Python's ``eval`` on a model's answer: literals, containers and arithmetic only.

Authors' readers that ``eval`` the answer (UI-Venus-Ground-7B, UGround-V1: ``gui_core.grounding_authors``) are
reproduced with it; a name, call, attribute or power is refused, never run.
"""

from __future__ import annotations

import ast
from typing import Any, Callable


class _Refused(Exception):
    """The answer holds something ``eval`` would run (a name, a call) or that we do not evaluate."""


_MAX_EVAL_CHARS = 100_000  # far beyond any answer; bounds the parse of an adversarial text
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Not: lambda a: not a,
                                            ast.Invert: lambda a: ~a}


def _eval_node(node: ast.AST, depth: int = 0) -> Any:
    if depth > 50:
        raise _Refused("nested too deeply")
    if isinstance(node, ast.Expression):
        return _eval_node(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_eval_node(e, depth + 1) for e in node.elts)
    if isinstance(node, ast.List):
        return [_eval_node(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Set):
        return {_eval_node(e, depth + 1) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _Refused("dict unpacking")
        return {_eval_node(k, depth + 1): _eval_node(v, depth + 1) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval_node(node.operand, depth + 1))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _eval_node(node.left, depth + 1), _eval_node(node.right, depth + 1)
        if not all(isinstance(v, (bool, int, float)) for v in (a, b)):
            raise _Refused("arithmetic on non-numbers")
        return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.Slice):
        parts = [None if e is None else _eval_node(e, depth + 1) for e in (node.lower, node.upper, node.step)]
        return slice(*parts)
    if isinstance(node, ast.Subscript):
        value = _eval_node(node.value, depth + 1)
        if not isinstance(value, (list, tuple, str, bytes, dict)):
            raise _Refused("subscript of a non-container")
        return value[_eval_node(node.slice, depth + 1)]
    raise _Refused(type(node).__name__)


def python_eval(text: str) -> Any:
    """What ``eval(text)`` gives for an answer made of literals and arithmetic; raises for anything else.

    Built-in ``eval`` strips leading spaces and tabs; a name, call, attribute or power is refused (``eval``
    would run it; an answer writing one is unreadable here, as it almost always is there: ``NameError``).
    """
    if len(text) > _MAX_EVAL_CHARS:
        raise _Refused("too long")
    try:
        tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except (RecursionError, MemoryError) as exc:
        raise _Refused("too deeply nested") from exc
    return _eval_node(tree)
