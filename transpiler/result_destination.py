"""The returned array as a destination the caller allocates: for a function that returns one new array computed
elementwise (`x + 1`, `np.exp(a) * b`), whose shape follows from the arguments' shapes, the call allocates the
result with `np.empty` (NumPy's allocator, with its cache of small blocks) and passes it to the kernel as one more
input, which the kernel's last loop writes into (a written argument: backend/destinations._compute_into_arguments).

Before, the kernel allocated the result and the call adopted its buffer (`np.asarray` of an `__array_interface__`
that frees it when the array dies, runtime/memref.py): about 2 us of a 5 us call on a small array
(docs/performance.md, "A cheap call"). `np.empty` costs about 0.15 us.

Only where nothing else changes: one returned array, made by an elementwise primitive at the top level (its loop is
a linalg.generic into a fresh tensor, which becomes the argument itself: no copy), no check flags, no rebound
attributes, sizes computable from the arguments' shapes before the call. Every other program returns what its
kernel allocates, as before.
"""
from __future__ import annotations

from .codegen import emitter as _emitter, elementwise as _elementwise_codegen
from .program import RESULT_DESTINATION, Var
from .types.shapes import Sym, dim_source

# the emitters that lower a primitive to one linalg.generic into a fresh `tensor.empty` (codegen/elementwise.py)
_ELEMENTWISE_EMITTERS = frozenset([_elementwise_codegen._elementwise, _elementwise_codegen._convert,
                                   _elementwise_codegen._ipow, _elementwise_codegen._int_overflows])
# dim expressions evaluated in Python before the call (types/shapes._OPS without the kernel-checked ones: `same`,
# `bcast`, `upto` and `ifneg` stand for comparisons only the kernel makes)
_OPERATORS = {"add": "({} + {})", "sub": "({} - {})", "mul": "({} * {})", "floordiv": "({} // {})",
              "min": "min({}, {})", "max": "max({}, {})"}


# (tests of what the kernel's own allocation does, tests/test_result_cache.py, turn it off)
ENABLED = True


def pass_result_destination(program, template, attributes) -> int | None:
    """Make the program write its returned array into one more input (the last one) instead of returning it, where
    that changes nothing but who allocates it (module doc); that input's index, or None (the program unchanged)."""
    if not ENABLED or attributes or program.checks or len(program.outputs) != 1 or template != ("out", 0, "array"):
        return None
    result = program.outputs[0]
    if result.dtype.kind not in "biufc" or any(final is result for _, final in program.writes):
        return None
    producer = next((e for e in program.eqns if any(v is result for v in e.outputs)), None)
    if producer is None or _emitter.EMITTERS.get(producer.prim) not in _ELEMENTWISE_EMITTERS:
        return None
    if shape_source([program.env.find(d) for d in result.shape]) is None:
        return None
    destination = Var(result.dtype, result.shape, layout=True)
    program.inputs.append(destination)
    program.input_names.append(RESULT_DESTINATION)
    program.writes.append((destination, result))
    program.outputs = []
    return len(program.inputs) - 1


def shape_source(dims: list, array: str = "arrays[{}]", ranks: list | None = None) -> str | None:
    """The shape as a Python expression over the kernel's input arrays (`array`: how the i-th one is written), or
    None when a dim does not follow from the arguments' shapes. `ranks`: the inputs' ranks, to write an input's
    whole shape as its `.shape`."""
    terms = [_dim_source(d, array) for d in dims]
    if any(t is None for t in terms):
        return None
    if ranks is not None and dims and all(isinstance(d, Sym) and d.origin[0] == "arg" for d in dims):
        whole = dims[0].origin[1]
        if isinstance(whole, int) and whole < len(ranks) and ranks[whole] == len(dims) \
                and [d.origin[1:] for d in dims] == [(whole, k) for k in range(len(dims))]:
            return f"{array.format(whole)}.shape"
    return f"({''.join(t + ', ' for t in terms)})"


def _dim_source(d, array: str) -> str | None:
    """shapes.dim_source, and sums, products ... of such sizes."""
    source = dim_source(d, array)
    if source is not None or not isinstance(d, Sym):
        return source
    kind = d.origin[0]
    if kind in _OPERATORS and len(d.origin) == 3:
        if kind == "floordiv" and not (isinstance(d.origin[2], int) and d.origin[2] > 0):
            return None     # (a division by a size: zero is the size checks' error, before the call)
        operands = [_dim_source(o, array) for o in d.origin[1:]]
        return None if None in operands else _OPERATORS[kind].format(*operands)
    return None


def destination_shape(program, index: int, array: str = "arrays[{}]") -> str:
    """The destination's shape for a call, as a Python expression over the kernel's inputs (module doc)."""
    return shape_source([program.env.find(d) for d in program.inputs[index].shape], array,
                        [v.ndim for v in program.inputs])


def shape_function(program, index: int):
    """shape(arrays): the destination's shape for this call (generated once per specialization)."""
    namespace: dict = {}
    exec(f"def shape(arrays):\n    return {destination_shape(program, index)}", namespace)
    return namespace["shape"]
