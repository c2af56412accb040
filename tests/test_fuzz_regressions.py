"""Failures found by the differential fuzzer (tests/test_fuzz.py), reduced by hand to explicit tests.

Each test names what NumPy does; the compiled function must do the same (same type, dtype, shape and values, or the
same exception type)."""
import numpy as np
import pytest

from helpers import assert_same, check, raises_like_numpy
from transpiler import CompileError, transpile


# ---- results that are NumPy scalars -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "float32", "float64"])
def test_reduction_keepdims_of_0d_array_is_a_numpy_scalar(dtype):
    """np.sum(x, axis=None, keepdims=True) of a 0-d array is a NumPy scalar, as without keepdims.
    (fuzz: `t1 = x0.sum(axis=None, keepdims=True)` with x0 = np.array(False))"""
    x = np.array(3, dtype=dtype)
    check(lambda x: x.sum(axis=None, keepdims=True), x)
    check(lambda x: np.max(x, axis=None, keepdims=True), x)
    check(lambda x: x.min(keepdims=True), x)
    check(lambda x: np.any(x, axis=None, keepdims=True), x)
    check(lambda x: x.all(keepdims=True), x)


@pytest.mark.parametrize("dtype", ["uint16", "float32", "float64", "int64"])
def test_integer_index_down_to_0d_is_a_numpy_scalar(dtype):
    """x[0] of a 1-D array is a NumPy scalar (fuzz: `t1 = t0[0]` with t0 = np.exp(x0))."""
    x = np.arange(1, 5).astype(dtype)
    check(lambda x: x[0], x)
    check(lambda x: np.exp(x)[0], x)
    check(lambda x: x[None][0, -1], x)
    check(lambda x: np.expand_dims(x[0], 0)[0], x)


# ---- dtypes ---------------------------------------------------------------------------------------------------------
def test_bool_array_squared_is_int8_like_numpy():
    """NumPy computes `array ** 2` as np.square(array): bool ** 2 is int8 for arrays, 0-d arrays included (fuzz:
    `t0 = x1 ** 2` with a bool x1); a NumPy bool scalar takes the power ufunc with a weak int: int64 (fuzz:
    `t3 = x0 >= x0`, `t4 = t3 ** 2` with a 0-d x0)."""
    check(lambda x: x ** 2, np.array([True, False]))
    check(lambda x: x ** 2, np.array(True))
    check(lambda x: x ** 2, np.True_)
    check(lambda x: (x >= x) ** 2, np.array(3, np.int8))
    check(lambda x: (x >= x) ** 2, np.array([3], np.int8))


# ---- Python int bounds that NumPy accepts -------------------------------------------------------------------------
@pytest.mark.parametrize("lo, hi, dtype", [(-2, 3, "uint16"), (0, 300, "uint8"), (-1000, 1000, "int8"),
                                           (-1, 2**64, "uint32")])
def test_clip_with_out_of_range_python_bounds(lo, hi, dtype):
    """np.clip compares by value: a bound outside the dtype's range clips nothing on that side
    (fuzz: `t0 = np.clip(x1, -2, 3)` with a uint16 x1)."""
    x = np.array([0, 1, 5, 100], dtype=dtype)
    check(lambda x: np.clip(x, lo, hi), x)
    check(lambda x: x.clip(lo, hi), x)


def test_where_with_python_int_outside_the_dtype():
    """np.where(c, uint16_array, -1) is uint16 and holds 65535, as NumPy casts the Python int
    (fuzz: `t1 = np.where(x0 > -1, t0, -1)` with a uint16 t0)."""
    c = np.array([1, 0, 1])
    check(lambda c, x: np.where(c > 0, x, -1), c, np.array([5, 6, 7], np.uint16))
    check(lambda c, x: np.where(c > 0, x, 300), c, np.array([5, 6, 7], np.int8))


