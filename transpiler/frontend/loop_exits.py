"""`break`, `continue` and `return` in loops as flags, so that they work under run-time conditions and in run-time
loops.

A loop whose body leaves through `break`/`continue` is interpreted in an equivalent form without them:

    for t in it:                      brk = False
        A                             for t in it:
        if c:                             cont = False
            B                             if not brk:
            break                             A
        C                                     if c:
    else:                                         B
        D                                         brk = True
                                              if not (brk or cont):
                                                  C
                                          if not brk:
                                              D

(a `while` loop checks `not brk` in its condition instead; a `return v` in the body sets `returned = True` and
`value = v` and breaks, and `if returned: return value` follows the loop; a returned tuple display `return i, x[i]`
is remembered item by item, so the loop carries run-time values, not a container). A loop nested in the body that
returns is rewritten first: its `if returned: return value` is a return of this loop, so a return leaves any depth
of loops. When `c` is known at compile time the
flags are compile-time bools and everything folds; when it is a run-time value the flags become run-time bools that
the `scf.if` joins and the loop carries. Statements after an exit are only ever guarded, never duplicated, so the
program stays the size of the source.
"""
from __future__ import annotations

import ast
import itertools

_counter = itertools.count()
_cache: dict = {}


class _Unset:
    """The value of a loop's return variable before any `return` ran: never read (its flag is False), so a join
    may give it any value of the other side's type."""

    def __repr__(self):
        return "<no value returned yet>"


UNSET = _Unset()


def has_exits(loop) -> bool:
    """Whether the loop body has a `break`/`continue` of this loop, or a `return` anywhere (also in a loop nested in
    it: that loop's return becomes a flag and a `return` at this loop's level)."""
    return not hasattr(loop, "break_flag") and any(_exits(s) for s in loop.body)


def rewritten(loop) -> list:
    """The statements that replace `loop` (cached per loop node)."""
    if id(loop) not in _cache:
        _cache[id(loop)] = (loop, _rewrite_loop(loop))
    return _cache[id(loop)][1]


def _walk_level(stmts):
    """Statements at this loop's level: nested into ifs, not into nested loops or functions."""
    for s in stmts:
        yield s
        if isinstance(s, ast.If):
            yield from _walk_level(s.body)
            yield from _walk_level(s.orelse)


def _exits(stmt) -> bool:
    return any(isinstance(s, (ast.Break, ast.Continue)) for s in _walk_level([stmt])) or _returns(stmt)


def _returns(node) -> bool:
    """A `return` anywhere inside (nested loops and ifs included, nested functions not)."""
    if isinstance(node, ast.Return):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    return any(_returns(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt))


def _parts(value):
    """The items of a returned tuple or list display (`return i, x[i]`), each remembered in its own variable, so
    that a loop carries run-time values rather than a container of them; None for any other value."""
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return type(value), len(value.elts)
    return None


def described(name: str) -> str:
    """A variable's name as a message shows it: the variables this rewrite makes are named by what they hold."""
    if name.startswith("__return_value"):
        return "the value a `return` inside the loop gives"
    return f"'{name}'"


def _rewrite_loop(loop) -> list:
    n = next(_counter)
    brk, cont, ret, value = f"__break{n}", f"__continue{n}", f"__returned{n}", f"__return_value{n}"
    returns = any(_returns(s) for s in loop.body)
    at = loop
    shapes: set = set()        # how the returns in the body are remembered: _parts of each (None: one variable)
    split = [True]             # remember tuple items apart (undone when the returns differ in shape)

    def name(id_, ctx=ast.Load):
        return ast.Name(id=id_, ctx=ctx())

    def assign(id_, value: bool):
        return ast.Assign(targets=[name(id_, ast.Store)], value=ast.Constant(value))

    def not_(expr):
        return ast.UnaryOp(op=ast.Not(), operand=expr)

    def body(stmts):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Break):
                return out + [assign(brk, True)]
            if isinstance(s, ast.Continue):
                return out + [assign(cont, True)]
            if isinstance(s, ast.Return):     # remembered, then a break; returned after the loop
                return out + remember(s.value) + [assign(ret, True), assign(brk, True)]
            if isinstance(s, (ast.For, ast.While)) and _returns(s):
                # a nested loop with a return: its flag-and-value form, whose `if returned: return value` is then
                # a return of this loop
                return out + body(rewritten(s) + stmts[k + 1:])
            if isinstance(s, ast.If) and _exits(s):
                out.append(ast.If(test=s.test, body=body(s.body) or [ast.Pass()], orelse=body(s.orelse)))
                rest = body(stmts[k + 1:])
                if rest:
                    still = not_(ast.BoolOp(op=ast.Or(), values=[name(brk), name(cont)]))
                    out.append(ast.If(test=still, body=rest, orelse=[]))
                return out
            out.append(s)
        return out

    def remember(result) -> list:
        parts = _parts(result) if split[0] else None
        shapes.add(parts)
        if parts is None:
            result = result if result is not None else ast.Constant(None)
            return [ast.Assign(targets=[name(value, ast.Store)], value=result)]
        return [ast.Assign(targets=[name(f"{value}_{j}", ast.Store)], value=e) for j, e in enumerate(result.elts)]

    inner = [assign(cont, False)] + body(loop.body)
    if len(shapes) > 1:        # returns of different shapes: each value remembered whole
        split[0] = False
        shapes.clear()
        inner = [assign(cont, False)] + body(loop.body)
    parts = next(iter(shapes)) if shapes else None
    if isinstance(loop, ast.For):
        new_loop = ast.For(target=loop.target, iter=loop.iter, body=[inner[0], ast.If(
            test=not_(name(brk)), body=inner[1:] or [ast.Pass()], orelse=[])], orelse=[])
        new_loop.break_flag = brk      # an unrolled loop stops once the flag is a compile-time True
    else:
        new_loop = ast.While(test=ast.BoolOp(op=ast.And(), values=[not_(name(brk)), loop.test]), body=inner,
                             orelse=[])
        new_loop.break_flag = brk
    if getattr(loop, "row_lists", False):        # (a loop in one that appends to a list: row_lists.run_nested)
        new_loop.row_lists = True
    stmts = [assign(brk, False), new_loop]
    names = [value] if parts is None else [f"{value}_{j}" for j in range(parts[1])]
    if returns:
        stmts[:0] = [assign(ret, False)] + [ast.Assign(targets=[name(v, ast.Store)], value=ast.Constant(UNSET))
                                            for v in names]
    if loop.orelse:
        stmts.append(ast.If(test=not_(name(brk)), body=loop.orelse, orelse=[]))
    if returns:
        result = name(value) if parts is None else parts[0](elts=[name(v) for v in names], ctx=ast.Load())
        stmts.append(ast.If(test=name(ret), body=[ast.Return(value=result)], orelse=[]))
    for s in stmts:
        for node in ast.walk(s):
            if not hasattr(node, "lineno"):
                ast.copy_location(node, at)
            if not hasattr(node, "end_lineno") or node.end_lineno is None:
                node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    return stmts
