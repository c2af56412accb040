"""Differential fuzzing against NumPy: random programs over random shapes, dtypes and values.

A program is a real Python function, generated as source text (straight-line NumPy: elementwise operators and
ufuncs with broadcasting, reductions with axis/keepdims, matmul, transpose, reshape, slicing, expand_dims,
concatenate, casts, masks and np.nonzero: selections whose length the kernel computes), written to a .py file in a temporary directory, imported, and compiled with `transpile`. Its
NumPy run is the reference: the compiled run must return the same type, dtype, shape and values, or raise the same
exception type where NumPy raises (max of an empty axis, x[0] of an empty array, ...).

Two tests share the generator:
- `test_random_programs`: hypothesis draws the program itself (shrinkable: a failure shrinks to a short program),
  its sizes and its values, and one time in five compiles it with `static_shapes=True`; each example compiles a new
  kernel.
- `test_random_values`: a fixed pool of programs (generated from seeds) compiled once; hypothesis draws the
  program, the sizes of its dims (0, 1, ...) and the values (nan, inf, -0.0, huge, tiny ...). Most of the examples
  are here: they share compiled specializations.

Comparison (docs/guarantees.md): a program whose operations are all bit-exact in both (arithmetic, casts, shape ops,
max/min, integer reductions ...) must match bit for bit, signed zeros included (except after max/min, where NumPy's
own SIMD loops leave the sign of a zero result unspecified). A program with a float sum, mean or matmul or a
transcendental function matches to rounding: |actual - expected| <= R * (|expected| + S) + 16 * D, where R is 1e-2
(float16), 1e-5 (float32), 1e-13 (float64) of the result dtype, S the largest finite magnitude among the output and
the float intermediates, and D how far NumPy's own result moves when the float inputs are perturbed by a few ulp (the
conditioning of the program at these inputs). The generator never feeds an approximate value to an operation that
is discontinuous (floor, comparisons, //, %, casts to integers), where a 1-ulp difference would be a different answer.

Aliasing (issue #20 item 6): each result is the same object as an argument, or shares memory with an argument or
another result, exactly where NumPy's does (`compare_aliasing`, with `helpers.aliasing_mismatch`, shared with
test_writes_fuzz.py). Arguments come in several layouts (`with_layout`: contiguous, strided, reversed, Fortran order,
misaligned at an odd byte offset), and the same array is sometimes passed for two parameters (the programs do not
write).

Default: 200 drawn programs (hypothesis repeats small ones) + 600 value draws over the first half (40) of a pool of
80 programs, derandomized (a fixed, repeatable set); the slow suite (`-m slow`) draws three times
as many, other ones, over the whole pool (the `_more` tests: another name is another derandomized seed), so that both
together draw 800 programs and 2,400 values. Longer runs, with random seeds:
    FUZZ_EXAMPLES=20000 uv run pytest -q tests/test_fuzz.py    # 20000 value draws (pool of 250), 5000 programs
Failures found become explicit tests in tests/test_fuzz_regressions.py.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import random
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from helpers import aliasing_mismatch
from transpiler import CompileError, transpile

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))
VALUE_EXAMPLES = FUZZ_EXAMPLES or 600           # (the default suite's share, which has to stay under ten minutes)
PROGRAM_EXAMPLES = max(FUZZ_EXAMPLES // 4, 1200) if FUZZ_EXAMPLES else 200
POOL_SIZE = 80 if not FUZZ_EXAMPLES else 250
LONG = bool(FUZZ_EXAMPLES)
# the slow suite's share (the `_more` tests): three times the default one, over the whole pools
MORE = 1 if LONG else 3

FUZZ_SETTINGS = dict(deadline=None, derandomize=not LONG, database=None, print_blob=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                            HealthCheck.filter_too_much, HealthCheck.large_base_example])

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64"]
INPUT_DTYPES = DTYPES + ["float32", "float64", "float32", "float64", "int64", "float16"]   # floats more often
# the complex pool (test_random_complex_values): complex inputs mostly, meeting the other dtypes
COMPLEX_INPUT_DTYPES = ["complex64", "complex128"] * 3 + ["float32", "float64", "int64", "bool", "int8"]
# what the compiler refuses on complex values where NumPy computes (docs/language.md): never generated on them
COMPLEX_REFUSED = ("np.tanh(", "np.sin(", "np.log1p(", "np.sign(", "np.clip(")
# complex order (lexicographic): which value wins jumps with a rounding of a part, so only on exact operands
COMPLEX_ORDERED = ("np.maximum(", "np.minimum(", "np.fmax(", ".max(", ".min(", "np.max(", "np.min(")
SYMBOLS = ("n", "m", "k")
SAMPLE_SIZES = {"n": 2, "m": 3, "k": 4}
R = {np.dtype("float16"): 1e-2, np.dtype("float32"): 1e-5, np.dtype("float64"): 1e-13}
R.update({np.dtype("complex64"): R[np.dtype("float32")], np.dtype("complex128"): R[np.dtype("float64")]})
FAMILY = {np.dtype("float16"): 10, np.dtype("float32"): 23, np.dtype("float64"): 52}   # mantissa bits


# ---- choices: the same generator runs on hypothesis draws (shrinkable) or on a seeded Random (the pool) ----------
class RandomChooser:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]


class DataChooser:
    def __init__(self, data):
        self.data = data

    def int(self, lo, hi):
        return self.data.draw(st.integers(lo, hi))

    def choice(self, seq):
        return seq[self.data.draw(st.integers(0, len(seq) - 1))]


# ---- programs -----------------------------------------------------------------------------------------------------
@dataclass
class Node:
    name: str
    shape: tuple        # symbolic: "1", a symbol, or a fresh name for a derived size
    value: object       # NumPy value at the sample sizes: gives the dtype and checks the operation is valid
    approx: bool = False    # a float value that may differ from NumPy's by rounding
    minmax: bool = False    # went through max/min: the sign of a zero is unspecified
    views_input: bool = False    # NumPy's value is an input array or a view of one (shape ops only)
    reshaped_input: bool = False  # ... through a reshape: documented to be returned as a copy (semantics.md, Memory)


@dataclass
class Program:
    inputs: list                     # (name, symbolic shape, dtype, kind): kind "array", "scalar" (a NumPy
                                     # scalar) or "pyfloat" (a Python float: a weak float64)
    lines: list = field(default_factory=list)
    result: str = ""
    approx: bool = False
    minmax: bool = False
    float_reduction: bool = False
    complex_product: bool = False    # a matrix product of complex values: NumPy's BLAS propagates inf and nan its
                                     # own way (docs/semantics.md), so float and complex inputs are drawn finite
    approx_r: float = 0.0           # R of the least precise approximate value: a float32 exp cast to float64 is
                                    # still a float32 result
    reshaped_results: tuple = ()    # positions of the returned values that are reshapes of an input (or views of
                                    # one): documented copies, so they share no memory with the inputs

    @property
    def source(self) -> str:
        args = ", ".join(name for name, _, _, _ in self.inputs)
        body = "".join(f"    {line}\n" for line in self.lines)
        return f"import numpy as np\n\n\ndef prog({args}):\n{body}    return {self.result}\n"


_fresh_counter = [0]


def fresh(tag: str) -> str:
    _fresh_counter[0] += 1
    return f"{tag}#{_fresh_counter[0]}"


def broadcastable(a: tuple, b: tuple) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != "1" and y != "1":
            return False
    return True


def broadcast(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = ("1",) * (n - len(a)) + a, ("1",) * (n - len(b)) + b
    return tuple(y if x == "1" else x for x, y in zip(a, b))


def is_float(v) -> bool:
    """Float or complex: values that round."""
    return np.asarray(v).dtype.kind in "fc"


def is_complex(v) -> bool:
    return np.asarray(v).dtype.kind == "c"


CONSTANTS = ["2", "-1", "0.5", "2.5", "3", "1e-3", "np.float32(1.5)", "np.float64(-0.25)", "np.int8(3)",
             "np.uint8(7)", "True", "np.float16(2.0)", "1e30", "300", "0.0", "-0.0"]
CAST_TARGETS = ["np.float16", "np.float32", "np.float64", "np.int8", "np.int32", "np.int64", "np.uint8",
                "np.uint16", "bool"]

# Each op: (chooser, nodes) -> (expr, shape, flags) or None. flags: approx (introduces rounding differences),
# needs_exact (discontinuous: only on exact operands), minmax.


def _pick(c, nodes, pred=lambda n: True):
    cands = [n for n in nodes if pred(n)]
    if not cands:
        return None
    # recent values more often: programs become chains, not only leaves
    recent = cands[-3:]
    return c.choice(recent if c.int(0, 2) else cands)


def op_unary(c, nodes):
    a = _pick(c, nodes)
    kind = c.choice(["neg", "abs", "exp", "tanh", "sin", "sqrt", "log1p", "square", "floor", "pos_ufunc",
                     "square_pow", "sign", "isnan", "clip", "invert"])
    expr = {
        "neg": f"-{a.name}", "abs": f"np.abs({a.name})", "exp": f"np.exp({a.name})", "tanh": f"np.tanh({a.name})",
        "sin": f"np.sin({a.name})", "sqrt": f"np.sqrt(np.abs({a.name}))", "log1p": f"np.log1p(np.abs({a.name}))",
        "square": f"np.square({a.name})", "floor": f"np.floor({a.name})", "pos_ufunc": f"np.negative({a.name})",
        "square_pow": f"{a.name} ** 2", "sign": f"np.sign({a.name})", "isnan": f"np.isnan({a.name})",
        "clip": f"np.clip({a.name}, -2, 3)", "invert": f"~{a.name}",
    }[kind]
    approx = kind in ("exp", "tanh", "sin", "log1p")
    needs_exact = kind in ("floor", "sign")
    if needs_exact and a.approx:
        return None
    return expr, a.shape, {"approx": approx, "minmax": kind == "clip", "args": [a]}


def op_binary(c, nodes):
    a = _pick(c, nodes)
    op = c.choice(["+", "-", "*", "/", "//", "%", "maximum", "minimum", "<", ">=", "==", "!=", "&", "|",
                   "where", "fmax"])
    if c.int(0, 3) == 0:
        bname, b = c.choice(CONSTANTS), None
        bshape = ()
    else:
        b = _pick(c, nodes, lambda n: broadcastable(n.shape, a.shape))
        if b is None:
            return None
        bname, bshape = b.name, b.shape
    args = [a] + ([b] if b is not None else [])
    discontinuous = op in ("//", "%", "<", ">=", "==", "!=", "&", "|")
    if discontinuous and any(x.approx for x in args):
        return None
    if c.int(0, 1):
        left, right, divisor = a.name, bname, b
    else:
        left, right, divisor = bname, a.name, a
    if op in ("/", "//", "%") and divisor is not None and divisor.minmax and is_float(divisor.value):
        return None   # max(0.0, -0.0) is either zero (NumPy's SIMD loops): 1 / it is inf or -inf
    if op in ("maximum", "minimum", "fmax"):
        expr = f"np.{op}({left}, {right})"
    elif op == "where":
        cond = _pick(c, nodes, lambda n: not n.approx and broadcastable(n.shape, broadcast(a.shape, bshape)))
        if cond is None:
            return None
        threshold = c.choice(["0", "1", "-1", "2"])
        expr = f"np.where({cond.name} > {threshold}, {left}, {right})"
        args.append(cond)
        bshape = broadcast(bshape, cond.shape)
    else:
        expr = f"{left} {op} {right}"
    return expr, broadcast(a.shape, bshape), {"approx": False, "minmax": op in ("maximum", "minimum", "fmax"),
                                              "args": args}


def op_cast(c, nodes):
    a = _pick(c, nodes)
    target = c.choice(CAST_TARGETS)
    to_int = target not in ("np.float16", "np.float32", "np.float64")
    if is_complex(a.value) and (to_int or a.approx):
        return None     # the real part, cast: unspecified beyond the int range (as floats), discontinuous for ints
    if to_int and is_float(a.value):
        if a.approx:
            return None
        # out-of-range float -> int casts are unspecified (as in C); keep them in range
        return (f"np.where(np.isfinite({a.name}), np.clip({a.name}, -100, 100), 0).astype({target})", a.shape,
                {"approx": False, "minmax": False, "args": [a]})
    return f"{a.name}.astype({target})", a.shape, {"approx": False, "minmax": False, "args": [a]}


def op_reduce(c, nodes):
    a = _pick(c, nodes)
    kind = c.choice(["sum", "max", "min", "mean", "sum", "prod_any"])
    nd = len(a.shape)
    axis_choices = ["None"] + [str(i) for i in range(nd)] + [str(-1)] * (nd > 0)
    if nd >= 2:
        axis_choices.append("(0, -1)")
    axis = c.choice(axis_choices)
    keepdims = c.int(0, 1) == 1
    if axis == "None":
        axes = set(range(nd))
    elif axis == "(0, -1)":
        axes = {0, nd - 1}
    else:
        axes = {int(axis) % nd} if nd else set()
    if nd == 0 and axis != "None":
        return None
    shape = tuple(("1" if keepdims else None) if i in axes else d for i, d in enumerate(a.shape))
    shape = tuple(d for d in shape if d is not None)
    kd = ", keepdims=True" if keepdims else ""
    if kind == "prod_any":
        kind = c.choice(["any", "all"])
    if kind in ("sum", "mean"):
        expr = f"np.{kind}({a.name}, axis={axis}{kd})" if c.int(0, 1) else f"{a.name}.{kind}(axis={axis}{kd})"
    else:
        expr = f"{a.name}.{kind}(axis={axis}{kd})" if c.int(0, 1) else f"np.{kind}({a.name}, axis={axis}{kd})"
    approx = (kind == "sum" and is_float(a.value)) or kind == "mean" or (a.approx and kind in ("sum", "mean"))
    if kind in ("any", "all") and a.approx:
        return None
    return expr, shape, {"approx": approx or a.approx, "minmax": kind in ("max", "min"), "args": [a],
                         "float_reduction": kind in ("sum", "mean") and (is_float(a.value) or kind == "mean")}


def op_matmul(c, nodes):
    a = _pick(c, nodes, lambda n: 1 <= len(n.shape) <= 3)
    if a is None:
        return None
    cands = []
    for b in nodes:
        if not 1 <= len(b.shape) <= 3:
            continue
        for form, bshape in ((b.name, b.shape), (f"{b.name}.T", tuple(reversed(b.shape)))):
            if form.endswith(".T") and len(b.shape) != 2:
                continue
            k_a = a.shape[-1]
            k_b = bshape[-2] if len(bshape) >= 2 else bshape[0]
            if k_a != k_b:
                continue
            batch_a, batch_b = a.shape[:-2], bshape[:-2]
            if not broadcastable(batch_a, batch_b):
                continue
            out = broadcast(batch_a, batch_b)
            out += (a.shape[-2],) if len(a.shape) >= 2 else ()
            out += (bshape[-1],) if len(bshape) >= 2 else ()
            cands.append((form, out, b))
    if not cands:
        return None
    form, shape, b = c.choice(cands)
    # a float result is a sum in an unspecified order (uint64 @ int32 is a float64 matmul): decided on the value
    return (f"{a.name} @ {form}", shape, {"approx": "if float", "minmax": False, "args": [a, b],
                                          "float_reduction": "if float"})


def op_shape(c, nodes):
    a = _pick(c, nodes)
    nd = len(a.shape)
    kind = c.choice(["T", "transpose", "reshape_flat", "reshape_rows", "slice_tail", "slice_rev", "slice_step",
                     "index0", "expand", "newaxis", "swap", "slice_last"])
    s = a.shape
    if kind == "T":
        return f"{a.name}.T", tuple(reversed(s)), {"args": [a]}
    if kind == "transpose" and nd >= 2:
        perm = list(range(nd))
        perm = perm[1:] + perm[:1]
        return f"np.transpose({a.name}, {tuple(perm)})", tuple(s[p] for p in perm), {"args": [a]}
    if kind == "swap" and nd >= 2:
        return f"np.swapaxes({a.name}, 0, -1)", (s[-1],) + s[1:-1] + (s[0],), {"args": [a]}
    if kind == "reshape_flat":
        return f"{a.name}.reshape(-1)", (fresh("flat") if any(d != "1" for d in s) else "1",), {"args": [a]}
    if kind == "reshape_rows" and nd >= 2:
        rest = fresh("rest") if any(d != "1" for d in s[1:]) else "1"
        return f"{a.name}.reshape({a.name}.shape[0], -1)", (s[0], rest), {"args": [a]}
    if kind == "slice_tail" and nd >= 1:
        return f"{a.name}[1:]", (fresh("tail"),) + s[1:], {"args": [a]}
    if kind == "slice_rev" and nd >= 1:
        return f"{a.name}[::-1]", s, {"args": [a]}
    if kind == "slice_step" and nd >= 1:
        return f"{a.name}[::2]", (fresh("step") if s[0] != "1" else "1",) + s[1:], {"args": [a]}
    if kind == "slice_last" and nd >= 2:
        return f"{a.name}[..., :2]", s[:-1] + (fresh("head") if s[-1] != "1" else "1",), {"args": [a]}
    if kind == "index0" and nd >= 1:
        return f"{a.name}[0]", s[1:], {"args": [a]}
    if kind == "expand":
        axis = c.int(-1, nd) if nd else 0
        pos = axis if axis >= 0 else nd + 1 + axis
        return f"np.expand_dims({a.name}, {axis})", s[:pos] + ("1",) + s[pos:], {"args": [a]}
    if kind == "newaxis" and nd >= 1:
        return f"{a.name}[:, None]", s[:1] + ("1",) + s[1:], {"args": [a]}
    return None


def op_concat(c, nodes):
    a = _pick(c, nodes, lambda n: len(n.shape) >= 1)
    if a is None:
        return None
    nd = len(a.shape)
    axis = c.int(-nd, nd - 1)
    ax = axis % nd
    cands = [b for b in nodes if len(b.shape) == nd
             and all(x == y for i, (x, y) in enumerate(zip(a.shape, b.shape)) if i != ax)]
    b = c.choice(cands)
    shape = a.shape[:ax] + (fresh("cat"),) + a.shape[ax + 1:]
    return f"np.concatenate([{a.name}, {b.name}], axis={axis})", shape, {"args": [a, b]}


def op_select(c, nodes):
    """Selections whose length the kernel computes from the data: a mask of the operand's shape or of its rows,
    np.flatnonzero, np.nonzero's first array. The masks compare exact values only (a comparison is discontinuous)."""
    a = _pick(c, nodes, lambda n: not n.approx)
    if a is None:
        return None
    nd = len(a.shape)
    kind = c.choice(["mask", "mask", "rows", "flatnonzero", "nonzero"])
    threshold = c.choice(["0", "1", "-1", "2"])
    if kind == "mask":
        return f"{a.name}[{a.name} > {threshold}]", (fresh("sel"),), {"args": [a]}
    if kind == "rows" and nd >= 2:
        return f"{a.name}[{a.name}[..., 0] > {threshold}]", (fresh("rows"), a.shape[-1]), {"args": [a]}
    if kind == "flatnonzero":
        return f"np.flatnonzero({a.name} > {threshold})", (fresh("nz"),), {"args": [a]}
    if kind == "nonzero" and nd >= 1:
        return f"np.nonzero({a.name} > {threshold})[0]", (fresh("nz"),), {"args": [a]}
    return None


