"""Array sizes checked before the kernel runs, so that an allocation that cannot succeed is NumPy's error at the
call and never a crash inside the kernel (a failed `malloc` there cannot unwind).

Every size in the typed program is an expression of the arguments' dims (types/shapes.py), so the size of every
array the kernel makes can be computed in Python from the arguments alone. `plan` keeps, per program, the distinct
shapes that could be larger than an argument (one made of some of an argument's dims, with items no wider, is
bounded by memory the caller already holds): an outer product's (n, n), a concatenation's total length, a float64
copy of an int8 argument ... `check` evaluates them with Python's exact integers and raises
what NumPy raises for the same request: `ValueError` for a size that does not fit a signed 64-bit byte count, and
`MemoryError` for one larger than this machine's memory and swap (where the kernel's `malloc` would fail).

Sizes made from Python int arguments (run-time values) are evaluated here too (the "input" dims of
frontend/shape_ops.kernel_size). Sizes computed from data inside the kernel (`np.zeros(k)` for a `k` read from an
array) are checked in the kernel instead (shape_ops.kernel_size, shape_ops.fitting, Builder._check_data_sized,
which makes the statement run only if the array fits). Not covered: temporaries inside outlined functions; their
allocation still trusts `malloc`.
"""
from __future__ import annotations

import functools
import math
import os

from ..program import Block
from ..types.shapes import Sym, evaluator, is_checkable

_TOO_BIG = "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."


def plan(program) -> list:
    """(sizes, dtype) of each distinct array shape the program allocates that could be larger than an argument (one
    no larger than an argument needs no check: the caller already holds that much memory); `sizes(arrays)` gives
    its dims for the call's arguments (shapes.evaluator)."""
    env = program.env
    inputs = [([env.find(d) for d in v.shape], v.dtype.itemsize) for v in program.inputs]
    seen, out = set(), []

    def bounded(dims, itemsize) -> bool:
        """No larger than an argument: its dims are some of that argument's dims, its items no wider."""
        for shape, size in inputs:
            rest = list(shape)
            if size >= itemsize and all(d == 1 or _take(rest, d) for d in dims):
                return True
        return False

    def visit(eqns):
        for e in eqns:
            for v in e.outputs:
                dims = tuple(env.find(d) for d in v.shape)
                if not dims or bounded(dims, v.dtype.itemsize) or not all(is_checkable(d) for d in dims):
                    continue
                if all(isinstance(d, int) for d in dims) and math.prod(dims) * v.dtype.itemsize <= memory_limit():
                    continue     # a constant size that fits: nothing to check at each call
                key = (tuple(str(d) if isinstance(d, Sym) else d for d in dims), v.dtype.itemsize)
                if key not in seen:
                    seen.add(key)
                    out.append((dims, v.dtype))
            for block in (p for p in e.params.values() if isinstance(p, Block)):
                visit(block.eqns)
    visit(program.eqns)
    return [(evaluator(dims), dtype) for dims, dtype in out]


def _take(dims: list, d) -> bool:
    """Remove one occurrence of `d` from `dims`; whether there was one."""
    for i, x in enumerate(dims):
        if x is d or x == d:
            del dims[i]
            return True
    return False


def check(shapes: list, arrays: list) -> None:
    """Raise NumPy's error if an array of the program could not be allocated for these arguments."""
    limit = memory_limit()
    for dims, dtype in shapes:
        sizes = dims(arrays)
        nbytes = math.prod(sizes) * dtype.itemsize      # Python ints: no overflow
        if nbytes >= 2**63:
            raise ValueError(_TOO_BIG)
        if nbytes > limit:
            raise MemoryError(f"Unable to allocate {_human(nbytes)} for an array with shape {tuple(sizes)} and "
                              f"data type {dtype}")


@functools.cache
def memory_limit() -> int:
    """Physical memory plus swap: a larger block cannot be had."""
    total = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                name, value = line.split(":", 1)
                if name in ("MemTotal", "SwapTotal"):
                    total += int(value.split()[0]) * 1024
    except (OSError, ValueError):
        pass
    if not total:
        try:
            total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            total = 2**62
    return total


def _human(nbytes: int) -> str:
    """As NumPy's MemoryError writes a size: three significant digits and a binary unit."""
    for unit, size in (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20),
                       ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes} bytes"
