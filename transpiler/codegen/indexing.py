"""Indexing primitives: basic slices (tensor.extract_slice), gathers and index checks (linalg.generic reading
with tensor.extract at clamped indices, so no read is ever out of bounds; the check flag makes the caller raise)."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from . import scalar
from ..types.shapes import nonnegative
from .emitter import Emitter, emitter

I = arith.CmpIPredicate


def index_const(v: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), v)


def to_index(em: Emitter, var) -> ir.Value:
    """A 0-d integer tensor's value as an index."""
    value = tensor.extract(em[var], [])
    return arith.index_cast(ir.IndexType.get(), value) if var.dtype.kind == "i" else \
        arith.index_castui(ir.IndexType.get(), value)


def normalize(i: ir.Value, n: ir.Value) -> ir.Value:
    """Python's negative index (i + n when i < 0), then clamped into [0, n - 1] so that a read stays in bounds."""
    zero = index_const(0)
    i = arith.select(arith.cmpi(I.slt, i, zero), arith.addi(i, n), i)
    last = arith.maxsi(arith.subi(n, index_const(1)), zero)
    return arith.minsi(arith.maxsi(i, zero), last)


def in_range(i: ir.Value, n: ir.Value) -> ir.Value:
    """-n <= i < n: an index NumPy accepts (an i1)."""
    low = arith.cmpi(I.sge, i, arith.subi(index_const(0), n))
    return arith.andi(low, arith.cmpi(I.slt, i, n))


def mixed(values):
    """(dynamic operands, static attribute list) for the mixed static/dynamic operands of slice ops."""
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    dynamic = [v for v in values if isinstance(v, ir.Value)]
    static = [v if isinstance(v, int) else dyn for v in values]
    return dynamic, static


def sizes_mixed(values):
    dyn = ir.ShapedType.get_dynamic_size()
    return [v for v in values if isinstance(v, ir.Value)], [v if isinstance(v, int) else dyn for v in values]


def _statically_empty(em: Emitter, *values) -> bool:
    """Whether any of these arrays has a size known to be 0 while compiling: a write into or of it stores nothing,
    and MLIR's verifier refuses a slice at any static offset into a static size of 0 (an internal error)."""
    return any(em.program.env.find(d) == 0 for v in values for d in v.shape)


