"""Elementwise NumPy functions on abstract values: dtype from NumPy's own loop resolution, shape by broadcasting.

Each ufunc maps to one primitive of the same meaning; its scalar semantics live in codegen/scalar.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..program import Var
from ..types import dtypes
from ..types.shapes import SizesDiffer, Sym, broadcast, derived
from .builder import Builder, as_operand, check_python_int_fits, coerce, is_weak, operand_type

# ufunc -> primitive name. Both operands already have the loop dtype when the primitive is emitted.
UFUNC_PRIMS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "div", np.floor_divide: "floordiv",
    np.remainder: "mod", np.power: "pow", np.negative: "neg", np.positive: "copy", np.absolute: "abs",
    np.exp: "exp", np.exp2: "exp2", np.log: "log", np.log2: "log2", np.log10: "log10", np.log1p: "log1p",
    np.expm1: "expm1", np.sqrt: "sqrt", np.cbrt: "cbrt", np.square: "square", np.reciprocal: "reciprocal",
    np.tanh: "tanh", np.sinh: "sinh", np.cosh: "cosh", np.sin: "sin", np.cos: "cos", np.tan: "tan",
    np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan", np.arcsinh: "asinh", np.arccosh: "acosh",
    np.arctanh: "atanh", np.arctan2: "atan2", np.hypot: "hypot", np.maximum: "max", np.minimum: "min", np.fmax: "fmax",
    np.fmin: "fmin", np.sign: "sign", np.floor: "floor", np.ceil: "ceil", np.trunc: "trunc", np.rint: "rint",
    np.isnan: "isnan", np.isinf: "isinf", np.isfinite: "isfinite", np.signbit: "signbit", np.copysign: "copysign",
    np.heaviside: "heaviside", np.logaddexp: "logaddexp", np.logaddexp2: "logaddexp2", np.deg2rad: "deg2rad",
    np.rad2deg: "rad2deg", np.radians: "deg2rad", np.degrees: "rad2deg", np.fabs: "abs", np.float_power: "pow",
    np.gcd: "gcd", np.lcm: "lcm", np.fmod: "fmod", np.nextafter: "nextafter", np.spacing: "spacing",
    np.ldexp: "ldexp",
    np.equal: "eq", np.not_equal: "ne", np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge",
    np.bitwise_and: "and", np.bitwise_or: "or", np.bitwise_xor: "xor", np.invert: "invert",
    np.logical_and: "and", np.logical_or: "or", np.logical_xor: "xor", np.logical_not: "not",
    np.left_shift: "shl", np.right_shift: "shr", np._core.umath.clip: "clip", np.conjugate: "conj",
}

# Exponents NumPy itself computes without pow: x**2 is square (its fast path), small integer powers are products.
_INT_POW_LIMIT = 4


def apply_ufunc(b: Builder, ufunc: np.ufunc, args: list, *, python_op: bool = False, dtype=None) -> Var:
    """`ufunc(*args)` where at least one arg is a run-time value.

    `python_op`: the call comes from a Python operator (`a + b`): two weak operands then give a weak result,
    as Python's own arithmetic would.
    """
    args = [as_operand(a) for a in args]
    if python_op and any(isinstance(a, Var) and a.from_list for a in args):
        raise UserError("a list argument is run-time data, but on lists Python's operators concatenate or repeat: "
                        "convert it with np.asarray first", TypeError)
    if python_op and ufunc is np.power and getattr(args[1], "int_argument", False) and isinstance(args[0], Var) \
            and not args[0].scalar and not args[0].weak and args[0].dtype == dtypes.BOOL:
        # the fast path below decides the dtype by the exponent's value: a Python int argument specializes
        raise UserError("bool_array ** n: NumPy's result dtype depends on n (n == 2 is np.square: int8)", TypeError)
    if python_op and ufunc is np.power and type(args[1]) is int and args[1] == 2 and isinstance(args[0], Var) \
            and not args[0].scalar and not args[0].weak:
        ufunc, args = np.square, args[:1]     # NumPy's fast path for `array ** 2` (bool ** 2 is int8), not scalars
    elif python_op and ufunc is np.power and type(args[1]) is int and args[1] == -1 and isinstance(args[0], Var) \
            and not args[0].scalar and not args[0].weak and args[0].dtype.kind == "c":
        # and `array ** -1` is np.reciprocal, whose complex loop differs from the power's (1/(1e-45j) is -infj
        # there, nan-infj in np.power); for floats the two are the same correctly rounded 1/x
        ufunc, args = np.reciprocal, args[:1]
    elif ufunc is np.power and type(args[1]) is float and args[1] == 0.5 \
            and isinstance(args[0], Var) and not args[0].scalar and not args[0].weak and args[0].dtype.kind in "fc" \
            and _sqrt_for_half_power(python_op, args[0].dtype):
        ufunc, args = np.sqrt, args[:1]       # and `float_array ** 0.5` is sqrt (sqrt(-0.0) is -0.0, of -inf nan)
    if ufunc is np.logical_not or ufunc is np.logical_and or ufunc is np.logical_or or ufunc is np.logical_xor:
        args = [to_bool(b, a) for a in args]
    types = [operand_type(a) for a in args]
    if all(isinstance(t, type) for t in types):
        # only Python scalars: run-time ones compute in their own dtype (int64, float64), as Python numbers would
        types = [a.dtype if isinstance(a, Var) else t for a, t in zip(args, types)]
    if dtype is not None:
        in_dts, out_dts = dtypes.resolve_ufunc_with_dtype(ufunc, types, dtypes.check_supported(dtype))
    else:
        in_dts, out_dts = dtypes.resolve_ufunc(ufunc, types)
    if any(dt.kind == "c" for dt in in_dts + out_dts):
        from . import complex_order
        if ufunc in complex_order.UFUNCS:     # NumPy's lexicographic order, of float comparisons of the parts
            return complex_order.extremum(b, ufunc, *[coerce(b, a, dt) for a, dt in zip(args, in_dts)])
        _check_complex_support(ufunc, args)
        if python_op and ufunc in _ORDERINGS and all(is_weak(a) for a in args):   # Python's complex has no order
            raise UserError(f"'{_ORDERINGS[ufunc]}' not supported between instances of "
                            f"'{operand_type(args[0]).__name__}' and '{operand_type(args[1]).__name__}'", TypeError)
    if ufunc is np.power and _is_numpy_one_half(args[1]) and isinstance(args[0], Var) and not args[0].scalar \
            and not args[0].weak and _sqrt_for_half_power(False, out_dts[0]):
        # a NumPy 0.5 known now (np.float64(0.5), a 0-d array): NumPy's float32/float64 power loop takes sqrt for an
        # exponent of stride 0 equal to 0.5 (the run-time form is array_pow), in the promoted dtype
        return apply_ufunc(b, np.sqrt, [coerce(b, args[0], out_dts[0])])
    if ufunc is np.power and _small_int_exponent(args[1]) is not None and in_dts[0].kind in "fc":
        base = coerce(b, args[0], in_dts[0])
        shape = broadcast([base.shape], b.env)
        weak = python_op and is_weak(args[0])
        result = b.emit1("ipow", [base], out_dts[0], shape, weak=weak, scalar=base.ndim == 0,
                         exponent=int(args[1]))
        if weak:
            _python_float_checks(b, np.power, [base], result, int(args[1]))
        return result
    if ufunc in _COMPARISONS and any(isinstance(t, np.dtype) and t.kind in "iu" for t in types):
        beyond = _compared_beyond_int64(b, ufunc, args, weak=python_op and all(is_weak(a) for a in args))
        if beyond is not None:
            return beyond
        in_dts = [_exact_int_dtype(a, dt) for a, dt in zip(args, in_dts)]
        # a run-time Python int too (a dim, a loop index): compared as int64 with the array's dtype, exactly (a cast
        # to uint8 would wrap: `x < i - 2` at i = 0 compared with 254)
        in_dts = [dtypes.INT64 if _run_time_python_int(a) and dt.kind in "iu" else dt for a, dt in zip(args, in_dts)]
    else:
        for a, dt in zip(args, in_dts):
            check_python_int_fits(b, a, dt)
    operands = [coerce(b, a, dt) for a, dt in zip(args, in_dts)]
    if ufunc is np.power and in_dts[0].kind in "iub":
        python_ints = python_op and all(is_weak(a) for a in args)
        _check_integer_exponent(b, args[1] if in_dts[1].kind == "i" else 0, python_ints)
    operands = checked_in_kernel(b, operands)
    shape = broadcast([o.shape for o in operands], b.env)
    weak = python_op and (all(is_weak(a) for a in args) or ufunc not in _ORDERINGS and
                          _python_complex_meets_float64_scalar(args))
    prim = UFUNC_PRIMS[ufunc]
    if prim in ("nextafter", "spacing") and out_dts[0] == np.float16:
        # (NumPy's float16 loops step in float16 bits; libm's functions step in float32's)
        raise UserError(f"numpy.{ufunc.__name__} of float16 values is not supported by the compiler: convert to "
                        "float32 first", TypeError)
    if ufunc is np.power and out_dts[0].kind in "fc" and isinstance(args[0], Var) and not args[0].scalar \
            and not args[0].weak and isinstance(args[1], Var) and args[1].ndim == 0 \
            and _sqrt_for_half_power(python_op and args[1].weak, out_dts[0]):
        prim = "array_pow"   # NumPy computes float_array ** s as sqrt when s is 0.5 at run time
    if ufunc is np.power and out_dts[0].kind == "c" and python_op and isinstance(args[0], Var) \
            and not args[0].scalar and not args[0].weak and isinstance(args[1], Var) and args[1].weak \
            and args[1].dtype.kind in "iu":
        prim = "array_int_pow"   # and complex_array ** n as square for a Python int n == 2, reciprocal for -1
    result = b.emit1(prim, operands, out_dts[0], shape, weak=weak, scalar=len(shape) == 0)
    result.size_of = _size_arithmetic(ufunc, args)
    if weak and out_dts[0].kind in "fc":
        _python_float_checks(b, ufunc, operands, result)
    elif weak and out_dts[0].kind == "i" and ufunc in (np.floor_divide, np.remainder):
        _python_int_division_checks(b, ufunc, operands, args)
    elif weak and out_dts[0].kind == "i" and ufunc in _INT_OVERFLOW_OPS:
        if not all(map(small_int, args)):
            _python_int_check(b, ufunc, operands)
        elif ufunc in (np.add, np.subtract):
            result.small = True      # a sum of two small ints is still far inside int64
    return result


def _check_complex_support(ufunc, args) -> None:
    """The complex loops compiled (dtypes.COMPLEX_PRIMS); NumPy's others are refused, not guessed."""
    if UFUNC_PRIMS.get(ufunc) not in dtypes.COMPLEX_PRIMS:
        raise UserError(f"numpy.{ufunc.__name__} on complex values is not supported by the compiler", TypeError)


