"""`python -m transpiler FILE --check` and `transpiler.check(fn, *example_args)`: every construct outside the
compilable subset, all at once, without compiling to machine code.

Two passes: a static scan of every function's AST for statements and expressions the interpreter has no rule
for (try, with, class, yield, global, eval() ...), which needs no types; then, for functions whose argument types
are known (annotations, defaults or --arg), a real compilation to the typed program, which finds what only types
reveal (bool subtraction, shapes that cannot broadcast, unsupported NumPy functions ...).
"""
from __future__ import annotations

import ast
import builtins

from .errors import CompileError, UserError, compile_error
from .frontend.infer import _FORBIDDEN_BUILTINS, Interpreter, _describe
from .frontend.source import function_source


def check(fn, *example_args, **example_kwargs) -> list[CompileError]:
    """The problems that keep `fn` from compiling for arguments like these, located and sorted by line; an empty
    list when there are none. The static scan covers `fn`'s own source (nested functions included); the typed
    pass follows the calls it makes and stops at the first error it meets there. Nothing is compiled to machine
    code, nothing is cached, and no error is raised for the problems found."""
    from . import api
    compiled = fn if isinstance(fn, api.Transpiled) else api.transpile(fn, disk_cache=False)
    try:
        source = function_source(compiled.py_func)
    except UserError as e:                 # no source to read (a builtin, a function typed in the REPL)
        return [compile_error(str(e), kind=e.kind)]
    errors = scan(source.node, source.filename)
    flagged = {e.lineno for e in errors}
    try:
        bound = compiled._bind(example_args, example_kwargs)
        key, _, _ = compiled._flatten(bound)
        compiled._typed(key, bound)
    except CompileError as e:
        if e.lineno not in flagged:
            errors.append(e)
    return sorted(errors, key=lambda e: (e.lineno, e.col_offset))


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