def op_library(c, nodes):
    """The library functions along an axis (stdlib/functions.py, and NumPy's own sort and argsort)."""
    a = _pick(c, nodes, lambda n: len(n.shape) >= 1)
    if a is None:
        return None
    nd, s = len(a.shape), a.shape
    axis = c.int(-nd, nd - 1)
    ax = axis % nd
    kind = c.choice(["cumsum", "cumprod", "diff", "roll", "flip", "sort", "argsort", "repeat", "pad", "tile", "ptp",
                     "count_nonzero"])
    # discontinuous in the values (an order, a count) or cancelling (a difference): only on exact operands
    if kind in ("diff", "sort", "argsort", "ptp", "count_nonzero") and a.approx:
        return None
    flags = {"args": [a], "approx": False, "minmax": kind == "ptp"}
    along = s[:ax] + (fresh(kind),) + s[ax + 1:]
    if kind in ("cumsum", "cumprod"):
        # sequential, as NumPy's: bit for bit, but a complex product rounds as NumPy's loops do or not (op_binary)
        flags["approx"] = kind == "cumprod" and is_complex(a.value)
        return f"np.{kind}({a.name}, axis={axis})", s, flags
    if kind == "diff":
        return f"np.diff({a.name}, axis={axis})", along, flags
    if kind == "roll":
        return f"np.roll({a.name}, {c.int(-3, 3)}, axis={axis})", s, flags
    if kind == "flip":
        return f"np.flip({a.name}, axis={axis})", s, flags
    if kind in ("sort", "argsort"):
        return f"np.{kind}({a.name}, axis={axis})", s, flags
    if kind == "repeat":
        return f"np.repeat({a.name}, 2, axis={axis})", along, flags
    if kind == "pad":
        return f"np.pad({a.name}, 1)", tuple(fresh("pad") for _ in s), flags
    if kind == "tile":
        return f"np.tile({a.name}, 2)", s[:-1] + (fresh("tile"),), flags
    return f"np.{kind}({a.name}, axis={axis})", s[:ax] + s[ax + 1:], flags


