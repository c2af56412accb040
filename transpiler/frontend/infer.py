"""The abstract interpreter: walks a function's AST, runs Python semantics on compile-time values and appends
primitives to the typed program for run-time ones. It never builds MLIR itself.

Errors: every failure is raised as a CompileError at the innermost AST node being evaluated.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import importlib
import inspect
import itertools
import math
import operator
import types
from dataclasses import dataclass

import numpy as np

from ..errors import CompileError, UserError, compile_error, in_library, relocated_to_call
from ..program import Loc, Var
from ..types import dtypes
from . import indexing, loop_exits, numpy_api, numpy_calls, python_math  # noqa: F401  (they register handlers)
from .memory import Memory, Ref
from ..types.shapes import derived
from ..runtime.globals_guard import CELL, CODE, DEFAULTS, KWDEFAULTS, LENGTH, MAX_COMPARED_BYTES, snapshot
from ..runtime.signature import Unavailable, is_structure_object, result_template
from . import attributes as attributes_module
from . import row_lists, user_operators
from .attributes import Attributes, writable_value
from .builder import Builder
from .elementwise import apply_ufunc, as_dim, small_int
from .control import Control, Undefined, contains_return
from .outline import MustInline, Outliner, WritesArrays, signature_key
from .scope import Frame
from .source import function_source
from .values import (OPERATOR_UFUNCS, PY_OPERATORS, BoundMethod, Closure, Interpreted, NdIndex, RuntimeRange,
                     contains_var, current_interpreter)

# Exceptions that compile-time Python evaluation raises on behalf of the user's code (a KeyError on a dict of
# weights, a ZeroDivisionError ...): they become CompileErrors of the same kind at the node that raised them.
_USER_EXCEPTIONS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError, OverflowError,
                    NameError, StopIteration, ArithmeticError, LookupError, ImportError)
_FORBIDDEN_BUILTINS = {"eval", "exec", "compile", "open", "input", "globals", "locals", "vars", "setattr", "delattr",
                       "__import__", "breakpoint", "exit", "quit", "print", "id", "hash", "iter", "next"}
_MAX_DEPTH = 200
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard",
             "sort", "reverse", "popitem", "__setitem__", "__delitem__"}
_MAX_UNROLL = 20_000    # iterations of a loop unrolled while compiling that compute Python values only: 100,000
                        # appends of Python ints to a list took 12 s
# iterations of an unrolled loop that each emit code (compiled anew): the compile time grows faster than linearly,
# 200 took 1.4 s, 400 3.5 s, 600 6.6 s (a body of a reduction along an axis the loop variable picks)
_MAX_UNROLLED_CODE = 400
_RUNTIME_LOOP_MIN = 8     # iterations of a compile-time range loop that writes arrays, above which it is tried as a
                          # run-time loop
_RUNTIME_LOOP_MIN_ANY = 64   # the same for any other loop body: unrolled, 1000 iterations of `s += x[i % 3]` took
                             # 10 s to compile and 3000 took 104 s (each iteration's code is typed and lowered anew)


def py(fn, *args, **kwargs):
    """Run Python's own semantics on compile-time values; what it raises is the user's error, not ours."""
    try:
        return fn(*args, **kwargs)
    except UserError:
        raise
    except _USER_EXCEPTIONS as e:
        raise UserError(f"{type(e).__name__}: {e}", type(e)) from None


def writes_arrays(stmts) -> bool:
    """Whether statements store into a subscript (`x[i] = ...`, `x[i] += ...`) or pass `out=`."""
    for node in (n for st in stmts for n in ast.walk(st)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            return True
        if isinstance(node, ast.keyword) and node.arg == "out":
            return True
    return False


TRUTH_ONLY = "_transpiler_truth_only"


def truth_only(node):
    """Mark an `and`/`or` (or a chained comparison) whose truth alone is used (an `if`'s or `while`'s test, `not`'s operand, bool()'s), and
    those nested in it as its operands: there it is the operands' combined truth, whatever their types. Returns
    node."""
    if isinstance(node, ast.Compare) and len(node.ops) > 1:
        setattr(node, TRUTH_ONLY, True)    # a chained comparison: `a < b and b < c`
    elif isinstance(node, ast.BoolOp):
        setattr(node, TRUTH_ONLY, True)
        for operand in node.values:
            truth_only(operand)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        truth_only(node.operand)
    return node


class _Speculation:
    """What a tried run-time loop may change, saved so that a failed try leaves no trace."""

    def __init__(self, interp, frame):
        b = interp.b
        self.interp, self.frame, self.b = interp, frame, b
        self.locals = dict(frame.locals)
        self.memory = interp.memory.snapshot()
        self.eqns, self.checks, self.failed, self.statement_guards = len(b.eqns), len(b.program.checks), \
            list(b.failed), b.guards
        self.data_sized_checked = {k: (eqns, set(seen)) for k, (eqns, seen) in b._data_sized_checked.items()}
        env = b.env
        self.parent, self.guards, self.nonzero = dict(env.parent), len(env.guards), len(env.nonzero)
        outliner = interp.outliner
        self.sizes, self.outlined, self.programs = dict(outliner.size), dict(outliner.outlined), len(outliner.programs)

    def rollback(self) -> None:
        b, outliner = self.b, self.interp.outliner
        del b.eqns[self.eqns:]
        del b.program.checks[self.checks:]
        b.failed, b.guards = list(self.failed), self.statement_guards
        b._data_sized_checked = self.data_sized_checked
        b.env.parent.clear()
        b.env.parent.update(self.parent)
        del b.env.guards[self.guards:]
        del b.env.nonzero[self.nonzero:]
        outliner.size.clear()
        outliner.size.update(self.sizes)
        outliner.outlined.clear()
        outliner.outlined.update(self.outlined)
        del outliner.programs[self.programs:]
        self.frame.locals = dict(self.locals)
        self.interp.memory.restore(b, self.memory)   # names elsewhere re-derived from the saved versions


def _is_user_object(v) -> bool:
    """An instance of a user's class (its attributes may hold compile-time containers): not a module, class,
    function, or a NumPy or compiler object."""
    if isinstance(v, (type, types.ModuleType, types.FunctionType, types.MethodType)) or not hasattr(v, "__dict__"):
        return False
    module = type(v).__module__ or ""
    return not module.startswith(("numpy", "transpiler", "builtins", "functools"))


_NOT_REBOUND = attributes_module._MISSING


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Raise(Exception):
    """A `raise` in a run-time branch or loop body: its check is set; nothing after it on that path runs."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter:
    def __init__(self, builder: Builder, argument_objects=()):
        self.b = builder
        self.outliner = Outliner(self)
        self.control = Control(self)
        self.frame_of_call = None
        self.active: list = []   # functions being interpreted, for the recursion check
        self.last_return = None  # the compiled function's last `return` interpreted: where a refused result points
        self.frames: list = []   # frames being interpreted (innermost last): names re-derived after a write
        self.speculating = 0     # > 0 while a compile-time loop is tried as a run-time loop
        # the containers that existed when each run-time loop or branch being interpreted began (innermost last)
        self.outer_containers: list = []
        self.memory = Memory(self.frames, argument_objects)
        builder.memory = self.memory
        builder.guard = self.guard_write
        self.top = builder.program   # the compiled function's program (not an outlined callee's)
        self.compiled_fn = None      # the function compiled (run), whose `__code__` api.Transpiled checks itself
        self.implicit: dict = {}     # id(module-level array) -> its input Var (module_array)
        self.module_level: dict = {}  # id -> module-level object whose attributes are guarded (module_value)
        self.compared_whole: set = set()   # ids of module-level containers guarded by a snapshot of their contents
        self.formatted_runtime = 0   # run-time values formatted into strings so far (expr_FormattedValue)
        self.in_message = 0          # > 0 while an exception's message is evaluated (`raise`, `assert`)
        self.attributes = Attributes(self)   # attributes the program rebinds (attributes.py)
        self.attribute_writes: list = []     # (object index, name, value, key) of each, as the call leaves them

    def guard_write(self, store) -> None:
        self.control.guarded(store, None)

    # ---- entry points -------------------------------------------------------------------------------------------
    def run(self, fn, args: list, kwargs: dict):
        token = current_interpreter.set(self)
        self.compiled_fn = fn      # (its own `__code__` is checked by api.Transpiled at each call)
        program = self.b.program
        for v, name in zip(program.inputs, program.input_names):
            if not v.weak and not v.scalar:
                self.memory.argument(v, name)
        try:
            try:
                value = self.call(fn, args, kwargs)
            except _Raise:      # every path raises at run time: one of their check flags is always set
                value = None
            program.writes = self.memory.arguments_written()
            return self._returned_with_attributes(value)
        except UserError as e:  # while binding the arguments, or about the returned value (at the last `return`)
            code = getattr(fn, "__code__", None)
            filename, line = (code.co_filename, code.co_firstlineno) if code else ("<unknown>", 0)
            at = (self.last_return.lineno, self.last_return.col_offset) if self.last_return and code else (line, 0)
            raise compile_error(str(e), filename, *at, e.kind) from None
        finally:
            current_interpreter.reset(token)

    def _returned_with_attributes(self, value):
        """The returned value as the call rebuilds it, and the rebound attributes' values as the call sets them
        (`attribute_writes`): rebuilt together, so that one array returned and held by an attribute (or views of one
        array) is one object (share memory) after the call, as in NumPy."""
        returned = self.memory.as_returned(value, self.b)
        final = self.attributes.final()
        if not final:
            return returned
        # (an attribute rebound to an object made in compiled code: made anew after each call, as a returned one)
        final = [(index, name, self.attributes.returned(v), key) for index, name, v, key in final]
        for index, name, v, key in final:
            try:
                writable_value(v, self.attributes.indexes, key)
                self.memory.as_returned(v, self.b)
            except UserError as e:
                raise compile_error(f"{e} (the value of the attribute '{key}' after the call)",
                                    *self.attributes.where[key], e.kind) from None
        returned, values = self.memory.as_returned((value, [v for _, _, v, _ in final]), self.b)
        self.attribute_writes = [(index, name, v, key) for (index, name, _, key), v in zip(final, values)]
        return returned

    # ---- errors -------------------------------------------------------------------------------------------------
    @staticmethod
    def error_at(node: ast.AST, frame: Frame, message: str, kind=None) -> CompileError:
        return compile_error(message, frame.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), kind)

    def _located(self, node, frame, thunk):
        b = self.b
        outer, outer_user = b.loc, b.user_loc
        user = not in_library(frame.filename)
        loc = Loc(frame.filename, node.lineno, node.col_offset)
        if user:
            b.user_loc = loc     # (set first: the loc's setter gives it to the shape guards' messages)
        b.loc = loc
        try:
            return thunk()
        except UserError as e:
            raise self.error_at(node, frame, str(e), e.kind) from None
        except CompileError as e:
            if user and in_library(e.filename):    # the user's call of a library function, not the library's line
                raise relocated_to_call(e, frame.filename, node.lineno, node.col_offset) from None
            raise
        except (_Return, _Raise, _Break, _Continue):
            raise
        except Exception as e:   # a compiler bug: remember the innermost place it happened
            if not hasattr(e, "transpiler_loc"):
                e.transpiler_loc = self.b.loc
            raise
        finally:
            b.user_loc = outer_user
            b.loc = outer

    # ---- statements ---------------------------------------------------------------------------------------------
    def exec_block(self, stmts: list, frame: Frame, top: bool = False) -> None:
        """Run statements; `top` marks a function's own body, where a run-time `if` may `return`."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, (ast.For, ast.While)) and loop_exits.has_exits(stmt):
                # break/continue/return as flags; the rest of the block follows the rewritten loop, so that its
                # `if returned: return value` takes the rest as its continuation
                return self.exec_block(loop_exits.rewritten(stmt) + stmts[i + 1:], frame, top)
            if isinstance(stmt, ast.If):
                if self._located(stmt, frame, lambda: self.run_if(stmt, frame, stmts[i + 1:], top)):
                    return
            elif (chosen := self.control.chosen_write(stmt, frame)) is not None:
                # a write into an array chosen at run time: the statement on each array, as the flag decides
                self._located(stmt, frame, lambda: self._run_time_region(self.control.run_chosen_write, stmt, frame,
                                                                         *chosen))
            else:
                # runs only if no check failed before it (where that matters), nor one of its own that an array it
                # makes fits in memory
                self._located(stmt, frame, lambda: self.control.guarded(lambda: self.exec(stmt, frame), frame))

    def run_if(self, stmt: ast.If, frame: Frame, rest: list, top: bool) -> bool:
        """True when the statements after the `if` were run as part of it (a return in a run-time branch, or in a
        compile-time branch whose run-time `if`s need the rest of the function as their continuation)."""
        test = self.eval(truth_only(stmt.test), frame)
        if not isinstance(test, Var):
            branch = stmt.body if self.truth(test, stmt.test, frame) else stmt.orelse
            if top and contains_return(branch):
                self.exec_block(branch + rest, frame, top=True)
                return True
            self.exec_block(branch, frame)
            return False
        if not top and (contains_return(stmt.body) or contains_return(stmt.orelse)):
            raise UserError("`return` inside a run-time `if` is supported at the top level of a function body only",
                            SyntaxError)
        consumed, value = self._run_time_region(self.control.run_if, stmt, frame, test, rest)
        if consumed:
            raise _Return(value)
        return False

    def exec(self, stmt: ast.stmt, frame: Frame) -> None:
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is None:
            raise self.error_at(stmt, frame, f"unsupported statement: {_describe(stmt)}", SyntaxError)
        self._located(stmt, frame, lambda: handler(stmt, frame))

    def stmt_Expr(self, s, frame):
        self.eval(s.value, frame)

    def stmt_Pass(self, s, frame):
        pass

    def stmt_Return(self, s, frame):
        value = self.eval(s.value, frame) if s.value is not None else None
        if row_lists.contains(value):
            if len(self.active) != 1:
                raise UserError("returning a list built by appends in a run-time loop from a function the compiled "
                                "function calls is not supported (compiled code keeps it as the rows of one array): "
                                "return np.stack(...) of it", TypeError)
            value = row_lists.returned(self, value)     # (the call makes the list)
        if len(self.active) == 1:    # the compiled function itself: what it returns must cross the boundary
            self.last_return = s
            value = self.attributes.returned(value)
            result_template(value, [], [])
        raise _Return(value)

    def stmt_Assign(self, s, frame):
        value = self.eval(s.value, frame)
        for target in s.targets:
            self.assign(target, value, frame)

    def stmt_AnnAssign(self, s, frame):
        if s.value is not None:
            self.assign(s.target, self.eval(s.value, frame), frame)

    def stmt_AugAssign(self, s, frame):
        """`x op= y`: on an array NumPy writes the result into x's memory (seen through every view of it); on
        anything else (Python values, NumPy scalars) it rebinds the name."""
        if isinstance(s.target, ast.Subscript):
            return self._augassign_item(s, frame)
        old = self.eval(s.target, frame)  # eval ignores ctx: the Store target reads as a load
        rhs = self.eval(s.value, frame)
        if _is_array_var(old):
            self.b.write(old, lambda: self.inplace(old, s.op, rhs))
            return
        if isinstance(old, (list, dict, set)):      # `out += [v]` extends the list itself
            self._no_speculation(f"`{type(old).__name__} op=`")
            self._no_outer_container_mutation(old, "an augmented assignment (`op=`)")
        self.assign(s.target, self.binop(s.op, old, rhs, inplace=True), frame)

    def _augassign_item(self, s, frame):
        """x[i] op= y, as Python runs it: tmp = x[i]; tmp op= y; x[i] = tmp (x and i evaluated once). With basic
        indexing tmp is a view, so the in-place op has written x already."""
        container = self.eval(s.target.value, frame)
        index = self.eval(s.target.slice, frame)
        if _is_array_var(container) and indexing.is_mask(index):
            return self._augassign_masked(s, container, index, frame)
        old = self._located(s.target, frame, lambda: self.subscript(container, index))
        rhs = self.eval(s.value, frame)
        if _is_array_var(old):
            new = self.inplace(old, s.op, rhs)
            if isinstance(old.ref, Ref) and old.ref.path and isinstance(container, Var) \
                    and old.ref.buffer is getattr(self.memory.ref_of(container), "buffer", None):
                self.b.write(old, lambda: new)     # a view of x (not a view of a copy: x[ids, None])
                return
        else:
            new = self.binop(s.op, old, rhs, inplace=True)
        self._located(s.target, frame, lambda: self.setitem(container, index, new, s.target, frame))

    def _augassign_masked(self, s, x: Var, mask, frame):
        """x[mask] op= v: with one v for every selected element, x op v where the mask is set; else as Python runs
        it, tmp = x[mask]; tmp op= v; x[mask] = tmp (v one value or row per selected element)."""
        rhs = self.eval(s.value, frame)
        if (rhs.ndim if isinstance(rhs, Var) else np.ndim(rhs)) != 0:
            old = self._located(s.target, frame, lambda: self.subscript(x, mask))
            new = self.inplace(old, s.op, rhs)
            return self._located(s.target, frame, lambda: self.setitem(x, mask, new, s.target, frame))
        mask = indexing.as_var(self.b, mask)
        self._located(s, frame, lambda: self.b.write(x, lambda: indexing.masked_merge(
            self.b, x, mask, self.inplace(x, s.op, rhs))))

    def inplace(self, old: Var, op, rhs) -> Var:
        """The value `x op= y` writes into the array x: `op(x, y, out=x)`."""
        return numpy_api.into_out(self.b, old, self.binop(op, old, rhs), _ufunc_name(op))

    def stmt_For(self, s, frame):
        """(A loop with break/continue/return never gets here: exec_block runs its rewritten form.)"""
        iterable = self._for_iterable(s.iter, frame)
        if isinstance(iterable, _RowTuples):
            return self._for_row_tuples(s, frame, iterable)
        if isinstance(iterable, RuntimeRange):
            if isinstance(iterable.step, (int, np.integer)) and not isinstance(iterable.step, bool) \
                    and iterable.step < 0:
                return self._for_reversed(s, frame, iterable)
            return self._run_time_region(self.control.run_for, s, frame, iterable)
        if isinstance(iterable, row_lists.RowList):
            iterable = row_lists.iterated(self, iterable)
        elif isinstance(iterable, row_lists.Building):
            iterable._refuse()
        if isinstance(iterable, NdIndex):
            iterable = self._for_ndindex(s, frame, iterable)
            if iterable is None:
                return
        if isinstance(iterable, Var):
            if not iterable.ndim:
                raise UserError("iteration over a 0-d array", TypeError)
            n = self.b.env.find(iterable.shape[0])
            if not (isinstance(n, int) and n <= _RUNTIME_LOOP_MIN):
                return self._for_rows(s, frame, iterable)
            iterable = self.iterate_array(iterable)     # a few rows: unrolled
        why_unrolled = _why_unrolled(iterable, s)
        if isinstance(iterable, range) and not s.orelse \
                and len(iterable) > (_RUNTIME_LOOP_MIN if writes_arrays(s.body) else _RUNTIME_LOOP_MIN_ANY):
            why_unrolled = self._speculate_runtime_loop(s, frame, iterable)
            if why_unrolled is None:
                return
        user_operators.refuse_native(self, None, [iterable], user_operators.ITERATING, False, "a for loop over")
        items = py(list, self.module_items(iterable))
        unrolled = _Unrolled(self, s, frame, len(items), why_unrolled)
        for item in items:
            unrolled.count(lambda: (self.assign(s.target, item, frame), self.exec_block(s.body, frame)))
            if frame.locals.get(getattr(s, "break_flag", None)) is True:
                return      # a break known at compile time
        self.exec_block(s.orelse, frame)

    def module_items(self, container):
        """A compile-time list, tuple or dict whose arrays the program reads all of (a loop over it, `zip`,
        `enumerate`, `.values()`): its length is guarded at each call and each of its arrays goes through
        module_array (guarded; large ones kernel inputs), so a module-level container changed after compiling is
        never read stale. Returns the container with its arrays so replaced (a new one if any was)."""
        if not isinstance(container, (list, tuple, dict)):
            return container
        items = list(container.items()) if isinstance(container, dict) else list(enumerate(container))
        if self.module_level.get(id(container)) is container and id(container) not in self.compared_whole:
            # every item of a module-level container (`for layer in LAYERS: x = x * layer.s`, `a, eps = PARAMS`,
            # `for k, v in TABLE.items()`): objects and containers by identity (their attributes guarded when
            # read), numbers by value; arrays below
            self.top.globals_read.append((container, LENGTH, len(container)))
            for k, a in items:
                if _holds_attributes(a):
                    self.module_level_item(container, k, a)
                elif not isinstance(a, np.ndarray):
                    self.module_value(container, k, a)     # (a function, a dtype: by identity)
        if not any(isinstance(a, np.ndarray) for _, a in items):
            return container
        self.b.program.globals_read.append((container, LENGTH, len(container)))
        items = [(k, self.module_array(container, k, a) if isinstance(a, np.ndarray) else a) for k, a in items]
        return dict(items) if isinstance(container, dict) else type(container)(a for _, a in items)

    def _for_ndindex(self, s, frame, it: NdIndex):
        """`for idx in np.ndindex(shape)` / `for idx, v in np.ndenumerate(a)`: one run-time loop over the product
        of the dims, each index tuple unraveled from the loop counter (C order). A few iterations known at compile
        time are unrolled instead: returns their items."""
        getitem = self._getitem_handler()

        def item(index):
            if it.array is None:
                return index
            x = it.array
            return index, getitem(self.b, self.memory.rederive(self.b, x) if isinstance(x.ref, Ref) else x, index)
        if all(isinstance(d, (int, np.integer)) for d in it.dims) and math.prod(it.dims) <= _RUNTIME_LOOP_MIN:
            return [item(tuple(i)) for i in itertools.product(*(range(int(d)) for d in it.dims))]
        total = 1
        for d in it.dims:
            total = self.binop(ast.Mult(), total, d)

        def unravel(k):
            index = []
            for d in it.dims[:0:-1]:           # the last dim varies fastest
                index.append(self.binop(ast.Mod(), k, d))
                k = self.binop(ast.FloorDiv(), k, d)
            return item(tuple([k] + index[::-1]) if it.dims else ())
        self._run_time_region(self.control.run_for, s, frame, RuntimeRange(0, total, 1), item=unravel)
        return None

    def _for_reversed(self, s, frame, rng: RuntimeRange):
        """`for i in range(start, stop, -c)` with run-time bounds: scf.for counts up by one, so the k-th of its
        ceil((start - stop) / c) iterations (none when that is not positive: scf.for compares signed) binds
        start - k * c. The index keeps bounds [stop + 1, start + 1) where those are dims, so `x[i]` in
        `range(n - 1, -1, -1)` needs no check, as in a forward loop."""
        c = -int(rng.step)
        # Python's range yields Python ints whatever the bounds' type (`range(a[0], b[0], -3)` of int32 elements):
        # the arithmetic below and the index are Python ints (int64, checked), as a forward loop's index is; in the
        # bounds' own dtype, `s += i` wrapped at int32 where Python's sum grows
        start, stop = (self._python_int(v) for v in (rng.start, rng.stop))
        trips = self.binop(ast.FloorDiv(), self.binop(ast.Add(), self.binop(ast.Sub(), start, stop), c - 1), c)
        past = [self.numpy_call(np.greater, [v, np.uint64(np.iinfo(np.int64).max)], {}) for v in (rng.start, rng.stop)
                if isinstance(v, Var) and v.dtype.kind == "u" and v.dtype.itemsize == 8]
        if past:   # a uint64 bound past int64 wrapped negative (range(2**64 - 1, 0, -2**62) ran zero times)
            past = past[0] if len(past) == 1 else self.numpy_call(np.logical_or, past, {})
            self.b.check(past, OverflowError, "range() with a uint64 bound past 2**63 - 1: the loop's index is an "
                                              "int64")
            trips = self.numpy_call(np.where, [past, 0, trips], {})
        lo, hi = as_dim(rng.stop), as_dim(rng.start)
        small = small_int(rng.start) and small_int(rng.stop)

        def index(k):
            i = self.binop(ast.Sub(), start, self.binop(ast.Mult(), k, c))
            if isinstance(i, Var):
                if lo is not None and hi is not None:
                    i.bounds = (derived("add", lo, 1), derived("add", hi, 1))
                i.small = small
            return i
        return self._run_time_region(self.control.run_for, s, frame, RuntimeRange(0, trips, 1), item=index)

    def _for_iterable(self, node, frame):
        """What a `for` loop iterates. `enumerate(x)` / `zip(x, y, ...)` over run-time arrays (or run-time ranges)
        become one run-time loop (`_RowTuples`) instead of Python's enumerate over a Var, which needs the number of
        rows while compiling and unrolls them."""
        if not isinstance(node, ast.Call):
            return self.eval(node, frame)

        def call():
            fn, args, kwargs = self._call_parts(node, frame)
            if fn is builtins.enumerate or fn is builtins.zip:
                rows = _RowTuples.of(fn, args, kwargs)
                if rows is not None and any(self._run_time_length(part) for part in rows.parts):
                    return rows
            return self.call(fn, args, kwargs)
        return self._located(node, frame, call)

    def _run_time_length(self, part) -> bool:
        """Whether iterating `part` (an array's rows, a range) is a run-time loop rather than a few unrolled items."""
        if isinstance(part, (range, RuntimeRange)):
            return isinstance(part, RuntimeRange)
        n = self.b.env.find(part.shape[0])
        return not (isinstance(n, int) and n <= _RUNTIME_LOOP_MIN)

    def _for_row_tuples(self, s, frame, it: "_RowTuples"):
        """`for i, row in enumerate(x)` / `for a, b in zip(x, y)` as one run-time loop over as many iterations as
        the shortest part has items (zip stops there, as Python's does); each iteration binds the tuple of the
        count and each array's row as it is at that iteration (the body may write the arrays)."""
        getitem = self._getitem_handler()
        lengths = []
        for part in it.parts:
            if isinstance(part, (range, RuntimeRange)):
                if not isinstance(part.step, (int, np.integer)) or isinstance(part.step, bool):
                    raise UserError("zip() over a range whose step is known only at run time is not supported: "
                                    "zip the arrays and compute the index in the loop", TypeError)
                # Python's len(range): ceil((stop - start) / step) items, none when that is not positive
                c = abs(int(part.step))
                span = self.binop(ast.Sub(), *((part.stop, part.start) if part.step > 0 else (part.start, part.stop)))
                count = self.binop(ast.FloorDiv(), self.binop(ast.Add(), span, c - 1), c)
                lengths.append(max(count, 0) if isinstance(count, int) else self.call(np.maximum, [count, 0], {}))
            else:
                lengths.append(numpy_api.dim_value(self.b, part, 0))
        n = lengths[0]
        for d in lengths[1:]:
            if isinstance(n, int) and isinstance(d, int):
                n = min(n, d)
            elif getattr(n, "size_of", None) is None or n.size_of != getattr(d, "size_of", None):  # (one dim: as is)
                n = self.call(np.minimum, [n, d], {})

        def item_of(part, i):
            if isinstance(part, (range, RuntimeRange)):
                return self.binop(ast.Add(), part.start, self.binop(ast.Mult(), i, int(part.step)))
            return getitem(self.b, self.memory.rederive(self.b, part) if isinstance(part.ref, Ref) else part, i)

        def item(i):
            items = tuple(item_of(part, i) for part in it.parts)
            if it.count_from is None:
                return items
            return (self.binop(ast.Add(), it.count_from, i) if not _is_zero(it.count_from) else i,) + items
        return self._run_time_region(self.control.run_for, s, frame, RuntimeRange(0, n, 1), item=item)

    def _python_int(self, value):
        """A range bound as the Python int range() takes: a run-time NumPy integer as a weak int64 (its size
        attributes kept: a dim stays one)."""
        if not isinstance(value, Var) or value.weak and value.dtype == dtypes.INT64:
            return value
        v = self.b.emit1("convert" if value.dtype != dtypes.INT64 else "copy", [value], dtypes.INT64, (), weak=True,
                         dtype=dtypes.INT64)
        v.size_of, v.small = value.size_of, getattr(value, "small", False)
        return v

    def _for_rows(self, s, frame, x: Var):
        """`for row in x` as a run-time loop: each row a view of x's contents at that iteration."""
        getitem = self._getitem_handler()
        rows = RuntimeRange(0, numpy_api.dim_value(self.b, x, 0), 1)
        # each iteration reads x as it is then (the body may write it); an Alias is read as it is (if its arrays
        # are written the read is refused as stale)
        return self._run_time_region(self.control.run_for, s, frame, rows, item=lambda i: getitem(
            self.b, self.memory.rederive(self.b, x) if isinstance(x.ref, Ref) else x, i))

    def _speculate_runtime_loop(self, s, frame, rng: range) -> tuple | None:
        """A long loop over a compile-time range, compiled as a run-time loop (one body, not one per iteration:
        unrolled, its writes make bufferization's analysis quadratic, and any body costs compile time per iteration). If the body needs the
        loop variable at compile time (to index a list, as an axis ...) it fails, everything it did is undone, and
        the loop is unrolled instead. A compile-time container mutated in the body also stops it (it would run
        once, not once per iteration). Returns None, or why the loop cannot be a run-time loop."""
        state = _Speculation(self, frame)
        self.speculating += 1
        try:
            if rng.step == 1:
                self._run_time_region(self.control.run_for, s, frame, RuntimeRange(rng.start, rng.stop, 1))
            else:     # the k-th iteration binds start + k * step (scf.for counts up by one)
                self._run_time_region(self.control.run_for, s, frame, RuntimeRange(0, len(rng), 1),
                                      item=lambda k: self.binop(
                    ast.Add(), rng.start, self.binop(ast.Mult(), k, rng.step)))
        except (UserError, CompileError) as e:
            state.rollback()
            return _speculation_failed(f"{e.message} (line {e.lineno})" if isinstance(e, CompileError) else str(e))
        finally:
            self.speculating -= 1
        self.assign(s.target, rng[-1], frame)     # as Python leaves it
        return None

    def stmt_While(self, s, frame):
        unrolled = _Unrolled(self, s, frame, None, ("its condition is known while compiling",
                                                    "Write it as a `for` loop over a range"))
        while True:
            test = self.eval(truth_only(s.test), frame)
            if isinstance(test, Var):   # from here on the condition is known only at run time
                return self._run_time_region(self.control.run_while, s, frame)
            if not self.truth(test, s.test, frame):
                break
            unrolled.count(lambda: self.exec_block(s.body, frame))
        self.exec_block(s.orelse, frame)

    def stmt_Break(self, s, frame):
        raise _Break()

    def stmt_Continue(self, s, frame):
        raise _Continue()

    def stmt_FunctionDef(self, s, frame):
        if s.decorator_list:
            raise self.error_at(s.decorator_list[0], frame, "decorators on nested functions are not supported")
        frame.locals[s.name] = self.make_closure(s, frame, s.name)

    def stmt_Assert(self, s, frame):
        """On a run-time value, a check (`if not test: raise AssertionError(msg)`): the call raises it, and
        nothing after it runs."""
        test = self.eval(truth_only(s.test), frame)
        if isinstance(test, Var):
            formatted = self.formatted_runtime
            msg = self._message(s.msg, frame) if s.msg is not None else ""
            if contains_var(msg) or self.formatted_runtime != formatted:
                raise self.error_at(s.msg, frame, "the message of an assert on a run-time value must be known at "
                                    "compile time", TypeError)
            failed = self.b.emit1("not", [self.control.condition(test)], dtypes.BOOL, ())
            self.b.check(failed, AssertionError, str(msg), located=False)
            return
        if not test:
            msg = self._message(s.msg, frame) if s.msg is not None else "assertion failed"
            raise self.error_at(s, frame, str(msg), AssertionError)

    def stmt_Raise(self, s, frame):
        """Reached while compiling, a `raise` is a CompileError of its type. In a run-time branch or loop body
        it is a check that is always set on that path: the call raises it, and nothing after it runs."""
        formatted = self.formatted_runtime
        exc = self._message(s.exc, frame) if s.exc is not None else RuntimeError("re-raise")
        if isinstance(exc, type):
            exc = exc()
        kind = type(exc) if isinstance(exc, BaseException) else None
        if self.control.conditional and kind is not None and s.exc is not None and s.cause is None:
            if self.formatted_runtime != formatted:
                raise self.error_at(s.exc, frame, "the message of a `raise` under a run-time condition must be "
                                    "known at compile time (it shows a run-time value)", TypeError)
            one = len(exc.args) == 1 and isinstance(exc.args[0], str)     # KeyError's str() quotes its argument
            self.b.check(self.b.const(np.asarray(True)), kind, exc.args[0] if one else str(exc), located=False)
            raise _Raise()
        raise self.error_at(s, frame, str(exc) or type(exc).__name__, kind)

    def _message(self, node, frame):
        """An exception (or an assert's message), where a run-time value formatted into text shows as a placeholder:
        a CompileError's message can show it; a run-time `raise` or `assert` refuses such a message."""
        self.in_message += 1
        try:
            return self.eval(node, frame)
        finally:
            self.in_message -= 1

    def formatted(self, value: Var) -> str:
        """A run-time value as text: only inside an exception's message (above). Anywhere else the text would be
        made once, while compiling, without the value: refused."""
        if not self.in_message:
            raise UserError("a run-time value formatted as text (an f-string, str(), repr(), format()) is only "
                            "supported in an exception's message: the text would be made while compiling, without "
                            "the value", TypeError)
        self.formatted_runtime += 1     # (a run-time `raise` refuses a message that shows one)
        return f"<run-time {value.type_text()}>"

    def stmt_Delete(self, s, frame):
        for t in s.targets:
            if isinstance(t, ast.Attribute):
                raise self.error_at(t, frame, "deleting an attribute (`del obj.name`) is not supported in compiled "
                                    "code", TypeError)
            if not isinstance(t, ast.Name):
                raise self.error_at(t, frame, "only `del name` is supported")
            frame.locals.pop(t.id, None)

    def stmt_Import(self, s, frame):
        for alias in s.names:
            module = py(importlib.import_module, alias.name)
            if alias.asname:
                frame.locals[alias.asname] = module
            else:
                frame.locals[alias.name.split(".")[0]] = importlib.import_module(alias.name.split(".")[0])

    def stmt_ImportFrom(self, s, frame):
        module = py(importlib.import_module, s.module)
        for alias in s.names:
            frame.locals[alias.asname or alias.name] = py(getattr, module, alias.name)

    # ---- assignment ---------------------------------------------------------------------------------------------
    def assign(self, target, value, frame: Frame) -> None:
        if isinstance(target, ast.Name):
            frame.locals[target.id] = value
            _name_int(value, target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value, frame)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, frame)
            index = self.eval(target.slice, frame)
            self.setitem(container, index, value, target, frame)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, frame)
            where = (frame.filename, target.lineno, target.col_offset)
            self._located(target, frame, lambda: self.attributes.write(obj, target.attr, value, where))
        else:
            raise self.error_at(target, frame, f"cannot assign to {_describe(target)}")

    def unpack(self, target, value, frame):
        if isinstance(value, Var):
            value = self.iterate_array(value)
        user_operators.refuse_native(self, None, [value], user_operators.ITERATING, False, "unpacking")
        items = py(list, self.module_items(value))    # (`w, b = PARAMS`: each item guarded)
        starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
        if starred:
            k = starred[0]
            after = len(target.elts) - k - 1
            if len(items) < len(target.elts) - 1:
                raise UserError(f"not enough values to unpack (expected at least {len(target.elts) - 1}, "
                                f"got {len(items)})", ValueError)
            groups = items[:k] + [items[k:len(items) - after]] + items[len(items) - after:]
        else:
            if len(items) != len(target.elts):
                raise UserError(f"cannot unpack {len(items)} values into {len(target.elts)} names", ValueError)
            groups = items
        for t, v in zip(target.elts, groups):
            self.assign(t.value if isinstance(t, ast.Starred) else t, self._as_of_now(v), frame)

    def _as_of_now(self, value):
        """A value about to be assigned by an unpacking, as NumPy would read it now: a view of an array that an
        earlier target of the same statement wrote reads that write (`x[:, 0], x[:, 1] = x[:, 1], x[:, 0]` copies
        the second column into both, as NumPy does: the right side's views are read as each target is assigned)."""
        if isinstance(value, Var):
            ref = value.ref
            if isinstance(ref, Ref) and ref.buffer in self.memory.current \
                    and self.memory.current[ref.buffer] is not ref.base:
                return self.memory.rederive(self.b, value)
            return value
        if isinstance(value, list):
            return [self._as_of_now(v) for v in value]
        return value

    def iterate_array(self, x: Var) -> list:
        if not x.shape or not isinstance(x.shape[0], int):
            raise UserError("cannot unpack an array whose first dim is not known at compile time", TypeError)
        getitem = numpy_api.METHODS.get("__getitem__")
        if getitem is None:
            raise UserError("indexing run-time arrays is not supported yet", TypeError)
        return [getitem(self.b, x, i) for i in range(x.shape[0])]

    def setitem(self, container, index, value, node, frame):
        if isinstance(container, np.ndarray) and (contains_var(value) or contains_var(index)):
            container = self.lift(container, frame)
        if isinstance(container, Var):
            if container.scalar or container.weak:
                raise UserError(f"'numpy.{container.dtype}' object does not support item assignment", TypeError)
            self.b.write(container, lambda: indexing.setitem(self.b, container, index, value))
            return
        if user_operators.item_method(container, "__setitem__") is not None:
            user_operators.call_item_method(self, container, "__setitem__", [index, value])
            return
        if _is_global_object(container, frame):
            raise UserError("mutating a module-level object from compiled code is not supported", TypeError)
        self._no_speculation("assignment into a compile-time container")
        self._no_outer_container_mutation(container, "an assignment into an item")
        py(container.__setitem__, index, value)

    def _run_time_region(self, run, *args, **kwargs):
        """A run-time loop or branch (`run`, of Control): its body is interpreted once (or a few times, to a
        fixpoint) while compiling, so a compile-time container that exists before it cannot follow its mutations
        there (an append would happen once, whatever the trip count or the condition): those are refused."""
        self.outer_containers.append(self._reachable_containers())
        try:
            if run in (self.control.run_for, self.control.run_while):
                if lists := row_lists.appended_lists(self, args[0], args[1]):
                    return row_lists.run_loop(self, run, *args, lists=lists, **kwargs)   # (`hs.append(h)` in it)
                if getattr(args[0], "row_lists", False):      # (a loop nested in such a loop)
                    return row_lists.run_nested(self, run, *args, **kwargs)
            return run(*args, **kwargs)
        finally:
            self.outer_containers.pop()

    def _reachable_containers(self) -> dict:
        """The lists, dicts and sets the frames in scope can reach now (through other containers too), by id."""
        found: dict = {}
        pending = [v for frame in self.memory.frames_in_scope() for v in frame.locals.values()]
        while pending:
            v = pending.pop()
            if isinstance(v, (list, dict, set)) and id(v) not in found:
                found[id(v)] = v
                pending.extend(v.values() if isinstance(v, dict) else v)
            elif isinstance(v, tuple):
                pending.extend(v)
            elif _is_user_object(v) and id(v) not in found:    # `self.items.append(i)`: an attribute's list
                found[id(v)] = v
                pending.extend(vars(v).values())
        return found

    def _no_outer_container_mutation(self, container, what: str) -> None:
        if any(id(container) in outer for outer in self.outer_containers):
            raise UserError(f"{what} of a compile-time {type(container).__name__} made before a run-time loop or "
                            "`if`, inside it: the compiler would run it once while compiling, whatever the trip count "
                            "or the condition; build the container before the loop (or use an array, written in "
                            "place)", TypeError)

    def _no_speculation(self, what: str) -> None:
        if self.speculating:
            raise UserError(f"{what} inside a loop tried as a run-time loop", TypeError)

    def lift(self, array: np.ndarray, frame) -> Var:
        """A compile-time array that receives a run-time value becomes a run-time array (a constant to start
        from). Only an array no other compile-time value shares memory with: views of it could not follow."""
        if _is_global_object(array, frame):
            raise UserError("mutating a module-level array from compiled code is not supported", TypeError)
        frames = list(self.memory.frames_in_scope())
        others = [v for f in frames for v in f.locals.values()
                  if isinstance(v, np.ndarray) and v is not array and np.shares_memory(v, array)]
        if others or array.base is not None:
            raise UserError("writing a run-time value into a compile-time array that other arrays view is not "
                            "supported: create the array with np.zeros/np.empty/np.full inside the function",
                            TypeError)
        v = self.b.const(array.copy())
        for f in frames:
            for name, value in list(f.locals.items()):
                if value is array:
                    f.locals[name] = v
        return v

    def subscript(self, value, index):
        """value[index] (evaluated operands)."""
        if isinstance(value, row_lists.RowList):
            return row_lists.getitem(self, value, index)
        if isinstance(value, row_lists.Building):
            value._refuse()
        if isinstance(value, Var):
            return self.call(BoundMethod("__getitem__", value, self._getitem_handler()), [index], {})
        if _index_holds_var(index) and isinstance(value, (np.ndarray, list, tuple)):
            if isinstance(value, np.ndarray):
                return self.call(BoundMethod("__getitem__", self.b.const(value), self._getitem_handler()),
                                 [index], {})
            raise UserError("indexing a Python list with a run-time value is not supported", TypeError)
        if isinstance(value, dict):
            _no_run_time_key(index)
        if isinstance(index, slice) and isinstance(value, (list, tuple)) and self.module_level.get(id(value)) is value:
            value = self.module_items(value)    # `LAYERS[1:]`: a new list, its items guarded in the module's one
        if user_operators.item_method(value, "__getitem__") is not None:
            return user_operators.call_item_method(self, value, "__getitem__", [index])
        result = py(lambda: value[index])
        if isinstance(value, (list, tuple, dict)) and (isinstance(index, int) or isinstance(value, dict)):
            if self.module_level.get(id(value)) is value and _holds_attributes(result):
                self.module_level_item(value, index, result)     # LAYERS[0] of objects: their attributes guarded
            if isinstance(result, np.ndarray):
                return self.module_array(value, index, result)             # W[0] of a module-level list
            if isinstance(result, (list, tuple, dict)) and _holds_arrays(result):
                self.b.program.globals_read.append((value, index, result))   # PARAMS["blocks"]: the same list
            elif self.module_level.get(id(value)) is value and id(value) not in self.compared_whole \
                    and not _holds_attributes(result):
                self.module_value(value, index, result)   # PARAMS["eps"] beside arrays, ACTS["act"]
        return result

    # ---- expressions --------------------------------------------------------------------------------------------
    def eval(self, node: ast.expr, frame: Frame):
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is None:
            raise self.error_at(node, frame, f"unsupported expression: {_describe(node)}", SyntaxError)
        return self._located(node, frame, lambda: handler(node, frame))

    def expr_Constant(self, e, frame):
        return e.value

    def expr_Name(self, e, frame):
        value = frame.lookup(e.id)
        if isinstance(value, Undefined):
            raise UserError(value.why, NameError)
        cell = _closure_cell(frame, e.id)
        if cell is not None:     # a free variable: the enclosing function may rebind it after compiling
            if isinstance(value, np.ndarray):
                return self.module_array(cell, CELL, value)
            if isinstance(value, (list, tuple, dict)) and _holds_arrays(value):
                self.b.program.globals_read.append((cell, CELL, value))
            else:
                self.module_value(cell, CELL, value)
            return value
        if isinstance(value, (np.ndarray, list, tuple, dict)):
            root = frame
            while root.parent is not None:
                root = root.parent
            if root.globals.get(e.id) is value and e.id not in root.locals:
                if isinstance(value, np.ndarray):
                    return self.module_array(root.globals, e.id, value)
                if _holds_arrays(value):   # PARAMS rebound at module level: compiled again
                    self.b.program.globals_read.append((root.globals, e.id, value))
                    self.module_level[id(value)] = value
                    return value
        if not isinstance(value, np.ndarray) and e.id not in frame.locals:
            root = frame
            while root.parent is not None:
                root = root.parent
            if e.id not in root.locals and e.id in root.globals and root.globals[e.id] is value:
                self.module_value(root.globals, e.id, value)
        return value

    def module_value(self, namespace, key, value) -> None:
        """A module-level value other than an array that the program folds in (`K = 2`, `EPS`, a helper function
        `act`, `DT = np.float32`, `COEF = [1.0, 2.0]`, `config.EPS`, `CFG.eps`): guarded at each call
        (runtime/globals_guard.py: numbers, strings and containers of them by value, anything else by identity),
        so a module-level name rebound or changed after compiling compiles again, never runs stale."""
        if isinstance(value, (types.ModuleType, Var)) or isinstance(namespace, dict) \
                and str(namespace.get("__name__", "")).split(".")[0] in _LIBRARY_MODULES:
            return     # (the library's own helpers, stdlib/, are not the user's to rebind)
        compared = snapshot(value)
        self.top.globals_read.append((namespace, key, compared or value))
        if compared is not None and isinstance(value, (list, tuple, dict)):
            self.compared_whole.add(id(value))      # (its items need no entries of their own)
        if is_structure_object(value) or isinstance(value, (type, list, tuple, dict)):
            self.module_level[id(value)] = value     # its attributes (items) read later are module-level too

    def module_level_item(self, container, key, item) -> None:
        """An object or container held by a module-level container (`LAYERS[0]`, `for layer in LAYERS:`): guarded
        to be the same object, and module-level itself, so the attributes read from it are guarded too
        (`LAYERS[1].scale = 3.0` compiles again)."""
        self.top.globals_read.append((container, key, item))
        self.module_level[id(item)] = item

    def module_array(self, container, key, array: np.ndarray):
        """A module-level array read by the program (a global, `config.W`, `CFG.w`, `LAYERS[0]` ...): guarded at
        each call (runtime/globals_guard.py: the same object, and for small ones the same contents). One too large
        to compare at each call becomes an input of the kernel instead of a folded constant, passed as it is at
        every call: a change in place is then read, never stale."""
        self.b.program.globals_read.append((container, key, array))
        if array.nbytes <= MAX_COMPARED_BYTES or array.dtype not in dtypes.SUPPORTED_SET:
            return array
        if self.b.program is not self.top:     # inside a function being outlined: inline it (the input is the
            raise WritesArrays                 # compiled function's own)
        v = self.implicit.get(id(array))
        if v is None:
            v = Var(array.dtype, tuple(array.shape))
            name = f"<module-level array {key}>"
            self.memory.argument(v, name)      # returned (or a view of it returned): the module's array, as NumPy
            self.memory.ref_of(v).buffer.readonly = "mutating a module-level array from compiled code is not supported"
            self.top.inputs.append(v)
            self.top.input_names.append(name)
            self.top.implicit.append(array)
            self.implicit[id(array)] = v
        return v

    def expr_Tuple(self, e, frame):
        return tuple(self.eval_items(e.elts, frame))

    def expr_List(self, e, frame):
        return list(self.eval_items(e.elts, frame))

    def expr_Set(self, e, frame):
        return _hashed_set(self.eval_items(e.elts, frame))

    def eval_items(self, elts, frame) -> list:
        out = []
        for el in elts:
            if isinstance(el, ast.Starred):
                value = self.eval(el.value, frame)
                user_operators.refuse_native(self, None, [value], user_operators.ITERATING, False, "unpacking")
                out.extend(py(list, value))
            else:
                out.append(self.eval(el, frame))
        return out

    def expr_Dict(self, e, frame):
        out = {}
        for k, v in zip(e.keys, e.values):
            if k is None:
                py(out.update, self.eval(v, frame))
            else:
                key = self.eval(k, frame)
                _no_run_time_key(key)
                py(out.__setitem__, key, self.eval(v, frame))
        return out

    def expr_BinOp(self, e, frame):
        return self.binop(e.op, self.eval(e.left, frame), self.eval(e.right, frame))

    def binop(self, op, left, right, inplace: bool = False):
        if user_operators.handles_binary(op, left, right):
            return user_operators.binary(self, op, left, right, inplace)
        if self.speculating and isinstance(op, (ast.Pow, ast.LShift)) and any(
                isinstance(v, Var) and v.weak and v.dtype.kind in "iu" for v in (left, right)):
            # a loop index that is a Python int when unrolled grows without bound; as an int64 it would wrap
            self._no_speculation("`**` or `<<` of an int")
        if isinstance(left, Var) or isinstance(right, Var):
            result = self.numpy_call(OPERATOR_UFUNCS[type(op)], [left, right], {}, python_op=True)
            _shift_bounds(op, left, right, result)
            _same_int_expression(op, left, right, result)
            _name_int(result, _int_expression(op, left, right))
            return result
        if inplace and isinstance(left, list) and isinstance(op, ast.Add):
            left.extend(right)
            return left
        return py(PY_OPERATORS[type(op)], left, right)

    def expr_UnaryOp(self, e, frame):
        operand = self.eval(truth_only(e.operand) if isinstance(e.op, ast.Not) else e.operand, frame)
        if user_operators.handles_unary(e.op, operand):
            return user_operators.unary(self, e.op, operand)
        if isinstance(operand, Var):
            if isinstance(e.op, ast.Not):   # Python's truth of an array: only defined for one element; a bool
                return self.call(bool, [self.numpy_call(np.logical_not, [self.control.condition(operand)], {},
                                                        python_op=True)], {})
            return self.numpy_call(OPERATOR_UFUNCS[type(e.op)], [operand], {}, python_op=True)
        return py(PY_OPERATORS[type(e.op)], operand)

    def expr_BoolOp(self, e, frame):
        """Python's short-circuit `and`/`or`; once an operand is a run-time truth value the rest combine with
        np.logical_and/or (pure expressions: evaluating the rest has no effect to skip)."""
        is_and = isinstance(e.op, ast.And)
        value = None
        for i, operand in enumerate(e.values):
            value = self.eval(operand, frame)
            if isinstance(value, Var):
                return self._runtime_boolop(value, e.values[i + 1:], is_and, frame, e)
            if self.truth(value, operand, frame) != is_and:
                return value
        return value

    def _runtime_boolop(self, first: Var, rest, is_and: bool, frame, node):
        combine = np.logical_and if is_and else np.logical_or
        # Python's `a and b` is one of its operands, not their truth (`n > 1 and n` is n): the combined truth is
        # that value only where every operand is a bool of one type; a test (`if a and b:`) needs only the truth
        value_needed = not getattr(node, TRUTH_ONLY, False)
        python_bool = first.weak
        result = self.control.condition(first)   # (an array's ambiguous truth: NumPy's ValueError first)
        if value_needed:
            self._boolop_operand_is_its_truth(first, python_bool)
        for operand in rest:
            # Python evaluates the operand only where the ones before did not decide: its checks fail only there
            # (its reads are clamped, as every checked read is)
            with self._checked_only_where(result if is_and else self.numpy_call(np.logical_not, [result], {})):
                value = self.eval(operand, frame)
            truth = self.control.condition(value) if isinstance(value, Var) else self.truth(value, operand, frame)
            if value_needed:
                self._boolop_operand_is_its_truth(value, python_bool)
            if not isinstance(value, Var):
                if truth != is_and:   # `c and False`, `c or True`: decided
                    return value if not is_and or value_needed else self.b.const(np.asarray(False))
                continue
            result = self.numpy_call(combine, [result, truth], {})
        return self.call(bool, [result], {}) if value_needed and python_bool else result

    @contextlib.contextmanager
    def _checked_only_where(self, evaluated: Var):
        """Code evaluated only where `evaluated` holds (the operands after the first of a run-time `and`/`or` or
        chained comparison): its checks fail only there, within the checks already masked."""
        outer = self.b.check_mask
        self.b.check_mask = evaluated if outer is None else self.numpy_call(np.logical_and, [outer, evaluated], {})
        try:
            yield
        finally:
            self.b.check_mask = outer

    def _boolop_operand_is_its_truth(self, value, python_bool: bool, chain: bool = False):
        """Refuse an `and`/`or` whose value (not only its truth) is used where an operand is not a bool of the
        first run-time operand's type (a Python bool, or a NumPy bool scalar): Python gives back that operand."""
        if isinstance(value, Var):
            ok = value.dtype == dtypes.BOOL and value.ndim == 0 and value.weak == python_bool and \
                (value.weak or value.scalar)
        else:
            ok = type(value) is (bool if python_bool else np.bool_)
        if not ok and chain:
            raise UserError("the value of a chained comparison is one of its comparisons (Python's `a < b < c` is `a < "
                            "b and b < c`), which compiled code gives only where each is a bool of one type (all Python "
                            "bools or all NumPy bools): use it as a condition, or compare one pair at a time",
                            TypeError)
        if not ok:
            raise UserError("the value of `and`/`or` over run-time values is one of its operands (Python's `n > 1 and "
                            "n` is n), which compiled code gives only where every operand is a bool of one type (all "
                            "Python bools or all NumPy bools): use it as a condition, or write `b if a else a`, or "
                            "bool(a) and bool(b)", TypeError)

    def expr_Compare(self, e, frame):
        left = self.eval(e.left, frame)
        result = True
        for i, (op, right_node) in enumerate(zip(e.ops, e.comparators)):
            right = self.eval(right_node, frame)
            result = self._compare(op, left, right)
            if right_node is e.comparators[-1]:
                return result        # (the last comparison's value itself: an array of compile-time arrays)
            if isinstance(result, Var):
                return self._runtime_chain(result, right, e.ops[i + 1:], e.comparators[i + 1:], frame, e)
            if not self.truth(result, right_node, frame):
                return result
            left = right
        return result

    def _compare(self, op, left, right):
        if user_operators.handles_compare(op, left, right):
            return user_operators.compare(self, op, left, right)
        if (isinstance(left, Var) or isinstance(right, Var)) and type(op) in OPERATOR_UFUNCS:
            return self.numpy_call(OPERATOR_UFUNCS[type(op)], [left, right], {}, python_op=True)
        if type(op) not in (ast.Is, ast.IsNot) and (contains_var(left) or contains_var(right)):
            return self._compare_holding_vars(op, left, right)
        if isinstance(op, (ast.In, ast.NotIn)):
            found = user_operators.contains(self, left, right)   # (an object whose attributes compiled code holds)
            if found is not NotImplemented:
                found = self.truth(found, None, None)
                return found if isinstance(op, ast.In) else not found
            user_operators.refuse_native(self, None, [left, right],
                                         user_operators.CONTAINING + user_operators.COMPARING, what="`in` with")
        elif type(op) not in (ast.Is, ast.IsNot):
            user_operators.refuse_native(self, None, [left, right], user_operators.COMPARING, what="a comparison with")
        return py(PY_OPERATORS[type(op)], left, right)

    def _runtime_chain(self, first: Var, left, ops, comparators, frame, node):
        """The rest of a chained comparison (`0 <= i < n`) once a comparison is a run-time value: Python's
        `a < b and b < c` with b evaluated once, as `_runtime_boolop` does it (the chain's value is the first false
        comparison or the last one, so its truth is that value where all are bools of one type)."""
        if first.ndim:
            raise UserError("chained comparisons of run-time arrays are ambiguous (Python takes the truth of the "
                            "first comparison's array); use np.logical_and", ValueError)
        value_needed = not getattr(node, TRUTH_ONLY, False)
        python_bool = first.weak
        result = self.control.condition(first)
        if value_needed:
            self._boolop_operand_is_its_truth(first, python_bool, chain=True)
        for op, right_node in zip(ops, comparators):
            # evaluated only where the comparisons before were true: its checks fail only there
            with self._checked_only_where(result):
                right = self.eval(right_node, frame)
                value = self._compare(op, left, right)
            if isinstance(value, Var) and value.ndim:
                raise UserError("chained comparisons of run-time arrays are ambiguous (Python takes the truth of "
                                "each comparison's array); use np.logical_and", ValueError)
            if value_needed:
                self._boolop_operand_is_its_truth(value, python_bool, chain=True)
            if not isinstance(value, Var):
                if not self.truth(value, right_node, frame):   # false whatever the run-time comparisons gave
                    return value if value_needed else self.b.const(np.asarray(False))
            else:
                result = self.numpy_call(np.logical_and, [result, self.control.condition(value)], {})
            left = right
        return self.call(bool, [result], {}) if value_needed and python_bool else result

    def _compare_holding_vars(self, op, left, right):
        """`==`, `!=`, `in`, `not in` where a list or tuple holds run-time values (`m.shape != (n,)` with a run-time
        n): Python compares item by item with `==`, so the answer is a run-time bool where it depends on run-time
        values. (Python's own comparison would compare the compiler's placeholders by identity: a wrong answer.)"""
        result = self._compare_items(op, left, right)
        return self.call(bool, [result], {}) if isinstance(result, Var) else result     # a Python bool, as Python's

    def _compare_items(self, op, left, right):
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, Var):
                raise UserError("`in` over a run-time array is not supported: write np.any(x == v)", TypeError)
            if not isinstance(right, (list, tuple)):
                raise UserError(f"`in` over a {type(right).__name__} with run-time values is not supported",
                                TypeError)
            found = False
            for item in right:            # any(left == item), stopping at the first that is equal while compiling
                equal = self._python_equal(left, item)
                if equal is True:
                    found = True
                    break
                found = self._python_or(found, equal)
            return found if isinstance(op, ast.In) else self._python_not(found)
        if isinstance(op, (ast.Eq, ast.NotEq)):
            equal = self._python_equal(left, right)
            return equal if isinstance(op, ast.Eq) else self._python_not(equal)
        raise UserError("ordering comparisons (<, <=, >, >=) of containers holding run-time values are not "
                        "supported; compare their items", TypeError)

    def _python_equal(self, a, b):
        """`a == b` as Python's containers decide it (CPython's PyObject_RichCompareBool: the same object is equal
        without asking; else bool(a == b)): a bool, or a run-time bool."""
        if a is b:
            return True
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            if isinstance(a, list) != isinstance(b, list) or len(a) != len(b):
                return False
            equal = True
            for x, y in zip(a, b):       # item by item, stopping at the first unequal one known while compiling
                item = self._python_equal(x, y)
                if item is False:
                    return False
                equal = self._python_and(equal, item)
            return equal
        if isinstance(a, Var) or isinstance(b, Var):
            if any(isinstance(v, Var) and v.ndim for v in (a, b)):
                raise UserError("comparing containers that hold run-time arrays (not scalars) is not supported: "
                                "Python asks each pair of items for one truth value", ValueError)
            other = b if isinstance(a, Var) else a
            if not isinstance(other, (Var, bool, int, float, complex, np.generic)):
                return False          # (a number is never equal to None, a string, a container)
            return self.numpy_call(np.equal, [a, b], {}, python_op=True)
        return self.truth(py(operator.eq, a, b), None, None) if not contains_var([a, b]) else False

    def _python_and(self, a, b):
        if a is True or b is True:
            return b if a is True else a
        return self.numpy_call(np.bitwise_and, [a, b], {}, python_op=True)

    def _python_or(self, a, b):
        if a is False or b is False:
            return b if a is False else a
        return self.numpy_call(np.bitwise_or, [a, b], {}, python_op=True)

    def _python_not(self, a):
        return (not a) if isinstance(a, bool) else self.numpy_call(np.logical_not, [a], {})    # (made a bool above)

    def expr_IfExp(self, e, frame):
        test = self.eval(truth_only(e.test), frame)
        if isinstance(test, Var):
            writes = self.attributes.writes
            value = self._run_time_region(self.control.run_ifexp, e, frame, test)
            if self.attributes.writes != writes:
                raise UserError("assigning an attribute inside a conditional expression with a run-time condition (in "
                                "a method it calls) is not supported: use an `if` statement", TypeError)
            return value
        return self.eval(e.body if self.truth(test, e.test, frame) else e.orelse, frame)

    def truth(self, value, node, frame) -> bool:
        special = user_operators.truth(self, value)     # (an object whose attributes compiled code holds)
        if special is not NotImplemented:
            if isinstance(special, Var):
                raise UserError("a __bool__ or __len__ whose value is known only at run time is not supported as a "
                                "truth value", TypeError)
            return self.truth(special, node, frame)
        if isinstance(value, Var):
            raise UserError("the truth value of a run-time array is not known at compile time (control flow on "
                            "run-time values is not supported here); use np.where", ValueError)
        if isinstance(value, np.ndarray) and value.size > 1:
            raise UserError("The truth value of an array with more than one element is ambiguous. "
                            "Use a.any() or a.all()", ValueError)
        return py(bool, value)

    def expr_Attribute(self, e, frame):
        # (NumPy's functions read by the library's own code, stdlib/, are not guarded: NumPy's own functions do
        # not call a replaced np.sum either, and each would cost the guard at every call)
        user_code = str(frame.globals.get("__name__", "")).split(".")[0] not in _LIBRARY_MODULES
        return self.attribute(self.eval(e.value, frame), e.attr, user_code)

    def attribute(self, value, attr: str, user_code: bool = True):
        """value.attr, also for `getattr(value, "attr")`: what it folds in from a module-level object, class or
        module is guarded (from NumPy and math: only what user code reads)."""
        if isinstance(value, Var):
            return self.array_attribute(value, attr)
        rebound = self.attributes.read(value, attr)
        if rebound is not _NOT_REBOUND:        # assigned in compiled code (attributes.py)
            return rebound
        if attr == "__dict__" and any(obj is value for obj, _ in self.attributes.keys.values()):
            raise UserError("reading __dict__ of an object whose attributes compiled code rebinds is not supported",
                            TypeError)
        getter = _user_property(value, attr)
        if getter is not None:             # a @property of the user's class: its source is compiled
            self.class_attribute(type(value), attr, None)    # (guarded: a property replaced compiles again)
            return self.call(getter, [value], {})
        result = py(getattr, value, attr)
        if isinstance(result, Unavailable):
            raise UserError(f"{result!r} cannot be read", TypeError)
        holder = isinstance(value, (types.ModuleType, type)) or is_structure_object(value)
        if holder and attr in getattr(value, "__dict__", {}):
            if isinstance(result, np.ndarray):   # config.WEIGHTS, Table.w, CFG.w of a module-level object
                return self.module_array(vars(value), attr, result)
            if isinstance(result, (list, tuple, dict)) and _holds_arrays(result):
                self.b.program.globals_read.append((vars(value), attr, result))   # config.LAYERS
                if _user_module(value) or self.module_level.get(id(value)) is value:
                    self.module_level[id(result)] = result
                return result
            if _user_module(value) or self.module_level.get(id(value)) is value or _user_class(value):
                self.module_value(vars(value), attr, result)   # config.EPS, Cfg.EPS, CFG.eps, cls.eps
            elif user_code and isinstance(value, types.ModuleType) and callable(result) \
                    and value.__name__.split(".")[0] in _PATCHABLE_LIBRARIES:
                self.top.globals_read.append((vars(value), attr, result))   # `np.tanh = other` compiles again
        elif attr == "__dict__" and self.module_level.get(id(value)) is value:
            self.module_level[id(result)] = result      # `OBJ.__dict__["s"]`: its items guarded as OBJ.s is
        elif isinstance(value, type) or is_structure_object(value):
            if self.module_level.get(id(value)) is value and hasattr(value, "__dict__"):
                self.top.globals_read.append((vars(value), attr, None))   # (still not set on the object itself)
            return self.class_attribute(value if isinstance(value, type) else type(value), attr, result)
        return result

    def class_attribute(self, cls: type, attr: str, result):
        """`self.scale`, `self.forward` or `Derived.scale` read from a class in cls's MRO (not from the object
        itself, whose own attributes are the specialization key): folded as a module-level value is, so guarded at
        each call (a method or property by identity: one replaced on the class compiles again); so is the
        attribute's absence from the classes before it (a subclass that sets it later)."""
        before = []
        for c in cls.__mro__:
            if attr in vars(c):
                owner = c
                break
            before.append(c)
        else:
            return result
        raw = vars(owner)[attr]
        if owner.__module__.split(".")[0] in _LIBRARY_MODULES or owner.__module__ == "builtins":
            return result
        if isinstance(raw, np.ndarray):
            guarded = self.module_array(vars(owner), attr, raw)
        elif snapshot(raw) is not None or isinstance(raw, type):
            self.module_value(vars(owner), attr, raw)
            guarded = result
        else:    # methods, properties and other descriptors, by identity (`Model.forward = other` compiles again)
            self.top.globals_read.append((vars(owner), attr, raw))
            guarded = result
        for c in before:
            self.top.globals_read.append((vars(c), attr, None))   # still absent there
        return guarded

    def array_attribute(self, x: Var, name: str):
        if name in numpy_api.ATTRIBUTES:
            return numpy_api.ATTRIBUTES[name](self.b, x)
        if name in numpy_api.METHODS:
            return BoundMethod(name, x, numpy_api.METHODS[name])
        raise UserError(f"'numpy.ndarray' attribute '{name}' is not supported by the compiler", AttributeError)

    def expr_Subscript(self, e, frame):
        value = self.eval(e.value, frame)
        return self.subscript(value, self.eval(e.slice, frame))

    def _getitem_handler(self):
        handler = numpy_api.METHODS.get("__getitem__")
        if handler is None:
            raise UserError("indexing run-time arrays is not supported yet", TypeError)
        return handler

    def expr_Slice(self, e, frame):
        parts = [self.eval(p, frame) if p is not None else None for p in (e.lower, e.upper, e.step)]
        return py(slice, *parts)

    def expr_Starred(self, e, frame):
        raise UserError("starred expression is not allowed here", SyntaxError)

    def expr_JoinedStr(self, e, frame):
        return "".join(self.eval(v, frame) if isinstance(v, ast.FormattedValue) else str(v.value) for v in e.values)

    def expr_FormattedValue(self, e, frame):
        value = self.eval(e.value, frame)
        if isinstance(value, Var):
            value = self.formatted(value)
        conv = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[e.conversion]
        user_operators.refuse_native(self, None, [value], ("__format__", "__str__", "__repr__"), False,
                                     "an f-string of")
        spec = self.eval(e.format_spec, frame) if e.format_spec is not None else ""
        return py(lambda: format(conv(value), spec))

    def expr_NamedExpr(self, e, frame):
        value = self.eval(e.value, frame)
        self.assign(e.target, value, frame)
        return value

    def expr_Lambda(self, e, frame):
        return self.make_closure(e, frame, "<lambda>")

    # comprehensions run in a scope of their own, as in Python 3
    def expr_ListComp(self, e, frame):
        return [v for v in self.comprehension(e.generators, frame, lambda f: self.eval(e.elt, f))]

    def expr_SetComp(self, e, frame):
        return _hashed_set(self.comprehension(e.generators, frame, lambda f: self.eval(e.elt, f)))

    def expr_GeneratorExp(self, e, frame):
        return iter(self.expr_ListComp(e, frame))

    def expr_DictComp(self, e, frame):
        items = self.comprehension(e.generators, frame, lambda f: (self.eval(e.key, f), self.eval(e.value, f)))
        for key, _ in items:
            _no_run_time_key(key)
        return dict(items)

    def comprehension(self, generators, frame, produce):
        scope = Frame(frame.globals, frame.filename, frame.function, parent=frame)
        out = []
        self.frames.append(scope)

        def loop(i):
            if i == len(generators):
                out.append(produce(scope))
                return
            gen = generators[i]
            iterable = self.eval(gen.iter, scope if i else frame)
            if isinstance(iterable, Var):
                iterable = self.iterate_array(iterable)
            user_operators.refuse_native(self, None, [iterable], user_operators.ITERATING, False,
                                         "a comprehension over")
            for item in py(list, iterable):
                self.assign(gen.target, item, scope)
                if all(self.truth(self.eval(c, scope), c, scope) for c in gen.ifs):
                    loop(i + 1)
        try:
            loop(0)
        finally:
            self.frames.pop()
        return out

    # ---- calls --------------------------------------------------------------------------------------------------
    def expr_Call(self, e, frame):
        return self.call(*self._call_parts(e, frame))

    def _call_parts(self, e: ast.Call, frame) -> tuple:
        """The function, positional and keyword arguments of a call, evaluated in Python's order."""
        self.frame_of_call = frame   # whose globals a method call could mutate
        fn = self.eval(e.func, frame)
        if fn is bool and len(e.args) == 1 and not isinstance(e.args[0], ast.Starred):
            truth_only(e.args[0])   # bool(a or b): its truth alone
        args = self.eval_items(e.args, frame)
        kwargs = {}
        for kw in e.keywords:
            value = self.eval(kw.value, frame)
            if kw.arg is None:
                py(kwargs.update, value)
            else:
                kwargs[kw.arg] = value
        if fn is super and not args and not kwargs:
            args = self._zero_argument_super(frame)
        return fn, args, kwargs

    @staticmethod
    def _zero_argument_super(frame) -> list:
        """`super()` in a method: Python's implicit arguments, the class cell the method closes over and its first
        argument (compiled from source, the call has no frame of its own to find them in)."""
        cell = frame.closure.get("__class__")
        if cell is None or not frame.locals:
            raise UserError("super(): no arguments", RuntimeError)
        try:
            owner = cell.cell_contents
        except ValueError:
            raise UserError("super(): empty __class__ cell", RuntimeError) from None
        return [owner, next(iter(frame.locals.values()))]

    def call(self, fn, args: list, kwargs: dict):
        if isinstance(fn, Closure):
            return self.call_closure(fn, args, kwargs)
        if isinstance(fn, BoundMethod):
            return _call_handler(fn.handler, fn.name, self.b, [fn.target, *args], kwargs)
        if isinstance(fn, Interpreted):
            return self.call(fn.fn, args, kwargs)
        if type(fn) is functools.partial:    # `functools.partial(np.diagonal, offset=1)(x)`: the call it stands for
            # (its arrays guarded as module-level ones: `partial(layer, w=W)` then `W[0] = 5` compiles again)
            bound = [self.module_array(fn.args, i, a) if isinstance(a, np.ndarray) else a
                     for i, a in enumerate(fn.args)]
            keywords = {k: self.module_array(fn.keywords, k, a) if isinstance(a, np.ndarray) else a
                        for k, a in fn.keywords.items()}
            return self.call(fn.func, [*bound, *args], {**keywords, **kwargs})
        py_func = getattr(fn, "py_func", None)  # a @transpile'd helper: compile its source in place
        if py_func is not None and callable(py_func):
            return self.call(py_func, args, kwargs)
        if isinstance(fn, row_lists.SPECIALS):
            return row_lists.special_call(self, fn, args)
        if row_lists.among(args, kwargs) and not (isinstance(fn, types.FunctionType) and not _is_library(fn)):
            return row_lists.call(self, fn, args, kwargs)   # np.stack(hs) ... (a user's function takes it as it is)
        has_var = contains_var(args) or contains_var(kwargs)
        if _hashable(fn) and fn in numpy_api.FUNCTIONS and has_var:
            return _call_handler(numpy_api.FUNCTIONS[fn], fn, self.b, args, kwargs)
        if _hashable(fn) and fn in numpy_api.LOOP_ITERATORS:
            return _call_handler(numpy_api.FUNCTIONS[fn], fn, self.b, args, kwargs)
        if _hashable(fn) and fn in numpy_api.ALLOCATORS:
            # a new array made in compiled code is a run-time array, so writes into it (and its views) are run-time
            # writes; an allocation the compiler cannot make (an unsupported dtype ...) stays a compile-time array
            try:
                return _call_handler(numpy_api.FUNCTIONS[fn], fn, self.b, args, kwargs)
            except UserError:
                pass
        if isinstance(fn, types.FunctionType) and not _is_library(fn):
            return self.call_python(fn, args, kwargs)
        method = _user_method(fn)
        if method is not None:             # obj.method(...) or obj(...) on an object of the user's class
            if not isinstance(fn, types.MethodType):
                self.class_attribute(type(fn), "__call__", None)   # (guarded: `Model.__call__ = other`)
            return self.call(method[0], [method[1], *args], kwargs)
        if getattr(fn, "__name__", None) in _FORBIDDEN_BUILTINS and getattr(builtins, fn.__name__, None) is fn:
            raise UserError(f"{fn.__name__}() is not supported in compiled code", TypeError)
        if has_var and (any(fn is t for t in _TEXT_BUILTINS)
                        or isinstance(getattr(fn, "__self__", None), str) and getattr(fn, "__name__", "") == "format"):
            # str(n), repr(n), "{}".format(n) ...: text only inside an exception's message
            return py(fn, *[self.formatted(a) if isinstance(a, Var) else a for a in args],
                      **{k: self.formatted(a) if isinstance(a, Var) else a for k, a in kwargs.items()})
        if fn is object.__setattr__ and not kwargs and len(args) == 3 and isinstance(args[1], str) \
                and self.attributes.is_made(args[0]):
            # (a frozen dataclass's __post_init__ sets its fields so: an attribute of the made object)
            self.attributes.made_setattr(args[0], args[1], args[2], self._where())
            return None
        if _user_class(fn) and not issubclass(fn, BaseException) \
                and (has_var or self.attributes.holds_made(args) or self.attributes.holds_made(kwargs)):
            # an object of the user's class made from run-time values (attributes.py)
            return self.attributes.construct(fn, args, kwargs, self._where())
        if has_var:
            _no_identity_semantics(fn, args, kwargs)
        if has_var and not _is_builtin(fn):   # builtins (zip, map, sum ...) run for real on containers of Vars
            name = getattr(fn, "__qualname__", None) or repr(fn)
            module = getattr(fn, "__module__", None) or ""
            raise UserError(f"{module + '.' if module else ''}{name}() is not supported on run-time arrays",
                            TypeError)
        _check_foldable(fn)
        if (special := user_operators.special_call(self, fn, args, kwargs)) is not NotImplemented:
            return special          # len(obj) ... of an object whose attributes compiled code holds
        if fn is bool and len(args) == 1 and not kwargs and user_operators.truth(self, args[0]) is not NotImplemented:
            return self.truth(args[0], None, None)
        user_operators.refuse_native(self, fn, [*args, *kwargs.values()])
        if not _is_builtin(fn) and not isinstance(fn, type):
            user_operators.refuse_library_call(self, fn, [getattr(fn, "__self__", None), *args, *kwargs.values()])
        if fn is getattr and not kwargs and len(args) in (2, 3) and isinstance(args[1], str):
            return self._getattr(*args)
        if fn is hasattr and not kwargs and len(args) == 2 and isinstance(args[1], str) \
                and self.attributes.read(args[0], args[1]) is not _NOT_REBOUND:
            return True          # (assigned in compiled code: the object itself does not have it yet)
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, dict) and getattr(fn, "__name__", "") == "get" and not kwargs and len(args) in (1, 2) \
                and self.module_level.get(id(owner)) is owner:   # TABLE.get("w"): guarded as TABLE["w"]
            if py(lambda: args[0] in owner):
                return self.subscript(owner, args[0])
            self.top.globals_read.append((owner, args[0], None))    # (still absent)
            return args[1] if len(args) == 2 else None
        if any(fn is b for b in _ITERATING_BUILTINS):   # zip(LAYERS, ...), enumerate(LAYERS): all items read
            args = [self.module_items(a) for a in args]
        elif isinstance(owner, dict) and getattr(fn, "__name__", "") in ("values", "items"):
            items = self.module_items(owner)
            if items is not owner:         # its arrays guarded (large ones kernel inputs): read through the copy
                return list(items.values()) if fn.__name__ == "values" else list(items.items())
        if isinstance(owner, (list, dict, set)) and self.frame_of_call is not None \
                and _is_global_object(owner, self.frame_of_call) \
                and getattr(fn, "__name__", "") in _MUTATORS:
            raise UserError("mutating a module-level object from compiled code is not supported", TypeError)
        if isinstance(owner, (list, dict, set)) and getattr(fn, "__name__", "") in _MUTATORS:
            self._no_speculation(f"{type(owner).__name__}.{fn.__name__}()")
            self._no_outer_container_mutation(owner, f"{type(owner).__name__}.{fn.__name__}()")
        return py(fn, *[_wrap_callable(a) for a in args], **{k: _wrap_callable(v) for k, v in kwargs.items()})

    def _where(self) -> tuple:
        """(file, line, column) of the code being compiled, for an attribute's messages."""
        loc = self.b.loc
        return (loc.filename, loc.lineno, loc.col) if loc is not None else ("<compiled code>", 0, 0)

    def _getattr(self, value, name, *default):
        """`getattr(obj, "name"[, default])`: read as `obj.name` (guarded), the default where obj has no such
        attribute (its absence guarded on a module-level object)."""
        if isinstance(value, Var) or hasattr(value, name) \
                or self.attributes.read(value, name) is not _NOT_REBOUND:
            return self.attribute(value, name)
        if not default:
            return py(getattr, value, name)        # (Python's AttributeError)
        if self.module_level.get(id(value)) is value and hasattr(value, "__dict__"):
            self.top.globals_read.append((vars(value), name, None))
        return default[0]

    def numpy_call(self, fn, args, kwargs, python_op: bool = False):
        if python_op and isinstance(fn, np.ufunc) and fn is not np.matmul:
            return apply_ufunc(self.b, fn, args, python_op=True)
        return self.call(fn, args, kwargs)

    def call_python(self, fn, args, kwargs):
        src = function_source(fn)
        if fn is not self.compiled_fn and not _is_library(fn) \
                and str(fn.__module__ or "").split(".")[0] not in _LIBRARY_MODULES:
            self.top.globals_read.append((fn, CODE, fn.__code__))   # a helper's code replaced: compiled again
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise UserError(f"{fn.__name__}(): {e}", TypeError) from None
        if len(bound.arguments) < len(bound.signature.parameters):
            self._guard_defaults(fn, bound)
        bound.apply_defaults()
        closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))

        def interpret(arguments):
            frame = Frame(fn.__globals__, src.filename, fn.__name__, locals=dict(arguments), closure=closure)
            return self.run_body(fn.__code__, src.node, frame)
        key = signature_key(fn, bound.arguments, self.attributes.is_made)
        if key is not None and self.attributes.reached(bound.arguments.values()):
            key = None     # (an object whose attributes were rebound: an outlined callee would read the object)
        if self.active and self.outliner.wants(key, src.node, fn):   # the compiled function itself: never outlined
            try:
                return self.outliner.call(fn, key, bound.arguments, interpret)
            except (MustInline, _Raise):     # (a function that raises on every path: the raise is the caller's)
                self.outliner.size[key] = 0    # inline this signature from now on
        return self.outliner.inline_first(key, interpret, bound.arguments)

    def _guard_defaults(self, fn, bound) -> None:
        """The default values a call of fn takes are folded in like module-level values: `fn.__defaults__`
        rebound, a default list mutated (`def f(x, c=COEF)` then `COEF[1] = 5`) or a default array changed
        compiles again. Such a default array is bound as module_array gives it (large ones kernel inputs)."""
        if _is_library(fn) or str(fn.__module__ or "").split(".")[0] in _LIBRARY_MODULES:
            return
        for holder in (fn.__defaults__, fn.__kwdefaults__):
            if holder is not None:
                self.module_value(fn, DEFAULTS if holder is fn.__defaults__ else KWDEFAULTS, holder)
        positional = [p for p in bound.signature.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        first_default = len(positional) - len(fn.__defaults__ or ())
        used = [(fn.__defaults__, i, p.name) for i, p in enumerate(positional[first_default:])] \
            + [(fn.__kwdefaults__, name, name) for name in fn.__kwdefaults__ or {}]
        for holder, key, name in used:
            if name not in bound.arguments:
                if isinstance(holder[key], np.ndarray):
                    bound.arguments[name] = self.module_array(holder, key, holder[key])
                else:
                    self.module_value(holder, key, holder[key])   # (a list of numbers: by value)

    def call_closure(self, c: Closure, args, kwargs):
        try:
            bound = _signature(c).bind(*args, **kwargs)
        except TypeError as e:
            raise UserError(f"{c.name}(): {e}", TypeError) from None
        bound.apply_defaults()
        frame = Frame(c.frame.globals, c.filename, c.name, locals=dict(bound.arguments), parent=c.frame)
        return self.run_body(c.node, c.node, frame)

    def run_body(self, key, node, frame: Frame):
        if key in self.active:
            raise UserError(f"recursive call of {frame.function}() is not supported", RecursionError)
        if len(self.active) > _MAX_DEPTH:
            raise UserError("calls nested too deeply", RecursionError)
        self.active.append(key)
        self.frames.append(frame)
        home = self.attributes.enter(frame)     # the rebound attributes are this function's to read and rebind
        try:
            if isinstance(node, ast.Lambda):
                return self.eval(node.body, frame)
            try:
                self.exec_block(node.body, frame, top=True)
            except _Return as r:
                return r.value
            except (_Break, _Continue):
                raise self.error_at(node, frame, "'break' or 'continue' outside a loop", SyntaxError) from None
            return None
        finally:
            self.attributes.leave(frame, home)
            self.active.pop()
            self.frames.pop()

    def make_closure(self, node, frame: Frame, name: str) -> Closure:
        a = node.args
        defaults = [self.eval(d, frame) for d in a.defaults]
        kw_defaults = [self.eval(d, frame) if d is not None else None for d in a.kw_defaults]
        return Closure(node, frame, defaults, kw_defaults, frame.filename, name)


def _signature(c: Closure) -> inspect.Signature:
    a = c.node.args
    P = inspect.Parameter
    positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs] + [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
    first_default = len(positional) - len(c.defaults)
    params = [P(x.arg, kind, default=c.defaults[i - first_default] if i >= first_default else P.empty)
              for i, (x, kind) in enumerate(positional)]
    if a.vararg:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    for x, d, node_default in zip(a.kwonlyargs, c.kw_defaults, a.kw_defaults):
        params.append(P(x.arg, P.KEYWORD_ONLY, default=d if node_default is not None else P.empty))
    if a.kwarg:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)


