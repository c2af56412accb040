"""Loops of float32 tanh and float power vectorized before LLVM, with tables in AVX-512 registers
(backend/vector_loops.py, backend/vector_power.py): within 1 ulp of the correctly rounded tanh and power, NumPy's
answers for every shape, layout and neighbour of the loop, and the loops the pass does not take (reductions, an
index in the arithmetic, gathers) keep vector_math's expansion. On a
machine without AVX-512 the same checks run the expansion; the code of an AVX-512 target is checked in a child
process on any machine. Loops of vector_math's other expansions, vectorized here on two registers per iteration,
compute the scalar loop's bits."""
import json
import os

import numpy as np
import pytest

from tests.test_target_cpu import run_child
from tests.test_vector_math import ulps
from transpiler import transpile


@pytest.fixture(autouse=True)
def _vector_loops_on(monkeypatch):
    """The pass is on by default; TRANSPILER_VECTOR_LOOPS=0 in the environment (a measurement switch) would turn
    it off: these tests keep it on (children inherit it)."""
    monkeypatch.delenv("TRANSPILER_VECTOR_LOOPS", raising=False)


def correctly_rounded(x):
    return np.tanh(x.astype(np.float64)).astype(np.float32)


def table_arguments():
    """Every 251st float32 in [0, 10] and its negative, the boundaries of the table's intervals (powers of two and
    quarter points from 2**-5 to 16) with their neighbours, subnormals, the clamp, inf, NaN and zeros."""
    bits = np.arange(0, np.float32(10).view(np.int32), 251, dtype=np.int32)
    spread = bits.view(np.float32)
    edges = np.array([2.0 ** e * (1 + j / 4) for e in range(-5, 5) for j in range(4)], np.float32)
    near = np.concatenate([edges, np.nextafter(edges, np.float32(0)), np.nextafter(edges, np.float32(np.inf))])
    special = np.array([0.0, 1e-45, 1e-40, 1.1754942e-38, 1e-20, 9.0, 9.01, 9.5, 9.50001, 10.0, 88.0, 1e30,
                        3.4028235e38, np.inf, np.nan], np.float32)
    x = np.concatenate([spread, near, special])
    return np.concatenate([x, -x])


def test_table_tanh_within_one_ulp():
    x = table_arguments()
    with np.errstate(all="ignore"):
        actual = transpile(tanh_plain, disk_cache=False)(x)
        expected = correctly_rounded(x)
    error = ulps(actual, expected)
    worst = int(np.argmax(error))
    assert error.max() <= 1, f"tanh({x[worst]!r}) = {actual[worst]!r}, correctly rounded {expected[worst]!r}"
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))     # tanh(-0.0) = -0.0
    assert np.array_equal(np.isnan(actual), np.isnan(expected))


def tanh_plain(x):
    return np.tanh(x)


def tanh_of_rows(x):
    return np.tanh(x * 2 + 1)


def tanh_plus_column(x, y):
    return np.tanh(x) + y[:, None]


def tanh_of_every_other(x):
    return np.tanh(x[:, ::2])


def tanh_of_transpose(x):
    return np.tanh(x.T)


def tanh_row_sums(x):
    return np.sum(np.tanh(x), axis=-1)


def tanh_row_max(x):
    return np.max(np.tanh(x), axis=1)


def tanh_of_positions(x):
    return np.tanh(np.arange(x.shape[-1], dtype=np.float32) * x)


def tanh_widened(x):
    return np.tanh(x).astype(np.float64) * 3.0


def tanh_into_slice(x):
    out = np.zeros_like(x)
    out[:, 1:] = np.tanh(x[:, :-1])
    return out


def tanh_in_place(x):
    y = x * 0.5
    y = np.tanh(y)
    y *= 2
    return y


KERNELS = {
    "rows": (tanh_of_rows, lambda x: (x * 2 + 1,)),
    "plus column": (tanh_plus_column, None),
    "every other": (tanh_of_every_other, lambda x: (x[:, ::2],)),
    "transpose": (tanh_of_transpose, lambda x: (x.T,)),
    "row sums": (tanh_row_sums, None),
    "row max": (tanh_row_max, None),
    "positions": (tanh_of_positions, lambda x: (np.arange(x.shape[-1], dtype=np.float32) * x,)),
    "widened": (tanh_widened, None),
    "into slice": (tanh_into_slice, None),
    "in place": (tanh_in_place, lambda x: (x * np.float32(0.5),)),
}