def checked_in_kernel(b: Builder, operands: list) -> list:
    """Operands with sizes only the kernel can compare (selections made with two different masks, x[x > 0] +
    x[x > 1]): their equality is checked there (NumPy's ValueError after the call; a size that turns out to be 1
    does not broadcast, but for one element of a slice, at_most_one, whose 1 does), and each is cut to the common
    size `same(a, b)` (0 when they differ; `bcast(a, b)` with such an element, which is broadcast to it), so the
    kernel never reads past either. Other operands are returned as they are."""
    env = b.env
    rank = max((o.ndim for o in operands), default=0)
    operands = list(operands)
    for i in range(rank):
        at = [(k, o.ndim - rank + i) for k, o in enumerate(operands) if o.ndim - rank + i >= 0]
        at = [(k, ax) for k, ax in at if env.find(operands[k].shape[ax]) != 1]
        dims = [operands[k].shape[ax] for k, ax in at]
        if not any(env.needs_kernel_check(d, e) for d in dims for e in dims):
            continue
        common, differ = dims[0], None
        for d in dims[1:]:
            if env.needs_kernel_check(common, d):
                ne = sizes_differ(b, common, d, broadcasts=at_most_one(env, common) or at_most_one(env, d))
                differ = ne if differ is None else b.emit1("or", [differ, ne], dtypes.BOOL, ())
                common = derived("bcast" if at_most_one(env, common) or at_most_one(env, d) else "same", common, d)
            else:
                env.unify(common, d, "operands could not be broadcast together")
        b.check(differ, SizesDiffer, "operands could not be broadcast together (sizes computed from the data, "
                                    "known only when the kernel runs, differ)")
        for k, ax in at:
            o = operands[k]
            if at_most_one(env, o.shape[ax]) and not env.same_expression(o.shape[ax], common):
                operands[k] = broadcast_in_kernel(b, o, ax, common)
                continue
            specs = tuple(("range", 0, common, 1) if a == ax else ("all",) for a in range(o.ndim))
            shape = tuple(common if a == ax else d for a, d in enumerate(o.shape))
            operands[k] = b.emit1("slice", [o], o.dtype, shape, specs=specs)
    return operands


