"""Which NumPy functions, methods and attributes the compiler understands on run-time arrays.

FUNCTIONS maps the Python object (np.tanh, np.where ...) to a handler `(builder, *args, **kwargs) -> value`;
METHODS and ATTRIBUTES map names on a run-time array. A call whose arguments hold no run-time value is not looked
up here at all: it runs in NumPy at compile time (constant folding).
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import sym_text
from .builder import as_operand, coerce, operand_type
from .memory import Step
from . import complex_parts
from . import elementwise as ew
from . import outline
from . import reductions as red
from .values import contains_var, current_interpreter

FUNCTIONS: dict = {}
METHODS: dict = {}
ATTRIBUTES: dict = {}
# NumPy functions that allocate a new array: called in compiled code they make a run-time array even when every
# argument is known at compile time (the program may write into it)
ALLOCATORS = frozenset({np.zeros, np.ones, np.empty, np.full, np.ndarray})
# NumPy iterators that loops over run-time shapes (and long compile-time ones) run as one run-time loop: handled
# even when every argument is known at compile time
LOOP_ITERATORS = frozenset({np.ndindex, np.ndenumerate})


def function(*objects):
    def register(handler):
        for obj in objects:
            FUNCTIONS[obj] = handler
        return handler
    return register


def method(*names):
    def register(handler):
        for name in names:
            METHODS[name] = handler
        return handler
    return register


def attribute(name):
    def register(handler):
        ATTRIBUTES[name] = handler
        return handler
    return register


def _ufunc_handler(ufunc):
    def handler(b, *args, dtype=None, out=None):
        if len(args) == ufunc.nin + 1 and out is None:     # np.add(a, b, c): the output given by position
            *args, out = args
        if len(args) != ufunc.nin:
            raise UserError(f"{ufunc.__name__}() takes {ufunc.nin} arguments ({len(args)} given)", TypeError)
        result = ew.apply_ufunc(b, ufunc, list(args), dtype=dtype)
        return result if out is None else write_out(b, out, result, ufunc.__name__)
    return handler


def write_out(b, out, result: Var, name: str) -> Var:
    """`out=`: the result stored into out, which is returned (the same array, as NumPy returns it)."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, Var) or out.scalar or out.weak:
        raise UserError(f"{name}(): out= must be a run-time array made or passed to the compiled function", TypeError)
    b.write(out, lambda: into_out(b, out, result, name))
    return b.memory.rederive(b, out)


def into_out(b, out: Var, result: Var, name: str) -> Var:
    """What a ufunc writes into an existing array (`out=`, and `x op= y`, which is `op(x, y, out=x)`): the result
    cast to out's dtype under NumPy's same_kind rule, and broadcast to out's shape: out's new contents. Sizes only
    the kernel can compare with out's (`x[:n] += x[n:2 * n]`, `y += x[a:a + n]` with run-time ints) are checked
    there, as indexing.fit_value does: NumPy's ValueError after the call, and nothing is written."""
    from .indexing import fit_value
    if result.dtype != out.dtype and not np.can_cast(result.dtype, out.dtype, "same_kind"):
        raise UserError(f"Cannot cast ufunc '{name}' output from {result.dtype!r} to {out.dtype!r} with casting rule "
                        "'same_kind'", TypeError)
    static = [(b.env.find(r), b.env.find(o)) for r, o in zip(result.shape[::-1], out.shape[::-1])]
    if result.ndim > out.ndim or any(isinstance(r, int) and isinstance(o, int) and r not in (1, o) for r, o in static):
        raise UserError(f"non-broadcastable output operand with shape {sym_text(out.shape)} doesn't match the "
                        f"broadcast shape {sym_text(result.shape)}", ValueError)
    value = fit_value(b, result, out.dtype, out.shape, kernel_checked=True)
    if all(b.env.same_expression(d, e) for d, e in zip(value.shape, out.shape)):
        return value
    # cut to the common sizes, 0 where they differ (the call then raises): stored over out's start
    specs = tuple(("all",) if b.env.same_expression(d, e) else ("range", 0, d, 1)
                  for d, e in zip(value.shape, out.shape))
    return b.emit1("update_slice", [out, value], out.dtype, out.shape, specs=specs)


def _with_out(handler, name):
    """A function that takes out= (np.matmul, np.dot): its result written into out."""
    def wrapped(b, *args, out=None, **kwargs):
        result = handler(b, *args, **kwargs)
        return result if out is None else write_out(b, out, result, name)
    return wrapped


for _uf in ew.UFUNC_PRIMS:
    FUNCTIONS[_uf] = _ufunc_handler(_uf)



@function(np.where)
def _where(b, condition, *xy):
    """np.where(cond, x, y) elementwise; np.where(cond) is np.nonzero(cond)."""
    from . import selection
    if not xy:
        return selection.nonzero(b, condition)
    if len(xy) != 2:
        raise UserError("either both or neither of x and y should be given", ValueError)
    return ew.where(b, condition, *xy)


