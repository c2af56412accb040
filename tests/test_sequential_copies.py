"""Loops below the threads' threshold (backend/loops.thread_only_large_loops, `_sequential_beside`): a parallel loop
nest is copied as plain loops beside its OpenMP region, and a loop with too little work runs the copy, without
entering the OpenMP runtime (a serialized parallel region and its dynamic schedule cost 0.3-0.5 us of a call on 10
elements). Both copies give NumPy's answer, and the same bits as a kernel compiled without threads."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.backend.pipeline import THREAD_MIN_WORK


def add_one(x):
    return x + 1


def centered_rows(x):
    return x - x.mean(axis=1, keepdims=True)


def test_a_small_loop_has_a_copy_outside_the_parallel_region():
    """Regression: the loop was only in the OpenMP region, run serialized when small (`omp.parallel if(...)`)."""
    llvm = transpile(add_one).emit(np.arange(10.0), stage="llvm")
    assert llvm.count("omp.parallel") == 1
    assert llvm.count("llvm.fadd") == 2      # the loop's body: once in the region, once in the plain copy


@pytest.mark.parametrize("fn", [add_one, centered_rows])
@pytest.mark.parametrize("rows", [0, 1, 7, THREAD_MIN_WORK // 512 + 3])   # the last: above the threshold
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_copies_give_the_same_bits_as_one_thread(fn, rows, dtype):
    x = (np.random.default_rng(rows).standard_normal((rows, 512)) * 100).astype(dtype)
    threaded, single = transpile(fn), transpile(fn, threads=False)
    for _ in range(2):
        result = threaded(x)
        np.testing.assert_array_equal(result, single(x))
        np.testing.assert_allclose(result, fn(x), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)
        assert result.dtype == fn(x).dtype and result.shape == x.shape


def long_body(x):
    for k in range(12):
        x = x * 1.5 + k
    return x


def test_only_small_loop_nests_are_copied(monkeypatch):
    """A copy costs compile time (LLVM compiles the loop twice): past SEQUENTIAL_COPY_OPS operations of a function's
    parallel loops, a loop stays in its OpenMP region only, as before."""
    from transpiler.backend import loops
    x = np.arange(10.0)
    assert transpile(long_body).emit(x, stage="llvm").count("llvm.fmul") == 12
    monkeypatch.setattr(loops, "SEQUENTIAL_COPY_OPS", 10**6)
    assert transpile(long_body).emit(x, stage="llvm").count("llvm.fmul") == 24
    np.testing.assert_array_equal(transpile(long_body)(x), long_body(x))
