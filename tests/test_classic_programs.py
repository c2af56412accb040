"""Classic numerical programs (tests/programs_classic.py) compiled unmodified: results and every argument's final
contents match NumPy's run, on a few sizes each (1 included, where the program allows it)."""
import numpy as np
import pytest

import programs_classic as P
from helpers import check
from transpiler import transpile


def rng(seed=0):
    return np.random.default_rng(seed)


def spd(n, seed=0):
    a = rng(seed).standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("n", [4, 50])
def test_kmeans(n):
    X = rng(n).standard_normal((n, 3))
    check(P.kmeans, X, X[:3].copy(), 4)


@pytest.mark.parametrize("n", [1, 8])
def test_nbody(n):
    r = rng(n)
    check(P.nbody, r.standard_normal((n, 3)), np.zeros((n, 3)), r.random(n), 0.01, 5)


def test_black_scholes():
    S = rng().random(100) * 100 + 1
    check(P.black_scholes, S, 50.0, 1.0, 0.05, 0.2)
    # float32 S with a float64 discount factor (np.exp of a Python float is a float64 scalar): float64 results of
    # float32 logs and tanhs, equal to a few float32 ulps
    check(P.black_scholes, S.astype(np.float32), np.float32(50.0), 1.0, 0.05, 0.2, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("steps", [0, 1, 50])
def test_lorenz_rk4(steps):
    check(P.lorenz_rk4, np.array([1.0, 1.0, 1.0]), 0.01, steps)


def test_logistic_regression():
    r = rng(3)
    check(P.logistic_regression, r.standard_normal((40, 5)), (r.random(40) > 0.5).astype(float), 0.1, 20)


@pytest.mark.parametrize("tol", [1e-10, 1e9, 0.05])
@pytest.mark.parametrize("max_iter", [0, 1, 100])
def test_pagerank_returns_from_its_loop(tol, max_iter):
    """The early `return r_new, it` inside the loop: compiling it was an internal error (AttributeError: 'Alias'
    object has no attribute 'buffer') when the loop's arrays came from a product."""
    A = (rng(4).random((10, 10)) > 0.6).astype(float)
    check(P.pagerank, A, 0.85, tol, max_iter)


def test_returned_in_loop_then_written_is_refused():
    """Writing after the loop into an array that shares memory with the value an early return would give is
    refused, naming that value in the user's words (not a name the loop rewrite made up)."""
    from transpiler import CompileError, transpile

    def f(A, tol, n):
        r = np.ones(A.shape[0])
        r_new = r
        for it in range(n):
            r_new = A @ r
            if r_new.sum() < tol:
                return r_new
            r = r_new
        r[0] = 5.0
        return r, r_new

    with pytest.raises(CompileError, match="the value a `return` inside the loop gives") as e:
        transpile(f)(np.eye(3), 1e-3, 3)
    assert "__return" not in str(e.value)


@pytest.mark.parametrize("steps", [0, 4])
def test_life(steps):
    check(P.life, (rng(5).random((12, 12)) > 0.6).astype(np.int64), steps)


@pytest.mark.parametrize("shape", [(9, 8), (3, 3)])
def test_conv2d_loops(shape):
    r = rng(6)
    check(P.conv2d_loops, r.standard_normal(shape), r.standard_normal((3, 3)))


@pytest.mark.parametrize("n", [1, 6])
def test_conjugate_gradient(n):
    check(P.conjugate_gradient, spd(n), rng(7).standard_normal(n), 1e-10, 50)


def test_adam_step():
    r = rng(8)
    check(P.adam_step, r.standard_normal(10), r.standard_normal(10), np.zeros(10), np.zeros(10), 1)
    check(P.adam_step, r.standard_normal(10).astype(np.float32), r.standard_normal(10).astype(np.float32),
          np.ones(10, np.float32), np.ones(10, np.float32), 3)


def test_power_iteration_and_sinkhorn():
    check(P.power_iteration, spd(6), 30)
    check(P.sinkhorn, rng(9).random((5, 6)), np.full(5, 0.2), np.full(6, 1 / 6), 0.5, 20)


@pytest.mark.parametrize("w", [1, 4, 30])
def test_moving_average(w):
    check(P.moving_average, rng(10).standard_normal(30), w)


def test_hist_equalize():
    check(P.hist_equalize, rng(11).integers(0, 256, (16, 16)).astype(np.uint8))


@pytest.mark.parametrize("n", [0, 1, 20])
def test_insertion_sort(n):
    check(P.insertion_sort, rng(12).standard_normal(n))


def test_cross_entropy_and_horner():
    r = rng(13)
    check(P.cross_entropy, r.standard_normal((8, 5)), r.integers(0, 5, 8))
    check(P.horner, [1.0, -2.0, 3.0], r.standard_normal(10))


@pytest.mark.parametrize("T", [1, 2, 12])
def test_viterbi(T):
    r = rng(14)
    S = 3
    log_A, log_B = np.log(r.dirichlet(np.ones(S), S)), np.log(r.dirichlet(np.ones(4), S))
    check(P.viterbi, np.log(np.full(S, 1 / S)), log_A, log_B, r.integers(0, 4, T))


@pytest.mark.parametrize("n", [0, 2, 5])
def test_back_substitution(n):
    r = rng(15)
    check(P.back_substitution, np.triu(r.random((n, n))) + np.eye(n), r.random(n))


def _stepped(start, stop):
    s = 0
    for i in range(start, stop, -3):
        s = s * 7 + i
    return s


def _reversed_reads(x, k):
    t = x[0] * 0
    for i in range(x.shape[0] - 1, k, -2):
        t = t * 0.5 + x[i]
    return t


def _negative_indices(x):
    t = x[0] * 0
    for i in range(-1, -x.shape[0] - 1, -1):
        t = t * 0.5 + x[i]
    return t


@pytest.mark.parametrize("start, stop", [(10, 0), (10, -1), (0, 10), (10, 9), (10, 10), (-5, -12), (2**40, 2**40 - 7)])
def test_loops_over_reversed_run_time_ranges(start, stop):
    """range(start, stop, -c) with run-time bounds was refused ("needs a positive step known at compile time"); it
    runs Python's iterations in Python's order, none when start <= stop, and reads x[i] (also negative i) as NumPy."""
    check(_stepped, start, stop)
    x = rng(16).random(9)
    for k in (-1, 0, 3, 8, 20):
        check(_reversed_reads, x, k)
    check(_negative_indices, x)
    check(_negative_indices, x[:1])



def _reversed_sum_of_array_bounds(a, b):
    s = 0
    count = 0
    for i in range(a[0], b[0], -3):
        s += i
        count += 1
    return s, count


# (-1, -2**31): 715 million rounds, of which NumPy's (Python's) run takes most of a minute: in the slow suite
@pytest.mark.parametrize("dtype, start, stop", [(np.int32, 2**31 - 1, 2**31 - 10),
                                               pytest.param(np.int32, -1, -2**31, marks=pytest.mark.slow),
                                               (np.uint8, 200, 0)])
def test_a_reversed_range_of_numpy_ints_yields_python_ints(dtype, start, stop):
    """range() yields Python ints whatever its bounds are (`range(a[0], b[0], -3)` of int32 elements); the compiled
    reversed loop bound start - k * c in the bounds' dtype: `s += i` wrapped at int32 (2147483636 where Python's sum
    is 6442450932) and `s` came back an np.int32 where it is a Python int. Also the trip count, (start - stop) in
    int32, wrapped for bounds 2**32 apart."""
    check(_reversed_sum_of_array_bounds, np.array([start], dtype), np.array([stop], dtype))

def _count_a_stepped_range(a, b):
    count = 0
    last = -1
    for i in range(a[0], b[0], 2**60):
        count += 1
        last = i % 1000
    return count, last


@pytest.mark.parametrize("dtype, start, stop", [(np.int64, 2**62, 2**63 - 2**60), (np.int64, -2**63, 2**62),
                                               (np.uint64, 5, 2**62), (np.int32, -5, 2**31 - 1)])
def test_a_stepped_range_up_to_near_int64s_largest_ends(dtype, start, stop):
    check(_count_a_stepped_range, np.array([start], dtype), np.array([stop], dtype))


@pytest.mark.parametrize("dtype, start, stop", [(np.int64, 2**62, 2**63 - 1), (np.uint64, 5, 2**64 - 1),
                                               (np.uint64, 2**64 - 2**61, 2**64 - 1)])
def test_a_range_whose_index_would_pass_int64s_largest_is_an_overflow_error(dtype, start, stop):
    """The loop's int64 index passes the last one by a step: past 2**63 - 1 it wrapped negative and the loop never
    ended (range(2**62, 2**63 - 1, 2**60)); uint64 bounds past int64 wrapped. An OverflowError after the call now."""
    with pytest.raises(OverflowError, match="would pass 2\\*\\*63 - 1"):
        transpile(_count_a_stepped_range)(np.array([start], dtype), np.array([stop], dtype))


def _count_a_reversed_range(a, b):
    count = 0
    for i in range(a[0], b[0], -2**61):
        count += 1
    return count


def test_a_reversed_range_of_uint64_bounds_past_int64_is_an_overflow_error():
    """range(2**64 - 1, 0, -2**61) ran zero times (the bound wrapped negative; Python's runs 8)."""
    check(_count_a_reversed_range, np.array([2**62 + 5], np.uint64), np.array([0], np.uint64))
    with pytest.raises(OverflowError, match="uint64 bound past"):
        transpile(_count_a_reversed_range)(np.array([2**64 - 1], np.uint64), np.array([0], np.uint64))


@pytest.mark.parametrize("n", [1, 2, 5])
def test_gauss_seidel(n):
    """`A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]`: the two `i + 1` are one expression, so the product's operands
    have one length (it was refused: "cannot check that the run-time sizes ... are equal")."""
    check(P.gauss_seidel, spd(n, seed=17), rng(17).standard_normal(n), 10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sobel(dtype):
    check(P.sobel, rng(18).random((8, 9)).astype(dtype))


def _hypot(a, b):
    return np.hypot(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_hypot_is_libms(dtype):
    """np.hypot (it was refused) calls libm's hypot as NumPy's loop does: bit for bit, special values included."""
    from helpers import assert_same
    from transpiler import transpile
    special = np.array([0.0, -0.0, 1.0, -3.0, 1e308, 1e-310, np.inf, -np.inf, np.nan, 5e-324, 1.7e308, 3.0])
    a, b = np.meshgrid(special, special)
    big = rng(19).standard_normal((2, 4000)) * [[1e3], [1.0]]
    compiled = transpile(_hypot)
    with np.errstate(all="ignore"):
        for x, y in ((a, b), (big[0], big[1]), (big[0], 2), (3.0, big[1])):
            x, y = (v.astype(dtype) if isinstance(v, np.ndarray) else v for v in (x, y))
            got, want = compiled(x, y), _hypot(x, y)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    for x, y in ((np.arange(5), np.arange(5)), (np.arange(5, dtype=np.int8), 2), (np.ones(3, bool), True)):
        assert_same(compiled(x, y), _hypot(x, y), rtol=0.0, atol=0.0)


def _slow_cases():
    r = rng(20)
    M = spd(5, seed=20)
    W = r.random((6, 6))
    W[W > 0.7] = np.inf
    H = 4
    return [
        (P.edit_distance, (r.integers(0, 3, 7), r.integers(0, 3, 9))),
        (P.edit_distance, (r.integers(0, 3, 0), r.integers(0, 3, 4))),
        (P.householder_qr, (r.standard_normal((5, 4)),)),
        (P.csr_matvec, (np.array([0, 2, 2, 5]), np.array([0, 2, 0, 1, 2]), r.standard_normal(5), r.standard_normal(3))),
        (P.welford, (r.standard_normal(50),)),
        (P.kahan_sum, (r.standard_normal(50) * 1e10,)),
        (P.newton_sqrt, (r.random(10) * 10, 1e-12)),
        (P.bisection, (r.random(10) * 10, np.zeros(10), np.full(10, 3.0), 40)),
        (P.batchnorm_train, (r.standard_normal((16, 4)), np.ones(4), np.zeros(4), np.zeros(4), np.ones(4), 0.1, 1e-5)),
        (P.lstm_cell, (r.standard_normal((2, 3)), r.standard_normal((2, H)), r.standard_normal((2, H)),
                       r.standard_normal((3, 4 * H)), r.standard_normal((H, 4 * H)), r.standard_normal(4 * H))),
        (P.im2col_conv, (r.standard_normal((2, 6, 5)), r.standard_normal((3, 2, 3, 2)))),
        (P.max_drawdown, (r.random(30) + 1,)),
        (P.dijkstra_dense, (W, 0)),
        (P.trapezoid_integrate, (r.random(20), 0.1)),
        (P.jacobi_eigen, (M, 3)),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(15))
def test_more_classic_programs(case):
    fn, args = _slow_cases()[case]
    check(fn, *args, rtol=1e-9, atol=1e-12)