_UNSET = object()


@function(np.clip)
def _np_clip(b, a, a_min=_UNSET, a_max=_UNSET, out=None, *, min=_UNSET, max=_UNSET):
    """np.clip's arguments as NumPy 2 takes them: both bounds by position (or neither), or `min=`/`max=`."""
    if a_min is _UNSET and a_max is _UNSET:
        a_min, a_max = (None if v is _UNSET else v for v in (min, max))
    elif a_min is _UNSET or a_max is _UNSET:
        missing = "a_min" if a_min is _UNSET else "a_max"
        raise UserError(f"clip() missing 1 required positional argument: '{missing}'", TypeError)
    elif min is not _UNSET or max is not _UNSET:
        raise UserError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided is "
                        "forbidden.", ValueError)
    return _clipped(b, a, a_min, a_max, out)


@method("clip")
def _clip_method(b, a, min=None, max=None, out=None):
    """ndarray.clip(min=None, max=None, out=None): its bounds are named min and max."""
    return _clipped(b, a, min, max, out)


def _clipped(b, a, low, high, out):
    result = ew.clip(b, a, low, high)
    return result if out is None else write_out(b, out, result, "clip")


method("astype")(ew.astype)
attribute("real")(complex_parts.real)
attribute("imag")(complex_parts.imag)
function(np.real)(complex_parts.real)
function(np.imag)(complex_parts.imag)
function(np.angle)(complex_parts.angle)
method("conj", "conjugate")(complex_parts.conj_method)


@function(np.divmod)
def _divmod(b, x1, x2, /, out=None, dtype=None):
    """np.divmod: NumPy's loop computes both with npy_divmod, the same results as floor_divide and remainder."""
    if out is not None:
        raise UserError("np.divmod(out=) is not supported in compiled code: assign its two results", TypeError)
    return (ew.apply_ufunc(b, np.floor_divide, [x1, x2], dtype=dtype),
            ew.apply_ufunc(b, np.remainder, [x1, x2], dtype=dtype))


@function(np.frexp)
def _frexp(b, x, /, out=None, dtype=None):
    """np.frexp: (mantissa, int32 exponent) in NumPy's loop dtype for x (float16 for int8, uint8 and bools, float32
    for int16 and uint16, float64 for wider ints), each part one primitive (codegen/scalar._frexp)."""
    if out is not None or dtype is not None:
        raise UserError("np.frexp(out=, dtype=) is not supported in compiled code: assign its two results", TypeError)
    x = as_operand(x)
    in_dts, out_dts = dtypes.resolve_ufunc(np.frexp, [operand_type(x)])
    x = coerce(b, x, in_dts[0])
    x = ew.checked_in_kernel(b, [x])[0]
    return tuple(b.emit1(prim, [x], dt, x.shape, scalar=x.ndim == 0)
                 for prim, dt in zip(("frexp_mantissa", "frexp_exponent"), out_dts))


@function(divmod)
def _builtin_divmod(b, a, c):
    """Python's divmod: `a // c, a % c` as the operators compute them (Python ints: ZeroDivisionError)."""
    return (ew.apply_ufunc(b, np.floor_divide, [a, c], python_op=True),
            ew.apply_ufunc(b, np.remainder, [a, c], python_op=True))


@function(abs)
def _builtin_abs(b, x):
    return ew.apply_ufunc(b, np.absolute, [x], python_op=True)


def _builtin_extreme(name, comparison):
    """Python's min/max on run-time scalars: the first of the smallest (largest), as Python compares them (a NaN
    first stays; a NaN later is never chosen). Python returns one of its arguments, so they must have one type."""
    def handler(b, *args, key=None, default=None):
        if key is not None or default is not None:
            raise UserError(f"{name}() with key= or default= is not supported on run-time values", TypeError)
        values = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        if not values:
            raise UserError(f"{name}() arg is an empty sequence", ValueError)
        runtime = [v for v in values if isinstance(v, Var)]
        if any(v.ndim for v in runtime):
            raise UserError("The truth value of an array with more than one element is ambiguous. Use a.any() or "
                            "a.all()", ValueError)
        dtype, weak = runtime[0].dtype, runtime[0].weak
        python_ok = weak and all(isinstance(v, Var) or type(v) is {"i": int, "f": float, "c": complex}.get(dtype.kind)
                                 for v in values)
        if any((v.dtype, v.weak) != (dtype, weak) for v in runtime) or len(runtime) < len(values) and not python_ok:
            raise UserError(f"{name}() of values of different types returns one type or the other depending on the "
                            f"values; convert them to one type first, or use np.{name}imum", TypeError)
        result = coerce(b, values[0], dtype)
        for v in values[1:]:
            v = coerce(b, v, dtype)
            better = ew.apply_ufunc(b, comparison, [v, result], python_op=True)
            result = b.emit1("select", [better, v, result], dtype, (), weak=weak, scalar=not weak)
        return result
    return handler