# weights: shape ops are often invalid for the operand's rank (and then another op is drawn), so they come often
OPS = [op_unary, op_unary, op_binary, op_binary, op_binary, op_cast, op_reduce, op_reduce, op_matmul, op_shape,
       op_shape, op_shape, op_shape, op_concat, op_select]
# the library pool (test_random_library_values): the same with the library functions among them, often
LIBRARY_OPS = OPS + [op_library] * 12


def sample_value(dtype: str, shape: tuple, rng, kind: str = "array"):
    sizes = tuple(1 if d == "1" else SAMPLE_SIZES[d] for d in shape)
    dt = np.dtype(dtype)
    if kind != "array":
        value = sample_value(dtype, (), rng)[()]
        return float(value) if kind == "pyfloat" else value
    if dt.kind == "b":
        return rng.random(sizes) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(sizes) * 3).astype(dt)
    if dt.kind == "c":
        return ((rng.standard_normal(sizes) + 1j * rng.standard_normal(sizes)) * 3).astype(dt)
    return rng.integers(0 if dt.kind == "u" else -20, 20, size=sizes).astype(dt)


def generate(c, max_statements: int = 6, input_dtypes=INPUT_DTYPES, ops=OPS) -> Program:
    rng = np.random.default_rng(0)
    base = tuple(c.choice(SYMBOLS) for _ in range(c.int(0, 3)))
    inputs, nodes = [], []
    for i in range(c.int(1, 3)):
        rank = c.int(0, len(base))
        shape = tuple("1" if c.int(0, 4) == 0 else d for d in base[len(base) - rank:])
        dtype = c.choice(input_dtypes)
        kind = c.choice(["array"] * 6 + ["scalar", "pyfloat"])
        if kind != "array":
            shape = ()
            dtype = "float64" if kind == "pyfloat" else dtype
        inputs.append((f"x{i}", shape, dtype, kind))
        nodes.append(Node(f"x{i}", shape, sample_value(dtype, shape, rng, kind), views_input=kind == "array"))
    prog = Program(inputs)
    uses = []
    for j in range(c.int(1, max_statements)):
        for _attempt in range(8):
            op = c.choice(ops)
            made = op(c, nodes)
            if made is None:
                continue
            expr, shape, flags = made
            env = {"np": np, **{n.name: n.value for n in nodes}}
            try:
                with np.errstate(all="ignore"):
                    value = eval(expr, env)  # noqa: S307 - our own generated expression
            except Exception:  # noqa: BLE001 - e.g. bool - bool, uint8 + -1: pick another operation
                continue
            if type(value) in (float, int, bool):
                # Python scalar arithmetic (Python floats are run-time values): where Python raises for a value
                # (ZeroDivisionError for 0.0 // 0.0, OverflowError for 1e300 ** 2) is tested explicitly in
                # test_fuzz_regressions.py, not fuzzed: here Python floats only meet arrays and NumPy scalars
                continue
            args = flags.get("args", [])
            if any(is_complex(x.value) for x in args) and any(r in expr for r in COMPLEX_REFUSED):
                continue
            if any(is_complex(x.value) for x in args) and any(x.approx for x in args) \
                    and any(r in expr for r in COMPLEX_ORDERED):
                continue
            if any(is_complex(x.value) for x in args) and op in (op_unary, op_binary, op_reduce, op_library) \
                    and is_float(value):
                # NumPy's complex scalar code and its SIMD loops round products differently (fused multiply-add
                # or not): complex arithmetic is compared to rounding
                flags["approx"] = True
            uses.extend(args)
            for key in ("approx", "float_reduction"):
                if flags.get(key) == "if float":
                    flags[key] = is_float(value)
            approx = flags.get("approx", False) or any(x.approx for x in args)
            approx = approx and is_float(value)
            node = Node(f"t{j}", tuple(shape), value, approx, flags.get("minmax", False) or any(x.minmax for x in args))
            if op is op_shape and args[0].views_input:
                node.views_input = True
                # reshape(-1) of a 1-d array is no reshape at all (the same dims)
                node.reshaped_input = args[0].reshaped_input or ".reshape(" in expr and len(args[0].shape) != 1
            assert np.ndim(value) == len(node.shape), (expr, np.shape(value), shape)
            nodes.append(node)
            prog.lines.append(f"{node.name} = {expr}")
            prog.approx |= flags.get("approx", False) or approx
            if approx:
                prog.approx_r = max(prog.approx_r, R[np.asarray(value).dtype])
            prog.minmax |= node.minmax
            prog.float_reduction |= flags.get("float_reduction", False)
            prog.complex_product |= op is op_matmul and is_complex(value)
            break
    if not prog.lines:
        prog.result = nodes[0].name
        return prog
    # every value no later statement uses is returned: each one computed is compared
    used = {id(a) for a in uses}
    sinks = [n for n in nodes[len(inputs):] if id(n) not in used][-4:]
    prog.result = ", ".join(n.name for n in sinks) + ("," if len(sinks) == 1 and c.int(0, 5) == 0 else "")
    prog.reshaped_results = tuple(i for i, n in enumerate(sinks) if n.reshaped_input)
    return prog


