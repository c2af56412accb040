"""Kernels of the `shapes` group: code shaped unlike the nn kernels, from issue 17's table of published kernels at
their small sizes: matrix-vector products, a small MLP, a scalar loop feeding an array expression, and distances
as reductions of broadcasts."""
import numpy as np


def matvec(A, x):
    """A matrix times a vector, then a vector times the matrix."""
    return (A @ x) @ A


def bicg(A, p, r):
    """The two products of a bi-conjugate gradient step (PolyBench's bicg)."""
    return A @ p, r @ A


def relu(x):
    return np.maximum(x, 0)


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def mlp(x, w1, b1, w2, b2, w3, b3):
    """Three dense layers, relu between them, softmax at the end."""
    h = relu(x @ w1 + b1)
    h = relu(h @ w2 + b2)
    return softmax(h @ w3 + b3)


def trace_loop(a):
    """Numba's first example: a scalar loop along the diagonal, then an array expression."""
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def l1_distances(x, y):
    """Manhattan distances between the rows of x and those of y."""
    return np.sum(np.abs(x[:, None, :] - y), axis=-1)


def pairwise_distances(p):
    """Euclidean distances between all pairs of points."""
    return np.sum((p[None] - p[:, None]) ** 2, -1) ** 0.5