SHAPES = [(0, 5), (1, 1), (3, 15), (2, 16), (3, 17), (5, 33), (4, 100)]


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_tanh_loops_give_numpys_answer(kernel):
    """Every element, the vector loop's and the scalar remainder's (rows of 15, 16, 17, 33 elements), one compiled
    function for every shape: the tanh itself within 1 ulp of the correctly rounded one; what surrounds it as NumPy
    computes it (within 2 float32 ulp of NumPy's result, whose own tanh is within 1 ulp too)."""
    fn, tanh_argument = KERNELS[kernel]
    compiled, tanh = transpile(fn, disk_cache=False), transpile(tanh_plain, disk_cache=False)
    for shape in SHAPES:
        rng = np.random.default_rng(sum(shape))
        x = rng.uniform(-6, 6, shape).astype(np.float32)
        y = rng.uniform(-1, 1, shape[0]).astype(np.float32)
        args = (x, y) if kernel == "plus column" else (x,)
        actual, expected = compiled(*args), fn(*args)
        assert actual.shape == expected.shape and actual.dtype == expected.dtype
        np.testing.assert_allclose(actual, expected, rtol=2.5e-7, atol=2e-7, err_msg=str(shape))
        if tanh_argument is not None:
            (argument,) = tanh_argument(x)
            argument = np.ascontiguousarray(argument)
            assert ulps(tanh(argument), correctly_rounded(argument)).max(initial=0) <= 1, shape


def test_threaded_tanh_loop_within_one_ulp():
    """A loop big enough for threads (thread_only_large_loops counts a vector op as its 16 lanes of work)."""
    x = np.random.default_rng(3).uniform(-10, 10, (1024, 1031)).astype(np.float32)
    actual = transpile(tanh_plain, disk_cache=False)(x)
    assert ulps(actual, correctly_rounded(x)).max() <= 1


def tanh_of_gathered(x, ids):
    return np.tanh(x.reshape(-1)[ids])


def tanh_of_gathered_columns(x, ids):
    return np.tanh(x[:, ids] * 2)


def tanh_of_gathered_rows(x, ids):     # the row index loaded once per row: vectorized
    return np.tanh(x[ids[::-1]] + 1)


def tanh_scattered_rows(x, ids):
    out = np.zeros_like(x)
    out[ids] = np.tanh(x)
    return out


@pytest.mark.parametrize("fn", [tanh_of_gathered, tanh_of_gathered_columns, tanh_of_gathered_rows,
                                tanh_scattered_rows])
def test_gathered_tanh_gives_numpys_answer(fn):
    """Loops that read (or write) at an index loaded from an array: the index varies along the loop without being the
    loop's own, so the loop stays scalar (a gather), or vectorizes along an inner dim whose row index is loaded once
    per row. The pass once vectorized `np.tanh(x[ids])` with the vector body reading through the scalar body's
    index, then erased that body: MLIR ended the process ("operation destroyed but still has uses", the abort in the
    default suite's fuzz run)."""
    compiled = transpile(fn, disk_cache=False)
    for shape in [(1, 1), (3, 17), (5, 33), (16, 40)]:
        rng = np.random.default_rng(sum(shape))
        x = rng.uniform(-6, 6, shape).astype(np.float32)
        ids = rng.permutation(shape[1] if fn is tanh_of_gathered_columns else shape[0])
        actual, expected = compiled(x, ids), fn(x, ids)
        assert actual.shape == expected.shape and actual.dtype == expected.dtype
        np.testing.assert_allclose(actual, expected, rtol=2.5e-7, atol=2e-7, err_msg=str(shape))


def power_of(x, y):
    return np.power(x, y)


def power_of_rows(x, y):
    return (x * 0.5) ** (y[:, None] - 1)