# Modules whose functions may run while compiling (constant folding): pure computation only. Anything else
# (os, time, random, np.random ...) would run once at compile time instead of at every call. "transpiler" covers
# its library code, transpiler.stdlib, installed or in a checkout.
_FOLDABLE = ("numpy", "math", "cmath", "operator", "functools", "itertools", "collections", "builtins", "typing",
             "transpiler")


def _check_foldable(fn) -> None:
    module = getattr(fn, "__module__", None)
    if module is None and isinstance(fn, type):
        module = fn.__module__
    if module is None:   # a method of a compile-time object (list.append, str.format ...)
        return
    top = module.split(".")[0]
    if module.startswith("numpy.random") or top not in _FOLDABLE and not _is_user_module(module):
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
        raise UserError(f"calling {module}.{name}() in compiled code is not supported: it would run once, while "
                        "compiling, not at every call", TypeError)


def _is_user_module(module: str) -> bool:
    """A module of the user's own program (not an installed or standard-library package)."""
    import sys
    import sysconfig
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None) or ""
    library = (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])
    return bool(path) and not any(path.startswith(p) for p in library)


def _closure_cell(frame, name: str):
    """The cell a name read in frame resolves to (a free variable of a compiled Python function), or None (a local
    or a global), following Frame.lookup's order."""
    while frame is not None:
        if name in frame.locals:
            return None
        if name in frame.closure:
            cell = frame.closure[name]
            return cell if hasattr(cell, "cell_contents") else None
        frame = frame.parent
    return None


