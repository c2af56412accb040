"""Elementwise operators and ufuncs against NumPy: values, dtypes and shapes, across dtypes and operand kinds."""
import operator

import numpy as np
import pytest

from helpers import assert_same, check, raises_like_numpy, some_slow_pairs
from transpiler import transpile

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
       "float64"]
NUMERIC = [d for d in ALL if d != "bool"]
RNG_SEED = 1234
RNG = np.random.default_rng(RNG_SEED)   # replaced for every test by conftest (from RNG_SEED and the test's name)


def sample(dtype, shape=(4, 5), positive=False, nonzero=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return RNG.random(shape) < 0.5
    if dt.kind == "f":
        x = RNG.standard_normal(shape) * 4
        if positive:
            x = np.abs(x) + 0.1
        return x.astype(dt)
    lo, hi = (0, 100) if dt.kind == "u" or positive else (-100, 100)
    info = np.iinfo(dt)
    x = RNG.integers(max(lo, info.min), min(hi, info.max), size=shape).astype(dt)
    if nonzero:
        x[x == 0] = 1
    return x


BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "lt": operator.lt, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne, "gt": operator.gt, "ge": operator.ge,
}


def _binary_fn(op):
    fns = {
        "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
        "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
        "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    }
    return fns[op]


# A third of the op x dtype grid in the default suite, every op on a bool or signed, a signed, an unsigned and a float
# dtype (test_promotion_table.py also runs every op on every same-dtype pair); the whole grid in the slow suite.
@pytest.mark.parametrize("op, dtype", some_slow_pairs(list(BINARY), ALL, keep={("sub", "bool")}))
def test_binary_same_dtype(op, dtype):
    fn = _binary_fn(op)
    a, b = sample(dtype), sample(dtype)
    if dtype == "bool" and op == "sub":
        with pytest.raises(TypeError):
            transpile(fn)(a, b)
        return
    check(fn, a, b)


MIXED = [("int8", "uint8"), ("int32", "float32"), ("float16", "float64"), ("bool", "int8"), ("uint64", "int64"),
         ("int16", "float16"), ("uint32", "int8"), ("float32", "float64"), ("int64", "float32"), ("bool", "float16")]


# half of the op x pair grid in the default suite (each op on five of the pairs), the whole grid in the slow suite
@pytest.mark.parametrize("op, pair", some_slow_pairs(["add", "sub", "mul", "truediv", "floordiv", "mod", "lt", "eq"],
                                                     MIXED, every=2),
                         ids=lambda v: v if isinstance(v, str) else f"{v[0]}-{v[1]}")
def test_binary_mixed_dtypes(op, pair):
    check(_binary_fn(op), sample(pair[0]), sample(pair[1], nonzero=True))


# a third of the scalar x dtype grid in the default suite (each scalar on a signed, an unsigned and a float dtype or
# two; -3 on uint16 and uint64: the OverflowError), the whole grid in the slow suite
@pytest.mark.parametrize("scalar, dtype", some_slow_pairs([2, -3, 2.5, True, np.float32(1.5), np.float64(0.25),
                                                           np.int16(7), np.uint8(3)], NUMERIC),
                         ids=lambda v: v if isinstance(v, str) else repr(v))
def test_scalar_operands_nep50(dtype, scalar):
    """Python scalars are weak, NumPy scalars strong (NEP 50); both sides of the operator."""
    x = sample(dtype, positive=True)
    if np.dtype(dtype).kind == "u" and isinstance(scalar, int) and scalar < 0:
        with pytest.raises(OverflowError):
            transpile(lambda x: x + (-3))(x)
        return
    check(lambda x: x * scalar + 1, x)
    check(lambda x: scalar - x, x)


def test_weak_scalar_overflow_raises_like_numpy():
    x = np.arange(5, dtype=np.uint8)
    with pytest.raises(OverflowError):
        x + 300
    with pytest.raises(OverflowError):
        transpile(lambda x: x + 300)(x)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_power(dtype):
    x = sample(dtype, positive=True) % 5 if np.dtype(dtype).kind != "f" else sample(dtype, positive=True)
    y = (sample(dtype, positive=True) % 4).astype(dtype)
    check(lambda a, b: a ** b, x, y)
    check(lambda a: a ** 2, x)
    check(lambda a: a ** 3, x, rtol=5e-3 if dtype == "float16" else 1e-5 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32", "float32", "float64"])
def test_division_edge_cases(dtype):
    """Division by zero, negative operands and (INT_MIN, -1): NumPy's results, never a trap."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = np.array([7, -7, 7, -7, 0, 1, -1, np.inf, -np.inf, np.nan, 5.5, -0.0], dtype=dt)
        b = np.array([2, 2, -2, -2, 0, 0, 0, 2, 3, 1, -np.inf, 1], dtype=dt)
    elif dt.kind == "u":
        a = np.array([7, 0, 5, 255, 3], dtype=dt)
        b = np.array([2, 0, 0, 7, 5], dtype=dt)
    else:
        lo = np.iinfo(dt).min
        a = np.array([7, -7, 7, -7, 0, 5, lo, lo], dtype=dt)
        b = np.array([2, 2, -2, -2, 0, 0, -1, 3], dtype=dt)
    check(lambda a, b: a // b, a, b)
    check(lambda a, b: a % b, a, b)
    if dt.kind == "f":
        check(lambda a, b: a / b, a, b)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_integer_reciprocal_of_zero_is_numpys(dtype):
    """NumPy's integer reciprocal is (type)(1.0 / x): 1 / 0 is inf, which converts to INT_MIN for int32 and int64
    (0 for the narrower and the unsigned types); the kernel divided as integers and gave 0 for every type. Scalars,
    arrays long enough to vectorize, and the other values (1, -1, the extremes) too."""
    info = np.iinfo(dtype) if dtype != "bool" else None
    values = [0, 1, 2, 3] + ([] if info is None else [info.max, info.max - 1])
    if info is not None and info.min < 0:
        values += [-1, -2, info.min, info.min + 1]
    x = np.array(values * 9, dtype=dtype) if dtype != "bool" else np.array([0, 1] * 20, dtype=bool)
    check(lambda x: np.reciprocal(x), x)
    check(lambda x: (np.reciprocal(x[0]), np.reciprocal(x[1:5])), x)


UNARY_FLOAT = ["exp", "log", "log1p", "expm1", "tanh", "sinh", "cosh", "sin", "cos", "tan", "arctan", "sqrt",
               "square", "negative", "absolute", "reciprocal", "sign", "floor", "ceil", "isnan", "isinf",
               "isfinite", "exp2", "log2", "log10", "trunc", "rint", "arcsinh", "cbrt"]


# float32 or float64 in turn in the default suite (float16 and the other of the two in the slow suite;
# test_vector_math.py checks the math functions' error bounds in both)
@pytest.mark.parametrize("name, dtype", some_slow_pairs(UNARY_FLOAT, ["float32", "float64"], every=2)
                         + [pytest.param(name, "float16", marks=pytest.mark.slow) for name in UNARY_FLOAT])
def test_unary_float(name, dtype):
    f = getattr(np, name)
    positive = name in ("log", "log1p", "sqrt", "log2", "log10")
    x = sample(dtype, (3, 7), positive=positive)
    if name in ("exp", "sinh", "cosh", "exp2", "expm1"):
        x = x / 4
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dtype)
    check(lambda x: f(x), x)
    if name not in ("tan",):
        check(lambda x: f(x), special)


# half of the function x dtype grid in the default suite, the whole grid in the slow suite
@pytest.mark.parametrize("name, dtype", some_slow_pairs(["exp", "sqrt", "tanh", "absolute", "negative", "sign", "square",
                                                         "floor", "isnan", "invert"],
                                                        ["int8", "uint8", "bool", "int32", "uint64", "int64"], every=2,
                                                        keep={("invert", "bool"), ("sign", "bool")}))
def test_unary_integer_inputs(name, dtype):
    """Integer inputs take NumPy's loops: sqrt(int8) is float16, negative(bool) raises TypeError ..."""
    f = getattr(np, name)
    x = sample(dtype, (2, 9), positive=name in ("exp", "sqrt"))
    if name in ("exp",):
        x = x % 8 if dtype != "bool" else x
    try:
        with np.errstate(all="ignore"):
            f(x)
    except TypeError:
        with pytest.raises(TypeError):
            transpile(lambda x: f(x))(x)
        return
    check(lambda x: f(x), x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint16"])
def test_binary_functions(dtype):
    a, b = sample(dtype), sample(dtype)
    for f in (np.maximum, np.minimum, np.power if dtype[0] == "f" else np.add, np.arctan2 if dtype[0] == "f"
              else np.subtract):
        check(lambda a, b: f(a, b), np.abs(a) if f is np.power else a, b)


def test_maximum_minimum_propagate_nan():
    a = np.array([1.0, np.nan, 3.0, -np.inf], dtype=np.float32)
    b = np.array([np.nan, 2.0, 1.0, 0.0], dtype=np.float32)
    check(lambda a, b: (np.maximum(a, b), np.minimum(a, b)), a, b)


def test_where_clip_sign():
    x = sample("float32", (5, 6))
    check(lambda x: np.where(x > 0, x, 0.0), x)
    check(lambda x: np.where(x > 0, x, 0), x)
    check(lambda x: np.where(x > 0, 1, -1), x)
    check(lambda x: np.clip(x, -1, 1.5), x)
    check(lambda x: np.clip(x, -1, None), x)
    check(lambda x: np.sign(x) * np.abs(x), x)
    xi = sample("int16", (5, 6))
    check(lambda x: np.clip(x, -10, 10), xi)
    check(lambda x, y: np.where(x > y, x, y), x, sample("float64", (6,)))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "int64"])
def test_bitwise(dtype):
    a, b = sample(dtype), sample(dtype)
    check(lambda a, b: (a & b, a | b, a ^ b, ~a), a, b)


def test_logical_and_comparisons_combined():
    x = sample("float32", (4, 4))
    check(lambda x: (x > 0) & (x < 2) | ~(x == 1), x)
    check(lambda x: np.logical_and(x > 0, x < 1), x)
    check(lambda x: np.logical_not(x), x)


def test_astype_and_scalar_types():
    x = sample("float32", (3, 4)) * 50
    for dt in ALL:
        check(lambda x: x.astype(dt), x)
        check(lambda x: x.astype(np.dtype(dt)) + 1, x)
    check(lambda x: x.astype(x.dtype), x)
    check(lambda x: np.float64(x) * np.float32(3), x)
    xi = sample("int64", (3, 4))
    check(lambda x: x.astype(np.uint8), xi)
    check(lambda x: x.astype(bool), xi)


def test_constants_fold_like_numpy():
    x = sample("float32", (4,))
    check(lambda x: x * np.pi + np.e, x)
    check(lambda x: x * np.float32(np.pi), x)
    check(lambda x: np.where(x > 0, np.inf, -np.inf), x)
    check(lambda x: x + np.nan, x)
    check(lambda x: x * np.sqrt(2 / np.pi), x)   # float64 NumPy scalar: strong, promotes
    check(lambda x: x * (2 / np.pi), x)          # Python float: weak, stays float32


@pytest.mark.parametrize("shapes", [((4, 1), (1, 5)), ((3, 4, 5), (5,)), ((1,), (7,)), ((2, 1, 3), (4, 1)),
                                    ((), (3, 2)), ((1, 1), (1,)), ((0, 3), (1, 3)), ((5, 0), (5, 1))])
def test_broadcasting(shapes):
    a = sample("float32", shapes[0])
    b = sample("float64", shapes[1])
    check(lambda a, b: a * b + a, a, b)


def test_broadcast_mismatch_is_value_error():
    from transpiler import CompileError
    a, b = np.ones((3,), np.float32), np.ones((4,), np.float32)
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(ValueError):   # run-time sizes: checked at the call boundary
        transpile(lambda a, b: a + b)(a, b)
    with pytest.raises(CompileError) as e:   # static sizes: a compile error that is also a ValueError
        transpile(lambda a, b: a + b, static_shapes=True)(a, b)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("order", ["C", "F"])
def test_memory_layouts(order):
    base = sample("float64", (6, 8))
    x = np.asarray(base, order=order)
    check(lambda x: np.exp(x) + 1, x)
    check(lambda x: x * 2, base[::2, 1::3])          # strided view
    check(lambda x: x - 1, base.T)                    # transposed view
    check(lambda x: x + 1, base[:, ::-1])             # negative strides
    ro = base.copy()
    ro.flags.writeable = False
    check(lambda x: x * x, ro)


def test_zero_size_and_zero_d():
    check(lambda x: x * 2 + 1, np.zeros((0, 4), np.float32))
    check(lambda x: x * 2 + 1, np.zeros((3, 0), np.int32))
    check(lambda x: np.tanh(x) * 2, np.array(0.5, np.float32))      # 0-d array -> NumPy scalar
    check(lambda x: x + 1, np.float32(2.5))                          # NumPy scalar argument
    check(lambda x, y: x * y, np.float32(2.5), 3.0)                  # Python float argument (weak)
    check(lambda y: y * 2.0 + 1, 3.5)                                # Python floats stay Python floats


def test_python_float_argument_is_runtime_weak():
    f = transpile(lambda x, s: x * s)
    x = sample("float32", (3,))
    for s in (0.5, 2.0, -1.25):
        assert_same(f(x, s), x * s)
    assert f.compilations == 1


def test_python_int_argument_specializes_by_value():
    f = transpile(lambda x, k: x * k + k)
    x = sample("int16", (3,))
    assert_same(f(x, 3), x * 3 + 3)
    assert_same(f(x, 5), x * 5 + 5)
    assert f.compilations == 2


def test_inplace_operators():
    def f(x, y):
        z = x * 1
        z += y
        z *= 2
        return z
    check(f, sample("float32", (3, 4)), sample("float64", (4,)))   # float64 result cast back to float32

    def g(x):
        z = x + 0
        z += 0.5
        return z
    with pytest.raises(TypeError):
        transpile(g)(sample("int32", (3,)))


def _clip_out(x, o):
    r = np.clip(x, 1, 3, out=o)
    return r


def _clip_in_place(x):
    np.clip(x, 0.5, 2.5, out=x)
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_clip_arguments_as_numpy_takes_them(dtype):
    """np.clip(x, min=...) / (max=...) and ndarray.clip's min/max (positional there), out= on both (it was refused,
    as were min= and max=), and NumPy's errors for one positional bound or both forms at once."""
    x = np.arange(6).astype(dtype)
    for fn in (lambda x: x.clip(), lambda x: x.clip(1), lambda x: x.clip(None, 2), lambda x: x.clip(max=3),
               lambda x: np.clip(x, min=1), lambda x: np.clip(x, max=2), lambda x: np.clip(x, min=1, max=4)):
        check(fn, x)
    check(_clip_out, x, np.empty(6, dtype))
    check(lambda x, o: x.clip(1, 3, out=o), x, np.zeros(6, np.float64))
    check(_clip_in_place, x.astype(np.float64))
    raises_like_numpy(lambda x: np.clip(x, 1), x)                  # TypeError: a_max missing
    raises_like_numpy(lambda x: np.clip(x, a_max=2), x)            # TypeError: a_min missing
    raises_like_numpy(lambda x: np.clip(x, 1, None, max=2), x)     # ValueError: both forms
    raises_like_numpy(_clip_out, x.astype(np.float64), np.empty(6, np.int64))   # same_kind cast of out=
