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