def _user_module(value) -> bool:
    """A module of the user's (config.EPS is guarded), not NumPy's or the standard library's (np.pi is not)."""
    if not isinstance(value, types.ModuleType):
        return False
    top = value.__name__.split(".")[0]
    return top not in _LIBRARY_MODULES and not top.startswith("_")


_LIBRARY_MODULES = frozenset({"numpy", "math", "builtins", "transpiler", "functools", "itertools", "operator",
                              "collections", "typing", "types", "dataclasses", "os", "sys", "scipy", "cmath"})


# The library modules whose functions a program reads as attributes (`np.tanh`, `math.exp`): guarded by identity
# (batched per module, a few tens of ns each), so a function replaced in them after compiling is seen, as NumPy's
# run would call the replacement.
_PATCHABLE_LIBRARIES = frozenset({"numpy", "math", "cmath"})


def _user_class(value) -> bool:
    """A class of the user's (its attributes are shared, whoever passes it: `f(x, Cfg)` then `Cfg.eps = 0.1`)."""
    return isinstance(value, type) and value.__module__.split(".")[0] not in _LIBRARY_MODULES


def _holds_attributes(value) -> bool:
    """An object of a user's class or a container: what a module-level container holds whose attributes or
    items the program may read (guarded as module-level values, not as structure of an argument)."""
    return isinstance(value, (list, tuple, dict)) or is_structure_object(value)


