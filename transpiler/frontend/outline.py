"""Functions compiled once and called: a Python function called again with arguments of the same types becomes
its own func.func, and each further call site is one `call` primitive, so compile time follows code size, not call
count (GPT-2's twelve transformer blocks are interpreted twice, not twelve times).

The first call of a function with a given signature is inlined (it may fuse with its neighbours); from the second
call on, the body is interpreted once more over fresh abstract arguments into a sub-program, whose dims are its own
argument Syms, and every call site maps those dims back to the caller's: output shapes, the sub-program's guards
(instantiated as the caller's guards) and its check flags (passed on as the caller's checks).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np

from ..program import Program, Var, kernel_symbol
from ..runtime.signature import build_result, is_structure_object, result_template
from ..errors import in_library
from ..types.shapes import DIM_OPS, GuardMessage, Sym, derived, required_by, what_kind
from .builder import Builder
from .memory import var_leaves
from .shape_ops import require_nonzero
from .values import contains_var


@dataclass
class Outlined:
    program: Program
    template: object
    n_results: int       # results before the check flags


def signature_key(fn, arguments: dict, made=lambda v: False):
    """A hashable description of the call's arguments, or None when the call should be inlined: no run-time
    argument, an int that is a dim (the callee may size arrays with it), an unhashable compile-time value, or an
    object compiled code made (`made`: its attributes are the caller's values)."""
    has_var = [False]

    def key(v):
        if isinstance(v, Var):
            if v.size_of is not None:
                raise _Inline
            has_var[0] = True
            return ("V", v.dtype.str, tuple(d if isinstance(d, int) else None for d in v.shape), v.weak, v.scalar)
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, tuple(key(x) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((k, key(x)) for k, x in v.items()))
        if isinstance(v, np.ndarray) or made(v) or is_structure_object(v) and contains_var(v, objects=True):
            raise _Inline   # (an object whose arrays are run-time: the callee would read the caller's Vars)
        try:
            hash(v)
        except TypeError:
            raise _Inline from None
        return ("C", type(v), v)

    try:
        k = (fn, tuple((name, key(v)) for name, v in arguments.items()))
    except _Inline:
        return None
    return k if has_var[0] else None


_MIN_OUTLINED_SIZE = 8      # primitives of the first call: a smaller helper is inlined at every call
# the same for a helper of scalars only (0-d arguments and results): an outlined call passes each in a 0-d buffer of
# its own, allocated and freed per call, while its body is a few scalar operations. nussinov's `match` (called in
# its j loop) took half of that loop's time (benchmarks/loops.py: 0.22 -> 0.11 ms). Array helpers keep the lower
# bound: inlining GPT-2's small ones (softmax, gelu ...) at every call doubled its compile time (measured)
_MIN_OUTLINED_SCALAR_SIZE = 32
INLINE_FIRST: set = set()   # functions whose long source does not make them outlined from the first call
_MIN_OUTLINED_SOURCE = 60   # AST nodes of the body
_source_sizes: dict = {}


def _source_size(node) -> int:
    if node not in _source_sizes:
        _source_sizes[node] = sum(1 for _ in ast.walk(node))
    return _source_sizes[node]


class _Inline(Exception):
    pass


class MustInline(Exception):
    """The function cannot be its own func.func: the call is inlined."""


class WritesArrays(MustInline):
    """The function writes into arrays it was passed, or returns a view of one: it must be inlined."""


class DataSizedResults(MustInline):
    """A result's size is computed inside the function from data (`x[x > 0]`): the caller, which allocates the
    results it passes to the call, cannot size it beforehand, so the call is inlined."""


class Outliner:
    def __init__(self, interp):
        self.interp = interp
        self.size: dict = {}          # signature -> primitives its first (inlined) call produced
        self.outlined: dict = {}
        self.programs: list = []      # sub-programs, in creation order (callees before their callers' use)

    def wants(self, key, node, fn=None) -> bool:
        """Outline a function whose source is long from its first call; otherwise inline the first call of a
        signature and outline the ones after it if that first call was big enough to be worth a function of its
        own. Small helpers stay inline, where they fuse with their neighbours. Library functions (stdlib's mean,
        var ...) are long only in argument handling that runs at compile time: their first call is always inline."""
        if key is None:
            return False
        if key in self.size:
            return self.size[key] >= _MIN_OUTLINED_SIZE
        return fn not in INLINE_FIRST and _source_size(node) >= _MIN_OUTLINED_SOURCE

    def inline_first(self, key, interpret, arguments):
        """Run the first call inline and remember how many primitives it produced (0 for a helper of scalars
        below _MIN_OUTLINED_SCALAR_SIZE: it stays inline)."""
        before = len(self.interp.b.eqns)
        value = interpret(arguments)
        if key is not None:
            size = len(self.interp.b.eqns) - before
            leaves: list = []
            var_leaves([arguments, value], leaves)
            if size < _MIN_OUTLINED_SCALAR_SIZE and leaves and all(not v.shape for v in leaves):
                size = 0
            self.size.setdefault(key, size)
        return value

    def call(self, fn, key, arguments: dict, interpret):
        entry = self.outlined.get(key)
        if entry is None:
            entry = self._build(fn, arguments, interpret)
            self.outlined[key] = entry
        return self._call_site(entry, arguments)

    def _build(self, fn, arguments: dict, interpret) -> Outlined:
        inputs, names = [], []
        fresh = {name: _fresh(v, name, inputs, names) for name, v in arguments.items()}
        program = Program(kernel_symbol(f"{fn.__name__}_{len(self.programs)}"), inputs, names)
        outer = self.interp.b
        memory = self.interp.memory
        before = memory.snapshot()
        self.interp.b = Builder(program)
        self.interp.b.loc = outer.loc
        self.interp.b.memory = memory
        self.interp.b.guard = outer.guard
        for v, name in zip(inputs, names):
            if not v.weak and not v.scalar:
                memory.argument(v, name)
        try:
            value = interpret(fresh)
            # a function that writes into its arguments (or any array of its caller), or returns a view of one, is
            # inlined: its writes then change the caller's arrays, and its views follow later writes
            returned = []
            var_leaves(value, returned)
            if memory.arguments_written(inputs) or memory.changed_since(before) \
                    or any(_views_outside(memory, v, before, inputs) for v in returned):
                raise WritesArrays
        finally:
            self.interp.b = outer
            memory.restore(outer, before)
        outputs: list = []
        template = result_template(value, inputs, outputs)
        if not all(_caller_sizes(program.env, d) for v in outputs for d in v.shape):
            raise DataSizedResults
        n_results = len(outputs)
        program.outputs = outputs + [flag for flag, _, _ in program.checks]
        program.check()
        self.programs.append(program)
        return Outlined(program, template, n_results)

    def _call_site(self, entry: Outlined, arguments: dict):
        b = self.interp.b
        callee = entry.program
        leaves: list = []
        for v in arguments.values():
            var_leaves(v, leaves)
        subst: dict = {}
        for formal, actual in zip(callee.inputs, leaves):
            for d, a in zip(formal.shape, actual.shape):
                if isinstance(d, Sym):
                    subst[d] = a
        env = callee.env

        def dim(d):
            d = env.find(d)
            if isinstance(d, int):
                return d
            if d in subst:
                return subst[d]
            kind, *operands = d.origin
            if kind in DIM_OPS:
                return derived(kind, *(dim(o) for o in operands))
            subst[d] = Sym(f"{d.name}@{callee.name}", ("result", callee.name))
            return subst[d]

        for a, c, what in env.guards:
            kind = what_kind(what)
            what = _at_users_line(b, what)
            b.env.unify(dim(a), dim(c), GuardMessage(what, kind) if kind is not ValueError else what, kind)
        for d, message in env.nonzero:
            target = b.env.find(dim(d))
            if isinstance(target, Sym):      # (a caller's size only the kernel knows: checked in it, before the call)
                require_nonzero(b, target, _at_users_line(b, message))
        outs = [Var(v.dtype, tuple(dim(d) for d in v.shape), weak=v.weak, scalar=v.scalar) for v in callee.outputs]
        b.eqns.append(_call_eqn(b, callee, leaves, outs))
        for (flag, kind, message), out in zip(callee.checks, outs[entry.n_results:]):
            b.check(out, kind, _at_users_line(b, message))
        # the callee's return value at the call site: its results are Vars here, taken as they are
        return build_result(entry.template, outs[:entry.n_results], leaves, leaf=lambda v, kind: v)


_REQUIRED_BY = re.compile(r"\n  required by (.*?):\d+:\d+: ")


def _at_users_line(b: Builder, message: str) -> str:
    """A check or guard of a library function compiled once and called (np.average's second call): named at the
    user's line that called it, not the library's (the user's line differs from one call to the next)."""
    where = _REQUIRED_BY.search(message)
    if where is None or b.user_loc is None or not in_library(where.group(1)):
        return message
    return required_by(message[:where.start()], b.user_loc)


def _caller_sizes(env, d) -> bool:
    """Whether a callee's dim is an expression of its arguments' dims, which the call site can compute."""
    d = env.find(d)
    if isinstance(d, int) or d.origin[0] == "arg":
        return True
    return d.origin[0] in DIM_OPS and all(_caller_sizes(env, o) for o in d.origin[1:])


def _views_outside(memory, v, before: dict, inputs: list) -> bool:
    """A returned value that views an array the callee did not create (an input, or an array of its caller)."""
    if any(v is i for i in inputs):
        return False       # the input itself: the call site gives the caller's value back
    return any(memory.existed(before, buf) or any(buf.argument is i for i in inputs) for buf, _ in memory.deps(v))


def _call_eqn(b: Builder, callee: Program, leaves, outs):
    from ..program import Eqn
    return Eqn("call", list(leaves), outs, {"callee": callee.name, "_program": callee}, b.loc)


def _fresh(v, path: str, inputs: list, names: list):
    """The callee's view of an argument: run-time leaves become its inputs, with dims of their own."""
    if isinstance(v, Var):
        index = len(inputs)
        shape = tuple(d if isinstance(d, int) else Sym(f"{path}.shape[{i}]", ("arg", index, i))
                      for i, d in enumerate(v.shape))
        fresh = Var(v.dtype, shape, weak=v.weak, scalar=v.scalar)
        inputs.append(fresh)
        names.append(path)
        return fresh
    if isinstance(v, (list, tuple)):
        items = [_fresh(x, f"{path}[{i}]", inputs, names) for i, x in enumerate(v)]
        return tuple(items) if isinstance(v, tuple) else items
    if isinstance(v, dict):
        return {k: _fresh(x, f"{path}[{k!r}]", inputs, names) for k, x in v.items()}
    return v


