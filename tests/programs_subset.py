"""Ordinary Python around NumPy, compiled unmodified by tests/test_python_subset.py."""
import numpy as np

from math_helpers import softplus


# ---- an MLP whose layers are a list of dicts unpacked with ** -------------------------------------------------
def dense(x, w, b, activation=None):
    y = x @ w + b
    return activation(y) if activation is not None else y


def relu(x):
    return np.maximum(x, 0)


def mlp(x, layers, final_activation=None):
    *hidden, last = layers
    for layer in hidden:
        x = dense(x, **layer, activation=relu)
    return dense(x, **last, activation=final_activation)


# ---- a model that zips and maps over lists of arrays ----------------------------------------------------------
def ensemble(x, weights, biases, scales=(1.0, 0.5, 0.25)):
    branches = list(map(lambda wb: np.tanh(x @ wb[0] + wb[1]), zip(weights, biases)))
    scaled = [s * b for s, b in zip(scales, branches)]
    total = sum(scaled)
    stats = {name: f(total, axis=-1) for name, f in [("mean", np.mean), ("max", np.max)]}
    parts = sorted(enumerate(branches), key=lambda kv: -kv[0])
    return total, stats, len(parts), tuple(p.shape[-1] for _, p in parts)


def pipeline(x, *stages, **options):
    for stage in stages:
        x = stage(x)
    if options.get("normalize", False):
        x = x / np.max(np.abs(x))
    return x


def apply_twice(f, x):
    return f(f(x))


def with_helpers(x):
    offset = sum(i * i for i in range(4))          # compile time: 14
    sizes = [d for d in (1, 2, 3) if d % 2]
    return apply_twice(softplus, x) + offset + len(sizes)


# ---- an iterative solver with a run-time while ----------------------------------------------------------------
def jacobi(a, b, tol=1e-10, max_iter=500):
    d = np.diag_values(a) if False else a.sum(axis=1) * 0 + np.sum(a * np.eye(a.shape[0]), axis=1)
    r = a - np.eye(a.shape[0]) * d
    x = np.zeros_like(b)
    err = np.inf
    it = 0
    while err > tol and it < max_iter:
        x_new = (b - r @ x) / d
        err = np.max(np.abs(x_new - x))
        x = x_new
        it += 1
    return x, it


def newton_sqrt(y):
    x = y
    err = np.max(np.abs(x * x - y))
    while err > 1e-9:
        x = 0.5 * (x + y / x)
        err = np.max(np.abs(x * x - y))
    return x


# ---- a loop with a run-time trip count and an if inside -------------------------------------------------------
def running(x, n, threshold):
    acc = np.zeros_like(x)
    count = 0
    for i in range(n):
        step = x * (i + 1)
        if step.sum() > threshold:
            acc = acc + step
            count += 1
        else:
            acc = acc - 1
    return acc, count


def early_exit(x, limit):
    if x.max() > limit:
        return np.clip(x, -limit, limit), True
    y = x * 2
    return y, False


def piecewise(x, t):
    scale = 2.0 if x.mean() > t else 0.5
    return x * scale


def sum_rows(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i].sum()
    return total


# ---- a block called many times: compiled once as its own function --------------------------------------------
def residual_block(x, w, b):
    h = x @ w + b
    h = (h - h.mean(axis=-1, keepdims=True)) / np.sqrt(h.var(axis=-1, keepdims=True) + 1e-5)
    return x + np.tanh(h)


def deep(x, blocks):
    for block in blocks:
        x = residual_block(x, **block)
    return x
