"""Idioms of published kernels that loop and write (issue #13, "loops that write"): Floyd-Warshall's
`D[:, k:k+1] + D[k:k+1, :]`, halving sums `x[:n] += x[n:2*n]`, row swaps by fancy indices (LU with partial
pivoting), tuple swaps of views, and comparisons with Python ints beyond int64. Each is compared with NumPy's own run
(values, dtypes, every argument's final contents) on several sizes, 0 and 1 included."""
import numpy as np
import pytest

from helpers import check


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- comparisons with a Python int that no int64 or uint64 holds (NEP 50) ------------------------------------------
def compare_beyond_int64(n, x):
    return (n == 2**64, n < -2**64, x[-1:].sum() > 2**65, np.less(2**64, x), np.greater_equal(x, -2**70),
            x != 2**100, x == 2**64, x <= -2**64 - 1)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (2, 3)])
def test_comparisons_with_ints_beyond_int64_are_all_one_side(dtype, shape):
    check(compare_beyond_int64, 3, np.arange(np.prod(shape), dtype=dtype).reshape(shape))


def test_arithmetic_with_ints_beyond_int64_is_still_overflow():
    from transpiler import transpile
    with pytest.raises(OverflowError):
        transpile(lambda x: x + 2**64)(np.arange(3))