def sizes_differ(b: Builder, a, c, broadcasts: bool) -> Var:
    """A 0-d bool: sizes a and c (dims only the kernel knows) are not NumPy-compatible: unequal, and, where one of
    them `broadcasts` (at_most_one), neither is 1."""
    sizes = [b.emit1("size_value", [], dtypes.INT64, (), dim=x) for x in (a, c)]
    ne = b.emit1("ne", sizes, dtypes.BOOL, ())
    if broadcasts:
        one = b.emit1("const", [], dtypes.INT64, (), value=np.asarray(1, np.int64))
        for size in sizes:
            ne = b.emit1("and", [ne, b.emit1("ne", [size, one], dtypes.BOOL, ())], dtypes.BOOL, ())
    return ne


def at_most_one(env, d) -> bool:
    """Whether a size is 0 or 1 whatever the run-time values: one element of a slice with bounds only the kernel
    knows (`x[7:8]` of a run-time length, `x[a + 2:a + 3]`, `x[i:i + 1]`): its ends differ by exactly 1, and
    wrapping a negative end, clamping into the axis and cutting at 0 only shorten it. Where the kernel compares such
    a size, a 1 broadcasts as NumPy's does (checked_in_kernel, indexing.fit_value); other sizes that turn out to
    be 1 there do not (a ValueError: which operand to broadcast would be decided per call)."""
    d = env.find(d)
    if isinstance(d, int):
        return 0 <= d <= 1
    kind, *operands = d.origin
    if kind == "max" and len(operands) == 2 and operands[1] == 0:
        d = env.find(operands[0])
        if not isinstance(d, Sym) or d.origin[0] != "sub":
            return at_most_one(env, d)
        return _apart_at_most_one(env, *d.origin[1:])
    return False