# ---- broadcasting of derived sizes --------------------------------------------------------------------------------
def test_reshape_minus_one_that_is_one_broadcasts():
    """x[:, None].reshape(n, -1) is (n, 1): its -1 is n // n, which is 1 whenever the reshape is valid, so it
    broadcasts against (n,) to (n, n) (fuzz: `t1 = t0.reshape(t0.shape[0], -1)` with t0 = x0[:, None], then
    `np.where(x0 > 2, t1, t1)` raised "at run time (max(x0.shape[0], 0)//max(x0.shape[0], 0)) is 1 but x0.shape[0]
    is 5")."""
    def f(x):
        t = x[:, None].reshape(x.shape[0], -1)
        return x + t, np.where(x > 2, t, t)
    check(f, np.arange(5.0))
    check(f, np.arange(2, dtype=np.int16))


# ---- errors at run time -------------------------------------------------------------------------------------------
def test_reshape_minus_one_of_empty_array_is_value_error():
    """x.reshape(x.shape[0], -1) of a (0, 3) array: NumPy raises ValueError (the -1 is ambiguous); not a
    ZeroDivisionError from the size guard (fuzz: `t4 = t0.reshape(t0.shape[0], -1)` with x0 of shape (0,))."""
    def f(x):
        return x.reshape(x.shape[0], -1)
    raises_like_numpy(f, np.zeros((0, 3)))
    raises_like_numpy(f, np.zeros((0, 0), np.uint32))
    check(f, np.zeros((2, 0)))
    check(f, np.ones((2, 3)))


def test_first_error_in_program_order_wins():
    """NumPy stops at the first failing statement: x[0] of an empty array is an IndexError even though a later
    max() of it would be a ValueError (fuzz: `t1 = x0[0]` then `np.max(t0)` with x0 of shape (0, 5))."""
    def f(x):
        a = x[0]
        b = np.max(x)
        return a, b
    raises_like_numpy(f, np.zeros((0, 5)))


def test_shape_guard_error_comes_before_data_errors():
    """Documented difference (docs/semantics.md): shape requirements are checked before the kernel runs, so x[0]
    of a (0, 3) array followed by a reshape that cannot infer -1 reports the reshape's ValueError, where NumPy
    reaches the IndexError first. The message names the dims, never internal value names."""
    def f(x):
        a = x[0]
        b = x.reshape(x.shape[0], -1)
        return a, b
    with pytest.raises(IndexError):
        f(np.zeros((0, 3), np.int64))
    with pytest.raises(ValueError) as info:
        transpile(f)(np.zeros((0, 3), np.int64))
    assert "%" not in str(info.value) and "reshape" in str(info.value)


# ---- compile crashes ----------------------------------------------------------------------------------------------
def test_reverse_slice_of_statically_empty_dim():
    """x[1:] of a size-1 dim is statically empty; reversing it must not crash MLIR verification
    (fuzz: `t1 = x0[1:]`, `t3 = t2[::-1]` with x0 of shape (1, 3))."""
    def f(x):
        return x[1:][::-1]
    x = np.ones((1, 3))
    check(f, x)
    check(lambda x: x[1:].astype(np.int8)[::-1], x)
    check(lambda x: x[:, 5:][:, ::-1] + 1, x)


def test_concatenate_of_statically_empty_operands():
    """Concatenating along axis 0 values whose other dim is statically 0: (1, 0) and (1, 0) make (2, 0)
    (fuzz: `t4 = t2[1:]`, `t5 = t3 - t4`, `np.concatenate([t6, t5], axis=0)` failed MLIR verification,
    "offset 1 is out-of-bounds", reported as an internal compiler error on the wrong line)."""
    def f(x, y):
        t5 = y.sum(keepdims=True) - x[1:]
        return np.concatenate([t5, t5], axis=0)

    def g(x, y):
        t5 = y.sum(keepdims=True) - x[1:]
        return np.concatenate([t5 + 1.5, t5, t5 * 2], axis=0), np.concatenate([t5, t5], axis=1)
    check(f, np.ones(1), np.ones((1, 2)))
    check(g, np.ones(1), np.ones((1, 2)))
    check(g, np.ones(3), np.ones((2, 2)))


