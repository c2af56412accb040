"""The C layout of MLIR memref descriptors, and NumPy arrays that own memory the kernel allocated."""
from __future__ import annotations

import ctypes

import numpy as np

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_descriptor_types: dict = {}

# memref.get_global (a constant returned as is) lowers with this allocated pointer: not ours to free
_DEADBEEF = 0xDEADBEEF


def descriptor_type(rank: int) -> type:
    """struct { T* allocated; T* aligned; int64 offset; int64 sizes[rank]; int64 strides[rank]; }"""
    if rank not in _descriptor_types:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _descriptor_types[rank] = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
    return _descriptor_types[rank]


def results_type(ranks: list) -> type:
    """The struct the C interface fills with several results."""
    fields = [(f"r{i}", descriptor_type(r)) for i, r in enumerate(ranks)]
    return type("Results", (ctypes.Structure,), {"_fields_": fields})


def descriptor_for(arr: np.ndarray):
    """A descriptor viewing a C-contiguous array (the caller keeps `arr` alive during the call)."""
    d = descriptor_type(arr.ndim)()
    ptr = arr.ctypes.data
    d.allocated = ptr
    d.aligned = ptr
    d.offset = 0
    if arr.ndim:
        d.sizes[:] = arr.shape
        item = arr.itemsize
        d.strides[:] = [s // item for s in arr.strides] if arr.size else _contiguous_strides(arr.shape)
    return d


def _contiguous_strides(shape) -> list:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return strides[::-1]


class _Owned:
    """Keeps a kernel-allocated buffer alive while a NumPy array views it; frees it with the array."""
    __slots__ = ("ptr", "__array_interface__")

    def __init__(self, ptr: int, data: int, shape: tuple, strides: tuple, dtype: np.dtype):
        self.ptr = ptr
        self.__array_interface__ = {"data": (data, False), "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "version": 3}

    def __del__(self):
        _libc.free(self.ptr)


def to_numpy(d, dtype: np.dtype, keep: list) -> np.ndarray:
    """An array for a returned descriptor. Buffers the kernel allocated are adopted (freed with the array); a
    result whose buffer is in `keep` (an input's, or an earlier result's) or is a constant is copied.
    `keep` starts as the inputs' data pointers and grows with each adopted buffer."""
    rank = len(d.sizes) if hasattr(d, "sizes") else 0
    shape = tuple(d.sizes) if rank else ()
    item = dtype.itemsize
    strides = tuple(s * item for s in d.strides) if rank else ()
    data = (d.aligned or 0) + d.offset * item
    allocated = d.allocated or 0
    owned = allocated not in keep and allocated != _DEADBEEF
    if 0 in shape:
        if owned:
            keep.append(allocated)
            _libc.free(allocated)
        return np.empty(shape, dtype)
    if owned:
        keep.append(allocated)
        return np.asarray(_Owned(allocated, data, shape, strides, dtype))
    view = np.asarray(_Borrowed(data, shape, strides, dtype))
    return view.copy()


class _Borrowed:
    __slots__ = ("__array_interface__",)

    def __init__(self, data, shape, strides, dtype):
        self.__array_interface__ = {"data": (data, True), "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "version": 3}
