"""The C layout of MLIR memref descriptors, and NumPy arrays that own memory the kernel allocated."""
from __future__ import annotations

import ctypes
import struct

import numpy as np

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None
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
_read_pointer = ctypes.c_void_p.from_address
# the data pointer of array `{0}` as an expression in generated code (Frame): _read_data_field, inlined
_POINTER = f"read(id({{0}}) + {_HEADER}).value or 0" if data_pointer is _read_data_field else "data_pointer({0})"


def made_once(table: dict, key, make):
    """table[key], made by make(key) the first time (per-signature closures: Frame.caller, Kernel.invoker)."""
    made = table.get(key)
    if made is None:
        made = table[key] = make(key)
    return made


class Frame:
    """The arguments of one call of a kernel's packed entry point, in one int64 buffer: the results' descriptors
    (filled by the kernel), the status word (the floating-point events the kernel raised, backend/fp_status.py), one
    descriptor per input array (allocated and aligned pointers, offset 0, sizes, strides in elements), the status
    word's descriptor (the kernel's last argument, a rank-0 memref), a pointer to each descriptor, and a pointer to
    each of those pointers (what the packed entry point takes).

    The layout depends only on the ranks, fixed per specialization: `caller(in_ranks)` derives it once. Buffers are
    reused (a free list: a call takes one and gives it back, so threads and re-entrant calls never share one), and
    their pointer part, absolute addresses into the buffer itself, is written once when a buffer is made; a call
    only packs the input descriptors (one `struct.pack_into`) and unpacks the results' words and the status word
    (the last of the words a call returns)."""

    def __init__(self, out_ranks: list):
        self.out_ranks = out_ranks
        self.result_words = sum(3 + 2 * r for r in out_ranks)
        self._callers: dict = {}

    def call(self, entry, arrays: list):
        """Run `entry` on C-contiguous `arrays`: the results' descriptor words and the inputs' data pointers."""
        return self.caller(tuple(len(a.shape) for a in arrays))(entry, arrays)

    def caller(self, in_ranks: tuple):
        """call(entry, arrays) for input arrays of these ranks (C-contiguous): (the results' descriptor words,
        the inputs' data pointers)."""
        return made_once(self._callers, ("caller", *in_ranks), lambda key: self._make_caller(tuple(in_ranks)))

    def layout(self, in_ranks: tuple) -> "FrameLayout":
        """The frame of a call with inputs of these ranks, and its buffers (one free list per layout)."""
        return made_once(self._callers, ("layout", *in_ranks), lambda key: FrameLayout(self, tuple(in_ranks)))

    def _make_caller(self, in_ranks: tuple):
        layout = self.layout(in_ranks)
        names = [f"a{i}" for i in range(len(in_ranks))]
        # straight-line code for these ranks: a generic loop over the arrays cost a microsecond more per call
        lines = ["def call(entry, arrays):"]
        if names:
            lines.append(f"    {', '.join(names)}, = arrays")
        lines += layout.call_lines(names, "    ")
        lines += ["    results = unpack_from(buffer)",
                  "    free.append((buffer, base))",
                  f"    return results, ({''.join(name + 'p, ' for name in names)})"]
        namespace = layout.namespace()
        exec("\n".join(lines), namespace)
        return namespace["call"]


class FrameLayout:
    """Where each word of a Frame's buffer goes for inputs of given ranks (Frame's doc), and the code that fills the
    buffer and calls the kernel (`call_lines`), shared by Frame's caller and the cheap call's generated run
    (runtime/call.py)."""

    def __init__(self, frame: Frame, in_ranks: tuple):
        self.in_ranks = in_ranks
        result_words = frame.result_words
        self.status = status = result_words        # the status word, right after the results: unpacked with them
        starts = [0] if frame.out_ranks else []
        words = status + 1
        for rank in in_ranks:
            starts.append(words)
            words += 3 + 2 * rank
        starts.append(words)         # the status word's descriptor: allocated, aligned, offset
        words += 3
        first_slot, n = words, len(starts)
        size = first_slot + 2 * n
        self.entry_offset = 8 * (first_slot + n)    # the packed entry point's argument: base + this
        pointer_offsets = [8 * start for start in starts] + [8 * (first_slot + i) for i in range(n)]
        pointers = struct.Struct(f"{2 * n}q")
        status_descriptor = struct.Struct("3q")
        self.free: list = []

        def new_buffer():
            buffer = np.zeros(size, np.int64)   # (the kernel stores 32 bits of the status word: the rest stays 0)
            base = data_pointer(buffer)
            pointers.pack_into(buffer, 8 * first_slot, *[base + offset for offset in pointer_offsets])
            status_descriptor.pack_into(buffer, 8 * starts[-1], base + 8 * status, base + 8 * status, 0)
            return buffer, base
        self.new_buffer = new_buffer
        self.pack_into = struct.Struct(f"{starts[-1] - status - 1}q").pack_into   # the input descriptors
        self.unpack_from = struct.Struct(f"{result_words + 1}q").unpack_from    # the results' words and the status

    def call_lines(self, names: list, indent: str, shapes: dict | None = None) -> list:
        """Lines that take a buffer, pack the descriptors of the arrays named `names` (C-contiguous, of this
        layout's ranks) and call `entry`, leaving `buffer` and `base` (given back to `free` by the caller's next
        lines) and `{name}p`, each array's data pointer. `shapes`: an expression for an array's shape, where it is
        known without reading it."""
        lines, fields = [], []
        for name, rank in zip(names, self.in_ranks):
            dims = [f"{name}s[{k}]" for k in range(rank)]
            strides = ["*".join(f"({d} or 1)" for d in dims[k + 1:]) or "1" for k in range(rank)]
            fields += [f"{name}p", f"{name}p", "0", *dims, *strides]
            lines.append(f"{indent}{name}p = {_POINTER.format(name)}")
            if rank:
                lines.append(f"{indent}{name}s = {(shapes or {}).get(name, name + '.shape')}")
        lines += [f"{indent}buffer, base = free.pop() if free else new_buffer()",
                  f"{indent}pack_into(buffer, {8 * (self.status + 1)}, {', '.join(fields)})" if fields else "",
                  f"{indent}entry(base + {self.entry_offset})"]
        return lines

    def namespace(self) -> dict:
        """The names `call_lines` and the lines around them use."""
        return {"free": self.free, "new_buffer": self.new_buffer, "read": _read_pointer,
                "data_pointer": data_pointer, "pack_into": self.pack_into, "unpack_from": self.unpack_from}