def test_concatenate_of_empty_arrays_with_static_shapes():
    """With static_shapes=True a (0, 4) argument is statically empty; concatenating it along either axis must
    compile (fuzz, static_shapes=True: `t0 = np.concatenate([x0, x0], axis=1)` with x0 of shape (0, 4) failed MLIR
    verification, "offset 0 is out-of-bounds")."""
    x = np.zeros((0, 4), np.int64)
    for fn in (lambda x: np.concatenate([x, x], axis=1), lambda x: np.concatenate([x, x], axis=0),
               lambda x: np.concatenate([x, x + 1], axis=-1).sum(axis=1)):
        expected = fn(x)
        actual = transpile(fn, static_shapes=True)(x)
        np.testing.assert_array_equal(actual, expected, strict=True)


def test_compile_failures_are_compile_errors():
    """Whatever goes wrong while compiling is reported as a CompileError, not as a raw MLIRError."""
    def f(x):
        return x[1:][::-1]
    # once an internal error; now it compiles, and must give NumPy's (empty) answer
    np.testing.assert_array_equal(transpile(f)(np.ones((1, 3))), f(np.ones((1, 3))))

    def broken(x):
        return x.T @ x[:, :, None, None, None]     # a shape error NumPy raises: a CompileError, never a raw one
    with pytest.raises(ValueError):
        broken(np.ones((2, 3)))                     # NumPy's type, which the CompileError must also be
    with pytest.raises(CompileError) as info:
        transpile(broken, static_shapes=True)(np.ones((2, 3)))
    assert isinstance(info.value, ValueError)


# ---- accuracy -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["log1p", "expm1"])
def test_log1p_expm1_are_accurate_near_zero(name, dtype):
    """log1p(x) and expm1(x) exist for small |x|, where log(1 + x) and exp(x) - 1 lose every digit
    (fuzz: `np.log1p(np.abs(t0))` of 5e-324 gave 0.0)."""
    fn = getattr(np, name)
    x = np.array([5e-324, 1e-300, 1e-20, 1e-10, -1e-10, 1e-7, 1e-5, -1e-5, 1e-3, 0.1, 3.0], dtype=dtype)
    check(lambda x: fn(x), x, atol=0)


# ---- memory -------------------------------------------------------------------------------------------------------
def test_empty_result_sharing_a_buffer_with_another_result():
    """Two results view one kernel buffer, the first of them empty: the buffer must not be freed before the second
    result is built (fuzz: `t4 = t1[1:]`, `t5 = t2[0]` with t1 = np.sum(x1, axis=0, keepdims=True) returned garbage
    such as -6.4e25 instead of 11.0, depending on what malloc had done with the freed block)."""
    def f(x):
        t1 = np.sum(x, axis=0, keepdims=True)
        return t1[1:], t1[0]
    g = transpile(f)
    x = np.ones((3, 1000))
    for _ in range(20):
        filler = [np.ones(1000) for _ in range(3)]   # noqa: F841 - keeps the allocator busy
        empty, row = g(x)
        assert empty.shape == (0, 1000)
        np.testing.assert_array_equal(row, np.full(1000, 3.0))
    check(f, np.arange(12.0).reshape(3, 4))


def test_value_times_its_own_reversal():
    """`t0 * t0[::-1]` broadcasts a value with a view of itself: the size of the reversed view is the size of t0
    (fuzz: `t0 = x0[::-1]`, `t1 = t0[::-1]`, `t3 = t0 * t2` sent the code generator into infinite recursion)."""
    def f(x):
        t0 = x[::-1]
        return t0 * t0[::-1]

    def g(x):
        t0 = x[::-1]
        t1 = t0[::-1]
        return t0 * np.sqrt(np.abs(t1))
    for n in (2, 3, 0):
        check(f, np.arange(n, dtype=np.float64) - 1.5)
        check(g, np.arange(n, dtype=np.float64) - 1.5)


