"""The typed program: a small SSA list of primitives, every value with dtype, shape and source location.

It is what the frontend produces and codegen consumes (like a jaxpr), printed by `--emit typed` and re-checked by
`check` before codegen so that a frontend bug surfaces as a clear internal error rather than an MLIR verifier dump.
"""
from __future__ import annotations

import ctypes
import itertools
import os
import re
from dataclasses import dataclass, field

import numpy as np

from .types.shapes import ShapeEnv, fmt_shape, sym_text

_ids = itertools.count()
# the input name of the returned array's destination, an input the call allocates (result_destination.py)
RESULT_DESTINATION = "(result)"


def next_var_id() -> int:
    """An id no Var made so far has (Var ids only grow)."""
    return next(_ids)


@dataclass(eq=False)
class Var:
    """A value known only at run time. `scalar` marks a rank-0 value that NumPy would hand back as a NumPy scalar
    (ufunc and reduction results) rather than a 0-d array; `weak` marks a Python scalar (NEP 50 weak)."""
    dtype: np.dtype
    shape: tuple
    weak: bool = False
    scalar: bool = False
    size_of: object = None  # for an int that is a dim (x.shape[0], n // 3 ...): that dim, so it can size arrays
    from_list: bool = False  # a Python list argument (data): Python operators on it are not NumPy's
    # an array argument's layout, from the key (runtime/signature.layout): True (C-contiguous), "line" (not, but
    # its non-unit dims one stride apart: NumPy makes a reshape of it a view), False (neither); None: not known
    layout: object = None
    ref: object = field(default=None, repr=False)  # frontend only: the buffer and view it is (frontend/memory.py)
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"%{self.id}"

    def type_text(self) -> str:
        weak = "weak " if self.weak else ""
        return f"{weak}{self.dtype}{sym_text(self.shape)}"


@dataclass(frozen=True)
class Loc:
    filename: str
    lineno: int
    col: int

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno}:{self.col + 1}"


@dataclass(eq=False)
class Eqn:
    prim: str
    inputs: list
    outputs: list
    params: dict
    loc: Loc | None

    def text(self, indent: str = "  ") -> str:
        outs = ", ".join(f"{v}:{v.type_text()}" for v in self.outputs)
        params = " ".join(f"{k}={_param_text(v)}" for k, v in self.params.items()
                          if not k.startswith("_") and not isinstance(v, Block))
        args = ", ".join(map(repr, self.inputs))
        loc = f"  # {self.loc}" if self.loc else ""
        head = f"{indent}{outs + ' = ' if outs else ''}{self.prim}{' ' + params if params else ''} {args}".rstrip()
        lines = [head + loc]
        for name, block in self.params.items():
            if isinstance(block, Block):
                lines.append(f"{indent}  {name}({', '.join(map(repr, block.args))}):")
                lines += [e.text(indent + "    ") for e in block.eqns]
                lines.append(f"{indent}    yield {', '.join(map(repr, block.results))}")
        return "\n".join(lines)


@dataclass(eq=False)
class Block:
    """A region of a control-flow primitive: its arguments, its primitives and the values it yields."""
    args: list
    eqns: list
    results: list


def _param_text(v) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=8, separator=",").replace("\n", "") if v.ndim else repr(v.item())
    if isinstance(v, np.dtype):
        return str(v)
    return repr(v)


