"""Imperative kernels for the `loops` group, written as their authors write them in NumPy (PolyBench / NPBench
style): loops that read and write elements and slices. Each works on its own copy of its inputs, so that repeated
timed calls compute the same thing (the copy is made by NumPy and the compiled function alike)."""
import numpy as np


def recurrence(x):
    """A first-order linear recurrence, one element at a time."""
    a = np.empty_like(x)
    a[0] = x[0]
    for i in range(1, x.shape[0]):
        a[i] = a[i - 1] * 0.5 + x[i]
    return a


def nested_sum(x):
    """Scalar reads in a nested loop."""
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s += x[i, j] * x[j, i]
    return s


def jacobi_2d(tsteps, A, B):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
    return A


def lu_in_place(A):
    """Doolittle LU without pivoting, in place (PolyBench lu)."""
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]


def lu(A):
    """LU of a copy (the benchmark calls it repeatedly on the same input)."""
    A = A.copy()
    lu_in_place(A)
    return A


def floyd_warshall(path):
    path = path.copy()
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, path[:, k][:, None] + path[k, :][None, :])
    return path


def trisolv(L, x, b):
    """Forward substitution L x = b, x written in place (PolyBench trisolv)."""
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def triangular_solve(L, b):
    x = np.zeros_like(b)
    trisolv(L, x, b)
    return x


def durbin_loops(r):
    """Levinson-Durbin recursion (PolyBench durbin), the flipped dot products written as scalar loops."""
    y = np.empty_like(r)
    z = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        s = 0.0
        for i in range(k):
            s += r[k - i - 1] * y[i]
        alpha = -(r[k] + s) / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        y[:k] = z[:k]
        y[k] = alpha
    return y


def seidel_2d(TSTEPS, N, A):
    """Gauss-Seidel: each point reads its already-updated neighbours (PolyBench seidel-2d, inner loop kept)."""
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] +
                           A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


def seidel(tsteps, A):
    A = A.copy()
    seidel_2d(tsteps, A.shape[0], A)
    return A


def match(b1, b2):
    return 1 if b1 + b2 == 3 else 0


def nussinov(N, seq):
    """RNA folding: the maximum number of base pairs (PolyBench nussinov, the NPBench form)."""
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def floyd_warshall_loops(path):
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


def floyd_warshall_scalar(path):
    path = path.copy()
    floyd_warshall_loops(path)
    return path