def _holds_arrays(container, depth: int = 4) -> bool:
    """Whether a compile-time container holds NumPy arrays (a few levels down)."""
    items = container.values() if isinstance(container, dict) else container
    return any(isinstance(v, np.ndarray) or depth > 0 and isinstance(v, (list, tuple, dict)) and
               _holds_arrays(v, depth - 1) for v in items)


@dataclass(eq=False)
class _RowTuples:
    """`enumerate(x, start)` (count_from = start) or `zip(x, y, ...)` (count_from None) over run-time arrays' rows
    and ranges, at least one part run-time, as a `for` loop's iterable (infer._for_row_tuples)."""
    parts: tuple
    count_from: object = None

    @staticmethod
    def of(fn, args, kwargs):
        """The loop `fn(*args, **kwargs)` describes, or None when its parts are not all arrays with at least one
        dim and ranges (zip(LAYERS, x) ...: Python's own zip, as before)."""
        if fn is builtins.enumerate:
            if len(args) + len(kwargs) > 2 or set(kwargs) - {"start"} or not args:
                return None
            start = args[1] if len(args) == 2 else kwargs.get("start", 0)
            if isinstance(start, bool) or not (isinstance(start, (int, np.integer)) or _is_int_var(start)):
                return None
            parts, count_from = (args[0],), start
        else:
            if kwargs or not args:     # (zip(..., strict=True): Python's own zip refuses run-time arrays)
                return None
            parts, count_from = tuple(args), None
        if not all((isinstance(p, Var) and p.ndim >= 1) or isinstance(p, (range, RuntimeRange)) for p in parts):
            return None
        return _RowTuples(parts, count_from)