def _apart_at_most_one(env, hi, lo) -> bool:
    """hi - lo <= 1 for every run-time value: min / max with a common operand keep it, wrap needs exactly 1."""
    hi, lo = env.find(hi), env.find(lo)
    if isinstance(hi, Sym) and isinstance(lo, Sym) and hi.origin[0] == lo.origin[0] and hi.origin[0] in (
            "min", "max", "wrap") and len(hi.origin) == len(lo.origin) == 3:
        kind, (h0, h1), (l0, l1) = hi.origin[0], hi.origin[1:], lo.origin[1:]
        if kind == "wrap":
            return env.same_expression(h1, l1) and _apart_exactly_one(env, h0, l0)
        if env.same_expression(h1, l1):
            return _apart_at_most_one(env, h0, l0)
        if env.same_expression(h0, l0):
            return _apart_at_most_one(env, h1, l1)
        return False
    return _apart_exactly_one(env, hi, lo)


def _apart_exactly_one(env, hi, lo) -> bool:
    """hi == lo + 1 as expressions (8 and 7, a + 3 and a + 2, i + 1 and i, a and a - 1)."""
    (h, i), (l, j) = _offset(env, hi), _offset(env, lo)
    return i - j == 1 and (h is None and l is None or h is not None and l is not None and env.same_expression(h, l))


def _offset(env, d):
    """(base, constant) with d == base + constant; base None for a constant."""
    d = env.find(d)
    if isinstance(d, int):
        return None, d
    kind, *operands = d.origin
    if kind in ("add", "sub") and isinstance(operands[1], int):
        return operands[0], operands[1] if kind == "add" else -operands[1]
    return d, 0


def int64_const(b: Builder, v) -> Var:
    """A 0-d int64 constant: a start, size or step of a view at a run-time position (the "strided" primitive)."""
    return b.emit1("const", [], dtypes.INT64, (), value=np.asarray(v, np.int64))


