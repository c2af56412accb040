"""Float16 matrix products in the kernel (and batched ones of float16 results) call NumPy's own matmul:
matmul_lowering.py turns each such `linalg.matmul` / `linalg.batch_matmul` on buffers into a call of an external
function named after its operand types, e.g. `linalg_matmul_viewsxsxf16_viewsxsxf16_viewsxsxf16`; here each such
function is a C callback that views the three memref descriptors as NumPy arrays (no copy) and runs
`np.matmul(a, b, out=c)`.

These products run at BLAS speed on all cores, and mixed ones convert the narrow operand exactly, as NumPy does
(but keeping its memory layout, see `callback`), and call the same BLAS. (Products with few rows do not come here:
see matmul_lowering.py.)

Float32 and float64 products, 2-D or batched, and complex ones call OpenBLAS directly instead, from the kernel's
own threads (blas_lowering.py, batched_blas.py): `bind` gives the machine code the addresses of NumPy's OpenBLAS
`cblas_?gemm`/`cblas_?gemv` (s, d, c, z), and `single_threaded` keeps OpenBLAS on one thread per call while such a
kernel runs. `np.linalg.inv` and `solve` call the same library's LAPACK `dgesv` (codegen/lapack_call.py), bound
here too, with OpenBLAS's thread setting as it is (as NumPy's own call finds it).
"""
from __future__ import annotations

import ctypes
import glob
import os
import re
import threading

import numpy as np

from ..backend.blas_lowering import BLAS_SYMBOLS, LAPACK_SYMBOLS
from . import errstate, few_rows_library, numpy_calls, openmp, result_cache
from .memref import descriptor_type

_ELEMENT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
_NAME = re.compile(r"^(?:_mlir_ciface_)?linalg_(?:batch_)?matmul((?:_view(?:sx)+(?:f16|f32|f64)){3})$")
_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def library_functions(llvm_module_text: str) -> list:
    """Names of the library functions the lowered module calls (NumPy's matmul, OpenBLAS's gemm, the NumPy
    functions of numpy_calls.py, the cache of large result buffers, our few-row product loops)."""
    names = set(re.findall(r"@(linalg_(?:batch_)?matmul(?:_view(?:sx)+(?:f16|f32|f64)){3})\b", llvm_module_text))
    names.update(re.findall(r"@_mlir_ciface_(npcall_\w+)\b", llvm_module_text))
    names.update(re.findall(r"@_mlir_ciface_(transpiler_few_rows_f(?:32|64))\b", llvm_module_text))
    names.update(name for name in (*BLAS_SYMBOLS, *LAPACK_SYMBOLS, result_cache.TAKE_NAME)
                 if f"@{name}(" in llvm_module_text)
    return sorted(names)


def bind(names: list) -> tuple[dict, list]:
    """(symbol name -> address, objects to keep alive while the machine code may call them) for the library
    functions `names`."""
    symbols, keepalive = {}, []
    for name in names:
        if name in BLAS_SYMBOLS:
            symbols[name] = _openblas().gemm[name]
        elif name in LAPACK_SYMBOLS:
            symbols[name] = _openblas().lapack[name]
        elif name == result_cache.TAKE_NAME:
            symbols[name] = result_cache.take_address()
        elif few_rows_library.is_symbol(name):      # our few-row product loops, compiled once per process
            symbols["_mlir_ciface_" + name], keep = few_rows_library.address(name)
            keepalive.append(keep)
        else:
            cb = numpy_calls.callback(name) if numpy_calls.is_call(name) else callback(name)
            keepalive.append(cb)
            symbols["_mlir_ciface_" + name] = ctypes.cast(cb, ctypes.c_void_p).value
    return symbols, keepalive


def uses_openblas(names: list) -> bool:
    return any(name in BLAS_SYMBOLS for name in names)


def direct_available() -> bool:
    """Whether kernels can call NumPy's OpenBLAS directly (NumPy's wheels bundle an ILP64 scipy-openblas)."""
    return _openblas() is not None


def lapack_available() -> bool:
    """Whether kernels can call that library's LAPACK (dgesv) directly, as NumPy's _umath_linalg does."""
    lib = _openblas()
    return lib is not None and len(lib.lapack) == len(LAPACK_SYMBOLS)


