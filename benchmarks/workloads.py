"""The workloads: the NumPy function, its inputs, the reference figures measured elsewhere and the bar to meet.

Inputs are float32, as a model's activations and weights are; nothing is cast, so NumPy 2's promotions stay as
they are (gelu and the attention scores become float64, see docs/gpt2.md), for NumPy and the compiled kernel alike.
`scale="small"` shrinks every shape (for the smoke test and quick trials); reference figures and bars are for the
full shapes only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from transpiler.stdlib import nn
from transpiler.stdlib.gpt2.model import gpt2
from transpiler.stdlib.gpt2.weights import CONFIGS, random_params

from . import complex_kernels, loops, shapes, vmath

SCALES = ("full", "small")
MS = 1e-3


@dataclass
class Workload:
    name: str                                  # what --only selects
    fn: Callable                               # the plain NumPy function, compiled unmodified
    make_args: Callable                        # (scale, shared) -> (label, args, kwargs)
    bar: float                                 # ratio (NumPy median / compiled median) to reach
    ref: dict = field(default_factory=dict)    # reference seconds measured elsewhere: numpy, jax, torch
    rtol: float = 1e-5                         # correctness: max |compiled - NumPy| <= rtol * max |NumPy|
    group: str = ""                            # workloads that share one compiled function (GPT-2)


def rng(seed):
    return np.random.default_rng(seed)


def normal(seed, *shape):
    return rng(seed).standard_normal(shape, dtype=np.float32)


# --- kernels -------------------------------------------------------------------------------------------------------

def gelu_args(scale, shared):
    shape = (256, 3072) if scale == "full" else (16, 384)
    return f"gelu {shape}", (normal(1, *shape),), {}


def softmax_args(scale, shared):
    shape = (12, 256, 256) if scale == "full" else (2, 32, 32)
    return f"softmax {shape}", (normal(2, *shape),), {}


def layer_norm_args(scale, shared):
    n, d = (256, 768) if scale == "full" else (16, 96)
    g = 1 + 0.1 * normal(4, d)
    b = 0.02 * normal(5, d)
    return f"layer_norm {(n, d)}", (normal(3, n, d), g, b), {}


def attention_args(scale, shared):
    n, d = (256, 64) if scale == "full" else (32, 16)
    q, k, v = (normal(seed, n, d) for seed in (6, 7, 8))
    mask = nn.causal_mask(n, np.float32)       # an input, computed once with NumPy
    return f"attention, one head {(n, d)}", (q, k, v, mask), {}


# --- math (elementwise transcendentals, benchmarks/vmath.py) -----------------------------------------------------

def haversine_args(scale, shared):
    n = 10_000 if scale == "full" else 1000
    r = rng(13)
    lat1, lat2 = r.uniform(-90, 90, n), r.uniform(-90, 90, n)
    lon1, lon2 = r.uniform(-180, 180, n), r.uniform(-180, 180, n)
    return f"haversine n={n} float64", (lat1, lon1, lat2, lon2), {}


def haversine_atan2_args(scale, shared):
    label, args, kwargs = haversine_args(scale, shared)
    return label.replace("haversine", "haversine (arctan2)"), args, kwargs


def log_likelihood_args(scale, shared):
    n = 100_000 if scale == "full" else 1000
    return f"log_likelihood n={n} float64", (np.exp(rng(14).standard_normal(n)), 0.1, 1.3), {}


# --- shapes (products and broadcast reductions of issue 17's table, benchmarks/shapes.py) -------------------------

def matvec_args(scale, shared):
    m, n = (4000, 5000) if scale == "full" else (40, 50)
    return f"(A @ x) @ A, A {(m, n)} float64", (rng(30).random((m, n)), rng(31).random(n)), {}


def bicg_args(scale, shared):
    m, n = (4000, 5000) if scale == "full" else (40, 50)
    return f"A @ p, r @ A, A {(m, n)} float64", (rng(32).random((m, n)), rng(33).random(n), rng(34).random(m)), {}


def mlp_args(scale, shared):
    sizes = (3, 30000, 2000, 2000) if scale == "full" else (3, 300, 20, 20)
    r = rng(35)
    layers = []
    for k, n in zip(sizes, sizes[1:]):
        layers += [(r.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32), np.zeros(n, np.float32)]
    x = r.standard_normal((8, sizes[0])).astype(np.float32)
    return f"3-layer MLP, (8, 3) through {sizes[1:]} float32", (x, *layers), {}


def trace_loop_args(scale, shared):
    n = 100 if scale == "full" else 10
    return f"trace loop then a + trace, ({n}, {n}) float64", (np.arange(n * n, dtype=np.float64).reshape(n, n),), {}


def l1_args(scale, shared):
    n, m, d = (500, 400, 64) if scale == "full" else (50, 40, 8)
    return f"L1 distances ({n}, {d}) x ({m}, {d}) float64", (rng(36).random((n, d)), rng(37).random((m, d))), {}


def pairwise_args(scale, shared):
    n = 1000 if scale == "full" else 100
    return f"pairwise distances ({n}, 3) float64", (rng(38).random((n, 3)),), {}


def pairwise_f32_args(scale, shared):
    n = 200 if scale == "full" else 20
    return f"pairwise distances ({n}, 16) float32", (rng(39).random((n, 16)).astype(np.float32),), {}


# --- loops (imperative kernels, benchmarks/loops.py) ---------------------------------------------------------------

def float64(seed, *shape):
    return rng(seed).random(shape)


def recurrence_args(scale, shared):
    n = 100_000 if scale == "full" else 1000
    return f"recurrence n={n}", (float64(9, n),), {}


def nested_sum_args(scale, shared):
    n = 300 if scale == "full" else 30
    return f"nested scalar loop {(n, n)}", (float64(10, n, n),), {}


def jacobi_2d_args(scale, shared):
    n, t = (250, 50) if scale == "full" else (20, 5)
    return f"jacobi-2d n={n} t={t}", (t, float64(11, n, n), float64(12, n, n)), {}


def lu_args(scale, shared):
    n = 120 if scale == "full" else 12
    a = float64(13, n, n)
    return f"lu n={n}", (a @ a.T + n * np.eye(n),), {}


def floyd_warshall_args(scale, shared):
    n = 300 if scale == "full" else 20
    return f"floyd-warshall n={n}", (float64(14, n, n) * 10,), {}


def triangular_solve_args(scale, shared):
    n = 2000 if scale == "full" else 20
    a = float64(15, n, n)
    return f"trisolv n={n}", (np.tril(a) + n * np.eye(n), float64(16, n)), {}


def durbin_args(scale, shared):
    n = 500 if scale == "full" else 20
    return f"durbin, scalar loops n={n}", (1.0 / np.arange(2, n + 2, dtype=np.float64),), {}


def seidel_args(scale, shared):
    n, t = (100, 10) if scale == "full" else (12, 3)
    return f"seidel-2d n={n} t={t}", (t, float64(17, n, n)), {}


def nussinov_args(scale, shared):
    n = 100 if scale == "full" else 12
    return f"nussinov n={n}", (n, rng(18).integers(0, 4, n).astype(np.int32)), {}


def floyd_warshall_scalar_args(scale, shared):
    n = 60 if scale == "full" else 10
    return f"floyd-warshall, scalar loops n={n}", (float64(19, n, n) * 10,), {}


# --- complex numbers (benchmarks/complex_kernels.py) ------------------------------------------------------------

def mandelbrot_args_for(form):
    def make(scale, shared):
        width, height, maxiter = (600, 400, 50) if scale == "full" else (60, 40, 10)
        return (f"mandelbrot {form} {width}x{height}, {maxiter} steps complex128",
                (-2.0, 0.5, -1.25, 1.25, width, height, maxiter), {})
    return make


# --- GPT-2 ---------------------------------------------------------------------------------------------------------

GPT2_SMALL = {**CONFIGS["tiny"], "n_vocab": 1000, "n_ctx": 256}


def gpt2_config(scale):
    return CONFIGS["124M"] if scale == "full" else GPT2_SMALL


def gpt2_params(scale, shared):
    """Random float32 weights (about 500 MB at 124M), generated once per run and shared by the GPT-2 workloads."""
    key = ("gpt2_params", scale)
    if key not in shared:
        shared[key] = random_params(gpt2_config(scale), seed=0)
    return shared[key]


def token_ids(n, n_vocab, seed=0):
    return [int(i) for i in rng(seed).integers(0, n_vocab, n)]


def gpt2_args_for(n_seq):
    def make(scale, shared):
        config = gpt2_config(scale)
        params = gpt2_params(scale, shared)
        name = "124M" if scale == "full" else "tiny"
        return (f"GPT-2 {name} forward T={n_seq}", (token_ids(n_seq, config["n_vocab"], seed=n_seq),),
                {**params, "n_head": config["n_head"]})
    return make


WORKLOADS = [
    Workload("gelu", nn.gelu, gelu_args, bar=50, ref={"numpy": 50 * MS, "jax": 0.71 * MS, "torch": 1.65 * MS}),
    Workload("softmax", nn.softmax, softmax_args, bar=4, ref={"numpy": 1.20 * MS, "jax": 0.33 * MS, "torch": 0.27 * MS}),
    Workload("layer_norm", nn.layer_norm, layer_norm_args, bar=4,
             ref={"numpy": 0.35 * MS, "jax": 0.091 * MS, "torch": 0.089 * MS}),
    Workload("attention", nn.attention, attention_args, bar=2,
             ref={"numpy": 0.58 * MS, "jax": 0.37 * MS, "torch": 0.34 * MS}),
    Workload("haversine", vmath.haversine, haversine_args, bar=1, rtol=1e-12),
    Workload("haversine_atan2", vmath.haversine_atan2, haversine_atan2_args, bar=1, rtol=1e-12),
    Workload("log_likelihood", vmath.log_likelihood, log_likelihood_args, bar=1, rtol=1e-12),
    Workload("matvec", shapes.matvec, matvec_args, bar=1, rtol=1e-12),
    Workload("bicg", shapes.bicg, bicg_args, bar=1, rtol=1e-12),
    Workload("mlp", shapes.mlp, mlp_args, bar=1, rtol=1e-4),
    Workload("trace_loop", shapes.trace_loop, trace_loop_args, bar=1, rtol=1e-12),
    Workload("l1_distances", shapes.l1_distances, l1_args, bar=1, rtol=1e-12),
    Workload("pairwise_distances", shapes.pairwise_distances, pairwise_args, bar=1, rtol=1e-12),
    Workload("pairwise_distances_f32", shapes.pairwise_distances, pairwise_f32_args, bar=1, rtol=1e-5),
    Workload("recurrence", loops.recurrence, recurrence_args, bar=1, rtol=1e-12),
    Workload("nested_sum", loops.nested_sum, nested_sum_args, bar=1, rtol=1e-12),
    Workload("jacobi_2d", loops.jacobi_2d, jacobi_2d_args, bar=1, rtol=1e-12),
    Workload("lu", loops.lu, lu_args, bar=1, rtol=1e-10),
    Workload("floyd_warshall", loops.floyd_warshall, floyd_warshall_args, bar=1, rtol=1e-12),
    Workload("trisolv", loops.triangular_solve, triangular_solve_args, bar=1, rtol=1e-10),
    Workload("durbin", loops.durbin_loops, durbin_args, bar=1, rtol=1e-10),
    Workload("seidel_2d", loops.seidel, seidel_args, bar=1, rtol=1e-12),
    Workload("nussinov", loops.nussinov, nussinov_args, bar=1, rtol=0),
    Workload("floyd_warshall_scalar", loops.floyd_warshall_scalar, floyd_warshall_scalar_args, bar=1, rtol=0),
    Workload("mandelbrot", complex_kernels.mandelbrot, mandelbrot_args_for("masked"), bar=1, rtol=0),
    Workload("mandelbrot_escape", complex_kernels.mandelbrot_escape, mandelbrot_args_for("whole grid"),
             bar=1, rtol=0),
    Workload("gpt2_t8", gpt2, gpt2_args_for(8), bar=5, ref={"numpy": 274 * MS, "jax": 325 * MS, "torch": 211 * MS},
             rtol=1e-4, group="gpt2"),
    Workload("gpt2_t64", gpt2, gpt2_args_for(64), bar=1.8, ref={"numpy": 570 * MS, "jax": 462 * MS, "torch": 345 * MS},
             rtol=1e-4, group="gpt2"),
    Workload("gpt2_t256", gpt2, gpt2_args_for(256), bar=2.3, ref={"numpy": 1.92, "jax": 1.00, "torch": 0.89},
             rtol=1e-4, group="gpt2"),
]

# Ours against a live peer over the peer's group (benchmarks/peers.py SCOPE), as ours x peer = peer median / ours
# median: at least `geomean` over the group, and no workload below `min` (issue #17: loops at Numba's speed).
PEER_BARS = {"numba": {"geomean": 1.0, "min": 0.5}}

# The first call of the whole GPT-2 (compilation included), in a fresh process: not a ratio but seconds.
FIRST_CALL = "first_call"
FIRST_CALL_T = 8
FIRST_CALL_BAR = {"cold": 3.0, "cached": 0.5}          # seconds, at most
FIRST_CALL_REF = {"jax": 2.0, "torch": 46.0}           # cold, measured elsewhere

# Generation with the class-based GPT-2's KV cache (benchmarks/decode.py): tokens/s, three references.
DECODE = "decode"

# The overhead of a call on tiny arrays against NumPy's ufunc call (benchmarks/calls.py): microseconds, bar 5 us.
CALLS = "call_overhead"

NAMES = [w.name for w in WORKLOADS] + [FIRST_CALL, DECODE, CALLS]
GROUPS = {"kernels": ["gelu", "softmax", "layer_norm", "attention"],
          "math": ["haversine", "haversine_atan2", "log_likelihood"],
          "shapes": ["matvec", "bicg", "mlp", "trace_loop", "l1_distances", "pairwise_distances",
                     "pairwise_distances_f32"],
          "loops": ["recurrence", "nested_sum", "jacobi_2d", "lu", "floyd_warshall", "trisolv", "durbin", "seidel_2d",
                    "nussinov", "floyd_warshall_scalar"],
          "complex": ["mandelbrot", "mandelbrot_escape"],
          "gpt2": ["gpt2_t8", "gpt2_t64", "gpt2_t256", DECODE],
          "calls": [CALLS]}


def select(only: str | None) -> list[str]:
    """The names in --only (comma-separated names or groups), in the suite's order; all of them without it."""
    if not only:
        return list(NAMES)
    wanted = set()
    for item in (part.strip() for part in only.split(",")):
        if not item:
            continue
        if item in GROUPS:
            wanted.update(GROUPS[item])
        elif item in NAMES:
            wanted.add(item)
        else:
            raise ValueError(f"unknown workload {item!r}; choose from {', '.join(NAMES + list(GROUPS))}")
    return [name for name in NAMES if name in wanted]