function(min)(_builtin_extreme("min", np.less))
function(max)(_builtin_extreme("max", np.greater))


def _scalar_type_handler(scalar_type):
    def handler(b, x=0):
        if isinstance(x, Var):
            _check_python_number(b, x, scalar_type)
            return _retag(b, x, np.dtype(scalar_type), weak=False)
        return scalar_type(x)
    return handler


for _t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
           np.float32, np.float64, np.complex64, np.complex128):
    FUNCTIONS[_t] = _scalar_type_handler(_t)


def _check_python_number(b, x: Var, dtype) -> None:
    """A run-time Python number made a NumPy integer (np.int8(v), np.array(v, np.int8)) goes through a Python int,
    as a store converts it: 300.0 or n = -1 into uint8 raise OverflowError, NaN ValueError (they were cast: 44,
    255, 0); a NumPy scalar is cast."""
    if dtype is None or not (x.weak and x.ndim == 0 and np.dtype(dtype).kind in "iu"):
        return
    from .builder import check_python_int_fits
    from .indexing import _check_scalar_store
    _check_scalar_store(b, x, np.dtype(dtype), numpy_scalars=False)
    check_python_int_fits(b, x, np.dtype(dtype))


def _python_scalar_handler(py_type):
    def handler(b, x):
        if not isinstance(x, Var):      # a container holding run-time values: bool([v]) is its length's truth
            if py_type is bool and isinstance(x, (list, tuple, dict)):
                return bool(x)
            raise UserError(f"{py_type.__name__}() of a {type(x).__name__} is not supported", TypeError)
        if x.ndim != 0:
            raise UserError("only 0-d arrays can be converted to Python scalars", TypeError)
        kind = {bool: dtypes.BOOL, int: dtypes.INT64, float: dtypes.FLOAT64, complex: np.dtype(np.complex128)}[py_type]
        if py_type in (int, float) and dtypes.is_complex(x.dtype):   # as NumPy: a scalar warns, a 0-d array refuses
            if not x.scalar:
                raise UserError(f"{py_type.__name__}() argument must be a string or a real number, not 'complex'",
                                TypeError)
            ew.warn_at(b, np.exceptions.ComplexWarning, "Casting complex values to real discards the imaginary part")
        if py_type is int and x.dtype.kind in "fc":
            # Python's int() of a float: NaN is ValueError, inf OverflowError (the cast gave INT_MIN for both, and
            # for a value past int64, where Python's int grows)
            from .python_math import float_to_int
            return float_to_int(b, x if x.dtype.kind == "f" else _retag(b, x, dtypes.FLOAT64, weak=True))
        if py_type is int and x.dtype == np.uint64:
            from .python_math import integer_to_int
            return integer_to_int(b, x)
        return _retag(b, x, kind, weak=True)
    return handler


def _retag(b, x: Var, dtype: np.dtype, weak: bool) -> Var:
    """`x` as `dtype`, a NumPy scalar (or a Python scalar when `weak`) if it has rank 0."""
    prim = "convert" if x.dtype != dtype else "copy"
    return b.emit1(prim, [x], dtype, x.shape, weak=weak, scalar=x.ndim == 0, dtype=dtype)


for _t in (bool, int, float, complex):
    FUNCTIONS[_t] = _python_scalar_handler(_t)


@function(round)
def _builtin_round(b, x, ndigits=None):
    """Python's round() of a run-time scalar. Without ndigits: a Python int, half to even (`np.rint`), NaN a
    ValueError and an infinity an OverflowError as Python's (a value past int64 is int()'s OverflowError); an int
    is itself. With ndigits: a NumPy scalar's __round__ is np.round (the scalar's type). A Python float with
    ndigits rounds in decimal, correctly rounded, which np.round's scaling does not: refused."""
    if not isinstance(x, Var):
        return round(x) if ndigits is None else round(x, ndigits)
    if x.ndim != 0 or not x.scalar and not x.weak:
        raise UserError("type numpy.ndarray doesn't define __round__ method", TypeError)
    kind = x.dtype.kind
    if kind == "c" or kind == "b" and not x.weak:
        name = "complex" if x.weak else f"numpy.{x.dtype.type.__name__}"
        raise UserError(f"type {name} doesn't define __round__ method", TypeError)
    from .python_math import integer_to_int, round_to_int
    if ndigits is None:
        return round_to_int(b, x)      # (an int, or a bool, is itself: integer_to_int)
    if not x.weak:
        return current_interpreter.get().numpy_call(np.round, [x, ndigits], {})
    if kind in "biu" and isinstance(ndigits, int) and not isinstance(ndigits, bool) and ndigits >= 0:
        return integer_to_int(b, x, "round()")
    raise UserError("round() of a run-time Python number with ndigits is not supported in compiled code (Python "
                    "rounds in decimal): use np.round(x, decimals), NumPy's rounding", TypeError)