def _is_int_var(v) -> bool:
    return isinstance(v, Var) and v.ndim == 0 and v.dtype.kind in "iu"


def _is_zero(v) -> bool:
    return isinstance(v, (int, np.integer)) and v == 0


_ITERATING_BUILTINS = (enumerate, zip, reversed, sorted, list, tuple, map, filter, iter)


def _user_method(fn):
    """(function, self) for a bound method of a user's class, or an instance of one with a Python __call__ (an
    object called like a function); None for anything else."""
    if isinstance(fn, types.MethodType):
        if isinstance(fn.__func__, types.FunctionType) and not _is_library(fn.__func__):
            return fn.__func__, fn.__self__
        return None
    if isinstance(fn, (type, types.FunctionType, types.BuiltinFunctionType)) or not is_structure_object(fn):
        return None
    call = getattr(type(fn), "__call__", None)
    return (call, fn) if isinstance(call, types.FunctionType) and not _is_library(call) else None


def _user_property(value, name: str):
    """The getter of `name` when it is a property of the class of `value`, an object of a user's class."""
    if isinstance(value, (type, types.ModuleType)) or not is_structure_object(value):
        return None
    prop = next((c.__dict__[name] for c in type(value).__mro__ if name in c.__dict__), None)
    if isinstance(prop, property) and isinstance(prop.fget, types.FunctionType) and not _is_library(prop.fget):
        return prop.fget
    return None