def power_hard_pairs():
    """float64 pairs where the table power is easiest to get wrong: results near overflow (y log x up to 709.78
    and just past it) and through the subnormals down to 0 (to -745.13 and just past it), bases at the table's
    interval boundaries (bits of OFF plus multiples of 2**48, 1 - 2**-6 and 1 + 2**-5 around the interval of 1)
    and their neighbours, subnormal and huge bases, bases near 1 with huge exponents, negative bases with integer
    exponents (odd and even), 0 and inf and NaN both ways, 1 ** nan, x ** 0, exponent near 2**52 and 2**53."""
    from transpiler.backend.vector_power import OFF
    rng = np.random.default_rng(41)
    n = 4000
    target = np.concatenate([rng.uniform(700, 709.8, n), rng.uniform(709.7, 709.9, n), rng.uniform(-745.2, -700, n),
                             rng.uniform(-745.2, -744.4, n), rng.uniform(-709, -707, n)])
    base = np.exp(rng.uniform(-700, 700, len(target)))
    base = np.where(np.abs(np.log(base)) < 1e-3, 2.0, base)
    exponent = target / np.log(base)
    edges = (OFF + np.arange(17, dtype=np.int64) * 2 ** 48).view(np.float64)
    edges = np.concatenate([edges, [1 - 2.0 ** -6, 1 + 2.0 ** -5]])
    edges = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, 2)])
    edges = np.concatenate([edges * 2.0 ** e for e in (-1074 + 60, -600, -1, 0, 1, 500, 1000)])
    edge_exponents = rng.uniform(-40, 40, len(edges))
    subnormal = np.array([5e-324, 1e-320, 2.2e-308, 2.2250738585072014e-308, 1e-310]).repeat(20)
    subnormal_exponents = np.tile(np.array([-1, 0.5, 1, 2, -0.5, 1e-3, -1e-3, 0.9, 1.1, 3,
                                            -2, 0.25, 1.5, -0.25, 7, 0.01, -0.01, 0.999, 1.001, 2.5]), 5)
    near_one = 1 + rng.uniform(-2 ** -20, 2 ** -20, n)
    near_one_exponents = rng.uniform(-2e8, 2e8, n)
    negative = -rng.uniform(0.1, 20, n)
    integers = rng.integers(-200, 200, n).astype(float)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 5e-324, -5e-324])
    sx, sy = (a.ravel() for a in np.meshgrid(special, np.concatenate([special, [3.0, -3.0, 2.0 ** 52 + 1,
                                                                                2.0 ** 53, 0.5, 1e300]])))
    x = np.concatenate([base, edges, subnormal, near_one, negative, sx])
    y = np.concatenate([exponent, edge_exponents, subnormal_exponents, near_one_exponents, integers, sy])
    return x, y


def test_table_power_within_one_ulp():
    """float64 power's table loop (backend/vector_power.py: 16 lanes, log and exp reduced by 16-entry tables in
    registers) within 1 ulp of the long-double power rounded, with NumPy's special values and signs, on
    test_vector_math's pairs (every special pair, every binade of both, large y log x) and on the hard cases of
    power_hard_pairs; once with bases the loop finds all positive normal finite (power(positive=True)), once
    complete. Lengths that leave 0-15 elements to the scalar remainder."""
    from tests.test_vector_math import big_exponent_pairs, positive_base_pairs, power_pairs
    compiled = transpile(power_of, disk_cache=False)
    sets = [power_pairs("float64"), big_exponent_pairs(), power_hard_pairs(), positive_base_pairs("float64")]
    positive = [np.abs(x[np.isfinite(x) & (np.abs(x) >= 2.2250738585072014e-308)]) for x, _ in sets[:3]]
    sets += [(x, y[:len(x)]) for x, (_, y) in zip(positive, sets[:3]) if len(y) >= len(x)]
    for x, y in sets:
        with np.errstate(all="ignore"):
            exact = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(np.float64)
        for end in (len(x), len(x) - 1, len(x) - 15):
            xs, ys, expected = x[:end], y[:end], exact[:end]
            with np.errstate(all="ignore"):
                actual = compiled(xs, ys)
            error = ulps(actual, expected)
            worst = int(np.argmax(error))
            assert error.max() <= 1, f"power({xs[worst]!r}, {ys[worst]!r}) = {actual[worst]!r}, exact {expected[worst]!r}"
            numbers = ~np.isnan(expected)
            assert np.array_equal(np.isnan(actual), ~numbers)
            assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))