@function(type)
def _type(b, x, *rest):
    """type(v) of a run-time value: the type it has when the kernel runs (Python's own type() would see the
    compiler's placeholder)."""
    if rest:
        raise UserError("type() with three arguments (a new class) is not supported in compiled code", TypeError)
    if not isinstance(x, Var):
        return type(x)
    if x.weak:
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[x.dtype.kind]
    return x.dtype.type if x.ndim == 0 and x.scalar else np.ndarray


@attribute("dtype")
def _dtype(b, x):
    return x.dtype


@attribute("ndim")
def _ndim(b, x):
    return x.ndim


# ---- shapes ---------------------------------------------------------------------------------------------------
def dim_value(b, x: Var, axis: int):
    """x.shape[axis]: a Python int when static, else a run-time (weak) int."""
    d = b.env.find(x.shape[axis])
    if isinstance(d, int):
        return d
    v = b.emit1("dim_size", [x], dtypes.INT64, (), weak=True, axis=axis)
    v.size_of = d
    return v


@attribute("shape")
def _shape(b, x):
    return tuple(dim_value(b, x, i) for i in range(x.ndim))


@attribute("size")
def _size(b, x):
    total = 1
    for i in range(x.ndim):
        total = total * dim_value(b, x, i)
    return total


@function(len)
def _len(b, x):
    if not isinstance(x, Var):
        return len(x)
    if x.ndim == 0:
        raise UserError("len() of unsized object", TypeError)
    return dim_value(b, x, 0)


@function(np.shape)
def _np_shape(b, x):
    return _shape(b, x)


@function(np.ndim)
def _np_ndim(b, x):
    return x.ndim


@function(np.size)
def _np_size(b, x, axis=None):
    if not isinstance(x, Var):
        return np.size(x, axis)
    if axis is None:
        return _size(b, x)
    if not -x.ndim <= axis < x.ndim:      # (np.size(x, 5): NumPy's own IndexError, as from x.shape[5])
        raise UserError("tuple index out of range", IndexError)
    return dim_value(b, x, axis % x.ndim)


def _dtype_stand_in(v):
    """A value NumPy's type queries see as they would see `v` at run time: a Python number of its kind for a weak
    (Python) scalar, a NumPy scalar for a NumPy scalar, an empty array of its dtype and rank for an array. Their
    answers depend only on that (NumPy 2 has no value-based casting), never on the values."""
    if not isinstance(v, Var):
        return [_dtype_stand_in(a) for a in v] if isinstance(v, list) else v
    if v.weak:
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[v.dtype.kind]
    if v.ndim == 0 and v.scalar:
        return v.dtype.type(0)
    return np.empty((0,) * v.ndim, v.dtype)


def _type_query(query):
    def handler(b, *args, **kwargs):
        try:
            return query(*[_dtype_stand_in(a) for a in args], **{k: _dtype_stand_in(a) for k, a in kwargs.items()})
        except (TypeError, ValueError) as e:    # (np.can_cast(1.0, ...): NumPy 2's TypeError)
            raise UserError(str(e), type(e)) from None
    return handler


for _query in (np.result_type, np.can_cast, np.iscomplexobj, np.isrealobj, np.common_type, np.isscalar):
    function(_query)(_type_query(_query))


