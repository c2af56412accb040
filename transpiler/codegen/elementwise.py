"""Elementwise primitives -> linalg.generic whose indexing maps encode NumPy broadcasting; constants."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from . import complex_scalar, scalar
from .emitter import Emitter, emitter


def broadcast_map(operand_shape, result_shape) -> ir.AffineMap:
    """Right-aligned dims; an operand dim of static size 1 against a larger result dim reads index 0."""
    rank = len(result_shape)
    offset = rank - len(operand_shape)
    exprs = []
    for i, d in enumerate(operand_shape):
        if d == 1 and result_shape[offset + i] != 1:
            exprs.append(ir.AffineConstantExpr.get(0))
        else:
            exprs.append(ir.AffineDimExpr.get(offset + i))
    return ir.AffineMap.get(rank, 0, exprs)


def elementwise(em: Emitter, inputs, out, body, values=None) -> ir.Value:
    """A linalg.generic computing `body(scalars)` for each element of `out`'s shape (bools as i1 inside).
    `inputs` give dtypes and shapes; their tensors are `values`, by default the Vars' own."""
    values = values if values is not None else [em[v] for v in inputs]
    if not out.shape and em.in_region:   # one element in a loop body or branch: scalar code, no 0-d buffer
        scalars = [scalar.load(tensor.extract(t, []), v.dtype) for t, v in zip(values, inputs)]
        return tensor.from_elements(em.tensor_type(out), [scalar.store(body(scalars), out.dtype)])
    init = em.empty(out)
    find = em.program.env.find      # a dim found to be 1 after the operation was typed (shapes.broadcast)
    maps = [broadcast_map([find(d) for d in v.shape], [find(d) for d in out.shape]) for v in inputs] \
        + [ir.AffineMap.get_identity(len(out.shape))]
    op = linalg.GenericOp_(inputs=values, outputs=[init], indexing_maps=maps,
                           iterator_types=[linalg.IteratorType.parallel] * len(out.shape))
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        scalars = [scalar.load(a, v.dtype) for a, v in zip(block.arguments, inputs)]
        linalg.YieldOp([scalar.store(body(scalars), out.dtype)])
    return op.result


@emitter(*(set(scalar.UNARY) | set(complex_scalar.UNARY)), *(set(scalar.BINARY) | set(complex_scalar.BINARY)),
         *scalar.TERNARY)
def _elementwise(em: Emitter, e):
    dts = [v.dtype for v in e.inputs]
    if e.prim == "mul" and dts[0].kind == "c" and all(v.scalar or v.weak for v in e.inputs):
        # NumPy scalars multiply in its scalar code, without the fused multiply-adds of its array loop
        return [elementwise(em, e.inputs, e.outputs[0], lambda args: complex_scalar.mul(dts[0], *args, fused=False))]
    return [elementwise(em, e.inputs, e.outputs[0], lambda args: scalar.apply(e.prim, dts, args))]


@emitter("int_overflows")
def _int_overflows(em: Emitter, e):
    return [elementwise(em, e.inputs, e.outputs[0], lambda args: scalar.int_overflows(e.params["op"], args))]


@emitter("convert")
def _convert(em: Emitter, e):
    src, dst = e.inputs[0].dtype, e.outputs[0].dtype
    return [elementwise(em, e.inputs, e.outputs[0], lambda args: scalar.convert(args[0], src, dst))]


@emitter("ipow")
def _ipow(em: Emitter, e):
    dt, k = e.inputs[0].dtype, e.params["exponent"]
    if dt.kind == "c":
        return [elementwise(em, e.inputs, e.outputs[0], lambda args: complex_scalar.ipow(dt, args[0], k))]
    return [elementwise(em, e.inputs, e.outputs[0], lambda args: scalar.ipow(dt, args[0], k))]


@emitter("const")
def _const(em: Emitter, e):
    value: np.ndarray = e.params["value"]
    t = em.tensor_type(e.outputs[0])
    if value.dtype.kind == "c":
        return [arith.constant(t, _complex_dense(value, t))]
    if value.size == 1 or value.size and np.array_equal(value, np.full_like(value, value.flat[0]), equal_nan=True):
        attr = ir.DenseElementsAttr.get_splat(t, _scalar_attr(value.dtype, value.flat[0]))
    else:
        attr = _dense(value, t)
    return [arith.constant(t, attr)]


def _scalar_attr(dt: np.dtype, v) -> ir.Attribute:
    t = scalar.storage_type(dt)
    if dt.kind == "f":
        return ir.FloatAttr.get(t, float(v))
    iv = int(v)
    if dt.kind == "u" and iv >= 2 ** (dt.itemsize * 8 - 1):
        iv -= 2 ** (dt.itemsize * 8)
    return ir.IntegerAttr.get(t, iv)


def _complex_dense(value: np.ndarray, t) -> ir.Attribute:
    """DenseElementsAttr takes complex arrays (not complex splat attributes); one element is a splat."""
    flat = np.ascontiguousarray(value).reshape(-1)
    if flat.size and (flat == flat[0]).all():
        flat = flat[:1]
    return ir.DenseElementsAttr.get(flat, type=t)


def _dense(value: np.ndarray, t) -> ir.Attribute:
    arr = np.ascontiguousarray(value)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int8)
    if arr.dtype.kind == "u":
        arr = arr.view(arr.dtype.str.replace("u", "i"))
    return ir.DenseElementsAttr.get(arr, type=t)