def size_values(b: Builder, shape) -> list:
    """The sizes of `shape` as 0-d int64 values (constants where known while compiling)."""
    return [int64_const(b, d) if isinstance(d := b.env.find(dim), int)
            else b.emit1("size_value", [], dtypes.INT64, (), dim=d) for dim in shape]


def broadcast_in_kernel(b: Builder, o: Var, axis: int, size) -> Var:
    """`o`, whose size along `axis` is 0 or 1 as only the kernel knows (at_most_one), broadcast to `size` along it,
    as NumPy broadcasts a 1 (where o is empty, `size` is 0 or the call raises: nothing is read): a view read at a
    run-time position (codegen/strided.py) whose step along that axis is 0 for a size of 1."""
    shape = tuple(size if a == axis else d for a, d in enumerate(o.shape))
    own = b.emit1("size_value", [], dtypes.INT64, (), dim=o.shape[axis])
    step = b.emit1("sub", [int64_const(b, 1), own], dtypes.INT64, ())      # (1 - size: 0 for one element)
    starts = [int64_const(b, 0) for _ in range(o.ndim)]
    sizes = size_values(b, shape)
    steps = [step if j == k == axis else int64_const(b, int(j == k)) for k in range(o.ndim) for j in range(o.ndim)]
    return b.emit1("strided", [o, *starts, *sizes, *steps], o.dtype, shape)


def equal_in_kernel(b: Builder, at: list, message: str) -> list | None:
    """Sizes that must be equal, of operands `at` ([(Var, axis), ...]), where only the kernel can compare them (a
    contraction of `x[a:a + n] @ y[b:b + n]` with run-time ints, `np.stack` of such slices): NumPy's ValueError
    with `message` after the call when they differ, and each operand cut to the common size `same(...)` (0 when
    they differ) along its axis, so that nothing is read past either. None when the compiler can compare them
    (the caller unifies them as usual)."""
    env = b.env
    dims = [v.shape[ax] for v, ax in at]
    if not any(env.needs_kernel_check(d, e) for d in dims for e in dims):
        return None
    common, differ = dims[0], None
    for d in dims[1:]:
        if env.same_expression(common, d):
            continue
        sizes = [b.emit1("size_value", [], dtypes.INT64, (), dim=x) for x in (common, d)]
        ne = b.emit1("ne", sizes, dtypes.BOOL, ())
        differ = ne if differ is None else b.emit1("or", [differ, ne], dtypes.BOOL, ())
        common = derived("same", common, d)
    b.check(differ, ValueError, message)     # (contractions and stacks: NumPy never broadcasts a 1 there)
    cut = []
    for v, ax in at:
        specs = tuple(("range", 0, common, 1) if a == ax else ("all",) for a in range(v.ndim))
        shape = tuple(common if a == ax else d for a, d in enumerate(v.shape))
        cut.append(b.emit1("slice", [v], v.dtype, shape, specs=specs))
    return cut


def _python_complex_meets_float64_scalar(args) -> bool:
    """Python's complex operators take a float subclass, np.float64, themselves: `1j * np.float64(2)` is a Python
    complex (`np.float64(2) * 1j` is NumPy's np.complex128, the left operand's method runs first). Not the
    orderings: Python's complex has none, so `1j < np.float64(2)` is np.float64's reflected method, an np.bool."""
    if len(args) != 2 or not is_weak(args[0]) or operand_type(args[0]) is not complex:
        return False
    right = args[1]
    return isinstance(right, Var) and right.scalar and not right.weak and right.dtype == dtypes.FLOAT64 \
        or isinstance(right, np.float64)


def _sqrt_for_half_power(python_op: bool, dtype) -> bool:
    """Whether NumPy computes `array ** 0.5` as sqrt: the operator does for every float and complex dtype when the
    exponent is a Python float (its fast scalar power; `python_op` says both); the ufunc np.power, and the operator
    with a NumPy exponent (`x ** s[0]`), only in its float32 and float64 loops (float16 goes through powf:
    pow(-0.0, 0.5) is +0.0 and pow(-inf, 0.5) is inf, where sqrt gives -0.0 and nan; complex through cpow)."""
    return python_op or np.dtype(dtype) in (np.float32, np.float64)   # (np.power of complex: its pow loop)


