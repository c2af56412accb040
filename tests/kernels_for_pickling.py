"""Functions that tests/test_pickling.py sends to other processes: they must be importable there by module name
(pytest's pythonpath has the checkout root, and spawned children inherit sys.path)."""
import numpy as np

from transpiler import transpile


@transpile
def rownorm(x):
    return np.sqrt((x * x).sum(axis=-1))


@transpile(static_shapes=True, opt_level=2, threads=False, max_specializations=5)
def scaled_softmax(x, t):
    e = np.exp((x - x.max(axis=-1, keepdims=True)) / t)
    return e / e.sum(axis=-1, keepdims=True)


@transpile
def matmul_tanh(a, b):
    return np.tanh(a @ b)


def affine(x):
    """Plain: tests compile it with transpile(affine, ...)."""
    return x * 3.0 - 1.0


def options_of(compiled):
    """What a child sees of a compiled function it received: its options, and how many kernels it compiled."""
    return compiled._options(), compiled.compilations


def call_with_origin(compiled, x):
    """The result, and whether this process compiled the kernel or loaded it from the disk cache."""
    result = compiled(x)
    (_, kernel), _, _ = compiled.specialization((x,), {})
    return result, kernel.origin