class _OpenBLAS:
    """NumPy's bundled OpenBLAS, opened again by path (the same library NumPy loaded, not a second copy)."""

    def __init__(self, path: str):
        lib = ctypes.CDLL(path)
        self.path = path
        config = getattr(lib, "scipy_openblas_get_config64_")
        config.restype = ctypes.c_char_p
        if b"USE64BITINT" not in config():
            raise OSError("not an ILP64 OpenBLAS")   # the kernels pass 64-bit integers
        self.gemm = {ours: ctypes.cast(getattr(lib, f"scipy_cblas_{ours[-5:]}64_"), ctypes.c_void_p).value
                     for ours in BLAS_SYMBOLS}    # ?gemm and ?gemv
        self.lapack = {ours: ctypes.cast(getattr(lib, theirs), ctypes.c_void_p).value
                       for ours, theirs in LAPACK_SYMBOLS.items() if hasattr(lib, theirs)}
        self.get_threads = lib.scipy_openblas_get_num_threads64_
        self.get_threads.restype = ctypes.c_int
        self.set_threads = lib.scipy_openblas_set_num_threads64_
        self.set_threads.argtypes = [ctypes.c_int]
        self.lock = threading.Lock()
        self.users = 0
        self.saved = 1


_library = None
_looked_up = False
_lookup_lock = threading.Lock()


def _openblas():
    global _library, _looked_up
    with _lookup_lock:   # one object for the process: single_threaded counts its users on it
        if not _looked_up:
            libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
            for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so*"))):
                try:
                    _library = _OpenBLAS(path)
                    break
                except (OSError, AttributeError):
                    continue
            _looked_up = True
    return _library


def openblas_path() -> str | None:
    """The file of NumPy's OpenBLAS, where kernels can call it."""
    lib = _openblas()
    return lib.path if lib is not None else None


class single_threaded:
    """While any kernel that calls OpenBLAS runs, OpenBLAS runs each call on the calling thread: the kernel's
    OpenMP threads are the only pool (a setting of the whole process; NumPy's own products made meanwhile by
    other threads run single-threaded too). The first kernel in saves the setting, the last one out restores it."""

    def __enter__(self):
        lib = _openblas()
        with lib.lock:
            if lib.users == 0:
                lib.saved = lib.get_threads()
                lib.set_threads(1)
            lib.users += 1

    def __exit__(self, *exc):
        lib = _openblas()
        with lib.lock:
            lib.users -= 1
            if lib.users == 0:
                lib.set_threads(lib.saved)


def callback(name: str):
    """A C function for `name` (keep a reference: the JIT calls it for the kernel's lifetime)."""
    m = _NAME.match(name)
    if m is None:
        raise ValueError(f"not a matmul library function: {name}")
    operands = []
    for part in m.group(1).split("_view")[1:]:
        rank = part.count("sx")
        operands.append((rank, np.dtype(_ELEMENT[part[2 * rank:]])))

    def product(pa, pb, pc):
        a, b, c = (view(p, rank, dt) for p, (rank, dt) in zip((pa, pb, pc), operands))
        # A mixed product: convert the narrow operand ourselves, keeping its layout (order="K"). NumPy's matmul
        # converts a transposed operand (x @ wte.T) into C order, a gather that took 160 of its 364 ms at
        # (256, 768) @ (768, 50257); the converted view goes to BLAS transposed instead (exact conversion, the
        # same product).
        with errstate.numpy_inside_kernel():
            a, b = (x if x.dtype == c.dtype else x.astype(c.dtype, order="K") for x in (a, b))
            np.matmul(a, b, out=c)
        openmp.after_blas(c.size * a.shape[-1])

    def matmul(pa, pb, pc):
        # An exception cannot unwind through the kernel's frames (ctypes would print and drop it, and the product
        # would be left half done). A Ctrl-C is remembered and the product done again, whole; the call raises the
        # KeyboardInterrupt once the kernel has returned (Kernel.__call__).
        while True:
            try:
                product(pa, pb, pc)
                return
            except KeyboardInterrupt:
                INTERRUPTED.set()
    return _CALLBACK(matmul)


INTERRUPTED = threading.Event()   # a Ctrl-C arrived while a callback ran: raised after the kernel returns


def view(ptr: int, rank: int, dtype: np.dtype) -> np.ndarray:
    """The memref descriptor at `ptr` as a NumPy array over the same memory (no copy)."""
    d = ctypes.cast(ptr, ctypes.POINTER(descriptor_type(rank))).contents
    item = dtype.itemsize
    shape = tuple(d.sizes) if rank else ()
    strides = tuple(s * item for s in d.strides) if rank else ()
    data = (d.aligned or 0) + d.offset * item
    holder = type("View", (), {})()
    holder.__array_interface__ = {"data": (data, False), "shape": shape, "strides": strides, "typestr": dtype.str,
                                  "version": 3}
    return np.asarray(holder)