_release = _libc.free   # how _Owned gives its buffer back: `free`, or the cache of large buffers (result_cache.py)


def release_results_with(release) -> None:
    """From now on results give their buffers back through `release(pointer)` (None: `free`)."""
    global _release
    _release = release if release is not None else _libc.free


class _Owned:
    """Keeps a kernel-allocated buffer alive while a NumPy array views it; gives it back with the array (free, or
    the cache of large result buffers: result_cache.py)."""
    __slots__ = ("ptr", "__array_interface__")

    def __init__(self, ptr: int, data: int, shape: tuple, strides: tuple, typestr: str):
        self.ptr = ptr
        self.__array_interface__ = {"data": (data, False), "shape": shape, "strides": strides,
                                    "typestr": typestr, "version": 3}

    def __del__(self):
        _release(self.ptr)


def results_adopter(out_ranks: list, dtypes: list):
    """adopt(words, inputs): NumPy arrays for the results' descriptors (`words`, as Frame's call gives them). A
    buffer the kernel allocated is adopted by the first non-empty result that views it (freed with that array);
    later results that view it, results that view an input (`inputs`: their data pointers) or a constant are
    copied; a buffer only empty results view is freed."""
    outs, at = [], 0
    for rank, dtype in zip(out_ranks, dtypes):
        outs.append((at, at + 3, at + 3 + rank, at + 3 + 2 * rank, dtype, dtype.itemsize, dtype.str))
        at += 3 + 2 * rank

    def adopt(words, inputs) -> list:
        adopted: list = []
        arrays = []
        for at, sizes, strides, end, dtype, item, typestr in outs:
            allocated = words[at]
            data = words[at + 1] + words[at + 2] * item
            shape = words[sizes:strides]
            steps = tuple([s * item for s in words[strides:end]])
            if 0 in shape:
                arrays.append(np.empty(shape, dtype))
            elif allocated in inputs or allocated in adopted or allocated in (0, _DEADBEEF):
                arrays.append(np.asarray(_Borrowed(data, shape, steps, typestr)).copy())
            else:
                adopted.append(allocated)
                arrays.append(np.asarray(_Owned(allocated, data, shape, steps, typestr)))
        for at, _, _, _, _, _, _ in outs:
            allocated = words[at]
            if allocated not in adopted and allocated not in inputs and allocated not in (0, _DEADBEEF):
                adopted.append(allocated)   # freed once
                _libc.free(allocated)
        return arrays
    if len(outs) != 1:
        return adopt
    _, sizes, strides, end, _, item, typestr = outs[0]
    asarray = np.asarray

    def adopt_one(words, inputs) -> list:
        """The common case, one result in a buffer the kernel allocated, in fewer steps."""
        allocated = words[0]
        shape = words[sizes:strides]
        if allocated in inputs or allocated == 0 or allocated == _DEADBEEF or 0 in shape:
            return adopt(words, inputs)
        return [asarray(_Owned(allocated, words[1] + words[2] * item, shape,
                               tuple([s * item for s in words[strides:end]]), typestr))]
    return adopt_one


class _Borrowed:
    __slots__ = ("__array_interface__",)

    def __init__(self, data, shape, strides, typestr):
        self.__array_interface__ = {"data": (data, True), "shape": shape, "strides": strides,
                                    "typestr": typestr, "version": 3}
