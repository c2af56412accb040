"""Appends primitives to the typed program; turns compile-time values into constants where they meet run-time ones."""
from __future__ import annotations

import contextlib

import numpy as np

from ..errors import UserError
from ..program import Eqn, Loc, Program, Var
from ..types import dtypes
from ..types.shapes import ShapeEnv, data_sized, required_by
from .kept_writes import unless_failed
from .memory import VIEW_PRIMS


class Builder:
    def __init__(self, program: Program):
        self.program = program
        self._loc: Loc | None = None
        # the innermost source position in the user's code (not the library's, stdlib/): run-time errors name it
        self.user_loc: Loc | None = None
        self.eqns: list = program.eqns      # where primitives go: the program, or a region being recorded
        self.enclosing: list = []           # the eqns lists of the blocks around the one being recorded
        self.top_level = False              # the compiled function's own program (not an outlined callee's)
        self.memory = None                  # frontend/memory.py: buffers and views (set by the interpreter)
        self._data_sized_checked: dict = {}  # id(eqns) -> (eqns, shapes checked there): see _check_data_sized
        # id of the flag of each such check -> (the primitives computing it, the dims): control.guarded moves them to
        # the start of the statement, which then runs only if the array fits
        self.size_checks: dict = {}
        # flags of the checks raised so far on the path being built (a region starts with its own list): NumPy
        # stops at the first failing check, so what follows one runs only while they are all False (control.py)
        self.failed: list = []
        self.guards = 0                     # statements run under `if not failed` so far (control.guarded)
        self.guard = None                   # control.guarded for writes (set by the interpreter)
        # a run-time bool while the right operand of a run-time `and` / `or` is built: Python evaluates it only where
        # that holds, so its checks (an index out of range in `i < n and x[i] > t`) may fail only there
        self.check_mask = None

    @contextlib.contextmanager
    def recording(self):
        """Collect the primitives emitted inside the `with` into a fresh list (the body of a region)."""
        outer, self.eqns = self.eqns, []
        self.enclosing.append(outer)
        try:
            yield self.eqns
        finally:
            self.enclosing.pop()
            self.eqns = outer

    def visible(self):
        """The primitives whose results the code being emitted can use, newest first: this block's, then those of
        the blocks around it (a region sees the values that dominate it)."""
        for eqns in [self.eqns] + self.enclosing[::-1]:
            yield from reversed(eqns)

    @property
    def env(self) -> ShapeEnv:
        return self.program.env

    @property
    def loc(self) -> Loc | None:
        """The source position of the node being compiled: every primitive, guard and check records it."""
        return self._loc

    @loc.setter
    def loc(self, loc: Loc | None) -> None:
        self._loc = loc
        self.program.env.loc = self.message_loc   # run-time size guards name the line that required them

    @property
    def message_loc(self) -> Loc | None:
        """The line a run-time error names: the user's, also for a check made inside a library function."""
        return self.user_loc or self._loc

    def check(self, flag: Var, kind: type, message: str, located: bool = True) -> None:
        """A condition the kernel computes (`flag` true: raise `kind(message)` after the call), e.g. an index out of
        range; the message names the source line that required it (unless it is the user's own `raise`)."""
        if self.check_mask is not None and flag.id not in self.size_checks:
            flag = self.emit1("and", [flag, self.check_mask], dtypes.BOOL, ())
        self.program.checks.append((flag, kind, required_by(message, self.message_loc) if located else message))
        self.failed.append(flag)

    def write(self, target: Var, compute) -> None:
        """Store `compute()` (target's new contents) into target's memory; after a check that may have failed, in
        the same statement (`x[0] = y[i]`) or before it, only if none did (control.guarded): the statement's own
        computations run as they are, its writes under one `scf.if` each; past control.MAX_GUARDS, with `keep`, each
        write stores the old contents where a check failed instead (frontend/kept_writes.py)."""
        def store(keep: bool = False):
            before = len(self.program.checks)
            new = compute()
            # the write's own checks of its value (a Python int or float that the dtype cannot hold, `x[i] = n - 1`
            # into uint8) are made by compute: NumPy raises before storing, so where one fails the array keeps its
            # contents. (Its index checks need nothing: a store at an index out of range stores nothing, and one
            # element written through a joined view stays one store.)
            if keep or any(kind is not IndexError for _, kind, _ in self.program.checks[before:]):
                new = unless_failed(self, target, new)
            self.memory.write(self, target, new)
        if self.failed and self.guard is not None:
            self.guard(store)
        else:
            store()

    def failed_flag(self) -> Var:
        """Whether a check raised so far on this path failed: the OR of their flags (computed once)."""
        flag = self.failed[0]
        for other in self.failed[1:]:
            flag = self.emit1("or", [flag, other], dtypes.BOOL, ())
        self.failed = [flag]
        return flag

    def emit(self, prim: str, inputs: list, outs: list, /, weak: bool = False, scalar: bool = False, **params) -> list:
        """Add `prim` with result types `outs` [(dtype, shape)]; returns the result Vars."""
        if self.memory is not None:
            self.memory.check_current(inputs)   # never compute with a version of an array that was overwritten
        for dt, shape in outs:
            _check_static_size(dt, shape)
        results = [Var(np.dtype(dt), tuple(shape), weak=weak, scalar=scalar and len(shape) == 0) for dt, shape in outs]
        if any(getattr(v, "int_argument", False) for v in inputs if isinstance(v, Var)):
            _follow_int_argument(prim, inputs, results)
        if prim not in VIEW_PRIMS and prim not in _SIZED_ELSEWHERE:
            for v in results:
                self._check_data_sized(v)
        self.eqns.append(Eqn(prim, list(inputs), results, params, self.loc))
        if self.memory is not None and prim in VIEW_PRIMS:
            self.memory.record_view(prim, inputs, results[0], params)
        return results

    def _check_data_sized(self, v: Var) -> None:
        """An array with a size computed from the data (shape_ops.kernel_size) whose bytes exceed this machine's
        memory: NumPy's MemoryError at the call (each of its dims alone was checked; their product is checked here,
        once per shape in each block, before the first array of that shape). The statement that makes it then runs
        only if it fits (control.guarded): a failed allocation in the kernel could not unwind."""
        dims = [self.env.find(d) for d in v.shape]
        if not any(data_sized(d) for d in dims) or len(dims) == 1 and v.dtype.itemsize == 1:
            return
        seen = self._data_sized_checked.setdefault(id(self.eqns), (self.eqns, set()))[1]
        key = (tuple(map(str, dims)), v.dtype.itemsize)
        if key in seen:
            return
        seen.add(key)
        with self.recording() as made:
            too_big = self.exceeds_memory(dims, v.dtype)
        self.eqns.extend(made)
        self.size_checks[too_big.id] = (made, dims)
        self.check(too_big, MemoryError, f"Unable to allocate an array of shape {tuple(map(str, dims))} and data "
                                         f"type {v.dtype}: more than this machine's memory")

    def exceeds_memory(self, dims, dtype) -> Var:
        """Whether an array of these dims and dtype needs more bytes than this machine's memory (a 0-d bool,
        computed in float64: no overflow)."""
        from ..runtime.allocation import memory_limit
        nbytes = self.const(np.float64(np.dtype(dtype).itemsize))
        for d in dims:
            size = self.emit1("size_value", [], dtypes.INT64, (), dim=d)
            nbytes = self.emit1("mul", [nbytes, self.convert(size, dtypes.FLOAT64)], dtypes.FLOAT64, ())
        return self.emit1("gt", [nbytes, self.const(np.float64(memory_limit()))], dtypes.BOOL, ())

    def emit1(self, prim: str, inputs: list, dtype, shape, /, **kw) -> Var:
        return self.emit(prim, inputs, [(dtype, shape)], **kw)[0]

    def const(self, value, dtype=None) -> Var:
        arr = np.asarray(value) if dtype is None else np.asarray(value).astype(dtype)
        dtypes.check_supported(arr.dtype, "a constant")
        return self.emit1("const", [], arr.dtype, arr.shape, value=arr, scalar=arr.ndim == 0)

    def convert(self, v: Var, dtype) -> Var:
        dtype = np.dtype(dtype)
        if v.dtype == dtype:
            return v
        return self.emit1("convert", [v], dtype, v.shape, weak=False, scalar=v.scalar, dtype=dtype)