def test_table_power_in_loops_gives_numpys_answer():
    """A power loop with arithmetic around it, the exponent broadcast per row (a value of the outer loop), rows of
    every length around the 32 lanes (vector_loops._WIDTHS) and 16, and a threaded loop; NumPy's dtype and shape,
    within 1 ulp of NumPy's own float64 power (itself within 1 ulp) on what it computes."""
    rows = transpile(power_of_rows, disk_cache=False)
    for shape in [(1, 1), (3, 15), (2, 16), (3, 17), (2, 31), (2, 32), (5, 33), (3, 65), (4, 100)]:
        rng = np.random.default_rng(sum(shape))
        x = rng.uniform(0, 8, shape)
        y = rng.uniform(-4, 4, shape[0])
        actual, expected = rows(x, y), power_of_rows(x, y)
        assert actual.shape == expected.shape and actual.dtype == expected.dtype
        np.testing.assert_allclose(actual, expected, rtol=5e-16, atol=0, err_msg=str(shape))
    x = np.random.default_rng(5).uniform(0, 4, (512, 1031))
    y = np.random.default_rng(6).uniform(-30, 30, (512, 1031))
    np.testing.assert_allclose(transpile(power_of, disk_cache=False)(x, y), np.power(x, y), rtol=5e-16, atol=0)


def power_hard_pairs32():
    """float32 pairs where the table power is easiest to get wrong: results near overflow (y log2 x up to 128 and
    just past it) and through the subnormals down to 0 (to -150 and just past it), bases at the table's interval
    edges (1 + i/16 in several binades, subnormal ones included) and their neighbours, bases next to 1 on both sides
    (the first and the last interval, whose k + log2(1/invc) is 0) with exponents up to the overflow, negative bases
    with integer exponents, and every pair of 0, inf, NaN, +-1, +-2, +-0.5 and the smallest subnormal."""
    rng = np.random.default_rng(43)
    n = 4000
    target = np.concatenate([rng.uniform(120, 128.2, n), rng.uniform(127.9, 128.1, n), rng.uniform(-150.2, -120, n),
                             rng.uniform(-150.1, -148.9, n), rng.uniform(-127, -125, n)])
    base = np.exp2(rng.uniform(-120, 120, len(target)))
    base = np.where(np.abs(np.log2(base)) < 1e-3, 2.0, base)
    exponent = target / np.log2(base)
    edges = np.float32(1 + np.arange(17) / 16)
    edges = np.concatenate([edges, np.nextafter(edges, np.float32(0)), np.nextafter(edges, np.float32(2))])
    edges = np.concatenate([edges * np.float32(2.0 ** e) for e in (-140, -126, -60, -1, 0, 1, 60, 126)])
    edge_exponents = rng.uniform(-3, 3, len(edges))
    steps = rng.integers(1, 2000, n)
    near_one = np.concatenate([np.float32(1) + steps[:n // 2] * np.float32(2.0 ** -23),
                               np.float32(1) - steps[n // 2:] * np.float32(2.0 ** -24)])
    near_one_exponents = rng.uniform(-150, 128, n) / np.log2(near_one.astype(np.float64))
    negative = -rng.uniform(0.1, 20, n)
    integers = rng.integers(-40, 40, n).astype(float)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1e-45, -1e-45])
    sx, sy = (a.ravel() for a in np.meshgrid(special, np.concatenate([special, [3.0, -3.0, 2.0 ** 24 + 2,
                                                                                2.0 ** 24, 0.5, 1e30]])))
    x = np.concatenate([base, edges, near_one, negative, sx])
    y = np.concatenate([exponent, edge_exponents, near_one_exponents, integers, sy])
    with np.errstate(over="ignore"):
        return x.astype(np.float32), y.astype(np.float32)


def test_table_power_float32_within_its_bound():
    """float32 power's table loop (vector_power.power_f32: 2**(y log2|x|) in float64 on 16 lanes, log2 and exp2
    each reduced by a 16-entry table in registers, no division) within 0.53 ulp of the exact power (the long-double
    one, unrounded: before its one rounding to float32 the float64 value is within 2**-29 of it), hence within 1 ulp
    of it rounded, with NumPy's special values and signs, on test_vector_math's pairs and on power_hard_pairs32; once
    with bases the loop finds all positive normal finite, once complete. Lengths that leave 0-15 elements to the
    scalar remainder. (The expansion before it, whose float64 value was within 2**-28, reached 0.5304 here.) On a
    machine without AVX-512 the expansion runs: its bound, 0.5 + 2**-28 / 2**-23 ulp."""
    from tests.test_vector_math import positive_base_pairs, power_pairs
    from transpiler.backend import vector_loops
    bound = 0.53 if vector_loops.available() else 0.5 + 2.0 ** -5
    compiled = transpile(power_of, disk_cache=False)
    sets = [power_pairs("float32"), power_hard_pairs32(), positive_base_pairs("float32")]
    positive = [np.abs(x[np.isfinite(x) & (np.abs(x) >= np.finfo(np.float32).tiny)]) for x, _ in sets[:2]]
    sets += [(x, y[:len(x)]) for x, (_, y) in zip(positive, sets[:2])]
    for x, y in sets:
        with np.errstate(all="ignore"):
            exact = np.power(x.astype(np.longdouble), y.astype(np.longdouble))
            rounded = exact.astype(np.float32)
        for end in (len(x), len(x) - 1, len(x) - 15):
            xs, ys, expected = x[:end], y[:end], rounded[:end]
            with np.errstate(all="ignore"):
                actual = compiled(xs, ys)
            error = ulps(actual, expected)
            worst = int(np.argmax(error))
            assert error.max() <= 1, \
                f"power({xs[worst]!r}, {ys[worst]!r}) = {actual[worst]!r}, exact {expected[worst]!r}"
            numbers = ~np.isnan(expected)
            assert np.array_equal(np.isnan(actual), ~numbers)
            assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))
            finite = numbers & np.isfinite(expected) & (expected != 0)
            spacing = np.spacing(np.abs(expected[finite])).astype(np.longdouble)
            to_exact = np.abs(actual[finite].astype(np.longdouble) - exact[:end][finite]) / spacing
            assert to_exact.max() <= bound, float(to_exact.max())