@dataclass
class Program:
    name: str
    inputs: list            # Vars, in kernel-argument order
    input_names: list       # how each input is reached from the Python arguments, e.g. "blocks[0]['ln_1']['g']"
    eqns: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    env: ShapeEnv = field(default_factory=ShapeEnv)
    # run-time checks the kernel reports instead of trapping (an out-of-range gather id ...): (flag Var, exception
    # type, message); each flag is an extra kernel result, raised in the caller when set
    checks: list = field(default_factory=list)
    callees: list = field(default_factory=list)   # programs of the functions it calls (`call` primitives)
    # arguments the function writes into: (input Var, its final contents); the kernel stores each final value into
    # the caller's array, in place
    writes: list = field(default_factory=list)
    # module-level arrays the program read (and folded in as constants): (the module's dict, name, the array); the
    # kernel is only valid while each name still holds that array (checked at every call: runtime/globals_guard.py)
    globals_read: list = field(default_factory=list)
    # module-level arrays too large to compare at each call: kernel inputs after the arguments' (in this order),
    # passed as they are at every call, so a change in place is read (frontend/infer.Interpreter.module_array)
    implicit: list = field(default_factory=list)

    def text(self) -> str:
        """The program, preceded by the functions it calls."""
        return "".join(c.own_text() + "\n" for c in self.callees) + self.own_text()

    def signature_text(self) -> str:
        """The kernel's inputs as `name: dtype[dims]`, e.g. `x: float32[?,768], n: int` (the --arg syntax)."""
        def text(v):
            if v.weak:   # a Python scalar
                return {"b": "bool", "i": "int", "f": "float", "c": "complex"}[v.dtype.kind]
            return f"{v.dtype}{fmt_shape(v.shape) if v.shape else ''}"
        return ", ".join(f"{n}: {text(v)}" for n, v in zip(self.input_names, self.inputs)
                         if n != RESULT_DESTINATION)

    def own_text(self) -> str:
        params = ", ".join(f"{n}: {v.type_text()} {v}" for n, v in zip(self.input_names, self.inputs))
        lines = [f"func {self.name}({params}) -> ({', '.join(v.type_text() for v in self.outputs)}):"]
        lines += [e.text() for e in self.eqns]
        for a, b, _ in self.env.guards:
            lines.append(f"  guard {a} == {b}")
        for arg, final in self.writes:
            lines.append(f"  store {final} into {arg}")
        for flag, kind, message in self.checks:
            lines.append(f"  check {flag} else {kind.__name__}({message!r})")
        lines.append(f"  return {', '.join(map(repr, self.outputs))}")
        return "\n".join(lines) + "\n"

    def check(self) -> None:
        """Every value is defined before it is used, and regions only see values that dominate them."""
        defined = set(map(id, self.inputs))
        _check_eqns(self.eqns, defined)
        for v in self.outputs + [final for _, final in self.writes]:
            if id(v) not in defined:
                raise AssertionError(f"typed program: output {v} is not defined")


def _check_eqns(eqns, defined: set) -> None:
    for e in eqns:
        for v in e.inputs:
            if id(v) not in defined:
                raise AssertionError(f"typed program: {v} used before definition in: {e.text()}")
        for block in (b for b in e.params.values() if isinstance(b, Block)):
            inner = defined | set(map(id, block.args))
            _check_eqns(block.eqns, inner)
            for v in block.results:
                if id(v) not in inner:
                    raise AssertionError(f"typed program: {v} yielded but not defined in: {e.text()}")
        defined.update(map(id, e.outputs))


_PROCESS = ctypes.CDLL(None)
# prefixes of the symbols MLIR's lowering, the runtime and LLVM's compiler runtime define or call
_RESERVED_PREFIXES = ("_mlir", "mlir", "llvm", "transpiler_", "__", "omp_", "kmp_", "cblas_")


def kernel_symbol(name: str) -> str:
    """The symbol of a compiled function named `name`: an identifier, with `_k` appended while it is a symbol the
    process already has (the C library's, libm's, found with dlsym) or one the lowering may define or call. A
    function named `malloc`, `sin`, `exp` or `memcpy` was emitted over the C function that the kernel itself calls:
    an internal compiler error, and an abort of the process for `malloc`."""
    symbol = re.sub(r"\W", "_", name) or "kernel"
    if symbol.startswith(_RESERVED_PREFIXES):
        symbol = "k_" + symbol
    while _in_process(symbol):
        symbol += "_k"
    return symbol


def _in_process(symbol: str) -> bool:
    try:
        getattr(_PROCESS, symbol)
    except AttributeError:
        return False
    return True