# ---- Python float arithmetic --------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["truediv", "floordiv", "mod"])
def test_python_float_division_by_zero_raises_zero_division_error(op):
    """Python floats are run-time values, but Python's arithmetic on them raises ZeroDivisionError for a zero divisor
    (fuzz: `t1 = t0 // t0` with t0 = x0 ** 2 and x0 = 0.0 returned nan)."""
    fn = {"truediv": lambda x, y: x / y, "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y}[op]
    f = transpile(fn)
    assert f(7.0, 2.0) == fn(7.0, 2.0)
    with pytest.raises(ZeroDivisionError):
        fn(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f(0.0, -0.0)


def test_python_float_power_overflow_raises_overflow_error():
    """Python's float ** raises OverflowError where the result overflows (1e300 ** 2)."""
    def f(x):
        return x ** 2
    assert transpile(f)(3.0) == 9.0
    with pytest.raises(OverflowError):
        f(1e300)
    with pytest.raises(OverflowError):
        transpile(f)(1e300)



def _python_power(y, e):
    return y ** e


def _python_power_in_an_array(x, y):
    return x * (y ** 0.5)


@pytest.mark.parametrize("y, e", [(0.0, -2.0), (-0.0, -0.5), (0.0, -3.0), (0.0, -2), (0, -1.0), (0.0, float("-inf")),
                                  (0.0, 0.0), (0.0, 2.0), (float("inf"), -1.0), (1e-300, -2.0)])
def test_python_float_zero_to_a_negative_power_raises_zero_division_error(y, e):
    """Python's `0.0 ** -2.0` is ZeroDivisionError; the compiled power raised OverflowError (inf from finite
    operands). 0.0 ** -inf is inf in Python, and 1e-300 ** -2.0 its OverflowError."""
    try:
        expected = _python_power(y, e)
    except Exception as error:
        with pytest.raises(type(error)):
            transpile(_python_power)(y, e)
    else:
        assert_same(transpile(_python_power)(y, e), expected)
    if isinstance(e, int):
        with pytest.raises(ZeroDivisionError):
            transpile(lambda y: y ** -2)(y)


@pytest.mark.parametrize("y", [-4.0, -1.0, -1e-3])
@pytest.mark.parametrize("e", [0.5, -0.5, 1 / 3])
def test_a_negative_python_float_to_a_fractional_power_is_refused_not_nan(y, e):
    """Python's `(-4.0) ** 0.5` is a complex number; the compiled function (floats) returned nan: silently another
    value and type. Refused at the call (ValueError, saying what to write); integral exponents, infinities and
    non-negative bases are Python's floats."""
    with pytest.raises(ValueError, match="complex number in Python"):
        transpile(_python_power)(y, e)
    with pytest.raises(ValueError, match="complex number in Python"):
        transpile(_python_power_in_an_array)(np.arange(3.0), y)
    for base, exponent in [(y, 2.0), (y, -3.0), (float("-inf"), e), (-y, e), (y, float("inf")), (y, float("nan"))]:
        assert_same(transpile(_python_power)(base, exponent), _python_power(base, exponent))

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_half_power_is_sqrt_only_where_numpy_takes_sqrt(dtype):
    """Found by the exhaustive (slow) promotion table: `a ** 0.5` is sqrt for every float dtype (NumPy's fast scalar
    power), but the ufunc np.power is sqrt only in its float32/float64 loops: for float16, np.power(-0.0, 0.5) is
    +0.0 and np.power(-inf, 0.5) is inf (powf), where sqrt gives -0.0 and nan. Compile-time and run-time 0.5."""
    a = np.array([-0.0, -np.inf, np.inf, 4.0, -1.0, 0.0], dtype=dtype)
    with np.errstate(invalid="ignore"):
        check(lambda a: np.power(a, 0.5), a)
        check(lambda a: a ** 0.5, a)
        check(lambda a, s: np.power(a, s), a, 0.5)
        check(lambda a, s: a ** s, a, 0.5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
@pytest.mark.parametrize("exponent", [np.float16(0.5), np.float64(0.5), np.array(0.5, np.float32)], ids=repr)
def test_numpy_one_half_known_when_compiling_is_sqrt(dtype, exponent):
    """A NumPy 0.5 fixed at compile time (a global np.float64(0.5), a 0-d array) is a stride-0 exponent in NumPy's
    float32/float64 power loop, which takes sqrt, in the promoted dtype: (-inf) ** 0.5 is nan and (-0.0) ** 0.5 is
    -0.0, and every other value the correctly rounded root. The compiler computed pow (inf, 0.0, within 1 ulp
    elsewhere); float16 results keep powf, as NumPy's float16 loop does."""
    base = [-np.inf, -0.0, 0.0, 4.0, 2.0, 3.0, 1e-30, 7e-45, np.inf, np.nan, -1.0, 0.1]
    x = np.array(base if np.dtype(dtype).kind == "f" else [0, 1, 2, 3, 4, 9, 10, 255], dtype=dtype)
    for fn in (lambda a: a ** exponent, lambda a: np.power(a, exponent)):
        with np.errstate(all="ignore"):
            expected = fn(x)
            actual = transpile(fn, disk_cache=False)(x)
        assert actual.dtype == expected.dtype
        assert actual.tobytes() == expected.tobytes(), (actual, expected)


def rows_of(x):
    return x.reshape(x.shape[0], -1)


def test_reshape_with_minus_one_and_a_static_zero_dim_is_a_value_error():
    """Found by the fuzzer (static_shapes=True, x of shape (0, 4)): `x.reshape(x.shape[0], -1)` divided the size by
    the other dims' product, 0, while compiling: an internal compiler error (ZeroDivisionError). NumPy cannot infer
    -1 there and raises ValueError."""
    x = np.zeros((0, 4))
    with pytest.raises(ValueError):
        rows_of(x)
    for static in (True, False):
        with pytest.raises(ValueError) as info:
            transpile(rows_of, static_shapes=static)(x)
        assert "internal compiler error" not in str(info.value)
    np.testing.assert_array_equal(transpile(rows_of, static_shapes=True)(np.ones((2, 3))), np.ones((2, 3)),
                                  strict=True)


# ---- loops fused over a buffer one of them writes -------------------------------------------------------------------
def _flipped_then_scaled(b):
    v0 = np.flip(b, 0)
    v0 *= 3.0
    np.multiply(b, 2.0, out=b)
    return v0.copy()


def _flipped_then_scaled_locally(x):
    t = x + 1.0
    v = t[::-1]
    np.multiply(t, 2.0, out=t)
    return v.copy(), t


def _seed_24681(b):
    v0 = np.flip(b, 0)
    v0 *= 3.0
    np.multiply(b, 2.0, out=b)
    c3 = v0.copy()
    v4 = np.flip(b, 0)
    r5 = v4 + 0.0
    v0[v0 > 0.5] = 0.0
    return v0, c3, v4, r5


@pytest.mark.parametrize("shape", [(4,), (3, 2), (5, 3)])
def test_a_loop_reading_a_view_of_what_the_loop_before_writes_is_not_fused(shape):
    """np.multiply(b, 2.0, out=b) then a copy of np.flip(b, 0): fused over rows, iteration 0 read b's last row
    before the multiply's last iteration wrote it (half the values; writes-fuzz seed 24681). A loop that reads a
    buffer the other writes through a view (a flip, a slice) is not fused with it."""
    b = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) / 10
    check(_flipped_then_scaled, b)
    check(_flipped_then_scaled_locally, b)
    check(_seed_24681, b)
