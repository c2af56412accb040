"""Find a function's definition in its file's AST: line and column numbers are those of the file.

The whole file is parsed (once) rather than the snippet `inspect.getsource` returns, because a snippet is often not
valid on its own (a lambda inside a dict literal, a method body) and because columns must match the file.
Several lambdas on one line are told apart by the source positions of their bytecode.
"""
from __future__ import annotations

import ast
import inspect
import linecache
from dataclasses import dataclass

from ..errors import UserError


@dataclass
class FunctionSource:
    node: ast.FunctionDef | ast.Lambda
    filename: str


_functions: dict = {}
_files: dict = {}


def function_source(fn) -> FunctionSource:
    code = fn.__code__
    if code not in _functions:
        filename = inspect.getsourcefile(fn) or code.co_filename
        tree = _parse_file(filename, fn)
        node = _find(tree, code, filename, fn)
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []  # @transpile must not apply again while compiling
        _functions[code] = FunctionSource(node, filename)
    return _functions[code]


def _parse_file(filename: str, fn) -> ast.Module:
    lines = linecache.getlines(filename)
    if not lines:
        raise UserError(f"cannot read the source of {fn.__qualname__} (defined in {filename}): compiled functions "
                        "must be defined in a file", TypeError)
    text = "".join(lines)
    cached = _files.get(filename)
    if cached is None or cached[0] != text:
        cached = (text, ast.parse(text, filename))
        _files[filename] = cached
    return cached[1]


def _find(tree: ast.Module, code, filename: str, fn):
    first = code.co_firstlineno
    if code.co_name == "<lambda>":
        candidates = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == first]
    else:
        candidates = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.name == code.co_name and _first_line(n) == first]
    if len(candidates) > 1:
        candidates = [n for n in candidates if _contains_code(n, code)] or candidates[:1]
    if not candidates:
        raise UserError(f"cannot find the definition of {fn.__qualname__} in {filename}", TypeError)
    node = candidates[0]
    if isinstance(node, ast.AsyncFunctionDef):
        raise UserError(f"async function {code.co_name} is not supported", TypeError)
    return node


def _first_line(node) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _contains_code(node, code) -> bool:
    """Whether the source positions of the function's instructions lie inside this definition."""
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    spans = [(line, col, end_line, end_col) for line, end_line, col, end_col in code.co_positions()
             if line is not None and col is not None and (end_line, end_col) > (line, col)]  # not RESUME
    return bool(spans) and all(start <= (line, col) and (end_line, end_col) <= end
                               for line, col, end_line, end_col in spans)
