"""NumPy's OpenBLAS on the kernels' OpenMP pool (runtime/blas_pool.py): the same jobs on other threads, so NumPy's
results are bit for bit those of OpenBLAS's own pool, from one thread or several, in a forked child, and where
OpenMP cannot give a team (the jobs then run on threads of their own)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from transpiler import transpile
from transpiler.runtime import blas, blas_pool, jit

pytestmark = pytest.mark.skipif(jit.openmp_library() is None or blas.openblas_path() is None,
                                reason="needs intel-openmp and NumPy's bundled OpenBLAS")


@pytest.fixture(autouse=True)
def pooled():
    """The pool for this test (opt-in: TRANSPILER_BLAS_POOL=1 installs it when the runtime loads), then OpenBLAS's
    own again, as the rest of the suite expects."""
    jit.load_runtime_libraries()
    was = blas_pool.installed()
    blas_pool.install(blas.openblas_path())
    yield
    if not was:
        blas_pool.uninstall()


def started():
    return blas_pool.installed()


def threaded_products():
    """NumPy calls large enough for OpenBLAS to split into jobs: level 3 (jobs that wait for each other), level 2,
    and LAPACK on top of them, in each BLAS dtype."""
    rng = np.random.default_rng(7)
    calls = {}
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        a = rng.standard_normal((300, 400)).astype(dtype)
        b = rng.standard_normal((400, 500)).astype(dtype)
        calls[f"gemm {dtype.__name__}"] = lambda a=a, b=b: a @ b
        calls[f"gemv {dtype.__name__}"] = lambda a=a: a @ a[0]
        calls[f"vector @ matrix {dtype.__name__}"] = lambda a=a, b=b: b[:, 0] @ b
    s = rng.standard_normal((300, 300))
    spd = s @ s.T + 300 * np.eye(300)
    calls["a @ a.T"] = lambda: s @ s.T
    calls["solve"] = lambda: np.linalg.solve(spd, s[:, :7])
    calls["inv"] = lambda: np.linalg.inv(spd)
    calls["cholesky"] = lambda: np.linalg.cholesky(spd)
    calls["eigh"] = lambda: np.linalg.eigh(spd)[0]
    calls["svd"] = lambda: np.linalg.svd(s[:200])[1]
    return calls


def run_without_pool(calls):
    blas_pool.uninstall()
    try:
        return {name: call() for name, call in calls.items()}
    finally:
        blas_pool.install(blas.openblas_path())


def test_numpy_results_are_bit_for_bit_openblas_own():
    assert started()
    calls = threaded_products()
    pooled = {name: call() for name, call in calls.items()}
    own = run_without_pool(calls)
    for name in calls:
        assert pooled[name].dtype == own[name].dtype and np.array_equal(pooled[name], own[name]), name


def test_products_from_several_threads_take_turns():
    """OpenBLAS's buffer k belongs to job k of one call at a time: concurrent calls from Python threads (NumPy
    releases the GIL in matmul) must not share them."""
    assert started()
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((400, 400)), rng.standard_normal((400, 400))
    expected = {name: f() for name, f in {"gemm": lambda: a @ b, "gemv": lambda: a @ b[0]}.items()}
    wrong = []

    def work(name):
        for _ in range(25):
            result = a @ b if name == "gemm" else a @ b[0]
            if not np.array_equal(result, expected[name]):
                wrong.append(name)
    threads = [threading.Thread(target=work, args=(name,)) for name in ("gemm", "gemv", "gemm", "gemv")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_kernels_and_numpy_interleaved_agree():
    """A compiled attention head straight after NumPy's, and NumPy's straight after ours, call after call."""
    from transpiler.stdlib import nn
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((128, 64)) for _ in range(3))
    mask = nn.causal_mask(128, np.float64)
    compiled = transpile(nn.attention)
    expected = nn.attention(q, k, v, mask)
    for _ in range(5):
        assert np.allclose(nn.attention(q, k, v, mask), expected, rtol=0, atol=0)
        np.testing.assert_allclose(compiled(q, k, v, mask), expected, rtol=1e-12, atol=1e-12)


CHILD = """
import os
import numpy as np
from transpiler.runtime import blas_pool, jit
jit.load_runtime_libraries()     # what the first compilation in a process does
pooled_here = blas_pool.installed()
rng = np.random.default_rng(11)
a, b = rng.standard_normal((400, 300)), rng.standard_normal((300, 500))
pooled = (a @ b, a @ b[:, 0], np.linalg.solve(a[:300] @ a[:300].T + 300 * np.eye(300), b[:, :5]))
blas_pool.uninstall()
own = (a @ b, a @ b[:, 0], np.linalg.solve(a[:300] @ a[:300].T + 300 * np.eye(300), b[:, :5]))
print(pooled_here, all(np.array_equal(x, y) for x, y in zip(pooled, own)), os.environ.get("KMP_USE_YIELD"))
"""


def child_env(**settings):
    env = {k: v for k, v in os.environ.items() if k not in ("TRANSPILER_BLAS_POOL", "KMP_USE_YIELD")}
    return {**env, "TRANSPILER_CACHE_DIR": "", **settings}


def test_installed_with_the_runtime_when_asked():
    """With the OpenMP runtime's workers yielding as they spin (blas_pool.OPENMP_USE_YIELD), as OpenBLAS's do."""
    out = subprocess.run([sys.executable, "-c", CHILD], env=child_env(TRANSPILER_BLAS_POOL="1"), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", blas_pool.OPENMP_USE_YIELD]


def test_where_openmp_cannot_give_a_team_the_jobs_get_threads_of_their_own():
    """OMP_THREAD_LIMIT below OpenBLAS's 64 threads: the callback starts a thread per job (a gemm's jobs wait for
    each other, so they cannot run one after the other on a smaller team: with a team of one, a gemm hangs)."""
    out = subprocess.run([sys.executable, "-c", CHILD], env=child_env(TRANSPILER_BLAS_POOL="1", OMP_THREAD_LIMIT="1"),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["True", "True"]


def test_off_by_default():
    out = subprocess.run([sys.executable, "-c", CHILD], env=child_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "None"]


def test_the_kernels_block_time_is_kept_across_numpy_products():
    """After a call's jobs the team spins as long as OpenBLAS's own workers would (SPIN_MS), and the kernels'
    loops keep their own block time (runtime/jit.py's KMP_BLOCKTIME): the callback restores it."""
    import ctypes
    omp = ctypes.CDLL(jit.openmp_library())
    before = omp.kmp_get_blocktime()
    rng = np.random.default_rng(17)
    a = rng.standard_normal((400, 400))
    for _ in range(3):
        a @ a
    assert omp.kmp_get_blocktime() == before
    assert before != blas_pool.SPIN_MS


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_computes_with_the_pool():
    import multiprocessing
    assert started()
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((400, 400)), rng.standard_normal((400, 400))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.starmap(np.matmul, [(a, b), (b, a)])
    assert np.array_equal(results[0], a @ b) and np.array_equal(results[1], b @ a)
