"""Find a function's definition in its file's AST: line and column numbers are those of the file.

The whole file is parsed (once) rather than the snippet `inspect.getsource` returns, because a snippet is often not
valid on its own (a lambda inside a dict literal, a method body) and because columns must match the file.
Several lambdas on one line are told apart by the source positions of their bytecode (each position belongs to the
innermost lambda whose body holds it); where they cannot be, the function is refused, never guessed.
"""
from __future__ import annotations

import __future__
import ast
import dis
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
_definitions: dict = {}   # id(tree) -> (tree, its lambdas, its function definitions by name): one walk per file


def function_source(fn) -> FunctionSource:
    code = fn.__code__
    if code not in _functions:
        filename = inspect.getsourcefile(fn) or code.co_filename
        tree = _parse_file(filename, fn)
        node = _find(tree, code, filename, fn)
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = []  # @transpile must not apply again while compiling
        _mangle_private_names(node, fn, code)
        if not _same_code(node, code, filename):
            raise UserError(f"the source of {fn.__qualname__} in {filename} was changed after the function was "
                            "loaded: Python runs the old code, which the compiler cannot read (reload the module, "
                            "importlib.reload, or restart)", TypeError)
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


def _definitions_of(tree: ast.Module) -> tuple:
    """(lambdas, function definitions by name) of a file, in ast.walk's order; a module's functions were each found
    with a walk of the whole file (GPT-2's model: 13 walks, ~10 ms of every first call)."""
    cached = _definitions.get(id(tree))
    if cached is None or cached[0] is not tree:
        lambdas, functions = [], {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Lambda):
                lambdas.append(n)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(n.name, []).append(n)
        cached = _definitions[id(tree)] = (tree, lambdas, functions)
    return cached[1], cached[2]


def _find(tree: ast.Module, code, filename: str, fn):
    first = code.co_firstlineno
    lambdas, functions = _definitions_of(tree)
    if code.co_name == "<lambda>":
        candidates = [n for n in lambdas if n.lineno == first]
    else:
        candidates = [n for n in functions.get(code.co_name, ()) if _first_line(n) == first]
    parameters = tuple(map(_unmangled, _code_parameters(code)))     # (`__k` of a method: `_Model__k` there)
    candidates = [n for n in candidates if tuple(map(_unmangled, _parameters(n))) == parameters]
    if len(candidates) > 1 or code.co_name == "<lambda>" and candidates:
        # several definitions on one line (`f = lambda x: x + 1; g = lambda x: x * 2`, a lambda returning a
        # lambda): the one that owns every source position of the function's instructions. Compiling another
        # one's source would be a silently wrong kernel, so no guess where they cannot be told apart.
        spans = _spans(code)
        owned = [n for n in candidates if spans and all(_owner(span, lambdas) is n for span in spans)] \
            if code.co_name == "<lambda>" else [n for n in candidates if spans and _contains(n, spans)]
        if len(owned) != 1 and len(candidates) > 1:
            raise UserError(f"cannot tell which of the {len(candidates)} definitions on line {first} of {filename} "
                            f"is {fn.__qualname__}" + ("" if spans else " (Python runs without source positions: "
                                                       "-X no_debug_ranges)") + ": define it on a line of its own",
                            TypeError)
        candidates = owned or candidates
    if not candidates:
        raise UserError(f"cannot find the definition of {fn.__qualname__} in {filename}"
                        f" (line {first}; was the file changed since it was imported?)", TypeError)
    node = candidates[0]
    if isinstance(node, ast.AsyncFunctionDef):
        raise UserError(f"async function {code.co_name} is not supported", TypeError)
    return node


_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _same_code(node, code, filename: str) -> bool:
    """Whether the definition found in the file compiles to the code Python runs: the same constants and names,
    in the function and the functions, lambdas and comprehensions it holds. A file edited after its module was
    imported (without a reload) holds another body than the one Python runs, and compiling it would be a silently
    wrong kernel. (Compiled alone, the definition's free variables are globals and a method has no `__class__`
    cell: the names are compared as one set, whatever their kind; bytecode is not compared.)"""
    wrapped = ast.Expression(node) if isinstance(node, ast.Lambda) else ast.Module([node], type_ignores=[])
    try:
        module = compile(wrapped, filename, "eval" if isinstance(node, ast.Lambda) else "exec",
                         flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):      # (not compilable alone, `nonlocal`: refused later anyway)
        return True
    # (the function's own code: a default value `pred=lambda n: True` is compiled before it, beside it)
    compiled = next((c for c in reversed(module.co_consts) if inspect.iscode(c) and c.co_name == code.co_name
                     and c.co_firstlineno == code.co_firstlineno), None)
    running = _fingerprint(code)
    if compiled is None or any(name.startswith("@") for name in running[1]):
        return True      # (code rewritten on import, as pytest rewrites `assert`s: not comparable)
    alone = _fingerprint(compiled)
    return alone[:2] == running[:2] and (running[3] or alone[2] == running[2])


def _fingerprint(code) -> tuple:
    constants, names, operations = [], set(), []

    def walk(c):
        names.update(c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars)
        operations.extend(_operations(c))
        for k in c.co_consts:
            if inspect.iscode(k):
                walk(k)
            else:
                constants.append(repr(k))
    walk(code)
    # (a method's zero-argument super() or __class__ loads the class cell, which the definition compiled alone has
    # not: its operations are not comparable)
    return sorted(constants), {_unmangled(n) for n in names} - {"__class__"}, operations, "__class__" in names


