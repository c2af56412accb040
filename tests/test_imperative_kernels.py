"""Classic imperative kernels (tests/programs_imperative.py) compiled unmodified: results and every argument's final
contents match NumPy's run on small inputs."""
import numpy as np
import pytest

import programs_imperative as P
from helpers import check


def rng(seed=0):
    return np.random.default_rng(seed)


def spd(n, seed=0):
    """A symmetric positive definite matrix (Cholesky, LU without pivoting)."""
    a = rng(seed).random((n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("n", [1, 2, 7])
def test_gemm(n):
    r = rng(n)
    C, A, B = r.random((n, n + 1)), r.random((n, 3)), r.random((3, n + 1))
    check(P.gemm, 1.5, 1.2, C, A, B)
    check(P.gemm_loops, 1.5, 1.2, C, A, B)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_lu_cholesky(n):
    check(P.lu, spd(n))
    check(P.cholesky, spd(n, seed=1))


@pytest.mark.parametrize("n", [1, 5])
def test_trisolv(n):
    L = np.tril(spd(n)) + np.eye(n)
    check(P.trisolv, L, np.zeros(n), rng(2).random(n))


def test_gramschmidt():
    A = rng(3).random((6, 4)) + np.eye(6, 4)
    check(P.gramschmidt, A, np.zeros((4, 4)), np.zeros((6, 4)))


@pytest.mark.parametrize("kernel", [P.durbin, P.durbin_loops])
def test_durbin(kernel):
    r = 1.0 / np.arange(2, 10, dtype=np.float64)
    check(kernel, r)


@pytest.mark.parametrize("n", [3, 12])
def test_stencils(n):
    r = rng(n)
    check(P.jacobi_1d, 4, r.random(n), r.random(n))
    check(P.jacobi_2d, 3, r.random((n, n)), r.random((n, n)))
    check(P.seidel_2d, 3, n, r.random((n, n)))
    check(P.heat_3d, 3, r.random((n, n, n)), r.random((n, n, n)))
    check(P.fdtd_2d, 3, r.random((n, n + 1)), r.random((n, n + 1)), r.random((n, n + 1)), r.random(3))


@pytest.mark.parametrize("n", [5, 16])
def test_nussinov(n):
    """N is a Python int: its loops have compile-time ranges, long ones compiled as run-time loops."""
    seq = rng(4).integers(0, 4, n).astype(np.int32)
    check(P.nussinov, n, seq)


@pytest.mark.parametrize("kernel", [P.floyd_warshall, P.floyd_warshall_loops])
def test_floyd_warshall(kernel):
    check(kernel, rng(5).random((7, 7)) * 10)


def test_cavity_flow():
    nx = ny = 9
    u, v, p = np.zeros((ny, nx)), np.zeros((ny, nx)), np.zeros((ny, nx))
    check(P.cavity_flow, nx, ny, 5, 4, u, v, 0.001, 2 / (nx - 1), 2 / (ny - 1), p, 1.0, 0.1)


@pytest.mark.parametrize("n", [1, 6, 40])
def test_group_sums(n):
    keys = np.sort(rng(n).integers(0, 5, n))
    check(P.group_sums, keys, rng(n + 1).random(n))
    check(P.group_sums, np.zeros(n, np.int64), np.ones(n))      # one group


@pytest.mark.parametrize("n", [2, 3, 50, 101])
def test_sieve(n):
    check(P.sieve, np.ones(n, bool))


def test_sigma_clipping():
    x = np.concatenate([rng(6).standard_normal(200), [15.0, -12.0, 40.0]])
    check(P.clipped_mean_outliers, x, 3.0)
    check(P.clipped_mean_outliers, np.ones(5), 1.0)


@pytest.mark.parametrize("kernel", [P.mandelbrot, P.mandelbrot_escape])
@pytest.mark.parametrize("size", [(40, 30, 25), (1, 1, 3), (7, 3, 0)])
def test_mandelbrot(kernel, size):
    """complex128 grids from np.linspace (meshgrid or broadcasting) and `1j * y`; counts written through masks."""
    width, height, maxiter = size
    check(kernel, -2.0, 0.5, -1.25, 1.25, width, height, maxiter)


@pytest.mark.parametrize("shape, nbins", [((20, 24), 12), ((1, 5), 3), ((9, 9), 1)])
def test_radial_profile(shape, nbins):
    check(P.radial_profile, rng(8).random(shape), np.array([shape[0] / 2, shape[1] / 3]), nbins)


@pytest.mark.parametrize("series, days", [(4, 30), (2, 3), (3, 250)])
def test_returns_statistics(series, days):
    """np.diff, np.cov, np.corrcoef and np.linalg.lstsq on computed arrays (its residuals empty for 2 days: a
    square fit); the covariance is a sum, so to rounding."""
    prices = 100 * np.exp(np.cumsum(rng(days).normal(0, 0.01, (series, days)), axis=1))
    check(P.returns_statistics, prices, rtol=1e-9, atol=1e-12)