def _is_numpy_one_half(value) -> bool:
    """Whether `value` is a compile-time NumPy float 0.5: a NumPy scalar or a 0-d array (a Python float is weak,
    handled with the operator's fast path above)."""
    return isinstance(value, (np.floating, np.ndarray)) and np.ndim(value) == 0 and np.asarray(value).dtype.kind == "f" \
        and value == 0.5


def _python_float_checks(b: Builder, ufunc, operands, result, exponent: int | None = None) -> None:
    """Python floats raise where NumPy floats give inf or nan: x / 0.0 (ZeroDivisionError), 0.0 ** negative
    (ZeroDivisionError) and an overflowing power (OverflowError); a negative float to a fractional power, complex in
    Python, is refused (ValueError). The kernel computes on, and a check flag makes the caller raise. `exponent`:
    the int exponent of `ipow` (operands then holds only the base)."""
    if ufunc in (np.true_divide, np.floor_divide, np.remainder):
        flag = b.emit1("eq", [operands[1], b.const(np.zeros((), operands[1].dtype))], dtypes.BOOL, ())
        kind = "complex" if operands[1].dtype.kind == "c" else "float"
        b.check(flag, ZeroDivisionError, f"{kind} division by zero")
    elif ufunc is np.power:
        def op(name, *args):
            return b.emit1(name, list(args), dtypes.BOOL, ())
        base = operands[0]
        if base.dtype.kind == "f":   # (Python's float_pow; its complex power is not checked here)
            # 0.0 ** negative (finite: 0.0 ** -inf is inf) is ZeroDivisionError, checked before the overflow
            zero_base = op("eq", base, b.const(np.zeros((), base.dtype)))
            negative = exponent < 0 if exponent is not None else \
                op("and", op("lt", operands[1], b.const(np.zeros((), operands[1].dtype))), op("isfinite", operands[1]))
            if negative is not False:
                b.check(zero_base if negative is True else op("and", zero_base, negative), ZeroDivisionError,
                        "0.0 cannot be raised to a negative power")
            if exponent is None:
                # a negative finite float to a finite fractional power is a complex number in Python: the compiled
                # function's float cannot be it (NumPy's float gives nan)
                e = operands[1]
                fraction = op("and", op("isfinite", e), op("ne", b.emit1("floor", [e], e.dtype, ()), e))
                negative_base = op("and", op("lt", base, b.const(np.zeros((), base.dtype))), op("isfinite", base))
                b.check(op("and", negative_base, fraction), ValueError,
                        "a negative Python float raised to a fractional power is a complex number in Python; the "
                        "compiled function computes floats (write complex(x) ** y, or np.float64(x) ** y for NumPy's "
                        "nan)")
        flag = b.emit1("isinf", [result], dtypes.BOOL, ())
        for o in operands:   # inf from finite operands
            flag = b.emit1("and", [flag, b.emit1("isfinite", [o], dtypes.BOOL, ())], dtypes.BOOL, ())
        if base.dtype.kind == "f":
            flag = op("and", flag, op("not", zero_base))
        b.check(flag, OverflowError, "(34, 'Numerical result out of range')")


# Python ints do not overflow; the compiled function's are int64: an operation whose exact result leaves the range
# raises OverflowError at the call instead of wrapping (a kernel check)
_INT_OVERFLOW_OPS = {np.add: "add", np.subtract: "sub", np.multiply: "mul", np.negative: "neg", np.absolute: "abs",
                     np.floor_divide: "floordiv", np.left_shift: "shl", np.power: "pow"}


def _python_int_division_checks(b: Builder, ufunc, operands, args) -> None:
    """Python ints raise where NumPy's give 0: `a // 0` and `a % 0` are ZeroDivisionError (a kernel check flag),
    and `a // b` past int64 (-2**63 // -1) is the OverflowError of the other int operations."""
    flag = b.emit1("eq", [operands[1], b.const(np.zeros((), operands[1].dtype))], dtypes.BOOL, ())
    b.check(flag, ZeroDivisionError, "integer division or modulo by zero" if ufunc is np.floor_divide
            else "integer modulo by zero")
    if ufunc is np.floor_divide and not all(map(small_int, args)):
        _python_int_check(b, ufunc, operands)