def test_table_power_float32_in_loops_and_threads():
    """float32 power's table loop with arithmetic around it and the exponent broadcast per row (a value of the outer
    loop), rows of every length around its 16 lanes (and 32), and a loop large enough for threads: NumPy's dtype and
    shape, within 1 ulp of the long-double power of what it computes (x * 0.5 and y - 1 in float32)."""
    rows = transpile(power_of_rows, disk_cache=False)
    for shape in [(1, 1), (3, 15), (2, 16), (3, 17), (2, 31), (2, 32), (5, 33), (3, 65), (4, 100)]:
        rng = np.random.default_rng(sum(shape))
        x = rng.uniform(0, 8, shape).astype(np.float32)
        y = rng.uniform(-4, 4, shape[0]).astype(np.float32)
        actual = rows(x, y)
        base, exponent = x * np.float32(0.5), y[:, None] - np.float32(1)      # float32 both, as compiled
        expected = np.power(base.astype(np.longdouble), exponent.astype(np.longdouble)).astype(np.float32)
        assert actual.shape == expected.shape and actual.dtype == np.float32
        assert ulps(actual, expected).max() <= 1, shape
    x = np.random.default_rng(5).uniform(0, 4, (512, 1031)).astype(np.float32)
    y = np.random.default_rng(6).uniform(-30, 30, (512, 1031)).astype(np.float32)
    with np.errstate(all="ignore"):
        expected = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(np.float32)
        actual = transpile(power_of, disk_cache=False)(x, y)
    assert ulps(actual, expected).max() <= 1


def test_table_power_float32_parity_and_special_bases():
    """float32 power's table loop finds a negative base's sign from the exponent's parity by rounding (an integer
    whose half is not one is odd): integers and non-integers around 2**22, 2**23 and 2**24 (odd up to 2**24 - 1, every
    float32 from 2**24 on even), 0.5 and 1.5, inf, NaN; and zero, inf and NaN bases from vgetexppd alone (no select):
    NumPy's values, NaNs and signs, in lanes of the vector loop (the arrays are longer than 16)."""
    big = [2.0 ** 22 - 0.5, 2.0 ** 22 + 0.5, 2.0 ** 22 + 1, 2.0 ** 23 - 1.5, 2.0 ** 23 - 1, 2.0 ** 23 - 0.5, 2.0 ** 23,
           2.0 ** 23 + 1, 2.0 ** 24 - 3, 2.0 ** 24 - 2, 2.0 ** 24 - 1, 2.0 ** 24, 2.0 ** 24 + 2, 2.0 ** 25 + 4, 1e30,
           3.0, 4.0, 0.5, 1.5, 2.5, 1e-45, 0.0, np.inf, np.nan, 7.0, 2.0 ** 20 + 1]
    y = np.array(big + [-v for v in big], np.float32)
    for base in (-1.0, -0.5, -2.0, -1.0000001, -0.0, 0.0, -np.inf, np.inf, np.nan, -1e-45, -3.4028235e38, 1.0):
        x = np.full_like(y, base)
        with np.errstate(all="ignore"):
            expected, actual = np.power(x, y), transpile(power_of, disk_cache=False)(x, y)
        assert np.array_equal(np.isnan(actual), np.isnan(expected)), base
        numbers = ~np.isnan(expected)
        assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers])), base
        assert ulps(actual, expected).max() <= 1, base