def _call_handler(handler, what, b, args, kwargs):
    """Call a NumPy-function handler; arguments that do not fit its signature are the user's TypeError."""
    try:
        return handler(b, *args, **kwargs)
    except TypeError as e:
        if e.__traceback__ is not None and e.__traceback__.tb_next is None:   # raised by the call itself
            name = getattr(what, "__name__", what)
            raise UserError(f"{name}(): {e} (or this form is not supported by the compiler)", TypeError) from None
        raise


_TEXT_BUILTINS = (str, repr, format, ascii)
# methods that compare or hash their arguments (or the container's items) with Python's == and hash: on the
# compiler's placeholders of run-time values those are identity, not value (`[1, 2, 2].count(n)` would be 0)
_COMPARING_METHODS = {"count", "index", "remove", "__contains__", "get", "pop", "setdefault", "__getitem__",
                      "fromkeys"}


def _no_identity_semantics(fn, args, kwargs) -> None:
    """Refuse Python code run for real on run-time values where Python would hash or compare them by value."""
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "")
    if any(fn is t for t in (set, frozenset, dict)) or isinstance(owner, (set, frozenset)) \
            or isinstance(owner, (list, tuple, dict, str)) and name in _COMPARING_METHODS:
        what = f"{type(owner).__name__}.{name}()" if owner is not None and not isinstance(owner, type) \
            else f"{getattr(fn, '__name__', fn)}()"
        if fn is dict and not any(contains_var(k) for k in _dict_keys(args, kwargs)):
            return      # (values may be run-time: dict(a=x), dict(zip(NAMES, arrays)))
        raise UserError(f"{what} of run-time values is not supported: Python hashes or compares them by value, "
                        "which is known only when the kernel runs", TypeError)


