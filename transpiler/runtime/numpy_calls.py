"""NumPy functions that the kernel calls back into: sorts, searches, order statistics and LAPACK's factorizations.

These are large library algorithms whose exact results (the order of equal keys, the rounding of a
factorization, the sign of an eigenvector) are NumPy's by definition: the kernel calls NumPy itself for them, on
views of its own buffers (no copy in), and NumPy writes the result into a buffer the kernel allocated.

Each call site is an external function whose name says everything the callback needs: `npcall_`, the function,
and the hex of a JSON spec (the function's name in `FUNCTIONS`, its arguments with the kernel's inputs as
placeholders, the inputs' and outputs' dtypes and ranks). So a kernel loaded from the disk cache rebinds its
callbacks from the names alone, and only functions listed here can ever be called.

A callback cannot raise through the kernel's frames: it returns 1 instead and keeps the exception (per thread);
the kernel reports the failure as a check flag and the call raises that exception (api.raise_failed_checks).
"""
from __future__ import annotations

import ctypes
import json
import threading

import numpy as np

from . import errstate

PREFIX = "npcall_"


def _lstsq_full(a, b, rcond=None):
    """np.linalg.lstsq with its residuals at full length (b's columns, 1 for a 1-D b), zeros where NumPy gives none,
    and the length NumPy gives them as a fifth result: the kernel allocates the residuals before the rank is known
    (NumPy returns them only when the rank is full and a is tall) and cuts them to that length after."""
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond)
    full = np.zeros(1 if b.ndim == 1 else b.shape[-1], residuals.dtype)
    full[:residuals.shape[0]] = residuals
    return x, full, rank, s, np.int64(residuals.shape[0])


def _bincount(x, weights=None, minlength=0):
    """np.bincount, refusing a value whose count array no intp can size: for 2**63 - 1 NumPy's own length
    (max + 1) wraps, and it returns an empty array after writing past it (a corrupted heap, the process aborts)."""
    if x.size and x.max() >= (2**63 - 1) // 8:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    return np.bincount(x, weights, minlength)


FUNCTIONS = {
    "sort": np.sort, "argsort": np.argsort, "partition": np.partition, "argpartition": np.argpartition,
    "searchsorted": np.searchsorted, "median": np.median, "percentile": np.percentile, "quantile": np.quantile,
    "histogram": np.histogram, "bincount": _bincount, "unique": np.unique, "lexsort": np.lexsort,
    "linalg.inv": np.linalg.inv, "linalg.pinv": np.linalg.pinv, "linalg.det": np.linalg.det,
    "linalg.slogdet": np.linalg.slogdet, "linalg.solve": np.linalg.solve, "linalg.cholesky": np.linalg.cholesky,
    "linalg.qr": np.linalg.qr, "linalg.eigh": np.linalg.eigh, "linalg.eigvalsh": np.linalg.eigvalsh,
    "linalg.svd": np.linalg.svd, "linalg.matrix_power": np.linalg.matrix_power, "linalg.norm": np.linalg.norm,
    "linalg.matrix_rank": np.linalg.matrix_rank, "linalg.cond": np.linalg.cond,
    "linalg.lstsq": _lstsq_full,
}


class CallFailed(Exception):
    """The `kind` of a numpy_call's check: raising it raises the exception the callback kept instead."""


def symbol(spec: dict) -> str:
    """`npcall_linalg_inv_7b22...`: the function's name to read in the IR, then the whole spec."""
    return (PREFIX + spec["fn"].replace(".", "_") + "_"
            + json.dumps(spec, sort_keys=True, separators=(",", ":")).encode().hex())


def is_call(name: str) -> bool:
    return name.startswith(PREFIX)


def decode(name: str) -> dict:
    return json.loads(bytes.fromhex(name.rsplit("_", 1)[1]).decode())


_pending = threading.local()


def clear() -> None:
    _pending.error = None


def take_error() -> BaseException:
    """The exception of the first callback that failed in this thread's last kernel call."""
    error, _pending.error = getattr(_pending, "error", None), None
    return error if error is not None else RuntimeError("a NumPy call in the kernel failed")


def callback(name: str):
    """A C function for `name` (keep a reference: the machine code calls it for the kernel's lifetime)."""
    from .blas import INTERRUPTED, view
    spec = decode(name)
    fn = FUNCTIONS[spec["fn"]]
    ins = [(np.dtype(dt), rank) for dt, rank in spec["in"]]
    outs = [(np.dtype(dt), rank) for dt, rank in spec["out"]]

    def run(pointers):
        arrays = [view(p, rank, dt) for p, (dt, rank) in zip(pointers, ins)]
        args = [_rebuild(a, arrays) for a in spec["args"]]
        kwargs = {k: _rebuild(a, arrays) for k, a in spec["kwargs"].items()}
        with errstate.numpy_inside_kernel():
            result = fn(*args, **kwargs)
        results = tuple(result) if len(outs) > 1 else (result,)
        for p, (dt, rank), r in zip(pointers[len(ins):], outs, results):
            out, r = view(p, rank, dt), np.asarray(r)
            if r.shape != out.shape or r.dtype != out.dtype:
                raise AssertionError(f"internal compiler error: np.{spec['fn']} returned {r.dtype}{list(r.shape)} "
                                     f"where the compiler expected {out.dtype}{list(out.shape)}")
            out[...] = r

    def call(*pointers):
        while True:    # a Ctrl-C: the call is done again, whole; the kernel's caller raises KeyboardInterrupt after
            try:
                run(pointers)
                return 0
            except KeyboardInterrupt:
                INTERRUPTED.set()
            except BaseException as error:     # noqa: BLE001 - kept, and raised by the kernel's caller
                if getattr(_pending, "error", None) is None:
                    _pending.error = error
                return 1
    return ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_void_p] * (len(ins) + len(outs)))(call)


def _rebuild(encoded, arrays: list):
    """An argument as the JSON spec encodes it (frontend/numpy_calls.encode), kernel inputs in place."""
    if isinstance(encoded, list):
        return [_rebuild(e, arrays) for e in encoded]
    if not isinstance(encoded, dict):
        return encoded
    if "in" in encoded:
        a, kind = arrays[encoded["in"]], encoded["k"]
        # a Python scalar of the program is a Python scalar again (NEP 50: weak), a NumPy scalar a NumPy scalar
        return a.item() if kind == "weak" else a[()] if kind == "scalar" else a
    if "f" in encoded:
        return float(encoded["f"])
    if "c" in encoded:
        return complex(*map(float, encoded["c"]))
    if "t" in encoded:
        return tuple(_rebuild(e, arrays) for e in encoded["t"])
    if "dt" in encoded:
        return np.dtype(encoded["dt"])
    raise AssertionError(f"bad NumPy call argument {encoded!r}")
