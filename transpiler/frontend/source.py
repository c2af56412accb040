"""Find a function's source and parse it to an AST whose line and column numbers are those of the file."""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from ..errors import UserError


@dataclass
class FunctionSource:
    node: ast.FunctionDef | ast.Lambda
    filename: str


_cache: dict = {}


def function_source(fn) -> FunctionSource:
    code = fn.__code__
    if code in _cache:
        return _cache[code]
    try:
        lines, start = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or code.co_filename
    except (OSError, TypeError) as e:
        raise UserError(f"cannot read the source of {fn.__qualname__}: {e}", TypeError) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = _first_indent(text) - _first_indent(dedented)
    tree = ast.parse(dedented)
    ast.increment_lineno(tree, start - 1)
    if indent:
        for n in ast.walk(tree):
            if hasattr(n, "col_offset"):
                n.col_offset += indent
                if getattr(n, "end_col_offset", None) is not None:
                    n.end_col_offset += indent
    node = _find_def(tree, fn)
    if isinstance(node, ast.FunctionDef):
        node.decorator_list = []  # @transpile must not apply again while compiling
    _cache[code] = FunctionSource(node, filename)
    return _cache[code]


def _first_indent(text: str) -> int:
    for line in text.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


def _find_def(tree: ast.AST, fn):
    name = fn.__name__
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
            if isinstance(n, ast.AsyncFunctionDef):
                raise UserError(f"async function {name} is not supported", TypeError)
            return n
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if name == "<lambda>" and len(lambdas) == 1:
        return lambdas[0]
    raise UserError(f"cannot find the definition of {fn.__qualname__} in its source", TypeError)
