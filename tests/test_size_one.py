"""Size-1 dims are specialized (part of the key), so every primitive meets them as static 1s: each primitive here runs
on a 2-d and a 3-d input with every combination of its dims set to 1, against NumPy (issue #14: `x[i]` on a (1, 3)
array was an internal compiler error)."""
import itertools

import numpy as np
import pytest

from helpers import check
from transpiler import transpile


def gather(x, i):
    return x[i]


def take(x, i):
    return np.take(x, i), np.take(x, i, axis=-1)


def reductions(x):
    return x.sum(), x.max(0), x.min(-1, keepdims=True), x.argmax(0), np.argmin(x, -1), x.mean(axis=0), x.prod(-1)


def elementwise(x, y):
    return np.tanh(x) * y + np.where(x > 0.5, x, -y) - x ** 3, np.clip(x, 0.2, 0.8).astype(np.float32)


def shapes(x):
    return (x.T, x.reshape(-1), np.expand_dims(x, 1), np.squeeze(x), x[None, ..., None], np.swapaxes(x, 0, -1),
            np.concatenate([x, x], axis=-1), np.stack([x, x]), x.flatten())


def slices(x, i):
    return x[i], x[-1], x[::-1], x[1:], x[..., :1], x[:, ::2] if x.ndim > 1 else x[::2]


def products(x, y):
    return x @ np.swapaxes(y, -1, -2), np.dot(x[..., 0], y[..., 0].T)


def constructors(x):
    n = x.shape[0]
    return np.zeros_like(x), np.full(x.shape, 2.5), np.arange(n), np.tri(n), np.tril(x[..., :n] if x.ndim == 2
                                                                                        else x[0, :, :n])


def loops(x):
    total = np.zeros(x.shape[1:])
    for i in range(x.shape[0]):
        if x[i].sum() > 0.5:
            total = total + x[i]
    n = 0
    while n < x.shape[0]:
        n += 1
    return total, n


def writes(x, ids):
    y = x.copy()
    y[0] = 1.0
    y[..., -1] *= 2
    y[y > 0.5] = 0.25
    y[ids] = -1.0
    y[::-1][0] += 3
    return y


def shapes_with_ones(rank: int):
    base = (3, 4, 5)[:rank]
    return sorted({tuple(1 if k in ones else d for k, d in enumerate(base))
                   for r in range(rank + 1) for ones in itertools.combinations(range(rank), r)})


CASES = [
    (gather, lambda x: (x, np.array([0, -1]))),
    (take, lambda x: (x, np.array([0]))),
    (reductions, lambda x: (x,)),
    (elementwise, lambda x: (x, x[..., :1] + 1)),
    (shapes, lambda x: (x,)),
    (slices, lambda x: (x, 0)),
    (products, lambda x: (x, x)),
    (constructors, lambda x: (x,)),
    (loops, lambda x: (x,)),
    (writes, lambda x: (x, np.array([0]))),
]


def shapes_in_part(rank: int, k: int, part: str) -> list:
    """The shapes of `shapes_with_ones(rank)` that case k runs in the default suite (`part` "default"): every shape
    but those of rank 3 with two dims of size one, of which case k runs one, in turn (each of the three meets three
    or four cases; `reductions` meets (1, 4, 1), whose reduction loops read through a cast view: loops.py); the others
    ("slow") in the slow suite."""
    pairs = [shape for shape in shapes_with_ones(rank) if rank == 3 and shape.count(1) == 2]
    default = [shape for shape in shapes_with_ones(rank) if shape not in pairs or shape == pairs[(k + 2) % len(pairs)]]
    return default if part == "default" else [shape for shape in pairs if shape not in default]


@pytest.mark.parametrize("rank, part", [(2, "default"), (3, "default"), pytest.param(3, "slow", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn, make", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_every_dim_of_size_one_in_turn(fn, make, rank, part):
    rng = np.random.default_rng(rank)
    k = [case for case, _ in CASES].index(fn)
    for shape in shapes_in_part(rank, k, part):
        check(fn, *make(rng.random(shape)))


def test_one_element_gather_from_issue_14():
    assert transpile(gather)(np.ones(1), np.array([0])).tolist() == [1.0]
    check(gather, np.ones((1, 3)), np.array([0]))
    check(take, np.ones((1, 3)), np.array([0]))