# ---- loading programs as real modules -----------------------------------------------------------------------------
_TMP = tempfile.TemporaryDirectory(prefix="fuzz_programs_")
_COMPILED: OrderedDict = OrderedDict()
CACHE_SIZE = 128      # compiled programs kept (each holds its JIT-compiled kernels: about 1.5 MB)


def load(source: str, static_shapes: bool = False):
    """(python function, compiled function) for this source; one module and one compiled object per source."""
    key = (source, static_shapes)
    if key in _COMPILED:
        _COMPILED.move_to_end(key)
        return _COMPILED[key]
    while len(_COMPILED) >= CACHE_SIZE:
        _COMPILED.popitem(last=False)
    name = "fuzzprog_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    path = os.path.join(_TMP.name, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _COMPILED[key] = (module.prog, transpile(module.prog, static_shapes=static_shapes))
    return _COMPILED[key]


# ---- values -------------------------------------------------------------------------------------------------------
def float_elements(dtype: np.dtype, tame_huge: bool):
    fi = np.finfo(dtype)
    width = {2: 16, 4: 32, 8: 64}[dtype.itemsize]
    huge = float(fi.max) if not tame_huge else {2: 1e2, 4: 1e8, 8: 1e15}[dtype.itemsize]
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, float(fi.tiny), float(fi.smallest_subnormal),
                -float(fi.smallest_subnormal), huge, -huge, 1.0, -1.0, 0.5]
    return st.one_of(st.sampled_from(specials), st.floats(-8, 8, width=width),
                     st.floats(-8, 8, width=width).map(lambda v: round(v * 4) / 4))