def test_table_power_float32_warnings_are_numpys(monkeypatch):
    """With NumPy's warnings on (TRANSPILER_FP_WARNINGS=1), float32 power's table loop (40 elements: the vector loop,
    not only the scalar remainder) raises no event on ordinary bases and exponents (the call is the kernel's, no
    replay as NumPy), and where NumPy warns (0 ** -1, overflow, a negative base with a fractional exponent) the
    call gives NumPy's warnings and values."""
    import warnings
    from transpiler.runtime import errstate
    monkeypatch.setattr(errstate, "WARNINGS", True)
    compiled = transpile(power_of, disk_cache=False)
    rng = np.random.default_rng(9)
    x, y = rng.uniform(0.1, 10, 40).astype(np.float32), rng.uniform(-5, 5, 40).astype(np.float32)
    with np.errstate(all="warn", under="ignore"):
        assert ulps(compiled(x, y), np.power(x, y)).max() <= 1 and compiled.replays == 0
    for base, exponent in [(0.0, -1.0), (10.0, 50.0), (-2.0, 0.5), (3.0, 1e5)]:
        xs, ys = x.copy(), y.copy()
        xs[17], ys[17] = base, exponent
        caught = []
        for fn in (power_of, compiled):
            with warnings.catch_warnings(record=True) as record, np.errstate(all="warn", under="ignore"):
                warnings.simplefilter("always")     # (NumPy's default state; the suite runs under "ignore")
                result = fn(xs, ys)
            caught.append((result, sorted(str(w.message) for w in record)))
        (expected, numpy_warnings), (actual, our_warnings) = caught
        assert numpy_warnings and our_warnings == numpy_warnings, (base, exponent)
        assert ulps(actual, expected).max() <= 1


CODE_SCRIPT = """
import json
import numpy as np
from transpiler import emit
from tests import test_vector_loops as t
x = np.ones((4, 64), np.float32)
kernels = {"tanh": (t.tanh_plain, (x,)), "rows": (t.tanh_of_rows, (x,)), "row sums": (t.tanh_row_sums, (x,)),
           "row max": (t.tanh_row_max, (x,)), "every other": (t.tanh_of_every_other, (x,)),
           "positions": (t.tanh_of_positions, (x,)), "float64": (t.tanh_plain, (x.astype(np.float64),)),
           "power": (t.power_of, (x.astype(np.float64), x.astype(np.float64))), "power32": (t.power_of, (x, x))}
print(json.dumps({name: "llvm.x86.avx512.vpermi2var.p" in emit(fn, *args, stage="llvm")
                  for name, (fn, args) in kernels.items()}))
"""


def test_avx512_code_vectorizes_elementwise_tanh_loops_only():
    """Compiled for an AVX-512 CPU (x86-64-v4), elementwise float32 tanh loops look up their tables with vpermi2ps
    (also that of `x[:, ::2]`, whose rows are copied into a buffer of the function first, and whose tanh then reads
    and writes the same element of it), float power loops (float64 and float32) with vpermi2pd; reductions
    (vector_reductions vectorizes those), loops whose arithmetic uses the index and float64 tanh keep the
    expansion; compiled for AVX2 (x86-64-v3) none uses AVX-512's permute."""
    taken = json.loads(run_child(CODE_SCRIPT, "x86-64-v4"))
    assert taken == {"tanh": True, "rows": True, "row sums": False, "row max": False, "every other": True,
                     "positions": False, "float64": False, "power": True, "power32": True}
    assert not any(json.loads(run_child(CODE_SCRIPT, "x86-64-v3")).values())


def every_expansion(x):
    return (np.exp(x), np.tanh(x), np.log(np.abs(x) + 0.5), np.sin(x), np.cos(x), np.tan(x), np.expm1(x),
            np.log1p(np.abs(x)), np.sinh(x), np.cosh(x), np.arctan(x), np.arcsin(x / 11), np.arccos(x / 11),
            np.arctan2(x, x * x - 3))