def _dict_keys(args, kwargs) -> list:
    if not args:
        return []
    source = args[0]
    if isinstance(source, dict):
        return list(source)
    return [item[0] if isinstance(item, (tuple, list)) and item else item for item in py(list, source)]


def _no_run_time_key(key) -> None:
    if contains_var(key):
        raise UserError("a run-time value as a dict key or set element is not supported: Python hashes it by value, "
                        "which is known only when the kernel runs", TypeError)


def _hashed_set(items) -> set:
    for item in items:
        _no_run_time_key(item)
    return set(items)


def _is_builtin(fn) -> bool:
    """A Python builtin, or a method of a compile-time container (`out.append(x)`, `d.get(k)`)."""
    name = getattr(fn, "__name__", None)
    if name is not None and getattr(builtins, name, None) is fn:
        return True
    return isinstance(getattr(fn, "__self__", None), (list, dict, set, tuple, str))


def _hashable(obj) -> bool:
    try:
        hash(obj)
        return True
    except Exception:    # (also a user's __hash__ that reads fields: a frozen dataclass made in compiled code has none)
        return False


class _Unrolled:
    """The iterations of a loop run while compiling: past _MAX_UNROLLED_CODE of them that emit code (each compiled
    anew: minutes), or _MAX_UNROLL in all, a CompileError that says why it is not a run-time loop and what to do."""

    def __init__(self, interp, node, frame, length, why_unrolled: tuple):
        self.interp, self.node, self.frame, self.length, self.why = interp, node, frame, length, why_unrolled
        self.iterations = self.coded = 0

    def count(self, run) -> None:
        b = self.interp.b
        before = len(b.eqns)
        self.iterations += 1
        if self.iterations > _MAX_UNROLL:
            raise self._error(f"past {_MAX_UNROLL} iterations")
        run()
        if len(b.eqns) != before:
            self.coded += 1
            if self.coded > _MAX_UNROLLED_CODE:
                raise self._error(f"past {_MAX_UNROLLED_CODE} iterations that compute run-time values (each one "
                                  "compiled anew)")

    def _error(self, what: str) -> CompileError:
        runs = f" of {self.length} iterations" if self.length is not None else ""
        why, advice = self.why
        return self.interp.error_at(self.node, self.frame, f"this loop{runs} runs while compiling, since it cannot "
                                    f"be a run-time loop: {why}; {what} it would compile too slowly. {advice}")


