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
    ptr = arr.ctypes.data
    if not arr.ndim:
        return descriptor_type(0)(ptr, ptr, 0)
    item = arr.itemsize
    strides = tuple(s // item for s in arr.strides) if arr.size else tuple(_contiguous_strides(arr.shape))
    return descriptor_type(arr.ndim)(ptr, ptr, 0, arr.shape, strides)


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


def adopt_results(descriptors: list, dtypes: list, inputs: set) -> list:
    """NumPy arrays for the kernel's returned descriptors. A buffer the kernel allocated is adopted by the first
    non-empty result that views it (freed with that array); later results that view it, results that view an
    input (`inputs`: their data pointers) or a constant are copied; a buffer only empty results view is freed."""
    views = [_layout(d, dt) for d, dt in zip(descriptors, dtypes)]
    adopted: set = set()
    arrays = []
    for allocated, data, shape, strides, dt in views:
        if 0 in shape:
            arrays.append(np.empty(shape, dt))
        elif allocated in inputs or allocated in adopted or allocated in (0, _DEADBEEF):
            arrays.append(np.asarray(_Borrowed(data, shape, strides, dt)).copy())
        else:
            adopted.add(allocated)
            arrays.append(np.asarray(_Owned(allocated, data, shape, strides, dt)))
    for allocated, *_ in views:
        if allocated not in adopted and allocated not in inputs and allocated not in (0, _DEADBEEF):
            adopted.add(allocated)   # freed once
            _libc.free(allocated)
    return arrays


def _layout(d, dtype: np.dtype):
    rank = len(d.sizes) if hasattr(d, "sizes") else 0
    item = dtype.itemsize
    shape = tuple(d.sizes) if rank else ()
    strides = tuple(s * item for s in d.strides) if rank else ()
    return d.allocated or 0, (d.aligned or 0) + d.offset * item, shape, strides, dtype


class _Borrowed:
    __slots__ = ("__array_interface__",)

    def __init__(self, data, shape, strides, dtype):
        self.__array_interface__ = {"data": (data, True), "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "version": 3}
