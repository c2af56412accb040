"""Machine code: lower an MLIR module to LLVM, JIT it with MLIR's ExecutionEngine, and call it on NumPy arrays."""
from __future__ import annotations

import ctypes
import os

import mlir
from mlir.execution_engine import ExecutionEngine

from . import blas
from .memref import adopt_results, descriptor_for, descriptor_type, results_type

def runtime_libraries() -> list:
    lib_dir = os.path.join(list(mlir.__path__)[0], "lib")
    names = ["libmlir_c_runner_utils.so"]
    return [os.path.join(lib_dir, n) for n in names if os.path.exists(os.path.join(lib_dir, n))]


class Kernel:
    """One compiled specialization: arrays in (C-contiguous), arrays out (owned by NumPy)."""

    def __init__(self, llvm_module, name: str, out_dtypes: list, out_ranks: list, opt_level: int = 3):
        self.engine = ExecutionEngine(llvm_module, opt_level=opt_level, shared_libs=runtime_libraries())
        names = blas.library_functions(str(llvm_module))
        self.callbacks = [blas.callback(f) for f in names]   # referenced for the engine's lifetime
        for fn_name, cb in zip(names, self.callbacks):
            self.engine.register_runtime(fn_name, cb)
        self.engine.initialize()
        self.fn = self.engine.lookup(name)
        self.out_dtypes = out_dtypes
        self.out_ranks = out_ranks
        self.results_type = results_type(out_ranks) if len(out_ranks) > 1 else None

    def __call__(self, arrays: list) -> list:
        if self.results_type is not None:
            res = self.results_type()
        elif self.out_ranks:
            res = descriptor_type(self.out_ranks[0])()
        else:
            res = None
        structs = ([res] if res is not None else []) + [descriptor_for(a) for a in arrays]
        # The C interface takes a pointer per argument; the packed entry point takes the address of each pointer.
        slots = [ctypes.pointer(ctypes.pointer(s)) for s in structs]
        packed = (ctypes.c_void_p * len(slots))(*[ctypes.cast(p, ctypes.c_void_p) for p in slots])
        self.fn(packed)
        if res is None:
            return []
        descriptors = [getattr(res, f"r{i}") for i in range(len(self.out_dtypes))] \
            if self.results_type is not None else [res]
        return adopt_results(descriptors, self.out_dtypes, {a.ctypes.data for a in arrays})
