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


def _read_data_field(arr: np.ndarray) -> int:
    """The `data` field of the PyArrayObject, right after the object header: an ndarray's data pointer without
    the ~0.8 us of `arr.ctypes.data` (a kernel call reads one per argument)."""
    return ctypes.c_void_p.from_address(id(arr) + _HEADER).value or 0


_HEADER = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)   # ob_refcnt, ob_type
_probe = np.arange(3.0)
data_pointer = _read_data_field if _read_data_field(_probe) == _probe.ctypes.data else \
    (lambda arr: arr.ctypes.data)   # another object layout (a free-threaded build ...): the public way


class Frame:
    """The arguments of one call of a kernel's packed entry point, in one int64 buffer: the results' descriptors
    (filled by the kernel), one descriptor per input array (allocated and aligned pointers, offset 0, sizes,
    strides in elements), a pointer to each descriptor, and a pointer to each of those pointers (what the packed
    entry point takes). One NumPy allocation per call instead of a ctypes object per descriptor."""

    def __init__(self, out_ranks: list):
        self.out_ranks = out_ranks
        self.result_words = sum(3 + 2 * r for r in out_ranks)

    def call(self, entry, arrays: list):
        """Run `entry` on C-contiguous `arrays`; the results' descriptors as (allocated, aligned, offset, sizes,
        strides) tuples, and the inputs' data pointers."""
        words = [0] * self.result_words
        starts = [0] if self.out_ranks else []
        inputs = set()
        for arr in arrays:
            starts.append(len(words))
            ptr = data_pointer(arr)
            inputs.add(ptr)
            shape = arr.shape
            item = arr.itemsize
            strides = [s // item for s in arr.strides] if arr.size else _contiguous_strides(shape)
            words += [ptr, ptr, 0, *shape, *strides]
        n = len(starts)
        first_slot = len(words)
        buffer = np.empty(first_slot + 2 * n, np.int64)
        base = data_pointer(buffer)
        words += [base + 8 * start for start in starts]
        words += [base + 8 * (first_slot + i) for i in range(n)]
        buffer[:] = words
        entry(base + 8 * (first_slot + n))
        results, head = [], buffer[:self.result_words].tolist()
        at = 0
        for rank in self.out_ranks:
            allocated, aligned, offset = head[at:at + 3]
            results.append((allocated, aligned, offset, tuple(head[at + 3:at + 3 + rank]),
                            tuple(head[at + 3 + rank:at + 3 + 2 * rank])))
            at += 3 + 2 * rank
        return results, inputs


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
    allocated, aligned, offset, shape, strides = d
    item = dtype.itemsize
    return allocated, aligned + offset * item, shape, tuple(s * item for s in strides), dtype


class _Borrowed:
    __slots__ = ("__array_interface__",)

    def __init__(self, data, shape, strides, dtype):
        self.__array_interface__ = {"data": (data, True), "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "version": 3}