def small_int(value) -> bool:
    """A compile-time int well inside int64, an array dim or a loop index (bounded by sizes and trip counts): such
    operands do not overflow in the sums and products programs make of them."""
    if isinstance(value, Var):
        return value.size_of is not None or getattr(value, "small", False)
    return isinstance(value, (int, np.integer)) and abs(int(value)) < 2**31


def _python_int_check(b: Builder, ufunc, operands) -> None:
    flag = b.emit1("int_overflows", operands, dtypes.BOOL, (), op=_INT_OVERFLOW_OPS[ufunc])
    b.check(flag, OverflowError, "Python int arithmetic past the int64 range: the compiled function's ints are "
                                 "int64 (Python's would grow)")


_SIZE_OPS = {np.add: "add", np.subtract: "sub", np.multiply: "mul", np.floor_divide: "floordiv",
             np.maximum: "max", np.minimum: "min"}


def _size_arithmetic(ufunc, args):
    """`x.shape[0] // 3` is still a dim: keep its expression so it can size arrays and be checked before calls."""
    if ufunc not in _SIZE_OPS:
        return None
    dims = [as_dim(a) for a in args]
    if any(d is None for d in dims):
        return None
    return derived(_SIZE_OPS[ufunc], *dims)


def as_dim(value):
    """A compile-time int or a Var that stands for a dim, as a Dim; None otherwise."""
    if isinstance(value, Var):
        return value.size_of
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return None


_ORDERINGS = {np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">="}
_COMPARISONS = (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal)


def _compared_beyond_int64(b: Builder, ufunc, args, weak: bool) -> Var | None:
    """An integer array compared with a Python int that neither int64 nor uint64 holds (`x == 2**64`,
    `u < -2**70`): NumPy 2 compares by exact value, so every element is on one side of it and the result is one
    bool everywhere (NEP 50; arithmetic with such an int stays NumPy's OverflowError). None for other operands."""
    def huge(a):
        return type(a) is int and not -2**63 <= a < 2**64
    if not any(huge(a) for a in args) or not all(huge(a) or isinstance(a, Var) for a in args):
        return None
    # the huge int as an infinity of its sign, any element as 0: the side of every element
    value = bool(ufunc(*[np.copysign(np.inf, a) if huge(a) else 0.0 for a in args]))
    shape = broadcast([a.shape for a in args if isinstance(a, Var)], b.env)
    return b.emit1("full", [b.const(np.bool_(value))], dtypes.BOOL, shape, weak=weak, scalar=not shape)


def _run_time_python_int(value) -> bool:
    return isinstance(value, Var) and value.weak and value.dtype == dtypes.INT64


def _exact_int_dtype(value, dtype: np.dtype) -> np.dtype:
    """NumPy 2 compares a Python int that does not fit the array's dtype by its exact value (uint8_array < 300 is
    all True): keep such an int in a dtype that holds it; codegen compares mixed integer dtypes exactly."""
    if isinstance(value, Var) or not isinstance(value, int) or isinstance(value, bool) or dtype.kind not in "iu":
        return dtype
    for candidate in (dtype, np.dtype(np.int64), np.dtype(np.uint64)):
        info = np.iinfo(candidate)
        if info.min <= value <= info.max:
            return candidate
    raise UserError(f"Python integer {value} out of bounds for comparison", OverflowError)


def _check_integer_exponent(b: Builder, e, python_ints: bool = False) -> None:
    """NumPy refuses negative integer exponents of integers: at compile time, or by a kernel check flag. Python
    gives a float for two Python ints (`2 ** -1`), a type the typed program cannot choose by value: refused too."""
    message = "Integers to negative integer powers are not allowed."
    if python_ints:
        message = ("a negative exponent of Python ints (Python's `n ** k` is then a float; the compiled one is an "
                   "int64) is not supported: write float(n) ** k")
    if isinstance(e, Var):
        from .reductions import reduce
        negative = apply_ufunc(b, np.less, [e, 0])
        flag = reduce(b, "any", negative) if negative.ndim else negative
        b.check(flag, ValueError, message)
    elif np.any(np.asarray(e) < 0):
        raise UserError(message, ValueError)


