"""Sharing two cores between OpenMP (our loops) and OpenBLAS's own thread pool, for the products that still call
NumPy's matmul from a kernel (float16 ones; float32/float64 products, 2-D or batched, and complex ones call OpenBLAS
from the kernel's own threads instead, see blas_lowering.py and batched_blas.py).

After a multi-threaded product OpenBLAS keeps its workers spinning for about 0.1 s. OpenMP loops that start in that
window share the cores with them and run slower than on one thread (attention, one head: 0.55 ms threaded against
0.41 ms single-threaded; GPT-2 at 256 tokens: 936 against 791 ms). So after a BLAS call the calling thread's
OpenMP loops run single-threaded (omp_set_num_threads is per thread), until a kernel starts more than BLAS_SPIN_S
after the last BLAS call. Not needed where OpenBLAS runs its jobs on the kernels' own pool (blas_pool.py).
"""
from __future__ import annotations

import ctypes
import threading
import time

from . import blas_pool

BLAS_SPIN_S = 0.1
BLAS_THREADED_MACS = 1 << 16   # products smaller than this: OpenBLAS runs them on the calling thread

_state = threading.local()
_library = None
_default_threads = 1
_last_blas = 0.0
_narrowed_any = False   # whether some thread narrowed: most calls never meet a BLAS call, and skip the thread-local


def use(path: str) -> None:
    """Called once the OpenMP runtime is loaded."""
    global _library, _default_threads
    _library = ctypes.CDLL(path)
    _library.omp_set_num_threads.argtypes = [ctypes.c_int]
    _default_threads = _library.omp_get_max_threads()


def after_blas(macs: int) -> None:
    """A product of `macs` multiply-adds ran in BLAS on this thread."""
    global _last_blas, _narrowed_any
    if _library is None or macs < BLAS_THREADED_MACS or blas_pool.installed():
        return
    _last_blas = time.perf_counter()
    if not getattr(_state, "narrowed", False):
        _library.omp_set_num_threads(1)
        _state.narrowed = True
        _narrowed_any = True


def before_kernel() -> None:
    """Give this thread's loops all threads back once OpenBLAS's workers have gone to sleep."""
    if _narrowed_any and getattr(_state, "narrowed", False) and time.perf_counter() - _last_blas > BLAS_SPIN_S:
        _library.omp_set_num_threads(_default_threads)
        _state.narrowed = False
