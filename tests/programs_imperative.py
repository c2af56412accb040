"""Classic imperative NumPy kernels, written from their published algorithms (PolyBench/C 4.2 and the usual
textbook forms) the way their authors write them in NumPy: loops that write elements and slices, arrays updated in
place, arguments changed for the caller. tests/test_imperative_kernels.py compiles them unmodified and compares
every result and every argument with NumPy's own run."""
import numpy as np

# PolyBench lu, trisolv, durbin, seidel-2d, nussinov and floyd-warshall's scalar form, shared with the `loops`
# benchmark group (re-exported).
from benchmarks.loops import (durbin_loops, floyd_warshall_loops, lu_in_place as lu, match,  # noqa: F401
                              nussinov, seidel_2d, trisolv)
from benchmarks.complex_kernels import mandelbrot, mandelbrot_escape   # noqa: F401 (re-exported) the `complex` group's


# ---- linear algebra -------------------------------------------------------------------------------------------
def gemm(alpha, beta, C, A, B):
    """C = alpha A B + beta C, written into C (PolyBench gemm)."""
    C[:] = alpha * A @ B + beta * C


def gemm_loops(alpha, beta, C, A, B):
    """The same, row by row as PolyBench's C loop nest."""
    for i in range(C.shape[0]):
        C[i, :] *= beta
        for k in range(A.shape[1]):
            C[i, :] += alpha * A[i, k] * B[k, :]


def cholesky(A):
    """Cholesky in place, lower triangle (PolyBench cholesky)."""
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[j, :j]
            A[i, j] /= A[j, j]
        A[i, i] -= A[i, :i] @ A[i, :i]
        A[i, i] = np.sqrt(A[i, i])


def gramschmidt(A, R, Q):
    """Modified Gram-Schmidt QR: A is overwritten, R and Q filled (PolyBench gramschmidt)."""
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]


def durbin(r):
    """Levinson-Durbin recursion (PolyBench durbin): the solution of a Toeplitz system."""
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


# ---- stencils -------------------------------------------------------------------------------------------------
def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def jacobi_2d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def heat_3d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1]) +
                               0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1]) +
                               0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, 0:-2]) +
                               A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1]) +
                               0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1]) +
                               0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, 0:-2]) +
                               B[1:-1, 1:-1, 1:-1])


def fdtd_2d(TMAX, ex, ey, hz, _fict_):
    for t in range(TMAX):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


# ---- dynamic programming --------------------------------------------------------------------------------------
def floyd_warshall(path):
    """All-pairs shortest paths in place, one row-vector update per (k, i) (PolyBench floyd-warshall)."""
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, path[:, k][:, None] + path[k, :][None, :])


# ---- a fluid solver with .copy() in its time loop -------------------------------------------------------------
def build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = (rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) /
                                      (2 * dy)) - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 - 2 *
                            ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                            ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))


def pressure_poisson(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    pn = p.copy()
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) /
                         (2 * (dx**2 + dy**2)) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]   # dp/dx = 0 at x = 2
        p[0, :] = p[1, :]     # dp/dy = 0 at y = 0
        p[:, 0] = p[:, 1]     # dp/dx = 0 at x = 0
        p[-1, :] = 0          # p = 0 at y = 2


def cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    """Lid-driven cavity flow (Barba's "12 steps to Navier-Stokes", step 11, as in NPBench)."""
    un = np.empty_like(u)
    vn = np.empty_like(v)
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        build_up_b(b, rho, dt, u, v, dx, dy)
        pressure_poisson(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1]) - dt / (2 * rho * dx) *
                         (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu * (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] +
                                                                             un[1:-1, 0:-2]) + dt / dy**2 *
                                                               (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) - dt / (2 * rho * dy) *
                         (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu * (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] +
                                                                             vn[1:-1, 0:-2]) + dt / dy**2 *
                                                               (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1          # the lid
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0


# ---- data-dependent sizes -------------------------------------------------------------------------------------
def group_sums(keys, values):
    """Sums of the values over each run of equal keys (sorted keys, as a group-by does): the runs start where
    np.diff changes, found with a mask; one sum per run from the running total."""
    change = np.diff(keys) != 0
    starts = np.flatnonzero(np.concatenate(([True], change)))
    ends = np.concatenate((starts[1:], [len(keys)]))
    totals = np.cumsum(values)
    return keys[starts], totals[ends - 1] - np.concatenate(([0.0], totals[ends[:-1] - 1]))


def sieve(is_prime):
    """The sieve of Eratosthenes over a boolean array (all True on entry): the primes below its length."""
    n = len(is_prime)
    is_prime[:2] = False
    i = 2
    while i * i < n:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return np.flatnonzero(is_prime)


def clipped_mean_outliers(x, k):
    """Iterative sigma clipping: drop values more than k standard deviations from the mean until none is."""
    kept = x
    while True:
        mean, std = kept.mean(), kept.std()
        inside = np.abs(kept - mean) <= k * std
        if inside.all():
            break
        kept = kept[inside]
    return kept.mean(), kept.shape[0]


# ---- library functions: histograms, statistics, least squares ------------------------------------------------------
def radial_profile(image, centre, nbins):
    """Azimuthal integration: each pixel's distance to a centre, binned; the mean intensity of each ring."""
    ys, xs = np.meshgrid(np.arange(image.shape[0]), np.arange(image.shape[1]), indexing="ij")
    r = np.sqrt((ys - centre[0]) ** 2 + (xs - centre[1]) ** 2)
    total, edges = np.histogram(r, bins=nbins, weights=image)
    count, _ = np.histogram(r, bins=nbins)
    return total / np.maximum(count, 1), edges


def returns_statistics(prices):
    """Log returns of several price series (rows): their covariance and correlation matrices, and each series' beta
    against the first (a least-squares line with an intercept), with the fit's residuals and rank."""
    returns = np.diff(np.log(prices), axis=1)
    cov = np.cov(returns)
    corr = np.corrcoef(returns)
    market = returns[0]
    design = np.stack([np.ones_like(market), market], axis=1)
    coef, residuals, rank, _ = np.linalg.lstsq(design, returns.T)
    return cov, corr, coef[1], residuals, rank
