"""Indexing primitives: basic slices (tensor.extract_slice), gathers and index checks (linalg.generic reading
with tensor.extract at clamped indices, so no read is ever out of bounds; the check flag makes the caller raise)."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from . import scalar
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


def mixed(values):
    """(dynamic operands, static attribute list) for the mixed static/dynamic operands of slice ops."""
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    dynamic = [v for v in values if isinstance(v, ir.Value)]
    static = [v if isinstance(v, int) else dyn for v in values]
    return dynamic, static


def sizes_mixed(values):
    dyn = ir.ShapedType.get_dynamic_size()
    return [v for v in values if isinstance(v, ir.Value)], [v if isinstance(v, int) else dyn for v in values]


@emitter("slice")
def _slice(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    env = em.program.env
    if any(env.find(d) == 0 for d in out.shape):   # statically empty: nothing to read (and offsets may be n)
        return [em.empty(out)]
    offsets, sizes, strides, reversed_axes = [], [], [], []
    for axis, spec in enumerate(e.params["specs"]):
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
            elif step < 0:  # read forward, then reverse below
                start = _static_or_value(em, start)
                first = arith.subi(_as_value(start), arith.muli(arith.subi(_as_value(_static_or_value(em, length)),
                                                                            index_const(1)), index_const(-step)))
                offsets.append(first)
                strides.append(-step)
                reversed_axes.append(axis)
            else:
                offsets.append(_static_or_value(em, start))
                strides.append(step)
            sizes.append(_static_or_value(em, length))
        else:
            size_n = em.size(n)
            if kind == "index":
                i = spec[1]
                offsets.append(i if isinstance(n, int) and i >= 0 else normalize(index_const(i), size_n))
            else:
                offsets.append(normalize(to_index(em, e.inputs[spec[1]]), size_n))
            sizes.append(1)
            strides.append(1)
    kept = [i for i, s in enumerate(e.params["specs"]) if s[0] not in ("index", "index_var")]
    result_type = em.tensor_type(out)
    dyn_off, st_off = mixed(offsets)
    dyn_sz, st_sz = sizes_mixed(sizes)
    dyn_st, st_st = mixed(strides)
    value = tensor.extract_slice(result_type, em[x], dyn_off, dyn_sz, dyn_st, st_off, st_sz, st_st)
    for axis in reversed_axes:
        value = reverse(em, value, out, kept.index(axis))
    return [value]


def _static_or_value(em: Emitter, d):
    d = em.program.env.find(d)
    return d if isinstance(d, int) else em.size(d)


def _as_value(v):
    return v if isinstance(v, ir.Value) else index_const(v)


def reverse(em: Emitter, value: ir.Value, out, axis: int) -> ir.Value:
    """Reverse `value` along `axis` (a generic reading value[..., n - 1 - i, ...])."""
    rank = out.ndim
    init = em.empty(out)
    op = linalg.GenericOp_(inputs=[], outputs=[init], indexing_maps=[ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        idx = [linalg.IndexOp(d).result for d in range(rank)]
        n = tensor.dim(value, index_const(axis))
        idx[axis] = arith.subi(arith.subi(n, index_const(1)), idx[axis])
        linalg.YieldOp([tensor.extract(value, idx)])
    return op.result


@emitter("gather")
def _gather(em: Emitter, e):
    x, ids = e.inputs
    out = e.outputs[0]
    axis = e.params["axis"]
    rank, k = out.ndim, ids.ndim
    ids_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis + i) for i in range(k)])
    op = linalg.GenericOp_(inputs=[em[ids]], outputs=[em.empty(out)],
                           indexing_maps=[ids_map, ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    n = em.size(x.shape[axis])
    with ir.InsertionPoint(block):
        raw = block.arguments[0]
        i = arith.index_cast(ir.IndexType.get(), raw) if ids.dtype.kind == "i" or ids.dtype == np.uint64 else \
            arith.index_castui(ir.IndexType.get(), raw)
        loop = [linalg.IndexOp(d).result for d in range(rank)]
        source_index = loop[:axis] + [normalize(i, n)] + loop[axis + k:]
        linalg.YieldOp([tensor.extract(em[x], source_index)])
    return [op.result]


@emitter("index_check")
def _index_check(em: Emitter, e):
    """True when any id is outside [-n, n): a reduction over all the ids into one flag."""
    ids, out = e.inputs[0], e.outputs[0]
    n = em.size(e.params["n"])
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