_MAKE_IT_RUN_TIME = ("Make it a run-time loop: keep each variable's dtype and rank the same in every iteration, use the "
                     "loop variable only as a run-time value (an index or an operand, not an axis, a shape or a list "
                     "index), and write into an array made before the loop instead of appending to a Python list")


def _why_unrolled(iterable, node) -> tuple:
    """Why a loop over this iterable is not a run-time loop (only long range loops are tried as one), and what to
    do about it."""
    if isinstance(iterable, range):
        return ("it has an `else` clause", "Move the `else` clause after the loop") if node.orelse else \
            ("it is short", _MAKE_IT_RUN_TIME)
    return (f"it iterates over a Python {type(iterable).__name__}, whose items are known while compiling",
            "Stack the items into one array and loop over range(len(...)) reading it")


def _speculation_failed(message: str) -> tuple:
    return message, _MAKE_IT_RUN_TIME


def _index_holds_var(index) -> bool:
    """Whether an index holds a run-time value, also as a slice bound (`r[:k]` of a compile-time array `r` with a
    run-time `k`: NumPy's own indexing asked the run-time value for its int, a confusing truth-value error)."""
    parts = index if isinstance(index, tuple) else (index,)
    return contains_var(index) or any(isinstance(p, slice) and contains_var([p.start, p.stop, p.step]) for p in parts)


def _is_library(fn) -> bool:
    """NumPy's own Python-level functions are never inlined: they are either registered or folded."""
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def _wrap_callable(value):
    """A Python function passed to a builtin must be compiled when the builtin calls it, not run eagerly."""
    if isinstance(value, types.FunctionType) and not _is_library(value):
        return Interpreted(value)
    return value


def _is_global_object(obj, frame: Frame) -> bool:
    root = frame
    while root.parent is not None:
        root = root.parent
    return any(v is obj for v in root.globals.values())


def _shift_bounds(op, left, right, result) -> None:
    """A loop index plus or minus a constant keeps known bounds ([lo + c, hi + c)), and remembers that it is that
    index shifted by c (`offset_of`), so that `x[k:k + 1]` is known to have one element (indexing._shifted_slice)."""
    if isinstance(op, ast.Add) and isinstance(right, Var) and not isinstance(left, Var):
        left, right = right, left
    bounds = getattr(left, "bounds", None)
    if bounds is None or isinstance(right, (Var, bool)) or not isinstance(right, int) or \
            not isinstance(op, (ast.Add, ast.Sub)):
        return
    c = right if isinstance(op, ast.Add) else -right
    result.bounds = tuple(derived("add", d, c) if c >= 0 else derived("sub", d, -c) for d in bounds)
    base, shift = getattr(left, "offset_of", (left, 0))
    result.offset_of = (base, shift + c)


_INT_DIM_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}


def _same_int_expression(op, left, right, result) -> None:
    """`i + 1` of a run-time int, computed twice (`A[i, i + 1:] @ x[i + 1:]`), is one dim expression over i: the
    two slices' lengths are then the same expression, equal while compiling, where two Vars' values only the kernel
    could compare (a refusal: "cannot check that the run-time sizes ... are equal")."""
    if type(op) not in _INT_DIM_OPS or not isinstance(result, Var) or result.size_of is not None \
            or result.ndim or result.dtype != dtypes.INT64:
        return
    dims = []
    for v in (left, right):
        if isinstance(v, Var):
            if v.ndim or v.dtype != dtypes.INT64:
                return
            dims.append(v.size_of if v.size_of is not None else indexing.run_time_int(v))
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and abs(int(v)) < 2**62:
            dims.append(int(v))
        else:
            return
    result._dim = derived(_INT_DIM_OPS[type(op)], *dims)


def _name_int(value, name: str | None) -> None:
    """A run-time int's name in messages, after the variable it was first assigned to, or the source expression of
    such ints (`a+n`): a slice's length bounded by it then reads `(min((a+n), x.shape[0])-min(a, x.shape[0]))`."""
    if name and isinstance(value, Var) and value.ndim == 0 and value.dtype.kind in "iu" and \
            getattr(value, "source_name", None) is None and getattr(value, "_dim", None) is None:
        value.source_name = name


_INT_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}


def _int_expression(op, left, right) -> str | None:
    def text(v):
        if isinstance(v, Var):
            return getattr(v, "source_name", None)
        return str(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else None
    sign, a, c = _INT_OPERATORS.get(type(op)), text(left), text(right)
    return f"({a}{sign}{c})" if sign and a and c else None


def _is_array_var(v) -> bool:
    """A run-time ndarray (not a NumPy or Python scalar, which `op=` rebinds)."""
    return isinstance(v, Var) and not v.scalar and not v.weak


def _ufunc_name(op) -> str:
    return OPERATOR_UFUNCS[type(op)].__name__


def _describe(node: ast.AST) -> str:
    names = {"Try": "try/except", "TryStar": "try/except*", "With": "with", "AsyncWith": "async with",
             "ClassDef": "class definition", "Global": "global", "Nonlocal": "nonlocal", "Yield": "yield",
             "YieldFrom": "yield from", "Await": "await", "AsyncFor": "async for", "AsyncFunctionDef": "async def",
             "Match": "match"}
    return names.get(type(node).__name__, type(node).__name__)