# ---- reductions -----------------------------------------------------------------------------------------------
def _reduction(kind):
    def handler(b, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        return red.reduce(b, kind, a, axis, dtype, out, keepdims, initial, where)
    return handler


def _bool_reduction(kind):
    def handler(b, a, axis=None, out=None, keepdims=False, where=None):
        return red.reduce(b, kind, a, axis, None, out, keepdims, None, where)
    return handler


def _minmax(kind):
    def handler(b, a, axis=None, out=None, keepdims=False, initial=None, where=None):
        return red.reduce(b, kind, a, axis, None, out, keepdims, initial, where)
    return handler


def _arg(kind):
    def handler(b, a, axis=None, out=None, *, keepdims=False):
        return red.arg_reduce(b, kind, a, axis, out, keepdims)
    return handler


for _name, _objs, _h in [
    ("sum", (np.sum,), _reduction("sum")), ("prod", (np.prod,), _reduction("prod")),
    ("max", (np.max, np.amax), _minmax("max")), ("min", (np.min, np.amin), _minmax("min")),
    ("any", (np.any,), _bool_reduction("any")), ("all", (np.all,), _bool_reduction("all")),
    ("argmax", (np.argmax,), _arg("argmax")), ("argmin", (np.argmin,), _arg("argmin")),
]:
    function(*_objs)(_h)
    method(_name)(_h)


# ---- library functions: Python source in stdlib/, compiled like user code --------------------------------------
class Library:
    """A NumPy function implemented in stdlib/: calling it compiles its source."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, b, *args, **kwargs):
        return current_interpreter.get().call(self.fn, list(args), kwargs)


def _library_entry(fn) -> Library:
    outline.INLINE_FIRST.add(fn)
    return Library(fn)


def library(fn, *numpy_objects, methods=()):
    entry = _library_entry(fn)
    for obj in numpy_objects:
        FUNCTIONS[obj] = entry
    for name in methods:
        METHODS[name] = entry


def _view_like(fn, name, place):
    """A library function whose result NumPy makes a read-only view of its argument (np.diagonal, np.diag of a 2-D
    array), where ours computes a copy: the result is recorded as that view (memory.readonly_view: a write through
    it is NumPy's ValueError, a write into the argument is seen through it, returned it is NumPy's read-only view of
    the caller's array). `place(*args, **kwargs)`: the call's (offset, axis1, axis2)."""
    entry = _library_entry(fn)

    def handler(b, a, *args, **kwargs):
        result = entry(b, a, *args, **kwargs)
        if isinstance(a, Var) and isinstance(result, Var) and result.ndim < a.ndim:
            offset, axis1, axis2 = place(*args, **kwargs)
            params = _diagonal_params(b, a, result, offset, axis1, axis2)
            why = (f"{name} of an array is a read-only view of it in NumPy: write into the array itself "
                   f"(`x[i, i] = ...`), or into a copy of the diagonal (`{name}(...).copy()`)")
            if params is None or not b.memory.readonly_view(a, result, params, why):
                known = all(isinstance(k, (int, np.integer)) for k in (axis1, axis2))
                step = Step("diagonal", {"offset": None if isinstance(offset, Var) else offset, "axis1": axis1,
                                         "axis2": axis2}, (offset,) if isinstance(offset, Var) else (), result.dtype,
                            result.shape, False) if known else None
                result = b.memory.readonly_alias(a, result, step, f"{name} of an array, which NumPy makes a "
                                                                  "read-only view")
        return result
    return handler


def _diagonal_params(b, a: Var, out: Var, offset, axis1, axis2):
    """The diagonal's position in `a` as view_params (memory.py): starts over a's axes, out's sizes, then one step
    vector over a's axes per dim of out (the other axes in order, then the diagonal: one step along both axes).
    None when an axis is not a Python int (the library raised already for bad ones)."""
    if not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in (axis1, axis2)):
        return None
    n = a.ndim
    axis1, axis2 = int(axis1) % n, int(axis2) % n

    def const(v):
        return ew.int64_const(b, v)
    if isinstance(offset, Var):
        k = b.convert(offset, dtypes.INT64)
        k = b.emit1("copy", [k], dtypes.INT64, ()) if k.scalar or k.weak else k
        zero = const(0)
        row = b.emit1("max", [b.emit1("neg", [k], dtypes.INT64, ()), zero], dtypes.INT64, ())
        col = b.emit1("max", [k, zero], dtypes.INT64, ())
    elif isinstance(offset, (int, np.integer)):
        row, col = const(max(-int(offset), 0)), const(max(int(offset), 0))
    else:
        return None
    starts = [row if axis == axis1 else col if axis == axis2 else const(0) for axis in range(n)]
    sizes = ew.size_values(b, out.shape)
    rest = [axis for axis in range(n) if axis not in (axis1, axis2)]
    steps = [const(int(j == r)) for r in rest for j in range(n)] + \
        [const(int(j in (axis1, axis2))) for j in range(n)]
    return starts + sizes + steps


def _one_count_repeat(fn):
    """np.repeat / x.repeat, refusing a count per element where the user called it (not inside stdlib's source)."""
    entry = _library_entry(fn)

    def handler(b, a, repeats, *args, **kwargs):
        if isinstance(repeats, (list, tuple)) or isinstance(repeats, Var) and repeats.ndim != 0 \
                or isinstance(repeats, np.ndarray) and repeats.ndim != 0:
            raise UserError("np.repeat in compiled code: repeats must be one int (the same count for every "
                            "element); a count per element (a list or an array of counts) is not supported: the "
                            "result's size is the counts' sum, known only from the data. Call np.repeat outside the "
                            "compiled function, or write the loop that copies each element its count of times",
                            TypeError)
        return entry(b, a, repeats, *args, **kwargs)
    return handler


def _array_only_trim_zeros(fn):
    """np.trim_zeros of arrays: NumPy slices a list or tuple argument itself and returns a list or tuple."""
    entry = _library_entry(fn)

    def handler(b, filt, *args, **kwargs):
        if isinstance(filt, (list, tuple)) or isinstance(filt, Var) and filt.from_list:
            raise UserError("np.trim_zeros of a list or tuple returns a list or tuple in NumPy, which compiled code "
                            "does not: convert it with np.asarray first", TypeError)
        return entry(b, filt, *args, **kwargs)
    return handler


def _raise_if(b, flag, kind, message):
    """stdlib's raise_if on a run-time flag: a check the kernel makes, raised as kind(message) after the call."""
    if flag.ndim:
        flag = red.reduce(b, "any", flag, None, None, None, False, None, None)
    b.check(flag, kind, message)


def _register_stdlib():
    from ..stdlib import numeric
    library(numeric.mean, np.mean, methods=("mean",))
    library(numeric.var, np.var, methods=("var",))
    library(numeric.std, np.std, methods=("std",))
    from ..stdlib import functions as fn
    for name in ("roll", "diff", "tile", "pad", "outer", "kron", "tensordot", "ptp", "append", "delete", "insert",
                 "moveaxis", "rollaxis", "matrix_transpose"):
        library(getattr(fn, name), getattr(np, name))
    for name in ("cumsum", "cumprod", "repeat", "trace"):     # also methods of arrays
        library(getattr(fn, name), getattr(np, name), methods=(name,))
    library(fn.round, np.round, np.around, methods=("round",))
    for ufunc in ew.UFUNC_PRIMS:
        library(fn.ufunc_at(ufunc), ufunc.at)
        if ufunc.nin == 2:
            library(fn.ufunc_outer(ufunc), ufunc.outer)
            library(fn.ufunc_reduce(ufunc), ufunc.reduce)
            library(fn.ufunc_accumulate(ufunc), ufunc.accumulate)
    for name in ("isclose", "allclose", "count_nonzero", "meshgrid", "linspace", "logspace", "average", "cov",
                 "corrcoef"):
        library(getattr(fn, name), getattr(np, name))
    from ..stdlib import nanfunctions
    for name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nancumsum", "nancumprod",
                 "nanargmax", "nanargmin"):
        library(getattr(nanfunctions, name), getattr(np, name))
    from ..stdlib import einsum
    library(einsum.einsum, np.einsum)
    from ..stdlib import function_base
    for name in ("select", "nan_to_num", "isposinf", "isneginf", "sinc", "isin", "ediff1d", "digitize", "trapezoid", "fliplr", "flipud",
                 "rot90", "column_stack", "atleast_3d", "take_along_axis", "put_along_axis", "fill_diagonal",
                 "unravel_index", "ravel_multi_index", "polyval", "vander", "cumulative_sum", "cumulative_prod",
                 "array_equal", "cross", "convolve", "correlate", "gradient", "interp", "piecewise", "resize", "modf",
                 "unwrap", "i0", "sort_complex", "histogram_bin_edges", "fix", "iscomplex", "isreal", "asarray_chkfinite",
                 "astype", "identity", "diagflat", "dstack", "hsplit", "vsplit", "dsplit", "unstack", "indices",
                 "diag_indices", "diag_indices_from", "tril_indices", "triu_indices", "tril_indices_from",
                 "triu_indices_from"):
        library(getattr(function_base, name), getattr(np, name))
    library(function_base.item, methods=("item",))
    library(function_base.linalg_outer, np.linalg.outer)
    library(function_base.linalg_trace, np.linalg.trace)
    library(function_base.linalg_cross, np.linalg.cross)
    FUNCTIONS[np.linalg.diagonal] = lambda b, x, *, offset=0: FUNCTIONS[np.diagonal](b, x, offset, -2, -1)
    FUNCTIONS[fn.raise_if] = _raise_if
    FUNCTIONS[fn.known_while_compiling] = lambda b, value: not contains_var(value)
    FUNCTIONS[np.diagonal] = METHODS["diagonal"] = _view_like(
        fn.diagonal, "np.diagonal", lambda offset=0, axis1=0, axis2=1: (offset, axis1, axis2))
    FUNCTIONS[np.diag] = _view_like(fn.diag, "np.diag", lambda k=0: (k, 0, 1))
    FUNCTIONS[np.repeat] = METHODS["repeat"] = _one_count_repeat(fn.repeat)
    FUNCTIONS[np.trim_zeros] = _array_only_trim_zeros(function_base.trim_zeros)


_register_stdlib()


@function(getattr)
def _getattr(b, obj, name, *default):
    return current_interpreter.get().array_attribute(obj, name)


# ---- copies and writes -------------------------------------------------------------------------------------
def new_copy(b, x: Var) -> Var:
    """A new array with x's contents (no buffer shared with x)."""
    return b.emit1("copy", [x], x.dtype, x.shape, scalar=x.scalar, weak=x.weak)


def _zero_d_array(b, x: Var) -> Var:
    """x as np.asarray / np.array make it: a NumPy or Python scalar becomes a new 0-d array (not a scalar)."""
    if x.ndim == 0 and (x.scalar or x.weak):
        return b.emit1("copy", [x], x.dtype, (), scalar=False, weak=False)
    return x


def _array(b, obj, dtype=None, *, copy=True, order="K", ndmin=0):
    from . import shape_ops as so
    if ndmin:
        raise UserError("np.array(..., ndmin=) is not supported on run-time values", TypeError)
    if dtype is not None and isinstance(obj, (list, tuple)) and contains_var(obj):
        from .indexing import items_as
        obj = items_as(b, obj, dtype)     # each item converted as NumPy converts it, then stacked
    x = so.stack(b, obj) if isinstance(obj, (list, tuple)) and contains_var(obj) else so.as_var(b, obj)
    _check_python_number(b, x, dtype)
    if dtype is not None:
        return _zero_d_array(b, ew.astype(b, x, dtype, copy=bool(copy)))
    if x.ndim == 0 and (x.scalar or x.weak):
        return _zero_d_array(b, x)
    return new_copy(b, x) if copy and x is obj else x       # a list was made into a new array already


def _asarray(b, a, dtype=None, order=None):
    from . import shape_ops as so
    x = so.as_var(b, a)
    _check_python_number(b, x, dtype)
    return _zero_d_array(b, ew.astype(b, x, dtype, copy=False) if dtype is not None else x)


def _ravel(b, a, order="C"):
    """A view of C-contiguous data, else a copy (NumPy's ravel): when contiguity is not known (a view of an
    argument that is not C-contiguous) the result may or may not share memory with `a`."""
    from . import shape_ops as so
    from .memory import Ref, Step, c_contiguous, static_layout
    x = so.as_var(b, a)
    ref = b.memory.ref_of(x)
    layout = static_layout(ref) if isinstance(ref, Ref) and not ref.contiguous else None
    if isinstance(ref, Ref) and (ref.contiguous or layout is not None and c_contiguous(*layout)):
        return so.reshape(b, x, (-1,), order)     # (with sizes and strides known while compiling: NumPy's flag)
    flat = new_copy(b, so.reshape(b, x, (-1,), order))
    if isinstance(ref, Ref) and (ref.buffer.layout in ("line", False) and not ref.path or layout is not None):
        return flat                     # not C-contiguous (an argument's key says so, or its strides): a copy

    out = b.memory.unknown_alias(x, flat, "np.ravel of an array that may not be contiguous, which NumPy makes a "
                                          "view or a copy depending on its strides")
    if isinstance(ref, Ref) and ref.buffer.argument is not None:     # returned: NumPy's own ravel at the call
        out.ref.replay = (ref.buffer, ref.base, ref.path + (Step("ravel", {"order": order}, (), out.dtype, out.shape,
                                                                 False),))
    return out


def _ndarray(b, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    """np.ndarray(shape, dtype): a new array, like np.empty (its contents are unspecified: here zeros)."""
    from . import shape_ops as so
    if buffer is not None or strides is not None:
        raise UserError("np.ndarray(buffer=, strides=) is not supported: make the array with np.empty and copy "
                        "into it", TypeError)
    return so.zeros(b, shape, dtype)


def _flip(b, m, axis=None):
    """np.flip: a view with the axes read backwards."""
    from . import indexing, shape_ops as so
    x = so.as_var(b, m)
    axes = range(x.ndim) if axis is None else [so.normalize_axis(a, x.ndim) for a in
                                               (axis if isinstance(axis, (tuple, list)) else (axis,))]
    return indexing.getitem(b, x, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim)))


def _ascontiguousarray(b, a, dtype=None):
    from . import shape_ops as so
    from .memory import Ref
    x = so.as_var(b, a) if dtype is None else ew.astype(b, so.as_var(b, a), dtype, copy=False)
    if x.ndim == 0:           # (NumPy's ascontiguousarray returns at least one dim)
        return so.reshape(b, _zero_d_array(b, x), (1,))
    ref = b.memory.ref_of(x)
    return x if isinstance(ref, Ref) and ref.contiguous else new_copy(b, x)


def _copyto(b, dst, src, casting="same_kind", where=True):
    """np.copyto: src broadcast into dst under a casting rule, where `where` is True."""
    from .builder import operand_type
    from .indexing import fit_value
    if not isinstance(dst, Var):
        raise UserError("np.copyto: the destination must be a run-time array", TypeError)
    t = operand_type(src if not isinstance(src, (list, tuple)) else np.asarray(src))
    source = t if isinstance(t, np.dtype) else np.dtype(t)      # a Python scalar casts as its default dtype
    if not (t is int and dst.dtype.kind in "iuf") and not np.can_cast(source, dst.dtype, casting):
        raise UserError(f"Cannot cast array data from {source!r} to {dst.dtype!r} according to the rule "
                        f"{casting!r}", TypeError)
    value = fit_value(b, src, dst.dtype, dst.shape)
    if where is not True:
        value = ew.where(b, where, value, dst)
    b.write(dst, lambda: value)


# ---- shapes, indexing, matmul ---------------------------------------------------------------------------------
def _register_shape_ops():
    from . import indexing, linalg, selection, shape_ops as so

    attribute("T")(lambda b, x: so.transpose(b, x))
    function(np.transpose)(so.transpose)
    method("transpose")(so.transpose_method)
    function(np.swapaxes)(so.swapaxes)
    method("swapaxes")(so.swapaxes)
    function(np.reshape)(lambda b, a, shape=None, order="C", **kw: so.reshape(b, a, kw.get("newshape", shape),
                                                                              order))
    method("reshape")(so.reshape_method)
    function(np.expand_dims)(so.expand_dims)
    function(np.squeeze)(so.squeeze)
    method("squeeze")(so.squeeze)
    method("ravel")(_ravel)
    method("flatten")(lambda b, x, order="C": new_copy(b, so.reshape(b, x, (-1,), order)))
    function(np.ravel)(_ravel)
    function(np.split)(so.split)
    function(np.array_split)(so.array_split)
    function(np.concatenate)(so.concatenate)
    function(np.stack)(so.stack)
    function(np.hstack)(so.hstack)
    function(np.vstack)(so.vstack)
    function(np.atleast_1d)(so.atleast_1d)
    function(np.atleast_2d)(so.atleast_2d)
    function(np.broadcast_to)(so.broadcast_to)
    function(np.broadcast_shapes)(so.broadcast_shapes)
    function(np.broadcast_arrays)(so.broadcast_arrays)
    for fn, handler in [(np.zeros, so.zeros), (np.ones, so.ones), (np.empty, so.zeros), (np.full, so.full),
                        (np.arange, so.arange), (np.tri, so.tri), (np.eye, so.eye)]:
        function(fn)(handler)
    function(np.ndarray)(_ndarray)
    function(np.zeros_like, np.empty_like)(so.like(0))
    function(np.ones_like)(so.like(1))
    function(np.full_like)(so.like(None))
    function(np.triu)(so.triangle("triu"))
    function(np.tril)(so.triangle("tril"))
    method("__getitem__")(indexing.getitem)
    function(np.take)(lambda b, a, indices, axis=None: indexing.gather(
        b, so.reshape(b, a, (-1,)) if axis is None else so.as_var(b, a), indices,
        0 if axis is None else so.normalize_axis(axis, so.as_var(b, a).ndim)))
    function(np.matmul)(_with_out(linalg.matmul, "matmul"))
    function(np.linalg.matmul)(lambda b, x1, x2: linalg.matmul(b, x1, x2))
    function(np.dot)(_with_out(linalg.dot, "dot"))
    method("dot")(_with_out(linalg.dot, "dot"))
    function(np.flip)(_flip)
    function(np.nonzero)(selection.nonzero)
    method("nonzero")(selection.nonzero)
    function(np.argwhere)(selection.argwhere)
    function(np.flatnonzero)(selection.flatnonzero)
    function(np.compress)(selection.compress)
    method("compress")(lambda b, x, condition, axis=None, out=None: selection.compress(b, condition, x, axis, out))
    function(np.extract)(selection.extract)
    method("copy")(lambda b, x, order="C": new_copy(b, x))
    function(np.copy)(lambda b, a, order="K", subok=False: _zero_d_array(b, new_copy(b, so.as_var(b, a))))
    function(np.array)(_array)
    function(np.asarray)(_asarray)
    function(np.ascontiguousarray)(_ascontiguousarray)
    function(np.copyto)(_copyto)


_register_shape_ops()


@function(np.ndindex)
def _ndindex(b, *shape):
    from .values import NdIndex
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for d in shape:
        if not (isinstance(d, (int, np.integer)) or isinstance(d, Var) and d.ndim == 0 and d.dtype.kind in "iu"):
            raise UserError("np.ndindex: the shape must be integers", TypeError)
    return NdIndex(tuple(shape))


@function(np.ndenumerate)
def _ndenumerate(b, arr):
    from . import shape_ops as so
    from .values import NdIndex
    x = so.as_var(b, arr)
    return NdIndex(tuple(dim_value(b, x, i) for i in range(x.ndim)), x)


@function(range)
def _range(b, *args):
    """range() of a run-time int: usable as an index and as a loop's trip count."""
    from .values import RuntimeRange
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    return RuntimeRange(start, stop, step)


@function(isinstance)
def _isinstance(b, obj, classinfo):
    """A run-time array is an np.ndarray (or a NumPy scalar, or a Python scalar when weak), as it will be."""
    if not isinstance(obj, Var):
        return isinstance(obj, classinfo)
    classes = classinfo if isinstance(classinfo, tuple) else (classinfo,)
    if obj.weak:
        stand_in = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[obj.dtype.kind]
    elif obj.scalar:
        stand_in = obj.dtype.type(0)
    else:
        stand_in = np.zeros((0,) * obj.ndim, obj.dtype)
    return isinstance(stand_in, classes)