@emitter("slice")
def _slice(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    if any(em.program.env.find(d) == 0 for d in out.shape):   # statically empty: nothing to read (and offsets may be n)
        return [em.empty(out)]
    if any(em.program.env.find(d) == 0 for d in x.shape):
        # a statically empty source: the slice is empty too (an int index into the empty axis is an IndexError,
        # checked); MLIR's verifier refuses even offset 0 into a static size of 0 where the size is dynamic
        return [em.empty(out)]
    offsets, sizes, strides, reversed_axes, kept = _geometry(em, x, e.params["specs"], e.inputs)
    if not kept and em.in_region:      # one element in a loop body or branch: a scalar read
        element = tensor.extract(em[x], [_as_value(o) for o in offsets])
        return [tensor.from_elements(em.tensor_type(out), [element])]
    dyn_off, st_off = mixed(offsets)
    dyn_sz, st_sz = sizes_mixed(sizes)
    dyn_st, st_st = mixed(strides)
    value = tensor.extract_slice(em.tensor_type(out), em[x], dyn_off, dyn_sz, dyn_st, st_off, st_sz, st_st)
    for axis in reversed_axes:
        value = reverse(em, value, out, *_reversal(axis, kept))
    return [value]


@emitter("update_slice")
def _update_slice(em: Emitter, e):
    """x with x[specs] replaced by `value` (the inverse of `slice`): tensor.insert_slice, or tensor.insert for one
    element, which bufferization turns into stores into x's memory. With `unless_failed`, the last input is a flag
    (a check before the write failed: frontend/kept_writes.py) under which the region keeps its contents."""
    x, value = e.inputs[0], e.inputs[1]
    if any(em.program.env.find(d) == 0 for d in value.shape):
        return [em[x]]
    indices = e.inputs[2:-1] if e.params.get("unless_failed") else e.inputs[2:]
    operands = [x] + list(indices)    # index_var positions count from x, as in `slice`
    offsets, sizes, strides, reversed_axes, kept = _geometry(em, x, e.params["specs"], operands)
    valid = _indices_valid(em, x, e.params["specs"], operands)
    if e.params.get("unless_failed"):
        not_failed = arith.xori(condition(em, e.inputs[-1]), arith.constant(ir.IntegerType.get_signless(1), 1))
        valid = not_failed if valid is None else arith.andi(valid, not_failed)
    dyn_off, st_off = mixed(offsets)
    dyn_sz, st_sz = sizes_mixed(sizes)
    dyn_st, st_st = mixed(strides)
    if not kept:
        offsets = [_as_value(o) for o in offsets]
        element = tensor.extract(em[value], [])
        if valid is not None:    # an index out of range (IndexError after the call) writes nothing
            element = arith.select(valid, element, tensor.extract(em[x], offsets))
        return [tensor.insert(element, em[x], offsets)]
    source = em[value]
    for axis in reversed_axes:
        source = reverse(em, source, value, *_reversal(axis, kept))
    if valid is not None:
        current = tensor.extract_slice(source.type, em[x], dyn_off, dyn_sz, dyn_st, st_off, st_sz, st_st)
        source = arith.select(valid, source, current)
    return [tensor.insert_slice(source, em[x], dyn_off, dyn_sz, dyn_st, st_off, st_sz, st_st)]


def _indices_valid(em: Emitter, x, specs, operands):
    """Whether the run-time integer indices of `specs` are all in range (None when there are none)."""
    valid = None
    for axis, spec in enumerate(specs):
        if spec[0] == "index_var" and not spec[2]:
            ok = in_range(to_index(em, operands[spec[1]]), em.size(x.shape[axis]))
            valid = ok if valid is None else arith.andi(valid, ok)
    return valid


def _geometry(em: Emitter, x, specs, operands):
    """Offsets, sizes and strides of the region `specs` selects in x; axes read backwards (a negative step) are
    selected forwards and listed to be reversed; `kept` are the axes that stay in the result."""
    env = em.program.env
    offsets, sizes, strides, reversed_axes = [], [], [], []
    for axis, spec in enumerate(specs):
        n = env.find(x.shape[axis])
        kind = spec[0]
        if kind == "all":
            offsets.append(0)
            sizes.append(n if isinstance(n, int) else em.size(n))
            strides.append(1)
        elif kind == "range":
            _, start, length, step = spec
            if env.find(length) == 0:  # an empty slice may start at n, which the verifier rejects
                offsets.append(0)
                strides.append(1)
            elif isinstance(step, int) and step < 0:  # read forward, then reverse below
                start = _static_or_value(em, start)
                first = arith.subi(_as_value(start), arith.muli(arith.subi(_as_value(_static_or_value(em, length)),
                                                                            index_const(1)), index_const(-step)))
                offsets.append(first)
                strides.append(-step)
                reversed_axes.append(axis)
            elif not nonnegative(step):    # a run-time step of either sign: the lowest element first, then
                k = em.size(step)           # reversed in the kernel when k < 0
                size = em.size(length)
                zero = index_const(0)
                negative = arith.cmpi(I.slt, k, zero)
                low = arith.addi(em.size(start), arith.muli(arith.subi(size, index_const(1)), k))
                low = arith.select(arith.cmpi(I.eq, size, zero), zero, low)     # empty: anywhere in bounds
                offsets.append(arith.select(negative, low, em.size(start)))
                strides.append(arith.select(negative, arith.subi(zero, k), k))
                reversed_axes.append((axis, negative))
            else:
                offsets.append(_static_or_value(em, start))
                strides.append(_static_or_value(em, step))      # a run-time step is a Sym
            sizes.append(_static_or_value(em, length))
        else:
            size_n = em.size(n)
            if kind == "index":
                i = spec[1]
                offsets.append(i if isinstance(n, int) and i >= 0 else normalize(index_const(i), size_n))
            elif spec[2]:          # proven in range by the frontend
                offsets.append(to_index(em, operands[spec[1]]))
            else:
                offsets.append(normalize(to_index(em, operands[spec[1]]), size_n))
            sizes.append(1)
            strides.append(1)
    kept = [i for i, s in enumerate(specs) if s[0] not in ("index", "index_var")]
    return offsets, sizes, strides, reversed_axes, kept


def _static_or_value(em: Emitter, d):
    d = em.program.env.find(d)
    return d if isinstance(d, int) else em.size(d)


def _as_value(v):
    return v if isinstance(v, ir.Value) else index_const(v)


def _reversal(axis, kept) -> tuple:
    """(the result's axis, the condition or None) of a reversed axis of _geometry: an axis, or (axis, i1 value)."""
    axis, when = axis if isinstance(axis, tuple) else (axis, None)
    return kept.index(axis), when


def reverse(em: Emitter, value: ir.Value, out, axis: int, when: ir.Value | None = None) -> ir.Value:
    """Reverse `value` along `axis` (a generic reading value[..., n - 1 - i, ...]); with `when` (an i1), only when it
    holds at run time."""
    rank = out.ndim
    init = em.empty(out)
    op = linalg.GenericOp_(inputs=[], outputs=[init], indexing_maps=[ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        idx = [linalg.IndexOp(d).result for d in range(rank)]
        n = tensor.dim(value, index_const(axis))
        back = arith.subi(arith.subi(n, index_const(1)), idx[axis])
        idx[axis] = back if when is None else arith.select(when, back, idx[axis])
        linalg.YieldOp([tensor.extract(value, idx)])
    return op.result


@emitter("gather")
def _gather(em: Emitter, e):
    x, ids = e.inputs
    out = e.outputs[0]
    axis = e.params["axis"]
    rank, k = out.ndim, ids.ndim
    n = em.size(x.shape[axis])   # before the op: a static size's constant must dominate the body that reads it
    ids_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis + i) for i in range(k)])
    op = linalg.GenericOp_(inputs=[em[ids]], outputs=[em.empty(out)],
                           indexing_maps=[ids_map, ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        raw = block.arguments[0]
        i = arith.index_cast(ir.IndexType.get(), raw) if ids.dtype.kind == "i" or ids.dtype == np.uint64 else \
            arith.index_castui(ir.IndexType.get(), raw)
        loop = [linalg.IndexOp(d).result for d in range(rank)]
        source_index = loop[:axis] + [normalize(i, n)] + loop[axis + k:]
        linalg.YieldOp([tensor.extract(em[x], source_index)])
    return [op.result]


def _as_index(raw: ir.Value, dtype) -> ir.Value:
    """An id read from an index array as an index (uint64 wraps, as NumPy's cast to intp)."""
    return arith.index_cast(ir.IndexType.get(), raw) if dtype.kind == "i" or dtype == np.uint64 else \
        arith.index_castui(ir.IndexType.get(), raw)


@emitter("gather_nd")
def _gather_nd(em: Emitter, e):
    """x[..., ids_0, ..., ids_k-1, ...] over k consecutive axes from `axis`, the ids broadcast to one shape B:
    out[pre, b, post] = x[pre, ids_0[b], ..., ids_k-1[b], post], each id normalized and clamped (checked before)."""
    x, ids = e.inputs[0], e.inputs[1:]
    out = e.outputs[0]
    axis, k = e.params["axis"], len(ids)
    rank, kb = out.ndim, ids[0].ndim
    sizes = [em.size(x.shape[axis + j]) for j in range(k)]
    ids_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis + i) for i in range(kb)])
    op = linalg.GenericOp_(inputs=[em[i] for i in ids], outputs=[em.empty(out)],
                           indexing_maps=[ids_map] * k + [ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        loop = [linalg.IndexOp(d).result for d in range(rank)]
        picked = [normalize(_as_index(block.arguments[j], ids[j].dtype), sizes[j]) for j in range(k)]
        linalg.YieldOp([tensor.extract(em[x], loop[:axis] + picked + loop[axis + kb:])])
    return [op.result]


@emitter("scatter_nd")
def _scatter_nd(em: Emitter, e):
    """x[..., ids_0, ..., ids_k-1, ...] = v over k consecutive axes from `axis` (ids broadcast to one shape B, v of
    shape pre + B + post): loops over B in C order storing one block of v per position, so a repeated position keeps
    the last value, as in NumPy. Nothing is stored when any id is out of range (`bad`: IndexError after the call)."""
    x, v, bad = e.inputs[:3]
    ids = e.inputs[3:]
    if _statically_empty(em, x, v):
        return [em[x]]
    axis, k = e.params["axis"], len(ids)
    kb = ids[0].ndim
    x_sizes = [em.size(d) for d in x.shape]
    b_sizes = [em.size(d) for d in ids[0].shape]
    pre, post = x_sizes[:axis], x_sizes[axis + k:]

    def nest(level, indices, acc):
        if level == kb:
            picked = [normalize(_as_index(tensor.extract(em[i], indices), i.dtype), x_sizes[axis + j])
                      for j, i in enumerate(ids)]
            return _copy_block(em, em[v], [0] * axis + indices + [0] * len(post), pre + [1] * kb + post, acc,
                               [0] * axis + picked + [0] * len(post), pre + [1] * k + post, len(pre) + len(post))
        count = b_sizes[level]
        if level == 0:
            count = arith.select(condition(em, bad), index_const(0), count)
        loop = scf.ForOp(index_const(0), count, index_const(1), [acc])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([nest(level + 1, indices + [loop.induction_variable], loop.inner_iter_args[0])])
        return loop.results[0]

    return [nest(0, [], em[x])]


@emitter("index_check")
def _index_check(em: Emitter, e):
    """True when any id is outside [-n, n): a reduction over all the ids into one flag."""
    ids, out = e.inputs[0], e.outputs[0]
    n = em.size(e.params["n"])
    if not ids.shape and em.in_region:     # one id in a loop body or branch: scalar code
        v = tensor.extract(em[ids], [])
        i64 = ir.IntegerType.get_signless(64)
        v = scalar.convert(v, ids.dtype, np.dtype(np.int64)) if ids.dtype != np.int64 else v
        n64 = arith.index_cast(i64, n)
        bad = arith.ori(arith.cmpi(I.slt, v, arith.subi(arith.constant(i64, 0), n64)), arith.cmpi(I.sge, v, n64))
        return [tensor.from_elements(em.tensor_type(out), [arith.extui(ir.IntegerType.get_signless(8), bad)])]
    flag = linalg.fill(scalar.const_stored(np.dtype(bool), 0), outs=[em.empty(out)])
    rank = ids.ndim
    op = linalg.GenericOp_(inputs=[em[ids]], outputs=[flag],
                           indexing_maps=[ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [])],
                           iterator_types=[linalg.IteratorType.reduction] * rank)
    block = op.regions[0].blocks[0]
    i64 = ir.IntegerType.get_signless(64)
    with ir.InsertionPoint(block):
        raw, acc = block.arguments
        # NumPy casts ids to intp (same_kind): uint64 values wrap (2**64 - 1 is -1, the last element)
        v = scalar.convert(raw, ids.dtype, np.dtype(np.int64)) if ids.dtype != np.int64 else raw
        n64 = arith.index_cast(i64, n)
        low = arith.cmpi(I.slt, v, arith.subi(arith.constant(i64, 0), n64))
        high = arith.cmpi(I.sge, v, n64)
        bad = arith.extui(ir.IntegerType.get_signless(8), arith.ori(low, high))
        linalg.YieldOp([arith.ori(acc, bad)])
    return [op.result]


@emitter("scatter")
def _scatter(em: Emitter, e):
    """x[..., ids, ...] = v along one axis: a loop over the ids, in order (a repeated id keeps the last value, as
    in NumPy), each storing one slice of v. When any id is out of range (`bad`, the index_check flag: IndexError
    after the call) the loop runs zero times: NumPy checks every id before it writes."""
    x, ids, v, bad = e.inputs
    if _statically_empty(em, x, v):
        return [em[x]]
    axis = e.params["axis"]
    n = em.size(x.shape[axis])
    count = arith.select(condition(em, bad), index_const(0), em.size(ids.shape[0]))
    x_sizes = [em.size(d) for d in x.shape]
    loop = scf.ForOp(index_const(0), count, index_const(1), [em[x]])
    with ir.InsertionPoint(loop.body):
        k = loop.induction_variable
        raw = tensor.extract(em[ids], [k])
        raw = arith.index_cast(ir.IndexType.get(), raw) if ids.dtype.kind == "i" else \
            arith.index_castui(ir.IndexType.get(), raw)
        sizes = [1 if a == axis else s for a, s in enumerate(x_sizes)]
        stored = _copy_block(em, em[v], _along(axis, k, x.ndim), sizes, loop.inner_iter_args[0],
                             _along(axis, normalize(raw, n), x.ndim), sizes, x.ndim - 1)
        scf.YieldOp([stored])
    return [loop.results[0]]


@emitter("masked_scatter")
def _masked_scatter(em: Emitter, e):
    """x[mask] = v: loops over the mask's dims in C order, storing v's next row at each set element. Nothing is
    stored when the counts differ (`bad`: ValueError after the call), as NumPy checks before it writes."""
    x, mask, v, bad = e.inputs
    if _statically_empty(em, x):
        return [em[x]]
    count_ok = arith.xori(condition(em, bad), arith.constant(ir.IntegerType.get_signless(1), 1))
    k, rank = mask.ndim, x.ndim
    x_sizes = [em.size(d) for d in x.shape]
    row_sizes = x_sizes[k:]

    def nest(axis, indices, acc, counter):
        if axis == k:
            flag = tensor.extract(em[mask], indices)
            selected = arith.andi(arith.cmpi(I.ne, flag, arith.constant(flag.type, 0)), count_ok)
            branch = scf.IfOp(selected, [acc.type, counter.type], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                row = arith.index_cast(ir.IndexType.get(), counter)
                stored = _copy_block(em, em[v], [row] + [0] * (rank - k), [1] + row_sizes, acc,
                                     list(indices) + [0] * (rank - k), [1] * k + row_sizes, rank - k)
                scf.YieldOp([stored, arith.addi(counter, arith.constant(counter.type, 1))])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([acc, counter])
            return branch.results[0], branch.results[1]
        loop = scf.ForOp(index_const(0), x_sizes[axis], index_const(1), [acc, counter])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp(list(nest(axis + 1, indices + [loop.induction_variable], *loop.inner_iter_args)))
        return loop.results[0], loop.results[1]

    result, _ = nest(0, [], em[x], arith.constant(ir.IntegerType.get_signless(64), 0))
    return [result]


def condition(em: Emitter, v) -> ir.Value:
    """A 0-d bool tensor (bytes in memory: a check flag, an if's condition) as an i1."""
    byte = tensor.extract(em[v], [])
    return arith.cmpi(I.ne, byte, arith.constant(byte.type, 0))


def _along(axis: int, i, rank: int) -> list:
    """Offsets that are `i` on `axis` and 0 elsewhere."""
    return [i if a == axis else 0 for a in range(rank)]


def _copy_block(em: Emitter, source, src_offsets, src_sizes, dest, dst_offsets, dst_sizes, rank: int):
    """`dest` with its block at `dst_offsets` (sizes `dst_sizes`, unit dims dropped: `rank` dims left) replaced by
    the block of `source` at `src_offsets` (sizes `src_sizes`, the same once unit dims are dropped)."""
    if rank == 0:
        element = tensor.extract(source, [_as_value(o) for o in src_offsets])
        return tensor.insert(element, dest, [_as_value(o) for o in dst_offsets])
    piece_type = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * rank,
                                         ir.RankedTensorType(source.type).element_type)
    dyn_src, st_src = mixed(src_offsets)
    dyn_ssz, st_ssz = sizes_mixed(src_sizes)
    piece = tensor.extract_slice(piece_type, source, dyn_src, dyn_ssz, [], st_src, st_ssz, [1] * len(src_sizes))
    dyn_dst, st_dst = mixed(dst_offsets)
    dyn_dsz, st_dsz = sizes_mixed(dst_sizes)
    return tensor.insert_slice(piece, dest, dyn_dst, dyn_dsz, [], st_dst, st_dsz, [1] * len(dst_sizes))


@emitter("nonzero")
def _nonzero(em: Emitter, e):
    """The positions of a mask's set elements in C order: one int64 array per mask dim, or (`flat`) one of flat
    positions. Their length is `count` (the frontend's sum of the mask), so the loop fills them exactly: it runs
    over the mask and stores the position of each set element at the next slot."""
    mask, _count = e.inputs
    flat, rank = e.params["flat"], mask.ndim
    i64 = ir.IntegerType.get_signless(64)
    sizes = [em.size(d) for d in mask.shape]
    outs = [em.empty(v) for v in e.outputs]

    def store(indices, acc, slot):
        if flat:
            linear = indices[0]
            for i, n in zip(indices[1:], sizes[1:]):
                linear = arith.addi(arith.muli(linear, n), i)
            values = [linear]
        else:
            values = indices
        return [tensor.insert(arith.index_cast(i64, v), a, [slot]) for v, a in zip(values, acc)]

    def nest(axis, indices, acc, slot):
        if axis == rank:
            selected = arith.cmpi(I.ne, tensor.extract(em[mask], indices), scalar.const_stored(mask.dtype, 0))
            branch = scf.IfOp(selected, [a.type for a in acc] + [slot.type], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp(store(indices, acc, slot) + [arith.addi(slot, index_const(1))])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp(list(acc) + [slot])
            results = list(branch.results)
            return results[:-1], results[-1]
        loop = scf.ForOp(index_const(0), sizes[axis], index_const(1), list(acc) + [slot])
        with ir.InsertionPoint(loop.body):
            inner = list(loop.inner_iter_args)
            acc_out, slot_out = nest(axis + 1, indices + [loop.induction_variable], inner[:-1], inner[-1])
            scf.YieldOp(list(acc_out) + [slot_out])
        results = list(loop.results)
        return results[:-1], results[-1]

    results, _ = nest(0, [], outs, index_const(0))
    return results
