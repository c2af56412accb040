"""`python -m transpiler FILE --check`: every construct outside the compilable subset, all at once.

Two passes: a static scan of every function's AST for statements and expressions the interpreter has no rule
for (try, with, class, yield, global, eval() ...), which needs no types; then, for functions whose argument types
are known (annotations, defaults or --arg), a real compilation to the typed program, which finds what only types
reveal (bool subtraction, shapes that cannot broadcast, unsupported NumPy functions ...).
"""
from __future__ import annotations

import ast
import builtins

from .errors import CompileError
from .frontend.infer import _FORBIDDEN_BUILTINS, Interpreter, _describe


def scan(tree: ast.AST, filename: str) -> list[CompileError]:
    """Unsupported constructs inside the functions of a module's AST."""
    errors = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if isinstance(fn, ast.AsyncFunctionDef):
            errors.append(CompileError("unsupported statement: async def", filename, fn.lineno, fn.col_offset))
            continue
        for node in _body_nodes(fn):
            message = _problem(node)
            if message:
                errors.append(CompileError(message, filename, node.lineno, node.col_offset))
    unique = {(e.lineno, e.col_offset, e.message): e for e in errors}
    return [unique[k] for k in sorted(unique)]


def _body_nodes(fn: ast.FunctionDef):
    """Nodes of a function body, not descending into nested defs (they are scanned on their own)."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.stmt) and not hasattr(Interpreter, "stmt_" + type(node).__name__) \
            and not isinstance(node, (ast.If,)):
        return f"unsupported statement: {_describe(node)}"
    if isinstance(node, ast.expr) and not isinstance(node, (ast.expr_context,)) \
            and not hasattr(Interpreter, "expr_" + type(node).__name__):
        return f"unsupported expression: {_describe(node)}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FORBIDDEN_BUILTINS \
            and hasattr(builtins, node.func.id):
        return f"{node.func.id}() is not supported in compiled code"
    return None


def format_errors(errors: list[CompileError]) -> str:
    return "\n".join(e.format("error").splitlines()[0] for e in errors)
