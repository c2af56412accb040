"""JAX, torch.compile and Numba, measured live only when importable (none is a core dependency of this project;
Numba comes with the optional `peers` extra: `uv sync --extra peers`).

Without them the table shows the reference figures, measured elsewhere. With them, each peer runs the very same
NumPy source:
- JAX: the function's module globals are rebound so that `np` is `jax.numpy` (helper functions of the same module
  follow), then `jax.jit`. JAX computes in float32 unless jax_enable_x64 is set, so where NumPy 2 promotes to
  float64 (gelu, attention, GPT-2) it does less work than NumPy and the compiled kernel: its results are compared
  loosely and only recorded.
- torch.compile: TorchDynamo traces NumPy code itself (`torch.compile` of a NumPy function takes and returns
  ndarrays), on the CPU.
- Numba: `numba.njit` of the function, and of the other functions of its module it calls (the module's globals are
  rebound to their jitted versions, as for JAX). Only for the `loops` group (SCOPE): Numba is the peer of scalar
  loops; it computes in float64 like NumPy, so its result is checked as strictly as ours.
A peer that fails on a workload is reported as such; it never stops the run.
"""
from __future__ import annotations

import importlib.util
import types
import warnings

import numpy as np

PEERS = ("jax", "torch", "numba")
LABELS = {"jax": "JAX jit", "torch": "torch.compile", "numba": "Numba njit"}
SCOPE = {"numba": "loops"}          # peers measured on one group only (benchmarks.workloads.GROUPS)
STRICT = {"numba"}                  # peers that compute as NumPy does: checked with the workload's own rtol


def available() -> list[str]:
    return [peer for peer in PEERS if importlib.util.find_spec(peer) is not None]


def rebind(fn, numpy_like=None, wrap=lambda f: f):
    """`fn` with its module's `np` replaced by `numpy_like` (if given), and the module's functions rebound alike,
    each passed through `wrap` (numba.njit: a jitted function calls jitted helpers)."""
    namespace = dict(fn.__globals__)
    if numpy_like is not None:
        namespace["np"] = numpy_like
    for key, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__:
            namespace[key] = wrap(types.FunctionType(value.__code__, namespace, value.__name__, value.__defaults__,
                                                     value.__closure__))
    return namespace[fn.__name__]


def _tree_map(f, value):
    if isinstance(value, dict):
        return {k: _tree_map(f, v) for k, v in value.items()}
    if isinstance(value, list) and value and not isinstance(value[0], (int, float)):
        return [_tree_map(f, v) for v in value]
    return f(value)


def jax_call(fn, args, kwargs):
    import jax
    import jax.numpy as jnp

    jfn = rebind(fn, jnp)
    static = [k for k, v in kwargs.items() if isinstance(v, (int, str))]
    jitted = jax.jit(jfn, static_argnames=static)

    def to_jax(value):
        return jnp.asarray(value) if isinstance(value, (np.ndarray, list)) else value

    jargs = [_tree_map(to_jax, a) for a in args]
    jkwargs = {k: _tree_map(to_jax, v) for k, v in kwargs.items()}

    def call():
        return np.asarray(jitted(*jargs, **jkwargs).block_until_ready())
    return call


def torch_call(fn, args, kwargs):
    import torch

    compiled = torch.compile(fn)

    def call():
        return compiled(*args, **kwargs)
    return call


def numba_call(fn, args, kwargs):
    import numba

    # `A[i, :j] @ A[:j, j]` on a column: Numba warns that it is slower than on contiguous arrays (it is the source).
    warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
    jitted = rebind(fn, wrap=numba.njit)

    def call():
        return jitted(*args, **kwargs)
    return call


def make_call(peer, fn, args, kwargs):
    """A () -> ndarray call of `fn` under the peer; its first call (tracing, compilation) is made by the caller."""
    return {"jax": jax_call, "torch": torch_call, "numba": numba_call}[peer](fn, args, kwargs)