def int_elements(dtype: np.dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    return st.one_of(st.sampled_from([lo, hi, 0, 1] + ([-1] if lo < 0 else [])),
                     st.integers(max(lo, -10), min(hi, 10)), st.integers(lo, hi))


LAYOUTS = ["contiguous", "contiguous", "contiguous", "strided", "reversed", "fortran", "misaligned"]


def with_layout(value: np.ndarray, layout: str) -> np.ndarray:
    """The same values in another memory layout: a strided view (every other element of a bigger array, on the last
    axis), a reversed view (negative strides), Fortran order, or misaligned data (a uint8 buffer viewed at offset 1:
    not aligned for any dtype wider than a byte)."""
    if layout == "strided" and value.ndim:
        big = np.zeros(value.shape[:-1] + (2 * value.shape[-1] + 1,), value.dtype)
        view = big[..., 1::2]
        view[...] = value
        return view
    if layout == "reversed" and value.ndim:
        return np.ascontiguousarray(value[::-1])[::-1]
    if layout == "fortran" and value.ndim >= 2:
        return np.asfortranarray(value)
    if layout == "misaligned" and value.dtype.itemsize > 1:
        raw = np.zeros(value.nbytes + 1, np.uint8)
        view = raw[1:].view(value.dtype).reshape(value.shape)
        view[...] = value
        assert not view.flags.aligned or not value.size
        return view
    return value


def draw_inputs(data, prog: Program, allow_one: bool = True) -> tuple[dict, list]:
    # hypothesis favours the first choice: a small non-empty size; 0, 1 (a new specialization) and sizes long
    # enough for the vectorized main loops (17, 40) less often
    choices = [3, 2, 4, 5, 0, 1, 17, 40] if allow_one else [3, 2, 4, 0, 5, 17]
    sizes = {s: data.draw(st.sampled_from(choices), label=f"size {s}") for s in SYMBOLS}
    args = []
    for name, shape, dtype, kind in prog.inputs:
        dt = np.dtype(dtype)
        concrete = tuple(1 if d == "1" else sizes[d] for d in shape)
        if dt.kind == "b":
            elements = st.booleans()
        elif dt.kind == "c":
            part = float_elements(np.dtype(f"f{dt.itemsize // 2}"), prog.float_reduction)
            if prog.complex_product:
                part = part.filter(np.isfinite)
            elements = st.builds(complex, part, part)
        elif dt.kind == "f":
            elements = float_elements(dt, prog.float_reduction)
            if prog.complex_product:         # (a float operand of a complex product is made complex)
                elements = elements.filter(np.isfinite)
        else:
            elements = int_elements(dt)
        from hypothesis.extra.numpy import arrays
        twin = [a for a in args if isinstance(a, np.ndarray) and a.dtype == dt and a.shape == concrete]
        if kind == "array" and twin and data.draw(st.integers(0, 1), label=f"{name} is an earlier argument"):
            value = twin[0]           # the same array passed twice (the programs do not write)
        elif kind == "array":
            value = data.draw(arrays(dt, concrete, elements=elements), label=name)
            value = with_layout(value, data.draw(st.sampled_from(LAYOUTS), label=f"{name} layout"))
        else:
            value = data.draw(elements, label=name)
            value = float(value) if kind == "pyfloat" else dt.type(value)
        args.append(value)
    return sizes, args


# ---- comparison ---------------------------------------------------------------------------------------------------
def exception_kind(exc: BaseException) -> type:
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return Exception


def run_numpy(fn, args):
    with np.errstate(all="ignore"):
        try:
            return fn(*args), None
        except Exception as e:  # noqa: BLE001 - NumPy's exception is the expected behaviour
            return None, e


def perturbed_runs(fn, args, count: int = 3):
    """NumPy's results on the float inputs moved by a few ulp: how sensitive the program is at these inputs."""
    rng = np.random.default_rng(12345)
    outs = []
    for _ in range(count):
        moved = []
        for a in args:
            arr = np.asarray(a)
            if arr.dtype.kind in "fc":
                eps = 2.0 ** -FAMILY[np.dtype(arr.real.dtype)]
                wide = np.complex128 if arr.dtype.kind == "c" else np.float64
                with np.errstate(all="ignore"):
                    factor = 1 + rng.uniform(-8, 8, size=arr.shape) * eps
                    arr = (arr.astype(wide) * factor).astype(arr.dtype)
                # keep the kind: a NumPy scalar stays one, a Python float stays weak
                a = arr if isinstance(a, np.ndarray) else float(arr) if type(a) is float else arr[()]
            moved.append(a)
        out, exc = run_numpy(fn, moved)
        if exc is None:      # a moved input that makes NumPy raise says nothing about rounding: that run is left out
            outs.append(out)
    return outs


def output_scales(source: str, args) -> list:
    """For each returned value, the largest finite magnitude among the intermediate values (float or integer) it is
    computed from (its own included; NumPy run, statement by statement): the size of the rounding errors it can
    carry. Float inputs do not count (they are exact), nor do values it does not depend on, so one huge input or an
    unrelated large value leaves the other results' tolerances tight."""
    import ast
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def prog("))
    names = lines[start][len("def prog("):-2].split(", ")
    env = {"np": np, **dict(zip(names, args))}
    reach: dict = {}          # name -> largest magnitude over it and the intermediates it depends on
    for name, value in zip(names, args):
        # an integer input is exact, but not once converted to float inside an operation (np.mean of int64 values
        # near 2**63 sums roundings of their size: [-2**63, 1, 2**63 - 1] is 0 in NumPy, 1/3 compensated)
        v = np.asarray(value)
        if v.dtype.kind in "iu" and v.size:
            reach[name] = float(np.abs(v.astype(np.float64)).max())
    returned = []
    for line in lines[start + 1:]:
        line = line.strip()
        tree = ast.parse(line).body[0]
        used = {n.id for n in ast.walk(tree.value) if isinstance(n, ast.Name)} if tree.value is not None else set()
        if isinstance(tree, ast.Return):
            items = tree.value.elts if isinstance(tree.value, ast.Tuple) else [tree.value]
            returned = [max((reach.get(n.id, 0.0) for n in ast.walk(item) if isinstance(n, ast.Name)), default=0.0)
                        for item in items]
            break
        with np.errstate(all="ignore"):
            try:
                exec(line, env)  # noqa: S102 - our own generated statement
            except Exception:  # noqa: BLE001
                return [float("inf")]
        target = tree.targets[0].id
        v = np.asarray(env[target])
        own = 0.0
        # integers count too: exact themselves, but a float result computed from them (a mean of int64 values near
        # 2**63) carries rounding errors of their size
        if v.dtype.kind in "fiuc" and v.size:
            finite = np.abs(v[np.isfinite(v)]).astype(np.float64)
            own = float(finite.max()) if finite.size else 0.0
        reach[target] = max([own] + [reach.get(n, 0.0) for n in used])
    return returned


def compare_values(actual, expected, *, approx: bool, signed_zeros: bool, scale=0.0,
                   perturbed=None, path: str = "result", approx_r: float = 0.0) -> str | None:
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            return f"{path}: {type(actual).__name__} != tuple of {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            p = [q[i] for q in perturbed] if perturbed is not None else None
            own_scale = scale[i] if isinstance(scale, list) and len(scale) == len(expected) else scale
            msg = compare_values(a, e, approx=approx, signed_zeros=signed_zeros, scale=own_scale, perturbed=p,
                                 path=f"{path}[{i}]", approx_r=approx_r)
            if msg:
                return msg
        return None
    if type(actual) is not type(expected):
        return f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
    if isinstance(scale, list):      # one result: its own scale
        scale = scale[0] if len(scale) == 1 else max(scale, default=0.0)
    if type(expected) is float:      # a Python float (np.float64 is a subclass): compared as a float64 value
        return compare_values(np.float64(actual), np.float64(expected), approx=approx, signed_zeros=signed_zeros,
                              scale=scale, perturbed=None if perturbed is None else [np.float64(p) for p in perturbed],
                              path=path, approx_r=approx_r)
    if not isinstance(expected, (np.ndarray, np.generic)):
        return None if actual == expected else f"{path}: {actual!r} != {expected!r}"
    if actual.dtype != expected.dtype:
        return f"{path}: dtype {actual.dtype} != {expected.dtype}"
    if np.shape(actual) != np.shape(expected):
        return f"{path}: shape {np.shape(actual)} != {np.shape(expected)}"
    a, e = np.asarray(actual), np.asarray(expected)
    if e.dtype.kind == "c":       # each part as a float array (nan and inf per part)
        for part in ("real", "imag"):
            msg = compare_values(getattr(a, part), getattr(e, part), approx=approx, signed_zeros=signed_zeros,
                                 scale=max(scale, float(np.abs(e[np.isfinite(e)]).max(initial=0.0))),
                                 perturbed=None if perturbed is None else [getattr(np.asarray(q), part)
                                                                            for q in perturbed],
                                 path=f"{path}.{part}", approx_r=approx_r)
            if msg:
                return msg
        return None
    if e.dtype.kind != "f":
        if np.array_equal(a, e):
            return None
        return f"{path}: values differ\n actual   {a!r}\n expected {e!r}"
    if not approx:
        same = (a == e) | (np.isnan(a) & np.isnan(e))
        if not same.all():
            return f"{path}: values differ (bit-exact program)\n actual   {a!r}\n expected {e!r}"
        zeros = (e == 0)
        if signed_zeros and not np.array_equal(np.signbit(a[zeros]), np.signbit(e[zeros])):
            return f"{path}: signs of zeros differ\n actual   {a!r}\n expected {e!r}"
        return None
    with np.errstate(all="ignore"):
        a64, e64 = a.astype(np.float64).reshape(-1), e.astype(np.float64).reshape(-1)
        sens = np.zeros(e64.shape)
        if perturbed is None:
            sens = np.full(e64.shape, np.inf)
        else:
            for p in perturbed:
                p64 = np.asarray(p).astype(np.float64).reshape(-1)
                if p64.shape != e64.shape:   # the perturbation changed a selection's length: any value is plausible
                    sens = np.full(e64.shape, np.inf)
                    break
                same = (p64 == e64) | (np.isnan(p64) & np.isnan(e64))   # equal infinities included
                d = np.where(same, 0.0, np.abs(p64 - e64))
                d[np.isnan(d)] = np.inf      # finite <-> inf or NaN under a few ulp: any value is plausible
                sens = np.maximum(sens, d)
        finite = e64[np.isfinite(e64)]
        out_scale = float(np.abs(finite).max()) if finite.size else 0.0
        r = max(R[e.dtype], approx_r)
        tol = r * (np.abs(e64) + max(scale, out_scale)) + 16 * sens
        ok = (a64 == e64) | (np.isnan(a64) & np.isnan(e64)) | (np.abs(a64 - e64) <= tol) | np.isinf(sens)
    if ok.all():
        return None
    bad = [np.unravel_index(i, e.shape) for i in np.flatnonzero(~ok)[:5]]
    return (f"{path}: values differ beyond rounding at {bad}\n actual   {a!r}\n expected {e!r}\n"
            f" tolerance {tol.reshape(e.shape)!r}")


def _shape_guard_first(error) -> bool:
    """Documented difference (docs/semantics.md, order of errors): shape requirements are checked before the kernel
    runs, so a program that fails both ways may report the shape ValueError where NumPy reaches a data error first."""
    shape_messages = ("cannot reshape", "could not be broadcast", "array split does not", "zero-size array")
    return isinstance(error, ValueError) and any(m in str(error) for m in shape_messages)


def differential(prog: Program, args: list, static_shapes: bool = False) -> str | None:
    """None if the compiled program agrees with NumPy on these arguments, else what differs."""
    source = prog.source
    fn, compiled = load(source, static_shapes)
    expected, exc = run_numpy(fn, args)
    try:
        with np.errstate(all="ignore"):
            actual = compiled(*args)
        error = None
    except Exception as e:  # noqa: BLE001
        actual, error = None, e
    if exc is not None:
        kind = exception_kind(exc)
        if error is None:
            return f"NumPy raises {kind.__name__} ({exc}); compiled returned {actual!r}"
        if not isinstance(error, kind) and not _shape_guard_first(error):
            return f"NumPy raises {kind.__name__} ({exc}); compiled raised {type(error).__name__}: {error}"
        if isinstance(error, CompileError) and "internal compiler error" in str(error):
            return f"internal compiler error instead of {kind.__name__}: {error}"
        return None
    if error is not None:
        return f"compiled raised {type(error).__name__}: {error}"
    perturbed = perturbed_runs(fn, args) if prog.approx else None
    scale = output_scales(source, args) if prog.approx else 0.0
    return compare_values(actual, expected, approx=prog.approx, signed_zeros=not prog.minmax, scale=scale,
                          perturbed=perturbed, approx_r=prog.approx_r) or compare_aliasing(prog, args, actual,
                                                                                            expected)


def compare_aliasing(prog: Program, args: list, actual, expected) -> str | None:
    """Each result is the same object as an argument, shares memory with an argument or with another result, exactly
    where NumPy's does (a view, a copy, or the argument itself). The documented exception (semantics.md, Memory): a
    reshape of an argument, or a view of one, is returned as a copy, sharing no memory with the arguments; whether two
    such copies share memory with each other is not specified."""
    results = list(actual) if isinstance(expected, tuple) else [actual]
    refs = list(expected) if isinstance(expected, tuple) else [expected]
    n = len(results)
    names = [f"result {i}" for i in range(n)] + [name for name, _, _, _ in prog.inputs]
    skip = {(i, j) for i in prog.reshaped_results for j in range(i + 1, n + len(args))}
    skip |= {(j, i) for i in prog.reshaped_results for j in range(i)}
    for i, (got, ref) in enumerate(zip(results, refs)):
        for j, a in enumerate(args):
            if i in prog.reshaped_results and np.shares_memory(got, a) and not np.shares_memory(ref, a):
                # a view where NumPy's is one too (an identity reshape with static shapes) is NumPy's answer
                return f"result {i} (a reshape of an argument) shares memory with {names[n + j]}: documented a copy"
    return aliasing_mismatch(results + list(args), refs + list(args), names, skip)


def describe_args(args) -> str:
    """The arguments as Python lines to paste into a reproducer."""
    def literal(a):
        return repr(a.tolist() if type(a) is not float else a).replace("nan", "np.nan").replace("inf", "np.inf")
    lines = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            lines.append(f"x{i} = np.array({literal(a)}, dtype=np.{a.dtype}).reshape({a.shape})")
        elif isinstance(a, np.generic):
            lines.append(f"x{i} = np.{a.dtype}({literal(a)})")
        else:
            lines.append(f"x{i} = {literal(a)}")
    return "\n".join(lines)


# ---- the tests ----------------------------------------------------------------------------------------------------
POOL = [generate(RandomChooser(seed)) for seed in range(POOL_SIZE)]
COMPLEX_POOL = [generate(RandomChooser(10_000 + seed), input_dtypes=COMPLEX_INPUT_DTYPES)
                for seed in range(POOL_SIZE // 2)]
LIBRARY_POOL = [generate(RandomChooser(20_000 + seed), ops=LIBRARY_OPS,
                         input_dtypes=INPUT_DTYPES if seed % 3 else COMPLEX_INPUT_DTYPES)
                for seed in range(POOL_SIZE // 2)]


def default_share(pool: list) -> list:
    """The default suite's part of a pool: its first half (compiling the programs is most of a value test's time);
    the slow suite's `_more` tests draw from the whole pool, the long run's (FUZZ_EXAMPLES) default ones too."""
    return pool if LONG else pool[:len(pool) // 2]


# Shrinking a program recompiles it at every step: only in the long run (a default-suite failure prints the program
# as drawn, which is already a reproducer).
@settings(max_examples=PROGRAM_EXAMPLES, **FUZZ_SETTINGS,
          phases=list(Phase) if LONG else [Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_random_programs(data):
    check_random_program(data)


def check_random_program(data) -> None:
    """One drawn program, on drawn arguments, against NumPy."""
    prog = generate(DataChooser(data), max_statements=5)
    note(prog.source)
    _, args = draw_inputs(data, prog, allow_one=False)
    note(describe_args(args))
    static = data.draw(st.integers(0, 4), label="static_shapes") == 4   # every size static: another code path
    msg = differential(prog, args, static_shapes=static)
    if static:
        msg = msg and f"(static_shapes=True)\n{msg}"
    assert msg is None, f"\n{prog.source}\n{describe_args(args)}\n{msg}"


@settings(max_examples=VALUE_EXAMPLES, **FUZZ_SETTINGS)
@given(st.data())
def test_random_values(data):
    check_pool_program(data, default_share(POOL))


@settings(max_examples=VALUE_EXAMPLES // 5, **FUZZ_SETTINGS)
@given(st.data())
def test_random_complex_values(data):
    """The same over a pool of programs on complex inputs (complex64, complex128, with some of the others)."""
    check_pool_program(data, default_share(COMPLEX_POOL))


def check_pool_program(data, pool: list) -> None:
    """One program of the pool (drawn), on drawn sizes and values, against NumPy."""
    prog = pool[data.draw(st.integers(0, len(pool) - 1), label="program")]
    note(prog.source)
    _, args = draw_inputs(data, prog)
    note(describe_args(args))
    msg = differential(prog, args)
    assert msg is None, f"\n{prog.source}\n{describe_args(args)}\n{msg}"


@settings(max_examples=VALUE_EXAMPLES // 5, **FUZZ_SETTINGS)
@given(st.data())
def test_random_library_values(data):
    """The same over a pool of programs that use the library functions along axes (a third on complex inputs)."""
    check_pool_program(data, default_share(LIBRARY_POOL))


# The slow suite's share: three times as many draws, other ones (derandomized from another test name, so not a repeat
# of the default suite's), over the whole pools.
@pytest.mark.slow
@settings(max_examples=PROGRAM_EXAMPLES * MORE, **FUZZ_SETTINGS,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_random_programs_more(data):
    check_random_program(data)


@pytest.mark.slow
@settings(max_examples=VALUE_EXAMPLES * MORE, **FUZZ_SETTINGS)
@given(st.data())
def test_random_values_more(data):
    check_pool_program(data, POOL)


@pytest.mark.slow
@settings(max_examples=VALUE_EXAMPLES * MORE // 5, **FUZZ_SETTINGS)
@given(st.data())
def test_random_complex_values_more(data):
    check_pool_program(data, COMPLEX_POOL)


@pytest.mark.slow
@settings(max_examples=VALUE_EXAMPLES * MORE // 5, **FUZZ_SETTINGS)
@given(st.data())
def test_random_library_values_more(data):
    check_pool_program(data, LIBRARY_POOL)


def test_integer_inputs_set_the_rounding_scale_of_float_results():
    """A float result computed from int64 inputs carries roundings of their size (the oracle's tolerance was 0 for
    np.mean([-2**63, 1, 2**63 - 1]): NumPy's float64 sum gives 0, a compensated one 1/3; both within rounding)."""
    source = "def prog(x0, x1):\n    t0 = np.mean(x1, axis=-1)\n    return t0, x0\n"
    x1 = np.array([np.iinfo(np.int64).min, 1, np.iinfo(np.int64).max])
    scales = output_scales(source, [np.float64(0.5), x1])
    assert scales[0] == 2.0**63 and scales[1] == 0.0
    assert compare_values(np.float64(1 / 3), np.mean(x1), approx=True, signed_zeros=False, scale=scales[0],
                          perturbed=[]) is None


def test_generator_is_varied():
    """The generator produces every kind of operation it knows, within a few hundred programs."""
    text = "\n".join(generate(RandomChooser(seed)).source for seed in range(300))
    for needle in ("@", ".reshape(", "np.concatenate(", "keepdims=True", "[1:]", "[::-1]", "[::2]", "[0]",
                   "[..., :2]", "[:, None]", "np.expand_dims(", ".T", "np.transpose(", "np.swapaxes(", "np.exp(",
                   "np.sum(", ".max(", "mean(", ".astype(", "np.where(", " // ", " % ", "np.fmax(", "any(", "all(",
                   "np.flatnonzero(", "np.nonzero(", " > 0]"):
        assert needle in text, needle


@pytest.mark.parametrize("seed", range(3))
def test_generated_programs_run_in_numpy(seed):
    """The generator itself: every program is valid NumPy at the sample sizes."""
    prog = generate(RandomChooser(1000 + seed))
    fn, _ = load(prog.source)
    rng = np.random.default_rng(seed)
    args = [sample_value(dtype, shape, rng, kind) for _, shape, dtype, kind in prog.inputs]
    with np.errstate(all="ignore"):
        result = fn(*args)
    # NumPy values (or a tuple of them) of dtypes the compiler supports: not Python objects, not lists
    for value in (result if isinstance(result, tuple) else (result,)):
        assert isinstance(value, (np.ndarray, np.generic)), type(value)
        assert value.dtype in SUPPORTED_RESULT_DTYPES, value.dtype
    # the same seed gives the same program: a failure reproduces from its seed alone
    assert generate(RandomChooser(1000 + seed)).source == prog.source


SUPPORTED_RESULT_DTYPES = {np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                 "uint32", "uint64", "float16", "float32", "float64", "complex64",
                                                 "complex128")}


def test_the_comparison_catches_what_rounding_cannot_explain():
    """compare_values itself: an infinity that became NaN, and an error far above its own result's rounding while
    another result (or an input) is huge, are reported; a rounding-sized difference is not."""
    e = np.array([np.inf, 1.0])
    assert compare_values(np.array([np.nan, 1.0]), e, approx=True, signed_zeros=True, perturbed=[e, e])
    source = "def prog(x0):\n    t0 = x0 * 2.0\n    t1 = np.tanh(x0)\n    return t0, t1\n"
    args = [np.array([1e300, 0.5])]
    scales = output_scales(source, args)
    assert scales == [2e300, 1.0]                          # t1 (tanh(1e300) = 1) does not depend on t0
    expected = (args[0] * 2.0, np.tanh(args[0]))
    wrong = (expected[0], expected[1] * (1 + 1e-9))
    assert compare_values(wrong, expected, approx=True, signed_zeros=True, scale=scales,
                          perturbed=[expected]) is not None
    close = (expected[0], np.nextafter(expected[1], 2.0))
    assert compare_values(close, expected, approx=True, signed_zeros=True, scale=scales, perturbed=[expected]) is None