def _small_int_exponent(e):
    if isinstance(e, Var) or isinstance(e, bool):
        return None
    if isinstance(e, (int, np.integer)) and abs(int(e)) <= _INT_POW_LIMIT:
        return int(e)
    if isinstance(e, (float, np.floating)) and float(e).is_integer() and abs(e) <= _INT_POW_LIMIT:
        return int(e)
    return None


def to_bool(b: Builder, value):
    if isinstance(value, Var):
        return b.convert(value, dtypes.BOOL) if value.dtype != dtypes.BOOL else value
    if is_weak(value):
        if type(value) is int:
            dtypes.weak_to_dtype(value, dtypes.INT64)   # NumPy goes through a C long: OverflowError beyond it
        return bool(value)
    return np.asarray(as_operand(value)).astype(bool)


def where(b: Builder, condition, x, y) -> Var:
    cond = to_bool(b, as_operand(condition))
    x, y = as_operand(x), as_operand(y)
    out = np.result_type(*[_promotion_stand_in(v) for v in (x, y)])   # weak Python scalars stay weak
    # a Python int that does not fit is cast as NumPy casts it here (np.where(c, uint16_array, -1) holds 65535)
    branches = [b.const(np.asarray(v).astype(out)) if is_weak(v) and not isinstance(v, Var) else coerce(b, v, out)
                for v in (x, y)]
    ops = checked_in_kernel(b, [cond if isinstance(cond, Var) else b.const(cond)] + branches)
    shape = broadcast([o.shape for o in ops], b.env)
    return b.emit1("select", ops, out, shape, scalar=False)


def _promotion_stand_in(v):
    """A value np.result_type promotes exactly like `v` (weak Python scalars stay Python scalars)."""
    t = operand_type(v)
    return t(0) if isinstance(t, type) else t


def astype(b: Builder, x: Var, dtype, copy=True) -> Var:
    dtype = dtypes.check_supported(dtype, "astype")
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(dtype) and dtype != dtypes.BOOL:
        warn_at(b, np.exceptions.ComplexWarning, "Casting complex values to real discards the imaginary part")
    if x.dtype == dtype:
        return b.emit1("copy", [x], dtype, x.shape, scalar=x.scalar) if copy else x
    return b.emit1("convert", [x], dtype, x.shape, scalar=x.scalar, dtype=dtype)


def warn_at(b: Builder, category, message: str) -> None:
    """A warning NumPy gives at each call, given once when the function is compiled, at the line that causes it
    (what NumPy's default filter shows: once per line)."""
    import warnings
    loc = b.loc
    try:
        if loc is None:
            warnings.warn(message, category, stacklevel=2)
        else:
            warnings.warn_explicit(message, category, loc.filename, loc.lineno)
    except category:       # warnings turned into errors: the error at the line, of the warning's class
        raise UserError(message, category) from None


def clip(b: Builder, a, a_min=None, a_max=None) -> Var:
    """NumPy's `_clip`: on an integer array a Python int bound past the dtype's range on its own side (a minimum at
    or below the smallest value, a maximum at or above the largest) is dropped; any other Python int bound that the
    dtype cannot hold is the ufunc's OverflowError (np.clip(uint8_array, 0, -1), np.clip(uint8_array, 300, 400))."""
    dt = a.dtype if isinstance(a, Var) else np.asarray(a).dtype
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if type(a_min) is int and a_min <= info.min:
            a_min = None
        if type(a_max) is int and a_max >= info.max:
            a_max = None
        # a run-time one past that side counts as the dtype's own bound (the same values); past the other side it
        # is the ufunc's OverflowError, checked there
        if _run_time_python_int(a_min) and dt != dtypes.INT64:
            a_min = apply_ufunc(b, np.maximum, [a_min, int(info.min)], python_op=True)
        if _run_time_python_int(a_max) and info.max < 2**63:
            a_max = apply_ufunc(b, np.minimum, [a_max, int(info.max)], python_op=True)
    if a_min is None and a_max is None:
        return apply_ufunc(b, np.positive, [a])
    if a_max is None:
        return apply_ufunc(b, np.maximum, [a, a_min])
    if a_min is None:
        return apply_ufunc(b, np.minimum, [a, a_max])
    return apply_ufunc(b, np._core.umath.clip, [a, a_min, a_max])
