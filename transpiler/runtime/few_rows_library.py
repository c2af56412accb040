"""The few-row product loops (backend/few_rows.py), compiled once per process and element type, the first time a
kernel calls them: kernels call `_mlir_ciface_transpiler_few_rows_f32` (f64), which `address` binds to the
compiled function, or, before it is compiled, to a callback that compiles it and calls it.

Compiling them into every kernel added 120-250 ms to each kernel with a matrix product; here they cost about that
once per process, and only in a process whose products take them. Should the compilation fail, the callback
computes the product with NumPy's matmul instead (a correct result either way; its floating-point events
and the kernel's before it are kept, as for every NumPy call from a kernel: errstate.numpy_inside_kernel).
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_DTYPES = {"transpiler_few_rows_f32": np.float32, "transpiler_few_rows_f64": np.float64}
_compiled: dict = {}     # symbol -> (context, engine, callable): alive as long as the process
_lock = threading.Lock()


def is_symbol(name: str) -> bool:
    return name in _DTYPES


def address(symbol: str) -> tuple[int, object]:
    """(address for the kernel's `_mlir_ciface_<symbol>`, object to keep alive with the kernel)."""
    with _lock:
        if symbol in _compiled:
            return _compiled[symbol][3], None
    callback = _CALLBACK(lambda a, b, c: _first_calls(symbol, a, b, c))
    return ctypes.cast(callback, ctypes.c_void_p).value, callback


def _first_calls(symbol: str, a, b, c) -> None:
    # (an exception cannot unwind through the kernel: any failure computes the product with NumPy instead)
    try:
        target = _target(symbol)
    except BaseException:      # noqa: BLE001 (a KeyboardInterrupt too: the product is still done, whole)
        target = None
    if target is not None:
        target(a, b, c)
        return
    from . import blas, errstate
    dtype = np.dtype(_DTYPES[symbol])
    x, y, out = (blas.view(p, 2, dtype) for p in (a, b, c))
    with errstate.numpy_inside_kernel():     # (NumPy would clear the kernel's flags and warn in the middle of it)
        np.matmul(x, y, out=out)


def _target(symbol: str):
    with _lock:
        if symbol not in _compiled:
            _compiled[symbol] = _compile(symbol)
        return _compiled[symbol][2]


def _compile(symbol: str) -> tuple:
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine

    from ..backend import few_rows, pipeline
    from ..driver import new_context
    from .jit import load_runtime_libraries
    load_runtime_libraries()      # (LLVM's options, as for the kernels)
    context = new_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        element = ir.F32Type.get() if _DTYPES[symbol] == np.float32 else ir.F64Type.get()
        few_rows.define(module, element)
        pipeline.run(module, pipeline.pipeline_text(pipeline.TO_LLVM))
        pipeline.verify(module)
        engine = ExecutionEngine(module, opt_level=3)
        engine.initialize()
        where = engine.raw_lookup("ciface_" + symbol)     # the symbol `_mlir_ciface_<symbol>` itself
    return context, engine, _CALLBACK(where), where