_MAX_INTP = 2**63 - 1


def _check_static_size(dtype, shape) -> None:
    """NumPy's errors for an array that no address space holds, raised while compiling (the MLIR types of such
    shapes overflow, and MLIR aborts the process): a dim past intp, and a product of the static dims (with the item
    size) past it. Run-time dims count as 1: an array with a run-time 0 among them is refused too, where NumPy may
    make it (its check multiplies in order)."""
    nbytes = np.dtype(dtype).itemsize
    for d in shape:
        if isinstance(d, (int, np.integer)):
            if d > _MAX_INTP:
                raise UserError("Maximum allowed dimension exceeded", ValueError)
            nbytes *= int(d)
    if nbytes > _MAX_INTP:
        raise UserError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
                        ValueError)


def is_weak(value) -> bool:
    """A Python bool/int/float (compile time) or a run-time value that came from one."""
    if isinstance(value, Var):
        return value.weak
    return isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic)


def operand_type(value):
    """What NumPy's promotion sees: a dtype (strong) or the Python scalar type (weak)."""
    if isinstance(value, Var):
        if value.weak:
            return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[value.dtype.kind]
        return value.dtype
    if is_weak(value):
        return dtypes.weak_type(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.check_supported(value.dtype, "an operand")
    raise UserError(f"unsupported operand type {type(value).__name__}", TypeError)


def as_operand(value):
    """Lists and tuples of numbers become arrays, as NumPy does when they are passed to a ufunc."""
    if isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError as e:
            raise UserError(str(e), ValueError) from None
        if arr.dtype == object:
            raise UserError("a list of run-time arrays cannot be used as an operand here; use np.stack", TypeError)
        return arr
    return value


def coerce(b: Builder, value, dtype: np.dtype) -> Var:
    """The operand as a Var of `dtype`: casts are explicit `convert` primitives, constants are converted now."""
    if isinstance(value, Var):
        return b.convert(value, dtype)
    if is_weak(value):
        return b.const(dtypes.weak_to_dtype(value, dtype))
    return b.const(np.asarray(value).astype(dtype))


def check_python_int_fits(b: Builder, value, dtype: np.dtype) -> None:
    """NumPy 2 converts a Python int to a narrower integer dtype by its value (NEP 50): `uint8_array + n`,
    `x[0] = n`, `np.full(3, n, np.uint8)` raise OverflowError where the dtype cannot hold n. For a run-time Python
    int (an array dim, a loop index; an int argument specializes instead) the kernel checks it: a cast would wrap
    (x + (n - 5) with n = 3 adding 254 to a uint8 array)."""
    if not (isinstance(value, Var) and value.weak and value.dtype == dtypes.INT64 and np.dtype(dtype).kind in "iu"
            and np.dtype(dtype) != dtypes.INT64) or getattr(value, "int_argument", False):
        return
    if np.dtype(dtype) == np.int32 and (value.size_of is not None or getattr(value, "small", False)):
        # a dim or a loop index (plus or minus one): past int32 only with an axis of 2**31 elements. Unchecked, so
        # that `idx[i] = i` stays a plain store (a check guards the store: the loop no longer vectorizes)
        return
    info = np.iinfo(dtype)
    flag = b.emit1("lt", [value, b.const(np.int64(max(info.min, -2**63)))], dtypes.BOOL, value.shape)
    if info.max < 2**63:
        above = b.emit1("gt", [value, b.const(np.int64(info.max))], dtypes.BOOL, value.shape)
        flag = b.emit1("or", [flag, above], dtypes.BOOL, value.shape)
    if value.ndim:
        from .reductions import reduce
        flag = reduce(b, "any", flag)
    b.check(flag, OverflowError, f"Python integer out of bounds for {np.dtype(dtype)}")


def _follow_int_argument(prim: str, inputs: list, results: list) -> None:
    """A Python int argument is a run-time value (api.Transpiled._typed); weak ints computed from it are marked
    too. NumPy decides by an int's value whether it fits a narrower integer dtype (`uint8_array + 300` raises
    OverflowError): where one meets such a dtype, the program needs the value, and typing stops so that the
    signature's ints specialize."""
    if prim == "convert" and results[0].dtype.kind in "iu" and results[0].dtype != dtypes.INT64:
        raise UserError(f"a Python int argument cast to {results[0].dtype}: NumPy checks its value", TypeError)
    for v in results:
        if v.weak:
            v.int_argument = True


# primitives whose results' sizes are checked where they are made: the constructors (shape_ops.fitting), and the
# size values those checks read
_SIZED_ELSEWHERE = frozenset({"full", "tri", "size_value"})

