"""Shape primitives: expand_shape/collapse_shape/reshape for views, linalg.transpose, insert_slice for
concatenation, linalg.fill for constant arrays, and index-driven linalg.generic for arange, tri, eye, triu/tril."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..types.shapes import data_sized
from . import scalar
from .emitter import Emitter, emitter
from .indexing import mixed, sizes_mixed


@emitter("expand_dims")
def _expand_dims(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    inserted = set(e.params["axes"])
    groups, current = [], []
    source_dims = [i for i in range(out.ndim) if i not in inserted]
    # each source dim takes the inserted 1-dims before it; trailing ones join the last group
    for i in range(out.ndim):
        current.append(i)
        if i in source_dims:
            groups.append(current)
            current = []
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups = []  # a 0-d source: no groups at all
    dyn = ir.ShapedType.get_dynamic_size()
    static = [d if isinstance(d, int) else dyn for d in (em.program.env.find(d) for d in out.shape)]
    dynamic = [em.size(d) for d, s in zip(out.shape, static) if s == dyn]
    return [tensor.expand_shape(em.tensor_type(out), em[x], _reassociation(groups), dynamic, static)]


@emitter("flatten")
def _flatten(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    return [tensor.collapse_shape(em.tensor_type(out), em[x], _reassociation([list(range(x.ndim))]))]


@emitter("dim_size")
def _dim_size(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    size = tensor.dim(em[x], arith.constant(ir.IndexType.get(), e.params["axis"]))
    value = arith.index_cast(ir.IntegerType.get_signless(64), size)
    return [tensor.from_elements(em.tensor_type(out), [value])]


@emitter("size_value")
def _size_value(em: Emitter, e):
    """A dim of the program as a 0-d int64 (the kernel compares sizes only it can compute)."""
    value = arith.index_cast(ir.IntegerType.get_signless(64), em.size(e.params["dim"]))
    return [tensor.from_elements(em.tensor_type(e.outputs[0]), [value])]


def _reassociation(groups) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g]) for g in groups])


@emitter("transpose")
def _transpose(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    if tuple(e.params["perm"]) == tuple(range(x.ndim)):
        return [em[x]]       # a view that changes nothing (shape_ops.same_view): the same tensor
    return [linalg.transpose(em[x], outs=[em.empty(out)], permutation=list(e.params["perm"])).results[0]]


@emitter("reshape")
def _reshape(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    index = ir.IndexType.get()
    sizes = [em.size(d) for d in out.shape]
    shape = tensor.from_elements(ir.RankedTensorType.get([len(sizes)], index), sizes)
    return [tensor.reshape(em.tensor_type(out), em[x], shape)]


@emitter("squeeze")
def _squeeze(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    dropped = set(e.params["axes"])
    groups, pending = [], []
    for i in range(x.ndim):
        pending.append(i)
        if i not in dropped:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    return [tensor.collapse_shape(em.tensor_type(out), em[x], _reassociation(groups))]


@emitter("concat")
def _concat(em: Emitter, e):
    out, axis = e.outputs[0], e.params["axis"]
    result = em.empty(out)
    offset = arith.constant(ir.IndexType.get(), 0)
    env = em.program.env
    if any(env.find(d) == 0 for d in out.shape):
        return [result]                 # statically empty: nothing to insert (and offsets may equal the size)
    for x in e.inputs:
        if any(env.find(d) == 0 for d in x.shape):
            continue                    # an empty operand adds nothing
        sizes = [d if isinstance(d, int) else em.size(d) for d in (env.find(d) for d in x.shape)]
        offsets = [offset if i == axis else 0 for i in range(x.ndim)]
        dyn_off, st_off = mixed(offsets)
        dyn_sz, st_sz = sizes_mixed(sizes)
        result = tensor.insert_slice(em[x], result, dyn_off, dyn_sz, [], st_off, st_sz, [1] * x.ndim)
        offset = arith.addi(offset, em.size(x.shape[axis]))
    return [result]


@emitter("full")
def _full(em: Emitter, e):
    if e.params.get("never_read"):
        # a stand-in on a path that never reads it, for an array sized by the data that may not fit, or with a size
        # that only the other path defines (a joined value's own, control.join_shapes): no elements
        out = e.outputs[0]
        sizes = [d if isinstance(d, int) else arith.constant(ir.IndexType.get(), 0)
                 if data_sized(d) or not em.available(d) else em.size(d)
                 for d in (em.program.env.find(d) for d in out.shape)]
        return [tensor.empty(sizes, scalar.storage_type(out.dtype))]
    value = tensor.extract(em[e.inputs[0]], [])
    return [linalg.fill(value, outs=[em.empty(e.outputs[0])])]


def _index_generic(em: Emitter, out, inputs, body):
    """A linalg.generic over `out`'s shape whose body sees the loop indices (and the inputs' elements)."""
    rank = out.ndim
    maps = [ir.AffineMap.get_identity(rank)] * (len(inputs) + 1)
    op = linalg.GenericOp_(inputs=[em[v] for v in inputs], outputs=[em.empty(out)], indexing_maps=maps,
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        idx = [linalg.IndexOp(d).result for d in range(rank)]
        args = [scalar.load(a, v.dtype) for a, v in zip(block.arguments, inputs)]
        linalg.YieldOp([scalar.store(body(idx, args), out.dtype)])
    return op.result


@emitter("arange")
def _arange(em: Emitter, e):
    out = e.outputs[0]
    start, step = e.params["start"], e.params["step"]
    i64 = np.dtype(np.int64)

    def body(idx, _):
        i = arith.index_cast(scalar.mlir_type(i64), idx[0])
        if out.dtype.kind == "f":
            fi = scalar.convert(i, i64, out.dtype)
            return arith.addf(scalar.const(out.dtype, start), arith.mulf(fi, scalar.const(out.dtype, step)))
        v = arith.addi(arith.constant(i.type, int(start)), arith.muli(i, arith.constant(i.type, int(step))))
        return scalar.convert(v, i64, out.dtype)
    return [_index_generic(em, out, [], body)]


def _diagonal_offset(idx):
    """j - i for the last two loop indices, as i64."""
    i64 = ir.IntegerType.get_signless(64)
    return arith.subi(arith.index_cast(i64, idx[-1]), arith.index_cast(i64, idx[-2]))


def _diagonal_k(em: Emitter, e, operand: int):
    """The diagonal offset k as an i64: the static param, or the run-time int64 operand (read before the loop)."""
    if e.params["k"] is None:
        return tensor.extract(em[e.inputs[operand]], [])
    return arith.constant(ir.IntegerType.get_signless(64), e.params["k"])


@emitter("tri")
def _tri(em: Emitter, e):
    out, mode = e.outputs[0], e.params["mode"]
    pred = arith.CmpIPredicate.sle if mode == "tri" else arith.CmpIPredicate.eq
    k_value = _diagonal_k(em, e, 0)

    def body(idx, _):
        keep = arith.cmpi(pred, _diagonal_offset(idx), k_value)
        return arith.select(keep, scalar.const(out.dtype, 1), scalar.const(out.dtype, 0))
    return [_index_generic(em, out, [], body)]


@emitter("triangle")
def _triangle(em: Emitter, e):
    x, out, mode = e.inputs[0], e.outputs[0], e.params["mode"]
    pred = arith.CmpIPredicate.sle if mode == "tril" else arith.CmpIPredicate.sge
    k_value = _diagonal_k(em, e, 1)

    def body(idx, args):
        keep = arith.cmpi(pred, _diagonal_offset(idx), k_value)
        return arith.select(keep, args[0], scalar.const(out.dtype, 0))
    return [_index_generic(em, out, [x], body)]