# instructions that read or write a variable, whatever its kind: compiled alone, a free variable of the running
# code is a global (LOAD_DEREF there, LOAD_GLOBAL here), so only the name is compared; an attribute read may be a
# LOAD_METHOD in one and a LOAD_ATTR in the other
_VARIABLE_OPS = {"LOAD_ATTR": "attr", "LOAD_METHOD": "attr", "LOAD_FAST": "load", "LOAD_FAST_CHECK": "load", "LOAD_GLOBAL": "load", "LOAD_DEREF": "load",
                 "LOAD_NAME": "load", "LOAD_CLASSDEREF": "load", "STORE_FAST": "store", "STORE_DEREF": "store",
                 "STORE_GLOBAL": "store", "STORE_NAME": "store"}
_OPERATOR_OPS = ("BINARY_", "UNARY_", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "STORE_SUBSCR", "DELETE_SUBSCR",
                 "BUILD_SLICE", "STORE_ATTR", "LOAD_CONST", "RETURN_")


def _operations(code) -> list:
    """The operators, constants and variables of the code in the order it runs them: an edit that changes only an
    operator (`+` to `*`, `<` to `<=`, `and` to `or`) or the order of operands (`a - b` to `b - a`) keeps the
    constants and names of the fingerprint and changes this. Jumps count by kind only (their offsets depend on
    the size of the loads around them)."""
    found = []
    for ins in dis.get_instructions(code):
        name = ins.opname
        if name in _VARIABLE_OPS:
            found.append((_VARIABLE_OPS[name], _unmangled(str(ins.argval))))
        elif "JUMP" in name and "_IF_" in name:     # (POP_JUMP_FORWARD_IF_FALSE, JUMP_IF_TRUE_OR_POP ...)
            found.append((name.replace("FORWARD_", "").replace("BACKWARD_", ""),))
        elif name.startswith(_OPERATOR_OPS):
            argument = ins.argval if name != "LOAD_CONST" or not inspect.iscode(ins.argval) else None
            argument = _unmangled(argument) if isinstance(argument, str) and name != "LOAD_CONST" else argument
            found.append((name, repr(argument) if name == "LOAD_CONST" else ins.argrepr if name.startswith(
                ("BINARY_OP", "COMPARE_OP")) else argument))
    return found


def _unmangled(name: str) -> str:
    """`_Model__secret` as `__secret`: in a class body Python mangles private names, compiled alone it does not."""
    head, sep, tail = name.partition("__")
    if sep and head.startswith("_") and head.strip("_") and tail and not tail.endswith("__"):
        return "__" + tail
    return name


def _private(name) -> bool:
    return name.startswith("__") and not name.endswith("__")


def _mangle_private_names(node, fn, code) -> None:
    """Python renames `self.__w` in a class's methods to `self._Model__w` (name mangling); compiled alone, the
    definition has no class. Its private names are renamed as Python renamed them, where the running code holds
    every renamed name (the class is the innermost one of the function's `__qualname__`), so `self.__w` reads the
    attribute the object has. Nested classes keep their own names (not renamed here: refused as `class` anyway)."""
    parts = fn.__qualname__.split(".")[:-1]
    while len(parts) >= 2 and parts[-1] == "<locals>":    # a function nested in a method: the method's class
        parts = parts[:-2]
    prefix = "_" + parts[-1].lstrip("_") if parts and parts[-1] != "<locals>" else "_"
    if prefix == "_":
        return
    found = []

    def visit(n):
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, ast.ClassDef):
                visit(child)
        for field in ("attr", "id", "arg"):
            name = getattr(n, field, None)
            if isinstance(name, str) and _private(name) and isinstance(n, (ast.Attribute, ast.Name, ast.arg,
                                                                           ast.keyword)):
                found.append((n, field, prefix + name))
    visit(node)
    running = set()

    def names(c):
        running.update(c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars)
        for k in c.co_consts:
            if inspect.iscode(k):
                names(k)
    names(code)
    if found and all(mangled in running for _, _, mangled in found):
        for n, field, mangled in found:
            setattr(n, field, mangled)


def _first_line(node) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _parameters(node) -> tuple:
    """A definition's parameter names, in the order of a code object's co_varnames."""
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return tuple(names)


def _code_parameters(code) -> tuple:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


def _spans(code) -> list:
    """The source spans of the function's instructions ((line, col), (end line, end col)); none where Python runs
    without them."""
    return [((line, col), (end_line, end_col)) for line, end_line, col, end_col in code.co_positions()
            if line is not None and col is not None and end_line is not None and end_col is not None
            and (end_line, end_col) > (line, col)]      # (not RESUME's empty span)


def _contains(node, spans) -> bool:
    start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    return all(start <= a and b <= end for a, b in spans)


def _owner(span, lambdas):
    """The lambda whose code computes the expression at `span`: the innermost one whose body contains it (a nested
    lambda's body belongs to its own code; making the nested function, which spans the nested lambda, to the
    outer's)."""
    inside = [n for n in lambdas if _contains(n.body, [span])]
    return max(inside, key=lambda n: (n.body.lineno, n.body.col_offset, -n.body.end_lineno, -n.body.end_col_offset),
               default=None)     # (bodies that contain one point nest: the innermost starts last, ends first)