def every_expansion_scalar(x):
    return every_expansion(x)


def expanded_loops_against_scalar_ones(lengths):
    """(dtype, length, output) of every_expansion where the loops this pass vectorizes differ from those LLVM
    vectorizes by itself (TRANSPILER_VECTOR_LOOPS=0), float32 tanh left out (its table code differs from its
    expansion)."""
    vectorized = transpile(every_expansion, disk_cache=False)
    os.environ["TRANSPILER_VECTOR_LOOPS"] = "0"
    try:
        scalar = transpile(every_expansion_scalar, disk_cache=False)
        for dtype in ("float32", "float64"):
            for n in lengths:
                scalar(np.zeros(n, dtype))             # compiled while the pass is off
    finally:
        del os.environ["TRANSPILER_VECTOR_LOOPS"]
    differ = []
    for dtype in ("float32", "float64"):
        for n in lengths:
            x = np.random.default_rng(n).uniform(-10, 10, n).astype(dtype)
            with np.errstate(all="ignore"):
                ours, theirs = vectorized(x), scalar(x)
            differ += [(dtype, n, k) for k, (a, b) in enumerate(zip(ours, theirs))
                       if not (k == 1 and dtype == "float32") and not (a.dtype == b.dtype and
                                                                      np.array_equal(a, b, equal_nan=True))]
    return differ


def test_expanded_math_loops_in_two_registers_give_the_scalar_loops_bits():
    """vector_math's expansions in a loop this pass takes run on two registers per iteration (vector<32xf32>,
    vector<16xf64>): the same arithmetic on vectors, so every result is bit for bit that of the loop LLVM
    vectorizes by itself, at every length around the lanes (the scalar remainder) and in a loop large enough for
    threads; compiled for AVX2 too (two ymm registers), with fewer lengths."""
    assert expanded_loops_against_scalar_ones(list(range(0, 40)) + [63, 64, 65, 1000, 300_007]) == []
    script = "from tests import test_vector_loops as t\nprint(t.expanded_loops_against_scalar_ones([1, 7, 16, 999]))"
    assert run_child(script, "x86-64-v3").decode().strip() == "[]"


def sin_plain(x):
    return np.sin(x)


def exp_plain(x):
    return np.exp(x)


def sin_row_sums(x):
    return np.sum(np.sin(x), axis=-1)


def sin_of_positions(x):
    return np.sin(np.arange(x.shape[-1], dtype=np.float32) * x)


LANES_SCRIPT = """
import json
import numpy as np
from transpiler import emit
from tests import test_vector_loops as t
x = np.ones((4, 64), np.float32)
kernels = {"sin": (t.sin_plain, x), "exp64": (t.exp_plain, x.astype(np.float64)),
           "row sums": (t.sin_row_sums, x), "positions": (t.sin_of_positions, x),
           "power64": (t.power_of, x.astype(np.float64), x.astype(np.float64))}
print(json.dumps({name: [lanes for lanes in ("vector<32xf32>", "vector<16xf32>", "vector<32xf64>", "vector<16xf64>",
                                             "vector<8xf64>") if lanes in emit(f, *a, stage="llvm")]
                  for name, (f, *a) in kernels.items()}))
"""


def test_avx512_code_runs_expanded_math_in_two_registers():
    """Compiled for an AVX-512 CPU, elementwise loops of expanded math (float32 sin, float64 exp) are vectorized by
    this pass on two zmm registers per iteration, compiled for AVX2 on two ymm registers; a reduction's loop and a
    loop whose arithmetic uses the index are not; compiled for SSE4.2 (x86-64-v2) none is. float64 power's table
    loop (AVX-512) takes 32 lanes (vector_loops._WIDTHS; its tables are looked up 8 lanes at a time), its expansion
    (AVX2) two ymm registers."""
    for cpu, f32, f64, power in (("x86-64-v4", "vector<32xf32>", "vector<16xf64>", ["vector<32xf64>", "vector<8xf64>"]),
                                 ("x86-64-v3", "vector<16xf32>", "vector<8xf64>", ["vector<8xf64>"])):
        taken = json.loads(run_child(LANES_SCRIPT, cpu))
        assert taken == {"sin": [f32], "exp64": [f64], "row sums": [], "positions": [], "power64": power}, cpu
    assert not any(json.loads(run_child(LANES_SCRIPT, "x86-64-v2")).values())
